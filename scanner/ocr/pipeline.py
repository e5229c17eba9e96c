"""Photos and scans of deck sheets → `SheetRead` (reader "ocr").

Stages, each in its own module, run in order on one `PageContext`:
orient (downscale, turns) → page (find, warp, flatten, deskew) → grid (db-ko tables by their
rules) or form_fit (a layout of `layouts` placed by its rules) → rows (per row: strike and pen
signs, name OCR → closed-vocabulary match checked by rendering, count cell) → corrections
(merged rows, hand-written rows and counts) → totals (the printed totals cross-checked) →
lines (flags, crops, review items). The header (name, ID) is read right after the page is located
on a db-ko sheet (`ReadOptions.on_header_read` hands it out while the rows are read), after the
rows on a form.
Every doubt becomes a flag on the line: a wrong unflagged line is the worst outcome.
"""
from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from scanner.errors import UnreadableInput
from scanner.inputs.limits import out_of_memory
from scanner.model import ReviewFlag, SheetRead
from scanner.ocr.boxed import find_open_boxes
from scanner.ocr.corrections import (ink_chroma, mark_handwritten_after_strike, mark_merged_rows,
                                     mark_pen_counts)
from scanner.ocr.engine import Tesseract
from scanner.ocr.fit_check import label_rows, printed_labels
from scanner.ocr.form_fit import Fit, PlacedForm, finish_form, place_form, row_rule_peaks
from scanner.ocr.grid import Grid, line_masks, page_to_grid
from scanner.ocr.hand_names import HandPage
from scanner.ocr.page_hand import second_pass
from scanner.ocr.layouts import DB_KO, FORMS, OPEN_BOX_FORMS, Layout
from scanner.ocr.header import read_form_header, read_header
from scanner.ocr.evidence import accept_on_evidence
from scanner.ocr.pen_names import weigh_pen_names
from scanner.ocr.lines import attempts_note, struck_review, to_read_line
from scanner.ocr.latin import LATIN, page_vocabulary
from scanner.ocr.orient import TURN_NAMES, TURNS, downscale, turned
from scanner.ocr.page import PageImage, image_to_page, load_image, paper_width_px
from scanner.ocr.page_alternatives import alternative_corners
from scanner.ocr.rasterize import MAX_PAGES, pdf_page_count, pdf_page_image
from scanner.ocr.retake import layout_retake
from scanner.ocr.rows import RowRead, TableContext, name_cells, read_row
from scanner.ocr.text_rules import ruled_by_text
from scanner.ocr.totals import (cross_check_totals, form_total_odds, read_form_main_total, read_totals,
                                 settle_hand_counts)
from scanner.vocab import COLUMNS, SECTION_OF, Reason
from scanner.vocab import MAIN_COLUMNS as MAIN

if TYPE_CHECKING:
    from card_db.cdb import CardDatabase
    from scanner.inputs.options import ReadOptions

log = logging.getLogger("decksheet.ocr")

MIN_DECK_ROWS = 12
"""A lone table is taken for a deck table only with at least this many rows (db-ko prints 20
per main column and 15 for extra and side; noise or a form's small block gives fewer)."""


@dataclass
class PageContext:
    """One page on its way through the stages."""

    image: np.ndarray
    db: "CardDatabase"
    options: "ReadOptions"
    is_scan: bool
    label: str
    page: PageImage | None = None
    grid: Grid | None = None
    layout: Layout = DB_KO
    fit: Fit | None = None
    """Where a fixed-layout form sits on the page (None for db-ko, whose tables are found by rules)."""
    found: list[str] = field(default_factory=list)
    """The deck tables the grid found with rows, in `COLUMNS` order."""
    frame: tuple[int, int] = (0, 0)
    """(height, width) of the image the page's corners were found in."""
    tess: Tesseract | None = None
    rows: list[RowRead] = field(default_factory=list)
    sheet: SheetRead = field(default_factory=lambda: SheetRead(reader="ocr"))
    rows_off: bool = False
    """The form's rows were fitted rows off (`check_fit`): nothing read from the fit stands."""


