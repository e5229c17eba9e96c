"""Which quadrilateral of a photo is the deck sheet, when other papers lie around it.

`page.find_page` takes the quad with the most page-like outline (bright, A4-like, lighter
inside all round). Among other papers that may be another paper, or the sheet and a paper
touching it taken together. What only the sheet has is its content, so when the best outline
does not hold ruled tables square to its sides (`content_fit`), `pick_sheet` looks further:
- candidates: the region outlines' quads, plus quads bounded by four straight brightness
  steps (`edge_lines`: LSD segments merged into lines; `line_quads`): a sheet side stays a
  line where a paper touches it or covers part of it, while a region outline runs round both;
- a candidate (its corners in warp_page's order, so it is measured upright) must hold ruled
  tables (`content_fit`: sharp row and column profiles of its ink) and blank margins along
  its sides (`margin_sides`: a quad reaching past the sheet has table or another paper's
  print there, one cut inside it has rules and text); a quad cut inside the sheet is also
  told by a side with no brightness step (`FLAT_SIDE`) or the tables going on past a side
  (`rules_beyond`);
- of those, the one most lighter inside than outside along its sides (`edge_strength`) with
  the clearest margins wins; when none is sure, each shorter line is tried in place of a side
  (a seam with a paper under the sheet is often a short, faint line), and a side with no
  blank margin (on a table's outer rule, the margin under a paper) is tried further out.
Everything runs on the ~800 px copy `find_page` already made (`survey` keeps what it saw for
`page_alternatives`); None when nothing holds tables.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np

CONTENT_W, CONTENT_H = 300, 424
ROW_SHARP = 0.12
"""Share of the row profile's ink in peaks (rules) for a quad to be looked at as the sheet:
~0.25–0.4 on sheets and forms seen square (0.18 on a sparse sheet photographed twice), under
0.1 on another paper or a quad a few degrees off."""
ROW_SHARP_SURE = 0.2
"""The same, for the best outline to be taken as the sheet with no search (every plain-background
fixture and sample photo: ≥ 0.245; the sheet and a paper touching it: 0.16)."""
COL_SHARP = 0.06
"""The same for the column profile (column rules): ~0.08–0.12 on a sheet, ≤ 0.05 when the quad
also holds a paper beside the sheet."""
MIN_MARGIN = 0.15
"""Share of each side's border band that must be blank paper (a hand or a card may cover much
of a side: a receipt over four fifths of one leaves 0.2; a side cut inside the sheet has next
to none, and no brightness step either: FLAT_SIDE)."""
SURE_SHEET = 0.8
"""edge × margin of a quad that needs no other side tried (a sheet on a dark table, its margins
clear: ~0.85–0.95)."""
MIN_STEP = 5.0
"""Lab L difference across a segment for it to count as a paper edge (rules are lines, not steps)."""
MAX_SEGMENTS = 200
"""Longest segments merged into lines (the rest are short bits of text)."""
SEAM_STEP = 20.0
"""Below this step a line may be the seam between the sheet and a paper under it."""
FLAT_SIDE = 0.08
"""edge_strength of one side below which it runs over paper, not along the sheet's edge: a quad
cut inside the sheet (in the blank gap between its main and lower tables) scores ~0.04 there;
a sheet's own side scores ≥ 0.14 even where papers touch it or lie on its margin."""
MIN_EDGE = 0.3
"""edge_strength below which a quad is not worth a look (a sheet scores ~0.6 with a side
against a paper, ~0.8–0.9 on a dark table)."""


@dataclass
class Candidate:
    quad: np.ndarray
    edge: float
    """edge_strength: how much lighter inside its sides than outside (0..1)."""
    content: float = 0.0
    """content_fit: ruled tables square to its sides (0 = none)."""
    margin: float = 0.0
    """margin_fit: share of its border band that is blank paper (mean of the sides)."""
    worst: float = 0.0
    """The same on its worst side."""
    sides: tuple[float, ...] = ()
    """margin_sides: the share of each side (as `quad_sides`)."""
    rows: float = 0.0
    """Row sharpness (content_score): ruled rows square to its top and bottom."""
    flattest: float = 1.0
    """edge_strength of its flattest side in the frame: next to 0 on a side cut inside the
    sheet (the same paper both sides of it)."""

    tables_beyond: bool = False
    """Ruled tables go on past one of its sides (`rules_beyond`): a part of the sheet."""

    @property
    def sheet_like(self) -> bool:
        """Ruled tables, a blank margin along every side, a brightness step along every side,
        and no tables beyond one."""
        return (self.content > 0 and self.worst >= MIN_MARGIN and self.flattest >= FLAT_SIDE
                and not self.tables_beyond)


