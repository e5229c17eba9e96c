"""Text the page does not show: characters painted over by an opaque shape drawn after them.

A row "deleted" by drawing an opaque (white) box over it is gone for the eye but still in the
text layer, where the reader finds it. pdfium lists the page's objects in paint order (text,
filled paths with their fill colour, images; Form XObjects opened in place); a character whose
centre lies under an opaque fill or image painted *later* is hidden. Fills painted before the
text (table shading, grey title rows) are backgrounds and hide nothing. Evidence only: any
failure here yields nothing.
"""
from __future__ import annotations

import ctypes
import logging
from dataclasses import dataclass

import numpy as np

from scanner.model import SheetRead
from scanner.pdf.words import BLANK
from scanner.vocab import Reason

log = logging.getLogger("decksheet.read_pdf")

Box = tuple[float, float, float, float]
Matrix = tuple[float, float, float, float, float, float]
MAX_OBJECTS = 50_000
"""Page objects walked per page (a sheet has a few hundred); bounds the work on hostile files."""
MAX_COVERS = 5_000
"""Fills and images examined as covers per page (a sheet has a few hundred)."""
MAX_FORM_DEPTH = 8
"""Nesting of Form XObjects followed; deeper content is not examined."""
MIN_FILL_SIDE = 2.0
"""Thinner fills (pt) are rules and underlines, not covers."""
MIN_ALPHA = 192
"""Fill alpha (0–255) from which a fill hides what is under it; a fainter one leaves it legible."""
MAX_IMAGE_AREA = 4_000_000.0
"""An image over text larger than this (pt², ~4 A4 pages) is taken as opaque, not rendered."""
WHITE = 230
"""Each RGB channel at least this (0–255): a white cover, the colour of the paper."""
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


@dataclass(frozen=True)
class HiddenRun:
    """Hidden characters on one text line of the page (top-left coordinates, pt)."""

    text: str
    box: Box
    cover: str
    """What hides them: 'a white box', 'an opaque box' or 'an image'."""


@dataclass
class _Cover:
    """An opaque fill or an image, in page coordinates (bottom-left origin)."""

    order: int
    box: Box
    what: str
    image: object = None
    """The pdfium image object: its own alpha (a soft mask) decides where it hides."""
    alpha: np.ndarray | None = None


@dataclass
class _PaintOrder:
    """The page's text objects and covers, by paint order."""

    text_order: dict[int, int]
    """Text object address → its place in paint order."""
    text_boxes: list[tuple[int, Box]]
    covers: list[_Cover]
    stopped: str = ""
    """The limit the walk stopped at ('' when it saw every object)."""


def hidden_runs(page) -> list[HiddenRun]:
    """Runs of characters of a pypdfium2 page covered by an opaque fill or image drawn after them."""
    return hidden_check(page)[0]


def hidden_check(page) -> tuple[list[HiddenRun], str]:
    """`hidden_runs`, and the limit the check stopped at ('' when it examined the whole page)."""
    try:
        paint = _paint_order(page)
        if not _text_under_a_later_cover(paint):
            return [], paint.stopped  # usually every fill is drawn before the text it meets
        return _covered_chars(page, paint), paint.stopped
    except Exception as exc:  # noqa: BLE001 - extra evidence; the text reader already succeeded
        log.debug("hidden-text check failed: %s", exc)
        return [], f"the check failed ({type(exc).__name__})"


def _paint_order(page) -> _PaintOrder:
    import pypdfium2.raw as pdfium_c

    paint = _PaintOrder({}, [], [])
    order = 0
    fill_mode, stroke = ctypes.c_int(), ctypes.c_int()
    rgba = [ctypes.c_uint() for _ in range(4)]
    # Depth-first in content order: a form's objects are painted where the form is drawn.
    # Each frame: (container, its object getter, object count, next index, depth, matrix).
    stack = [(page.raw, pdfium_c.FPDFPage_GetObject, pdfium_c.FPDFPage_CountObjects(page.raw),
              0, 0, _IDENTITY)]
    while stack and order < MAX_OBJECTS:
        parent, get_object, count, index, depth, matrix = stack.pop()
        if index >= count:
            continue
        stack.append((parent, get_object, count, index + 1, depth, matrix))
        obj = get_object(parent, index)
        if not obj:
            continue
        order += 1
        kind = pdfium_c.FPDFPageObj_GetType(obj)
        if kind == pdfium_c.FPDF_PAGEOBJ_TEXT:
            if (box := _bounds(obj, matrix)) is not None:
                paint.text_order[_address(obj)] = order
                paint.text_boxes.append((order, box))
        elif kind == pdfium_c.FPDF_PAGEOBJ_FORM:
            if depth >= MAX_FORM_DEPTH:
                paint.stopped = f"Form XObjects nested deeper than {MAX_FORM_DEPTH}"
            else:
                stack.append((obj, pdfium_c.FPDFFormObj_GetObject,
                              pdfium_c.FPDFFormObj_CountObjects(obj), 0, depth + 1,
                              _compose(_matrix(obj), matrix)))
        elif len(paint.covers) >= MAX_COVERS:
            paint.stopped = f"more than {MAX_COVERS} fills and images"
            continue
        elif kind == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            # A graphics-state alpha, soft mask or blend mode may let the text show through;
            # the image's own mask is read per character (`_opaque_at`).
            if not pdfium_c.FPDFPageObj_HasTransparency(obj) and (box := _cover_bounds(obj, matrix)):
                paint.covers.append(_Cover(order, box, "an image", image=obj))
        elif (kind == pdfium_c.FPDF_PAGEOBJ_PATH
              and pdfium_c.FPDFPath_GetDrawMode(obj, fill_mode, stroke) and fill_mode.value
              and pdfium_c.FPDFPageObj_GetFillColor(obj, *rgba)
              and rgba[3].value >= MIN_ALPHA and (box := _cover_bounds(obj, matrix))):
            white = min(v.value for v in rgba[:3]) >= WHITE
            paint.covers.append(_Cover(order, box, "a white box" if white else "an opaque box"))
    if stack and order >= MAX_OBJECTS and any(index < count for _, _, count, index, _, _ in stack):
        paint.stopped = f"more than {MAX_OBJECTS} page objects"
    return paint


