"""Photos and scans of db-ko sheets → `SheetRead` (reader "ocr").

Pipeline: ocr_page (find, warp, flatten, deskew) → ocr_grid (tables, rows, cells, rules
removed) → per row: marks (strike/handwriting), name OCR → closed-vocabulary match
(ocr_names), count cell (ocr_counts) → cross-checks with the printed totals → flags.
Every doubt becomes a flag on the line: a wrong unflagged line is the worst outcome.

Pen corrections: a struck row (two detectors agree) leaves the deck and becomes a sheet-level
review item naming the line; a hand-written row (after a strike in its column, or a count digit
taller than the page's printed ones) and a struck count (its new value read) are always flagged.
The printed totals predate the pen, so they are checked against the column as printed.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from scanner.errors import UnreadableInput
from scanner.model import ReadLine, ReviewFlag, SheetRead
from scanner.ocr.grid import Box, Grid, RowCells, Table, page_to_grid
from scanner.ocr.counts import isolate_row, read_count_cell
from scanner.ocr.marks import row_marks
from scanner.ocr.names import NameMatch, Vocabulary, ocr_sure, read_name
from scanner.ocr.page import PageImage, decode_image, image_to_page, load_image
from scanner.ocr.engine import Tesseract

if TYPE_CHECKING:
    from card_db.cdb import CardDatabase
    from scanner.inputs.options import ReadOptions

log = logging.getLogger("decksheet.ocr")

SECTION_OF = {"monster": "main", "spell": "main", "trap": "main", "extra": "extra", "side": "side"}
COLUMNS = ("monster", "spell", "trap", "extra", "side")
NAME_ACCEPT = 0.80
"""A name match below this similarity is flagged 'uncertain-name'."""
NAME_MARGIN = 0.10
"""A lead over the runner-up below this is flagged 'ambiguous-name'."""
NAME_GUESS = 0.45
"""Below this no card is proposed at all."""
COUNT_ACCEPT = 0.5
EMPTY_INK = 0.004
"""Share of dark pixels under which a cell is empty."""
UPSCALE_TO = 48
"""Name cells are scaled so the row is about this many pixels high for Tesseract."""


@dataclass
class RowRead:
    """What one table row holds, before it becomes a `ReadLine`."""

    column: str
    row: int
    text: str
    text_conf: float
    match: NameMatch
    count: int | None
    count_conf: float
    count_detail: str
    struck_row: bool
    count_struck: bool
    handwritten: bool
    flags: list[str]
    count_height: float = 0.0
    """Ink height of the count glyph / row height (pen digits are taller than print)."""
    count_old: int | None = None
    """The struck old count, when the count was corrected."""
    pen_like: bool = False
    """The row's ink looks hand-written to `ocr_marks` (alone too weak a sign to flag it)."""


RENDER_DPI = 200
"""A scan saved as PDF whose page is not one embedded image is rendered at this resolution."""


def read_photo(path: Path, db: "CardDatabase", options: "ReadOptions") -> SheetRead:
    """A photo or an image scan of a sheet."""
    img = load_image(Path(path))
    return read_image(img, db, options, is_scan=False, label=Path(path).stem)


def read_pdf_pages(path: Path, db: "CardDatabase", options: "ReadOptions") -> SheetRead:
    """An image-only PDF (a scan): the embedded page image, or a 200 dpi rendering."""
    path = Path(path)
    img = _pdf_page_image(path)
    return read_image(img, db, options, is_scan=True, label=path.stem)


def _pdf_page_image(path: Path) -> np.ndarray:
    try:
        from pypdf import PdfReader
        reader = PdfReader(str(path))
        page = reader.pages[0]
        images = list(page.images)
        if len(images) == 1:
            return decode_image(images[0].data, path.name)
    except UnreadableInput:
        pass
    except Exception as exc:  # noqa: BLE001 - fall back to rendering the page
        log.debug("embedded image not usable: %s", exc)
    import pypdfium2 as pdfium  # late: native library

    try:
        doc = pdfium.PdfDocument(str(path))
        try:
            if len(doc) == 0:
                raise UnreadableInput(f"{path.name}: the PDF has no page to read")
            bitmap = doc[0].render(scale=RENDER_DPI / 72, grayscale=True)
            gray = np.array(bitmap.to_pil().convert("L"))
            return cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)  # the pipeline takes BGR, as decoded
        finally:
            doc.close()
    except pdfium.PdfiumError as exc:
        raise UnreadableInput(f"{path.name}: the PDF page cannot be rendered ({exc})") from None