def read_photo(path: Path, db: "CardDatabase", options: "ReadOptions") -> SheetRead:
    """A photo or an image scan of a sheet."""
    img = load_image(Path(path))
    return read_image(img, db, options, is_scan=False, label=Path(path).stem)


def read_pdf_pages(path: Path, db: "CardDatabase", options: "ReadOptions") -> SheetRead:
    """An image-only PDF (a scan): the first page that is a deck sheet (a blank or cover page
    may come first), from its embedded image or a 200 dpi rendering."""
    path = Path(path)
    pages = min(pdf_page_count(path), MAX_PAGES)
    refusals = []
    for index in range(pages):
        try:
            sheet = read_image(pdf_page_image(path, index), db, options, is_scan=True, label=path.stem)
        except UnreadableInput as exc:
            if index == pages - 1 and not refusals:
                raise
            refusals.append(f"page {index + 1}: {exc}")
            continue
        if index:
            sheet.notes.insert(0, f"page {index + 1} read; " + "; ".join(refusals))
        return sheet
    raise UnreadableInput("input.no-sheet-on-pages", file=path.name, pages=pages)


def read_image(img: np.ndarray, db: "CardDatabase", options: "ReadOptions", *, is_scan: bool,
               label: str) -> SheetRead:
    return read_page(img, db, options, is_scan=is_scan, label=label).sheet


def read_page(img: np.ndarray, db: "CardDatabase", options: "ReadOptions", *, is_scan: bool,
              label: str) -> PageContext:
    """`read_image`, keeping the page and its grid (where each row was read: crops of any row)."""
    ctx = PageContext(image=img, db=db, options=options, is_scan=is_scan, label=label)
    find_tables(ctx)
    read_dbko_header(ctx)
    read_rows(ctx)
    check_fit(ctx)
    check_rows(ctx)
    report(ctx)
    return ctx


def read_dbko_header(ctx: PageContext) -> None:
    """The db-ko sheet's header (name, Konami ID) as soon as the page is located, before its
    rows: it depends on the grid alone, and whose sheet it is can be asked of the judge while
    the rows are read (`ReadOptions.on_header_read`). A form's header is read after its rows
    (whether it is written by hand is told by them)."""
    if ctx.layout is not DB_KO:
        return
    ctx.tess = ctx.tess or Tesseract()
    with _stage_may_fail(ctx, "header"):
        read_header(ctx.grid, ctx.tess, ctx.sheet)
    _header_read(ctx)


def _header_read(ctx: PageContext) -> None:
    """`ReadOptions.on_header_read`: a hook's failure costs only the early showing."""
    hook = ctx.options.on_header_read
    if hook is None:
        return
    try:
        hook(ctx.sheet)
    except Exception:  # noqa: BLE001 - a courtesy to the station; the read goes on
        log.exception("%s: the header's hook failed", ctx.label)


def _tables_found(grid: Grid) -> list[str]:
    return [c for c in COLUMNS if grid.by_kind(c) and grid.by_kind(c).rows]


@dataclass
class Located:
    """One way of seeing the page: its image, the grid, and which layout fits."""

    page: PageImage
    grid: Grid
    found: list[str]
    layout: Layout = DB_KO
    fit: Fit | None = None
    frame: tuple[int, int] = (0, 0)
    """(height, width) of the image the page was found in (its corners' frame)."""
    boxed: bool = False
    """The layout's open boxes were found in their bands (`boxed`): upright by that alone."""

    @property
    def upright(self) -> bool:
        """A whole layout found the right way up: the db-ko sheet's three main columns taller
        than the extra | side tables under them (upside down, the short tables come first), or
        the form fitted with its grey title rows above row 1, or an open-box form's bands."""
        if self.fit is not None or self.boxed:
            return True
        if not all(c in self.found for c in MAIN):
            return False
        lower = [len(self.grid.by_kind(c).rows) for c in ("extra", "side") if c in self.found]
        return not lower or min(len(self.grid.by_kind(c).rows) for c in MAIN) >= max(lower)


def locate(img: np.ndarray, is_scan: bool) -> Located:
    """Page and grid stages on one image: the db-ko grid, else Konami's form."""
    got = _locate(img, is_scan)
    got.frame = img.shape[:2]
    return got


