"""The full projective distortion of a photographed page, undone.

A phone held over a desk sees the page through a pinhole: tilted about any axis, the page's
rectangle becomes a general quadrilateral (keystone), its rules converge towards two vanishing
points, and its proportions change with the tilt. Two measurements undo it:

- `paper_aspect`: the true height / width of the paper from the four corners the page stage
  found, by the pinhole camera's geometry (Zhang & He, "Whiteboard scanning and image
  enhancement", 2007: the focal length from the quad's vanishing points, the principal point at
  the frame's centre). The side lengths alone are off by the tilt (cos 15° ≈ 3.4 % at 15°), and
  a Letter page stretched to A4 moves a form's rows off their pitch by 9 %.
- `rules_rectification`: on the page as warped, the homography that makes its printed rules
  exactly horizontal and vertical again: the residual keystone of a page whose corners were
  found a little off, cut off by the frame's edge, or not found at all (a page filling the frame).
  Long straight segments (LSD) near each axis vote for a vanishing point each (least squares over
  their lines, outliers dropped); the homography sending both points to infinity along the axes,
  with the page's centre and scale kept, is the correction.

The grid and form-fit stages then meet an upright page whose rules are straight lines at one
pitch, whatever the camera's angle.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from scanner.layouts.kde import KDE

PAPERS = {"A4": 297 / 210, "Letter": 11 / 8.5, "Konami form": KDE.height / KDE.width, "Legal": 14 / 8.5}
"""Height / width of the papers a deck sheet is printed on (Konami's form is its own page size
when the PDF is shown or printed at 100 % on a large enough sheet)."""


@dataclass(frozen=True)
class PerspectiveTuning:
    """The numbers of the perspective stage, one home each (issue 32: per-stage tuning)."""

    snap_paper: float = 0.03
    """An estimated aspect within this share of a known paper's (`PAPERS`) is taken as that
    paper's (the estimate is within ~1 % on tilts up to 15°)."""
    focal: float = 0.75
    """The camera's focal length in long sides of the frame: a phone's main camera (24–28 mm
    equivalent: 0.67–0.78). Measured from the quad itself, the focal length is too noisy to use
    (corners ~1 px in 800 off give ±50 %); assumed, it leaves the aspect within ~1 % from 0 to
    15° of tilt, where the sides' ratio alone is up to 10 % off."""
    work_width: int = 1000
    """Width (px) at which the rules are looked for: a 0.5 pt rule stays a line, text no longer
    gives long segments."""
    min_piece: float = 0.015
    """Shortest LSD segment (share of the page width) kept to be joined into lines: a column
    rule is cut at every row rule (a row is ~2.7 % of the width); a glyph's stroke is shorter
    (8–10 pt text is ≤ 1.3 % high)."""
    join_px: float = 1.5
    """Segments whose ends lie within this (working pixels) of one line are one rule."""
    join_deg: float = 2.0
    """…and whose directions are within this of each other."""
    min_segment: float = 0.06
    """Shortest joined line (share of the page width) that votes: table rules are long; text
    strokes, even joined along a row of text, rarely are."""
    max_lean_deg: float = 20.0
    """A segment further than this from the horizontal or vertical is not a rule."""
    inlier_deg: float = 0.25
    """A segment agrees with its vanishing point when its direction is within this of the
    direction from its midpoint to the point (a rule's segment is ±0.1° at work_width)."""
    min_segments: int = 6
    """Segments each direction needs (a deck table gives 20+ row rules and 3+ column rules)."""
    min_inlier_share: float = 0.6
    """Share of the votes' length that must agree with the point found."""
    min_shift_px: float = 1.5
    """A correction moving no point of the page by more than this (page pixels) is not worth
    the interpolation: the page is left as it is."""
    max_shift: float = 0.06
    """A correction moving a point of the page by more than this share of its width is not
    trusted (a page turned or warped that much is not a page the segments describe well)."""


PERSPECTIVE = PerspectiveTuning()


# --------------------------------------------------------------------------- the paper's aspect