def _cover_bounds(obj, matrix: Matrix) -> Box | None:
    """Bounds of a fill or image big enough to hide a character (thin ones are rules)."""
    box = _bounds(obj, matrix)
    if box is None or box[2] - box[0] < MIN_FILL_SIDE or box[3] - box[1] < MIN_FILL_SIDE:
        return None
    return box


def _text_under_a_later_cover(paint: _PaintOrder) -> bool:
    """Whether any text object meets a cover painted after it (object bounds, a cheap screen)."""
    if not paint.text_boxes or not paint.covers:
        return False
    order = np.array([o for o, _ in paint.text_boxes])
    x0, y0, x1, y1 = np.array([b for _, b in paint.text_boxes]).T
    for cover in paint.covers:
        cx0, cy0, cx1, cy1 = cover.box
        if np.any((order < cover.order) & (x0 < cx1) & (x1 > cx0) & (y0 < cy1) & (y1 > cy0)):
            return True
    return False


def _covered_chars(page, paint: _PaintOrder) -> list[HiddenRun]:
    import pypdfium2.raw as pdfium_c

    height = float(page.get_size()[1])
    textpage = page.get_textpage()
    try:
        chars: list[tuple[int, str, Box]] = []  # (index, character, page box)
        for i in range(textpage.count_chars()):
            code = pdfium_c.FPDFText_GetUnicode(textpage, i)
            if code in BLANK or pdfium_c.FPDFText_IsGenerated(textpage, i):
                continue
            chars.append((i, chr(code), textpage.get_charbox(i, loose=True)))
        if not chars:
            return []
        cx = np.array([(b[0] + b[2]) / 2 for _, _, b in chars])
        cy = np.array([(b[1] + b[3]) / 2 for _, _, b in chars])
        under: list[list[int]] = [[] for _ in chars]  # covers over each character's centre
        for k, cover in enumerate(paint.covers):
            x0, y0, x1, y1 = cover.box
            for i in np.flatnonzero((cx > x0) & (cx < x1) & (cy > y0) & (cy < y1)):
                under[i].append(k)
        runs: dict[tuple[int, int], list[tuple[str, Box]]] = {}
        for i in (i for i, ks in enumerate(under) if ks):
            index, ch, (left, bottom, right, top) = chars[i]
            text_obj = pdfium_c.FPDFText_GetTextObject(textpage, index)
            when = paint.text_order.get(_address(text_obj)) if text_obj else None
            if when is None:
                continue
            # The last cover painted after the character's text that is opaque at its centre.
            hider = next((k for k in reversed(under[i]) if paint.covers[k].order > when
                          and _opaque_at(page, paint.covers[k], cx[i], cy[i])), None)
            if hider is not None:
                tl = (left, height - top, right, height - bottom)
                runs.setdefault((hider, round(tl[1])), []).append((ch, tl))
    finally:
        textpage.close()
    out = []
    for (cover, _), cs in sorted(runs.items(), key=lambda kv: (kv[0][1], min(b[0] for _, b in kv[1]))):
        cs.sort(key=lambda c: c[1][0])
        out.append(HiddenRun(text="".join(ch for ch, _ in cs),
                             box=(min(b[0] for _, b in cs), min(b[1] for _, b in cs),
                                  max(b[2] for _, b in cs), max(b[3] for _, b in cs)),
                             cover=paint.covers[cover].what))
    return out