def _locate(img: np.ndarray, is_scan: bool) -> Located:
    page = image_to_page(img, is_scan=is_scan)
    grid = page_to_grid(page.gray)
    got = Located(page, grid, _tables_found(grid))
    if all(c in got.found for c in MAIN):
        return got
    # Not the db-ko sheet's three columns: maybe Konami's form (one frame, count left) — unless
    # the grid found the db-ko sheet's own tables, a few glued or lost (a fixed form's rows can
    # fit a db-ko page's closely enough: Konami's 17.4 pt rows at a scale on its 15 pt rows).
    form = None if _dbko_tables(got) >= DBKO_TABLES else _as_form(page, grid)
    if form is not None:
        return form
    if page.corners is not None:
        got = _other_quads(img, got)
        if all(c in got.found for c in MAIN):
            return got
    if not is_scan:
        # maybe the "photo" is a flat scan with a white border
        page2 = image_to_page(img, is_scan=True)
        grid2 = page_to_grid(page2.gray)
        found2 = _tables_found(grid2)
        if len(found2) > len(got.found):
            got = Located(page2, grid2, found2)
        if not all(c in got.found for c in MAIN):
            got = _as_form(page2, grid2) or got
    if not got.found and got.fit is None:
        got = _by_text_alignment(got)
    if not got.upright:
        # No ruled layout whole (the page would be refused, or read as a few stray tables — a
        # tilted boxed list's frame passes for a db-ko table): maybe a form of open boxes, which
        # holds only when the page shows its bands of large boxes exactly.
        got = _as_open_boxes(got) or got
    return got


def _as_open_boxes(got: Located) -> Located | None:
    """The open-box form (`layouts.OPEN_BOX_FORMS`) whose bands of boxes the page shows, with
    its lines found by their ink (`boxed`); every box found is a table (an empty box: no lines)."""
    for layout in OPEN_BOX_FORMS:
        grid = find_open_boxes(got.page.gray, layout)
        if grid is not None:
            return Located(got.page, grid, [t.kind for t in grid.tables], layout, boxed=True)
    return None


def _by_text_alignment(got: Located) -> Located:
    """No rule of any table found (a fax or a hard copy binarised its grey rules away): the
    rules the text's alignment implies (`text_rules`), drawn on the page, and the grid on them."""
    ruled = ruled_by_text(got.page.gray)
    if ruled is None:
        return got
    grid = page_to_grid(ruled)
    found = _tables_found(grid)
    if len(found) <= len(got.found):
        return got
    grid.notes.append("grid: rules found by the text's alignment (the printed rules are not visible)")
    return Located(got.page, grid, found)


DBKO_TABLES = 3
"""Separate deck tables with at least the db-ko sheet's rows (20 main, 15 extra and side) that
make a page a db-ko sheet: a fixed form's frame is one glued table to the db-ko grid."""


def _dbko_tables(got: Located) -> int:
    least = DB_KO.min_rows or {}
    return sum(1 for c in got.found if len(got.grid.by_kind(c).rows) >= least.get(c, 10 ** 6))


def _other_quads(img: np.ndarray, got: Located) -> Located:
    """Among other papers the chosen quad may be drawn on one table's own rules (the sheet's
    real sides hidden under a card and a note): the grid then misses tables. The other quads
    holding ruled content are tried; the one whose grid finds the most tables stays."""
    if got.page.search is None:
        return got
    for corners in alternative_corners(got.page.search, got.page.corners):
        page = image_to_page(img, corners=corners)
        grid = page_to_grid(page.gray)
        alt = Located(page, grid, _tables_found(grid))
        if len(alt.found) > len(got.found):
            page.notes[0] = "page: another quad holding tables (the first one's grid missed some)"
            got = alt
            if all(c in got.found for c in MAIN):
                break
    return got


FIT_TIE = 0.1
"""Forms whose shares of matched rules differ by less than this are told apart by the page's
column rules each leaves unexplained (`Fit.strays`), then by how close their row rules lie to the
page's: Konami's current form and its Latin-American edition share
their column widths and row pitch, and each matches most rules of the other (87-95 %)."""