def rectangle_aspect(corners: np.ndarray, centre: tuple[float, float], focal: float) -> float:
    """Height / width of the rectangle whose image is `corners` (TL, TR, BR, BL), seen by a
    pinhole camera of focal length `focal` (pixels) whose principal point is `centre`."""
    tl, tr, br, bl = (np.array([p[0] - centre[0], p[1] - centre[1], 1.0]) for p in corners)
    # Zhang & He's m1..m4 are the rectangle's (0,0), (w,0), (0,h), (w,h): TL, TR, BL, BR.
    m1, m2, m3, m4 = tl, tr, bl, br
    k2 = np.dot(np.cross(m1, m4), m3) / np.dot(np.cross(m2, m4), m3)
    k3 = np.dot(np.cross(m1, m4), m2) / np.dot(np.cross(m3, m4), m2)
    n2, n3 = k2 * m2 - m1, k3 * m3 - m1  # the rectangle's sides, up to the camera's intrinsics
    w2 = (n2[0] ** 2 + n2[1] ** 2) / focal ** 2 + n2[2] ** 2
    h2 = (n3[0] ** 2 + n3[1] ** 2) / focal ** 2 + n3[2] ** 2
    return float(math.sqrt(h2 / max(w2, 1e-18)))


def _side_ratio(corners: np.ndarray) -> float:
    """Height / width by the mean lengths of opposite sides."""
    tl, tr, br, bl = corners
    w = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    h = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    return float(h / max(w, 1e-9))


def quad_tilt_deg(corners: np.ndarray) -> float:
    """How far from frontal the quad looks: the largest angle (degrees) between opposite sides."""
    tl, tr, br, bl = (np.asarray(p, np.float64) for p in corners)

    def angle(a: np.ndarray, b: np.ndarray) -> float:
        c = abs(float(np.dot(a, b))) / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-9)
        return math.degrees(math.acos(min(1.0, c)))

    return max(angle(tr - tl, br - bl), angle(bl - tl, br - tr))


def paper_aspect(corners: np.ndarray, frame: tuple[int, int],
                 tuning: PerspectiveTuning = PERSPECTIVE) -> tuple[float, str]:
    """Height / width of the paper whose corners (TL, TR, BR, BL, as `warp_page` orders them)
    are seen in a frame of `frame` = (height, width), and how it was found: by the pinhole
    camera's geometry, snapped to a known paper when near one."""
    corners = np.asarray(corners, np.float64).reshape(4, 2)
    fh, fw = frame
    with np.errstate(all="ignore"):
        ratio = rectangle_aspect(corners, (fw / 2, fh / 2), tuning.focal * max(fw, fh))
    if not math.isfinite(ratio) or ratio <= 0:
        ratio = _side_ratio(corners)  # a degenerate quad (three corners in a line)
    best = min(PAPERS.items(), key=lambda kv: abs(kv[1] - ratio) / kv[1])
    if abs(best[1] - ratio) / best[1] <= tuning.snap_paper:
        return best[1], best[0]
    return ratio, f"{ratio:.3f}"


def camera_tilt_deg(corners: np.ndarray, frame: tuple[int, int], aspect: float,
                    tuning: PerspectiveTuning = PERSPECTIVE) -> float:
    """The angle (degrees) between the camera's axis and the page's normal, for a paper of
    height / width `aspect` whose corners (TL, TR, BR, BL) are seen in a frame (height, width):
    what a judge changes by holding the phone straight over the sheet."""
    fh, fw = frame
    focal = tuning.focal * max(fw, fh)
    src = np.float32([[0, 0], [1, 0], [1, aspect], [0, aspect]])
    dst = (np.asarray(corners, np.float64).reshape(4, 2) - [fw / 2, fh / 2]).astype(np.float32)
    h = cv2.getPerspectiveTransform(src, dst)
    rt = np.diag([1 / focal, 1 / focal, 1.0]) @ h
    r1, r2 = rt[:, 0] / np.linalg.norm(rt[:, 0]), rt[:, 1] / np.linalg.norm(rt[:, 1])
    normal = np.cross(r1, r2)
    normal /= max(np.linalg.norm(normal), 1e-12)
    return float(math.degrees(math.acos(min(1.0, abs(normal[2])))))


