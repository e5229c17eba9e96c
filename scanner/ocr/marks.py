"""Pen marks on one sheet row: a strike-through of the whole line, and hand-written text.

Strike: HoughLinesP on the row's ink (minLineLength 0.3 × row width, |angle| < 12°; ocr-trials §4
found it catches thin slanted strikes that morphology misses), then each segment is checked to
run on ink for most of its length and to sit inside the row, not on its rule.
Handwriting: blue ink by colour when the colour row is given; otherwise pen glyphs are darker
than the laser print and taller (measured on the corrected fixture photos). Stroke direction
(pen script leans) was tried and did not separate the two at row resolution.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from scanner.ocr.counts import binarize_cell
from scanner.ocr.order_stats import median, percentile
from scanner.ocr.thresholds import MASK_ON, PAPER


@dataclass(frozen=True)
class MarksTuning:
    """The numbers of the pen-mark stage, one home each (issue 32: per-stage tuning). Shares
    are of the row as scaled to `row_h` pixels high."""

    row_h: int = 48
    """Rows are scaled to this height before measuring."""
    min_row_px: int = 6
    """A row image smaller than this either way is not measured."""
    # ---- rule remnants -------------------------------------------------------------------
    rule_band: tuple[int, float] = (2, 0.12)
    """Rule remnants are looked for in a band (pixels, share of the height), the larger, at the
    row's top and bottom…"""
    rule_row_share: float = 0.6
    """…as pixel rows at least this share ink…"""
    rule_side_px: int = 3
    """…and in this many pixel columns at the row's left and right…"""
    rule_column_share: float = 0.7
    """…as pixel columns at least this share ink (after the rows went)."""
    # ---- strikes -------------------------------------------------------------------------
    min_strike_frac: float = 0.4
    """A strike is at least this fraction of the row width (struck rows: 45–100 %); at 0.3 the
    horizontal strokes of printed Hangul chained into false strikes on real photos."""
    min_strike_coverage: float = 0.93
    """A strike runs on ink over at least this share of its length."""
    max_strike_angle: float = 12.0
    """A strike leans less than this (degrees)."""
    strike_room_slack: float = 2.0
    """Blank columns beyond (1 − `min_strike_coverage`) of a span that a strike's sampling still
    tolerates (`strike_room`)."""
    hough_votes: tuple[int, float] = (10, 0.1)
    """Hough votes a piece needs: (at least, share of the row width), the larger…"""
    hough_angle_steps: int = 360
    """…angles tried per π…"""
    hough_min_piece: float = 0.08
    """…shortest piece (share of the width)…"""
    hough_gap: tuple[int, float] = (4, 0.12)
    """…and gaps bridged in a piece: (pixels, share of the height), the larger."""
    chain_reach: float = 0.15
    """Pieces of one wavy pen line chain when the next starts within this share of the width
    past the chain's end…"""
    chain_height: tuple[float, int] = (0.12, 2)
    """…within (share of the height) + (pixels) of its height…"""
    chain_join: float = 2.0
    """…or, starting where the chain still runs, within this many `coverage_tol` of the chain's
    line there (two pieces of one pen stroke). A chain is measured along its pieces, not along
    the chord of its ends: a wavy pen line strays from that chord by more than `coverage_tol`
    (a looped line on a phone photo: pieces at heights 22–38 of 48), and joining pieces only where they meet keeps print's
    aligned bars at several heights from chaining into a wandering "strike"."""
    text_band: tuple[float, float] = (0.15, 0.85)
    """A strike's middle lies within this band of the row's height (outside: on the rule)."""
    coverage_tol: tuple[int, float] = (2, 0.06)
    """A strike's point is on ink within (pixels, share of the height), the larger."""
    strike_score: tuple[float, float] = (0.5, 0.85)
    """A strike's confidence: this, plus its length past `min_strike_frac`, plus its coverage
    past this."""
    strike_width: tuple[int, float] = (3, 0.15)
    """A found strike is taken out of the text's ink this thick: (pixels, share of the height),
    the larger."""
    # ---- pen writing ---------------------------------------------------------------------
    pen_dark: int = 165
    """Darkness (255 − `dark_percentile` gray of a glyph) above which ink is pen: on the
    corrected fixture photos print measured 109–154 and pen 159–199 after flattening."""
    pen_dark_tall: int = 140
    """Pen writing is also taller: a glyph ≥ `tall_frac` of the row that is darker than this."""
    tall_frac: float = 0.8
    pen_over_print: int = 30
    """With a page reference (the darkness of printed rows), pen is this much darker."""
    dark_percentile: float = 10
    """A glyph's darkness is measured at this percentile of its grey (its darkest strokes)."""
    min_glyph: tuple[float, int] = (0.25, 15)
    """A glyph is at least this share of the row high and this many pixels large."""
    rule_glyph_width: float = 0.12
    """A glyph running the row's whole height no wider than this share of it is a table rule."""
    blue: tuple[int, int] = (25, 12)
    """Blue ballpoint: blue exceeds red by this and green by that (the paper's cast removed)."""
    paper_ring_px: int = 5
    """The paper is what lies outside the ink grown by this square."""
    blue_share: float = 0.3
    """A row whose ink is more than this share blue…"""
    blue_min_ink: float = 0.004
    """…and at least this share ink is hand-written."""
    pen_min_ink: float = 0.002
    """A row with less ink than this share holds no pen glyph worth measuring."""


