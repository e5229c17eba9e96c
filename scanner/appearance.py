"""What is read is what the page shows: every PDF line checked against the rendered page.

A PDF can show one deck while its text layer or form values say another (invisible or white
text over an image of another row, a font whose ToUnicode map lies, a field value that differs
from the appearance drawn, text clipped, covered, transparent or on a hidden layer). Whatever the
trick, the page as pdfium renders it — what a judge sees on screen and on paper — is the truth.

One mechanism: render the page once; for each word the reader used (a text-layer token inside a
line's box, or a form widget's value) cut the rendered ink at the word's place and compare it with
the word drawn in a font (`scanner.ocr.verify`, the check photos get). A word with no ink at its
place, or ink unlike the word, flags its line `appearance-differs` (with the rendered crop). Ink in
a line's cells that no word explains (a row drawn as an image or as paths, an appearance with no
value) flags the sheet. A check that stops at a limit flags the sheet too: never a silent pass.
"""
from __future__ import annotations

import ctypes
import logging
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from scanner.inputs.formats import one_line
from scanner.model import ReviewFlag, SheetRead
from scanner.ocr import verify
from scanner.ocr.fonts import FONT_DIRS
from scanner.pdf.layout_lines import field_lines
from scanner.pdf.words import page_text
from scanner.vocab import Reason

log = logging.getLogger("decksheet.read_pdf")

SCALE = 3.0
"""Pixels per point the page is rendered at (216 dpi: an 8 pt name's glyphs are ~20 px high;
at 2 px/pt two-syllable words such as 오브 or 보트 in NanumSquare 8 pt fit their rendering at 0.2)."""
MATCH = 0.3
"""Likeness score (verify.Likeness.score) from which a word's rendering supports its text.
Honest words score 0.35–0.95 in the sheets' fonts (lowest: Latin capitals and dots, long names
squeezed into a form field); a word drawn as other glyphs scores below."""
HANGUL_MATCH = 0.6
"""The likeness a word with Hangul must reach on a page whose print fits a known font
(TRUSTED_PAGE): honest Hangul words there score 0.64–0.99; a word with one syllable changed
scores 0.15–0.6 (우라라/우라리 0.15–0.45, 증원/증식 0.42–0.47, 네오스/네오드 0.58)."""
TRUSTED_PAGE = 0.8
"""Fit of the page's best font (verify's font estimate) from which HANGUL_MATCH applies."""
MIN_COMPARE_SIZE = 6.5
"""Font size (pt) from which a word's shape is compared; smaller print (row numbers, a form's
judge-box labels) is a few pixels high, and only its presence is checked."""
MAX_WORDS = 1_500
"""Words compared per page (a sheet has ~300); more stops the check (the sheet is flagged)."""
MAX_SECONDS = 4.0
"""Processor time the check may take per sheet (it takes ~0.1 s); past it the sheet is flagged."""
MAX_PIXELS = 40_000_000
"""Rendered pixels per page (an A4 page at SCALE is ~2 M); a larger page is not rendered."""
BOX_MARGIN = 4.0
"""A word belongs to a line when its centre is within this (pt) of the line's box."""
UNEXPLAINED_MIN = 40
"""Ink pixels in a line's cells, outside every word that was read, from which the page shows
something the text does not say (a glyph at SCALE has ~60–150)."""


@dataclass
class CheckReport:
    """What a check of a reading against its page did (for `-v` and the bench): its time, and
    why it stopped early ('' when it ran to the end)."""

    seconds: float = 0.0
    stopped: str = ""

    def stopped_note(self) -> str:
        """`; stopped: why` for the log line, or ''."""
        return f"; stopped: {self.stopped}" if self.stopped else ""


@dataclass
class AppearanceReport(CheckReport):
    """The appearance check: words compared and lines flagged."""

    words: int = 0
    flagged: int = 0


@dataclass
class _Word:
    text: str
    box: tuple[float, float, float, float]
    """Page box (x0, top, x1, bottom, pt, top-left origin) of the word's ink as the text says."""
    line: int | None
    """Index of the read line it belongs to (None: outside every line)."""
    compared: bool = True
    """Whether its shape is compared (a word the reader used), or only its presence."""
    cell: bool = False
    """The box is a form widget's (borders and blank space around the value), not the ink's."""
    problem: str = ""
    """Found wrong before any compare (a multi-line field drawn with another number of lines)."""