def _as_form(page: PageImage, grid: Grid) -> Located | None:
    """The fixed form (`layouts.PRINTED_FORMS`) whose rules the page fits best, placed on it (`grid`: the
    db-ko grid stage's result on the page), or None when no form fits."""
    fits: list[tuple[float, float, PlacedForm, Layout]] = []
    for layout in FORMS:
        placed = place_form(page.gray, layout, grid.faint_masks, unknown_aspect=page.unknown_aspect)
        if placed is None:
            continue
        fit = placed.fit
        fits.append((fit.x_match * fit.y_match, _row_residual(page, grid, layout, fit), placed, layout))
    if not fits:
        return None
    top = max(f[0] for f in fits)
    # Among close fits, the form that leaves none of the page's column rules unexplained first
    # (the current form fits Genesys's page too, its PTS rules inside its name cells).
    _, _, placed, layout = min((f for f in fits if f[0] >= top - FIT_TIE),
                               key=lambda f: (f[2].fit.strays, f[1], -f[0]))
    form = finish_form(placed)  # its rules painted out: the chosen form's alone
    return Located(page, form, _tables_found(form), layout, placed.fit)


def _row_residual(page: PageImage, grid: Grid, layout: Layout, fit: Fit) -> float:
    """Mean distance (in the form's points) from the fitted form's row rules to the page's
    horizontal rules they land on (within a fifth of a row)."""
    horiz = grid.faint_masks[0] if grid.faint_masks is not None else line_masks(page.gray, faint_rules=True)[1]
    peaks = row_rule_peaks(horiz, fit.sx, fit.ox, layout)
    rules = np.array(sorted({v for t in layout.tables for v in t.row_rules()}))
    if peaks.size == 0 or fit.sy <= 0:
        return float("inf")
    d = np.abs((fit.oy + fit.sy * rules)[:, None] - peaks[None, :]).min(axis=1) / fit.sy
    near = d[d <= 0.2 * float(np.median([t.pitch for t in layout.tables]))]
    return float(near.mean()) if near.size else float("inf")


def find_tables(ctx: PageContext) -> None:
    """Page and grid stages, the page turned until a layout stands upright. A page with at
    least one deck table is a deck sheet and is read; a table the grid did not find becomes a
    review item (its lines are unread, not absent). Only a page with no deck table at all, in
    any turn, is refused."""
    image, note = downscale(ctx.image)
    best: Located | None = None
    best_turn = None
    for turn in TURNS:
        try:
            got = locate(turned(image, turn), ctx.is_scan)
        except cv2.error as exc:  # a library's failure on this page is no answer to the user
            if out_of_memory(exc):  # the worker's memory bound: its own error says so
                raise
            log.debug("%s: page stage failed: %s", ctx.label, exc, exc_info=True)
            raise UnreadableInput("input.ocr-stage-failed", file=ctx.label, stage="page") from None
        if best is None or (got.upright, len(got.found)) > (best.upright, len(best.found)):
            best, best_turn = got, turn
        if got.upright:
            break
    assert best is not None
    ctx.page, ctx.grid, ctx.found, ctx.layout, ctx.fit = best.page, best.grid, best.found, best.layout, best.fit
    ctx.frame = best.frame
    if not best.upright and not any(len(ctx.grid.by_kind(c).rows) >= MIN_DECK_ROWS for c in ctx.found):
        # Noise and other documents can show a small ruled block; a deck table is long.
        raise UnreadableInput("input.no-grid", file=ctx.label)
    if note:
        ctx.sheet.notes.append(note)
    if best_turn is not None:
        ctx.sheet.notes.append(f"page turned {TURN_NAMES[best_turn]}")
    if ctx.layout is not DB_KO:
        ctx.sheet.notes.append(f"layout: {ctx.layout.name}")
    ctx.sheet.notes.extend(ctx.page.notes + ctx.grid.notes)
    unread = []
    for column in COLUMNS:  # a printed table the grid missed: its lines are unread, not absent
        if column not in ctx.found:
            unread.append(column)
            ctx.sheet.review.append(ReviewFlag(
                section=SECTION_OF[column], reason=Reason.UNREADABLE_LINE,
                detail=f"{column} table not found on the page: its lines were not read"))
    for column in ctx.found:
        flag = cut_off_table(ctx.grid, column, ctx.layout) or off_page_rows(ctx.grid, column)
        if flag is not None:
            unread.append(column)
            ctx.sheet.review.append(flag)
    # What the judge should do about it, said once for the sheet.
    retake = layout_retake(ctx.page, unread, ctx.frame, ctx.is_scan)
    if retake is not None:
        ctx.sheet.review.append(retake)