MARKS = MarksTuning()


COLOUR = 3
"""Dimensions of a colour image (height, width, channels)."""


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


Piece = tuple[int, int, int, int]
"""A Hough segment (x0, y0, x1, y1), left to right."""


@dataclass
class RowStrike:
    x0: int
    y0: int
    x1: int
    y1: int
    coverage: float
    """Share of points along the strike's path that lie on ink."""
    path: tuple[tuple[int, int], ...] = field(default=(), repr=False)
    """(x, y) of the strike at every column from x0 to x1: the chained pieces, their gaps
    bridged straight (a wavy pen line is no straight segment)."""

    @property
    def length(self) -> float:
        return float(np.hypot(self.x1 - self.x0, self.y1 - self.y0))


def _scale(img: np.ndarray, tuning: MarksTuning = MARKS) -> np.ndarray:
    k = tuning.row_h / img.shape[0]
    w = max(1, int(round(img.shape[1] * k)))
    return cv2.resize(img, (w, tuning.row_h), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_CUBIC)


def drop_row_rules(ink: np.ndarray, tuning: MarksTuning = MARKS) -> np.ndarray:
    """Remove rule remnants: long straight runs hugging the top/bottom edge, or a full-height
    line at the left/right edge. A pen strike is inside the row and wavy."""
    h, w = ink.shape
    out = ink.copy()
    band = max(tuning.rule_band[0], int(tuning.rule_band[1] * h))
    for ys in (slice(0, band), slice(h - band, h)):
        rows = out[ys]
        rows[rows.mean(axis=1) > tuning.rule_row_share] = False
    side = tuning.rule_side_px
    for xs in (slice(0, side), slice(w - side, w)):  # (the columns' shares after the rows went)
        cols = out[:, xs]
        cols[:, cols.mean(axis=0) > tuning.rule_column_share] = False
    return out


def chain_path(chain: list[Piece]) -> tuple[np.ndarray, np.ndarray]:
    """(xs, ys) of a chain of pieces at every column of its span: each piece from its start on
    (a later piece takes over where pieces overlap), the gaps between them bridged straight."""
    x0, x1 = chain[0][0], max(p[2] for p in chain)
    xs = np.arange(x0, x1 + 1)
    ys = np.full(len(xs), np.nan)
    for a, ya, b, yb in chain:
        ys[a - x0:b - x0 + 1] = np.linspace(ya, yb, b - a + 1)
    known = ~np.isnan(ys)
    ys[~known] = np.interp(xs[~known], xs[known], ys[known])
    return xs, ys


def _height_at(chain: list[Piece], x: float) -> float:
    """The chain's height at column x (its end's beyond its end)."""
    xs, ys = chain_path(chain)
    return float(np.interp(x, xs, ys))


def _coverage(ink: np.ndarray, xs: np.ndarray, ys: np.ndarray, tol: int) -> float:
    xs, ys = xs.round().astype(int), ys.round().astype(int)
    near = cv2.dilate(ink.astype(np.uint8), np.ones((2 * tol + 1, 3), np.uint8))
    ys = np.clip(ys, 0, ink.shape[0] - 1)
    xs = np.clip(xs, 0, ink.shape[1] - 1)
    return float(near[ys, xs].mean())


