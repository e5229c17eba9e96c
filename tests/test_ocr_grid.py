"""Table grid of the db-ko sheet (scanner/ocr/grid.py) under what photos do to rules: faint and
hairline rules, low resolution, a lost rule, a pen strike beside a rule, and no grid at all.
Pages come from the project's own sample photo; expected row counts from its truth file."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scanner.ocr.grid import page_to_grid
from scanner.ocr.page import image_to_page, load_image

PHOTOS = Path(__file__).resolve().parent.parent / "samples" / "photos"
KINDS = ("monster", "spell", "trap", "extra", "side")


@pytest.fixture(scope="module")
def sample_page() -> tuple[np.ndarray, dict[str, int]]:
    """A flattened page of samples/photos/photo-02.jpg and its printed rows per column."""
    page = image_to_page(load_image(PHOTOS / "photo-02.jpg"))
    rows = json.loads((PHOTOS / "photo-02.truth.json").read_text("utf-8"))["layout"]["rows"]
    want = {"monster": rows["main_columns"], "spell": rows["main_columns"],
            "trap": rows["main_columns"], "extra": rows["extra"], "side": rows["side"]}
    return page.gray, want


def rows_of(gray: np.ndarray) -> dict[str, int]:
    grid = page_to_grid(gray)
    return {k: len(grid.by_kind(k).rows) if grid.by_kind(k) else 0 for k in KINDS}


def row_tops(gray: np.ndarray, kind: str) -> list[int]:
    return [r.box.y0 for r in page_to_grid(gray).by_kind(kind).rows]


def test_sample_page_grid(sample_page):
    gray, want = sample_page
    assert rows_of(gray) == want


def test_faint_rules_found_by_their_contrast(sample_page):
    """Rules printed light grey (or blurred thin in a photo) sit far above the ink level: they
    are found by their contrast with the paper beside them, at the same places."""
    gray, want = sample_page
    faint = (255 - (255 - gray.astype(np.float32)) * 0.22).astype(np.uint8)  # rules ≈ 205
    assert float(faint.min()) > 190
    grid = page_to_grid(faint)
    assert {k: len(grid.by_kind(k).rows) for k in KINDS} == want
    assert "grid: faint rules" in grid.notes
    sharp = row_tops(gray, "spell")
    assert all(abs(a - b) <= 3 for a, b in zip(row_tops(faint, "spell"), sharp))


def test_low_resolution_photo(sample_page):
    """A page photographed at ~120 dpi (a landscape 2000 px frame), JPEG'd, then warped up."""
    gray, want = sample_page
    h, w = gray.shape
    small = cv2.resize(gray, (int(w * 0.55), int(h * 0.55)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 0.8)
    ok, jpg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 60])
    back = cv2.resize(cv2.imdecode(jpg, cv2.IMREAD_GRAYSCALE), (w, h), interpolation=cv2.INTER_CUBIC)
    lighter = (255 - (255 - back.astype(np.float32)) * 0.5).astype(np.uint8)
    assert rows_of(lighter) == want


def test_lost_rule_does_not_merge_two_rows(sample_page):
    """A row rule lost in the photo: the row pitch puts it back, two names never share a row."""
    gray, want = sample_page
    grid = page_to_grid(gray)
    table = grid.by_kind("monster")
    y = table.ys[6]
    erased = gray.copy()
    erased[y - 5:y + 6, table.box.x0 + 4:table.box.x1 - 4] = 255
    assert rows_of(erased) == want
    heights = [r.box.h for r in page_to_grid(erased).by_kind("monster").rows]
    assert max(heights) < 1.3 * float(np.median(heights))


def test_pen_strike_beside_a_rule_is_not_a_rule(sample_page):
    """A straight pen strike a third of a row below a rule is not taken for one (nor does it
    push the real rule out)."""
    gray, want = sample_page
    table = page_to_grid(gray).by_kind("spell")
    r = table.rows[3].box
    struck = gray.copy()
    y = r.y0 + r.h // 3
    cv2.line(struck, (r.x0 + 10, y), (r.x1 - 10, y + 2), 30, 3)
    assert rows_of(struck) == want
    assert abs(row_tops(struck, "spell")[4] - table.rows[4].box.y0) <= 3


def test_blank_page_has_no_grid():
    gray = np.full((2546, 1800), 250, np.uint8)
    cv2.putText(gray, "not a deck sheet", (200, 900), cv2.FONT_HERSHEY_SIMPLEX, 3, 0, 6)
    assert all(n == 0 for n in rows_of(gray).values())


def test_missing_border_rule_does_not_shift_the_cells(sample_page):
    """A table whose outer border the photo lost: the cells are still row number | name | count
    by the table's geometry (not the row-number column read as the name, the name as the count)."""
    gray, want = sample_page
    table = page_to_grid(gray).by_kind("spell")
    right = table.xs[-1]
    erased = gray.copy()
    erased[table.box.y0 - 2:table.box.y1 + 2, right - 6:right + 7] = 255
    spell = page_to_grid(erased).by_kind("spell")
    assert len(spell.rows) == want["spell"]
    width = spell.box.w
    for r in spell.rows:
        assert r.name.w > 0.6 * width and r.count.w < 0.25 * width, (r.name, r.count)
        assert abs(r.name.x0 - table.rows[0].name.x0) <= 4 and abs(r.count.x0 - table.rows[0].count.x0) <= 4