def read_image(img: np.ndarray, db: "CardDatabase", options: "ReadOptions", *, is_scan: bool,
               label: str) -> SheetRead:
    page = image_to_page(img, is_scan=is_scan)
    grid = page_to_grid(page.gray)
    found = [c for c in COLUMNS if grid.by_kind(c) and grid.by_kind(c).rows]
    if not all(c in found for c in ("monster", "spell", "trap")):
        if not is_scan:  # maybe the "photo" is a flat scan with a white border
            page2 = image_to_page(img, is_scan=True)
            grid2 = page_to_grid(page2.gray)
            found2 = [c for c in COLUMNS if grid2.by_kind(c) and grid2.by_kind(c).rows]
            if len(found2) > len(found):
                page, grid, found = page2, grid2, found2
    if not all(c in found for c in ("monster", "spell", "trap")):
        raise UnreadableInput(f"{label}: not a deck sheet (no deck table grid found; "
                              f"found {', '.join(found) or 'nothing'})")
    tess = Tesseract()
    vocab = Vocabulary.build(db)
    sheet = SheetRead(reader="ocr")
    sheet.notes.extend(page.notes + grid.notes)
    for column in COLUMNS:  # a printed table the grid missed: its lines are unread, not absent
        if column not in found:
            sheet.review.append(ReviewFlag(section=SECTION_OF[column], reason="unreadable-line",
                                           detail=f"{column} table not found on the page: its lines were not read"))
    rows: list[RowRead] = []
    chroma = ink_chroma(page.color, grid.clean)
    for column in found:
        table = grid.by_kind(column)
        col_rows = [r for r in (read_row(grid, page, table, cells, column, tess, vocab, chroma)
                                for cells in table.rows) if r is not None]
        mark_merged_rows(col_rows, table)
        mark_handwritten_after_strike(col_rows)
        rows.extend(col_rows)
    mark_pen_counts(rows, sheet)
    read_totals(grid, tess, sheet)
    cross_check_totals(rows, sheet)
    read_header(grid, tess, sheet)
    for r in rows:
        if r.struck_row:
            sheet.review.append(struck_review(r, grid, page, options, label))
        else:
            sheet.lines.append(to_read_line(r, grid, page, options, label))
    if options.debug_dir:
        from scanner.ocr.debug import write_debug
        write_debug(Path(options.debug_dir), label, page, grid)
    return sheet


def _ink_share(cell: np.ndarray) -> float:
    if cell.size == 0:
        return 0.0
    return float((cell < 140).mean())


def _trim(cell: np.ndarray, pad: int = 6) -> np.ndarray | None:
    """Crop to the ink, with a white margin; None when there is no ink."""
    ink = cell < 160
    ys, xs = np.nonzero(ink)
    if len(xs) < 8:
        return None
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    out = np.full((y1 - y0 + 2 * pad, x1 - x0 + 2 * pad), 255, np.uint8)
    out[pad:pad + y1 - y0, pad:pad + x1 - x0] = cell[y0:y1, x0:x1]
    return out


