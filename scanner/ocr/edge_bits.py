"""Bits of a row rule left at a form cell's top or bottom edge, cleared before the name is read.

On a photographed Konami form the row rules bend and blur; the grid stage removes most of a
rule but leaves broken dashes along the cell's edge (too short for `verify.strip_rule_remnants`,
which only drops runs longer than 1.5 × the cell height). Kept, they make the name's ink box a
third taller than the text: its rendering then fits badly and a typed name is flagged
'handwritten' or 'uncertain-name'. A dash is told from a glyph by where and how it lies: a thin
band of ink rows at the cell's edge, apart from the text by a blank row.
"""
from __future__ import annotations

import numpy as np

from scanner.ocr.ink import true_runs
from scanner.ocr.thresholds import INK_ANY
from scanner.ocr.verify import ink_level

EDGE_ZONE = 0.25
"""A rule bit lies within this share of the cell height from its top or bottom edge."""
BAND_MAX = 0.12
"""…and is at most this share of the cell height thick (a glyph's stroke stack is thicker;
a Hangul final consonant under a vowel bar is a third of the text height)."""
COUNT_ZONE = 0.1
"""In a count cell the zone is narrower: a rule stub lies at the cell's very edge, while a pen
stroke that misses the digit (a strike above it, a new digit by the old one) lies further in
and must stay a second glyph, which the count reader doubts."""
ROW_INK = 2
"""A pixel row holds ink with at least this many ink pixels (paper grain gives one)."""


def clear_edge_bits(gray: np.ndarray, level: float | None = None, zone: float = EDGE_ZONE) -> np.ndarray:
    """The cell with thin ink bands at its top and bottom edge, apart from the text by a blank
    row, painted paper white (a copy; the cell itself is unchanged when there are none). Ink is
    darker than `level` (default: `verify.ink_level`, relative to the cell's darkest ink)."""
    h = gray.shape[0]
    if h < 12:
        return gray
    ink = gray < (ink_level(gray) if level is None else level)
    runs = true_runs(ink.sum(axis=1) >= ROW_INK)
    if len(runs) < 2:
        return gray
    weights = [int(ink[a:b].sum()) for a, b in runs]
    body = int(np.argmax(weights))
    out = gray
    for i, (a, b) in enumerate(runs):
        if i == body or b - a > max(2, BAND_MAX * h):
            continue
        at_top = i < body and a < zone * h
        at_bottom = i > body and b > (1 - zone) * h
        if at_top or at_bottom:
            if out is gray:
                out = gray.copy()
            out[a:b] = 255
    return out


def clear_side_bits(gray: np.ndarray, level: float | None = None, zone: float = EDGE_ZONE) -> np.ndarray:
    """`clear_edge_bits` across: thin ink columns at the cell's left and right edge, apart from
    the glyph by a blank column (the stubs of a column rule beside a count digit)."""
    return np.ascontiguousarray(clear_edge_bits(np.ascontiguousarray(gray.T), level, zone).T)


def clear_count_bits(gray: np.ndarray) -> np.ndarray:
    """A form's count cell without rule bits on any side. The cut is the palest ink
    (`INK_ANY`): the count reader binarizes a faint rule stub as a stroke, which joined to a
    digit made a 3 read as 8 (or a 1 as 7) and the glyph look taller than print (pen)."""
    return clear_side_bits(clear_edge_bits(gray, INK_ANY, COUNT_ZONE), INK_ANY, COUNT_ZONE)


BORDER_DARK = 25
"""A pixel of a rule left in the cell is at least this much darker than white paper (a faint
remnant the count reader's local binarization still takes for ink)."""
BORDER_ZONE = (0.15, 0.1)
"""A border line lies within this share of the cell's height (top, bottom) or width (sides)."""
BORDER_SPAN = (0.6, 0.3)
"""…and runs along at least this share of the cell's width (top, bottom) or height (sides):
no stroke of a digit, which stands in the middle and fills a quarter of the width, does."""


def clear_border_lines(gray: np.ndarray) -> np.ndarray:
    """The count cell without rule lines along its edges, painted paper white (a copy). A
    table border a warped photo leaves a few pixels inside the cell, its faint rule bits
    joined into an L round the corner, defeats `clear_count_bits` (no blank row or column parts
    its arms from the digit); a line is told from a digit by where it lies and how long it runs."""
    h, w = gray.shape[:2]
    if h < 12 or w < 12:
        return gray
    dark = gray < 255 - BORDER_DARK
    (zy, zx), (sy, sx) = (int(BORDER_ZONE[0] * h), int(BORDER_ZONE[1] * w)), (BORDER_SPAN[0] * w, BORDER_SPAN[1] * h)
    rows = np.flatnonzero(dark.sum(axis=1) >= sy)
    cols = np.flatnonzero(dark.sum(axis=0) >= sx)
    rows = rows[(rows < zy) | (rows >= h - zy)]
    cols = cols[(cols < zx) | (cols >= w - zx)]
    if not rows.size and not cols.size:
        return gray
    out = gray.copy()
    out[rows, :] = 255
    out[:, cols] = 255
    return out