class _Budget:
    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.cpu = time.thread_time()
        self.words = 0

    def spent(self) -> str:
        if self.words > MAX_WORDS:
            return f"more than {MAX_WORDS} words to compare"
        # this thread's processor time: a busy machine, or the image reader reading beside it
        # (scanner.agreement), must not stop the check of an honest sheet
        if time.thread_time() - self.cpu > MAX_SECONDS:
            return f"more than {MAX_SECONDS:g} s"
        return ""


def check_appearance(path: Path, sheet: SheetRead, crops_dir: Path | None = None) -> AppearanceReport:
    """Compare every line of a PDF sheet (reader 'pdf-text' or 'pdf-form') with the rendered page;
    flag what the page does not show. Never raises: a failure is a sheet-level review item."""
    report = AppearanceReport()
    if sheet.reader not in ("pdf-text", "pdf-form") or sheet.page is None:
        return report
    budget = _Budget()
    try:
        _check(path, sheet, crops_dir, report, budget)
    except Exception as exc:  # noqa: BLE001 - the check must not lose the read; a judge looks
        log.debug("appearance check failed: %s", exc, exc_info=True)
        report.stopped = f"the check failed ({type(exc).__name__})"
    report.seconds = time.perf_counter() - budget.start
    if report.stopped:
        sheet.review.append(_sheet_flag(
            f"page {sheet.page + 1}: the page could not be compared with its text "
            f"({report.stopped}); compare the sheet with what was read by eye"))
    return report


def _sheet_flag(detail: str) -> ReviewFlag:
    return ReviewFlag(section=None, reason=Reason.APPEARANCE_DIFFERS, detail=detail)


def _check(path: Path, sheet: SheetRead, crops_dir: Path | None, report: AppearanceReport,
           budget: _Budget) -> None:
    if sheet.reader == "pdf-form" and not _has_acroform(path):
        with tempfile.TemporaryDirectory(prefix="decksheet-") as tmp:
            # pdfium draws a widget only through a form: give the page's widgets one, as a
            # viewer that draws every annotation's appearance shows them.
            repaired = _with_acroform(path, Path(tmp) / "form.pdf")
            return _check_file(repaired, path, sheet, crops_dir, report, budget)
    return _check_file(path, path, sheet, crops_dir, report, budget)


def _has_acroform(path: Path) -> bool:
    import pypdf

    try:
        return "/AcroForm" in pypdf.PdfReader(path, strict=False).trailer["/Root"]
    except Exception:  # noqa: BLE001 - the reader opened it; treat as a plain form
        return True


def _with_acroform(path: Path, out: Path) -> Path:
    """A copy of `path` whose AcroForm lists page 1's widgets (appearances kept as they are)."""
    import pypdf
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject

    writer = pypdf.PdfWriter(clone_from=str(path))
    widgets = [ref for ref in writer.pages[0].get("/Annots") or []
               if str(ref.get_object().get("/Subtype")) == "/Widget"]
    writer._root_object[NameObject("/AcroForm")] = DictionaryObject(
        {NameObject("/Fields"): ArrayObject(widgets)})
    writer.write(str(out))
    return out


