"""Rules found by the text's alignment, where the printed rules are gone.

A fax, or a copy binarised too hard, keeps the text of a card-database sheet and loses its pale
grey rules (and the grey title fill): the grid stage then finds no table at all. The text still
stands in the tables' order: lines of text at one row pitch (the title, every numbered row, the
합계 row), the main columns side by side and extra | side below them, each a band of lines
whose columns are split by blank strips at equal widths. `ruled_by_text` draws the rules those
lines imply — a rule between every two lines of a band, a border at each table's sides — on a
copy of the page, on paper only (never over a glyph), and the grid stage reads that copy as it
reads a printed grid (the count column by its gutter, as for a sheet ruled by rows only).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scanner.ocr.ink import true_runs
from scanner.ocr.thresholds import INK_GLYPH


@dataclass(frozen=True)
class TextRulesTuning:
    """The numbers of the text-alignment grid, one home each."""

    min_speck: int = 6
    """Ink components of fewer pixels are fax noise, not print."""
    line_ink: int = 2
    """A pixel row holds text with at least this many ink pixels (a fax speck left gives one)."""
    glyph_h: tuple[int, int] = (8, 90)
    """Heights (page pixels, at the page's 1800 px width) a glyph of 6–14 pt text can have."""
    pitch_px: tuple[int, int] = (25, 120)
    """Row pitches a deck table can have (12–40 pt)."""
    on_pitch: float = 0.15
    """A line lies on its band's pitch when its distance to the previous one is within this
    share of a pitch of a whole number (1 or 2: a row left blank with no number) of pitches."""
    min_lines: int = 8
    """A band of fewer lines is the header or a note, not a deck table."""
    tables_per_band: tuple[tuple[int, ...], ...] = ((3,), (2,))
    """How many tables stand side by side in the first band (the main columns) and in the others
    (extra | side): the db-ko sheet's layout. (A band of text that splits into no such columns —
    a letter, a page of prose — is no deck sheet, and stays refused.)"""
    blank_share: float = 0.95
    """A boundary between two tables is blank (no ink within `strip` of it) on this share of
    the band's lines."""
    strip: int = 4
    """Half-width (px) of the strip that must be blank at a boundary between tables."""
    rule_px: int = 2
    """Thickness of the rules drawn."""


TEXT_RULES = TextRulesTuning()


def _ink(gray: np.ndarray, tuning: TextRulesTuning) -> np.ndarray:
    """Print (0/1), fax specks dropped."""
    ink = (gray < INK_GLYPH).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    keep = np.zeros(n, np.uint8)
    keep[1:] = stats[1:, cv2.CC_STAT_AREA] >= tuning.min_speck
    return keep[labels]


def text_lines(ink: np.ndarray, tuning: TextRulesTuning) -> list[tuple[int, int]]:
    """(top, bottom) of each line of text across the page: runs of rows holding ink."""
    low, high = tuning.glyph_h
    return [(y, z) for y, z in true_runs(ink.sum(axis=1) >= tuning.line_ink) if low <= z - y <= high]


def bands(lines: list[tuple[int, int]], tuning: TextRulesTuning) -> list[tuple[list[float], float]]:
    """Runs of lines at one pitch (the band's line centres, and the pitch), top first."""
    centres = [(a + b) / 2 for a, b in lines]
    diffs = np.diff(centres)
    lo, hi = tuning.pitch_px
    usable = diffs[(diffs >= lo) & (diffs <= hi)]
    if usable.size < tuning.min_lines:
        return []
    hist, edges = np.histogram(usable, bins=np.arange(lo, hi + 2, 2))
    peak = int(np.argmax(hist))
    near = usable[(usable >= edges[max(0, peak - 1)]) & (usable <= edges[min(len(edges) - 1, peak + 2)])]
    pitch = float(np.median(near))
    out: list[tuple[list[float], float]] = []
    run = [centres[0]]
    for c in centres[1:] + [float("inf")]:
        k = (c - run[-1]) / pitch
        if np.isfinite(k) and round(k) in (1, 2) and abs(k - round(k)) <= tuning.on_pitch:
            run.append(c)
            continue
        run = _trim(run, pitch)
        if len(run) >= tuning.min_lines:
            out.append((run, pitch))
        run = [c]
    return out


def _trim(run: list[float], pitch: float) -> list[float]:
    """A band starts with its title and ends with its 합계 row, each one pitch from its
    neighbour: a line two pitches before the first (the main deck's total between the main
    columns and the lower tables) or after the last is not the band's."""
    while len(run) > 2 and run[1] - run[0] > 1.5 * pitch:
        run = run[1:]
    while len(run) > 2 and run[-1] - run[-2] > 1.5 * pitch:
        run = run[:-1]
    return run


def _row_edges(centres: list[float], pitch: float) -> list[int]:
    """Rules between the band's lines (two rules for a blank row a line is missing from), and
    half a pitch above the first and below the last."""
    ys = [centres[0] - pitch / 2]
    for a, b in zip(centres, centres[1:]):
        k = max(1, int(round((b - a) / pitch)))
        ys.extend(a + (b - a) * (j + 0.5) / k for j in range(k))
    ys.append(centres[-1] + pitch / 2)
    return [int(round(y)) for y in ys]


def _columns(ink: np.ndarray, y0: int, y1: int, lines: list[tuple[int, int]], tries: tuple[int, ...],
             tuning: TextRulesTuning) -> list[tuple[int, int]]:
    """The x extents of the band's tables: its ink split into `n` equal parts (the first of
    `tries` whose boundaries are blank on nearly every line), each part shrunk to its ink."""
    cols = np.flatnonzero(ink[y0:y1].any(axis=0))
    if cols.size == 0:
        return []
    left, right = int(cols[0]), int(cols[-1]) + 1
    band_lines = [(a, b) for a, b in lines if y0 <= (a + b) / 2 <= y1]
    for n in tries:
        cuts = [int(round(left + (right - left) * k / n)) for k in range(1, n)]
        blank = [sum(not ink[a:b, max(0, x - tuning.strip):x + tuning.strip + 1].any() for a, b in band_lines)
                 / max(1, len(band_lines)) for x in cuts]
        if all(s >= tuning.blank_share for s in blank):
            edges = [left] + cuts + [right]
            out = []
            for a, b in zip(edges, edges[1:]):
                part = np.flatnonzero(ink[y0:y1, a:b].any(axis=0))
                if part.size:
                    out.append((a + int(part[0]), a + int(part[-1]) + 1))
            return out
    return []


COUNT_SIDE = 0.6
"""The counts are looked for in the table's right 40 % (db-ko prints them at its right edge)."""


def count_rule(ink: np.ndarray, ys: list[int], x0: int, x1: int, pitch: float) -> tuple[int, int] | None:
    """(rule, centre) of a db-ko table's count column, by its text: the counts are one digit
    each, centred on one x at the table's right (as are the title's 매수 and the 합계 row's
    total); the rule runs just left of the widest of them. None when the rows' last glyphs
    do not stand in one column."""
    centres, lefts = [], []
    x0 = x0 + int(COUNT_SIDE * (x1 - x0))  # (an empty row's number, at the left, is no count)
    for ya, yb in zip(ys[:-1], ys[1:]):
        row = ink[ya + 2:yb - 1, x0:x1]
        cols = np.flatnonzero(row.any(axis=0))
        if cols.size == 0:
            continue
        # the row's last blob: the run of inked columns at its right end (gaps under a third of a pitch)
        end = start = int(cols[-1])
        for c in cols[::-1][1:]:
            if start - int(c) > pitch / 3:
                break
            start = int(c)
        if end - start < 1.2 * pitch:
            centres.append((start + end) / 2)
            lefts.append(start)
    if len(centres) < 3:
        return None
    centre = float(np.median(centres))
    near = [l for c, l in zip(centres, lefts) if abs(c - centre) < 0.3 * pitch]
    if len(near) < 3:
        return None
    rule = min(near) - max(3, int(0.15 * pitch))
    return x0 + int(rule), x0 + int(round(centre))


def ruled_by_text(gray: np.ndarray, tuning: TextRulesTuning = TEXT_RULES) -> np.ndarray | None:
    """The page with the rules its text's alignment implies drawn on its paper, or None when
    the text stands in no deck table's order (no band of lines at one pitch)."""
    if gray.ndim != 2 or min(gray.shape) < 64:
        return None
    ink = _ink(gray, tuning)
    lines = text_lines(ink, tuning)
    found = bands(lines, tuning)
    if not found:
        return None
    out = gray.copy()
    drawn = np.zeros_like(gray)
    heights = [b - a for a, b in lines]
    pad = max(4, int(0.4 * float(np.median(heights))))
    for i, (centres, pitch) in enumerate(found):
        ys = _row_edges(centres, pitch)
        tries = tuning.tables_per_band[min(i, len(tuning.tables_per_band) - 1)]
        tables = _columns(ink, ys[0], ys[-1], lines, tries, tuning)
        counts = [count_rule(ink, ys, x0, x1, pitch) for x0, x1 in tables]
        if not tables or any(c is None for c in counts):
            continue  # a deck table has its count column: text in columns without one is not
        for (x0, x1), (count_x, count_centre) in zip(tables, counts):
            a, b = max(0, x0 - pad), min(gray.shape[1] - 1, x1 + pad)
            b = min(gray.shape[1] - 1, max(b, 2 * count_centre - count_x))  # a cell as wide as its counts need
            for y in ys:
                cv2.line(drawn, (a, y), (b, y), 255, tuning.rule_px)
            for x in (a, count_x, b):
                cv2.line(drawn, (x, ys[0]), (x, ys[-1]), 255, tuning.rule_px)
    if not drawn.any():
        return None
    paper = cv2.dilate(ink, np.ones((3, 3), np.uint8)) == 0  # never over a glyph
    out[(drawn > 0) & paper] = 0
    return out