def read_row(grid: Grid, page: PageImage, table: Table, cells: RowCells, column: str,
             tess: Tesseract, vocab: Vocabulary, chroma: tuple[float, float]) -> RowRead | None:
    name_img = cells.name.crop(grid.clean, inset=3)
    count_img = cells.count.crop(grid.clean, inset=3)
    name_ink, count_ink = _ink_share(name_img), _ink_share(count_img)
    if name_ink < EMPTY_INK and count_ink < EMPTY_INK:
        return None
    flags: list[str] = []
    row_clean = cells.box.crop(grid.clean, inset=3)
    marks = row_marks(row_clean, cells.box.crop(page.color, inset=3))
    # Two strike detectors (Hough in ocr_marks, a long morphological run here): both → the
    # line is struck and dropped; only one → kept and flagged, never silently dropped.
    simple_strike = row_struck(row_clean)
    struck = marks.struck and simple_strike
    if marks.struck != simple_strike:
        flags.append("possible-strike")
    handwritten = row_pen_coloured(cells.box.crop(page.color, inset=3), row_clean, chroma)
    # Name: OCR, closed-vocabulary match, checked by rendering the candidates (ocr_names).
    name_read = read_name(name_img, column, tess, vocab, scale=UPSCALE_TO / max(cells.name.h, 1),
                          numbers_in_cell=not table.number_column)
    if name_read.row_number_only and count_ink < EMPTY_INK:
        return None  # an empty row that only carries its printed number
    text, conf, match = name_read.text, name_read.confidence, name_read.match
    flags.extend(name_read.flags)
    # Count: read from a band taller than the row, so a pen digit poking out stays whole.
    count_band = row_band(grid.clean, cells.count, cells.box)
    beside_box = Box(max(cells.name.x0, cells.name.x1 - max(8, cells.name.w // 5)), cells.name.y0,
                     cells.name.x1, cells.name.y1)
    beside_band = row_band(grid.clean, beside_box, cells.box)
    count, count_conf, detail, count_struck, count_h = read_count(count_band, beside_band, tess)
    if (detail == "empty" and not text.strip() and name_ink < EMPTY_INK
            and not (struck or handwritten or marks.struck or simple_strike)):
        # A blank row whose count cell kept a sliver of a bent rule: both readers see nothing.
        return None
    if count is None or count_conf < COUNT_ACCEPT:
        flags.append("count-unclear")
    if count_struck:
        flags.append("count-corrected")
    if struck:
        flags.append("struck-through")
    if handwritten:
        flags.append("handwritten")
    return RowRead(column=column, row=cells.row, text=text, text_conf=conf, match=match, count=count,
                   count_conf=count_conf, count_detail=detail, struck_row=struck,
                   count_struck=count_struck, handwritten=handwritten, flags=flags,
                   count_height=count_h, count_old=count_old_digit(detail),
                   pen_like=marks.handwriting)


def _sure(m: NameMatch) -> bool:
    return ocr_sure(m)


ROW_BAND_PAD = 0.5
"""Count cells are read from a band this many row heights taller above and below."""


@dataclass
class RowBand:
    """A cell cut from a band taller than its row, with the row's own ink only."""

    image: np.ndarray
    row_h: int
    """Height of the row itself (the image may be taller: ink poking out)."""


def row_band(clean: np.ndarray, cell: Box, row: Box, inset: int = 3) -> RowBand:
    pad = int(ROW_BAND_PAD * row.h)
    y0, y1 = max(0, row.y0 - pad), min(clean.shape[0], row.y1 + pad)
    band = clean[y0:y1, cell.x0 + inset:cell.x1 - inset]
    return RowBand(isolate_row(band, row.y0 + inset - y0, row.y1 - inset - y0), row.h - 2 * inset)


def read_count(count: RowBand, beside: RowBand, tess: Tesseract
               ) -> tuple[int | None, float, str, bool, float]:
    """(value, confidence, detail, struck, glyph height / row height) of a count cell."""
    got = read_count_cell(count.image, beside.image)
    height = got.height * count.image.shape[0] / max(count.row_h, 1)
    return got.value, got.confidence, got.detail, got.struck, height


def count_old_digit(detail: str) -> int | None:
    """The struck digit named in a count read's detail ('struck [2] → new 3')."""
    m = re.match(r"struck \[(\d)\]", detail)
    return int(m.group(1)) if m else None


def row_struck(row_clean: np.ndarray) -> bool:
    """A pen line along the row: a long, nearly horizontal run of ink through the text band.
    Rules are already removed, and no glyph stroke is a third of the row wide."""
    if row_clean.size == 0:
        return False
    ink = (row_clean < 150).astype(np.uint8) * 255
    ink = cv2.dilate(ink, np.ones((3, 1), np.uint8))  # bridge a wavy pen line
    k = max(40, row_clean.shape[1] // 3)
    runs = cv2.morphologyEx(ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, 1)))
    return bool(runs.any())


def ink_chroma(color: np.ndarray, clean: np.ndarray) -> tuple[float, float]:
    """Median Lab (a, b) of the printed ink on the page: the photo's colour cast included."""
    ink = clean[::2, ::2] < 120
    lab = cv2.cvtColor(color[::2, ::2], cv2.COLOR_BGR2LAB)
    if ink.sum() < 100:
        return 128.0, 128.0
    return float(np.median(lab[:, :, 1][ink])), float(np.median(lab[:, :, 2][ink]))


def row_pen_coloured(row_bgr: np.ndarray, row_clean: np.ndarray, chroma: tuple[float, float]) -> bool:
    """Ink of another colour than the page's print (a blue pen): Lab (a, b) far from the
    printed ink's median."""
    if row_bgr.size == 0 or row_bgr.shape[:2] != row_clean.shape[:2]:
        return False
    ink = row_clean < 120
    if ink.sum() < 30:
        return False
    lab = cv2.cvtColor(row_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    dist = np.hypot(lab[:, :, 1] - chroma[0], lab[:, :, 2] - chroma[1])
    return float((dist[ink] > 14).mean()) > 0.3


MERGED_ROW = 1.5
"""A row box this many times the table's usual row height holds two lines (a missed rule)."""


def mark_merged_rows(col_rows: list[RowRead], table: Table) -> None:
    """A row box that spans two printed lines (the grid missed a rule, e.g. under a strike) is
    read as one line: flag it, and never drop it as struck (the other line may be untouched)."""
    heights = {c.row: c.box.h for c in table.rows}
    if len(heights) < 3:
        return
    usual = float(np.median(list(heights.values())))
    for r in col_rows:
        if heights.get(r.row, 0) > MERGED_ROW * usual:
            r.flags.append("merged-rows")
            if r.struck_row:
                r.struck_row = False
                r.flags.append("possible-strike")


def mark_handwritten_after_strike(col_rows: list[RowRead]) -> None:
    """A struck row is replaced by a hand-written line in the first empty row of the column:
    with a strike in the column, the last line of the column is suspect too; with a line only
    one strike detector saw, the last line is when its ink looks hand-written."""
    if not col_rows:
        return
    last = col_rows[-1]
    struck = any(r.struck_row for r in col_rows)
    maybe = any("possible-strike" in r.flags for r in col_rows if r is not last) and last.pen_like
    if struck or maybe:
        if not last.struck_row and "handwritten" not in last.flags:
            last.flags.append("handwritten")
            last.handwritten = True


def _digits(tess: Tesseract, img: np.ndarray) -> int | None:
    trimmed = _trim(img)
    if trimmed is None:
        return None
    if trimmed.shape[0] < 40:
        s = 48 / trimmed.shape[0]
        trimmed = cv2.resize(trimmed, None, fx=s, fy=s, interpolation=cv2.INTER_CUBIC)
    got = tess.read(trimmed, lang="eng", psm=7, whitelist="0123456789")
    t = got.text.replace(" ", "")
    return int(t) if re.fullmatch(r"[0-9]{1,3}", t) and got.confidence > 0.5 else None


def read_totals(grid: Grid, tess: Tesseract, sheet: SheetRead) -> None:
    """Printed 합계 cells: per column, extra, side, and the 메인 덱 합계 box."""
    for column in COLUMNS:
        t = grid.by_kind(column)
        if t is None or t.total is None:
            continue
        value = _digits(tess, t.total.crop(grid.clean, inset=4))
        if column in ("monster", "spell", "trap"):
            sheet.column_totals[column] = value
        else:
            sheet.printed_totals[column] = value
    trap, lower = grid.by_kind("trap"), [grid.by_kind("extra"), grid.by_kind("side")]
    if trap is None:
        return
    lower_top = min((t.box.y0 for t in lower if t is not None), default=grid.clean.shape[0])
    box = main_total_box(grid.clean, Box(trap.box.x0 + trap.box.w // 3, trap.box.y1 + 4,
                                         trap.box.x1 + 10, lower_top - 4))
    if box is not None:
        sheet.printed_totals["main"] = _digits(tess, box.crop(grid.clean, inset=5))


def main_total_box(page: np.ndarray, region: Box) -> Box | None:
    """The small framed box of 메인 덱 합계 (right of its label, under the trap column)."""
    if region.h < 20 or region.w < 40:
        return None
    sub = region.crop(page)
    ink = (sub < 170).astype(np.uint8) * 255
    contours, _ = cv2.findContours(ink, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best = None
    for c in contours:
        x, y, w, h = cv2.boundingRect(c)
        if h > 0.9 * region.h or h < 20 or w < 1.2 * h or w > 0.6 * region.w:
            continue
        if best is None or x > best[0]:
            best = (x, y, w, h)
    if best is None:
        return None
    x, y, w, h = best
    return Box(region.x0 + x + 3, region.y0 + y + 3, region.x0 + x + w - 3, region.y0 + y + h - 3)


SURE_COUNT = 0.8
"""A printed count read at least this confidently stands without a total to confirm it."""


UNSURE_EXPLAIN = 2
"""At most this many unsure counts may explain a column total that does not add up (more
unknowns would make any total explainable, and the total no check at all)."""


def cross_check_totals(rows: list[RowRead], sheet: SheetRead) -> None:
    """Check each column's counts against its printed total.

    The printed totals were printed BEFORE any pen correction, so they are compared with the
    column as printed: the untouched rows plus the old counts of struck rows and struck counts
    (hand-written new rows left out). A match confirms the untouched counts. When an old count
    could not be read, a total that the unknown olds (1..3 each) can explain leaves only the
    unsure counts flagged, and so does a total that one or two unsure untouched counts can
    explain; a column nothing explains gets every count flagged (the printed
    total may be the wrong one, a judge decides). A total equal to the corrected sum (the
    writer updated the total too) also confirms.
    """
    for column in COLUMNS:
        printed = (sheet.column_totals.get(column) if column in ("monster", "spell", "trap")
                   else sheet.printed_totals.get(column))
        col = [r for r in rows if r.column == column]
        if not col:
            continue
        kept = [r for r in col if not r.struck_row]
        untouched = [r for r in kept if not r.count_struck and not r.handwritten]
        corrected = [r for r in col if r.struck_row or r.count_struck]
        after = sum(r.count or 0 for r in kept)
        if printed is None:
            verdict = "unchecked"
        elif after == printed and not any(r.count is None for r in kept):
            verdict = "confirmed"
        else:
            base = sum(r.count or 0 for r in untouched)
            olds = [_old_count(r) for r in corrected]
            known = [o for o in olds if o is not None]
            unknown = len(olds) - len(known)
            unsure = [r for r in untouched if r.count is None or r.count_conf < SURE_COUNT]
            sure = sum(r.count or 0 for r in untouched if r.count is not None and r.count_conf >= SURE_COUNT)
            if (not corrected and 0 < len(unsure) <= UNSURE_EXPLAIN
                    and len(unsure) <= printed - sure <= 3 * len(unsure)):
                # A misread unsure count explains the total: it alone is flagged (sure counts
                # stand, as they do with no total at all).
                verdict = "unchecked"
            elif any(r.count is None for r in untouched):
                verdict = "mismatch"
            elif unknown == 0 and corrected and base + sum(known) == printed:
                verdict = "confirmed"
            elif corrected and len(corrected) <= printed - base <= 3 * len(corrected):
                verdict = "unchecked"  # the corrections can explain the total, but not pin it
            else:
                verdict = "mismatch"
            if verdict != "confirmed":
                sheet.notes.append(f"{column}: counts sum to {after} ({base} untouched, "
                                   f"{len(corrected)} corrected), printed total {printed}")
        if verdict == "unchecked":
            # No usable total: only a printed count read with high confidence stands.
            for r in kept:
                if r.count_conf < SURE_COUNT and "count-unclear" not in r.flags:
                    r.flags.append("count-unclear")
        elif verdict == "mismatch":
            for r in kept:
                if "column-total-mismatch" not in r.flags:
                    r.flags.append("column-total-mismatch")


def _old_count(r: RowRead) -> int | None:
    """What a corrected row counted as printed: a struck row's count, a struck count's old digit."""
    if r.struck_row and not r.count_struck:
        return r.count if r.count in (1, 2, 3) else None
    return r.count_old if r.count_old in (1, 2, 3) else None


PEN_COUNT_HEIGHT = 1.3
"""A count glyph this many times taller than the page's printed count digits is hand-written."""


def mark_pen_counts(rows: list[RowRead], sheet: SheetRead) -> None:
    """Flag counts written by hand: a pen digit is taller than the printed ones of the same page.
    This also catches a corrected count whose strike was missed (the new digit is pen)."""
    printed = [r.count_height for r in rows
               if r.count_height > 0 and not (r.struck_row or r.count_struck or r.handwritten)]
    if len(printed) < 5:
        return
    ref = float(np.median(printed))
    sheet.notes.append(f"printed count height {ref:.2f} of the row")
    for r in rows:
        if r.count_height > PEN_COUNT_HEIGHT * ref and not r.struck_row:
            r.handwritten = True
            if "handwritten" not in r.flags:
                r.flags.append("handwritten")
            r.count_detail += f"; count glyph {r.count_height / ref:.1f}× the printed height"


def struck_review(r: RowRead, grid: Grid, page: PageImage, options: "ReadOptions", label: str
                  ) -> ReviewFlag:
    """A struck-through printed line leaves the deck; the judge still sees what was struck.

    It names no line and no card_id (the card is not in the deck; a card_id would flag another
    line of the same card), so it is a sheet-level review item."""
    m = r.match
    if m.card_id is not None and m.score >= NAME_ACCEPT:
        name = f"{m.name} [{m.card_id}]"
    elif m.card_id is not None and m.score >= NAME_GUESS:  # the pen line garbles the read
        name = f"{r.text!r} (maybe {m.name} [{m.card_id}])"
    else:
        name = repr(r.text) if r.text else "?"
    count = r.count_old if r.count_struck else r.count
    detail = (f"{r.column} row {r.row}: printed line struck through, left out of the deck: "
              f"{name} ×{count if count in (1, 2, 3) else '?'}")
    if options.crops_dir:
        crop = save_crop(Path(options.crops_dir), label, r, grid, page)
        if crop:
            detail += f"; crop {crop}"
    return ReviewFlag(section=SECTION_OF[r.column], reason="struck-through", detail=detail)


HANGUL_NAME = re.compile(r"^[가-힣]{2,5}$")


def read_header(grid: Grid, tess: Tesseract, sheet: SheetRead) -> None:
    """Player name (이름) and Konami ID (10 digits, one per box) from the header block."""
    headers = sorted((t for t in grid.tables if t.kind == "header"), key=lambda t: t.box.x0)
    if not headers:
        return
    t = headers[0]
    ys = t.ys
    if len(ys) < 3 or len(t.xs) < 2:
        return
    label_x = _label_divider(grid, t)
    name_box = Box(label_x, ys[0], t.box.x1, ys[1])
    img = name_box.crop(grid.clean, inset=5)
    trimmed = _trim(img)
    if trimmed is not None:
        got = tess.read(cv2.resize(trimmed, None, fx=1.5, fy=1.5, interpolation=cv2.INTER_CUBIC),
                        lang="kor", psm=7)
        name = got.text.replace(" ", "")
        if HANGUL_NAME.match(name) and got.confidence > 0.85:
            sheet.player_name = name
    digits = read_id_boxes(grid, t, ys[1], ys[2], tess)
    if digits is not None:
        sheet.konami_id = digits


def read_id_boxes(grid: Grid, t: Table, y0: int, y1: int, tess: Tesseract) -> str | None:
    """The 10 one-digit boxes of the Konami ID: 11 evenly spaced short rules; one digit each.
    Only a full, confident read is returned (never a guessed ID)."""
    xs = t.xs
    best: list[int] = []
    for i in range(len(xs)):
        run = [xs[i]]
        for x in xs[i + 1:]:
            gap = x - run[-1]
            if len(run) >= 2 and abs(gap - (run[1] - run[0])) > 0.25 * (run[1] - run[0]):
                break
            if gap < 20:
                break
            run.append(x)
        if len(run) > len(best):
            best = run
    if len(best) != 11:
        return None
    out = []
    for a, b in zip(best, best[1:]):
        cell = Box(a, y0, b, y1).crop(grid.clean, inset=4).copy()
        ink = (cell < 170).astype(np.uint8)
        # The digit box has its own frame, off the table's rule positions: paint it out.
        frame = (cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, max(8, int(cell.shape[1] * 0.7))), np.uint8))
                 | cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((max(8, int(cell.shape[0] * 0.7)), 1), np.uint8)))
        cell[cv2.dilate(frame, np.ones((3, 3), np.uint8)) > 0] = 255
        trimmed = _trim(cell, pad=10)
        if trimmed is None:
            return None
        got = tess.read(trimmed, lang="eng", psm=10, whitelist="0123456789")
        d = got.text.strip()
        if not re.fullmatch(r"[0-9]", d) or got.confidence < 0.6:
            return None
        out.append(d)
    return "".join(out)