def _check_file(path: Path, original: Path, sheet: SheetRead, crops_dir: Path | None,
                report: AppearanceReport, budget: _Budget) -> None:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        if sheet.reader == "pdf-form":
            doc.init_forms()  # widgets drawn as every viewer draws them
        page = doc[sheet.page]
        try:
            width, height = page.get_size()
            if width * height * SCALE * SCALE > MAX_PIXELS:
                report.stopped = "the page is too large to render"
                return
            gray = _render(page)
            words, explained = _text_words(page, sheet)
            if sheet.reader == "pdf-form":
                words = _form_words(page, sheet, height, gray, doc.formenv)
                explained += [w.box for w in words]
        finally:
            page.close()
    finally:
        doc.close()
    renderer = verify.NameRenderer()
    latin = _latin_families()
    renderer.families.update({f: p for f, p in latin.items() if f not in LATIN_WIDTHS_ONLY})
    if not renderer.usable:
        report.stopped = "no font to draw the text in"
        return
    _estimate_font(renderer, gray, words)
    renderer.families.update(latin)  # after the page's font is settled: for Latin words only
    bad: dict[int | None, list[str]] = {}
    for word in words:
        budget.words += 1
        report.words += 1
        if (why := budget.spent()):
            report.stopped = why
            return
        problem = word.problem or _word_problem(renderer, gray, word)
        if problem:
            bad.setdefault(word.line, []).append(problem)
    for line, problems in bad.items():
        detail = "; ".join(problems[:4]) + (f" (+{len(problems) - 4} more)" if len(problems) > 4 else "")
        if line is None:
            sheet.review.append(_sheet_flag(f"page {sheet.page + 1}: {detail}"))
            continue
        report.flagged += 1
        sheet.flag_line_or_sheet(line, Reason.APPEARANCE_DIFFERS, f"the rendered page does not show this: {detail}", detail)
    report.flagged += _flag_unexplained_ink(gray, sheet, explained)
    _flag_ink_in_empty_cells(gray, sheet, explained)
    if crops_dir is not None:  # the judge sees each flagged cell as the page shows it
        for i, ln in enumerate(sheet.lines):
            if Reason.APPEARANCE_DIFFERS in ln.flags and ln.box is not None and ln.crop is None:
                ln.crop = _save_crop(gray, ln.box, crops_dir, original.stem, ln.column or ln.section,
                                     ln.row or i + 1)


LATIN_FONTS = {"LiberationSans": "liberation2/LiberationSans-Regular.ttf", "DejaVuSans": "DejaVuSans.ttf"}
"""Sans faces for Latin names: a form value in Helvetica (`/Helv` of the field's appearance,
which pdfium draws in its own sans) has Helvetica's widths, which Liberation Sans keeps
(metric-compatible; DejaVu Sans is a fifth wider: `Destratification Dino Stratiae` 0.26 alike);
the Nanum faces' Latin letters fit them less well."""


LATIN_WIDTHS_ONLY = frozenset({"LiberationSans"})
"""Latin faces never taken for the page's font (a page of Hangul form values fits Liberation
Sans as well as any, and its estimate then draws the Hangul words worse): they draw Latin words."""


def _latin_families() -> dict[str, Path]:
    out = {}
    for family, filename in LATIN_FONTS.items():
        for folder in FONT_DIRS:
            if (Path(folder) / filename).is_file():
                out[family] = Path(folder) / filename
                break
    return out


@dataclass
class _Raster:
    """The rendered page and where the reader's coordinates fall on it: the reader speaks in
    (x, page height − y) of PDF space; the page is drawn upright from its crop box, so a point
    (x, top) is at pixel ((x − ox)·SCALE, (top − oy)·SCALE)."""

    gray: np.ndarray
    ox: float = 0.0
    oy: float = 0.0

    def slices(self, box, pad: float = 0.0) -> tuple[slice, slice]:
        """Rows and columns of `box` grown by `pad` pt (shrunk when negative), within the page."""
        h, w = self.gray.shape
        x0, top, x1, bottom = box
        return (slice(max(0, int((top - pad - self.oy) * SCALE)),
                      max(0, min(h, int(np.ceil((bottom + pad - self.oy) * SCALE))))),
                slice(max(0, int((x0 - pad - self.ox) * SCALE)),
                      max(0, min(w, int(np.ceil((x1 + pad - self.ox) * SCALE))))))


def _render(page) -> _Raster:
    """The page as a viewer shows it, turned upright (a /Rotate is undone so words read across)."""
    turn = (360 - page.get_rotation()) % 360
    bitmap = page.render(scale=SCALE, rotation=turn, grayscale=True, may_draw_forms=True)
    img = bitmap.to_numpy()
    gray = np.ascontiguousarray(img[..., 0] if img.ndim == 3 else img)
    left, _, _, top = page.get_cropbox()
    return _Raster(gray, ox=float(left), oy=float(page.get_size()[1]) - float(top))


