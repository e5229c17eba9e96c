"""The sheet among other papers (scanner/ocr/sheet_pick.py): on a dark table with papers touching
it or lying on its margin, the biggest bright region is the sheet and a paper together; the
sheet is the quad whose inside holds ruled tables square to its sides, with blank margins."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from scanner.ocr.page import find_page, load_image, order_corners
from scanner.ocr.sheet_pick import content_fit, margin_fit
from needs import require
from scoring import score_scan

REPO = Path(__file__).resolve().parent.parent
PHOTOS = REPO / "samples" / "photos"


def _sample_page() -> tuple[np.ndarray, np.ndarray]:
    """The page of a committed sample photo and its corners there."""
    src = load_image(PHOTOS / "photo-02.jpg")
    t = json.loads((PHOTOS / "photo-02.truth.json").read_text("utf-8"))
    return src, order_corners(np.array(t["distortions"]["page_corners"], np.float32))


def two_papers(sheet: np.ndarray, seed: int = 0) -> np.ndarray:
    """A dark table, a printed text page (no rules) under the sheet's right edge, the sheet on
    top: together they make one bright region wider than the sheet."""
    rng = np.random.default_rng(seed)
    w, h = 1800, 2200
    img = np.clip(35 + rng.normal(0, 6, (h, w, 3)), 0, 255).astype(np.uint8)
    other = np.array([[1050, 330], [1700, 420], [1640, 1700], [990, 1640]], np.int32)
    cv2.fillPoly(img, [other], (228, 230, 226))
    for y in range(420, 1600, 34):  # lines of text: dark bars, ragged, no rules
        x = 1080
        while x < 1580:
            n = int(rng.integers(40, 160))
            cv2.rectangle(img, (x, y + (x - 1000) // 12), (min(x + n, 1600), y + 12 + (x - 1000) // 12),
                          (60, 60, 60), -1)
            x += n + 22
    src, corners = _sample_page()
    m = cv2.getPerspectiveTransform(corners, sheet.astype(np.float32))
    page = cv2.warpPerspective(src, m, (w, h))
    mask = cv2.warpPerspective(np.full(src.shape[:2], 255, np.uint8), m, (w, h))
    img = np.where(mask[:, :, None] > 127, page, img)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


def test_the_sheet_not_the_sheet_and_a_paper_touching_it():
    sheet = np.array([[260, 300], [1180, 250], [1250, 1560], [300, 1620]], np.float32)
    img = two_papers(sheet)
    found = find_page(img)
    assert found is not None
    assert float(np.linalg.norm(found - sheet, axis=1).max()) / max(img.shape[:2]) < 0.012


def test_content_tells_the_sheet_from_another_paper():
    """Measured on the ~800 px copy find_page works on: the sheet's quad holds ruled tables and
    blank margins; the text page's quad and the quad round both papers do not."""
    sheet = np.array([[260, 300], [1180, 250], [1250, 1560], [300, 1620]], np.float32)
    img = two_papers(sheet)
    scale = 800 / max(img.shape[:2])
    gray = cv2.resize(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), None, fx=scale, fy=scale,
                      interpolation=cv2.INTER_AREA)
    other = np.array([[1050, 330], [1700, 420], [1640, 1700], [990, 1640]], np.float32)
    both = np.array([[260, 300], [1700, 420], [1640, 1700], [300, 1620]], np.float32)
    assert content_fit(gray, sheet * scale) > 0.5
    assert min(margin_fit(gray, sheet * scale)) >= 0.9
    assert content_fit(gray, other * scale) == 0.0
    assert content_fit(gray, both * scale) == 0.0


