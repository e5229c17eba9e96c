"""A sheet with a table the grid cannot find is read: the missing table is a review item,
the other tables keep their own names (vocabularies), and only a page with no deck table at
all is refused (issue 14)."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

pytest.importorskip("tesserocr")

PHOTOS = Path(__file__).resolve().parent.parent / "samples" / "photos"


@pytest.fixture(scope="module")
def scan_page():
    from scanner.ocr.grid import page_to_grid
    from scanner.ocr.page import image_to_page
    from scanner.ocr.rasterize import pdf_page_image
    page = image_to_page(pdf_page_image(PHOTOS / "scan-01.pdf"), is_scan=True)
    truth = json.loads((PHOTOS / "scan-01.truth.json").read_text(encoding="utf-8"))
    return page, page_to_grid(page.gray), truth


def _without(page, grid, kinds: tuple[str, ...]):
    img = page.color.copy()
    for k in kinds:
        b = grid.by_kind(k).box
        cv2.rectangle(img, (b.x0 - 4, b.y0 - 4), (b.x1 + 4, b.y1 + 4), (250, 250, 250), -1)
    return img


def _read(img, demo_db):
    from scanner.inputs.options import ReadOptions
    from scanner.ocr.pipeline import read_image
    return read_image(img, demo_db, ReadOptions(), is_scan=True, label="t")


def _truth_lines(truth, columns):
    return sorted((ln["column"], ln["row"], ln["card_id"], ln["count"])
                  for ln in truth["layout"]["lines"] if ln["column"] in columns)


def _read_lines(sheet, columns):
    return sorted((ln.column, ln.row, ln.card_id, ln.count) for ln in sheet.lines
                  if ln.column in columns and not ln.flags)


def test_a_lost_main_column_is_a_review_item_and_its_neighbours_keep_their_names(scan_page, demo_db):
    page, grid, truth = scan_page
    sheet = _read(_without(page, grid, ("spell",)), demo_db)
    assert any(r.section == "main" and "spell table not found" in r.detail for r in sheet.review)
    assert not any(ln.column == "spell" for ln in sheet.lines)
    keep = ("monster", "trap", "extra", "side")
    assert _read_lines(sheet, keep) == _truth_lines(truth, keep)


def test_all_main_columns_lost_leaves_extra_and_side_as_they_are(scan_page, demo_db):
    page, grid, truth = scan_page
    sheet = _read(_without(page, grid, ("monster", "spell", "trap")), demo_db)
    assert {r.detail.split()[0] for r in sheet.review if "not found" in r.detail} == {"monster", "spell", "trap"}
    assert _truth_lines(truth, ("extra", "side"))
    assert _read_lines(sheet, ("extra", "side")) == _truth_lines(truth, ("extra", "side"))
    assert not any(ln.section == "main" for ln in sheet.lines)


def test_a_page_without_any_deck_table_is_refused(scan_page, demo_db):
    from scanner.errors import UnreadableInput
    page, grid, _ = scan_page
    with pytest.raises(UnreadableInput, match="not a deck sheet"):
        _read(_without(page, grid, ("monster", "spell", "trap", "extra", "side")), demo_db)


def test_a_table_cut_off_by_the_photo_edge_is_a_review_item_not_a_short_table(scan_page, demo_db):
    """The frame (or a paper over the sheet) cuts the lower tables through row 12: the last
    whole row (11) is not taken for the 합계 row, and the rows from it on are unread, said so."""
    page, grid, truth = scan_page
    extra = grid.by_kind("extra")
    cut = (extra.rows[11].box.y0 + extra.rows[11].box.y1) // 2  # through row 12
    sheet = _read(page.color[:cut].copy(), demo_db)
    cut_off = {r.detail.split()[0]: r.detail for r in sheet.review if "cut off" in r.detail}
    assert set(cut_off) == {"extra", "side"}, sheet.review
    assert "rows 11 on were not read" in cut_off["extra"]
    seen = [ln for ln in truth["layout"]["lines"] if ln["column"] in ("extra", "side") and ln["row"] <= 10]
    assert sorted((ln.column, ln.row, ln.card_id, ln.count) for ln in sheet.lines
                  if ln.column in ("extra", "side")) == sorted(
        (ln["column"], ln["row"], ln["card_id"], ln["count"]) for ln in seen)
    assert sheet.printed_totals.get("extra") is None and sheet.printed_totals.get("side") is None
    main = ("monster", "spell", "trap")
    assert _read_lines(sheet, main) == _truth_lines(truth, main)
    assert not any("cut off" in r.detail for r in _read(page.color, demo_db).review)