def _line_of(box, sheet: SheetRead) -> int | None:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for i, ln in enumerate(sheet.lines):
        if ln.box is None:
            continue
        x0, top, x1, bottom = ln.box
        if x0 - BOX_MARGIN <= cx <= x1 + BOX_MARGIN and top - BOX_MARGIN / 2 <= cy <= bottom + BOX_MARGIN / 2:
            return i
    return None


def _text_words(page, sheet: SheetRead) -> tuple[list[_Word], list[tuple[float, float, float, float]]]:
    """The text layer's words inside the read lines' boxes, each with its glyphs' ink box; and
    the ink boxes of every word on the page (what the text layer explains)."""
    text = page_text(page)
    unplaced = any(ln.box is None for ln in sheet.lines)
    read_words = {w for ln in sheet.lines for w in ln.text.split() + [ln.count_text.strip()] if w}
    textpage = page.get_textpage()
    try:
        words, everywhere = [], []
        for tok in text.tokens:
            boxes = [textpage.get_charbox(c["index"], loose=False) for c in tok.chars]
            boxes = [b for b in boxes if b[2] > b[0] and b[3] > b[1]]
            if not boxes:
                continue
            x0, x1 = min(b[0] for b in boxes), max(b[2] for b in boxes)
            top, bottom = text.height - max(b[3] for b in boxes), text.height - min(b[1] for b in boxes)
            everywhere.append((x0, top, x1, bottom))
            line = _line_of((tok.x0, tok.top, tok.x1, tok.bottom), sheet)
            if not any(ch.isalnum() for ch in tok.text):
                continue  # punctuation alone names no card
            if line is None:
                if unplaced and tok.text in read_words:
                    # A reader that gave its lines no place on the page: each word of the page
                    # that a line says must at least be visible (a failure flags the sheet).
                    words.append(_Word(tok.text, (x0, top, x1, bottom), None, compared=False))
                continue
            ln = sheet.lines[line]
            used = (tok.text in ln.text or tok.text == ln.count_text.strip()) and tok.size >= MIN_COMPARE_SIZE
            words.append(_Word(tok.text, (x0, top, x1, bottom), line, compared=used))
        return words, everywhere
    finally:
        textpage.close()


def _form_words(page, sheet: SheetRead, height: float, gray: _Raster, form=None) -> list[_Word]:
    """Each form widget's value on the page, in the widget's box; a multi-line value (a column
    of `3 Name` lines in one field) as one word per line, on the line of ink it is drawn as."""
    import pypdfium2.raw as pdfium_c

    words: list[_Word] = []
    empty: list[tuple[str, tuple[float, float, float, float]]] = []
    valued: list[tuple[float, float, float, float]] = []
    for i in range(pdfium_c.FPDFPage_GetAnnotCount(page.raw)):
        annot = pdfium_c.FPDFPage_GetAnnot(page.raw, i)
        if not annot:
            continue
        try:
            if pdfium_c.FPDFAnnot_GetSubtype(annot) != pdfium_c.FPDF_ANNOT_WIDGET:
                continue
            raw = _field_string(form, annot, "Value") or _annot_string(annot, "V")
            rect = pdfium_c.FS_RECTF()
            if not pdfium_c.FPDFAnnot_GetRect(annot, rect):
                continue
            box = (min(rect.left, rect.right), height - max(rect.top, rect.bottom),
                   max(rect.left, rect.right), height - min(rect.top, rect.bottom))
            if not raw.strip():
                empty.append((_field_string(form, annot, "Name") or _annot_string(annot, "T")
                              or "a field", box))
                continue
            valued.append(box)
            values = field_lines(raw)
            if len(values) > 1:
                words += _multiline_words(gray, sheet, box, values)
                continue
            line = _line_of(box, sheet)
            if line is not None:
                words.append(_Word(one_line(raw).strip(), box, line, cell=True))
        finally:
            pdfium_c.FPDFPage_CloseAnnot(annot)
    for name, box in empty:
        # Another widget of the field (same place) may draw the value; its ink is explained.
        if not any(_overlap(box, other) > 0.5 for other in valued) and _drawn_without_value(gray, box):
            words.append(_Word("", box, None, cell=True, problem=(
                f"the field {name!r} shows text but holds no value (the appearance is not the "
                f"value; what it shows was not read)")))
    return words