def _profile_sharpness(p: np.ndarray) -> float:
    """Share of a profile's ink standing above its 9-sample running mean (rules are peaks)."""
    base = cv2.blur(p.reshape(-1, 1).astype(np.float32), (1, 9)).ravel()
    return float(np.clip(p - base, 0, None).sum() / (p.sum() + 1e-6))


def _upright_transform(quad: np.ndarray) -> tuple[np.ndarray, bool]:
    """The perspective that takes the quad (TL, TR, BR, BL) to CONTENT_W × CONTENT_H, stood up
    as warp_page does, and whether it was turned (its side BL→TL becoming the top)."""
    tl, tr, br, bl = quad
    w = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    h = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    turned = bool(w > h * 1.15)
    if turned:
        quad = np.array([bl, tl, tr, br], np.float32)
    dst = np.float32([[0, 0], [CONTENT_W, 0], [CONTENT_W, CONTENT_H], [0, CONTENT_H]])
    return cv2.getPerspectiveTransform(quad.astype(np.float32), dst), turned


def _as_given(upright: list, turned: bool) -> list:
    """Values for the upright page's top, left, bottom, right put in the order of the quad's
    sides as given (side s from corner s to s + 1, as `quad_sides`)."""
    out = [0.0] * 4
    for v, s in zip(upright, (3, 2, 1, 0) if turned else (0, 3, 2, 1)):
        out[s] = v
    return out


