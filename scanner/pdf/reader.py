"""PDF deck sheets: filled form fields, else the text layer, else OCR of the page images.

Order of evidence: AcroForm values (not in the page's text layer) → the flattened Konami form →
the card-database sheet found by its header words → OCR when the page has no usable text.
"""
from __future__ import annotations

import contextlib
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING

from scanner.pdf import form as fixed_form, layout_lines
from scanner.errors import UnreadableInput
from scanner.inputs.formats import one_line
from scanner.inputs.limits import check_pages
from scanner.pdf.hidden import flag_hidden_text
from scanner.pdf.layout_dbko import Box, read_db_sheet
from scanner.model import ReviewFlag, SheetRead
from scanner.pdf.words import PageText, page_text
from scanner.vocab import Reason

if TYPE_CHECKING:
    from card_db.cdb import CardDatabase
    from scanner.inputs.options import ReadOptions

log = logging.getLogger("decksheet.read_pdf")

MIN_TEXT_CHARS = 20
"""Fewer characters than this on a page means no usable text layer."""
MAX_CID_SHARE = 0.2
"""More '(cid:N)' glyphs (a font without a Unicode map) than this share means unusable text."""


def read_pdf(path: Path, db: "CardDatabase", options: "ReadOptions") -> SheetRead | None:
    """Read one PDF deck sheet into a `SheetRead` (reader 'pdf-form' or 'pdf-text'); None when
    the pages have no usable text layer (image-only, or fonts without a Unicode map), so the
    caller reads the page images by OCR."""
    reader = _open_pypdf(path)
    form = _read_form(path, reader)
    if form is not None:
        return form
    import pypdfium2 as pdfium  # late: native library

    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise UnreadableInput("input.pdf-password", file=path.name) from None
        raise UnreadableInput("input.pdf-damaged", file=path.name, detail=exc) from None
    try:
        if len(doc) == 0:
            raise UnreadableInput("input.pdf-no-pages", file=path.name)
        check_pages(len(doc), path.name, most=options.max_pages)
        needs_ocr = False
        for number in range(len(doc)):
            with _PageHolder(doc, number) as held:  # open until the hidden-text check
                try:
                    text = page_text(held.page, path.name, number + 1)
                    has_images = _has_images(held.page)
                except pdfium.PdfiumError as exc:
                    raise UnreadableInput("input.pdf-page-unreadable", file=path.name,
                                          page=number + 1, detail=exc) from None
                if not _usable_text(text):
                    needs_ocr = needs_ocr or has_images or text.chars > 0
                    continue
                boxes: list[Box] = []
                layout = fixed_form.form_of_page(text.tokens, text.width, text.height)
                if layout is not None:
                    sheet = _read_form_page(layout, held, text)
                    boxes = fixed_form.line_boxes(layout, sheet)
                    sheet.empty_cells = fixed_form.empty_cells(layout, sheet)
                    if not sheet.lines and not fixed_form.cells_with_ink(layout, held.page, text.tokens):
                        raise UnreadableInput("input.sheet-blank", file=path.name, page=number + 1)
                else:
                    sheet = read_db_sheet(text.tokens, text.width, text.height, boxes)
                    if sheet is None:
                        needs_ocr = needs_ocr or has_images
                        continue
                    if len(boxes) == len(sheet.lines):
                        sheet.empty_cells = _rows_between(sheet.lines, boxes)
                    if not sheet.lines:
                        raise UnreadableInput("input.sheet-blank", file=path.name, page=number + 1)
                sheet.check_main_found(layout.title if layout is not None else "the sheet")
                page = held.page
                if len(doc) > 1:
                    sheet.notes.append(f"sheet found on page {number + 1} of {len(doc)}")
                    for other in _later_sheet_pages(doc, number + 1, path.name):
                        sheet.review.append(ReviewFlag(
                            section=None, reason=Reason.ANOTHER_SHEET_PAGE,
                            detail=f"page {other} also holds deck lines; only page {number + 1} was "
                                   f"read (a continuation or a second sheet)"))
                add_annotations(sheet, reader, number, boxes)
                flag_hidden_text(sheet, page, number, boxes)
                _place_lines(sheet, number, boxes)
                return sheet
    finally:
        doc.close()
    if needs_ocr:
        return None
    raise UnreadableInput("input.pdf-not-a-sheet", file=path.name)


