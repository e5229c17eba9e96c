"""The printed totals (합계 per column, extra, side, 메인 덱 합계) read and checked against the
counts read in each column."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import cv2
import numpy as np

from scanner.model import ReviewFlag, SheetRead
from scanner.ocr.engine import Tesseract
from scanner.ocr.form_fit import Fit
from scanner.ocr.grid import Box, Grid
from scanner.ocr.layouts import Layout
from scanner.ocr.count_hand import page_odds
from scanner.ocr.counts import COUNT_VALUES, H_NORM, binarize_cell, group_components
from scanner.ocr.hand_digits import digit_probs
from scanner.ocr.ink import trim_to_ink, true_runs
from scanner.ocr.rows import RowRead
from scanner.ocr.thresholds import COUNT_ACCEPT, DECIMAL, INK_GLYPH, INK_RULE, MASK_ON, MAX_PER_LINE, SURE_COUNT
from scanner.vocab import COLUMNS, MAIN_COLUMNS, Reason
UNSURE_EXPLAIN = 2
"""At most this many unsure counts may explain a column total that does not add up (more
unknowns would make any total explainable, and the total no check at all)."""
DIGITS_CONFIDENCE = 0.5
"""A printed total read below this Tesseract confidence is not used."""


@dataclass(frozen=True)
class TotalsTuning:
    """The numbers of the totals stage's boxes and digits, one home each (issue 32: per-stage
    tuning; its decisions' thresholds are the documented module constants)."""

    digit_height: tuple[int, int] = (40, 48)
    """A printed number less than this high (px) is scaled to that height for Tesseract."""
    min_cell_px: int = 8
    """A total cell smaller than this either way holds no number to read…"""
    min_digit_px: int = 8
    """…nor does one with fewer digit pixels."""
    label_gap: float = 0.6
    """A blank run at least this share of the number's height wide parts a number from ink left
    of it (`last_ink_group`)."""
    digit_overlap: float = 0.3
    """Pieces overlapping in x by more than this share of the narrower are one broken digit."""
    main_region: tuple[int, int, int] = (3, 4, 10)
    """The 메인 덱 합계 box is looked for under the trap column, right of its first 1/(this), from
    this many pixels below it to as many above the lower tables, reaching this far right."""
    main_region_min: tuple[int, int] = (20, 40)
    """…in a region at least this high and wide (px)…"""
    main_box_h: tuple[int, float] = (20, 0.9)
    """…as a framed box at least this high (px) and at most this share of the region…"""
    main_box_w: tuple[float, float] = (1.2, 0.6)
    """…at least this many times its height wide and at most this share of the region's width…"""
    main_box_inset: int = 3
    """…read this far inside its frame…"""
    main_read_inset: int = 5
    """…and cut a little further in for the digits."""
    form_box_inset: int = 4
    """A form's main-total box is read this far inside its fitted outline."""


TOTALS = TotalsTuning()


def read_digits(tess: Tesseract, img: np.ndarray, tuning: TotalsTuning = TOTALS) -> int | None:
    """A printed number of 1-3 digits, or None when Tesseract is not confident. A cell that
    does not read is read again as its number alone (`last_ink_group`, with paper before it) by
    the form cells' digit reader (`read_form_digits`: digits picked out, read at several
    heights, which must agree): a 합계 printed under the table, unruled, has its count column
    found by the text's gap, the label's last letter reaches into it, and a soft photo's bold
    digits do not read with it."""
    value = _sure_digits(tess, img, tuning)
    if value is None:
        alone = last_ink_group(img, tuning)
        if alone is not None:
            pad = alone.shape[0] // 4 + 1
            value = read_form_digits(tess, cv2.copyMakeBorder(alone, 0, 0, pad, 0, cv2.BORDER_CONSTANT,
                                                              value=255))
    return value


def _sure_digits(tess: Tesseract, img: np.ndarray, tuning: TotalsTuning = TOTALS) -> int | None:
    trimmed = trim_to_ink(img)
    if trimmed is None:
        return None
    low, height = tuning.digit_height
    if trimmed.shape[0] < low:
        s = height / trimmed.shape[0]
        trimmed = cv2.resize(trimmed, None, fx=s, fy=s, interpolation=cv2.INTER_CUBIC)
    return sure_number(tess, trimmed)


def last_ink_group(img: np.ndarray, tuning: TotalsTuning = TOTALS) -> np.ndarray | None:
    """The cell from the blank gap before its rightmost ink on (a gap wider than `label_gap`
    of that ink's height), or None when no such gap parts the ink."""
    ink = img < INK_GLYPH
    runs = true_runs(ink.any(axis=0))
    if len(runs) < 2:
        return None
    group = len(runs) - 1
    while group > 0:
        rows = np.flatnonzero(ink[:, runs[group][0]:runs[-1][1]].any(axis=1))
        if runs[group][0] - runs[group - 1][1] >= tuning.label_gap * (rows[-1] - rows[0] + 1):
            return img[:, runs[group][0]:]
        group -= 1
    return None