def _upright(gray: np.ndarray, quad: np.ndarray, with_turn: bool = False):
    """The quad (TL, TR, BR, BL) warped to CONTENT_W × CONTENT_H, stood up as warp_page does
    (`with_turn`: and whether it was turned, its side BL→TL becoming the top)."""
    m, turned = _upright_transform(quad)
    out = cv2.warpPerspective(gray, m, (CONTENT_W, CONTENT_H), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return (out, turned) if with_turn else out


def content_score(gray: np.ndarray, quad: np.ndarray) -> tuple[float, float]:
    """(row, column) sharpness of the ink inside the quad, warped upright."""
    g = _upright(gray, quad)
    paper = cv2.blur(cv2.dilate(g, np.ones((7, 7), np.uint8)), (15, 15))
    ink = cv2.subtract(paper, g).astype(np.float32)
    rows = ink[:, int(0.08 * CONTENT_W):int(0.92 * CONTENT_W)].mean(axis=1)
    cols = ink[int(0.1 * CONTENT_H):int(0.9 * CONTENT_H), :].mean(axis=0)
    return _profile_sharpness(rows), _profile_sharpness(cols)


BEYOND = (0.03, 0.15)
"""The band looked at beyond each side, as shares of the quad's size across it (from 3 %: a
side found a little inside the sheet has the sheet's own edge just beyond it)."""


BEYOND_ROWS, BEYOND_COLS = 0.2, 0.09
"""Both sharpnesses of `rules_beyond` at or above these on one side: the tables go on there
(a quad cut above the lower tables' grey header rows: 0.25, 0.11). Beyond the sides of 56
generated sheets, other papers and lined notes included: never both (rows / 0.2 and
cols / 0.09 at most 0.91 on one side)."""


def rules_beyond(gray: np.ndarray, quad: np.ndarray) -> list[tuple[float, float]]:
    """For each side of the quad (as `quad_sides`): the sharpness of the ink profiles of a band
    just outside it, of lines parallel to the side (rows) and square to it (columns). A quad
    cut inside the sheet has the sheet's own tables there, both; a sheet's side has a table,
    a hand or another paper (a lined note: rows only)."""
    m, turned = _upright_transform(quad)
    a, b = BEYOND
    bw, bh = int((b - a) * CONTENT_W), int((b - a) * CONTENT_H)
    ow, oh = int(b * CONTENT_W), int(b * CONTENT_H)
    out = []
    # top, left, bottom, right of the upright quad: a shift puts the band at the origin.
    for dx, dy, size, across in ((0, oh, (CONTENT_W, bh), 1), (ow, 0, (bw, CONTENT_H), 0),
                                 (0, -int((1 + a) * CONTENT_H), (CONTENT_W, bh), 1),
                                 (-int((1 + a) * CONTENT_W), 0, (bw, CONTENT_H), 0)):
        shift = np.float64([[1, 0, dx], [0, 1, dy], [0, 0, 1]])
        g = cv2.warpPerspective(gray, shift @ m, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
        paper = cv2.blur(cv2.dilate(g, np.ones((7, 7), np.uint8)), (15, 15))
        ink = cv2.subtract(paper, g).astype(np.float32)
        n = ink.shape[across]
        mid = ink[:, int(0.1 * n):int(0.9 * n)] if across == 1 else ink[int(0.1 * n):int(0.9 * n), :]
        # Lines parallel to the side (rows) and square to it (the tables' column rules).
        out.append((_profile_sharpness(mid.mean(axis=across)), _profile_sharpness(ink.mean(axis=1 - across))))
    return _as_given(out, turned)


MARGIN_BAND = (0.006, 0.025)
"""Where a sheet's blank margin is sure to be, as shares of the page size from each side."""
MARGIN_INK = 0.8
"""A margin pixel darker than this share of the paper near it is print (or not paper)."""


def margin_sides(gray: np.ndarray, quad: np.ndarray) -> list[float]:
    """For each side of the quad (side s from corner s to s + 1, as `quad_sides`), the share of
    its border band that is blank paper: a sheet has a margin all round. A quad reaching past
    the sheet has table or another paper's print there; one cut inside the sheet (on a rule, or
    the gap between its tables) has text and column rules there on the cut side. A paper or a
    hand on the margin covers part of a side. Each side is cut into chunks, each judged against
    the paper just inside it (light falls unevenly)."""
    g, turned = _upright(gray, quad, with_turn=True)
    g = g.astype(np.float32)
    a, b = MARGIN_BAND
    shares = []
    for side in (g, g.T, g[::-1], g.T[::-1]):  # top, left, bottom, right: row 0 on the side
        n, m = side.shape
        band = side[max(1, int(a * n)):int(b * n) + 1]
        inner = side[:int(0.08 * n)]
        ref = np.partition(inner, int(0.9 * len(inner)), axis=0)[int(0.9 * len(inner))]  # the paper
        dark = (band < MARGIN_INK * ref).mean(axis=0)
        chunks = dark[:m - m % 10].reshape(10, -1).mean(axis=1)
        shares.append(float((chunks < 0.03).mean()))
    return _as_given(shares, turned)


def margin_fit(gray: np.ndarray, quad: np.ndarray) -> tuple[float, float]:
    """(mean, worst) over the quad's four sides of `margin_sides`."""
    shares = margin_sides(gray, quad)
    return float(np.mean(shares)), min(shares)


def content_fit(gray: np.ndarray, quad: np.ndarray, min_rows: float = ROW_SHARP) -> float:
    """0 unless the quad holds ruled tables square to its sides; then up to 1."""
    return _content(*content_score(gray, quad), min_rows)


def _content(rows: float, cols: float, min_rows: float = ROW_SHARP) -> float:
    if rows < min_rows or cols < COL_SHARP:
        return 0.0
    return min(1.0, rows / 0.32) * min(1.0, cols / 0.09)


STRONG_STEP = 30.0
"""Lab L step at which a side counts fully as the sheet's edge against a dark table."""


def edge_strength(quads: np.ndarray, light: np.ndarray, per_side: bool = False) -> np.ndarray:
    """For each quad (N × 4 × 2, any corner order round the quad): how much lighter it is just
    inside its sides than just outside, graded (0..1 per sample, STRONG_STEP or more = 1),
    averaged over the samples inside the frame. A sheet on a dark table scores near 1 along its
    free sides; a line inside the sheet (a rule, a row of text) or the seam with a paper under
    it scores low."""
    h, w = light.shape
    quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    a, b = quads, np.roll(quads, -1, axis=1)
    side = b - a                                                   # N × 4 × 2
    normal = np.stack([side[..., 1], -side[..., 0]], axis=-1)
    normal /= np.maximum(np.linalg.norm(normal, axis=-1, keepdims=True), 1e-6)
    towards = quads.mean(axis=1, keepdims=True) - (a + b) / 2
    normal *= np.where((towards * normal).sum(-1, keepdims=True) > 0, -1.0, 1.0)  # outwards
    d = max(3.0, 0.006 * max(h, w))
    t = np.linspace(0.05, 0.95, 24, dtype=np.float32)[None, None, :, None]
    pts = a[:, :, None] + t * side[:, :, None]                     # N × 4 × 24 × 2
    pin, pout = pts - d * normal[:, :, None], pts + d * normal[:, :, None]
    lim = np.array([w - 2, h - 2], np.float32)
    ok = ((pin >= 1) & (pin < lim) & (pout >= 1) & (pout < lim)).all(-1)
    pin = np.clip(pin, 0, lim).astype(int)
    pout = np.clip(pout, 0, lim).astype(int)
    step = light[pin[..., 1], pin[..., 0]].astype(np.float32) - light[pout[..., 1], pout[..., 0]]
    graded = np.clip(step / STRONG_STEP, 0, 1) * ok
    if per_side:  # N × 4, NaN for a side wholly outside the frame
        n = ok.sum(axis=2)
        return np.where(n > 0, graded.sum(axis=2) / np.maximum(n, 1), np.nan)
    seen = ok.sum(axis=(1, 2))
    return np.where(seen > 0, graded.sum(axis=(1, 2)) / np.maximum(seen, 1), 0.0)


def aspect_ok(quads: np.ndarray, frame: tuple[int, int], min_area: float = 0.1) -> np.ndarray:
    """Quads that could be an A4 sheet seen in perspective: long / short side 1.1–1.9 and at
    least min_area of the frame."""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    sides = np.linalg.norm(np.roll(q, -1, axis=1) - q, axis=-1)
    one, two = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
    ratio = np.maximum(one, two) / np.maximum(np.minimum(one, two), 1.0)
    x, y = q[..., 0], q[..., 1]
    area = 0.5 * np.abs((x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y).sum(axis=1))
    return (ratio > 1.1) & (ratio < 1.9) & (area >= min_area * frame[0] * frame[1])


# --------------------------------------------------------------------------- lines

@dataclass
class Line:
    point: np.ndarray
    direction: np.ndarray
    """Unit vector; the lighter side is to its left (normal = (-dy, dx) points to the light)."""
    length: float
    seam: bool = False
    """Only a faint step across it (as between two papers)."""


def _steps(light: np.ndarray, a: np.ndarray, b: np.ndarray, d: float = 4.0) -> np.ndarray:
    """For each segment a→b (N × 2 each): mean L on its left minus on its right."""
    h, w = light.shape
    v = b - a
    n = np.stack([-v[:, 1], v[:, 0]], axis=1) / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)
    t = np.linspace(0.1, 0.9, 9)[None, :, None]
    pts = a[:, None] + t * v[:, None]
    left, right = pts + d * n[:, None], pts - d * n[:, None]
    lim = np.array([w - 1, h - 1])
    ok = ((left >= 0) & (left < lim) & (right >= 0) & (right < lim)).all(-1)
    left, right = np.clip(left, 0, lim).astype(int), np.clip(right, 0, lim).astype(int)
    diff = light[left[..., 1], left[..., 0]].astype(np.float32) - light[right[..., 1], right[..., 0]]
    return np.where(ok.sum(1) >= 4, (diff * ok).sum(1) / np.maximum(ok.sum(1), 1), 0.0)


def edge_lines(gray: np.ndarray, light: np.ndarray, extra: list[Line] = ()) -> list[Line]:
    """Straight brightness steps (paper against something darker), long ones first: LSD
    segments with a step across them, merged when collinear with the same light side, with
    `extra` lines (the sides of region outlines) merged the same way."""
    h, w = gray.shape
    found: list[Line] = list(extra)
    segs = cv2.createLineSegmentDetector().detect(gray)[0]
    if segs is not None:
        segs = segs.reshape(-1, 4).astype(np.float64)
        a, b = segs[:, :2], segs[:, 2:]
        length = np.linalg.norm(b - a, axis=1)
        keep = length >= 0.04 * max(h, w)
        a, b, length = a[keep], b[keep], length[keep]
        step = _steps(light, a, b)
        for i in np.nonzero(np.abs(step) >= MIN_STEP)[0]:
            s0, s1 = (a[i], b[i]) if step[i] > 0 else (b[i], a[i])
            found.append(Line((s0 + s1) / 2, (s1 - s0) / length[i], float(length[i]),
                              seam=bool(abs(step[i]) < SEAM_STEP)))
    found.sort(key=lambda ln: -ln.length)
    del found[MAX_SEGMENTS:]
    groups: list[list[Line]] = []
    for seg in found:
        for g in groups:
            head = g[0]
            if float(np.dot(seg.direction, head.direction)) < np.cos(np.radians(2.5)):
                continue
            off = seg.point - head.point
            if abs(off[0] * head.direction[1] - off[1] * head.direction[0]) < 3.0:
                g.append(seg)
                break
        else:
            groups.append([seg])
    lines = [_fit(g) for g in groups]
    lines.sort(key=lambda ln: -ln.length)
    return lines


def side_lines(lines: list[Line], frame: tuple[int, int], max_lines: int = 32) -> list[Line]:
    """The longest lines, as sides for `line_quads`. A seam between the sheet and a paper under
    it may have either paper the lighter, so such a line serves both ways round."""
    top = [ln for ln in lines if ln.length >= 0.08 * min(frame)][:max_lines]
    return top + [Line(ln.point, -ln.direction, ln.length) for ln in top if ln.seam]


def _fit(group: list[Line]) -> Line:
    """One line through collinear segments: the length-weighted least-squares fit of their
    ends (the longest segment alone may be a degree off)."""
    head = group[0]
    if len(group) == 1:
        return head
    ends = np.array([ln.point + s * ln.direction * ln.length / 2 for ln in group for s in (-1, 1)])
    weight = np.repeat([ln.length for ln in group], 2)
    centre = (ends * weight[:, None]).sum(0) / weight.sum()
    cov = ((ends - centre) * weight[:, None]).T @ (ends - centre)
    d = np.linalg.eigh(cov)[1][:, -1]
    if np.dot(d, head.direction) < 0:
        d = -d
    return Line(centre, d, float(sum(ln.length for ln in group)), all(ln.seam for ln in group))


def quad_sides(quad: np.ndarray) -> list[Line]:
    """The four sides of a quad as lines, each with the quad's inside on its light side."""
    out = []
    centre = quad.mean(axis=0)
    for a, b in zip(quad.astype(np.float64), np.roll(quad, -1, axis=0).astype(np.float64)):
        length = float(np.linalg.norm(b - a))
        if length < 1:
            continue
        d = (b - a) / length
        if np.dot(centre - (a + b) / 2, np.array([-d[1], d[0]])) < 0:
            d = -d
        out.append(Line((a + b) / 2, d, length))
    return out


def line_quads(lines: list[Line], frame: tuple[int, int]) -> np.ndarray:
    """Quads (N × 4 × 2: TL, TR, BR, BL) bounded by four lines whose light sides all face
    inwards. With y pointing down and the light on each line's left, a quad is walked top →
    right → bottom → left, each side's direction the previous one's turned by 50–130°."""
    h, w = frame
    n = len(lines)
    if n < 4:
        return np.zeros((0, 4, 2), np.float32)
    p = np.array([ln.point for ln in lines], np.float64)
    d = np.array([ln.direction for ln in lines], np.float64)
    ang = np.arctan2(d[:, 1], d[:, 0])
    turn = np.degrees((ang[None, :] - ang[:, None] + np.pi) % (2 * np.pi) - np.pi)
    nxt = (turn >= 50) & (turn <= 130)
    i, j, k = np.nonzero(nxt[:, :, None] & nxt[None, :, :])
    first = (i < j) & (i < k)  # one of the four rotations of each quad (with m > i below)
    i, j, k = i[first], j[first], k[first]
    t, m = np.nonzero(nxt[k] & nxt.T[i])
    i, j, k = i[t], j[t], k[t]
    first = m > i
    i, j, k, m = i[first], j[first], k[first], m[first]

    def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        den = d[a, 0] * d[b, 1] - d[a, 1] * d[b, 0]
        off = p[b] - p[a]
        t = (off[:, 0] * d[b, 1] - off[:, 1] * d[b, 0]) / np.where(np.abs(den) < 1e-9, 1e-9, den)
        return p[a] + t[:, None] * d[a]

    q = np.stack([cross(m, i), cross(i, j), cross(j, k), cross(k, m)], axis=1)   # TL TR BR BL
    sides = np.roll(q, -1, axis=1) - q
    forward = ((sides * d[np.stack([i, j, k, m], axis=1)]).sum(-1) > 0).all(axis=1)
    inside = ((q[..., 0] > -0.3 * w) & (q[..., 0] < 1.3 * w) & (q[..., 1] > -0.3 * h)
              & (q[..., 1] < 1.3 * h)).all(axis=1)
    return q[forward & inside].astype(np.float32)


@dataclass
class Survey:
    """What the search saw on the ~800 px copy: the edge lines and the quads checked (region
    outlines and line quads with the strongest edges, content and margins measured). Kept with
    the page so `page_alternatives` need not make it again."""

    lines: list[Line]
    checked: list[Candidate]


def survey(gray: np.ndarray, light: np.ndarray, candidates: list[np.ndarray],
           order: Callable[[np.ndarray], np.ndarray], max_checked: int = 32) -> Survey:
    """Edge lines and the checked quads: the candidates given and the quads of edge lines."""
    # The region outlines' sides join the edge lines: a seam with a paper under the sheet is
    # too faint a step for a line, but the outline of the sheet's other side may hold it.
    lines = edge_lines(gray, light, [ln for q in candidates for ln in quad_sides(q)])
    # Every quad in the order warp_page gives its corners, so its content is measured upright
    # (a line quad walked from another corner stands sideways or upside down).
    quads = list(candidates) + list(line_quads(side_lines(lines, gray.shape), gray.shape))
    arr = np.array([order(q) for q in quads], np.float32).reshape(-1, 4, 2)
    return Survey(lines, check_quads(gray, light, arr, max_checked))


def pick_sheet(gray: np.ndarray, light: np.ndarray, seen: Survey,
               order: Callable[[np.ndarray], np.ndarray], max_checked: int = 32) -> Candidate | None:
    """The quad (among the surveyed ones) holding a deck sheet's ruled content, with blank
    margins, lightest inside its sides against the outside; None when no quad holds such
    content."""
    checked, lines = seen.checked, seen.lines
    good = [c for c in checked if c.sheet_like]
    if max((c.edge * c.margin for c in good), default=0.0) < SURE_SHEET:
        # Where the tables are but a side may run past the sheet (over a paper it lies on, with
        # too faint a seam for a long line), each shorter line is tried as that side instead.
        # Such a quad holds the tables' rows, but the paper beside the sheet blurs its column
        # profile (content 0): ruled rows are enough to try its sides.
        near = _distinct(sorted((c for c in checked if c.rows >= ROW_SHARP), key=lambda c: -c.edge),
                         NEAR_SAME * max(gray.shape))[:4]
        trials = [q for c in near for q in _moved_sides(c.quad, lines, _bare_sides(c))]
        if trials:
            more = check_quads(gray, light, np.array([order(q) for q in trials], np.float32),
                               2 * max_checked)
            good += [c for c in more if c.sheet_like]
    if not good:
        return None
    best = max(good, key=lambda c: c.edge * c.margin)
    return replace(best, quad=order(best.quad))


SAME_CHECKED = 0.004
"""Quads whose corners all lie within this share of the frame are checked once. Not more: the
margin band is 2–8 px wide on the ~800 px copy, and a twin 4 px off (its side on a table's
outer rule) has none where the other has one."""


def check_quads(gray: np.ndarray, light: np.ndarray, quads: np.ndarray, max_checked: int) -> list[Candidate]:
    """Content (and, where there is content, margins) of the quads with the strongest edges."""
    if not len(quads):
        return []
    keep = np.nonzero(aspect_ok(quads, gray.shape))[0]
    edges = edge_strength(quads[keep], light) if len(keep) else np.zeros(0)
    checked: list[Candidate] = []
    for i in np.argsort(-edges, kind="stable"):
        if len(checked) >= max_checked or edges[i] < MIN_EDGE:
            break
        quad = quads[keep[i]]
        if any(np.abs(quad - c.quad).max() < SAME_CHECKED * max(gray.shape) for c in checked):
            continue
        rows, cols = content_score(gray, quad)
        c = Candidate(quad, float(edges[i]), _content(rows, cols), rows=rows)
        if c.content > 0:
            c.sides = tuple(margin_sides(gray, quad))
            c.margin, c.worst = float(np.mean(c.sides)), min(c.sides)
            c.flattest = float(np.nanmin(edge_strength(quad[None], light, per_side=True)[0]))
            c.tables_beyond = any(r >= BEYOND_ROWS and k >= BEYOND_COLS for r, k in rules_beyond(gray, quad))
        checked.append(c)
    return checked


NEAR_SAME = 0.02
"""Quads whose corners all lie within this share of the frame are one quad to try sides of."""


def _distinct(cands: list[Candidate], tol: float) -> list[Candidate]:
    """The candidates in order, each dropped that lies within tol of one kept before it."""
    kept: list[Candidate] = []
    for c in cands:
        if not any(np.abs(c.quad - k.quad).max() < tol for k in kept):
            kept.append(c)
    return kept


def _bare_sides(c: Candidate) -> tuple[int, ...]:
    """Sides of a quad with ruled content that have no blank margin: a side stopped on a
    table's outer rule (the sheet's edge beyond it hidden under a hand or a paper, or too
    faint a step next to one) may move out to the sheet's edge."""
    return tuple(s for s, share in enumerate(c.sides) if share < MIN_MARGIN)


def _moved_sides(quad: np.ndarray, lines: list[Line], outward: tuple[int, ...] = ()) -> list[np.ndarray]:
    """The quad with one side replaced by a line within 15° of it that crosses the quad's inside
    (between 2 % and 35 % of the way to the opposite side), or, for the sides in `outward`,
    that lies as far outside it."""
    out = []
    sides = quad_sides(quad)
    for s in range(4):
        side, before, after = sides[s], sides[s - 1], sides[(s + 1) % 4]
        opposite = sides[(s + 2) % 4]
        span = abs(_perp(side.direction, opposite.point - side.point))
        for ln in lines:
            if abs(float(np.dot(ln.direction, side.direction))) < np.cos(np.radians(15)):
                continue
            # How far the line's middle lies inside, from this side towards the opposite one.
            inward = _perp(side.direction, ln.point - side.point)
            if not (0.02 * span < inward < 0.35 * span
                    or (s in outward and 0.02 * span < -inward < 0.35 * span)):
                continue
            along = ln.direction if np.dot(ln.direction, side.direction) > 0 else -ln.direction
            moved = Line(ln.point, along, ln.length)
            a, b = _cross(before, moved), _cross(moved, after)
            if a is None or b is None:
                continue
            corners: list[np.ndarray] = [quad[0]] * 4
            # corners: side s runs from corner s to corner s+1 (TL→TR for the top side).
            corners[s], corners[(s + 1) % 4] = a, b
            corners[(s + 2) % 4], corners[(s + 3) % 4] = quad[(s + 2) % 4], quad[(s + 3) % 4]
            out.append(np.array(corners, np.float32))
    return out


def _perp(d: np.ndarray, v: np.ndarray) -> float:
    """How far v lies to the left of the unit direction d (the 2-D cross product)."""
    return float(d[0] * v[1] - d[1] * v[0])


def _cross(l1: Line, l2: Line) -> np.ndarray | None:
    """Where two lines meet (None when within ~12° of parallel)."""
    den = l1.direction[0] * l2.direction[1] - l1.direction[1] * l2.direction[0]
    if abs(den) < 0.2:
        return None
    off = l2.point - l1.point
    t = (off[0] * l2.direction[1] - off[1] * l2.direction[0]) / den
    return l1.point + t * l1.direction