def cut_off_table(grid: Grid, column: str, layout: Layout) -> ReviewFlag | None:
    """A table that ends before the layout's fewest rows was cut off (the photo's edge, a paper
    or a hand over the sheet): the rows past it are unread, and its last rule is no 합계 row —
    the row above it is a card row, so it is not read as the printed total."""
    table = grid.by_kind(column)
    least = (layout.min_rows or {}).get(column)
    if table is None or not least or not table.rows or table.rows[-1].row >= least:
        return None
    table.total = None
    seen = table.rows[-1].row
    return ReviewFlag(section=SECTION_OF[column], reason=Reason.UNREADABLE_LINE,
                      detail=f"{column} table cut off after row {seen} (a table has at least "
                             f"{least} rows): rows {seen + 1} on were not read")


def off_page_rows(grid: Grid, column: str) -> ReviewFlag | None:
    """Rows of a fitted form the photo's edge cut off (`Table.off_page`): unread, said so."""
    table = grid.by_kind(column)
    if table is None or not table.off_page:
        return None
    rows = table.off_page
    span = f"row {rows[0]}" if len(rows) == 1 else f"rows {rows[0]}–{rows[-1]}"
    return ReviewFlag(section=SECTION_OF[column], reason=Reason.UNREADABLE_LINE,
                      detail=f"{column} table: {span} outside the picture: not read")


def read_rows(ctx: PageContext) -> None:
    """Every row of every table found, with the column-level pen checks."""
    assert ctx.page is not None and ctx.grid is not None
    tess = ctx.tess = ctx.tess or Tesseract()
    # The Korean vocabulary, or the Latin-script one when a Latin-script database is loaded and
    # the page's names read as its names (`latin`).
    vocab = page_vocabulary(ctx.db, tess, name_cells(ctx.grid, ctx.found))
    if vocab.script != LATIN:
        vocab.model_syllables = tess.characters("kor")
    chroma = ink_chroma(ctx.page.color, ctx.grid.clean)
    hand_page = HandPage()
    for column in ctx.found:
        table = ctx.grid.by_kind(column)
        tctx = TableContext(grid=ctx.grid, page=ctx.page, table=table, column=column, tess=tess,
                            vocab=vocab, chroma=chroma, hand_filled=ctx.layout.fitted,
                            row_numbers=ctx.layout.row_numbers, hand_page=hand_page,
                            open_box=bool(ctx.layout.open_boxes))
        col_rows = []
        for cells in table.rows:
            try:
                got = read_row(tctx, cells)
            except cv2.error as exc:  # one row that breaks a library: that row is for the judge
                if out_of_memory(exc):
                    raise
                log.debug("%s: %s row %d failed: %s", ctx.label, column, cells.row, exc, exc_info=True)
                ctx.sheet.review.append(ReviewFlag(
                    section=SECTION_OF[column], reason=Reason.UNREADABLE_LINE,
                    detail=f"{column} row {cells.row} could not be read: check it on the sheet"))
                continue
            if got is not None:
                col_rows.append(got)
        mark_merged_rows(col_rows, table)
        mark_handwritten_after_strike(col_rows)
        if not ctx.layout.fitted:  # a printed sheet's names written by pen: how sure (`pen_names`)
            weigh_pen_names(col_rows, tess, vocab)
        ctx.rows.extend(col_rows)
    if ctx.layout.fitted:
        # the page's sure written lines show how its writer draws syllables: its doubtful ones
        # are weighed again by them (`page_hand`)
        second_pass(ctx.rows, vocab)