def sure_number(tess: Tesseract, img: np.ndarray) -> int | None:
    """Tesseract's read of a prepared number image: 1-3 digits read confidently, or None."""
    got = tess.read(img, lang="eng", psm=7, whitelist="0123456789")
    t = got.text.replace(" ", "")
    return int(t) if re.fullmatch(r"[0-9]{1,3}", t) and got.confidence > DIGITS_CONFIDENCE else None


FORM_H = 64
"""A form's total cell is scaled to this height before its digits are picked out."""
FORM_EDGE = 3
"""Ink within this many pixels (at FORM_H) of the cell's edge is its frame, not a digit."""
FORM_DIGIT_H = 0.15
"""A digit is at least this share of the cell height (the main total's box is twice as tall
as its number)…"""
FORM_DIGIT_TWIN = 0.6
"""…and at least this share of the tallest glyph's height (digits of one number are one height;
a speck or a bit of the fill's edge is lower)…"""
FORM_DIGIT_LINE = 0.75
"""…and stands this share of its height within the tallest glyph's rows."""


def form_total_digits(cell: np.ndarray) -> np.ndarray | None:
    """The digits of a Konami form's total cell, black on white, or None when there are none.

    The form's TOTAL cells are filled grey and framed: on a soft photo the frame, the fill's
    edges and the bar under the number stay in the crop, and Tesseract reads nothing (`23`
    framed on a dark 120 dpi page) or a wrong number (`12` read `2` beside the bar). The
    background is flattened (`counts.binarize_cell`), ink touching the cell's edge (frame,
    fill edges, bar) is dropped, and so is ink too small to be a digit. The ink level is then
    set again without that other ink: the black bar under the number sets a level a thin stroke
    of a soft grey scan does not reach (a `4` kept only its stem: `24` read `23`)."""
    if cell is None or cell.size == 0 or min(cell.shape[:2]) < TOTALS.min_cell_px:
        return None
    k = FORM_H / cell.shape[0]
    g = cv2.resize(cell, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC)
    ink, digits = _form_digit_ink(g)
    if digits is None:
        return None
    other = _large_parts(ink & ~digits, FORM_DIGIT_H * g.shape[0])
    if other.any():
        # the other ink (bar, frame; specks stay, they may be a digit's faint stroke) painted
        # out with the paper's level around the digits
        cover = cv2.dilate(other.astype(np.uint8), np.ones((7, 7), np.uint8)).astype(bool)
        paper = g[~cover & ~cv2.dilate(ink.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)]
        if paper.size:
            g2 = g.copy()
            g2[cover & ~digits] = int(np.median(paper))
            again = _form_digit_ink(g2)[1]
            if again is not None:
                digits = again
    ys, xs = np.nonzero(digits)
    if xs.size < TOTALS.min_digit_px:
        return None
    digits = digits[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    out = cv2.copyMakeBorder(np.where(digits, 0, 255).astype(np.uint8), 10, 10, 10, 10,
                             cv2.BORDER_CONSTANT, value=255)
    s = FORM_READ_HEIGHTS[0] / digits.shape[0]
    return cv2.GaussianBlur(cv2.resize(out, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), (3, 3), 0)


def _large_parts(ink: np.ndarray, size: float) -> np.ndarray:
    """The components of `ink` at least `size` wide or high."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    big = (stats[:, cv2.CC_STAT_WIDTH] >= size) | (stats[:, cv2.CC_STAT_HEIGHT] >= size)
    big[0] = False
    return big[lab]


def _form_digit_ink(g: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(all ink, the ink of digit-like components or None) of a total cell at FORM_H."""
    ink = binarize_cell(g)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    h, w = ink.shape
    inside = np.zeros(n, bool)
    for i in range(1, n):
        x, y, bw, bh = (int(v) for v in stats[i][:4])
        inside[i] = not (x < FORM_EDGE or y < FORM_EDGE or x + bw > w - FORM_EDGE or y + bh > h - FORM_EDGE)
    # a digit broken into pieces (the stem of a 4 and its soft diagonal) is measured whole:
    # pieces that overlap in x are one glyph (a flat bar or speck is no piece of a digit)
    tall = inside & (stats[:, cv2.CC_STAT_HEIGHT] >= FORM_DIGIT_H * h)
    groups: list[tuple[int, int, int, int, list[int]]] = []
    for i in sorted(np.flatnonzero(tall), key=lambda i: stats[i][0]):
        x, y, bw, bh = (int(v) for v in stats[i][:4])
        if groups:
            gx0, gy0, gx1, gy1, ids = groups[-1]
            if min(gx1, x + bw) - max(gx0, x) > TOTALS.digit_overlap * min(gx1 - gx0, bw):
                groups[-1] = (gx0, min(gy0, y), max(gx1, x + bw), max(gy1, y + bh), ids + [i])
                continue
        groups.append((x, y, x + bw, y + bh, [i]))
    if not groups:
        return ink, None
    _, ty0, _, ty1, _ = max(groups, key=lambda g: g[3] - g[1])
    keep = np.zeros(n, bool)
    for _, gy0, _, gy1, ids in groups:
        # digits of one number stand on one line: a bit of the frame's corner beside them (a
        # warped photo's) reaches far above or below the tallest digit
        within = min(gy1, ty1) - max(gy0, ty0)
        if gy1 - gy0 >= max(FORM_DIGIT_H * h, FORM_DIGIT_TWIN * (ty1 - ty0)) and within >= FORM_DIGIT_LINE * (gy1 - gy0):
            keep[ids] = True
    return ink, keep[lab]


FORM_READ_HEIGHTS = (48, 40)
"""The digits of a form's total are read at these heights (px): Tesseract misses some numbers
at one height that it reads surely at another (`44` read nothing at 48, 0.96 at 40), and now
and then reads one wrong at one height only (`15` read `18` at 40)."""


def read_form_digits(tess: Tesseract, cell: np.ndarray) -> int | None:
    """A typed number of 1-3 digits in a form's total cell (`form_total_digits`), or None:
    the number read surely at one or more of `FORM_READ_HEIGHTS`, and no other number read
    surely at another (a disagreement leaves the total unread: it then checks nothing)."""
    digits = form_total_digits(cell)
    if digits is None:
        return None
    reads = set()
    for height in FORM_READ_HEIGHTS:
        k = height / FORM_READ_HEIGHTS[0]  # the digits stand FORM_READ_HEIGHTS[0] high
        img = digits if k == 1 else cv2.resize(digits, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        got = sure_number(tess, img)
        if got is not None:
            reads.add(got)
    return reads.pop() if len(reads) == 1 else None


def read_totals(grid: Grid, tess: Tesseract, sheet: SheetRead, main_box: bool = True,
                form: bool = False) -> None:
    """Printed 합계 cells: per column, extra, side, and (`main_box`) the db-ko sheet's
    메인 덱 합계 box under the trap column; `form`: the cells are a Konami form's framed grey
    TOTAL cells (`read_form_digits`)."""
    read = read_form_digits if form else read_digits
    for column in COLUMNS:
        t = grid.by_kind(column)
        if t is None or t.total is None:
            continue
        value = read(tess, t.total.crop(grid.clean, inset=4))
        if column in MAIN_COLUMNS:
            sheet.column_totals[column] = value
        else:
            sheet.printed_totals[column] = value
    trap, lower = grid.by_kind("trap"), [grid.by_kind("extra"), grid.by_kind("side")]
    if trap is None or not main_box:
        return
    lower_top = min((t.box.y0 for t in lower if t is not None), default=grid.clean.shape[0])
    part, below, right = TOTALS.main_region
    box = main_total_box(grid.clean, Box(trap.box.x0 + trap.box.w // part, trap.box.y1 + below,
                                         trap.box.x1 + right, lower_top - below))
    if box is not None:
        sheet.printed_totals["main"] = read_digits(tess, box.crop(grid.clean, inset=TOTALS.main_read_inset))


def read_form_main_total(grid: Grid, fit: Fit, layout: Layout, tess: Tesseract, sheet: SheetRead) -> None:
    """The main deck total of a fixed-layout form, from its box in the layout."""
    if "main_total" not in layout.boxes:
        return
    x0, y0, x1, y1 = layout.boxes["main_total"]  # under the box's printed label
    box = Box(int(fit.x(x0)), int(fit.y(y0)), int(fit.x(x1)), int(fit.y(y1)))
    sheet.printed_totals["main"] = read_form_digits(tess, box.crop(grid.clean, inset=TOTALS.form_box_inset))


def main_total_box(page: np.ndarray, region: Box, tuning: TotalsTuning = TOTALS) -> Box | None:
    """The small framed box of 메인 덱 합계 (right of its label, under the trap column)."""
    if region.h < tuning.main_region_min[0] or region.w < tuning.main_region_min[1]:
        return None
    sub = region.crop(page)
    ink = (sub < INK_RULE).astype(np.uint8) * MASK_ON
    contours, _ = cv2.findContours(ink, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best = None
    for c in contours:
        x, y, w, h = cv2.boundingRect(c)
        least_h, most_h = tuning.main_box_h
        least_w, most_w = tuning.main_box_w
        if h > most_h * region.h or h < least_h or w < least_w * h or w > most_w * region.w:
            continue
        if best is None or x > best[0]:
            best = (x, y, w, h)
    if best is None:
        return None
    x, y, w, h = best
    m = tuning.main_box_inset
    return Box(region.x0 + x + m, region.y0 + y + m, region.x0 + x + w - m, region.y0 + y + h - m)


def cross_check_totals(rows: list[RowRead], sheet: SheetRead, hand_filled: bool = False) -> dict[str, str]:
    """Check each column's counts against its printed total.

    The printed totals were printed BEFORE any pen correction, so they are compared with the
    column as printed: the untouched rows plus the old counts of struck rows and struck counts
    (hand-written new rows left out). A match confirms the untouched counts. When an old count
    could not be read, a total that the unknown olds (1..3 each) can explain leaves only the
    unsure counts flagged, and so does a total that one or two unsure untouched counts can
    explain; a column nothing explains gets every count flagged (the printed
    total may be the wrong one, a judge decides). A total equal to the corrected sum (the
    writer updated the total too) also confirms.
    On a form players fill by hand (`hand_filled`), a hand-written row is no correction: the
    player wrote it, and the total, with the rest. A total no column of these lines can make
    (fewer than one card a line, more than three) is a misread total and checks nothing.
    The main deck's printed total can then settle one main column (`main_total_confirms`).
    Returns each column's verdict: 'confirmed' (its lines add up to its total), 'unchecked' or
    'mismatch'; a column with no line has none.
    """
    verdicts: dict[str, str] = {}
    drop_impossible_main_total(rows, sheet)
    for column in COLUMNS:
        printed = (sheet.column_totals.get(column) if column in MAIN_COLUMNS
                   else sheet.printed_totals.get(column))
        col = [r for r in rows if r.column == column]
        if not col:
            if printed:  # a printed total over a column read empty: its lines were not read
                sheet.review.append(ReviewFlag(
                    section="main" if column in MAIN_COLUMNS else column, reason=Reason.UNREADABLE_LINE,
                    detail=f"{column}: printed total {printed} but no line read in the column"))
            continue
        kept = [r for r in col if not r.struck_row]
        untouched = [r for r in kept if not r.count_struck and (hand_filled or not r.handwritten)]
        if (printed is not None and len(untouched) == len(col)
                and not len(col) <= printed <= MAX_PER_LINE * len(col)):
            sheet.notes.append(f"{column}: printed total read as {printed}, impossible for "
                               f"{len(col)} lines: not used")
            printed = None
        corrected = [r for r in col if r.struck_row or r.count_struck]
        after = sum(r.count or 0 for r in kept)
        if printed is None:
            verdict = "unchecked"
        elif after == printed and not any(r.count is None for r in kept):
            verdict = "confirmed"
        else:
            base = sum(r.count or 0 for r in untouched)
            olds = [old_count(r) for r in corrected]
            known = [o for o in olds if o is not None]
            unknown = len(olds) - len(known)
            unsure = [r for r in untouched if r.count is None or r.count_conf < SURE_COUNT]
            sure = sum(r.count or 0 for r in untouched if r.count is not None and r.count_conf >= SURE_COUNT)
            # On the form a row with neither a card nor a count read as one may be no line at
            # all (a sliver of a bent rule read as junk in both cells: `ㅣ`, and a `1` far from
            # every digit): it may add nothing to the total. It stays flagged as unresolved.
            floor = sum(1 for r in unsure
                        if not (hand_filled and Reason.UNRESOLVED_NAME in r.flags
                                and (r.count is None or r.count_conf < COUNT_ACCEPT)))
            if (not corrected and 0 < len(unsure) <= UNSURE_EXPLAIN
                    and floor <= printed - sure <= MAX_PER_LINE * len(unsure)):
                # A misread unsure count explains the total: it alone is flagged (sure counts
                # stand, as they do with no total at all).
                verdict = "unchecked"
            elif any(r.count is None for r in untouched):
                verdict = "mismatch"
            elif unknown == 0 and corrected and base + sum(known) == printed:
                verdict = "confirmed"
            elif corrected and len(corrected) <= printed - base <= MAX_PER_LINE * len(corrected):
                verdict = "unchecked"  # the corrections can explain the total, but not pin it
            else:
                verdict = "mismatch"
            if verdict != "confirmed":
                sheet.notes.append(f"{column}: counts sum to {after} ({base} untouched, "
                                   f"{len(corrected)} corrected), printed total {printed}")
        verdicts[column] = verdict
    main_total_confirms(rows, sheet, verdicts)
    for column, verdict in verdicts.items():
        kept = [r for r in rows if r.column == column and not r.struck_row]
        if verdict == "unchecked":
            # No usable total: only a printed count read with high confidence stands.
            for r in kept:
                if r.count_conf < SURE_COUNT and Reason.COUNT_UNCLEAR not in r.flags:
                    r.flags.append(Reason.COUNT_UNCLEAR)
        elif verdict == "mismatch":
            for r in kept:
                if Reason.COLUMN_TOTAL_MISMATCH not in r.flags:
                    r.flags.append(Reason.COLUMN_TOTAL_MISMATCH)
    return verdicts


def drop_impossible_main_total(rows: list[RowRead], sheet: SheetRead) -> None:
    """A main total no main deck of these lines can make (fewer than one card a line, more than
    three) is a misread, as a column's (a hand-written `42` read `4`): not used, so it neither
    checks the lines nor stands as the sheet's printed total. Only while every main line is as
    printed (a struck row or count may make the lines more than the cards)."""
    main_total = sheet.printed_totals.get("main")
    main = [r for r in rows if r.column in MAIN_COLUMNS]
    if main_total is None or not main or any(r.struck_row or r.count_struck for r in main):
        return
    if not len(main) <= main_total <= MAX_PER_LINE * len(main):
        sheet.notes.append(f"main: printed total read as {main_total}, impossible for {len(main)} "
                           f"lines: not used")
        sheet.printed_totals["main"] = None


def main_total_confirms(rows: list[RowRead], sheet: SheetRead, verdicts: dict[str, str]) -> None:
    """The main deck's printed total settles the one main column its own total did not confirm
    (read wrong: `24` read `23`; or unread): when the other two main columns are confirmed by
    their own totals and the main total equals the sum of every main line, that column's sum is
    the main total less theirs, which its lines make. A count misread in that column would need
    the main total misread to the same wrong sum. Never with a pen correction in the main deck
    (the printed totals are from before it) or a count unread."""
    main_total = sheet.printed_totals.get("main")
    # a column with no line is confirmed only by its own total read as 0
    state = {c: verdicts.get(c, "confirmed" if sheet.column_totals.get(c) == 0 else "unread")
             for c in MAIN_COLUMNS}
    open_ = [c for c in MAIN_COLUMNS if state[c] != "confirmed"]
    if main_total is None or len(open_) != 1 or open_[0] not in verdicts:
        return
    main = [r for r in rows if r.column in MAIN_COLUMNS]
    if any(r.struck_row or r.count_struck or r.count is None for r in main):
        return
    if sum(r.count for r in main) != main_total:
        return
    verdicts[open_[0]] = "confirmed"
    sheet.notes.append(f"{open_[0]}: its printed total does not check its lines; the main total "
                       f"{main_total} and the other columns' totals do")


def old_count(r: RowRead) -> int | None:
    """What a corrected row counted as printed: a struck row's count, a struck count's old digit."""
    if r.struck_row and not r.count_struck:
        return r.count if r.count in (1, 2, 3) else None
    return r.count_old if r.count_old in (1, 2, 3) else None


# ------------------------------------------------------------------ totals written by hand

TYPED_TOTAL_TRUST = 0.9
"""Odds of a total Tesseract read surely (`read_form_digits`): typed, or a clear hand."""
TOTAL_SLIP = 0.1
"""How likely a written total is not what its lines add up to (misread, or the player's own
slip): the lines' own odds then stand without it."""
LEAST_ODDS = 1e-3
"""A count or total value no likelier than this is still possible (no odds are ever zero)."""


@dataclass
class TotalOdds:
    """How likely each value of one written total is."""

    odds: dict[int, float]
    source: str
    """'typed' (Tesseract read it surely) or 'hand' (the hand-digit reader)."""

    @property
    def best(self) -> int | None:
        return max(self.odds, key=self.odds.get) if self.odds else None


@dataclass(frozen=True)
class HandTotalTuning:
    """How the digits of a total written by hand are cut out of the form.

    A written total fills its small framed box and spills over it (tops and feet cut off by a
    crop of the box alone, 1 total in 2 lost on the tuning faces), its digits often touch (a
    brush `21` is one blot), and rule remnants, the grey fill's edges and the bar under the box
    lie about. The box is cut with a margin, ink that is a long thin line is dropped, glyphs
    are those whose middle lies in the box, and a glyph as wide as two digits is read both
    whole and cut in two at its thinnest column."""

    margin: float = 0.4
    """Of the box's height, taken around it."""
    fill_margin: float = 12.0
    """Grey levels under the box's fill (its median) that still count as fill, not ink."""
    line_thin: float = 0.1
    """A part at most this share of the box's height thick…"""
    line_long: float = 0.55
    """…and at least this share of the box's width (a horizontal line) or height (a vertical
    one, beside the box's edge) long is a rule or bar, no digit."""
    edge: float = 0.15
    """A vertical line within this share of the box's width of its left or right edge is its frame."""
    digit_h: float = 0.3
    """A digit stands at least this share of the box's height…"""
    twin: float = 0.55
    """…and this share of the tallest glyph's height (a speck, a dot, a cut-off foot is lower)."""
    inside: float = 0.1
    """A part belongs to the box when its middle lies in it grown by this share of its size…"""
    speck: float = 0.15
    """…and it is at least this share of the box's height long (the dashes a grey fill's edge
    leaves, JPEG grain and dots are shorter; a digit's loose bar is longer)."""
    split_from: float = 0.85
    """A glyph wider than this × its height may be two digits that touch…"""
    split_sure: float = 1.35
    """…and from this width on is taken for two (odds of the cut rise linearly in between)."""
    split_band: tuple[float, float] = (0.25, 0.75)
    """The cut is sought at the glyph's thinnest columns within this share of its width…"""
    cuts: int = 3
    """…at this many of them, each a way of reading it, equally likely."""
    digit_least: float = 0.02
    """A digit no likelier than this is left out of a number's odds (products of the digits')."""
    most_digits: int = 2
    """A deck total has one or two digits."""
    main_label: float = 0.3
    """The top share of the main deck total's box that holds its printed label (the number is
    written under it)."""
    least_box: int = 6
    """Pixels a total's box (and the region cut around it) must have on each side to be read."""
    least_band: int = 3
    """Columns the band a touching pair is cut in must span."""
    least_part: int = 8
    """Ink pixels each half of a cut glyph must hold to be a digit."""


HAND_TOTAL = HandTotalTuning()


def digit_odds(mask: np.ndarray, least: float = HAND_TOTAL.digit_least) -> dict[int, float]:
    """How likely a written glyph is each digit 0-9 (`hand_digits`), the unlikely ones left out."""
    p = digit_probs(mask)
    return {v: float(x) for v, x in enumerate(p) if x >= least}


def total_glyphs(clean: np.ndarray, box: Box, tuning: HandTotalTuning = HAND_TOTAL,
                 ) -> list[tuple[float, list[np.ndarray]]]:
    """Ways of reading a written total's box as glyphs, left to right, each with its prior odds
    (one way, or two when a glyph may be two digits that touch); empty when the box holds no
    digit or more than `most_digits`."""
    if box.h < tuning.least_box or box.w < tuning.least_box:
        return []
    m = int(round(tuning.margin * box.h))
    y0, y1 = max(0, box.y0 - m), min(clean.shape[0], box.y1 + m)
    x0, x1 = max(0, box.x0 - m), min(clean.shape[1], box.x1 + m)
    region = clean[y0:y1, x0:x1]
    if region.size == 0 or min(region.shape) < tuning.least_box:
        return []
    k = H_NORM / box.h
    region = cv2.resize(region, None, fx=k, fy=k, interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_CUBIC)
    bx0, by0, bx1, by1 = ((box.x0 - x0) * k, (box.y0 - y0) * k, (box.x1 - x0) * k, (box.y1 - y0) * k)
    bh, bw = by1 - by0, bx1 - bx0
    # the box's grey fill made paper: its edges would read as ink beside the paper around it
    inner = region[int(by0 + 0.1 * bh):int(by1 - 0.1 * bh), int(bx0 + 0.1 * bw):int(bx1 - 0.1 * bw)]
    if inner.size:
        fill = float(np.median(inner))
        region = np.where(region >= fill - tuning.fill_margin, 255, region).astype(np.uint8)
    ink = binarize_cell(region).astype(np.uint8)
    # rules: long horizontal runs anywhere (the bar under the box, a frame's top and foot),
    # long vertical runs by the box's left and right edges (its frame)
    lines = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, max(3, int(tuning.line_long * bw))), np.uint8))
    upright = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((max(3, int(tuning.line_long * bh)), 1), np.uint8))
    xs = np.arange(ink.shape[1])
    by_edge = (np.abs(xs - bx0) <= tuning.edge * bw) | (np.abs(xs - bx1) <= tuning.edge * bw)
    upright[:, ~by_edge] = 0
    ink = ink & ~cv2.dilate(lines | upright, np.ones((3, 3), np.uint8))
    # the total's own ink: parts whose middle lies in the box (not the arrow beside it, nor a
    # neighbour's writing); then glyphs of the parts that overlap in x
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    gx, gy = tuning.inside * bw, tuning.inside * bh
    keep = np.zeros(n, bool)
    for i in range(1, n):
        x, y, w, h, _ = (int(v) for v in stats[i])
        keep[i] = (bx0 - gx <= x + w / 2 <= bx1 + gx and by0 - gy <= y + h / 2 <= by1 + gy
                   and max(w, h) >= tuning.speck * bh)
    ink = keep[lab]
    glyphs = [g for g in group_components(ink, tuning.digit_h * bh) if g.height >= tuning.digit_h * bh]
    if not glyphs:
        return []
    tall = max(g.height for g in glyphs)
    glyphs = sorted((g for g in glyphs if g.height >= tuning.twin * tall), key=lambda g: g.x0)
    if len(glyphs) > tuning.most_digits:
        return []
    masks = [g.mask for g in glyphs]
    if len(glyphs) == 1:
        g = glyphs[0]
        aspect = g.width / max(1, g.height)
        cuts = _cuts_in_two(g.mask, tuning) if aspect > tuning.split_from else []
        if cuts:
            p = (aspect - tuning.split_from) / (tuning.split_sure - tuning.split_from)
            p = min(max(p, 0.1), 0.9)
            return [(1 - p, masks)] + [(p / len(cuts), cut) for cut in cuts]
    return [(1.0, masks)]