def strike_room(ink: np.ndarray, tuning: MarksTuning = MARKS) -> bool:
    """Whether the row's ink leaves room for a strike `find_row_strikes` would keep: a span of
    at least `min_strike_frac` of the row whose columns have ink within one column almost
    everywhere. A kept strike samples one point per column of its span but one, and a point
    is on ink (`_coverage`) only where its column or a neighbour holds ink, so its span has at
    most (1 − `min_strike_coverage`) of its length + 1 blank columns (2 allowed here). A row of
    short words has no such span: most rows are settled without a Hough transform."""
    w = ink.shape[1]
    span = int(np.ceil(tuning.min_strike_frac * w))
    if span > w:
        return False
    cols = ink.any(axis=0)
    near = cols.copy()
    near[1:] |= cols[:-1]
    near[:-1] |= cols[1:]
    blank_before = np.concatenate(([0], np.cumsum(~near)))  # blank columns left of x
    # A span [a, b) fits when blank(b) − blank(a) ≤ miss·(b − a) + 2, i.e. f(b) − f(a) ≤ 2:
    # for each end b, the best start is the largest f(a) with a ≤ b − span.
    f = blank_before - (1.0 - tuning.min_strike_coverage) * np.arange(w + 1)
    best_start = np.maximum.accumulate(f[:w + 1 - span])
    return bool((f[span:] - best_start <= tuning.strike_room_slack).any())


def find_row_strikes(ink: np.ndarray, tuning: MarksTuning = MARKS) -> list[RowStrike]:
    """Near-horizontal lines at least `min_strike_frac` of the row long that run on ink.

    Hough segments of one wavy pen line come in pieces: pieces that meet are chained first,
    and a chain is measured along its pieces (`chain_path`).
    """
    if not strike_room(ink, tuning):
        return []
    h, w = ink.shape
    min_len = tuning.min_strike_frac * w
    votes = max(tuning.hough_votes[0], int(tuning.hough_votes[1] * w))
    segs = cv2.HoughLinesP(ink.astype(np.uint8) * MASK_ON, 1, np.pi / tuning.hough_angle_steps, threshold=votes,
                           minLineLength=int(tuning.hough_min_piece * w),
                           maxLineGap=max(tuning.hough_gap[0], int(tuning.hough_gap[1] * h)))
    pieces = []
    for x0, y0, x1, y1 in ([] if segs is None else np.asarray(segs).reshape(-1, 4)):
        if x1 < x0:
            x0, y0, x1, y1 = x1, y1, x0, y0
        if x1 == x0 or abs(np.degrees(np.arctan2(y1 - y0, x1 - x0))) > tuning.max_strike_angle:
            continue
        pieces.append((int(x0), int(y0), int(x1), int(y1)))
    pieces.sort()
    share, px = tuning.chain_height
    near = share * h + px
    tol = max(tuning.coverage_tol[0], int(tuning.coverage_tol[1] * h))
    on_line = tuning.chain_join * tol
    chains: list[list[Piece]] = []
    for piece in pieces:
        x0, y0, x1, y1 = piece
        if any(x0 >= c[0][0] - px and x1 <= c[-1][2] + px
               and abs(_height_at(c, (x0 + x1) / 2) - (y0 + y1) / 2) <= on_line for c in chains):
            continue  # on a chain already
        # the chain this piece carries on: it starts on the chain's line where they overlap,
        # near its height past its end; the nearest of those
        ends = []
        for i, c in enumerate(chains):
            end = c[-1][2]
            if x0 <= end + tuning.chain_reach * w and x1 > end:
                d = abs(_height_at(c, x0) - y0)
                if d <= (on_line if x0 <= end else near):
                    ends.append((d, i))
        if ends:
            chains[min(ends)[1]].append(piece)
        else:
            chains.append([piece])
    out = []
    for c in chains:
        xs, ys = chain_path(c)
        if xs[-1] - xs[0] < min_len:
            continue
        if not tuning.text_band[0] * h <= float(ys.mean()) <= tuning.text_band[1] * h:
            continue  # on the rule, not through the text
        cov = _coverage(ink, xs, ys, tol)
        if cov >= tuning.min_strike_coverage:
            yi = ys.round().astype(int)
            out.append(RowStrike(int(xs[0]), int(yi[0]), int(xs[-1]), int(yi[-1]), cov,
                                 path=tuple(zip(xs.tolist(), yi.tolist()))))
    return out


def ink_darkness(gray: np.ndarray, mask: np.ndarray, tuning: MarksTuning = MARKS) -> float:
    """255 − the 10th-percentile gray of the ink: how dark the darkest strokes are."""
    return float(PAPER - percentile(gray[mask], tuning.dark_percentile)) if mask.any() else 0.0


