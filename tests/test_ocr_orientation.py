"""The page stage meets what phones and scanners hand in (issue 14): pages on their side or
upside down with no EXIF tag, EXIF-rotated photos, huge frames, a blank first page."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("tesserocr")

PHOTOS = Path(__file__).resolve().parent.parent / "samples" / "photos"


def _lines(sheet):
    return sorted((ln.column, ln.row, ln.card_id, ln.count, tuple(ln.flags)) for ln in sheet.lines)


@pytest.fixture(scope="module")
def upright(demo_db):
    from scanner.inputs.options import ReadOptions
    from scanner.ocr.pipeline import read_image
    from scanner.ocr.rasterize import pdf_page_image
    img = pdf_page_image(PHOTOS / "scan-01.pdf")
    return img, read_image(img, demo_db, ReadOptions(), is_scan=True, label="up")


@pytest.mark.parametrize("turn", [cv2.ROTATE_180, cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_90_COUNTERCLOCKWISE])
def test_a_turned_page_reads_as_the_upright_one(upright, demo_db, turn):
    from scanner.inputs.options import ReadOptions
    from scanner.ocr.pipeline import read_image
    img, want = upright
    got = read_image(cv2.rotate(img, turn), demo_db, ReadOptions(), is_scan=True, label="turned")
    assert _lines(got) == _lines(want)
    assert _lines(want) and not any(ln.flags for ln in want.lines)


def test_exif_orientation_is_honoured(tmp_path, demo_db):
    """A portrait photo stored landscape with EXIF orientation 6 reads like the upright file."""
    from PIL import Image
    from scanner.read import ReadOptions, load_decklist
    src = PHOTOS / "photo-01.jpg"
    im = Image.open(src)
    stored = im.transpose(Image.Transpose.ROTATE_90)  # pixels on their side …
    exif = stored.getexif()
    exif[0x0112] = 6  # … and the tag that says "turn 90° clockwise to view"
    path = tmp_path / "exif.jpg"
    stored.save(path, quality=95, exif=exif.tobytes())
    want = load_decklist(src, demo_db, ReadOptions()).to_json()["sections"]
    got = load_decklist(path, demo_db, ReadOptions()).to_json()["sections"]
    assert [(e["card_id"], e["count"]) for s in got.values() for e in s] == \
           [(e["card_id"], e["count"]) for s in want.values() for e in s]


def test_a_48_mp_frame_is_downscaled_first(demo_db):
    from scanner.ocr.orient import DOWNSCALE_TO, downscale
    big = np.zeros((6000, 8000, 3), np.uint8)
    small, note = downscale(big)
    assert max(small.shape[:2]) == DOWNSCALE_TO and small.shape[1] > small.shape[0]
    assert note and "8000×6000" in note
    same, none = downscale(np.zeros((3000, 4000, 3), np.uint8))
    assert none is None and same.shape == (3000, 4000, 3)


def test_a_scan_with_a_blank_first_page(tmp_path, demo_db, upright):
    """A scanner's blank cover page first: the sheet on page 2 is read, not refused."""
    pytest.importorskip("reportlab")
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas
    from scanner.read import ReadOptions, load_decklist
    img, want = upright
    jpg = tmp_path / "p.jpg"
    cv2.imwrite(str(jpg), img)
    pdf = tmp_path / "two-pages.pdf"
    c = canvas.Canvas(str(pdf), pagesize=(595, 842))
    c.showPage()  # blank
    c.drawImage(ImageReader(str(jpg)), 0, 0, 595, 842)
    c.showPage()
    c.save()
    got = load_decklist(pdf, demo_db, ReadOptions())
    assert got.to_json()["sections"]["main"]
    assert sorted((e.card_id, e.count) for e in got.sections["main"]) == \
           sorted((ln.card_id, ln.count) for ln in want.lines if ln.section == "main")