def _cuts_in_two(mask: np.ndarray, tuning: HandTotalTuning) -> list[list[np.ndarray]]:
    """The glyph cut in two at each of its `cuts` thinnest columns within `split_band` (local
    minima of its ink per column), each half cropped to its ink."""
    h, w = mask.shape
    a, b = int(tuning.split_band[0] * w), int(tuning.split_band[1] * w)
    if b - a < tuning.least_band:
        return []
    cols = np.convolve(mask.sum(axis=0).astype(float), np.ones(3) / 3, mode="same")
    band = cols[a:b]
    minima = [a + i for i in range(len(band))
              if (i == 0 or band[i] <= band[i - 1]) and (i == len(band) - 1 or band[i] <= band[i + 1])]
    out = []
    for x in sorted(minima, key=lambda x: cols[x])[:tuning.cuts]:
        parts = []
        for part in (mask[:, :x], mask[:, x:]):
            ys, xs = np.nonzero(part)
            if ys.size < tuning.least_part or ys.max() - ys.min() + 1 < tuning.twin * h:
                break
            parts.append(part[ys.min():ys.max() + 1, xs.min():xs.max() + 1])
        if len(parts) == 2:
            out.append(parts)
    return out


def hand_total_odds(clean: np.ndarray, box: Box, tuning: HandTotalTuning = HAND_TOTAL) -> dict[int, float]:
    """How likely each number is in a form's total box written by hand: its glyphs
    (`total_glyphs`), each read by the hand-digit reader, the ways of cutting them weighed by
    their odds. Empty when the box holds no digit or more than two."""
    odds: dict[int, float] = {}
    for prior, masks in total_glyphs(clean, box, tuning):
        numbers = {0: prior}
        for mask in masks:
            numbers = {DECIMAL * v + d: p * q for v, p in numbers.items() for d, q in digit_odds(mask, tuning.digit_least).items()}
        for v, p in numbers.items():
            odds[v] = odds.get(v, 0.0) + p
    total = sum(odds.values())
    return {v: p / total for v, p in odds.items()} if total else {}


