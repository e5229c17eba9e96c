"""One entry point for every input: pick the reader by content, then resolve to a `Decklist`.

This module sits above the PDF and OCR readers: it owns the "no text layer → OCR" fallback.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from card_db.cdb import CardDatabase
from scanner.errors import UnreadableInput
from scanner.model import Decklist, SheetRead
from scanner.inputs.options import ReadOptions
from scanner.inputs.formats import parse_json, parse_text_list, parse_ydk, parse_ydke
from scanner.inputs.resolve import resolve_sheet
from scanner.inputs.sniff import InputKind, sniff_bytes, sniff_path


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            return data.decode("cp949")  # Korean Windows text files
        except UnicodeDecodeError:
            raise UnreadableInput("text file is neither UTF-8 nor CP949") from None


def read_text_source(text: str, db: CardDatabase, kind: InputKind | None = None) -> SheetRead:
    kind = kind or sniff_bytes(text.encode("utf-8")[:4096])
    if kind is InputKind.YDKE:
        return parse_ydke(text)
    if kind is InputKind.JSON:
        return parse_json(text)
    if kind is InputKind.YDK:
        def is_extra(cid: int) -> bool | None:
            card = db.get(cid)
            return card.is_extra_deck if card else None
        return parse_ydk(text, is_extra)
    return parse_text_list(text)


def read_input(source: str | Path, db: CardDatabase, options: ReadOptions | None = None
               ) -> tuple[SheetRead, str | None]:
    """Read any input into a `SheetRead`. Returns it with the sha256 of the file (of the URL
    text for a literal ydke:// URL given on the command line)."""
    options = options or ReadOptions()
    s = str(source)
    if s.strip().lower().startswith("ydke://") and not Path(s).exists():
        return parse_ydke(s), hashlib.sha256(s.strip().encode("utf-8")).hexdigest()
    path = Path(source)
    kind = sniff_path(path)
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if kind is InputKind.PDF:
        from scanner.pdf.reader import read_pdf  # late: pulls in the PDF libraries
        sheet = read_pdf(path, db, options)
        if sheet is None:  # no usable text layer: a scan saved as PDF
            from scanner.ocr.pipeline import read_pdf_pages  # late: OpenCV and Tesseract
            sheet = read_pdf_pages(path, db, options)
        return sheet, digest
    if kind is InputKind.IMAGE:
        from scanner.ocr.pipeline import read_photo  # late: pulls in OpenCV and tesseract
        return read_photo(path, db, options), digest
    return read_text_source(_decode(data), db, kind), digest


def load_decklist(source: str | Path, db: CardDatabase, options: ReadOptions | None = None
                  ) -> Decklist:
    """Read and resolve any input: the whole of `decksheet scan` for one input."""
    sheet, digest = read_input(source, db, options)
    deck = resolve_sheet(sheet, db)
    deck.source_path = str(source)
    deck.sha256 = digest
    return deck