def _overlap(a, b) -> float:
    """Share of `a`'s area that `b` covers."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    area = (a[2] - a[0]) * (a[3] - a[1])
    return w * h / area if w > 0 and h > 0 and area > 0 else 0.0


def _drawn_without_value(gray: _Raster, box) -> bool:
    """Whether an empty field's widget draws glyphs (borders and rules left out)."""
    crop = _cut(gray, box, pad=-1.0)
    if crop.size == 0:
        return False
    ink = _without_runs((crop < 128).astype(np.uint8), int(0.8 * crop.shape[0]))
    return _glyph_ink(ink) >= UNEXPLAINED_MIN


def _multiline_words(gray: _Raster, sheet: SheetRead, box, values: list[str]) -> list[_Word]:
    """A multi-line field's lines, each on its band of ink: the field's read lines in row order
    pair with its value lines and with the bands of ink down the widget."""
    lines = sorted((i for i, ln in enumerate(sheet.lines) if ln.box is not None
                    and all(abs(a - b) < 0.5 for a, b in zip(ln.box, box))),
                   key=lambda i: sheet.lines[i].row or 0)
    if not lines:
        return []
    bands = _ink_bands(gray, box)
    if len(bands) != len(values):
        problem = (f"the field shows {len(bands)} lines of text where its value has "
                   f"{len(values)} (the appearance is not the value)")
        return [_Word(one_line(v).strip(), box, i, cell=True, problem=problem)
                for i, v in zip(lines, values)]
    # A band is cut to its own rows, inside the widget's borders: no rule stripping (it would
    # take the tall strokes of a line only as high as its letters).
    return [_Word(one_line(v).strip(), (box[0] + 1.5, top, box[2] - 1.5, bottom), i)
            for i, v, (top, bottom) in zip(lines, values, bands)]


def _ink_bands(gray: _Raster, box) -> list[tuple[float, float]]:
    """(top, bottom) in pt of each line of text drawn in a widget (rows of ink between blank
    rows; a speck of a row or two joins the band it touches)."""
    crop = _without_rules(_cut(gray, box, pad=-1.0))
    if crop.size == 0:
        return []
    rows = (crop < 160).any(axis=1)
    bands: list[list[int]] = []
    for y, on in enumerate(rows):
        if on and bands and bands[-1][1] == y:
            bands[-1][1] = y + 1
        elif on:
            bands.append([y, y + 1])
    tall = max((b - a for a, b in bands), default=0)
    bands = [b for b in bands if b[1] - b[0] >= 0.3 * tall]
    y0 = gray.slices(box, -1.0)[0].start
    return [((y0 + a) / SCALE + gray.oy - 0.3, (y0 + b) / SCALE + gray.oy + 0.3) for a, b in bands]


def _field_string(form, annot, what: str) -> str:
    """The widget's field value or full name as the form knows it (inherited from a parent
    field too); '' without a form."""
    import pypdfium2.raw as pdfium_c

    if form is None or getattr(form, "raw", None) is None:
        return ""
    getter = getattr(pdfium_c, f"FPDFAnnot_GetFormField{what}")
    n = getter(form.raw, annot, None, 0)
    if n <= 2:
        return ""
    buf = ctypes.create_string_buffer(n)
    getter(form.raw, annot, ctypes.cast(buf, ctypes.POINTER(ctypes.c_ushort)), n)
    return buf.raw[:n - 2].decode("utf-16-le", errors="replace")


def _annot_string(annot, key: str) -> str:
    import pypdfium2.raw as pdfium_c

    n = pdfium_c.FPDFAnnot_GetStringValue(annot, key.encode(), None, 0)
    if n <= 2:
        return ""
    buf = ctypes.create_string_buffer(n)
    pdfium_c.FPDFAnnot_GetStringValue(annot, key.encode(), ctypes.cast(buf, ctypes.POINTER(ctypes.c_ushort)), n)
    return buf.raw[:n - 2].decode("utf-16-le", errors="replace")