# --------------------------------------------------------------------------- rules → homography

@dataclass
class Rectification:
    """A homography (page pixels → page pixels) that makes the printed rules upright."""

    matrix: np.ndarray
    shift_px: float
    """The largest distance it moves a point of the page."""
    votes: tuple[int, int]
    """Segments that agreed with the horizontal and the vertical vanishing point."""

    def note(self) -> str:
        return (f"perspective: rules rectified (moved up to {self.shift_px:.1f} px; "
                f"{self.votes[0]} row and {self.votes[1]} column segments)")


def _segments(gray: np.ndarray, tuning: PerspectiveTuning) -> np.ndarray:
    """Straight lines (N × 4 end points, page pixels) at least `min_segment` of the width long:
    LSD segments joined along each rule (`_join`)."""
    h, w = gray.shape[:2]
    if h < 16 or w < 16:
        return np.zeros((0, 4))
    scale = min(1.0, tuning.work_width / w)
    small = cv2.resize(gray, (max(8, int(w * scale)), max(8, int(h * scale))), interpolation=cv2.INTER_AREA)
    found = cv2.createLineSegmentDetector().detect(small)[0]
    if found is None:
        return np.zeros((0, 4))
    segs = found.reshape(-1, 4).astype(np.float64)
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    segs = _join(segs[length >= tuning.min_piece * w * scale], tuning)
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    return segs[length >= tuning.min_segment * w * scale] / scale