def test_one_lower_table_keeps_its_own_kind(sample_page):
    """With the extra deck table lost, the side deck table is still the side deck (its lines
    must not be read into the extra deck)."""
    gray, want = sample_page
    extra = page_to_grid(gray).by_kind("extra")
    erased = gray.copy()
    erased[extra.box.y0 - 5:extra.box.y1 + 5, extra.box.x0 - 5:extra.box.x1 + 5] = 255
    grid = page_to_grid(erased)
    assert grid.by_kind("extra") is None
    assert len(grid.by_kind("side").rows) == want["side"]


def test_table_not_found_is_a_review_item(demo_db):
    """The reader says which printed table it could not find (its lines are unread, not absent)."""
    from scanner.read import ReadOptions
    from scanner.ocr.pipeline import read_image
    page = image_to_page(load_image(PHOTOS / "photo-02.jpg"))
    extra = page_to_grid(page.gray).by_kind("extra")
    color = page.color.copy()
    color[extra.box.y0 - 5:extra.box.y1 + 5, extra.box.x0 - 5:extra.box.x1 + 5] = 255
    sheet = read_image(color, demo_db, ReadOptions(), is_scan=True, label="no-extra")
    flags = [r for r in sheet.review if r.reason == "unreadable-line"]
    assert [(f.section, "extra table not found" in f.detail) for f in flags] == [("extra", True)]
    assert not [ln for ln in sheet.lines if ln.section == "extra"]
    assert [ln for ln in sheet.lines if ln.section == "side"]


def test_leaning_column_keeps_its_count_rule(sample_page):
    """Perspective leaves one column's rules leaning after the page's shear: the count rule
    spreads over many pixel columns, yet it must be found (not the border taken for it)."""
    gray, want = sample_page
    h, w = gray.shape
    x0 = int(w * 0.64)  # the trap column and right of it
    k = float(np.tan(np.radians(1.4)))
    part = np.ascontiguousarray(gray[:, x0:])
    m = np.float32([[1, k, -k * h / 2], [0, 1, 0]])
    leaned = gray.copy()
    leaned[:, x0:] = cv2.warpAffine(part, m, (w - x0, h), borderMode=cv2.BORDER_REPLICATE)
    grid = page_to_grid(leaned)
    spell, trap = grid.by_kind("spell"), grid.by_kind("trap")
    assert trap is not None and len(trap.rows) == want["trap"]
    assert abs(trap.lean) > 0.01
    ratio = trap.rows[0].count.w / spell.rows[0].count.w
    assert 0.7 < ratio < 1.3, (trap.rows[0].count, spell.rows[0].count)


def test_a_column_rule_faint_in_places_is_painted_out_whole(sample_page):
    """A rule the masks lose in places (blurred, dashed-looking print) must not leave grey
    slivers in the cleaned page: in an empty count cell they read as a hand-written 1."""
    gray, _ = sample_page
    grid = page_to_grid(gray)
    table = grid.by_kind("monster")
    x = [c.count.x0 for c in table.rows][-1]
    faded = gray.copy()
    rows = table.rows[-4:]
    for r in rows:  # the count rule fades to light grey over the last rows
        faded[r.box.y0 + 6:r.box.y1 - 6, x - 2:x + 3] = np.maximum(faded[r.box.y0 + 6:r.box.y1 - 6, x - 2:x + 3], 175)
    again = page_to_grid(faded)
    t = again.by_kind("monster")
    for r in t.rows[-4:]:
        strip = again.clean[r.box.y0 + 6:r.box.y1 - 6, r.count.x0 - 4:r.count.x0 + 5]
        assert strip.min() >= 200, (r.row, int(strip.min()))


def test_rows_keep_their_printed_numbers_under_a_lost_rule():
    """A row box that swallowed two printed lines (a lost rule) must not renumber the rows
    under it: line positions are the paper's (issue 14)."""
    from scanner.ocr.grid import Box, Table, build_rows
    ys = [0, 40] + [40 + 44 * i for i in range(1, 21)] + [40 + 44 * 20 + 44]
    del ys[5]  # the rule between printed rows 4 and 5
    t = Table(box=Box(0, 0, 500, ys[-1]), xs=[0, 30, 420, 499], ys=ys, kind="spell")
    build_rows(t)
    numbers = [r.row for r in t.rows]
    assert numbers[:4] == [1, 2, 3, 4] and numbers[4] == 6 and numbers[-1] == 20


