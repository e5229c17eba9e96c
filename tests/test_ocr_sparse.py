"""Photos of sheets with empty sections in a strong pose (make_photos' photo-sparse kind, issue 14):
a sheet printed without row numbers, shot small and soft, must not grow a row-number rule out of
its names' first letters, and a table border left inside a count cell must not turn a printed
digit into a doubted or struck one."""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from needs import require
from scoring import score_scan

from scanner.ocr.grid import Box, Table, column_rules

REPO = Path(__file__).resolve().parent.parent
PITCH, ROWS = 44, 20


def _table_and_mask(stack_rows: int, number_rule: bool) -> tuple[Table, np.ndarray]:
    """A 20-row db-ko table 500 px wide (borders, a count rule at 420) and its vertical-rule
    mask; `stack_rows` rows carry glyph strokes at x 30 (their names' first letters, in the
    middle half of each row); `number_rule` draws a real row-number rule there instead."""
    ys = [0] + [PITCH * (i + 1) for i in range(ROWS + 2)]
    h = ys[-1] + 1
    vert = np.zeros((h, 500), np.uint8)
    for x in (0, 420, 498):
        vert[:, x:x + 2] = 255
    if number_rule:
        vert[ys[1]:ys[-2], 29:31] = 255
    for r in range(stack_rows):
        y0 = ys[1 + r]
        vert[y0 + PITCH // 4:y0 + 3 * PITCH // 4, 29:32] = 255
    t = Table(box=Box(0, 0, 500, h), xs=[1, 30, 420, 498], ys=ys, kind="monster")
    return t, vert


@pytest.mark.parametrize("stack_rows", [7, 20])
def test_names_starting_at_one_x_make_no_row_number_rule(stack_rows):
    """Seen on a blurred strong-pose photo of a sheet printed without row numbers: the first
    letters of 7 names stacked into a vertical profile peak 31 px in; taken for the row-number
    rule, it cut every name's first syllable (every line flagged). A full column of names
    stacks no higher: the strokes stop short of every row rule."""
    t, vert = _table_and_mask(stack_rows, number_rule=False)
    assert column_rules(t)[1] == 30  # the profile alone takes it for the rule
    left, no_x, count_x, right = column_rules(t, vert)
    assert no_x == left == 1 and count_x == 420


def test_a_printed_row_number_rule_stays():
    t, vert = _table_and_mask(7, number_rule=True)
    assert column_rules(t, vert)[1] == 30


def _count_band(digit: str, border: bool, strike: bool = False) -> np.ndarray:
    """A db-ko count cell cut from a band taller than its row: a printed digit, and (border)
    the row rule along its top joined to the table's right border a few pixels inside the
    cell, faint, as a warped photo leaves them: an L round the corner."""
    from PIL import Image, ImageDraw, ImageFont
    font = Path("/usr/share/fonts/truetype/nanum/NanumGothic.ttf")
    require(font.exists(), "needs fonts-nanum (apt-get install fonts-nanum)")
    img = Image.new("L", (66, 40), 255)
    ImageDraw.Draw(img).text((27, 8), digit, font=ImageFont.truetype(str(font), 24), fill=40)
    a = np.array(img)
    if strike:
        cv2.line(a, (20, 30), (46, 10), 30, 3)
    if border:
        a[0:2, :] = 185
        a[0:17, 61:63] = 190
        a[24:40, 61:63] = 190
    return cv2.GaussianBlur(a, (0, 0), 0.8)


@pytest.mark.parametrize("digit", ["1", "2", "3"])
def test_a_border_left_inside_the_count_cell_is_cleared_on_a_second_look(digit):
    from scanner.ocr.rows import RowBand, read_count, recount_without_rule_bits
    from scanner.ocr.thresholds import COUNT_ACCEPT, SURE_COUNT
    band = RowBand(_count_band(digit, border=True), 40)
    beside = RowBand(np.full((40, 14), 255, np.uint8), 40)
    first = read_count(band, beside)
    assert first[0] != int(digit) or first[1] < COUNT_ACCEPT or first[3], first  # doubted or wrong
    value, conf, detail, struck, _ = recount_without_rule_bits(band, beside, first)
    assert (value, struck) == (int(digit), False) and conf >= SURE_COUNT, detail
    assert detail.endswith("rule bits cleared")


def test_a_struck_count_keeps_its_doubt_on_the_second_look():
    """The second look only stands when it reads one clean digit: a struck printed count
    (a correction whose new digit is not in the cell) stays what the first read said."""
    from scanner.ocr.rows import RowBand, read_count, recount_without_rule_bits
    band = RowBand(_count_band("2", border=True, strike=True), 40)
    beside = RowBand(np.full((40, 14), 255, np.uint8), 40)
    first = read_count(band, beside)
    assert recount_without_rule_bits(band, beside, first) == first


def _make_photos():
    sys.path.insert(0, str(REPO / "samples"))
    import make_photos  # samples/ is not a package
    return make_photos


@pytest.mark.slow
def test_sparse_photo_of_a_sample_deck_reads_with_its_empty_sections_empty(tmp_path, demo_db):
    """make_photos' photo-sparse kind on a sample deck (the demo database): the sections left
    empty read as empty, no line is silently wrong."""
    import json
    from scanner.read import load_decklist
    mp = _make_photos()
    rng = np.random.default_rng([3, mp.EXTRA_KINDS["photo-sparse"]])
    sheet = mp.sample_sheet("sky-striker", demo_db, rng)
    path = mp.make_one(sheet, "photo-sparse", "sparse", tmp_path, rng, demo_db, mp.card_pools(demo_db),
                       mp.FULL, tmp_path)
    truth = json.loads((tmp_path / "sparse.truth.json").read_text("utf-8"))
    assert truth["distortions"]["pose"] == "strong" and truth["distortions"]["dropped"]
    out = load_decklist(path, demo_db).to_json()
    for section in {"extra", "side"} & set(truth["distortions"]["dropped"]):
        assert not out["sections"].get(section), section
    res = score_scan(out, truth)
    assert res["silent"] == 0, res["errors"]
    assert res["correct"] >= 0.9 * res["lines"], res


@pytest.mark.slow
def test_a_soft_strong_pose_sheet_without_row_numbers_reads(tmp_path, real_db):
    """Seed 7171's eighth photo-sparse sheet (no row numbers, blur 1.2, the far edge 28 %
    shorter, extra, side and trap empty): every line was flagged (a phantom row-number rule;
    printed 3s read as 7 or 8, an L of border bits read as a strike); now most read, none
    silently wrong."""
    import json
    from scanner.read import load_decklist
    mp = _make_photos()
    seed = 7171 * 1000 + 7
    rng = np.random.default_rng([seed, mp.EXTRA_KINDS["photo-sparse"]])
    pools = mp.card_pools(real_db)
    sheet = mp.random_sheet(real_db, pools, rng, seed, seed)
    path = mp.make_one(sheet, "photo-sparse", "sparse", tmp_path, rng, real_db, pools, mp.FULL, tmp_path)
    truth = json.loads((tmp_path / "sparse.truth.json").read_text("utf-8"))
    assert not truth["layout"]["style"]["entry_no"] and len(truth["distortions"]["dropped"]) == 3
    res = score_scan(load_decklist(path, real_db).to_json(), truth)
    assert res["silent"] == 0, res["errors"]
    assert res["correct"] >= 8, res
