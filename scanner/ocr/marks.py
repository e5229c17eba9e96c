"""Pen marks on one sheet row: a strike-through of the whole line, and hand-written text.

Strike: HoughLinesP on the row's ink (minLineLength 0.3 × row width, |angle| < 12°; ocr-trials §4
found it catches thin slanted strikes that morphology misses), then each segment is checked to
run on ink for most of its length and to sit inside the row, not on its rule.
Handwriting: blue ink by colour when the colour row is given; otherwise pen glyphs are darker
than the laser print and taller (measured on the corrected fixture photos). Stroke direction
(pen script leans) was tried and did not separate the two at row resolution.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scanner.ocr.counts import binarize_cell
from scanner.ocr.order_stats import median, percentile

ROW_H_NORM = 48
"""Rows are scaled to this height before measuring."""
MIN_STRIKE_FRAC = 0.4
"""A strike is at least this fraction of the row width (struck rows: 45–100 %); at 0.3 the
horizontal strokes of printed Hangul chained into false strikes on real photos."""
MIN_STRIKE_COVERAGE = 0.93
MAX_STRIKE_ANGLE = 12.0
PEN_DARK = 165
"""Darkness (255 − 10th-percentile gray of a glyph) above which ink is pen: on the corrected
fixture photos print measured 109–154 and pen 159–199 after flattening."""
PEN_DARK_TALL = 140
TALL_FRAC = 0.8
"""Pen writing is also taller: a glyph ≥ TALL_FRAC of the row that is darker than PEN_DARK_TALL."""
PEN_OVER_PRINT = 30
"""With a page reference (the darkness of printed rows), pen is this much darker."""


@dataclass
class RowMarks:
    """Pen evidence on one row."""

    struck: bool
    """The row (name) is struck through."""
    strike_confidence: float
    """0..1: how long and straight the best strike line is."""
    handwriting: bool
    """Pen ink (hand-written text) in the row."""
    ink_ratio: float
    """Share of the row's pixels that are ink."""
    detail: str


@dataclass
class RowStrike:
    x0: int
    y0: int
    x1: int
    y1: int
    coverage: float
    """Share of points along the segment that lie on ink."""

    @property
    def length(self) -> float:
        return float(np.hypot(self.x1 - self.x0, self.y1 - self.y0))


def _scale(img: np.ndarray) -> np.ndarray:
    k = ROW_H_NORM / img.shape[0]
    w = max(1, int(round(img.shape[1] * k)))
    return cv2.resize(img, (w, ROW_H_NORM), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_CUBIC)


def drop_row_rules(ink: np.ndarray) -> np.ndarray:
    """Remove rule remnants: long straight runs hugging the top/bottom edge, or a full-height
    line at the left/right edge. A pen strike is inside the row and wavy."""
    h, w = ink.shape
    out = ink.copy()
    band = max(2, int(0.12 * h))
    for ys in (slice(0, band), slice(h - band, h)):
        rows = out[ys]
        rows[rows.mean(axis=1) > 0.6] = False
    for xs in (slice(0, 3), slice(w - 3, w)):  # (the columns' shares after the rows went)
        cols = out[:, xs]
        cols[:, cols.mean(axis=0) > 0.7] = False
    return out


def _coverage(ink: np.ndarray, x0: int, y0: int, x1: int, y1: int, tol: int) -> float:
    n = max(2, int(abs(x1 - x0)))
    xs = np.linspace(x0, x1, n).round().astype(int)
    ys = np.linspace(y0, y1, n).round().astype(int)
    near = cv2.dilate(ink.astype(np.uint8), np.ones((2 * tol + 1, 3), np.uint8))
    ys = np.clip(ys, 0, ink.shape[0] - 1)
    xs = np.clip(xs, 0, ink.shape[1] - 1)
    return float(near[ys, xs].mean())


def strike_room(ink: np.ndarray) -> bool:
    """Whether the row's ink leaves room for a strike `find_row_strikes` would keep: a span of
    at least MIN_STRIKE_FRAC of the row whose columns have ink within one column almost
    everywhere. A kept strike samples one point per column of its span but one, and a point
    is on ink (`_coverage`) only where its column or a neighbour holds ink, so its span has at
    most (1 − MIN_STRIKE_COVERAGE) of its length + 1 blank columns (2 allowed here). A row of
    short words has no such span: most rows are settled without a Hough transform."""
    w = ink.shape[1]
    span = int(np.ceil(MIN_STRIKE_FRAC * w))
    if span > w:
        return False
    cols = ink.any(axis=0)
    near = cols.copy()
    near[1:] |= cols[:-1]
    near[:-1] |= cols[1:]
    blank_before = np.concatenate(([0], np.cumsum(~near)))  # blank columns left of x
    # A span [a, b) fits when blank(b) − blank(a) ≤ miss·(b − a) + 2, i.e. f(b) − f(a) ≤ 2:
    # for each end b, the best start is the largest f(a) with a ≤ b − span.
    f = blank_before - (1.0 - MIN_STRIKE_COVERAGE) * np.arange(w + 1)
    best_start = np.maximum.accumulate(f[:w + 1 - span])
    return bool((f[span:] - best_start <= 2.0).any())


