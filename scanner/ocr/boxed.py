"""Open-box deck tables (`Layout.open_boxes`: Konami's frame remade with one box per column and no
row rules): the boxes found by their rules on the page, each box's lines by the ink, and each line
cut into its leading count and its name — a `Grid` of synthetic rows that `rows.read_row` reads
exactly as a ruled table's (same cells, same name and count readers, same flags).

Taken only for a page no ruled layout reads (it would be refused otherwise), and only when the
page shows the layout's bands of boxes exactly (3 on top, 2 below for the boxed current form)."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scanner.layouts.model import Layout
from scanner.ocr.grid import Box, Grid, RowCells, Table, line_masks


@dataclass(frozen=True)
class BoxedTuning:
    """The numbers of the open-box reader: which boxes are the deck's, and how their ink is cut
    into lines, counts and names."""

    box_min: float = 0.1
    """A deck box is at least this share of the page's width and of its height."""
    band_tol: float = 0.03
    """Boxes whose tops lie within this share of the page's height are one band."""
    rule_grow: int = 5
    """Rule masks grown by this many pixels before the boxes are taken as the paper they enclose."""
    ink: int = 150
    """Gray level under which a pixel inside a box is ink (a typed line)."""
    ink_px: int = 2
    """Ink pixels a pixel row needs to belong to a line (specks of a scan do not)."""
    join_gap: int = 2
    """Ink runs this close are one line (an i's dot, a line's accents)…"""
    join_height: float = 1.3
    """…when together they stay no taller than this × the page's typical line."""
    split_height: float = 1.7
    """A run this many typical lines tall is lines touching (descender on ascender): cut evenly."""
    word_gap: float = 0.22
    """A gap of this share of the line's height ends the count (a space at 7 pt is ≈ 0.4 of it)."""
    count_width: float = 1.8
    """The leading word is the count only when at most this many line heights wide (≤ 2 digits)."""
    margin: int = 4
    """Pixels around a line's ink in its cells (`read_row` crops 3 inside them)."""


BOXED = BoxedTuning()


def find_open_boxes(gray: np.ndarray, layout: Layout, tuning: BoxedTuning = BOXED) -> Grid | None:
    """The layout's boxes on the page, with their lines as rows, or None when the page does not
    show exactly the layout's bands of boxes."""
    h, w = gray.shape[:2]
    _, horiz, vert = line_masks(gray, faint_rules=True)
    rules = cv2.dilate(cv2.bitwise_or(horiz, vert), np.ones((tuning.rule_grow, tuning.rule_grow), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats((rules == 0).astype(np.uint8), connectivity=4)
    boxes = []
    for i in range(1, count):
        x, y, bw, bh, _ = (int(v) for v in stats[i])
        touches = x == 0 or y == 0 or x + bw == w or y + bh == h
        if not touches and bw >= tuning.box_min * w and bh >= tuning.box_min * h:
            boxes.append(Box(x, y, x + bw, y + bh))
    bands = _bands(boxes, h, tuning)
    if [len(b) for b in bands] != [len(kinds) for kinds in layout.open_boxes]:
        return None
    # The boxes' own rules lie outside them (the boxes are the paper the grown rules enclose);
    # inside, the rule masks also hold letters' stems, so nothing is painted out.
    clean = gray
    tables = []
    for kinds, band in zip(layout.open_boxes, bands):
        for kind, box in zip(kinds, sorted(band, key=lambda b: b.x0)):
            table = Table(box=box, xs=[box.x0, box.x1], ys=[box.y0, box.y1], kind=kind,
                          count_ruled=False, number_column=True)
            table.rows = box_rows(clean, box, tuning)
            tables.append(table)
    grid = Grid(tables=tables, clean=clean, rule_mask=np.zeros_like(gray))
    grid.notes.append(f"grid: {len(tables)} open boxes, lines found by their ink "
                      f"({sum(len(t.rows) for t in tables)} lines)")
    return grid


def _bands(boxes: list[Box], page_h: int, tuning: BoxedTuning) -> list[list[Box]]:
    bands: list[list[Box]] = []
    for box in sorted(boxes, key=lambda b: b.y0):
        if bands and abs(box.y0 - bands[-1][0].y0) <= tuning.band_tol * page_h:
            bands[-1].append(box)
        else:
            bands.append([box])
    return bands


def ink_runs(profile: np.ndarray, least: int) -> list[tuple[int, int]]:
    """[start, end) of the runs where `profile` ≥ `least`."""
    on = np.concatenate([[False], profile >= least, [False]])
    edges = np.flatnonzero(on[1:] != on[:-1])
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2])]


def text_lines(ink: np.ndarray, tuning: BoxedTuning = BOXED) -> list[tuple[int, int]]:
    """[top, bottom) of each typed line in a box's ink mask (bool), top first: runs of inked pixel
    rows cut at blank gaps, an i's dot joined to its line, touching lines cut evenly."""
    runs = ink_runs(ink.sum(axis=1), tuning.ink_px)
    tall = [b - a for a, b in runs if b - a >= 6]
    if not tall:
        return []
    typical = float(np.median(tall))
    lines: list[tuple[int, int]] = []
    for a, b in runs:
        if lines and a - lines[-1][1] <= tuning.join_gap and b - lines[-1][0] <= tuning.join_height * typical:
            lines[-1] = (lines[-1][0], b)
        else:
            lines.append((a, b))
    out = []
    for a, b in lines:
        n = int(round((b - a) / typical)) if b - a >= tuning.split_height * typical else 1
        step = (b - a) / max(n, 1)
        out.extend((int(round(a + i * step)), int(round(a + (i + 1) * step))) for i in range(n))
    # specks (a scan's dust): far shorter than a line
    return [(a, b) for a, b in out if b - a >= 0.4 * typical]


def box_rows(clean: np.ndarray, box: Box, tuning: BoxedTuning = BOXED) -> list[RowCells]:
    """The box's lines as rows: count cell (the leading word, when it is short) | name cell."""
    inner = clean[box.y0:box.y1, box.x0:box.x1] < tuning.ink
    rows = []
    for a, b in text_lines(inner, tuning):
        cols = ink_runs(inner[a:b].sum(axis=0), 1)
        if not cols:
            continue
        height = b - a
        words = _words(cols, max(2, int(round(tuning.word_gap * height))))
        m = tuning.margin
        y0, y1 = box.y0 + a - m, box.y0 + b + m
        line = Box(box.x0, y0, box.x1, y1)
        first = words[0]
        if len(words) > 1 and first[1] - first[0] <= tuning.count_width * height:
            cut = box.x0 + (first[1] + words[1][0]) // 2
            count = Box(max(box.x0, box.x0 + first[0] - m), y0, cut + 3, y1)
        else:  # no leading count: an empty count cell (the count reader flags it)
            cut = box.x0 + max(0, first[0] - m)
            count = Box(box.x0, y0, max(box.x0 + 1, cut), y1)
        name = Box(cut - 3, y0, box.x1, y1)
        rows.append(RowCells(row=len(rows) + 1, box=line, name=name, count=count))
    return rows


def _words(cols: list[tuple[int, int]], gap: int) -> list[tuple[int, int]]:
    words = [cols[0]]
    for a, b in cols[1:]:
        if a - words[-1][1] < gap:
            words[-1] = (words[-1][0], b)
        else:
            words.append((a, b))
    return words