class _PageHolder:
    """One pdfium page, kept open while it is read; reopened after its annotations are
    flattened into it (`flatten`), closed at the end either way."""

    def __init__(self, doc, number: int) -> None:
        self.doc, self.number = doc, number
        self.page = doc[number]

    def flatten(self) -> bool:
        """Draw the page's annotations (form widgets' appearances) into its content, in memory
        only: their text becomes page text. False when pdfium could not."""
        import pypdfium2.raw as pdfium_c

        done = pdfium_c.FPDFPage_Flatten(self.page.raw, pdfium_c.FLAT_NORMALDISPLAY)
        if done != pdfium_c.FLATTEN_SUCCESS:
            return False
        self.page.close()
        self.page = self.doc[self.number]
        return True

    def __enter__(self) -> "_PageHolder":
        return self

    def __exit__(self, *exc) -> None:
        self.page.close()


def _read_form_page(layout, held: _PageHolder, text: PageText) -> SheetRead:
    """A fixed form's page: values drawn flat in its boxes; when the boxes hold none, the
    values the page's widgets draw (a generator may leave them only in the widgets'
    appearances, with no field values a reader sees)."""
    sheet = fixed_form.sheet_from_fields(layout, fixed_form.fields_from_flat_text(layout, text.tokens),
                                         "pdf-text")
    how = "flattened"
    if not sheet.lines and _widget_count(held.page) and held.flatten():
        drawn = page_text(held.page, "PDF", held.number + 1)
        sheet = fixed_form.sheet_from_fields(layout, fixed_form.fields_from_flat_text(layout, drawn.tokens),
                                             "pdf-text")
        how = "values drawn by its widgets (no field values)"
    sheet.notes.append(f"layout: {layout.title}, {how}")
    return sheet


def _widget_count(page) -> int:
    import pypdfium2.raw as pdfium_c

    count = 0
    for i in range(pdfium_c.FPDFPage_GetAnnotCount(page.raw)):
        annot = pdfium_c.FPDFPage_GetAnnot(page.raw, i)
        if annot:
            count += pdfium_c.FPDFAnnot_GetSubtype(annot) == pdfium_c.FPDF_ANNOT_WIDGET
            pdfium_c.FPDFPage_CloseAnnot(annot)
    return count


def first_page_size(path: Path) -> tuple[float, float]:
    """Width and height (pt) of the first page; (0, 0) when it cannot be told."""
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError:
        return 0.0, 0.0
    try:
        return tuple(doc[0].get_size()) if len(doc) else (0.0, 0.0)  # type: ignore[return-value]
    except pdfium.PdfiumError:
        return 0.0, 0.0
    finally:
        doc.close()


def later_sheet_pages(path: Path, start: int) -> list[int]:
    """1-based numbers of the pages after the first `start` that hold deck lines or an image
    (for a scan read by OCR from its first page)."""
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError:
        return []  # read_pdf opened it already; nothing more to learn
    try:
        return _later_sheet_pages(doc, start, path.name)
    finally:
        doc.close()


def _later_sheet_pages(doc, start: int, label: str = "PDF") -> list[int]:
    """1-based numbers of pages after `start` that hold deck lines or an unread scan: data that
    reading one page would silently leave out."""
    import pypdfium2 as pdfium

    found = []
    for number in range(start, len(doc)):
        page = doc[number]
        try:
            text = page_text(page, label, number + 1)
            images = _has_images(page)
        except pdfium.PdfiumError:
            found.append(number + 1)
            continue
        finally:
            page.close()
        if not _usable_text(text):
            if images:
                found.append(number + 1)
            continue
        if fixed_form.form_of_page(text.tokens, text.width, text.height) is not None:
            found.append(number + 1)
            continue
        other = read_db_sheet(text.tokens, text.width, text.height)
        if other is not None and other.lines:
            found.append(number + 1)
    return found


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
                raise UnreadableInput("input.pdf-password", file=path.name)
        return reader
    except UnreadableInput:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise UnreadableInput("input.pdf-damaged", file=path.name, detail=exc) from None
    except Exception as exc:  # noqa: BLE001
        raise UnreadableInput("input.pdf-damaged", file=path.name, detail=type(exc).__name__) from None


