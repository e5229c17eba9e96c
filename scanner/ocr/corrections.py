"""Pen corrections: strikes along a row, pen-coloured ink, hand-written rows and counts.

A struck row (two detectors agree) leaves the deck and becomes a sheet-level review item; a
hand-written row (after a strike in its column, or a count digit taller than the page's printed
ones) and a struck count (its new value read) are always flagged.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from scanner.model import SheetRead
from scanner.ocr.grid import Table
from scanner.ocr.thresholds import INK_PRINT_CORE, INK_STRIKE, MASK_ON
from scanner.vocab import Reason

if TYPE_CHECKING:
    from scanner.ocr.rows import RowRead

@dataclass(frozen=True)
class CorrectionsTuning:
    """The numbers of the corrections stage, one home each (issue 32: per-stage tuning)."""

    strike_run: tuple[int, int] = (40, 3)
    """A pen line along a row is a run of ink at least (pixels, row width ÷ this) long, the
    longer: no glyph stroke is a third of the row wide."""
    strike_bridge_px: int = 3
    """A wavy pen line is bridged across this many pixel rows first."""
    min_print_px: int = 100
    """The page's print colour is measured on at least this many core-ink pixels (every second
    pixel each way); fewer: neutral grey."""
    neutral: tuple[float, float] = (128.0, 128.0)
    """Lab (a, b) of a colourless ink (OpenCV's 8-bit Lab)."""
    min_row_ink_px: int = 30
    """A row with fewer core-ink pixels has no colour worth judging."""
    pen_chroma: float = 14
    """Lab (a, b) distance from the printed ink's colour beyond which a pixel is another ink."""
    pen_share: float = 0.3
    """Share of a row's ink in another colour that makes the row pen-written…"""
    pen_mean_share: float = 1.0
    """…and the row ink's mean colour must lie this share of `pen_chroma` away from the print's…"""
    pen_coherence: float = 0.75
    """…and that shift at least this share of the colours' spread (sub-pixel fringes: about 0.5)."""
    min_rows: int = 3
    """A table with fewer rows has no usual row height."""
    merged_row: float = 1.5
    """A row box this many times the table's usual row height holds two lines (a missed rule)."""
    min_printed_counts: int = 5
    """Printed counts needed to know the page's printed digit height."""
    pen_count_height: float = 1.3
    """A count glyph this many times taller than the page's printed count digits is hand-written."""


CORRECTIONS = CorrectionsTuning()


def row_struck(row_clean: np.ndarray, tuning: CorrectionsTuning = CORRECTIONS) -> bool:
    """A pen line along the row: a long, nearly horizontal run of ink through the text band.
    Rules are already removed, and no glyph stroke is a third of the row wide."""
    if row_clean.size == 0:
        return False
    ink = (row_clean < INK_STRIKE).astype(np.uint8) * MASK_ON
    ink = cv2.dilate(ink, np.ones((tuning.strike_bridge_px, 1), np.uint8))  # bridge a wavy pen line
    k = max(tuning.strike_run[0], row_clean.shape[1] // tuning.strike_run[1])
    runs = cv2.morphologyEx(ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, 1)))
    return bool(runs.any())


def ink_chroma(color: np.ndarray, clean: np.ndarray, tuning: CorrectionsTuning = CORRECTIONS
               ) -> tuple[float, float]:
    """Median Lab (a, b) of the printed ink on the page: the photo's colour cast included."""
    ink = clean[::2, ::2] < INK_PRINT_CORE
    lab = cv2.cvtColor(color[::2, ::2], cv2.COLOR_BGR2LAB)
    if ink.sum() < tuning.min_print_px:
        return tuning.neutral
    return float(np.median(lab[:, :, 1][ink])), float(np.median(lab[:, :, 2][ink]))


def row_pen_coloured(row_bgr: np.ndarray, row_clean: np.ndarray, chroma: tuple[float, float],
                     tuning: CorrectionsTuning = CORRECTIONS) -> bool:
    """Ink of another colour than the page's print (a blue pen): Lab (a, b) far from the
    printed ink's median."""
    if row_bgr.size == 0 or row_bgr.shape[:2] != row_clean.shape[:2]:
        return False
    ink = row_clean < INK_PRINT_CORE
    if ink.sum() < tuning.min_row_ink_px:
        return False
    lab = cv2.cvtColor(row_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    da, db = lab[:, :, 1][ink] - chroma[0], lab[:, :, 2][ink] - chroma[1]
    if float((np.hypot(da, db) > tuning.pen_chroma).mean()) <= tuning.pen_share:
        return False
    # Sub-pixel (LCD) anti-aliasing paints black print with fringes of opposite colours
    # (orange one side, blue the other: a browser's or pdfium's "save as image"); they cancel
    # out in the mean, while a pen's ink moves it.
    shift = float(np.hypot(da.mean(), db.mean()))
    # …and a pen's colour is one colour: fringes at 150 dpi colour whole thin strokes, orange
    # and blue across each one, so their spread is far larger than their mean's shift.
    spread = float(np.sqrt(da.var() + db.var()))
    return shift > tuning.pen_chroma * tuning.pen_mean_share and shift >= tuning.pen_coherence * spread


def mark_merged_rows(col_rows: list["RowRead"], table: Table, tuning: CorrectionsTuning = CORRECTIONS) -> None:
    """A row box that spans two printed lines (the grid missed a rule, e.g. under a strike) is
    read as one line: flag it, and never drop it as struck (the other line may be untouched)."""
    heights = {c.row: c.box.h for c in table.rows}
    if len(heights) < tuning.min_rows:
        return
    usual = float(np.median(list(heights.values())))
    for r in col_rows:
        if heights.get(r.row, 0) > tuning.merged_row * usual:
            r.flags.append(Reason.MERGED_ROWS)
            if r.struck_row:
                r.struck_row = False
                r.flags.append(Reason.POSSIBLE_STRIKE)


def mark_handwritten_after_strike(col_rows: list["RowRead"]) -> None:
    """A struck row is replaced by a hand-written line in the first empty row of the column:
    with a strike in the column, the last line of the column is suspect too; with a line only
    one strike detector saw, the last line is when its ink looks hand-written."""
    if not col_rows:
        return
    last = col_rows[-1]
    struck = any(r.struck_row for r in col_rows)
    maybe = any(Reason.POSSIBLE_STRIKE in r.flags for r in col_rows if r is not last) and last.pen_like
    if struck or maybe:
        if not last.struck_row and Reason.HANDWRITTEN not in last.flags:
            last.flags.append(Reason.HANDWRITTEN)
            last.handwritten = True


def mark_pen_counts(rows: list["RowRead"], sheet: SheetRead, tuning: CorrectionsTuning = CORRECTIONS) -> None:
    """Flag counts written by hand: a pen digit is taller than the printed ones of the same page.
    This also catches a corrected count whose strike was missed (the new digit is pen)."""
    printed = [r.count_height for r in rows
               if r.count_height > 0 and not (r.struck_row or r.count_struck or r.handwritten)]
    if len(printed) < tuning.min_printed_counts:
        return
    ref = float(np.median(printed))
    sheet.notes.append(f"printed count height {ref:.2f} of the row")
    for r in rows:
        if r.count_height > tuning.pen_count_height * ref and not r.struck_row:
            r.handwritten = True
            if Reason.HANDWRITTEN not in r.flags:
                r.flags.append(Reason.HANDWRITTEN)
            r.count_detail += f"; count glyph {r.count_height / ref:.1f}× the printed height"