def form_total_odds(grid: Grid, fit: Fit | None, layout: Layout, sheet: SheetRead,
                    ) -> dict[str, TotalOdds]:
    """Each written total of a form (columns, and `main`) as odds: a total Tesseract read
    (`read_totals`) is trusted at TYPED_TOTAL_TRUST, another is read as handwriting
    (`hand_total_odds`: Tesseract reads one written total in ten)."""
    boxes: dict[str, Box] = {}
    for column in COLUMNS:
        t = grid.by_kind(column)
        if t is not None and t.total is not None:
            boxes[column] = t.total
    if fit is not None and "main_total" in layout.boxes:
        x0, y0, x1, y1 = layout.boxes["main_total"]
        y0 += HAND_TOTAL.main_label * (y1 - y0)
        boxes["main"] = Box(int(fit.x(x0)), int(fit.y(y0)), int(fit.x(x1)), int(fit.y(y1)))
    out: dict[str, TotalOdds] = {}
    for key, box in boxes.items():
        read = sheet.column_totals.get(key) if key in MAIN_COLUMNS else sheet.printed_totals.get(key)
        if read is not None:
            out[key] = TotalOdds({read: TYPED_TOTAL_TRUST}, "typed")
            continue
        odds = hand_total_odds(grid.clean, box)
        if odds:
            out[key] = TotalOdds(odds, "hand")
    return out