def _cut(raster: _Raster, box, pad: float = 0.2) -> np.ndarray:
    ys, xs = raster.slices(box, pad)
    return raster.gray[ys, xs]


def _ink(gray: np.ndarray, cell: bool = False) -> np.ndarray | None:
    """The crop cut to its ink (a widget's `cell` without its borders); None when nothing is
    drawn there. A clean rendering has no specks, and a word's crop is its glyphs' own box, so
    nothing is stripped from it (a photo's rule-stripping would take 보트's joined bottom bars)."""
    if gray.size == 0 or int(gray.max()) - int(gray.min()) < 60:
        return None
    if cell:
        gray = _without_rules(gray)
        if int(gray.max()) - int(gray.min()) < 60:
            return None
    ink = gray < verify.ink_level(gray)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if ink.sum() < 4:
        return None
    return gray[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]


def _without_rules(gray: np.ndarray) -> np.ndarray:
    """The crop with cell borders (ink runs nearly as long as the crop is wide or tall) whitened:
    a form widget's box is drawn on the form, not by its value."""
    ink = (gray < 160).astype(np.uint8)
    h, w = ink.shape
    rules = np.zeros_like(ink)
    # Outside the crop is paper: OpenCV's default border would let any stroke that touches the
    # crop's edge pass as a rule (a tall value's `p` joined to the rule under it was whitened).
    edge = dict(borderType=cv2.BORDER_CONSTANT, borderValue=0)
    if w > 12:
        rules |= cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, max(12, int(0.8 * w))), np.uint8), **edge)
    if h > 12:
        rules |= cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((max(12, int(0.8 * h)), 1), np.uint8), **edge)
    if not rules.any():
        return gray
    rules = cv2.dilate(rules, np.ones((3, 3), np.uint8))
    return np.where(rules > 0, 255, gray).astype(gray.dtype)


def _estimate_font(renderer: verify.NameRenderer, gray: _Raster, words: list[_Word]) -> None:
    samples = []
    for word in words:
        if len(word.text) >= 3 and (ink := _ink(_cut(gray, word.box), word.cell)) is not None:
            samples.append((ink, word.text))
        if len(samples) >= renderer.SAMPLES:
            break
    if samples:
        renderer.estimate_family(samples)


def _has_hangul(text: str) -> bool:
    return any("\uac00" <= ch <= "\ud7a3" for ch in text)


def _needed(renderer: verify.NameRenderer, word: _Word) -> float:
    """The likeness a word must reach: MATCH, or HANGUL_MATCH for a text-layer word with Hangul
    on a page whose print fits a known font (one syllable changed, 네오스 read as 네오드, is then
    caught). A form value is drawn in the font the viewer picks: MATCH."""
    fits = renderer.estimate is not None and max(renderer.estimate.scores.values(), default=0.0) >= TRUSTED_PAGE
    return HANGUL_MATCH if fits and not word.cell and _has_hangul(word.text) else MATCH


def _score(renderer: verify.NameRenderer, ink: np.ndarray, text: str, enough: float = MATCH) -> float:
    """Best likeness of the ink and `text`, in the page's font first, then in any other (until
    one reaches `enough`)."""
    first = [renderer.family] if renderer.family else []
    if not _has_hangul(text):  # Latin: its sans face first
        first = [f for f in LATIN_FONTS if f in renderer.families] + first
    fams = list(dict.fromkeys(first + list(renderer.families)))
    best = -1.0
    for fam in fams:
        rendered = renderer.rendered(text, fam)
        if rendered is None:
            continue
        best = max(best, verify.compare(ink, rendered, blur=renderer.blur,
                                        cell=renderer.windows(ink)).score)
        if best >= enough:
            break
    return best


GLYPH_SIZE = (20, 28)
"""(width, height) one or two glyphs are compared at, whatever their widths in each font."""
GLYPH_MATCH = 0.5
"""Likeness of a count (one or two digits) from which the page supports it (honest counts: 0.7–1.0;
1, 2 and 3 drawn and read as another of them: 0.07–0.55 in the Nanum faces)."""
DIGIT_MARGIN = 0.05
"""A one-digit count is drawn as another digit when that digit fits the ink better by this much."""