def pen_glyphs(gray: np.ndarray, ink: np.ndarray, reference: float | None, tuning: MarksTuning = MARKS
               ) -> list[tuple[float, float]]:
    """(darkness, height fraction) of every glyph that looks like pen rather than print."""
    h = ink.shape[0]
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    found = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if bh < tuning.min_glyph[0] * h or area < tuning.min_glyph[1]:
            continue
        if y <= 1 and y + bh >= h - 1 and bw <= tuning.rule_glyph_width * h:
            continue  # a vertical table rule crossing the row
        dark = ink_darkness(gray[y:y + bh, x:x + bw], lab[y:y + bh, x:x + bw] == i, tuning)
        frac = bh / h
        if reference is not None:
            pen = dark >= reference + tuning.pen_over_print
        else:
            pen = dark >= tuning.pen_dark or (frac >= tuning.tall_frac and dark >= tuning.pen_dark_tall)
        if pen:
            found.append((dark, frac))
    return found


def blue_ink_share(bgr: np.ndarray, ink: np.ndarray, tuning: MarksTuning = MARKS) -> float:
    """Share of ink pixels clearly bluer than the row's paper (blue ballpoint)."""
    if not ink.any():
        return 0.0
    b, g, r = (bgr[..., i].astype(np.float32) for i in range(3))
    ring = tuning.paper_ring_px
    paper = ~cv2.dilate(ink.astype(np.uint8), np.ones((ring, ring), np.uint8)).astype(bool)
    if paper.any():  # remove the photo's colour cast
        b, g, r = b - median(b[paper]), g - median(g[paper]), r - median(r[paper])
    over_red, over_green = tuning.blue
    blue = (b - r > over_red) & (b - g > over_green)
    return float(blue[ink].mean())


def row_marks(row_gray: np.ndarray, row_bgr: np.ndarray | None = None,
              print_darkness: float | None = None, tuning: MarksTuning = MARKS) -> RowMarks:
    """Strike-through and handwriting on one row (name + count cells of one column).

    print_darkness: optional page reference, e.g. the median `ink_darkness` of the page's
    rows; pen ink is then judged relative to the print instead of by fixed levels.
    """
    if row_gray is None or row_gray.size == 0 or min(row_gray.shape[:2]) < tuning.min_row_px:
        return RowMarks(False, 0.0, False, 0.0, "empty row image")
    if row_gray.ndim == COLOUR:
        row_gray = cv2.cvtColor(row_gray, cv2.COLOR_BGR2GRAY)
    gray = _scale(row_gray, tuning)
    ink = drop_row_rules(binarize_cell(gray), tuning)
    ratio = float(ink.mean())
    if not ink.any():
        return RowMarks(False, 0.0, False, 0.0, "no ink")
    h, w = ink.shape
    strikes = find_row_strikes(ink, tuning)
    struck = bool(strikes)
    conf = 0.0
    text_ink = ink
    notes = []
    if strikes:
        best = max(strikes, key=lambda s: s.length)
        base, full = tuning.strike_score
        conf = float(np.clip(base + (best.length / w - tuning.min_strike_frac) + (best.coverage - full), 0, 1))
        notes.append(f"strike {best.length / w:.0%} of row, {best.coverage:.0%} on ink")
        text_ink = ink.copy()
        for s in strikes:
            m = np.zeros_like(ink, np.uint8)
            pts = np.array(s.path or ((s.x0, s.y0), (s.x1, s.y1)), np.int32).reshape(-1, 1, 2)
            cv2.polylines(m, [pts], False, 1, thickness=max(tuning.strike_width[0], int(tuning.strike_width[1] * h)))
            text_ink &= ~m.astype(bool)
    hand = False
    if row_bgr is not None and row_bgr.ndim == COLOUR and row_bgr.shape[:2] == row_gray.shape[:2]:
        bshare = blue_ink_share(_scale(row_bgr, tuning), text_ink, tuning)
        if bshare > tuning.blue_share and text_ink.mean() > tuning.blue_min_ink:
            hand = True
            notes.append(f"blue ink {bshare:.0%}")
    if not hand and text_ink.mean() > tuning.pen_min_ink:
        pens = pen_glyphs(gray, text_ink, print_darkness, tuning)
        if pens:
            hand = True
            notes.append(f"{len(pens)} pen glyph(s), darkness {max(p[0] for p in pens):.0f}")
    return RowMarks(struck, conf, hand, ratio, "; ".join(notes) or "clean")
