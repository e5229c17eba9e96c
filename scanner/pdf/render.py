"""Every page of a PDF as a viewer shows it and as a printer prints it (pdfium), for the image
reader's independent reading of a text-layer sheet.

On screen, pdfium draws an annotation unless it is Hidden or NoView, and optional content in its
view state. On paper, an annotation is drawn only with its Print flag (NoView does not matter), and
optional content in its print state (its /Usage /Print and the /AS auto-states for printing).
pdfium takes the optional-content state from FPDF_PRINTING, but decides the annotations by the
device (a bitmap is a screen), and form widgets are drawn by the form filler as on screen: the
paper is therefore drawn from a copy whose annotation flags say what a printer shows. Widgets are
drawn only through a form; a file whose widgets no /AcroForm lists is given one first, as every
viewer draws a widget's appearance.
"""
from __future__ import annotations

import hashlib
import io
import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

log = logging.getLogger("decksheet.read_pdf")

MAX_ANNOTS = 2_000
"""Annotations a page may hold to be drawn (a sheet has ~200 widgets); a page with more is not
drawn (its lines are not verified) — 100,000 annotations take pdfium minutes."""
SCREEN = "screen"
PRINT = "print"
MODES = (SCREEN, PRINT)


@dataclass
class PageRendering:
    """One distinct picture: `views` are the (0-based page, mode) that draw exactly these pixels
    (a page's screen and paper when they are the same, pages that repeat another)."""

    image: np.ndarray
    """BGR, uint8."""
    views: list[tuple[int, str]] = field(default_factory=list)
    digest: str = ""

    @property
    def pages(self) -> list[int]:
        return sorted({p for p, _ in self.views})

    def modes(self, page: int) -> list[str]:
        return [m for p, m in self.views if p == page]


@dataclass
class Rendered:
    """What `render_pages` drew, and what it left out (each a reason the file is not verified)."""

    renderings: list[PageRendering] = field(default_factory=list)
    pages: int = 0
    skipped: list[str] = field(default_factory=list)


def render_pages(path: Path, dpi: int, max_pages: int, max_pixels: int) -> Rendered:
    """Pages 1..max_pages of `path` at `dpi`, each on screen and on paper; identical pictures of
    one page once (with both modes). A page too large to draw is named in `skipped`."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    out = Rendered()
    data = _with_widgets_in_a_form(path)
    source = data if data is not None else str(path)
    printed = _printed_copy(source, max_pages)  # bytes when paper differs from screen by its flags
    screen = pdfium.PdfDocument(source)
    paper = None
    try:
        out.pages = len(screen)
        if out.pages > max_pages:
            out.skipped.append(f"pages {max_pages + 1}–{out.pages} (more than {max_pages} pages)")
        if printed is not None:
            paper = pdfium.PdfDocument(printed)
            paper.init_forms()
        screen.init_forms()
        scale = dpi / 72.0
        seen: dict[str, PageRendering] = {}
        for number in range(min(out.pages, max_pages)):
            page = screen[number]
            try:
                w, h = page.get_size()
                if w * h * scale * scale > max_pixels:
                    out.skipped.append(f"page {number + 1} (too large to draw at {dpi} dpi)")
                    continue
                if pdfium_c.FPDFPage_GetAnnotCount(page.raw) > MAX_ANNOTS:
                    out.skipped.append(f"page {number + 1} (more than {MAX_ANNOTS} annotations)")
                    continue
                shots = [(SCREEN, _draw(page, scale, 0))]
                if paper is None:
                    shots.append((PRINT, _draw(page, scale, _printing())))
            finally:
                page.close()
            if paper is not None:
                ppage = paper[number]
                try:
                    shots.append((PRINT, _draw(ppage, scale, _printing())))
                finally:
                    ppage.close()
            for mode, img in shots:
                digest = hashlib.blake2b(img.tobytes(), digest_size=16).hexdigest() + str(img.shape)
                if digest in seen:
                    seen[digest].views.append((number, mode))
                else:
                    seen[digest] = PageRendering(img, [(number, mode)], digest)
                    out.renderings.append(seen[digest])
    finally:
        if paper is not None:
            paper.close()
        screen.close()
    return out


def _printing() -> int:
    import pypdfium2.raw as pdfium_c

    return pdfium_c.FPDF_PRINTING


def _draw(page, scale: float, flags: int) -> np.ndarray:
    bitmap = page.render(scale=scale, may_draw_forms=True, draw_annots=True, extra_flags=flags)
    img = bitmap.to_numpy()
    return np.ascontiguousarray(img[..., :3] if img.ndim == 3 else np.dstack([img] * 3))


def _printed_copy(source, max_pages: int) -> bytes | None:
    """The document with each annotation's flags set to what a printer shows (Hidden when it
    lacks Print; NoView cleared when it has it), as bytes; None when no annotation is shown
    differently on paper and on screen."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    doc = pdfium.PdfDocument(source)
    try:
        return _printed_flags(doc, max_pages, pdfium_c)
    finally:
        doc.close()