def check_fit(ctx: PageContext) -> None:
    """A fitted form whose rows read as its printed labels (`fit_check.label_rows`: the title
    'MONSTER CARDS' read as row 1) was placed rows off, and every line with it: its lines are
    not given (each would carry the card of another row), its tables are said unread, and the
    sheet asks for another photo (`retake`), as for tables not found."""
    if ctx.fit is None:
        return
    off = label_rows(ctx.rows, ctx.layout, printed_labels(FORMS))
    if not off:
        return
    ctx.rows = []
    ctx.rows_off = True
    seen = "; ".join(f"{column} row {row} reads as the printed '{label}'" for column, row, label in off[:3])
    for column in ctx.found:
        ctx.sheet.review.append(ReviewFlag(
            section=SECTION_OF[column], reason=Reason.UNREADABLE_LINE,
            detail=f"{column} table: the form's rows were placed rows off ({seen}): its lines were not read"))
    shown = ", ".join(f"'{label}'" for label in dict.fromkeys(label for _, _, label in off))
    cause = f"인쇄된 {shown} 줄이 카드 줄 자리에 읽힘: 줄 위치가 어긋남"
    item = next((r for r in ctx.sheet.review if r.reason == Reason.RETAKE), None)
    if item is not None:
        item.detail += f" ({cause})"
        return
    item = layout_retake(ctx.page, list(ctx.found), ctx.frame, ctx.is_scan)
    if item is not None:
        item.detail = item.detail.replace(" — ", f" ({cause}) — ", 1)
        ctx.sheet.review.append(item)


def check_rows(ctx: PageContext) -> None:
    """Page-level checks: pen counts, the printed totals, the header. A printed total or a
    header field that breaks a library is not read (as one that cannot be read)."""
    if ctx.rows_off:  # the totals and header boxes sit where the same fit put them: not read
        return
    mark_pen_counts(ctx.rows, ctx.sheet)
    written_totals: set[str] = set()  # total boxes with writing in them (read or not)
    with _stage_may_fail(ctx, "totals"):
        read_totals(ctx.grid, ctx.tess, ctx.sheet, main_box=ctx.layout is DB_KO, form=ctx.layout.fitted)
        if ctx.fit is not None:
            read_form_main_total(ctx.grid, ctx.fit, ctx.layout, ctx.tess, ctx.sheet)
        if ctx.layout.fitted and any(r.count_odds for r in ctx.rows):
            # counts written by hand, with the totals written beside them (`totals.settle_hand_counts`)
            written = form_total_odds(ctx.grid, ctx.fit, ctx.layout, ctx.sheet)
            settle_hand_counts(ctx.rows, written, ctx.sheet)
            written_totals = set(written)
    verdicts = cross_check_totals(ctx.rows, ctx.sheet, hand_filled=ctx.layout.fitted)
    if ctx.layout.fitted:
        # a written line whose reads, count and column total all agree needs no comparison
        accept_on_evidence(ctx.rows, verdicts, ctx.sheet, written_totals)
    if not ctx.rows:  # tables found and every row empty: a blank sheet, or ink too faint to see
        ctx.sheet.review.append(ReviewFlag(section=None, reason=Reason.UNREADABLE_LINE,
                                           detail="no deck line read on the sheet"))
    layout_item = next((r for r in ctx.sheet.review if r.reason == Reason.RETAKE), None)
    if layout_item is None:
        advise_retake(ctx)
    elif not ctx.is_scan and page_width_px(ctx) < RETAKE_PAGE_PX:
        # (one sheet-level retake item at most: the small page is said in it)
        layout_item.detail += f" (시트 폭이 사진에서 {page_width_px(ctx):.0f} px뿐: 더 가까이서)"
    if ctx.fit is not None:  # (db-ko's header was read before the rows: `read_dbko_header`)
        with _stage_may_fail(ctx, "header"):
            read_form_header(ctx.page.gray, ctx.fit, ctx.layout, ctx.tess, ctx.sheet,
                             written=written_form(ctx.rows))
        _header_read(ctx)