def _clutter_scene():
    sys.path.insert(0, str(REPO / "samples"))
    from clutter_scene import cluttered_photo  # samples/ is not a package
    return cluttered_photo


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 6])
def test_cluttered_photo_of_a_sample_sheet_reads(tmp_path, demo_db, seed):
    """A committed sample photo's page, flattened, photographed again as make_photos'
    photo-cluttered kind does it (seed 2: a text page and a receipt touching the sheet, a hand
    on its margin; seed 6: cards and a receipt touching it, a card and a note on its margin;
    rotation and a strong perspective). The page found is the sheet, and its lines read with
    no silent error."""
    from scanner.read import load_decklist

    src, corners = _sample_page()
    w, h = 1800, int(1800 * 297 / 210)
    m = cv2.getPerspectiveTransform(corners, np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    page = cv2.cvtColor(cv2.warpPerspective(src, m, (w, h), flags=cv2.INTER_CUBIC), cv2.COLOR_BGR2RGB)
    rgb, dist = _clutter_scene()(page, np.random.default_rng(seed),
                                 {"long_side": (2600, 3000), "landscape": 0.0, "quality": (85, 85)})
    assert any(o["relation"] == "touching" for o in dist["others"])
    img = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    found = find_page(img)
    assert found is not None
    truth_corners = order_corners(np.array(dist["page_corners"], np.float32))
    assert float(np.linalg.norm(found - truth_corners, axis=1).max()) / max(img.shape[:2]) < 0.012

    photo = tmp_path / "cluttered.jpg"
    cv2.imwrite(str(photo), img, [cv2.IMWRITE_JPEG_QUALITY, 85])
    truth = json.loads((PHOTOS / "photo-02.truth.json").read_text("utf-8"))
    res = score_scan(load_decklist(photo, demo_db).to_json(), truth)
    assert res["silent"] == 0, res["errors"]
    assert res["missing"] == 0, res["missed"]
    assert res["correct"] >= 0.85 * res["lines"], res


def test_a_quad_on_one_table_s_rules_gives_way_to_the_quad_whose_grid_finds_the_tables():
    """A card and a note over the sheet's margins can make the page stage pick a quad drawn on
    one table's own rules: the grid there misses tables, and the other quads holding ruled
    content are tried (pipeline._other_quads); the one showing all main tables stays."""
    from scanner.ocr.grid import page_to_grid
    from scanner.ocr.page import image_to_page, search_page
    from scanner.ocr.pipeline import MAIN, Located, _other_quads, _tables_found

    sheet = np.array([[260, 300], [1180, 250], [1250, 1560], [300, 1620]], np.float32)
    img = two_papers(sheet)
    # The top-left part of the sheet: its title and the monster table, cut at the middle.
    tl, tr, br, bl = sheet
    part = np.float32([tl, tl + 0.45 * (tr - tl), tl + 0.45 * (br - tl), tl + 0.6 * (bl - tl)])
    page = image_to_page(img, corners=part)
    page.search = search_page(img)[1]  # what the page stage saw: the quads to try come from it
    grid = page_to_grid(page.gray)
    wrong = Located(page, grid, _tables_found(grid))
    assert not all(c in wrong.found for c in MAIN)
    got = _other_quads(img, wrong)
    assert all(c in got.found for c in MAIN), got.found
    assert float(np.linalg.norm(got.page.corners - sheet, axis=1).max()) / max(img.shape[:2]) < 0.012


def _generated(tmp_path: Path, db, seed: int, sheet: int) -> tuple[Path, dict]:
    """Sheet `sheet` (1-based) of `make_photos.py --kinds photo-cluttered --seed SEED --card-db
    ../shared/carddb/ko-KR.cdb`, made by the generator's own functions: the same bytes."""
    from sample_makers import make_photos

    mp = make_photos()
    require(all((mp.FONT_DIR / f).is_file() for pair in mp.FONTS.values() for f in pair),
            "needs the Nanum fonts of samples/make_samples.py (fonts-nanum)")
    kind, index = "photo-cluttered", seed * 1000 + sheet - 1
    rng = np.random.default_rng([index, mp.EXTRA_KINDS[kind]])
    made = mp.random_sheet(db, mp.card_pools(db), rng, index, index)
    path = mp.make_one(made, kind, f"{kind}-{sheet:02d}", tmp_path, rng, db, mp.card_pools(db),
                       mp.FULL, tmp_path)
    return path, json.loads(path.with_suffix(".truth.json").read_text("utf-8"))


def _corner_error(found: np.ndarray | None, truth: dict) -> float:
    """Largest corner distance as a share of the frame diagonal (1.0 when nothing was found)."""
    if found is None:
        return 1.0
    want = order_corners(np.array(truth["distortions"]["page_corners"], np.float32))
    return float(np.linalg.norm(found - want, axis=1).max() / np.hypot(*truth["distortions"]["frame"]))


def test_a_side_stopped_on_a_table_rule_moves_out_to_the_sheet_edge(tmp_path, real_db):
    """make_photos seed 4242, sheet 04: a card lies on the sheet's right margin and a note on
    its bottom one. The quads with ruled content were one table's own rules (blank gaps round
    it: taken, 32 % off) and the sheet with its bottom on the lower tables' last rule (no blank
    margin there: refused). A side without a blank margin is now also tried further out, on
    the sheet's edge beyond it: the whole sheet."""
    path, truth = _generated(tmp_path, real_db, 4242, 4)
    assert any(o["relation"] == "on-margin" and o["side"] == "bottom" for o in truth["distortions"]["others"])
    assert _corner_error(find_page(load_image(path)), truth) < 0.01


def test_a_paper_over_most_of_a_margin_and_a_quad_cut_between_the_tables(tmp_path, real_db):
    """make_photos seed 9292, sheet 04: a receipt lies over four fifths of the sheet's bottom
    margin (2 of its 10 chunks blank: the whole sheet was refused for want of margin, and the
    best outline, 6 % off, was read: 17/27, the extra and side tables missing). Read upright,
    a quad cut in the blank gap between the main and the lower tables has margins all round;
    its cut side has no brightness step (the same paper both sides), which a sheet's side
    always has. The whole sheet is taken."""
    from scanner.ocr import sheet_pick
    from scanner.ocr.page import search_page

    path, truth = _generated(tmp_path, real_db, 9292, 4)
    assert any(o["relation"] == "on-margin" and o["side"] == "bottom" for o in truth["distortions"]["others"])
    found, search = search_page(load_image(path))
    assert _corner_error(found, truth) < 0.01
    # The cut quad (the sheet down to the gap; taken before these rules) has tables and
    # margins; its flat side and the tables going on past it say it is a part of the sheet.
    cut = np.float32([[341, 1279], [1573, 1057], [1831, 2238], [440, 2461]]) * search.scale
    (c,) = sheet_pick.check_quads(search.gray, search.light, cut[None], 1)
    assert c.content > 0 and c.worst >= sheet_pick.MIN_MARGIN
    assert c.flattest < sheet_pick.FLAT_SIDE and c.tables_beyond and not c.sheet_like


@pytest.mark.slow
@pytest.mark.parametrize("seed, sheet", [(4242, 4), (9292, 4)])
def test_generated_cluttered_photos_read_whole(tmp_path, real_db, seed, sheet):
    """The two scenes above read in full: every line, none wrong and unflagged."""
    from scanner.read import load_decklist

    path, truth = _generated(tmp_path, real_db, seed, sheet)
    res = score_scan(load_decklist(path, real_db).to_json(), truth)
    assert res["silent"] == 0, res["errors"]
    assert res["missing"] == 0, res["missed"]
    assert res["correct"] >= res["lines"] - 1, res


def test_a_quad_cut_above_the_lower_tables_is_a_part_of_the_sheet():
    """The sample sheet photographed as photo-cluttered (seed 6 above): a quad whose bottom runs
    just above the lower tables' grey header rows has blank margins all round and a brightness
    step on every side (paper against the grey header), and scored above the whole sheet,
    whose bottom margin a note and a receipt cover. Beyond its bottom side the tables go on
    (rules along the side and square to it): it is a part of the sheet, and the sheet is
    found."""
    from scanner.ocr import sheet_pick
    from scanner.ocr.page import search_page

    src, corners = _sample_page()
    w, h = 1800, int(1800 * 297 / 210)
    m = cv2.getPerspectiveTransform(corners, np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    page = cv2.cvtColor(cv2.warpPerspective(src, m, (w, h), flags=cv2.INTER_CUBIC), cv2.COLOR_BGR2RGB)
    rgb, dist = _clutter_scene()(page, np.random.default_rng(6),
                                 {"long_side": (2600, 3000), "landscape": 0.0, "quality": (85, 85)})
    img = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    found, search = search_page(img)
    assert _corner_error(found, {"distortions": {**dist, "frame": img.shape[1::-1]}}) < 0.01
    sheet = order_corners(np.array(dist["page_corners"], np.float32)) * search.scale
    parts = [c for c in search.surveyed().checked if c.content > 0 and c.worst >= sheet_pick.MIN_MARGIN
             and c.flattest >= sheet_pick.FLAT_SIDE and cv2.contourArea(c.quad) < 0.8 * cv2.contourArea(sheet)]
    assert parts and all(c.tables_beyond and not c.sheet_like for c in parts)


def test_a_near_twin_of_a_checked_quad_is_checked_too(tmp_path, real_db):
    """make_photos seed 7575, sheet 02 (held out; its loss, 31/31 → not a deck sheet, showed
    this): the whole sheet's quad and a twin 4 px off, its left side on the monster table's
    outer rule (no blank margin), measured in the same corner order, were one quad to check
    (1 % of the frame): the twin came first, the sheet was never checked, and no quad was
    left. Twins are now told apart down to 0.4 %."""
    path, truth = _generated(tmp_path, real_db, 7575, 2)
    assert _corner_error(find_page(load_image(path)), truth) < 0.01