def find_row_strikes(ink: np.ndarray) -> list[RowStrike]:
    """Near-horizontal lines at least MIN_STRIKE_FRAC of the row long that run on ink.

    Hough segments of one wavy pen line come in pieces; collinear pieces are chained first.
    """
    if not strike_room(ink):
        return []
    h, w = ink.shape
    min_len = MIN_STRIKE_FRAC * w
    segs = cv2.HoughLinesP(ink.astype(np.uint8) * 255, 1, np.pi / 360, threshold=max(10, int(0.1 * w)),
                           minLineLength=int(0.08 * w), maxLineGap=max(4, int(0.12 * h)))
    pieces = []
    for x0, y0, x1, y1 in ([] if segs is None else np.asarray(segs).reshape(-1, 4)):
        if x1 < x0:
            x0, y0, x1, y1 = x1, y1, x0, y0
        if x1 == x0 or abs(np.degrees(np.arctan2(y1 - y0, x1 - x0))) > MAX_STRIKE_ANGLE:
            continue
        pieces.append((int(x0), int(y0), int(x1), int(y1)))
    pieces.sort()
    chains: list[list[int]] = []
    for x0, y0, x1, y1 in pieces:
        for c in chains:
            # continue a chain whose end is near this piece's start, at about the same height
            if x0 <= c[2] + 0.15 * w and x1 > c[2] and abs(c[3] - y0) <= 0.12 * h + 2:
                c[2], c[3] = x1, y1
                break
            if x0 >= c[0] - 2 and x1 <= c[2] + 2 and abs((c[1] + c[3]) / 2 - (y0 + y1) / 2) <= 0.12 * h + 2:
                break  # inside an existing chain
        else:
            chains.append([x0, y0, x1, y1])
    out = []
    for x0, y0, x1, y1 in chains:
        if x1 - x0 < min_len:
            continue
        mid = (y0 + y1) / 2
        if not 0.15 * h <= mid <= 0.85 * h:
            continue  # on the rule, not through the text
        cov = _coverage(ink, x0, y0, x1, y1, tol=max(2, int(0.06 * h)))
        if cov >= MIN_STRIKE_COVERAGE:
            out.append(RowStrike(x0, y0, x1, y1, cov))
    return out


def ink_darkness(gray: np.ndarray, mask: np.ndarray) -> float:
    """255 − the 10th-percentile gray of the ink: how dark the darkest strokes are."""
    return float(255 - percentile(gray[mask], 10)) if mask.any() else 0.0


def pen_glyphs(gray: np.ndarray, ink: np.ndarray, reference: float | None) -> list[tuple[float, float]]:
    """(darkness, height fraction) of every glyph that looks like pen rather than print."""
    h = ink.shape[0]
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    found = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if bh < 0.25 * h or area < 15:
            continue
        if y <= 1 and y + bh >= h - 1 and bw <= 0.12 * h:
            continue  # a vertical table rule crossing the row
        dark = ink_darkness(gray[y:y + bh, x:x + bw], lab[y:y + bh, x:x + bw] == i)
        frac = bh / h
        if reference is not None:
            pen = dark >= reference + PEN_OVER_PRINT
        else:
            pen = dark >= PEN_DARK or (frac >= TALL_FRAC and dark >= PEN_DARK_TALL)
        if pen:
            found.append((dark, frac))
    return found


def blue_ink_share(bgr: np.ndarray, ink: np.ndarray) -> float:
    """Share of ink pixels clearly bluer than the row's paper (blue ballpoint)."""
    if not ink.any():
        return 0.0
    b, g, r = (bgr[..., i].astype(np.float32) for i in range(3))
    paper = ~cv2.dilate(ink.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    if paper.any():  # remove the photo's colour cast
        b, g, r = b - median(b[paper]), g - median(g[paper]), r - median(r[paper])
    blue = (b - r > 25) & (b - g > 12)
    return float(blue[ink].mean())


def row_marks(row_gray: np.ndarray, row_bgr: np.ndarray | None = None,
              print_darkness: float | None = None) -> RowMarks:
    """Strike-through and handwriting on one row (name + count cells of one column).

    print_darkness: optional page reference, e.g. the median `ink_darkness` of the page's
    rows; pen ink is then judged relative to the print instead of by fixed levels.
    """
    if row_gray is None or row_gray.size == 0 or min(row_gray.shape[:2]) < 6:
        return RowMarks(False, 0.0, False, 0.0, "empty row image")
    if row_gray.ndim == 3:
        row_gray = cv2.cvtColor(row_gray, cv2.COLOR_BGR2GRAY)
    gray = _scale(row_gray)
    ink = drop_row_rules(binarize_cell(gray))
    ratio = float(ink.mean())
    if not ink.any():
        return RowMarks(False, 0.0, False, 0.0, "no ink")
    h, w = ink.shape
    strikes = find_row_strikes(ink)
    struck = bool(strikes)
    conf = 0.0
    text_ink = ink
    notes = []
    if strikes:
        best = max(strikes, key=lambda s: s.length)
        conf = float(np.clip(0.5 + (best.length / w - MIN_STRIKE_FRAC) + (best.coverage - 0.85), 0, 1))
        notes.append(f"strike {best.length / w:.0%} of row, {best.coverage:.0%} on ink")
        text_ink = ink.copy()
        for s in strikes:
            m = np.zeros_like(ink, np.uint8)
            cv2.line(m, (s.x0, s.y0), (s.x1, s.y1), 1, thickness=max(3, int(0.15 * h)))
            text_ink &= ~m.astype(bool)
    hand = False
    if row_bgr is not None and row_bgr.ndim == 3 and row_bgr.shape[:2] == row_gray.shape[:2]:
        bshare = blue_ink_share(_scale(row_bgr), text_ink)
        if bshare > 0.3 and text_ink.mean() > 0.004:
            hand = True
            notes.append(f"blue ink {bshare:.0%}")
    if not hand and text_ink.mean() > 0.002:
        pens = pen_glyphs(gray, text_ink, print_darkness)
        if pens:
            hand = True
            notes.append(f"{len(pens)} pen glyph(s), darkness {max(p[0] for p in pens):.0f}")
    return RowMarks(struck, conf, hand, ratio, "; ".join(notes) or "clean")
