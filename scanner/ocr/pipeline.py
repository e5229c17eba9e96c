"""Photos and scans of deck sheets → `SheetRead` (reader "ocr").

Stages, each in its own module, run in order on one `PageContext`:
orient (downscale, turns) → page (find, warp, flatten, deskew) → grid (db-ko tables by their
rules) or form_fit (a layout of `layouts` placed by its rules) → rows (per row: strike and pen
signs, name OCR → closed-vocabulary match checked by rendering, count cell) → corrections
(merged rows, hand-written rows and counts) → totals (the printed totals cross-checked) →
header (name, ID) → lines (flags, crops, review items).
Every doubt becomes a flag on the line: a wrong unflagged line is the worst outcome.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from scanner.errors import UnreadableInput
from scanner.model import ReviewFlag, SheetRead
from scanner.ocr.corrections import (ink_chroma, mark_handwritten_after_strike, mark_merged_rows,
                                     mark_pen_counts)
from scanner.ocr.engine import Tesseract
from scanner.ocr.form_fit import Fit, fit_form
from scanner.ocr.grid import Grid, page_to_grid
from scanner.ocr.layouts import DB_KO, FORMS, Layout
from scanner.ocr.header import read_form_header, read_header
from scanner.ocr.lines import SECTION_OF, struck_review, to_read_line
from scanner.ocr.names import Vocabulary
from scanner.ocr.orient import TURN_NAMES, TURNS, downscale, turned
from scanner.ocr.page import PageImage, image_to_page, load_image
from scanner.ocr.page_alternatives import alternative_corners
from scanner.ocr.rasterize import MAX_PAGES, pdf_page_count, pdf_page_image
from scanner.ocr.rows import RowRead, TableContext, read_row
from scanner.ocr.totals import cross_check_totals, read_form_main_total, read_totals

if TYPE_CHECKING:
    from card_db.cdb import CardDatabase
    from scanner.inputs.options import ReadOptions

COLUMNS = ("monster", "spell", "trap", "extra", "side")
MAIN = ("monster", "spell", "trap")
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
    tess: Tesseract | None = None
    rows: list[RowRead] = field(default_factory=list)
    sheet: SheetRead = field(default_factory=lambda: SheetRead(reader="ocr"))


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
    read_rows(ctx)
    check_rows(ctx)
    report(ctx)
    return ctx


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

    @property
    def upright(self) -> bool:
        """A whole layout found the right way up: the db-ko sheet's three main columns taller
        than the extra | side tables under them (upside down, the short tables come first), or
        the form fitted with its grey title rows above row 1."""
        if self.fit is not None:
            return True
        if not all(c in self.found for c in MAIN):
            return False
        lower = [len(self.grid.by_kind(c).rows) for c in ("extra", "side") if c in self.found]
        return not lower or min(len(self.grid.by_kind(c).rows) for c in MAIN) >= max(lower)


def locate(img: np.ndarray, is_scan: bool) -> Located:
    """Page and grid stages on one image: the db-ko grid, else Konami's form."""
    page = image_to_page(img, is_scan=is_scan)
    grid = page_to_grid(page.gray)
    got = Located(page, grid, _tables_found(grid))
    if all(c in got.found for c in MAIN):
        return got
    # Not the db-ko sheet's three columns: maybe Konami's form (one frame, count left).
    form = _as_form(page, grid)
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
    return got


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


def _as_form(page: PageImage, grid: Grid) -> Located | None:
    """The fixed form (`layouts.FORMS`) whose rules the page fits best, placed on it (`grid`: the
    db-ko grid stage's result on the page), or None when no form fits."""
    best: tuple[float, Located] | None = None
    for layout in FORMS:
        fitted = fit_form(page.gray, layout, grid.faint_masks)
        if fitted is None:
            continue
        fit = fitted[1]
        score = fit.x_match * fit.y_match
        if best is None or score > best[0]:
            best = (score, Located(page, fitted[0], _tables_found(fitted[0]), layout, fit))
    return None if best is None else best[1]


