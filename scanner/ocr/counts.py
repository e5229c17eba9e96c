"""Read the count cell of a photographed sheet: printed digit, hand digit, struck and corrected.

Tesseract reads a hand "1" as | ! : ㅣ and misses struck digits (docs: ocr-trials §4), so counts
are read here instead: ink → connected glyphs → strike lines (Hough, then a geometric test:
the line runs through the middle of a glyph and out past it, which no stroke of a digit does)
→ each unstruck glyph against rendered digit templates (nearest neighbours, printed and pen fonts).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from scanner.ocr.glyphs import FEAT_SIZE, glyph_features  # noqa: F401 (the features live there)
from scanner.ocr.hand_digits import odds_among
from scanner.ocr.order_stats import median, percentile
from scanner.ocr.thresholds import INK_RULE
from scanner.ocr.tools import shipped_data

H_NORM = 64
"""Cells are scaled to this height before anything is measured (a 44 px row at ~218 dpi → 64)."""
MIN_GLYPH_H = 0.17
"""A glyph shorter than this fraction of the cell height is a speck, a dot or a rule remnant."""
K_NEIGHBOURS = 5
STRUCK_LABEL = 10
"""Template label of a printed digit with a pen strike through it."""
TEMPLATES_PATH = Path(__file__).resolve().parent / "data" / "digit_templates.npz"


@dataclass
class CountRead:
    """What a count cell says."""

    value: int | None
    """1..3 normally (0..9 accepted); after a correction the NEW value; None when unreadable."""
    confidence: float
    """0..1; low when the glyph is far from every template or two digits are close."""
    glyphs: int
    """Separate ink groups found (>1 with a strike = a correction)."""
    struck: bool
    """A digit in the cell is struck through (slash, dash or double dash)."""
    detail: str
    height: float = 0.0
    """Ink height of the glyph read, as a share of the cell height: a pen digit is written
    taller than the printed ones (compare with the page's other count cells)."""
    old: int | None = None
    """The struck (old) digit as read, when there is one (less reliable than `value`)."""
    odds: dict[int, float] = field(default_factory=dict)
    """A hand-written count (`read_hand_count`): how likely each of `COUNT_VALUES` is (sums to
    1); empty for other reads. The column's written total may then choose among them."""
    shape: np.ndarray | None = None
    """A hand-written count: the digit's `glyph_features` (the page's other counts in the same
    hand are compared with it: `count_hand.page_odds`)."""


@dataclass
class StrikeLine:
    """A pen line found through a glyph, in normalised cell pixels."""

    x0: int
    y0: int
    x1: int
    y1: int
    angle_deg: float


@dataclass
class Glyph:
    """One ink group of a cell (connected components merged when they overlap in x)."""

    x0: int
    y0: int
    x1: int
    y1: int
    mask: np.ndarray
    """Ink of this group only, cropped to its box."""
    struck_by: list[StrikeLine] = field(default_factory=list)

    @property
    def height(self) -> int:
        return self.y1 - self.y0

    @property
    def width(self) -> int:
        return self.x1 - self.x0


# ------------------------------------------------------------------ ink

def binarize_cell(gray: np.ndarray) -> np.ndarray:
    """Ink mask (bool) of a flattened grayscale cell; empty when there is no real contrast."""
    g = gray.astype(np.float32)
    k = max(3, (min(g.shape) // 2) | 1)
    bg = cv2.GaussianBlur(cv2.dilate(g, np.ones((5, 5), np.uint8)), (k, k), 0)
    dark = np.clip(bg - g, 0, 255)
    peak = percentile(dark, 99.7) if dark.size else 0.0
    if peak < 45:
        return np.zeros(g.shape, bool)
    otsu, _ = cv2.threshold(dark.astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    t = max(30.0, min(float(otsu), 0.45 * peak))
    return dark > t


def normalise(cell: np.ndarray) -> np.ndarray:
    """Grayscale uint8 scaled to H_NORM rows."""
    if cell.ndim == 3:
        cell = cv2.cvtColor(cell, cv2.COLOR_BGR2GRAY)
    k = H_NORM / cell.shape[0]
    w = max(1, int(round(cell.shape[1] * k)))
    return cv2.resize(cell, (w, H_NORM), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_CUBIC)


def drop_rule_remnants(ink: np.ndarray) -> np.ndarray:
    """Remove table-rule leftovers: thin lines hugging the cell border, and specks."""
    h, w = ink.shape
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    keep = np.zeros(n, bool)
    real = stats[:, 4] >= 6
    real[0] = False
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < 6:
            continue
        touches_lr = x <= 1 or x + bw >= w - 1
        touches_tb = y <= 1 or y + bh >= h - 1
        if touches_lr and bw <= 4 and bh > 0.6 * h:
            continue  # a vertical rule
        if touches_tb and bh <= 4 and bw > 0.6 * w:
            continue  # a horizontal rule
        if (y <= 3 or y + bh >= h - 3) and bh <= 3 and bw >= 3 * bh and not _ink_next_to(lab, i, stats, real):
            continue  # a dash of a dashed rule (the cut-off top of a pen digit has the digit by it)
        if (y <= 1 or y + bh >= h - 1) and bh <= EDGE_BIT_H * h and area <= EDGE_BIT_THICK * bw and bw >= EDGE_BIT_W * w:
            continue  # a long thin bit of a row rule along the edge, a corner's stub with it
        keep[i] = True
    return keep[lab]


EDGE_BIT_H = 0.1
"""A rule bit left along a count cell's top or bottom edge is at most this share of the cell high
(a bent rule's end with the stub of the column rule at the corner: 5 of 64 px)..."""
EDGE_BIT_THICK = 3.5
"""...at most this many pixels thick on average (a rule 2-3 px; a digit's stroke is 6-10 px at H_NORM)."""
EDGE_BIT_W = 0.4
"""...and at least this share of the cell wide: wider than any digit's foot or cut-off top (a
count digit is ≤ 0.25 of its cell wide), so no digit's own ink beside it keeps it."""


DASH_CLEAR = 10
"""Clear pixels between a flat remnant at the cell's edge and any other ink above or below it."""


def _ink_next_to(lab: np.ndarray, i: int, stats: np.ndarray, real: np.ndarray) -> bool:
    """Other real ink (`real`: components that are no speck) within DASH_CLEAR px above or
    below component `i`, over its own columns: a speck of JPEG grain keeps no dash."""
    x, y, bw, bh = (int(v) for v in stats[i][:4])
    near = lab[max(0, y - DASH_CLEAR):y + bh + DASH_CLEAR, x:x + bw]
    return bool((real[near] & (near != i)).any())


def stroke_width(ink: np.ndarray) -> float:
    """Typical stroke width in pixels (twice the mean distance-to-background on the ridge)."""
    if not ink.any():
        return 0.0
    dist = cv2.distanceTransform(ink.astype(np.uint8), cv2.DIST_L2, 3)
    ridge = dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8)) - 1e-6
    vals = dist[ridge & ink]
    return 2 * median(vals) if vals.size else 1.0


ONE_GLYPH_ASPECT = 0.75
"""Width / height under which overlapping parts are one digit (printed and pen digits are
0.3–0.7 as wide as tall; two digits side by side are wider than tall)."""


def group_components(ink: np.ndarray, min_h: float) -> list[Glyph]:
    """Connected components merged into glyphs when their x ranges overlap (a broken stroke,
    an accent); specks shorter than min_h that touch nothing are dropped."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    boxes = [(int(stats[i][0]), int(stats[i][1]), int(stats[i][0] + stats[i][2]), int(stats[i][1] + stats[i][3]), [i])
             for i in range(1, n) if stats[i][4] >= 4]
    boxes.sort()
    merged: list[tuple[int, int, int, int, list[int]]] = []
    for b in boxes:
        if merged:
            m = merged[-1]
            overlap = min(m[2], b[2]) - max(m[0], b[0])
            union_w, union_h = max(m[2], b[2]) - min(m[0], b[0]), max(m[3], b[3]) - min(m[1], b[1])
            # (or overlapping at all while the union is as narrow as one digit: a soft photo's
            # 3 whose arc ends broke off, left of its body)
            if overlap > 0.3 * min(m[2] - m[0], b[2] - b[0]) or (overlap > 0 and union_w <= ONE_GLYPH_ASPECT * union_h):
                merged[-1] = (min(m[0], b[0]), min(m[1], b[1]), max(m[2], b[2]), max(m[3], b[3]), m[4] + b[4])
                continue
        merged.append(b)
    out = []
    for x0, y0, x1, y1, ids in merged:
        if y1 - y0 < min_h and x1 - x0 < min_h:
            continue
        crop = lab[y0:y1, x0:x1]
        mask = crop == ids[0]  # (np.isin costs ~0.1 ms a call; a glyph has one to a few parts)
        for i in ids[1:]:
            mask |= crop == i
        out.append(Glyph(x0, y0, x1, y1, mask))
    return out


# ------------------------------------------------------------------ strikes

def strike_lines(ink: np.ndarray, sw: float) -> list[StrikeLine]:
    """Straight segments that could be a pen strike: not near-vertical, at least ~1/5 of the
    cell height long. Merely candidates; `strikes_through` decides."""
    h = ink.shape[0]
    segs = cv2.HoughLinesP(ink.astype(np.uint8) * 255, 1, np.pi / 180, threshold=int(0.15 * h),
                           minLineLength=int(0.22 * h), maxLineGap=max(2, int(sw)))
    out = []
    for x0, y0, x1, y1 in ([] if segs is None else np.asarray(segs).reshape(-1, 4)):
        if x1 < x0:
            x0, y0, x1, y1 = x1, y1, x0, y0
        ang = float(np.degrees(np.arctan2(-(y1 - y0), x1 - x0)))
        if abs(ang) <= 65:
            out.append(StrikeLine(int(x0), int(y0), int(x1), int(y1), ang))
    return out


def _line_mask(shape: tuple[int, int], line: StrikeLine, thick: int) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    # extend a little: Hough segments stop short of the rounded pen ends
    dx, dy = line.x1 - line.x0, line.y1 - line.y0
    n = max(1e-6, np.hypot(dx, dy))
    e = thick / 2
    p0 = (int(round(line.x0 - dx / n * e)), int(round(line.y0 - dy / n * e)))
    p1 = (int(round(line.x1 + dx / n * e)), int(round(line.y1 + dy / n * e)))
    cv2.line(m, p0, p1, 1, thickness=thick)
    return m.astype(bool)


def strikes_through(line: StrikeLine, core: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    """True when `line` crosses the glyph core (ink without the line) through its middle band and
    runs out past it: digits' own straight strokes (the foot of 2, the top of 7, the bar of 4,
    a serif) sit at the glyph's edge or end at its box."""
    x0, y0, x1, y1 = box
    gh = y1 - y0
    if gh <= 0:
        return False
    # where the line is while it is over the glyph
    xa, xb = max(line.x0, x0), min(line.x1, x1)
    if xb <= xa:
        return False
    slope = (line.y1 - line.y0) / max(1, line.x1 - line.x0)
    ymid = line.y0 + slope * ((xa + xb) / 2 - line.x0)
    rel = (ymid - y0) / gh
    if not 0.15 <= rel <= 0.85:
        return False
    ext_x = (x0 - line.x0) + (line.x1 - x1)
    lo_y, hi_y = min(line.y0, line.y1), max(line.y0, line.y1)
    ext_y = (y0 - lo_y) + (hi_y - y1)
    if min(x0 - line.x0, line.x1 - x1) < -0.12 * gh:
        # the line stops inside the glyph: only a slash that leaves it above and below counts
        return abs(line.angle_deg) > 25 and min(y0 - lo_y, hi_y - y1) > 0.05 * gh and ext_y > 0.2 * gh
    return ext_x >= 0.25 * gh or (abs(line.angle_deg) > 25 and ext_y >= 0.2 * gh)


def find_struck_glyphs(ink: np.ndarray, min_h: float,
                       whole: bool = False) -> tuple[list[Glyph], list[StrikeLine]]:
    """Glyphs of the cell and the strikes that cross them.

    Each candidate is tested with its parallel lines of similar length taken out too (a double
    dash is two lines: with the twin still in place the glyph would look as wide as the dash). The returned glyphs are the ink minus
    the confirmed strikes only, so a new digit touching a strike separates from the old one.
    `whole`: the line must also run out past all the ink in its columns taken together, not
    only past the piece it touches (`_under_box`).
    """
    sw = stroke_width(ink)
    thick = max(3, int(round(sw * 1.6)) + 1)
    lines = strike_lines(ink, sw)
    masks = [_line_mask(ink.shape, line, thick) for line in lines]
    lengths = [np.hypot(line.x1 - line.x0, line.y1 - line.y0) for line in lines]
    confirmed: list[StrikeLine] = []
    grow = np.ones((3, 3), np.uint8)
    for i, (line, lm) in enumerate(zip(lines, masks)):
        core = ink & ~lm
        twins = [j for j, other in enumerate(lines)  # its twin of a double dash, and Hough's duplicates
                 if j != i and abs(other.angle_deg - line.angle_deg) < 12 and lengths[j] >= 0.7 * lengths[i]
                 and _twins(line, other, ink.shape[0])]
        if not _bars_around(line, [lines[j] for j in twins], sw):
            for j in twins:
                core &= ~masks[j]
        pieces = group_components(core, min_h)
        for g in pieces:
            if g.height < min_h:
                continue
            near = cv2.dilate(g.mask.astype(np.uint8), grow).astype(bool)
            if not (lm[g.y0:g.y1, g.x0:g.x1] & near).any():
                continue
            if strikes_through(line, g.mask, (g.x0, g.y0, g.x1, g.y1)) and (
                    not whole or strikes_through(line, g.mask, _under_box(core, line))):
                confirmed.append(line)
                break
    glyphs = _glyphs_without(ink, confirmed, thick, min_h)
    # A "strike" through no glyph is a stroke of the digit itself (the long middle bar of a
    # bold 3): cutting it out maims the digit, so the glyphs are cut again without it.
    used = [line for line in confirmed if any(line in g.struck_by for g in glyphs)]
    if len(used) < len(confirmed):
        confirmed = used
        glyphs = _glyphs_without(ink, confirmed, thick, min_h)
    return glyphs, confirmed


def _under_box(core: np.ndarray, line: StrikeLine) -> tuple[int, int, int, int]:
    """The box of all the ink (the line taken out, specks kept) in the line's columns. A
    straight stroke of a digit cuts it into pieces and runs out past each (the diagonal of a
    serif 2 between its arc and its foot, on a blocky, soft photo of a form: `struck [5]`), never
    past the digit; a strike runs out past the digit it crosses."""
    ys, xs = np.nonzero(core[:, max(0, line.x0):line.x1 + 1])
    if xs.size == 0:
        return line.x0, min(line.y0, line.y1), line.x1 + 1, max(line.y0, line.y1) + 1
    x0 = max(0, line.x0)
    return x0 + int(xs.min()), int(ys.min()), x0 + int(xs.max()) + 1, int(ys.max()) + 1


TWIN_GAP = 0.25
"""The two dashes of a double dash lie within this share of the cell height of each other; two
parallel strokes further apart (the top arc and the foot of a 2) are the digit itself."""


def _y_at(s: StrikeLine, x: float) -> float:
    return s.y0 + (s.y1 - s.y0) * (x - s.x0) / max(1, s.x1 - s.x0)


def _bars_around(line: StrikeLine, twins: list[StrikeLine], sw: float) -> bool:
    """Parallel strokes both above and below the line, more than a stroke's width away: the
    line is the middle bar of a 3 between its top and foot, not one dash of a double dash
    (whose twin lies on one side; taking both out would leave the 3's spine as a struck glyph)."""
    x = (line.x0 + line.x1) / 2
    offsets = [_y_at(t, x) - _y_at(line, x) for t in twins]
    gap = max(2.0, sw)  # Hough's duplicates of the line itself lie within its stroke
    return any(d > gap for d in offsets) and any(d < -gap for d in offsets)


def _twins(a: StrikeLine, b: StrikeLine, h: int) -> bool:
    """Two parallel lines side by side along their length, close enough to be one double dash."""
    overlap = min(a.x1, b.x1) - max(a.x0, b.x0)
    if overlap < 0.5 * min(a.x1 - a.x0, b.x1 - b.x0):
        return False
    x = (max(a.x0, b.x0) + min(a.x1, b.x1)) / 2

    def y_at(s: StrikeLine) -> float:
        return s.y0 + (s.y1 - s.y0) * (x - s.x0) / max(1, s.x1 - s.x0)
    return abs(y_at(a) - y_at(b)) <= TWIN_GAP * h


def _glyphs_without(ink: np.ndarray, strikes: list[StrikeLine], thick: int, min_h: float) -> list[Glyph]:
    """The glyphs of the ink with the strikes cut out, each with the strikes through it."""
    rest = ink.copy()
    for line in strikes:
        rest &= ~_line_mask(ink.shape, line, thick)
    glyphs = [g for g in group_components(rest, min_h) if g.height >= min_h]
    for g in glyphs:
        for line in strikes:
            # through the glyph, not merely ending in it (a new digit written against the strike)
            if line.x0 > g.x0 + 0.25 * g.width or line.x1 < g.x1 - 0.25 * g.width:
                continue
            slope = (line.y1 - line.y0) / max(1, line.x1 - line.x0)
            y = line.y0 + slope * ((g.x0 + g.x1) / 2 - line.x0)
            if g.y0 - 2 <= y <= g.y1 + 2:
                g.struck_by.append(line)
    return glyphs


# ------------------------------------------------------------------ digit reader

@dataclass
class DigitTemplates:
    """Feature vectors of rendered digits (printed and pen fonts) with their labels."""

    features: np.ndarray
    labels: np.ndarray
    fonts: np.ndarray
    hand: np.ndarray

    def without_font(self, font: str) -> "DigitTemplates":
        keep = self.fonts != font
        return DigitTemplates(self.features[keep], self.labels[keep], self.fonts[keep], self.hand[keep])


@lru_cache(maxsize=4)
def load_templates(path: Path = TEMPLATES_PATH) -> DigitTemplates:
    """The shipped templates (built by `python -m tools.make_digit_templates`)."""
    with np.load(shipped_data(path, "tools.make_digit_templates")) as z:
        return DigitTemplates(z["features"].astype(np.float32), z["labels"].astype(int), z["fonts"], z["hand"])


@dataclass
class GlyphRead:
    """The nearest-neighbour verdict on one glyph."""

    digit: int
    """Best digit label (never the struck label)."""
    confidence: float
    distance: float
    """Distance to the nearest digit template (≈0.1–0.3 for a clean digit)."""
    struck_share: float
    """Share of the K nearest templates that are struck digits."""


DISTANCE_ROWS = 256
"""Templates compared at a time: the differences of a block stay in the cache (all ~2,600
at once make megabyte temporaries, 5× slower)."""


def template_distances(features: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Euclidean distance (float32) of `f` to every row of `features`: each row's sum of
    squares is numpy's own, as in `np.linalg.norm(features - f, axis=1)`, block by block."""
    out = np.empty(len(features), np.float32)
    block = np.empty((min(DISTANCE_ROWS, len(features)), features.shape[1]), np.float32)
    for a in range(0, len(features), DISTANCE_ROWS):
        b = min(len(features), a + DISTANCE_ROWS)
        x = block[:b - a]
        np.subtract(features[a:b], f, out=x)
        np.multiply(x, x, out=x)
        np.sqrt(np.add.reduce(x, axis=1), out=out[a:b])
    return out


def classify_glyph(mask: np.ndarray, templates: DigitTemplates) -> GlyphRead:
    f = glyph_features(mask)
    d = template_distances(templates.features, f)
    order = np.argsort(d)
    near = order[:K_NEIGHBOURS]
    struck_share = float(np.mean(templates.labels[near] == STRUCK_LABEL))
    digits = order[templates.labels[order] != STRUCK_LABEL][: K_NEIGHBOURS * 3]
    votes: dict[int, float] = {}
    for i in digits[:K_NEIGHBOURS]:
        votes[int(templates.labels[i])] = votes.get(int(templates.labels[i]), 0.0) + 1.0 / (d[i] + 0.05)
    best = max(votes, key=votes.get)
    best_d = float(d[digits[0]])
    other = [d[i] for i in digits if int(templates.labels[i]) != best]
    margin = (float(other[0]) - best_d) if other else 0.5
    share = votes[best] / sum(votes.values())
    closeness = float(np.clip((0.55 - best_d) / 0.35, 0, 1))
    conf = float(np.clip(share * closeness * min(1.0, 0.5 + margin * 5), 0, 1))
    return GlyphRead(best, conf, best_d, struck_share)


# ------------------------------------------------------------------ the cell

STRUCK_SHARE = 0.4
"""Call a glyph struck when this share of its nearest templates are struck digits: a missed
strike is a silent wrong count, a false one only costs a review."""


def read_count_cell(cell: np.ndarray, beside: np.ndarray | None = None,
                    templates: DigitTemplates | None = None, whole: bool = False) -> CountRead:
    """Read a count cell (grayscale uint8, white paper, table rules removed).

    A struck digit with an unstruck one beside it → the unstruck (new) value, struck=True.
    A struck digit alone → value None unless `beside` (the strip of the name cell left of the
    count cell, same rows) holds a digit, which is then taken as the new value.
    Callers should flag any read with struck=True, value None or confidence < 0.5. `whole`: a
    strike must run out past all the ink it touches (`find_struck_glyphs`; the Konami form).
    """
    if cell is None or cell.size == 0 or min(cell.shape[:2]) < 6:
        return CountRead(None, 0.0, 0, False, "empty or tiny cell image")
    templates = templates or load_templates()
    ink = drop_rule_remnants(binarize_cell(normalise(cell)))
    min_h = MIN_GLYPH_H * H_NORM
    glyphs, lines = find_struck_glyphs(ink, min_h, whole)
    if not glyphs:
        return CountRead(None, 0.0, 0, bool(lines), "struck, nothing left" if lines else "empty")
    reads = [classify_glyph(g.mask, templates) for g in glyphs]
    is_struck = [bool(g.struck_by) or r.struck_share >= STRUCK_SHARE for g, r in zip(glyphs, reads)]
    clean = [(g, r) for g, r, st in zip(glyphs, reads, is_struck) if not st]
    struck = [(g, r) for g, r, st in zip(glyphs, reads, is_struck) if st]
    if not struck:
        if len(clean) == 1:
            r = clean[0][1]
            return CountRead(r.digit, r.confidence, 1, False, f"digit {r.digit} (d={r.distance:.2f})",
                             height=clean[0][0].height / H_NORM)
        # several unstruck glyphs: "10"-like or a stray mark; keep the most digit-like, low confidence
        g, r = max(clean, key=lambda gr: gr[1].confidence)
        return CountRead(r.digit, r.confidence * 0.5, len(clean), False,
                         f"{len(clean)} unstruck glyphs; took {r.digit}",
                         height=max(g.height for g, _ in clean) / H_NORM)
    old = [r.digit for _, r in struck]
    if clean:
        # the new digit: the most digit-like unstruck glyph, nearest the struck one on a tie
        sx = float(np.mean([(g.x0 + g.x1) / 2 for g, _ in struck]))
        g, r = min(clean, key=lambda gr: (-round(gr[1].confidence, 2), abs((gr[0].x0 + gr[0].x1) / 2 - sx)))
        return CountRead(r.digit, r.confidence, len(glyphs), True,
                         f"struck {old} → new {r.digit} (d={r.distance:.2f})",
                         height=g.height / H_NORM, old=old[0] if len(old) == 1 else None)
    if beside is not None and beside.size:
        got = read_beside(beside, templates)
        if got is not None:
            return CountRead(got.digit, got.confidence * 0.8, len(glyphs) + 1, True,
                             f"struck {old} → new {got.digit} written left of the cell",
                             old=old[0] if len(old) == 1 else None)
    return CountRead(None, 0.0, len(glyphs), True, f"struck {old}, no new digit in the cell",
                     old=old[0] if len(old) == 1 else None)


PAINTED_ROW = 0.5
"""A band row at least this share painted out (the grid's rule mask) is a horizontal rule."""
CROSSING = (2, 2)
"""A stroke crosses a painted-out rule where ink lies within (rows) of the rule on both sides,
within (columns) of each other (a slanted pen stroke)."""


def bridge_painted_rules(ink: np.ndarray, painted: np.ndarray) -> np.ndarray:
    """`ink` (0/1) with the painted-out horizontal rules (`painted`: the band's pixels the grid
    painted white) filled where a stroke crosses them. A pen digit written on a rule is cut by
    its painting, by a gap as tall as the rule was thick: a rectified photo's rule may be painted
    thicker than any fixed bridge (photo-corrected-02: 6 px on a 41 px row; the top bar of a
    hand 3 was then dropped as a neighbour's ink and the 3 read 0), while a taller bridge
    everywhere joins a printed digit to a pen stroke just below it."""
    rule_rows = painted.mean(axis=1) >= PAINTED_ROW
    reach, slant = CROSSING
    widen = np.ones((1, 2 * slant + 1), np.uint8)
    out = ink.copy()
    y = 0
    while y < len(rule_rows):
        if not rule_rows[y]:
            y += 1
            continue
        end = y
        while end < len(rule_rows) and rule_rows[end]:
            end += 1
        above = cv2.dilate(ink[max(0, y - reach):y].any(axis=0).astype(np.uint8)[None], widen)[0]
        below = cv2.dilate(ink[end:end + reach].any(axis=0).astype(np.uint8)[None], widen)[0]
        out[y:end, (above & below).astype(bool)] = 1
        y = end
    return out


def isolate_row(band: np.ndarray, top: int, bottom: int, painted: np.ndarray | None = None,
                stacked: bool = False) -> np.ndarray:
    """The ink of one table row, cut from a taller `band` (gray, rules removed) in which the row
    spans rows top..bottom: strokes are bridged across the painted-out rule to decide what belongs
    to the row (the gap itself stays white), and every ink blob whose middle lies outside the row
    is erased. A pen digit that pokes out of its row stays
    whole; the tail of a neighbour's tall writing is dropped. Returned cropped to the row plus
    whatever of its own ink pokes out. `painted`: the band's pixels painted out as rules (the
    grid's rule mask), across which strokes are bridged however thick the rule was. `stacked`
    (a form filled by hand, digits written large): a neighbour's digit that the bridging joined
    to the row's own across the rule is cut off again (`neighbour_digits`)."""
    if band is None or band.size == 0 or bottom - top < 6:
        return band
    h = bottom - top
    ink = (band < INK_RULE).astype(np.uint8)
    # the painted-out rule leaves a white gap of a few pixels across strokes that cross it
    if painted is not None and painted.shape == band.shape:
        ink = bridge_painted_rules(ink, painted.astype(bool))
    bridged = cv2.morphologyEx(ink, cv2.MORPH_CLOSE,
                               np.ones((max(5, h // 6), 1), np.uint8))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(bridged, connectivity=8)
    keep = np.zeros(n, bool)
    for i in range(1, n):
        y, bh = stats[i][1], stats[i][3]
        mid = y + bh / 2
        keep[i] = top <= mid < bottom
    keep[0] = True
    foreign = cv2.dilate((~keep[lab]).astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    keep[0] = False
    own = keep[lab]
    if stacked and painted is not None and painted.shape == band.shape:
        # the row's blobs parted again at the painted rules
        pieces = own & ~(painted.mean(axis=1) >= PAINTED_ROW)[:, None]
        beyond = neighbour_digits(pieces, top, bottom)
        if beyond.any():
            # (with its soft edges: a photo's blur leaves a halo the cell's binarization sees)
            halo = np.ones((STACK.halo, STACK.halo), np.uint8)
            beyond = cv2.dilate(beyond.astype(np.uint8), halo).astype(bool) & ~own_core(pieces, beyond)
            own &= ~beyond
            foreign |= beyond
    # erase the neighbours' ink only: the row's own strokes keep their soft (anti-aliased) edges
    out = band.copy()
    out[foreign & ~cv2.dilate(own.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)] = 255
    ys = np.nonzero(own.any(axis=1))[0]
    y0 = min(top, int(ys.min())) if ys.size else top
    y1 = max(bottom, int(ys.max()) + 1) if ys.size else bottom
    return out[y0:y1]


@dataclass(frozen=True)
class StackTuning:
    """When a piece of ink beyond the row's rule is the neighbour row's digit, not the row's own
    digit poking out. On a form filled by hand, digits written large touch the rule from both
    sides; the rule's painted gap bridged (`bridge_painted_rules`) joins the two into one blob
    whose middle lies in the row, and the count reader read the pair (a 2 over a 3 as a 1: 7 of
    the 11 wrong counts of held-out set 3501, bench/bench_hand.py)."""

    tall: float = 0.3
    """The piece, cut from the row at the painted rule, stands at least this share of the row
    high (a digit's tail poking out of its row is shorter)…"""
    edge: int = 2
    """…and runs to within this many pixels of the band's far edge (half a row beyond the rule:
    a digit centred in the next row does, a poke seldom)."""
    inside: float = 0.15
    """Share of the piece's ink that may lie within the row (the rule's own thickness)."""
    halo: int = 11
    """Pixels around the cut piece erased with it."""


STACK = StackTuning()


def own_core(own: np.ndarray, beyond: np.ndarray) -> np.ndarray:
    """The row's own pieces, the cut ones apart: what the halo erased round them must spare."""
    return cv2.dilate((own & ~beyond).astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)


def neighbour_digits(ink: np.ndarray, top: int, bottom: int, tuning: StackTuning = STACK) -> np.ndarray:
    """The pieces of `ink` (the row's own blobs, parted at the painted rules) that lie beyond
    the row (rows top..bottom of the band) and look like the neighbour
    row's digit: tall and running to the band's edge."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    h, band_h = bottom - top, ink.shape[0]
    out = np.zeros(n, bool)
    rows = np.arange(band_h)[:, None]
    for i in range(1, n):
        y, bh = int(stats[i][1]), int(stats[i][3])
        above, below = y + bh <= top + 2, y >= bottom - 2
        if not (above or below) or bh < tuning.tall * h:
            continue
        if (above and y > tuning.edge) or (below and y + bh < band_h - tuning.edge):
            continue
        piece = lab == i
        if (piece & (rows >= top) & (rows < bottom)).sum() > tuning.inside * piece.sum():
            continue
        out[i] = True
    return out[lab]


def read_handwritten_count(cell: np.ndarray, beside: np.ndarray | None = None) -> CountRead:
    """A hand-written count: the same reader (the templates include the pen fonts)."""
    return read_count_cell(cell, beside)


def read_beside(strip: np.ndarray, templates: DigitTemplates) -> GlyphRead | None:
    """The rightmost digit-sized glyph of the strip left of a count cell."""
    ink = drop_rule_remnants(binarize_cell(normalise(strip)))
    glyphs = [g for g in group_components(ink, MIN_GLYPH_H * H_NORM) if g.height >= MIN_GLYPH_H * H_NORM]
    if not glyphs:
        return None
    g = max(glyphs, key=lambda g: g.x1)
    read = classify_glyph(g.mask, templates)
    if read.struck_share >= STRUCK_SHARE or g.width > 1.5 * g.height:
        return None  # the strike of a struck row, not a written digit
    return read


# ------------------------------------------------------------------ hand-written counts

COUNT_VALUES = (1, 2, 3)
"""What a deck line's count can be. A count written by hand is read as one of these: a pen 3
nearest a template 8 or 9, a 2 nearest a 1 (glyph shapes of hands the templates lack) is the
reader's slip, never a 9-copy line (on generated forms in four pen faces: 303 of 392 counts
right read as any digit, 355 read as one of these)."""


def read_hand_count(cell: np.ndarray, beside: np.ndarray | None = None) -> CountRead:
    """A count written by hand (a line of a form filled by hand): the cell's glyphs and strikes
    found as `read_count_cell` finds them, the digit (the new one beside a struck one, else the
    largest glyph) taken as the most likely of `COUNT_VALUES` by the hand-digit reader
    (`hand_digits.odds_among`: the digit templates know two pen fonts only), with the odds kept
    for the column's total. A lone glyph the strike test cut (the flat foot of a hand 2 taken
    for a dash) is read whole: a player's own form seldom carries a correction, and the line is
    flagged either way. `beside` is not read (a written count is written in its cell)."""
    if cell is None or cell.size == 0 or min(cell.shape[:2]) < 6:
        return CountRead(None, 0.0, 0, False, "empty or tiny cell image")
    ink = drop_rule_remnants(binarize_cell(normalise(cell)))
    min_h = MIN_GLYPH_H * H_NORM
    glyphs, lines = find_struck_glyphs(ink, min_h, whole=True)
    clean = [g for g in glyphs if not g.struck_by]
    struck = len(clean) < len(glyphs)
    if struck and clean:
        pool = clean  # a correction: the new digit
    else:
        pool = [g for g in group_components(ink, min_h) if g.height >= min_h] or glyphs
    if not pool:
        return CountRead(None, 0.0, 0, bool(lines), "empty")
    g = max(pool, key=lambda g: int(g.mask.sum()))
    odds = odds_among(g.mask, COUNT_VALUES)
    value = max(odds, key=odds.get)
    detail = (f"hand digit {value} ({', '.join(f'{v}: {p:.2f}' for v, p in odds.items())})"
              + ("; a struck digit beside it" if struck and clean else ""))
    return CountRead(value, odds[value], len(pool), struck and bool(clean), detail,
                     height=g.height / H_NORM, odds=odds, shape=glyph_features(g.mask))