def _glyph_norm(img: np.ndarray) -> np.ndarray:
    """A glyph's ink at GLYPH_SIZE, blurred a little, zero-mean and unit-norm (an NCC is a dot)."""
    out = 255.0 - cv2.resize(img, GLYPH_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
    out = cv2.GaussianBlur(out, (0, 0), 1.2)
    out -= out.mean()
    n = float(np.sqrt((out * out).sum()))
    return out / n if n > 1e-6 else out


@lru_cache(maxsize=512)
def _rendered_glyph(text: str, font: str) -> np.ndarray | None:
    rendered = verify.render_name(text, Path(font))
    return _glyph_norm(rendered) if rendered is not None else None


def _glyph_score(renderer: verify.NameRenderer, ink: np.ndarray, text: str,
                 ink_norm: np.ndarray | None = None) -> float:
    """Likeness of a short word (a count): shapes at one size, aspect ignored (a '1' is a bar in
    one font and has a foot in another), best over the fonts."""
    a = _glyph_norm(ink) if ink_norm is None else ink_norm
    best = -1.0
    for path in renderer.families.values():
        b = _rendered_glyph(text, str(path))
        if b is not None:
            best = max(best, float((a * b).sum()))
    return best


def _word_problem(renderer: verify.NameRenderer, gray: _Raster, word: _Word) -> str:
    """'' when the rendered page shows the word, else what is wrong, for the judge."""
    if word.problem:
        return word.problem
    ink = _ink(_cut(gray, word.box), word.cell)
    if ink is None:
        return f"{word.text!r} is not visible (nothing is drawn where the text says it)"
    if not word.compared:
        return ""  # a row number: printed by the sheet, not read; its presence is enough
    if word.text.isdigit() and len(word.text) <= 2:
        norm = _glyph_norm(ink)
        score = _glyph_score(renderer, ink, word.text, norm)
        if score < GLYPH_MATCH:
            return f"{word.text!r} is drawn as something else (likeness {score:.2f})"
        if len(word.text) == 1:  # a count: the digit drawn must be the one read, not a closer one
            rivals = {d: _glyph_score(renderer, ink, d, norm) for d in "0123456789" if d != word.text}
            rival = max(rivals, key=rivals.get)
            rival_score = rivals[rival]
            if rival_score > score + DIGIT_MARGIN:
                return (f"{word.text!r} is drawn as {rival!r} (likeness {rival_score:.2f} against "
                        f"{score:.2f})")
        return ""
    needed = _needed(renderer, word)
    score = _score(renderer, ink, word.text, needed)
    bare = "".join(ch if ch.isalnum() or ch.isspace() else "\u3000" if ord(ch) >= 0x2E80 else " "
                   for ch in word.text)
    if score < needed and bare.strip() and bare != word.text:
        # Brackets and dashes a renderer's font lacks are drawn blank (pdfium's appearance of a
        # form value); they name no card, so the letters alone may carry the likeness.
        score = max(score, _score(renderer, ink, bare, needed))
    if score >= needed:
        return ""
    return f"{word.text!r} is drawn as something else (likeness {score:.2f})"


def _flag_unexplained_ink(gray: _Raster, sheet: SheetRead,
                          explained: list[tuple[float, float, float, float]]) -> int:
    """Flag lines whose cells hold ink that no word explains: the page shows more than its text
    (a row drawn as an image or as outlines under invisible text). Returns how many."""
    flagged = 0
    mask = _explained_mask(gray, explained)
    extras: dict[tuple[float, float, float, float], int] = {}  # a multi-line field: one box, many lines
    for i, ln in enumerate(sheet.lines):
        if ln.box is None:
            continue
        if ln.box not in extras:
            extras[ln.box] = _unexplained_in(gray, mask, ln.box)
        extra = extras[ln.box]
        if extra >= UNEXPLAINED_MIN:
            flagged += Reason.APPEARANCE_DIFFERS not in ln.flags
            sheet.flag_line_or_sheet(i, Reason.APPEARANCE_DIFFERS, f"the page shows ink on this line that its text does "
                                                f"not explain ({extra} px outside the words read)", "")
    return flagged


def _flag_ink_in_empty_cells(gray: _Raster, sheet: SheetRead,
                             explained: list[tuple[float, float, float, float]]) -> None:
    """A sheet item for each empty cell of a fixed form that shows glyphs no text explains: a
    row drawn as an image or outlines, which the reader cannot see (the deck would lose it)."""
    mask = _explained_mask(gray, explained)
    rows = []
    for x0, top, x1, bottom in sheet.empty_cells:
        ys, xs = gray.slices((x0, top, x1, bottom), -1.5)
        cell = gray.gray[ys, xs]
        if cell.size == 0:
            continue
        ink = _without_runs((cell < 128).astype(np.uint8), int(0.8 * (bottom - top) * SCALE))
        if _glyph_ink((ink.astype(bool) & ~mask[ys, xs]).astype(np.uint8), inside=True) >= UNEXPLAINED_MIN:
            rows.append(f"{top:.0f} pt")
    if rows:
        sheet.review.append(_sheet_flag(
            f"page {sheet.page + 1}: {len(rows)} empty row(s) of the form show something drawn that "
            f"no text or value says (rows at {', '.join(rows[:5])} from the top): the page "
            f"shows more cards than were read"))


def _unexplained_in(gray: _Raster, mask: np.ndarray, box) -> int:
    """Glyph-like ink pixels inside `box` (inset from its borders) outside the explained mask."""
    x0, top, x1, bottom = box
    ys, xs = gray.slices(box, -1.5)
    cell = gray.gray[ys, xs]
    if cell.size == 0:
        return 0
    ink = _without_runs((cell < 128).astype(np.uint8), int(0.8 * (bottom - top) * SCALE))
    return _glyph_ink((ink.astype(bool) & ~mask[ys, xs]).astype(np.uint8))


def _explained_mask(raster: _Raster, explained) -> np.ndarray:
    mask = np.zeros(raster.gray.shape, bool)
    for box in explained:
        ys, xs = raster.slices(box, 1.5)
        mask[ys, xs] = True
    return mask


RULE_ASPECT = 6.0
"""An ink blob this many times longer than thick is a rule or a border piece, not a glyph."""


def _without_runs(ink: np.ndarray, k: int) -> np.ndarray:
    """The mask without straight runs of `k` pixels or longer, across or down: table rules
    (no glyph stroke is as long as the row is high)."""
    k = max(k, 8)
    runs = np.zeros_like(ink)
    if ink.shape[1] > k:
        runs |= cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, k), np.uint8))
    if ink.shape[0] > k:
        runs |= cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((k, 1), np.uint8))
    if not runs.any():
        return ink
    return np.where(cv2.dilate(runs, np.ones((5, 5), np.uint8)) > 0, 0, ink).astype(ink.dtype)


def _glyph_ink(ink: np.ndarray, inside: bool = False) -> int:
    """Pixels of the blobs that could be glyphs (table rules and border pieces left out);
    `inside`: only blobs clear of the region's top and bottom edges (a row drawn in an empty row
    lies within it; a logo or the next row's letters reaching into it do not)."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    total = 0
    for i in range(1, n):
        w, h = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        y = stats[i, cv2.CC_STAT_TOP]
        if inside and (y == 0 or y + h >= ink.shape[0]):
            continue
        if max(w, h) <= RULE_ASPECT * max(1, min(w, h)):
            total += int(stats[i, cv2.CC_STAT_AREA])
    return total


def _save_crop(gray: _Raster, box, crops_dir: Path, stem: str, column: str, row: int) -> str | None:
    try:
        crops_dir.mkdir(parents=True, exist_ok=True)
        out = crops_dir / f"{stem}-{column}-{row:02d}-appearance.png"
        cv2.imwrite(str(out), _cut(gray, box, pad=2.0))
        return str(out)
    except (OSError, cv2.error) as exc:
        log.debug("appearance crop not saved: %s", exc)
        return None