def _log(p: float) -> float:
    return math.log(max(p, LEAST_ODDS))


def _sum_table(col: list[RowRead], weighed: dict[int, dict[int, float]] | None = None,
               ) -> tuple[int, dict[int, tuple[float, list[int]]]]:
    """(sum of the fixed counts, sum of the hand counts → (best log-odds, the counts)) of a
    column: DP over its hand-written counts' odds (`weighed` by `id` of the row, when given:
    the odds with the page's likes, `count_hand.page_odds`)."""
    weighed = weighed or {}
    fixed = sum(r.count or 0 for r in col if not r.count_odds)
    table: dict[int, tuple[float, list[int]]] = {0: (0.0, [])}
    for r in (r for r in col if r.count_odds):
        odds = weighed.get(id(r), r.count_odds)
        nxt: dict[int, tuple[float, list[int]]] = {}
        for s, (lp, picks) in table.items():
            for v in COUNT_VALUES:
                val = lp + _log(odds.get(v, 0.0))
                if s + v not in nxt or val > nxt[s + v][0]:
                    nxt[s + v] = (val, picks + [v])
        table = nxt
    return fixed, table


def _with_total(fixed: int, table: dict[int, tuple[float, list[int]]], total: TotalOdds | None,
                ) -> dict[int, tuple[float, list[int]]]:
    """The column's table with the written total's odds: a sum the total names gains its odds
    (with the chance TOTAL_SLIP that the total says nothing)."""
    if total is None:
        return {fixed + s: v for s, v in table.items()}
    out = {}
    for s, (lp, picks) in table.items():
        p = (1 - TOTAL_SLIP) * total.odds.get(fixed + s, 0.0) + TOTAL_SLIP * LEAST_ODDS
        out[fixed + s] = (lp + _log(p), picks)
    return out


