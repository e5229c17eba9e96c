"""No internal error of a library reaches the user (issue 34 item 6): a picture that breaks a
stage is a coded refusal or a review item. Degenerate pictures (tiny, one colour, a huge aspect,
noise, a grid too dense or too small), cells that fall off the page (a form fitted partly off
it: an empty crop once reached OpenCV's morphology as `!_src.empty()`), and a stage made to fail.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner.errors import DecksheetError
from scanner.inputs.options import ReadOptions
from scanner.ocr.grid import Box

pytest.importorskip("tesserocr")


def _pictures() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    ruled = np.full((1200, 900, 3), 255, np.uint8)
    for y in range(100, 1100, 30):
        cv2.line(ruled, (50, y), (850, y), (0, 0, 0), 2)
    for x in (50, 90, 700, 850):
        cv2.line(ruled, (x, 100), (x, 1090), (0, 0, 0), 2)
    dense = np.full((320, 320, 3), 255, np.uint8)
    for v in range(0, 320, 8):
        cv2.line(dense, (0, v), (319, v), (0, 0, 0), 1)
    for v in range(0, 320, 40):
        cv2.line(dense, (v, 0), (v, 319), (0, 0, 0), 1)
    return {"white": np.full((400, 300, 3), 255, np.uint8), "black": np.zeros((300, 300, 3), np.uint8),
            "wide": np.full((300, 9000, 3), 128, np.uint8), "tall": np.full((9000, 300, 3), 200, np.uint8),
            "noise": rng.integers(0, 255, (600, 500, 3), dtype=np.uint8), "ruled": ruled, "dense": dense}


@pytest.mark.parametrize("name", sorted(_pictures()))
@pytest.mark.parametrize("is_scan", [False, True])
def test_a_degenerate_picture_is_read_or_refused_with_a_code(name, is_scan, demo_db):
    from scanner.ocr.pipeline import read_image
    try:
        sheet = read_image(_pictures()[name], demo_db, ReadOptions(), is_scan=is_scan, label=name)
    except DecksheetError as exc:
        assert exc.code.startswith("input."), exc.code
        return
    assert all(r.reason for r in sheet.review)


def test_a_box_past_the_page_edge_crops_what_is_on_the_page():
    img = np.arange(100 * 80, dtype=np.int32).reshape(100, 80)
    assert Box(-10, -10, 20, 30).crop(img).shape == (30, 20)
    assert (Box(-10, -10, 20, 30).crop(img) == img[:30, :20]).all()  # never the far edge's pixels
    assert Box(70, 90, 120, 140).crop(img).shape == (10, 10)
    assert Box(-50, -50, -20, -20).crop(img).size == 0
    assert Box(10, 10, 12, 12).crop(img, inset=3).size == 0
    assert not Box(-50, -50, -20, -20).fits(img) and Box(0, 0, 10, 10).fits(img)
    assert Box(0, 0, 80, 100).within(img) and not Box(-1, 0, 80, 100).within(img)


@pytest.mark.parametrize("shape", [(0, 0), (0, 40), (3, 2), (1, 500)])
def test_header_cells_of_no_size_read_as_nothing(shape):
    from scanner.ocr.header import read_id_digit, without_lines
    cell = np.full(shape, 255, np.uint8)
    assert without_lines(cell).shape == shape
    assert read_id_digit(cell.copy(), tess=None) is None  # (never reaches Tesseract)


def test_a_form_fitted_partly_off_the_page_reads_its_rows_on_the_page(demo_db):
    """Konami's form with its top cut off by the picture's edge: the rows above the edge are
    said to be outside the picture, the header left unread, and nothing raises."""
    from renderings import render
    from pathlib import Path
    from scanner.ocr.pipeline import read_image
    img = render(Path(__file__).resolve().parent.parent / "samples" / "sheets" / "kde-flat-hero.pdf",
                 "poppler", 150)
    cut = img[int(img.shape[0] * 0.22):]  # through the main tables' first rows
    sheet = read_image(cut, demo_db, ReadOptions(), is_scan=True, label="cut")
    assert sheet.lines
    unread = [r for r in sheet.review if r.reason == "unreadable-line"]
    assert unread and all(r.section in ("main", "extra", "side") for r in unread)


def test_a_stage_that_breaks_in_opencv_is_a_coded_refusal(monkeypatch, demo_db):
    from scanner.ocr import pipeline

    def broken(*_a, **_k):
        raise cv2.error("OpenCV(4.x) morphologyEx: error: (-215:Assertion failed) !_src.empty()")

    monkeypatch.setattr(pipeline, "image_to_page", broken)
    with pytest.raises(DecksheetError) as got:
        pipeline.read_image(np.full((400, 300, 3), 255, np.uint8), demo_db, ReadOptions(),
                            is_scan=True, label="x")
    assert got.value.code == "input.ocr-stage-failed"


def test_a_row_or_header_that_breaks_in_opencv_is_for_the_judge(monkeypatch, demo_db):
    """One row whose reading breaks a library: that row is a review item, the others are read;
    a header that breaks is left unread."""
    from pathlib import Path
    from scanner.ocr import pipeline
    from scanner.ocr.page import load_image
    photo = Path(__file__).resolve().parent.parent / "samples" / "photos" / "photo-01.jpg"
    real = pipeline.read_row

    def sometimes(ctx, cells):
        if ctx.column == "spell" and cells.row == 2:
            raise cv2.error("!_src.empty()")
        return real(ctx, cells)

    def header(*_a, **_k):
        raise cv2.error("!_src.empty()")

    monkeypatch.setattr(pipeline, "read_row", sometimes)
    monkeypatch.setattr(pipeline, "read_header", header)
    sheet = pipeline.read_image(load_image(photo), demo_db, ReadOptions(), is_scan=False, label="p")
    assert any(r.section == "main" and "spell row 2 could not be read" in r.detail for r in sheet.review)
    assert any(ln.column == "spell" for ln in sheet.lines)
    assert any(n.startswith("header: not read") for n in sheet.notes)