def _join(segs: np.ndarray, tuning: PerspectiveTuning) -> np.ndarray:
    """Collinear segments joined into one line each (a rule cut by the rules across it, or by
    a name touching it): the length-weighted least-squares line through their ends, from the
    first end to the last."""
    if len(segs) == 0:
        return segs
    d = segs[:, 2:] - segs[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    order = np.argsort(-length)
    used = np.zeros(len(segs), bool)
    out = []
    cos_join = math.cos(math.radians(tuning.join_deg))
    for i in order:
        if used[i]:
            continue
        u = d[i] / max(length[i], 1e-9)
        normal = np.array([-u[1], u[0]])
        mid = (segs[i, :2] + segs[i, 2:]) / 2
        near = (~used & (np.abs((d @ u)) >= cos_join * length)
                & (np.abs((segs[:, :2] - mid) @ normal) <= tuning.join_px)
                & (np.abs((segs[:, 2:] - mid) @ normal) <= tuning.join_px))
        near[i] = True
        used |= near
        ends = np.concatenate([segs[near, :2], segs[near, 2:]])
        weight = np.repeat(length[near], 1)[None].repeat(2, 0).ravel()
        centre = (ends * weight[:, None]).sum(0) / weight.sum()
        cov = ((ends - centre) * weight[:, None]).T @ (ends - centre)
        axis = np.linalg.eigh(cov)[1][:, -1]
        t = (ends - centre) @ axis
        out.append(np.concatenate([centre + t.min() * axis, centre + t.max() * axis]))
    return np.array(out)


def _vanishing_point(segs: np.ndarray, norm: np.ndarray, tuning: PerspectiveTuning
                     ) -> tuple[np.ndarray, int, float] | None:
    """The vanishing point (homogeneous, in the normalised frame `norm`) that the segments'
    lines pass closest to, length-weighted, with outliers dropped; the count of segments that
    agree and their share of the length. None when too few agree."""
    p1 = np.column_stack([segs[:, :2], np.ones(len(segs))]) @ norm.T
    p2 = np.column_stack([segs[:, 2:], np.ones(len(segs))]) @ norm.T
    lines = np.cross(p1, p2)
    lines /= np.maximum(np.hypot(lines[:, 0], lines[:, 1]), 1e-12)[:, None]
    length = np.hypot(*(p2[:, :2] - p1[:, :2]).T)
    mid = (p1[:, :2] + p2[:, :2]) / 2
    direction = (p2[:, :2] - p1[:, :2]) / np.maximum(length, 1e-12)[:, None]
    keep = np.ones(len(segs), bool)
    vp = None
    for limit in (4.0, 1.5, tuning.inlier_deg, tuning.inlier_deg):
        if keep.sum() < tuning.min_segments:
            return None
        m = (lines[keep] * length[keep, None]).T @ lines[keep]
        vp = np.linalg.eigh(m)[1][:, 0]
        # the direction from each midpoint towards the point (for a point at infinity, its own)
        towards = vp[:2][None, :] - mid * vp[2]
        towards /= np.maximum(np.hypot(towards[:, 0], towards[:, 1]), 1e-12)[:, None]
        cos = np.abs((towards * direction).sum(axis=1))
        off = np.degrees(np.arccos(np.clip(cos, 0.0, 1.0)))
        keep = off <= limit
    share = float(length[keep].sum() / max(length.sum(), 1e-12))
    if keep.sum() < tuning.min_segments or share < tuning.min_inlier_share:
        return None
    return vp, int(keep.sum()), share


def upright_homography(vp_h: np.ndarray, vp_v: np.ndarray) -> np.ndarray | None:
    """The homography (in the frame the points are given in, centred on the page) sending the
    horizontal vanishing point to (1, 0, 0) and the vertical one to (0, 1, 0), fixing the origin
    and the scale along both axes there."""
    line = np.cross(vp_h, vp_v)  # the horizon of the page plane
    if abs(line[2]) < 1e-12:
        return None  # the horizon passes through the page's centre: not a page seen from above
    proj = np.array([[1, 0, 0], [0, 1, 0], [line[0] / line[2], line[1] / line[2], 1]])
    dh, dv = (proj @ vp_h)[:2], (proj @ vp_v)[:2]
    dh = dh / np.linalg.norm(dh) * (1 if dh[0] >= 0 else -1)
    dv = dv / np.linalg.norm(dv) * (1 if dv[1] >= 0 else -1)
    basis = np.column_stack([dh, dv])
    if abs(np.linalg.det(basis)) < 0.5:  # the two directions within 30° of each other
        return None
    affine = np.eye(3)
    affine[:2, :2] = np.linalg.inv(basis)
    return affine @ proj


def rules_rectification(gray: np.ndarray, tuning: PerspectiveTuning = PERSPECTIVE) -> Rectification | None:
    """The homography making the page's rules upright, or None when the rules do not say
    (too few long segments, no agreement) or there is nothing worth correcting."""
    h, w = gray.shape[:2]
    segs = _segments(gray, tuning)
    if len(segs) < 2 * tuning.min_segments:
        return None
    angle = np.degrees(np.arctan2(segs[:, 3] - segs[:, 1], segs[:, 2] - segs[:, 0])) % 180
    horiz = (angle < tuning.max_lean_deg) | (angle > 180 - tuning.max_lean_deg)
    vert = np.abs(angle - 90) < tuning.max_lean_deg
    norm = np.array([[1 / w, 0, -0.5], [0, 1 / w, -0.5 * h / w], [0, 0, 1]])
    got_h = _vanishing_point(segs[horiz], norm, tuning)
    got_v = _vanishing_point(segs[vert], norm, tuning)
    if got_h is None or got_v is None:
        return None
    fix = upright_homography(got_h[0], got_v[0])
    if fix is None:
        return None
    matrix = np.linalg.inv(norm) @ fix @ norm
    matrix /= matrix[2, 2]
    grid = np.stack(np.meshgrid(np.linspace(0, w - 1, 9), np.linspace(0, h - 1, 13)), -1).reshape(1, -1, 2)
    moved = cv2.perspectiveTransform(grid.astype(np.float64), matrix)[0]
    shift = float(np.hypot(*(moved - grid[0]).T).max())
    if shift < tuning.min_shift_px or shift > tuning.max_shift * w:
        return None
    return Rectification(matrix, shift, (got_h[1], got_v[1]))