def settle_hand_counts(rows: list[RowRead], totals: dict[str, TotalOdds], sheet: SheetRead) -> None:
    """Counts written by hand chosen with the written totals: each column's counts and its total
    (and the main deck's three columns with the main total) are taken together, the likeliest
    whole. A count the lines' own odds held only narrowly may then change to make the column add
    up to its total (a hand 2 read nearest a 1, the column total 2 short). Each count's odds are
    first weighed by its likes' on the page (`count_hand.page_odds`: the same hand writes a digit
    alike), the line's own odds kept for the evidence rule. A total that no
    likely set of counts makes says nothing (TOTAL_SLIP). Only columns with hand-written
    counts; the rest, and every flag, as before."""
    tables: dict[str, dict[int, tuple[float, list[int]]]] = {}
    weighed = {id(rows[i]): odds for i, odds in page_odds(rows).items()}
    for column in COLUMNS:
        col = [r for r in rows if r.column == column and not r.struck_row]
        if not any(r.count_odds for r in col):
            continue
        fixed, table = _sum_table(col, weighed)
        table = _with_total(fixed, table, totals.get(column))
        top = max(v[0] for v in table.values())
        tables[column] = {k: v for k, v in table.items() if v[0] >= top - UNLIKELY}
    if not tables:
        return
    chosen: dict[str, tuple[int, list[int]]] = {}
    main = [c for c in MAIN_COLUMNS if c in tables]
    main_total = totals.get("main")
    if main and main_total is not None and len(main) == len([c for c in MAIN_COLUMNS
                                                              if any(r.column == c for r in rows)]):
        # the main total ties the main columns: the likeliest sums together
        best: tuple[float, list[int]] | None = None
        for sums in _products([list(tables[c]) for c in main]):
            lp = sum(tables[c][s][0] for c, s in zip(main, sums))
            p = (1 - TOTAL_SLIP) * main_total.odds.get(sum(sums) + _fixed_main(rows, main), 0.0) \
                + TOTAL_SLIP * LEAST_ODDS
            lp += _log(p)
            if best is None or lp > best[0]:
                best = (lp, list(sums))
        assert best is not None
        for c, s in zip(main, best[1]):
            chosen[c] = (s, tables[c][s][1])
    for column, table in tables.items():
        if column not in chosen:
            s = max(table, key=lambda k: table[k][0])
            chosen[column] = (s, table[s][1])
    for column, (s, picks) in chosen.items():
        hand = [r for r in rows if r.column == column and not r.struck_row and r.count_odds]
        for r, v in zip(hand, picks):
            odds = weighed.get(id(r), r.count_odds)
            if r.count != v:
                why = ("makes the column add up to its written total" if column in totals
                       or (column in MAIN_COLUMNS and main_total is not None)
                       else "as its likes on the page are read")
                r.count_detail = f"{r.count_detail}; {v} {why} (with the page's likes {odds.get(v, 0.0):.2f})"
                r.count = v
            r.count_conf = odds.get(v, 0.0)
        total = totals.get(column)
        if total is not None and total.source == "hand" and total.odds.get(s, 0.0) >= TOTAL_AGREE:
            # the written total agrees with its lines: it is the sheet's printed total
            if column in MAIN_COLUMNS:
                sheet.column_totals[column] = s
            else:
                sheet.printed_totals[column] = s
            for r in hand:
                r.count_conf = max(r.count_conf, TOTAL_CONFIRMED)
    if main_total is not None and main_total.source == "hand" and all(c in chosen for c in MAIN_COLUMNS):
        s = sum(chosen[c][0] for c in MAIN_COLUMNS)
        if main_total.odds.get(s, 0.0) >= TOTAL_AGREE:
            sheet.printed_totals["main"] = s


UNLIKELY = math.log(1e4)
"""Column sums this much less likely (log-odds) than the column's best are not weighed with
the main total (they would need it read at better than 1e4 : 1)."""
TOTAL_AGREE = 0.2
"""A hand-written total read this likely as the sum its lines make is taken as read (the
sheet's printed total, and a confirmation of the column's counts)."""
TOTAL_CONFIRMED = 0.9
"""Confidence of a hand count in a column whose written total its counts make."""


def _fixed_main(rows: list[RowRead], main: list[str]) -> int:
    """Counts of the main columns not in `main` (none when every main column has hand counts)."""
    return sum(r.count or 0 for r in rows if r.column in MAIN_COLUMNS and r.column not in main
               and not r.struck_row)


def _products(lists: list[list[int]]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for values in lists:
        out = [p + (v,) for p in out for v in values]
    return out