def find_tables(ctx: PageContext) -> None:
    """Page and grid stages, the page turned until a layout stands upright. A page with at
    least one deck table is a deck sheet and is read; a table the grid did not find becomes a
    review item (its lines are unread, not absent). Only a page with no deck table at all, in
    any turn, is refused."""
    image, note = downscale(ctx.image)
    best: Located | None = None
    best_turn = None
    for turn in TURNS:
        got = locate(turned(image, turn), ctx.is_scan)
        if best is None or (got.upright, len(got.found)) > (best.upright, len(best.found)):
            best, best_turn = got, turn
        if got.upright:
            break
    assert best is not None
    ctx.page, ctx.grid, ctx.found, ctx.layout, ctx.fit = best.page, best.grid, best.found, best.layout, best.fit
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
    for column in COLUMNS:  # a printed table the grid missed: its lines are unread, not absent
        if column not in ctx.found:
            ctx.sheet.review.append(ReviewFlag(
                section=SECTION_OF[column], reason="unreadable-line",
                detail=f"{column} table not found on the page: its lines were not read"))
    for column in ctx.found:
        flag = cut_off_table(ctx.grid, column, ctx.layout)
        if flag is not None:
            ctx.sheet.review.append(flag)


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
    return ReviewFlag(section=SECTION_OF[column], reason="unreadable-line",
                      detail=f"{column} table cut off after row {seen} (a table has at least "
                             f"{least} rows): rows {seen + 1} on were not read")


def read_rows(ctx: PageContext) -> None:
    """Every row of every table found, with the column-level pen checks."""
    assert ctx.page is not None and ctx.grid is not None
    tess = ctx.tess = Tesseract()
    vocab = Vocabulary.build(ctx.db)
    vocab.model_syllables = tess.characters("kor")
    chroma = ink_chroma(ctx.page.color, ctx.grid.clean)
    for column in ctx.found:
        table = ctx.grid.by_kind(column)
        tctx = TableContext(grid=ctx.grid, page=ctx.page, table=table, column=column, tess=tess,
                            vocab=vocab, chroma=chroma, hand_filled=ctx.layout.fitted,
                            row_numbers=ctx.layout.row_numbers)
        col_rows = [r for r in (read_row(tctx, cells) for cells in table.rows) if r is not None]
        mark_merged_rows(col_rows, table)
        mark_handwritten_after_strike(col_rows)
        ctx.rows.extend(col_rows)


def check_rows(ctx: PageContext) -> None:
    """Page-level checks: pen counts, the printed totals, the header."""
    mark_pen_counts(ctx.rows, ctx.sheet)
    read_totals(ctx.grid, ctx.tess, ctx.sheet, main_box=ctx.layout is DB_KO, form=ctx.layout.fitted)
    if ctx.fit is not None:
        read_form_main_total(ctx.grid, ctx.fit, ctx.layout, ctx.tess, ctx.sheet)
    cross_check_totals(ctx.rows, ctx.sheet, hand_filled=ctx.layout.fitted)
    if not ctx.rows:  # tables found and every row empty: a blank sheet, or ink too faint to see
        ctx.sheet.review.append(ReviewFlag(section=None, reason="unreadable-line",
                                           detail="no deck line read on the sheet"))
    advise_retake(ctx)
    if ctx.layout is DB_KO:
        read_header(ctx.grid, ctx.tess, ctx.sheet)
    elif ctx.fit is not None:
        read_form_header(ctx.page.gray, ctx.fit, ctx.layout, ctx.tess, ctx.sheet)


READING_DOUBTS = frozenset({"unresolved-name", "uncertain-name", "ambiguous-name", "count-unclear"})
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
    if c is None:
        return float(min(ctx.image.shape[:2]))
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
        section=None, reason="retake-photo",
        detail=f"인쇄된 줄 {len(printed)}개 중 {len(doubtful)}개를 확실히 읽지 못함, 시트 폭이 사진에서 "
               f"{width:.0f} px뿐 — {how}"))


def report(ctx: PageContext) -> None:
    """Rows → lines and review items (crops saved), and the debug overlay when asked."""
    for r in ctx.rows:
        if r.struck_row:
            ctx.sheet.review.append(struck_review(r, ctx.grid, ctx.page, ctx.options, ctx.label))
        else:
            ctx.sheet.lines.append(to_read_line(r, ctx.grid, ctx.page, ctx.options, ctx.label))
    if ctx.options.debug_dir:
        from scanner.ocr.debug import write_debug
        write_debug(Path(ctx.options.debug_dir), ctx.label, ctx.page, ctx.grid)