def _read_form(path: Path, reader) -> SheetRead | None:
    """Values of a filled deck-list form, or None when the PDF has no filled deck fields. The
    values are taken from the AcroForm, else from the page's widgets (a generator may write
    them there with no working /AcroForm)."""
    raw: dict = {}
    widgets: dict[str, tuple[str, Box]] = {}
    # The AcroForm and the page's widgets are read apart: a broken AcroForm leaves the widgets.
    try:
        with _quiet_pypdf():
            raw = (reader.get_fields() or {}) if "/AcroForm" in reader.trailer["/Root"] else {}
    except Exception as exc:  # noqa: BLE001 - the widgets or the page's text are read instead
        log.warning("%s: AcroForm unreadable (%s); using the page's widgets", path.name, exc)
    try:
        with _quiet_pypdf():
            widgets = _page_widgets(reader)
    except Exception as exc:  # noqa: BLE001 - a broken form is read from its text instead
        log.warning("%s: form widgets unreadable (%s); using the text layer", path.name, exc)
    if not isinstance(raw, dict):
        raw = {}
    # A damaged form can name a field with bytes (pypdf's ByteStringObject), not text.
    values = {(name.decode("latin-1") if isinstance(name, bytes) else str(name)):
              _raw_text(f.get("/V") if isinstance(f, dict) else None) for name, f in raw.items()}
    source = "AcroForm fields"
    if not any(v.strip() for v in values.values()) and any(v.strip() for v, _ in widgets.values()):
        source = "form values in the page's widgets (no working AcroForm)"
    for name, (value, _) in widgets.items():  # a value only a widget holds (two widgets, one name)
        if value.strip() and not values.get(name, "").strip():
            values[name] = value
    fields = {name: _field_text(v) for name, v in values.items()}
    if layout_lines.is_line_fields(set(fields)):
        sheet = layout_lines.sheet_from_line_fields(values, "pdf-form")
        if not sheet.lines:
            return None
        sheet.notes.append(f"layout: remade form with one field per column, {source}")
        sheet.check_main_found("the remade form")
        rects = {name.casefold(): rect for name, (_, rect) in widgets.items()}
        boxes = [rects.get(_column_field(ln.column, rects)) or (0.0, 0.0, 0.0, 0.0) for ln in sheet.lines]
        add_annotations(sheet, reader, 0, boxes)
        _place_lines(sheet, 0, boxes)
        return sheet
    layout = fixed_form.form_of_fields(set(fields))
    if layout is None:
        return None
    if not any(fields.get(k, "").strip() for k in fixed_form.deck_fields(layout)):
        return None  # a blank form: perhaps flattened text sits on top; read the page
    sheet = fixed_form.sheet_from_fields(layout, fields, "pdf-form")
    sheet.notes.append(f"layout: {layout.title}, {source}")
    sheet.check_main_found(layout.title)
    boxes = fixed_form.line_boxes(layout, sheet)
    sheet.empty_cells = fixed_form.empty_cells(layout, sheet)
    add_annotations(sheet, reader, 0, boxes)
    _place_lines(sheet, 0, boxes)
    return sheet


def _rows_between(lines, boxes: list[Box]) -> list[Box]:
    """Where a card-database sheet's column has room for a row but no line was read: a skipped
    row between two lines. (The row after a column's last line is not known to be a row: the
    sheets print totals, footers and logos there.)"""
    out: list[Box] = []
    by_column: dict[str | None, list[Box]] = {}
    for line, box in zip(lines, boxes):
        by_column.setdefault(line.column, []).append(box)
    for column_boxes in by_column.values():
        column_boxes.sort(key=lambda b: b[1])
        pitch = min((b[3] - b[1] for b in column_boxes), default=0.0)
        if pitch <= 0:
            continue
        for above, below in zip(column_boxes, column_boxes[1:]):
            if below[1] - above[3] >= 0.8 * pitch:
                out.append((above[0], above[3], above[2], below[1]))
    return out


def _column_field(column: str | None, rects: dict) -> str:
    """The multi-line field (case-folded name) that holds `column`'s lines."""
    for name, (col, _) in layout_lines.COLUMNS.items():
        if col == column and name in rects:
            return name
    return ""


def _page_widgets(reader) -> dict[str, tuple[str, Box]]:
    """Every widget of page 1 with a field name: full name → (raw value, box in top-left pt).
    A value or name may sit on the widget's parent field; the first widget with a value wins."""
    out: dict[str, tuple[str, Box]] = {}
    page = reader.pages[0]
    top = float(page.mediabox.top)
    for ref in page.get("/Annots") or []:
        annot = ref.get_object()
        if str(annot.get("/Subtype")) != "/Widget":
            continue
        names, value, node = [], None, annot
        for _ in range(16):  # a field tree deeper than this is not a deck form
            if node.get("/T") is not None:
                names.append(str(node.get("/T")))
            if value is None and node.get("/V") is not None:
                value = node.get("/V")
            parent = node.get("/Parent")
            if parent is None:
                break
            node = parent.get_object()
        if not names:
            continue
        name = ".".join(reversed(names))
        rect = annot.get("/Rect")
        box: Box = (0.0, 0.0, 0.0, 0.0)
        if rect is not None and len(rect) == 4:
            x0, y0, x1, y1 = (float(v) for v in rect)
            box = (min(x0, x1), top - max(y0, y1), max(x0, x1), top - min(y0, y1))
        text = _raw_text(value)
        if name not in out or (text.strip() and not out[name][0].strip()):
            out[name] = (text, box)
    return out