def _printed_flags(doc, max_pages: int, pdfium_c) -> bytes | None:
    hidden, noview, printed = (pdfium_c.FPDF_ANNOT_FLAG_HIDDEN, pdfium_c.FPDF_ANNOT_FLAG_NOVIEW,
                               pdfium_c.FPDF_ANNOT_FLAG_PRINT)
    changed = False
    for number in range(min(len(doc), max_pages)):
        page = doc[number]
        try:
            for i in range(min(pdfium_c.FPDFPage_GetAnnotCount(page.raw), MAX_ANNOTS)):
                annot = pdfium_c.FPDFPage_GetAnnot(page.raw, i)
                if not annot:
                    continue
                try:
                    flags = pdfium_c.FPDFAnnot_GetFlags(annot)
                    on_screen = not flags & (hidden | noview)
                    on_paper = bool(flags & printed) and not flags & hidden
                    if on_screen == on_paper:
                        continue
                    new = (flags & ~noview) if on_paper else (flags | hidden)
                    pdfium_c.FPDFAnnot_SetFlags(annot, new)
                    changed = True
                finally:
                    pdfium_c.FPDFPage_CloseAnnot(annot)
        finally:
            page.close()
    if not changed:
        return None
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


def _with_widgets_in_a_form(path: Path) -> bytes | None:
    """`path` with an /AcroForm listing every page's widgets, when it has widgets and no
    /AcroForm (pdfium draws a widget only through a form; a viewer draws its appearance);
    None when nothing needs adding."""
    import pypdf
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject

    try:
        reader = pypdf.PdfReader(str(path), strict=False)
        if "/AcroForm" in reader.trailer["/Root"]:
            return None
        widgets = [ref for page in reader.pages for ref in page.get("/Annots") or []
                   if str(ref.get_object().get("/Subtype")) == "/Widget"]
    except Exception as exc:  # noqa: BLE001 - pdfium draws what it can; the reader opened it
        log.debug("widgets not listed: %s", exc)
        return None
    if not widgets:
        return None
    writer = pypdf.PdfWriter(clone_from=reader)
    fields = [ref for page in writer.pages for ref in page.get("/Annots") or []
              if str(ref.get_object().get("/Subtype")) == "/Widget"]
    writer._root_object[NameObject("/AcroForm")] = DictionaryObject(
        {NameObject("/Fields"): ArrayObject(fields)})
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def has_text_or_widgets(path: Path, max_pages: int = 8, min_chars: int = 20) -> bool:
    """Whether a page among the first `max_pages` holds text or a form widget: a PDF that the
    text reader, not the scan reader, will read (cheap: no page is drawn)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError:
        return False
    try:
        for number in range(min(len(doc), max_pages)):
            page = doc[number]
            try:
                textpage = page.get_textpage()
                try:
                    if textpage.count_chars() >= min_chars:
                        return True
                finally:
                    textpage.close()
                for i in range(min(pdfium_c.FPDFPage_GetAnnotCount(page.raw), MAX_ANNOTS)):
                    annot = pdfium_c.FPDFPage_GetAnnot(page.raw, i)
                    if annot:
                        widget = pdfium_c.FPDFAnnot_GetSubtype(annot) == pdfium_c.FPDF_ANNOT_WIDGET
                        pdfium_c.FPDFPage_CloseAnnot(annot)
                        if widget:
                            return True
            finally:
                page.close()
    finally:
        doc.close()
    return False
