"""Issue 15, items 2, 7, 14, 16 and 17 for sheets: pages left out, hidden rows, pixel bombs, HEIC."""
from __future__ import annotations

import io
import json
import struct
import time
import zlib

import pytest
from PIL import Image
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ContentStream, NameObject

from tests.adversarial.conftest import SAMPLES, assert_refused, run

SHEET = SAMPLES / "sheets" / "db-hero-square.pdf"
SCAN = SAMPLES / "photos" / "scan-01.pdf"
PHOTO = SAMPLES / "photos" / "photo-02.jpg"


def _scan(path) -> dict:
    res = run("scan", path, "--json")
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


def _reasons(obj: dict) -> list[str]:
    return [r["reason"] for r in obj["review"]]


def test_a_second_page_of_an_image_only_pdf_is_flagged(env, tmp_path):
    writer = PdfWriter()
    for _ in range(2):
        writer.add_page(PdfReader(SCAN).pages[0])
    with open(two := tmp_path / "two-pages.pdf", "wb") as fh:
        writer.write(fh)
    one = _scan(SCAN)
    assert "another-sheet-page" not in _reasons(one)
    obj = _scan(two)
    assert obj["source"]["reader"] == "ocr"
    assert any(r["reason"] == "another-sheet-page" and "page 2" in r["detail"] for r in obj["review"])


def test_a_second_frame_of_a_tiff_is_flagged(env, tmp_path):
    im = Image.open(PHOTO).convert("RGB")
    im.save(tiff := tmp_path / "two-frames.tif", save_all=True, append_images=[im.copy()])
    im.save(single := tmp_path / "one-frame.tif")
    assert "another-sheet-page" not in _reasons(_scan(single))
    obj = _scan(tiff)
    assert any(r["reason"] == "another-sheet-page" and "frame 2" in r["detail"] for r in obj["review"])


def _cover(src, dst, box_pt: tuple[float, float, float, float], fill: str = "1 1 1 rg") -> None:
    """Draw a filled box over the page (after its text), in top-left coordinates (pt)."""
    reader = PdfReader(src)
    writer = PdfWriter()
    page = writer.add_page(reader.pages[0])
    h = float(page.mediabox.height)
    x0, top, x1, bottom = box_pt
    content = ContentStream(page.get_contents(), writer)
    data = content.get_data() + f"\nq {fill} {x0} {h - bottom} {x1 - x0} {bottom - top} re f Q\n".encode()
    content.set_data(data)
    page[NameObject("/Contents")] = writer._add_object(content)
    with open(dst, "wb") as fh:
        writer.write(fh)


def test_text_under_an_opaque_box_is_flagged(env, tmp_path):
    plain = _scan(SHEET)
    row = plain["sections"]["main"][1]  # 엘리멘틀 히어로 섀도우 미스트 (monster row 2, 152–162 pt)
    assert not row["needs_review"] and "섀도우 미스트" in row["name"]
    _cover(SHEET, covered := tmp_path / "covered.pdf", (28, 150, 192, 164))
    obj = _scan(covered)
    flagged = [e for s in obj["sections"].values() for e in s if e["needs_review"]]
    assert [e["card_id"] for e in flagged] == [row["card_id"]], flagged
    assert "hidden-text" in flagged[0]["reasons"]
    # A box drawn where no text is hides nothing.
    _cover(SHEET, empty := tmp_path / "empty-box.pdf", (2, 2, 20, 20))
    assert not _scan(empty)["review"]


def _png_header(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    row = b"\x00" + b"\xff" * 3 * min(width, 64)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * 4)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("width,height", [(30_000, 30_000), (65_535, 65_535), (9_000, 9_000)])
def test_a_pixel_bomb_is_refused_from_its_header(env, tmp_path, width, height):
    (p := tmp_path / "bomb.png").write_bytes(_png_header(width, height))
    start = time.monotonic()
    assert_refused(run("scan", p), mentions="too large")
    assert time.monotonic() - start < 5  # refused from the header: nothing decoded


def test_an_image_pdf_with_a_bomb_inside_is_one_line(env, tmp_path):
    """A scan PDF whose embedded image claims billions of pixels: refused, never decoded."""
    from scanner.ocr.page import decode_image
    from scanner.errors import UnreadableInput

    with pytest.raises(UnreadableInput, match="too large"):
        decode_image(_png_header(40_000, 40_000), "embedded")


def test_a_heic_photo_is_read_like_its_jpeg(env, tmp_path):
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    Image.open(PHOTO).save(heic := tmp_path / "photo.heic", quality=90)
    assert heic.read_bytes()[4:12] == b"ftypheic"
    jpeg, obj = _scan(PHOTO), _scan(heic)
    ids = lambda o: [(e["card_id"], e["count"]) for s in o["sections"].values() for e in s]  # noqa: E731
    assert obj["source"]["reader"] == "ocr"
    assert ids(obj) == ids(jpeg)