def test_lean_profiles_are_the_sheared_masks_column_sums(sample_page):
    """`_upright_profile` sums runs of rows moved sideways instead of warping the mask per lean:
    at every lean its column sums are those of the mask sheared by a nearest-neighbour warp,
    on the page's own vertical-rule mask (whole and cut into table-like boxes) and on noise."""
    from scanner.ocr.grid import (GRID, _row_shifts, _shift_changes, _sheared_sums,
                                  _upright_profile, line_masks)
    gray, _ = sample_page
    _, _, vert = line_masks(gray)
    rng = np.random.default_rng(7)
    masks = [(vert > 0).astype(np.uint8)]
    for _ in range(6):
        y0, x0 = int(rng.integers(0, gray.shape[0] // 2)), int(rng.integers(0, gray.shape[1] // 2))
        masks.append(np.ascontiguousarray(masks[0][y0:y0 + int(rng.integers(40, 1200)),
                                                   x0:x0 + int(rng.integers(30, 800))]))
    masks.append((rng.random((733, 311)) < 0.1).astype(np.uint8))
    for mask in masks:
        h, w = mask.shape
        for deg in np.arange(-GRID.table_lean_deg, GRID.table_lean_deg + 1e-6, GRID.lean_step_deg):
            k = float(np.tan(np.radians(deg)))
            m = np.float32([[1, -k, k * h / 2], [0, 1, 0]])
            want = cv2.reduce(cv2.warpAffine(mask, m, (w, h), flags=cv2.INTER_NEAREST), 0,
                              cv2.REDUCE_SUM, dtype=cv2.CV_32F).ravel()
            shifts = _row_shifts(h, k)
            cuts = np.unique(np.concatenate([[0, h], _shift_changes(shifts)]))
            cum = np.diff(cv2.integral(mask)[cuts], axis=1)
            got = _sheared_sums(cum, {int(c): i for i, c in enumerate(cuts)}, shifts, _shift_changes(shifts))
            assert np.array_equal(got, want), (mask.shape, deg)
    # A rule leaning 1° over a tall box is found upright at the nearest lean step (1°).
    box = np.zeros((900, 200), np.uint8)
    for y in range(900):
        box[y, 100 + int(round(np.tan(np.radians(1.0)) * (y - 450)))] = 1
    prof, lean = _upright_profile(box)
    assert abs(lean - np.tan(np.radians(1.0))) < 1e-9 and prof.max() >= 890


def test_component_boxes_are_the_labelling_s_in_its_order(sample_page):
    """`component_boxes` (outlines) gives the boxes `connectedComponentsWithStats` gives, in its
    order, on the page's rule masks (both modes), its dense ink mask, parts of them, and noise."""
    from scanner.ocr.grid import component_boxes, line_masks
    gray, _ = sample_page
    masks = []
    for faint in (False, True):
        ink, horiz, vert = line_masks(gray, faint)
        masks += [cv2.dilate(cv2.bitwise_or(horiz, vert), np.ones((3, 3), np.uint8)), ink]
    rng = np.random.default_rng(11)
    for _ in range(6):  # crops that cut components at the image edge, odd offsets and sizes
        y0, x0 = int(rng.integers(0, 301)), int(rng.integers(0, 301))
        masks.append(np.ascontiguousarray(masks[1][y0:y0 + int(rng.integers(50, 1500)),
                                                   x0:x0 + int(rng.integers(50, 1500))]))
    masks.append(((rng.random((401, 333)) < 0.3) * 255).astype(np.uint8))
    masks.append(np.zeros((40, 30), np.uint8))
    for mask in masks:
        n, _, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
        want = [tuple(int(v) for v in stats[i][:4]) for i in range(1, n)]
        assert component_boxes(mask) == want, mask.shape


@pytest.mark.parametrize("sheet", ["db-ko-01", "db-ko-03"])
def test_tables_side_by_side_stay_apart_when_blur_closes_their_gap(sheet, shared_dir):
    """The card database prints its three main tables ~2.4 pt apart: in a soft photo at 150-200
    dpi the row rules' blurred ends and the masks' gap bridging close that gap, and two tables
    read as one (issue 34: a db-ko photo lost a column's lines). Each table's own border rule,
    with no row rule ink between the two, keeps them apart. The sheet's text layer gives the
    rows each table must have."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from renderings import render

    from card_db.cdb import load_card_db
    from scanner.read import load_decklist
    pdf = shared_dir / "fixtures" / "sheets" / f"{sheet}.pdf"
    truth = load_decklist(pdf, load_card_db(shared_dir / "carddb" / "ko-KR.cdb"))
    last = {k: max((e.row for s in truth.sections.values() for e in s if e.column == k), default=0)
            for k in KINDS}
    for dpi, sigma in ((150, 1.6), (200, 1.6)):
        gray = cv2.GaussianBlur(cv2.cvtColor(render(pdf, "poppler", dpi), cv2.COLOR_BGR2GRAY), (0, 0), sigma)
        page = image_to_page(cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR), is_scan=True).gray
        got = rows_of(page)
        assert all(got[k] >= max(last[k], 15) for k in KINDS), (dpi, got)
        assert got["monster"] == got["spell"] == got["trap"], (dpi, got)