def _label_divider(grid: Grid, t: Table) -> int:
    """x of the rule between the labels (이름 / 코나미 카드 게임 ID) and the values."""
    inner = [x for x in t.xs if t.box.x0 + 20 < x < t.box.x1 - 20]
    return inner[0] if inner else t.box.x0 + t.box.w // 3


def to_read_line(r: RowRead, grid: Grid, page: PageImage, options: "ReadOptions", label: str
                 ) -> ReadLine:
    m = r.match
    card_id = m.card_id if m.score >= NAME_GUESS else None
    flags = list(dict.fromkeys(r.flags))
    detail_parts = []
    if m.candidates and flags:
        detail_parts.append("candidates: " + ", ".join(f"{n} ({s:.2f})" for _, n, s in m.candidates[:3]))
    if r.count_detail and any(f.startswith("count") or f == "column-total-mismatch" for f in flags):
        detail_parts.append(f"count: {r.count_detail}")
    line = ReadLine(section=SECTION_OF[r.column], text=m.name if card_id else r.text,
                    count=r.count, column=r.column, row=r.row, card_id=card_id,
                    text_confidence=r.text_conf, count_text=str(r.count) if r.count is not None else "",
                    flags=flags, detail="; ".join(detail_parts),
                    confidence=round(min(m.score, 1.0) * (1.0 if not flags else 0.5), 3),
                    alternatives=[r.text] if r.text and card_id else [])
    if options.crops_dir and flags:
        line.crop = save_crop(Path(options.crops_dir), label, r, grid, page)
    return line


def save_crop(crops_dir: Path, label: str, r: RowRead, grid: Grid, page: PageImage) -> str | None:
    table = grid.by_kind(r.column)
    cells = next((c for c in table.rows if c.row == r.row), None) if table else None
    if cells is None:
        return None
    crops_dir.mkdir(parents=True, exist_ok=True)
    out = crops_dir / f"{label}-{r.column}-{r.row:02d}.png"
    b = cells.box
    pad = 6
    img = page.color[max(0, b.y0 - pad):b.y1 + pad, max(0, b.x0 - pad):b.x1 + pad]
    cv2.imwrite(str(out), img)
    return str(out)