@contextlib.contextmanager
def _stage_may_fail(ctx: PageContext, stage: str):
    """A stage whose failure in a library (OpenCV refusing an image) leaves its values unread:
    noted, never raised to the user."""
    try:
        yield
    except cv2.error as exc:
        if out_of_memory(exc):
            raise
        log.debug("%s: %s stage failed: %s", ctx.label, stage, exc, exc_info=True)
        ctx.sheet.notes.append(f"{stage}: not read (an image step failed)")


WRITTEN_SHARE = 0.5
"""A form whose lines are at least this share written by hand was filled by hand: its header too
may be, and is read as handwriting when it does not read as print (a typed form's few lines
taken for handwriting — a font decksheet lacks, a soft photo — do not make it so)."""


def written_form(rows: list[RowRead]) -> bool:
    return bool(rows) and sum(r.handwritten for r in rows) >= WRITTEN_SHARE * len(rows)


READING_DOUBTS = frozenset({Reason.UNRESOLVED_NAME, Reason.UNCERTAIN_NAME, Reason.AMBIGUOUS_NAME,
                            Reason.COUNT_UNCLEAR})
"""Flags that say the print itself was hard to read (not a pen mark on it)."""
RETAKE_SHARE = 0.4
RETAKE_MIN_ROWS = 8
"""With reading doubts on this share of at least this many printed rows…"""
RETAKE_PAGE_PX = 1000
"""…on a page less than this many pixels wide in the image (≈ 120 dpi over A4), the image is
the problem: generated and fixture photos with the page ≥ 997 px wide had at most 1 doubtful line
in 20; a sheet 815 px wide in the frame had 17 of 23. (A clean scan or photo of a sheet in a font
the renderer lacks has many doubts too, and a retake would not help it.)"""


def page_width_px(ctx: PageContext) -> float:
    """The page's width in the image it came from (a scan: the image is the page)."""
    c = ctx.page.corners if ctx.page is not None else None
    if c is None:  # a scan is the page; a photo read as a whole: the paper in it
        return float(min(ctx.image.shape[:2])) if ctx.is_scan else paper_width_px(ctx.image)
    return float(np.mean([np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3])]))


def advise_retake(ctx: PageContext) -> None:
    """A sheet-level review item asking for a closer photo or a finer scan when the page is
    small in its image and most printed lines could not be read with confidence: a judge at the
    desk retakes it in seconds, instead of reviewing twenty lines one by one. Handwritten lines
    are left out (a hand-filled form is flagged by design; a better photo would not change it)."""
    printed = [r for r in ctx.rows if not r.handwritten and not r.struck_row]
    doubtful = [r for r in printed if READING_DOUBTS.intersection(r.flags)]
    if len(printed) < RETAKE_MIN_ROWS or len(doubtful) < RETAKE_SHARE * len(printed):
        return
    width = page_width_px(ctx)
    if width >= RETAKE_PAGE_PX:
        return
    how = "다시 스캔해 주십시오 (200 dpi 이상)" if ctx.is_scan else "시트가 화면을 가득 채우도록 가까이서 다시 찍어 주십시오"
    ctx.sheet.review.append(ReviewFlag(
        section=None, reason=Reason.RETAKE_PHOTO,
        detail=f"인쇄된 줄 {len(printed)}개 중 {len(doubtful)}개를 확실히 읽지 못함, 시트 폭이 사진에서 "
               f"{width:.0f} px뿐 — {how}"))


def report(ctx: PageContext) -> None:
    """Rows → lines and review items (crops saved), and the debug overlay when asked."""
    for r in ctx.rows:
        if r.struck_row:
            ctx.sheet.review.append(struck_review(r, ctx.grid, ctx.page, ctx.options, ctx.label))
        else:
            ctx.sheet.lines.append(to_read_line(r, ctx.grid, ctx.page, ctx.options, ctx.label))
    if ctx.rows:
        ctx.sheet.notes.append(attempts_note(ctx.rows))
    if ctx.sheet.lines:  # (a sheet with no line at all is flagged by check_rows)
        ctx.sheet.check_main_found(f"layout {ctx.layout.name}")
    if ctx.options.debug_dir:
        from scanner.ocr.debug import write_debug
        write_debug(Path(ctx.options.debug_dir), ctx.label, ctx.page, ctx.grid)