def _opaque_at(page, cover: _Cover, x: float, y: float) -> bool:
    """Whether the cover hides the point: fills are opaque (their alpha was checked); an image
    is rendered once with its soft mask or colour-key mask and its alpha read at the point
    (scaled to its bounds: exact for upright images, close for turned ones)."""
    if cover.image is None:
        return True
    if cover.alpha is None:
        cover.alpha = _image_alpha(page, cover)
    if cover.alpha.size == 1:
        return bool(cover.alpha.flat[0] >= MIN_ALPHA)
    h, w = cover.alpha.shape
    x0, y0, x1, y1 = cover.box
    col = min(w - 1, max(0, int((x - x0) / (x1 - x0) * w)))
    row = min(h - 1, max(0, int((y1 - y) / (y1 - y0) * h)))
    return bool(cover.alpha[row, col] >= MIN_ALPHA)


def _image_alpha(page, cover: _Cover) -> np.ndarray:
    """The image's alpha as placed on the page (rows top-down); a huge one is taken as opaque
    rather than rendered."""
    import pypdfium2.raw as pdfium_c

    x0, y0, x1, y1 = cover.box
    if (x1 - x0) * (y1 - y0) > MAX_IMAGE_AREA:
        return np.full((1, 1), 255, np.uint8)
    bitmap = pdfium_c.FPDFImageObj_GetRenderedBitmap(page.pdf.raw, page.raw, cover.image)
    if not bitmap:
        return np.full((1, 1), 255, np.uint8)
    try:
        w, h = pdfium_c.FPDFBitmap_GetWidth(bitmap), pdfium_c.FPDFBitmap_GetHeight(bitmap)
        stride = pdfium_c.FPDFBitmap_GetStride(bitmap)
        if pdfium_c.FPDFBitmap_GetFormat(bitmap) != pdfium_c.FPDFBitmap_BGRA or not w or not h:
            return np.full((1, 1), 255, np.uint8)  # no alpha channel: opaque
        buf = ctypes.cast(pdfium_c.FPDFBitmap_GetBuffer(bitmap), ctypes.POINTER(ctypes.c_ubyte))
        pixels = np.ctypeslib.as_array(buf, shape=(h * stride,)).reshape(h, stride)
        return pixels[:, 3:4 * w:4].copy()
    finally:
        pdfium_c.FPDFBitmap_Destroy(bitmap)


def _address(obj) -> int:
    return ctypes.cast(obj, ctypes.c_void_p).value or 0


def _matrix(obj) -> Matrix:
    import pypdfium2.raw as pdfium_c

    m = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(obj, m):
        return _IDENTITY
    return (m.a, m.b, m.c, m.d, m.e, m.f)


def _compose(inner: Matrix, outer: Matrix) -> Matrix:
    """`inner` then `outer` (PDF row-vector convention: p' = p · inner · outer)."""
    a, b, c, d, e, f = inner
    A, B, C, D, E, F = outer
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D,
            e * A + f * C + E, e * B + f * D + F)


def _bounds(obj, matrix: Matrix) -> Box | None:
    """Bounds of a page object in page space; a form's objects report theirs in the form's space."""
    import pypdfium2.raw as pdfium_c

    l, b, r, t = ctypes.c_float(), ctypes.c_float(), ctypes.c_float(), ctypes.c_float()
    if not pdfium_c.FPDFPageObj_GetBounds(obj, l, b, r, t):
        return None
    if matrix == _IDENTITY:
        return (l.value, b.value, r.value, t.value)
    ma, mb, mc, md, me, mf = matrix
    xs, ys = [], []
    for x, y in ((l.value, b.value), (r.value, b.value), (l.value, t.value), (r.value, t.value)):
        xs.append(x * ma + y * mc + me)
        ys.append(x * mb + y * md + mf)
    return (min(xs), min(ys), max(xs), max(ys))


def flag_hidden_text(sheet: SheetRead, page, page_index: int, boxes: list[Box]) -> None:
    """Flag each read line with hidden characters on it ('hidden-text'), and the sheet for hidden
    text on no read line: what the reader found there, the page does not show."""
    runs, stopped = hidden_check(page)
    for run in runs:
        detail = f"{run.text[:60]!r} is covered by {run.cover} drawn over it"
        sheet.flag_line_or_sheet(_line_of(run.box, boxes), Reason.HIDDEN_TEXT,
                                 detail + " on the page", f"page {page_index + 1}: {detail}")
    if stopped:  # a cover past the limit would go unseen: never a silent pass
        from scanner.model import ReviewFlag

        sheet.review.append(ReviewFlag(
            section=None, reason=Reason.APPEARANCE_DIFFERS,
            detail=f"page {page_index + 1}: the covered-text check stopped ({stopped}); "
                   f"compare the sheet with what was read by eye"))


def _line_of(box: Box, boxes: list[Box]) -> int | None:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for i, (x0, top, x1, bottom) in enumerate(boxes):
        if x0 - 2 <= cx <= x1 + 2 and top <= cy <= bottom:
            return i
    # A run wider than one cell (name and count covered together): any overlap on its row.
    for i, (x0, top, x1, bottom) in enumerate(boxes):
        if top <= cy <= bottom and box[0] < x1 and box[2] > x0:
            return i
    return None
