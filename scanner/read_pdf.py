"""PDF deck sheets: filled form fields, else the text layer, else OCR of the page images.

Order of evidence: AcroForm values (pdfplumber cannot see them) → the flattened Konami form →
the card-database sheet found by its header words → OCR when the page has no usable text.
"""
from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from scanner.errors import UnreadableInput
from scanner.layout_dbko import read_db_sheet
from scanner.layout_kde import (fields_from_flat_text, is_kde_fields, looks_like_kde,
                                sheet_from_kde_fields)
from scanner.model import ReviewFlag, SheetRead
from scanner.read_pdf_words import PageText, page_text

if TYPE_CHECKING:
    from card_db.cdb import CardDatabase
    from scanner.read import ReadOptions

log = logging.getLogger("decksheet.read_pdf")

MIN_TEXT_CHARS = 20
"""Fewer characters than this on a page means no usable text layer."""
MAX_CID_SHARE = 0.2
"""More '(cid:N)' glyphs (a font without a Unicode map) than this share means unusable text."""


def read_pdf(path: Path, db: "CardDatabase", options: "ReadOptions") -> SheetRead:
    """Read one PDF deck sheet into a `SheetRead` (reader 'pdf-form', 'pdf-text' or OCR's)."""
    reader = _open_pypdf(path)
    form = _read_form(path, reader)
    if form is not None:
        return form
    import pypdfium2 as pdfium  # late: native library

    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise UnreadableInput(f"{path.name}: the PDF is password-protected") from None
        raise UnreadableInput(f"{path.name}: not a readable PDF (damaged or truncated: {exc})") from None
    try:
        if len(doc) == 0:
            raise UnreadableInput(f"{path.name}: the PDF has no pages")
        needs_ocr = False
        for number in range(len(doc)):
            page = doc[number]
            try:
                text = page_text(page)
                has_images = _has_images(page)
            except pdfium.PdfiumError as exc:
                raise UnreadableInput(f"{path.name}: page {number + 1} cannot be read ({exc})") from None
            finally:
                page.close()
            if not _usable_text(text):
                needs_ocr = needs_ocr or has_images or text.chars > 0
                continue
            if looks_like_kde(text.tokens, text.width, text.height):
                sheet = sheet_from_kde_fields(fields_from_flat_text(text.tokens), "pdf-text")
                sheet.notes.append("layout: Konami deck list form, flattened")
            else:
                sheet = read_db_sheet(text.tokens, text.width, text.height)
                if sheet is None:
                    needs_ocr = needs_ocr or has_images
                    continue
            if len(doc) > 1:
                sheet.notes.append(f"sheet found on page {number + 1} of {len(doc)}")
            _add_annotations(sheet, reader)
            return sheet
    finally:
        doc.close()
    if needs_ocr:
        return _ocr(path, db, options)
    raise UnreadableInput(f"{path.name}: not a deck sheet (no 몬스터/마법/함정 column headers "
                          f"and no form fields found)")


def _usable_text(text: PageText) -> bool:
    if text.chars - text.unusable_chars < MIN_TEXT_CHARS:
        return False
    return text.unusable_chars / text.chars <= MAX_CID_SHARE


def _has_images(page) -> bool:
    import pypdfium2.raw as pdfium_c

    return any(obj.type == pdfium_c.FPDF_PAGEOBJ_IMAGE for obj in page.get_objects(max_depth=2))


@contextlib.contextmanager
def _quiet_pypdf():
    """pypdf logs its repairs as warnings; the user gets our one-line verdict instead."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _open_pypdf(path: Path):
    import pypdf
    from pypdf.errors import PdfReadError

    try:
        with _quiet_pypdf():
            reader = pypdf.PdfReader(path, strict=False)
        if reader.is_encrypted:
            try:
                ok = reader.decrypt("")
            except Exception:  # noqa: BLE001 - unsupported crypto is as good as a password
                ok = 0
            if not ok:
                raise UnreadableInput(f"{path.name}: the PDF is password-protected")
        return reader
    except UnreadableInput:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise UnreadableInput(f"{path.name}: not a readable PDF (damaged or truncated: {exc})") from None
    except Exception as exc:  # noqa: BLE001
        raise UnreadableInput(f"{path.name}: not a readable PDF ({type(exc).__name__})") from None


def _read_form(path: Path, reader) -> SheetRead | None:
    """Values of a filled deck-list form, or None when the PDF has no filled deck fields."""
    try:
        with _quiet_pypdf():
            if "/AcroForm" not in reader.trailer["/Root"]:
                return None
            raw = reader.get_fields() or {}
    except UnreadableInput:
        raise
    except Exception as exc:  # noqa: BLE001 - a broken form is read from its text instead
        log.warning("%s: form fields unreadable (%s); using the text layer", path.name, exc)
        return None
    fields = {name: _field_text(f.get("/V")) for name, f in raw.items()}
    if not is_kde_fields(set(fields)):
        return None
    if not any(v.strip() for k, v in fields.items() if k.startswith(("Monster", "Spell", "Trap",
                                                                      "Side", "Extra"))):
        return None  # a blank form: perhaps flattened text sits on top; read the page
    sheet = sheet_from_kde_fields(fields, "pdf-form")
    sheet.notes.append("layout: Konami deck list form, AcroForm fields")
    _add_annotations(sheet, reader)
    return sheet


def _field_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def _add_annotations(sheet: SheetRead, reader) -> None:
    """Typed corrections (FreeText annotations) are not part of the text: a judge must look."""
    try:
        for number, page in enumerate(reader.pages, start=1):
            for ref in page.get("/Annots") or []:
                annot = ref.get_object()
                if annot.get("/Subtype") != "/FreeText":
                    continue
                text = str(annot.get("/Contents") or "").strip()
                sheet.review.append(ReviewFlag(section=None, reason="annotation",
                                               detail=f"page {number}: typed note {text!r} over the sheet"))
    except Exception as exc:  # noqa: BLE001 - annotations are extra evidence only
        log.debug("annotations unreadable: %s", exc)


def _ocr(path: Path, db: "CardDatabase", options: "ReadOptions") -> SheetRead:
    try:
        from scanner.read_photo import read_pdf_pages
    except ImportError:
        raise UnreadableInput(f"{path.name}: the PDF has no usable text layer (image-only or fonts "
                              f"without a Unicode map) and the OCR reader is not available") from None
    return read_pdf_pages(path, db, options)