def _raw_text(value) -> str:
    """A field value as text with its line breaks (a multi-line field holds a line per card)."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "\n".join(str(v) for v in value)
    return str(value)


def _place_lines(sheet: SheetRead, page: int, boxes: list[Box]) -> None:
    """Record where each line sits (`boxes` parallel to the lines) for the appearance check."""
    sheet.page = page
    if len(boxes) == len(sheet.lines):
        for line, box in zip(sheet.lines, boxes):
            line.box = box


def _field_text(value) -> str:
    """A form field's value as one line: a line break typed into a field must not become a
    line of an exported list."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return one_line(" ".join(str(v) for v in value))
    return one_line(str(value))


NOTE_KINDS = {"/FreeText": "typed note", "/Text": "sticky note", "/Ink": "pen marks",
              "/StrikeOut": "strike-out", "/Line": "drawn line", "/Square": "drawn box",
              "/Circle": "drawn circle", "/Polygon": "drawn shape", "/PolyLine": "drawn line",
              "/Stamp": "stamp", "/Caret": "insertion mark", "/Highlight": "highlight",
              "/Underline": "underline", "/Squiggly": "underline"}
"""Annotations a person adds in a PDF viewer: digital corrections over the printed sheet."""
NEAR_LINE = 30.0
"""A note farther than this (pt) from every line is about the sheet, not one line."""


def add_annotations(sheet: SheetRead, reader, sheet_page: int, boxes: list[Box]) -> None:
    """Corrections made in a PDF viewer are not part of the text layer: each one flags the line
    it sits on or beside ('annotation'), or the sheet when it is near no line."""
    try:
        pages = list(reader.pages)
    except Exception as exc:  # noqa: BLE001 - annotations are extra evidence only
        log.debug("annotations unreadable: %s", exc)
        return
    for number, page in enumerate(pages):
        try:
            notes = [_note(ref.get_object(), float(page.mediabox.top)) for ref in page.get("/Annots") or []]
        except Exception as exc:  # noqa: BLE001
            log.debug("annotations of page %d unreadable: %s", number + 1, exc)
            continue
        for note in notes:
            if note is None:
                continue
            what, text, rect = note
            detail = f"{what} {text!r}" if text else what
            line = _nearest_line(rect, boxes) if number == sheet_page and rect else None
            sheet.flag_line_or_sheet(line, Reason.ANNOTATION,
                                     f"{detail} added in a PDF viewer on this line",
                                     f"page {number + 1}: {detail} over the sheet")


def _note(annot, page_top: float) -> tuple[str, str, Box | None] | None:
    """(kind, text, box in top-left coordinates) of a person's annotation, None for others."""
    what = NOTE_KINDS.get(str(annot.get("/Subtype")))
    if what is None:
        return None
    text = str(annot.get("/Contents") or "").strip()
    if not text and annot.get("/RC"):
        text = re.sub(r"<[^>]*>", " ", str(annot.get("/RC"))).strip()
        text = re.sub(r"\s+", " ", text)
    if not text and what in ("typed note", "sticky note"):
        return None  # an empty text box (the CN template ships two) says nothing
    rect = annot.get("/Rect")
    box = None
    if rect is not None and len(rect) == 4:
        x0, y0, x1, y1 = (float(v) for v in rect)
        box = (min(x0, x1), page_top - max(y0, y1), max(x0, x1), page_top - min(y0, y1))
    return what, text, box


def _nearest_line(rect: Box, boxes: list[Box]) -> int | None:
    """Index of the line box nearest the note (0 when they overlap), within NEAR_LINE."""
    best, best_d = None, NEAR_LINE
    cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
    for i, (x0, top, x1, bottom) in enumerate(boxes):
        # Distance from the note's centre to the line box; vertical distance weighs double so a
        # note in the margin beside a row is that row's.
        dx = max(x0 - cx, 0.0, cx - x1)
        dy = max(top - cy, 0.0, cy - bottom)
        d = (dx * dx + 4 * dy * dy) ** 0.5
        if d < best_d:
            best, best_d = i, d
    return best


