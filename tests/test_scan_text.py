"""The judge's text view of a scanned sheet (`decksheet scan` without --json)."""
from __future__ import annotations

from scanner.model import Decklist
from scanner.report.scan_text import format_scan


def test_a_player_name_read_by_ocr_is_shown_as_one_to_check():
    ocr = format_scan(Decklist(reader="ocr", player_name="용지우", konami_id="0123456789"))
    assert "선수: 용지우" in ocr and "OCR로 읽음" in ocr
    typed = format_scan(Decklist(reader="pdf-text", player_name="용지우"))
    assert "선수: 용지우" in typed and "OCR" not in typed
    no_name = format_scan(Decklist(reader="ocr", konami_id="0123456789"))
    assert "OCR" not in no_name
