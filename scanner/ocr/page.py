"""Photo/scan → a flat, upright, evenly lit page image.

Steps (each a plain function, sequenced by `image_to_page`): load → find the page quad →
undo the perspective → flatten the lighting (divide by a blurred background) → deskew.
"""
from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from scanner.errors import UnreadableInput
from scanner.inputs.image_header import decode_heif, is_heif, probe_image
from scanner.inputs.limits import MAX_PIXELS  # noqa: F401  (re-exported: its old home)
from scanner.inputs.limits import out_of_memory
from scanner.ocr.order_stats import percentile
from scanner.ocr.thresholds import MASK_ON, PAPER
from scanner.ocr.perspective import PAPERS, paper_aspect, rules_rectification
from scanner.ocr.sheet_pick import ROW_SHARP_SURE, Survey, content_fit, pick_sheet, survey

log = logging.getLogger("decksheet.ocr")

PAGE_W = 1800
"""Width of the normalised page in pixels (A4 at ~218 dpi: 8 pt text is ~22 px high)."""
PAGE_H = int(round(PAGE_W * PAPERS["A4"]))
"""Height of the normalised page: A4's at `PAGE_W`."""


@dataclass(frozen=True)
class PageTuning:
    """The numbers of the page stage, one home each (issue 32: per-stage tuning). The page is
    looked for on a copy `search_px` on its long side; shares are of that copy's frame unless
    said."""

    min_image_px: int = 300
    """An image narrower than this either way holds no readable sheet (8 pt text < 4 px high)."""
    search_px: float = 800.0
    """Long side of the copy the page is looked for on (corners ~1 px/800 accurate: the grid is
    found again on the warped page)."""
    search_blur: float = 2.0
    """Blur (σ, copy pixels) of the copy whose lightness the page's edges are measured on."""
    # ---- paper masks ---------------------------------------------------------------------
    centre: tuple[int, int] = (2, 5)
    """The frame's centre, whose colour is taken for the paper's: from 2/5 to 3/5 of each side."""
    paper_chroma: tuple[float, ...] = (5.0, 7.0, 9.0, 12.0)
    """Lab a·b distances from the centre's colour under which a pixel is paper, one mask each
    (backgrounds range from dark wood to pale desks)…"""
    paper_light: float = 0.6
    """…and at least this share of the centre's lightness."""
    seed_depth: float = 0.08
    """A second watershed seed, the point deepest in the bright region, when it lies at least
    this deep inside it…"""
    seed_off_centre: float = 0.1
    """…and this far from the frame's centre (shares of the frame's shorter side)."""
    seed_box: float = 0.1
    """Half-side of the watershed's paper seed (share of the frame's shorter side)."""
    frame_seed_px: int = 3
    """The paper seed stays this far inside the frame (its border is the background's seed)."""
    canny: tuple[int, int] = (20, 60)
    """Canny thresholds of the page outline (a brightness step, however faint)."""
    outlines: int = 3
    """Largest closed outlines tried as paper."""
    min_page_area: float = 0.15
    """A region smaller than this share of the frame is no page."""
    gradient_top: float = 99.5
    """The watershed's gradient is scaled so this percentile is full scale."""
    smooth: tuple[int, int] = (15, 9)
    """A paper mask is closed, then opened, with squares this wide (copy pixels)."""
    morph_pad: int = 16
    """Background border (pixels of the copy) around a paper mask while it is smoothed."""
    outline: float = 0.004
    """Outline tolerance (share of its length) of a paper region…"""
    fine_outline: float = 0.001
    """…and of a region the frame cuts."""
    straight_turn: float = 20.0
    """Degrees: a polygon vertex turning less than this lies on a straight side."""
    on_frame_px: float = 3.0
    """A side within this of the frame's edge runs along it."""
    frame_cut: float = 0.03
    """A side along the frame's edge at least this long (share of the frame's longer side) is
    where the frame cut the page (a corner merely touching the frame leaves a few pixels)."""
    cut_corner_reach: float = 0.25
    """A page corner the frame cut comes back where the page sides meet when that is within this
    share of the frame outside it…"""
    dropped_side_reach: float = 0.5
    """…and a dropped short side's neighbours are extended to their crossing within this."""
    # ---- page score ----------------------------------------------------------------------
    aspect_slack: float = 0.5
    """A quad's proportions score 0 this far from A4's (linearly down from 1 at A4)."""
    edge_step: float = 3.0
    """Paper is at least this much lighter (Lab L) than what lies just outside its edge…"""
    edge_probe: tuple[float, float] = (3.0, 0.006)
    """…measured this far inside and outside the side: (copy pixels, share of its longer side),
    the larger…"""
    edge_samples: tuple[float, float, int] = (0.05, 0.95, 24)
    """…at this many points from this to this share along each side."""
    seen_share: float = 0.5
    """At least this share of the outline must lie in the frame to be judged."""
    aspect_weight: float = 0.5
    """The score is the share of the outline with an edge times the proportions' fit to this
    power (a paper's edge counts more than its shape)."""
    min_score: float = 0.5
    """The best quad is the page only with at least this score."""
    # ---- the image is the page -----------------------------------------------------------
    frame_band: float = 0.01
    """Share of the image's width/height along each edge that `paper_fills_frame` looks at…"""
    frame_check_px: int = 1600
    """…on a copy at most this large (every second pixel of a larger image)…"""
    paper_hsv: tuple[int, int] = (200, 40)
    """…where paper is at least this bright (HSV value) and at most this coloured (saturation)…"""
    paper_share: float = 0.98
    """…on at least this share of every edge band."""
    # ---- warp ----------------------------------------------------------------------------
    sideways: float = 1.15
    """A page (or a scan) wider than high by this lies on its side."""
    paper_range: float = 0.8
    """A paper whose height is less than this share of A4's (at the page's width) is far from
    any paper: the page is stretched to A4 as before."""
    pad_rows: tuple[int, int] = (4, 100)
    """A short page is padded with the paper of its last (rows, height ÷ this), the larger."""
    edge_band: float = 0.012
    """Share of the page width replaced along the warped page's edges: a sliver of background
    left there would pass for a rule (and darken the contrast stretch); the sheet's margins are
    wider."""
    # ---- flatten -------------------------------------------------------------------------
    background_scale: int = 4
    """The paper's background is estimated on a copy this many times smaller…"""
    background_kernels: tuple[int, int] = (7, 21)
    """…by a dilation this wide (text and thin rules removed) and a median blur this wide."""
    ink_sample: int = 4
    """The darkest ink is measured on every this-many-th pixel each way…"""
    ink_percentile: float = 0.5
    """…as this percentile of the page…"""
    ink_target: float = 40.0
    """…is stretched to this grey level (pale photos then threshold like crisp scans)…"""
    max_gain: float = 4.0
    """…by a contrast gain of at most this."""
    # ---- skew ----------------------------------------------------------------------------
    skew_strip: int = 5
    """Columns of the profile image averaged into one strip for the skew search: the search
    shears the strips up and down instead of rotating every pixel (5× fewer pixels per angle).
    With 5 the angles found are the rotation's own on every photo tried (6 moved one weak
    column peak by 0.01°)."""
    skew_paper: int = 59
    """Ink darker than paper by at most this (its noise) adds nothing but blur to the profile."""
    column_sizes: tuple[int, int] = (450, 900)
    """Long side (px) of the coarse and the fine copy for the columns' lean."""
    max_skew_deg: float = 5.0
    """The rows' skew is looked for within ± this…"""
    max_lean_deg: float = 3.0
    """…the columns' lean within ± this…"""
    coarse_step_deg: float = 0.25
    """…in steps of this on the quarter-size copy (a step moves a rule end by ~2 px there)…"""
    fine_steps: tuple[tuple[float, float], ...] = ((0.05, 0.25), (0.01, 0.05))
    """…then (step, ± span) on the half-size copy."""
    min_skew_deg: float = 0.03
    """A skew smaller than this is not worth the rotation's interpolation…"""
    min_lean_deg: float = 0.1
    """…nor a lean smaller than this the shear's."""


PAGE = PageTuning()


@dataclass
class PageImage:
    """A page ready for grid detection, with what was done to get it."""

    gray: np.ndarray
    """Flattened grayscale page (white paper ≈ 255), PAGE_W wide."""
    color: np.ndarray
    """The same page in colour (BGR, warped but not flattened), for pen-colour checks."""
    corners: np.ndarray | None
    """Page corners found in the source image (TL, TR, BR, BL), None when the image is the page."""
    skew_deg: float = 0.0
    notes: list[str] = field(default_factory=list)
    search: PageSearch | None = None
    """What `find_page` looked at (None for a scan or corners given): other quads to try."""
    unknown_aspect: float | None = None
    """The height / width the paper was warped to when its corners named no known paper
    (`perspective.paper_aspect` near none of `PAPERS`: a cropped photo, corners off, a strong
    tilt): the print on it may be squeezed, and the form fit also tries the known papers' aspects
    (`form_fit.fit_form`). None when the paper is known or the image is the page."""


def load_image(path: Path) -> np.ndarray:
    """Read an image file as BGR; a clear error for anything that is not a decodable image."""
    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except OSError as exc:
        raise UnreadableInput("input.cannot-open", file=path, reason=exc.strerror or exc) from None
    return decode_image(data, str(path))


def decode_image(data: np.ndarray | bytes, label: str = "image", tuning: PageTuning = PAGE) -> np.ndarray:
    """Decode after the header passed the input limits (pixels, frames): never decode a bomb."""
    raw = data.tobytes() if isinstance(data, np.ndarray) else bytes(data)
    if not raw:
        raise UnreadableInput("input.file-empty", file=label)
    probe_image(raw, label)
    if is_heif(raw[:16]):
        img = decode_heif(raw, label)
    else:
        try:
            with _native_stderr_to_log(label):
                img = cv2.imdecode(np.frombuffer(raw, dtype=np.uint8), cv2.IMREAD_COLOR)
        except cv2.error as exc:
            if out_of_memory(exc):  # not a corrupt file: the worker's memory bound
                raise
            img = None
    if img is None:
        raise UnreadableInput("input.image-corrupt", file=label)
    if min(img.shape[:2]) < tuning.min_image_px:
        raise UnreadableInput("input.image-too-small", file=label, width=img.shape[1],
                              height=img.shape[0])
    return img


_STDERR_LOCK = threading.Lock()


@contextlib.contextmanager
def _native_stderr_to_log(label: str):
    """libjpeg prints "Corrupt JPEG data: …" straight to file descriptor 2, past Python: the user
    would get lines besides decksheet's one. Catch them (debug log) while the decoder runs."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # no real stderr (tests, services): nothing to hide
        yield
        return
    with _STDERR_LOCK, tempfile.TemporaryFile() as sink:
        sys.stderr.flush()
        saved = os.dup(fd)
        os.dup2(sink.fileno(), fd)
        try:
            yield
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            sink.seek(0)
            said = sink.read(4096).decode("utf-8", "replace").strip()
            if said:
                log.debug("%s: decoder said: %s", label, said)


def order_corners(pts: np.ndarray) -> np.ndarray:
    """Order four points TL, TR, BR, BL."""
    pts = pts.reshape(4, 2).astype(np.float32)
    s = pts.sum(axis=1)
    d = np.diff(pts, axis=1).ravel()
    return np.array([pts[np.argmin(s)], pts[np.argmin(d)], pts[np.argmax(s)], pts[np.argmax(d)]],
                    dtype=np.float32)


A4_ASPECT = PAPERS["A4"]


def paper_masks(small: np.ndarray, tuning: PageTuning = PAGE) -> list[np.ndarray]:
    """Candidate paper masks: the paper is bright and nearly colourless, and it holds the centre
    of the frame. Several thresholds, because backgrounds range from dark wood to pale desks."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    sat = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)[:, :, 1]
    score = np.clip(gray.astype(np.int16) - sat.astype(np.int16) // 2, 0, PAPER).astype(np.uint8)
    _, otsu = cv2.threshold(score, 0, MASK_ON, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    masks = [otsu]
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = gray.shape
    k, n = tuning.centre
    centre = lab[h * k // n:h * (n - k) // n, w * k // n:w * (n - k) // n].reshape(-1, 3)
    l0, a0, b0 = np.median(centre, axis=0)
    dab = np.hypot(lab[:, :, 1] - a0, lab[:, :, 2] - b0)
    for max_dab in tuning.paper_chroma:
        masks.append(((dab < max_dab) & (lab[:, :, 0] > tuning.paper_light * l0)).astype(np.uint8) * MASK_ON)
    # The paper usually holds the frame centre, but not in every landscape frame: the watershed
    # also grows from the point deepest inside the bright region.
    seeds = [(w // 2, h // 2)]
    depth = cv2.distanceTransform(otsu, cv2.DIST_L2, 5)
    _, reach, _, (dx, dy) = cv2.minMaxLoc(depth)
    if reach > tuning.seed_depth * min(h, w) and np.hypot(dx - w / 2, dy - h / 2) > tuning.seed_off_centre * min(h, w):
        seeds.append((dx, dy))
    gradient = _gradient8(small, tuning)
    masks.extend(_watershed_mask(small, seed, gradient, tuning) for seed in seeds)
    return masks + _edge_masks(gray, tuning)


def _edge_masks(gray: np.ndarray, tuning: PageTuning = PAGE) -> list[np.ndarray]:
    """Candidate paper masks from edges: the page's outline is a brightness step even where
    paper and background have the same colour (a pale grey desk) or a shadow splits the paper's
    brightness. Each large closed outline, filled."""
    edges = cv2.dilate(cv2.Canny(gray, *tuning.canny), np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    h, w = gray.shape
    out = []
    for c in sorted(contours, key=cv2.contourArea, reverse=True)[:tuning.outlines]:
        hull = cv2.convexHull(c)
        if cv2.contourArea(hull) < tuning.min_page_area * h * w:
            break
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [hull], MASK_ON)
        out.append(mask)
    return out


def _gradient8(small: np.ndarray, tuning: PageTuning = PAGE) -> np.ndarray:
    """The colour gradient the watershed floods: the largest Sobel magnitude of the Lab channels,
    scaled so its 99.5th percentile is 255."""
    h, w = small.shape[:2]
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    grad = np.zeros((h, w), np.float32)
    for c in range(3):
        ch = lab[:, :, c].astype(np.float32)
        grad = np.maximum(grad, cv2.magnitude(cv2.Sobel(ch, cv2.CV_32F, 1, 0, ksize=3),
                                              cv2.Sobel(ch, cv2.CV_32F, 0, 1, ksize=3)))
    g8 = np.clip(grad / max(percentile(grad, tuning.gradient_top), 1.0) * MASK_ON, 0, MASK_ON).astype(np.uint8)
    return cv2.cvtColor(g8, cv2.COLOR_GRAY2BGR)


def _watershed_mask(small: np.ndarray, seed: tuple[int, int], gradient: np.ndarray | None = None,
                    tuning: PageTuning = PAGE) -> np.ndarray:
    """Paper grown from a seed point (the frame centre) against background grown from the frame border, over
    the colour gradient: the two meet on the page edge however faint it is (a pale desk whose
    brightness overlaps the paper's under uneven light defeats every threshold). `gradient`:
    `_gradient8(small)` when the caller made it already (one per copy, whatever the seed)."""
    h, w = small.shape[:2]
    if gradient is None:
        gradient = _gradient8(small, tuning)
    background, paper = 1, 2  # the watershed's markers
    markers = np.zeros((h, w), np.int32)
    markers[:2], markers[-2:], markers[:, :2], markers[:, -2:] = background, background, background, background
    r = int(tuning.seed_box * min(h, w))
    x, y = seed
    m = tuning.frame_seed_px
    markers[max(m, y - r):min(h - m, y + r), max(m, x - r):min(w - m, x + r)] = paper
    cv2.watershed(gradient, markers)
    return (markers == paper).astype(np.uint8) * MASK_ON


PARALLEL_SIN = 1e-6
"""Two lines whose directions' sine is below this are parallel (they meet nowhere useful)."""
NORM_EPS = 1e-9
"""Added to a length a division or comparison scales by (a zero-length side)."""


def _line_cross(p1, p2, p3, p4) -> np.ndarray | None:
    """Intersection of the lines p1p2 and p3p4 (None when nearly parallel)."""
    d1, d2 = p2 - p1, p4 - p3
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < PARALLEL_SIN * (np.linalg.norm(d1) * np.linalg.norm(d2) + NORM_EPS):
        return None
    t = ((p3[0] - p1[0]) * d2[1] - (p3[1] - p1[1]) * d2[0]) / den
    return p1 + t * d1


def _turn(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    """How many degrees the outline a→b→c turns at b."""
    d1, d2 = b - a, c - b
    cos = float(np.dot(d1, d2) / max(np.linalg.norm(d1) * np.linalg.norm(d2), NORM_EPS))
    return float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))


def _on_frame(a: np.ndarray, b: np.ndarray, frame: tuple[int, int], tol: float = PAGE.on_frame_px) -> bool:
    h, w = frame
    return any(abs(a[k] - v) <= tol and abs(b[k] - v) <= tol
               for k, v in ((0, 0), (0, w - 1), (1, 0), (1, h - 1)))


def _drop_frame_sides(pts: list[np.ndarray], frame: tuple[int, int], tuning: PageTuning = PAGE) -> list[np.ndarray]:
    """A side running along the frame edge is where the frame cut the page, not a page edge:
    the page sides on either side of it are extended to their crossing (when it is near)."""
    h, w = frame
    i = 0
    reach = tuning.cut_corner_reach
    while len(pts) > QUAD and i < len(pts):
        n = len(pts)
        a, b = pts[i], pts[(i + 1) % n]
        # A corner that merely touches the frame leaves a few pixels along it: not a cut.
        if not _on_frame(a, b, frame, tuning.on_frame_px) or np.linalg.norm(b - a) < tuning.frame_cut * max(h, w):
            i += 1
            continue
        x = _line_cross(pts[(i - 1) % n], a, b, pts[(i + 2) % n])
        if x is None or not _near_frame(x, (h, w), reach):
            i += 1  # a whole page side is out of the frame: the frame edge is the best guess
            continue
        pts[i] = x
        del pts[(i + 1) % n]
    return pts


QUAD = 4
"""A page's outline has four corners."""


def _near_frame(x: np.ndarray, frame: tuple[int, int], reach: float) -> bool:
    """The point lies in the frame or at most `reach` of its size outside it."""
    h, w = frame
    return -reach * w < x[0] < (1 + reach) * w and -reach * h < x[1] < (1 + reach) * h


def _polygon_to_quad(poly: np.ndarray, frame: tuple[int, int], tuning: PageTuning = PAGE) -> np.ndarray | None:
    """Reduce a convex polygon to four corners by dropping its shortest sides: the neighbours of
    a dropped side are extended to their crossing. A page corner cut off by the frame edge (or
    rounded by the mask) comes back where the page edges meet, even outside the frame."""
    pts = [np.asarray(p, dtype=np.float64) for p in poly.reshape(-1, 2)]
    pts = _drop_frame_sides(pts, frame, tuning)
    while len(pts) > QUAD:  # then the vertices where the outline barely turns
        n = len(pts)
        turns = [_turn(pts[i - 1], pts[i], pts[(i + 1) % n]) for i in range(n)]
        i = int(np.argmin(turns))
        if turns[i] >= tuning.straight_turn:
            break
        del pts[i]
    while len(pts) > QUAD:
        n = len(pts)
        lengths = [np.linalg.norm(pts[(i + 1) % n] - pts[i]) for i in range(n)]
        i = int(np.argmin(lengths))
        a, b = pts[(i - 1) % n], pts[i]
        c, d = pts[(i + 1) % n], pts[(i + 2) % n]
        x = _line_cross(a, b, c, d)
        j = (i + 1) % n
        if x is None or not _near_frame(x, frame, tuning.dropped_side_reach):
            del pts[j]  # parallel neighbours: a tiny step, just drop a vertex
            continue
        pts[i] = x
        del pts[j]
    if len(pts) != QUAD:
        return None
    return order_corners(np.array(pts, dtype=np.float32))


def _frame_side(quad: np.ndarray, frame: tuple[int, int], tuning: PageTuning = PAGE) -> bool:
    """Whether a side of the quad runs along the frame edge: the frame edge taken for the page's."""
    return any(_on_frame(quad[i], quad[(i + 1) % QUAD], frame, tuning.on_frame_px)
               and np.linalg.norm(quad[(i + 1) % QUAD] - quad[i]) >= tuning.frame_cut * max(frame)
               for i in range(QUAD))


def _smoothed(mask: np.ndarray, pad: int = 0, tuning: PageTuning = PAGE) -> np.ndarray:
    """The mask closed and opened (`pad`: with a background border around it meanwhile)."""
    h, w = mask.shape
    if pad:
        mask = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    close, open_ = tuning.smooth
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((close, close), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((open_, open_), np.uint8))
    return mask[pad:pad + h, pad:pad + w]


def _outline_quad(comp: np.ndarray, fine: bool = False, tuning: PageTuning = PAGE) -> np.ndarray | None:
    """Four corners of one region's outline."""
    contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    poly = cv2.approxPolyDP(hull, (tuning.fine_outline if fine else tuning.outline) * cv2.arcLength(hull, True), True)
    return _polygon_to_quad(poly, comp.shape, tuning) if len(poly) >= QUAD else None


def quads_from_mask(mask: np.ndarray, tuning: PageTuning = PAGE) -> list[np.ndarray]:
    """Four corners of each large region of the mask (the paper is one of them)."""
    raw = mask
    mask = _smoothed(raw, tuning=tuning)
    h, w = mask.shape
    # (the areas by a count of the labels: the labelling's own statistics pass costs 5× more)
    n, labels = cv2.connectedComponents(mask)
    areas = np.bincount(labels.ravel(), minlength=n)
    quads = []
    for cid in range(1, n):
        if areas[cid] < tuning.min_page_area * h * w:
            continue
        comp = (labels == cid).astype(np.uint8) * MASK_ON
        quad = _outline_quad(comp, tuning=tuning)
        if quad is not None and _frame_side(quad, (h, w), tuning):
            # The frame edge taken for a page edge: where the page edge leaves the frame at a
            # shallow angle, the smoothing filled the thin wedge between the two (OpenCV's
            # morphology takes the frame's outside as whatever keeps a pixel), and the coarse
            # outline merged them. Smoothed with a background border and outlined finely, the
            # region keeps the page edge's visible stretch, which is extended to its corner.
            grow = tuning.smooth[1]
            region = cv2.bitwise_and(_smoothed(raw, tuning.morph_pad, tuning),
                                     cv2.dilate(comp, np.ones((grow, grow), np.uint8)))
            again = _outline_quad(region, fine=True, tuning=tuning)
            quad = again if again is not None else quad
        if quad is not None:
            quads.append(quad)
    return quads


def page_score(quad: np.ndarray, light: np.ndarray, tuning: PageTuning = PAGE) -> float:
    """How page-like a quad is (0..1): A4 proportions, a large share of the frame, and an edge
    all round: samples just inside its sides lighter than just outside. Sides that leave the
    frame cannot be seen and count neither way, but most of the outline must be visible."""
    h, w = light.shape
    tl, tr, br, bl = quad
    sw = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    sh = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    aspect = max(sw, sh) / max(min(sw, sh), 1.0)
    aspect_fit = max(0.0, 1.0 - abs(aspect - A4_ASPECT) / tuning.aspect_slack)
    area = cv2.contourArea(quad)
    if area < tuning.min_page_area * h * w or aspect_fit == 0.0:
        return 0.0
    centre = quad.mean(axis=0)
    d = max(tuning.edge_probe[0], tuning.edge_probe[1] * max(h, w))
    seen = total = good = 0
    for a, b in ((tl, tr), (tr, br), (br, bl), (bl, tl)):
        side = b - a
        normal = np.array([side[1], -side[0]]) / max(np.linalg.norm(side), 1e-6)
        if np.dot(centre - (a + b) / 2, normal) > 0:
            normal = -normal  # pointing out of the page
        for t in np.linspace(*tuning.edge_samples):
            p = a + t * side
            pin, pout = p - d * normal, p + d * normal
            total += 1
            if not all(1 <= q[0] < w - 2 and 1 <= q[1] < h - 2 for q in (pin, pout)):
                continue
            seen += 1
            good += (float(light[int(pin[1]), int(pin[0])]) - float(light[int(pout[1]), int(pout[0])])
                     >= tuning.edge_step)
    if seen < tuning.seen_share * total:
        return 0.0
    return aspect_fit ** tuning.aspect_weight * good / seen


@dataclass
class PageSearch:
    """What `find_page` made on its ~800 px copy of the photo, kept with the page: when the grid
    misses tables, `page_alternatives` takes other quads from it instead of making it again."""

    scale: float
    """Copy pixels per photo pixel."""
    gray: np.ndarray
    light: np.ndarray
    """Lab L of the blurred copy."""
    quads: list[np.ndarray]
    """The paper masks' region outlines."""
    seen: Survey | None = None
    """Edge lines and checked quads, when the sheet had to be picked among them."""

    def surveyed(self) -> Survey:
        if self.seen is None:
            self.seen = survey(self.gray, self.light, self.quads, order_corners)
        return self.seen


def _paper(hsv: np.ndarray, tuning: PageTuning = PAGE) -> np.ndarray:
    """Where an HSV image is paper: at least `paper_hsv[0]` bright, at most `paper_hsv[1]` coloured."""
    return (hsv[..., 2] >= tuning.paper_hsv[0]) & (hsv[..., 1] <= tuning.paper_hsv[1])


def paper_fills_frame(img: np.ndarray, tuning: PageTuning = PAGE) -> bool:
    """The image is all paper to its edges: a rendering ("save as image"), a flatbed scan or a
    phone scanner's crop. Every edge band is bright and colourless nearly everywhere (a photo
    shows desk, shadow or other papers somewhere along its edges; a printed sheet's margins
    are blank). Such an image is the page: a quad searched inside it can only be a table's
    outline, and warping that cuts rows off."""
    h, w = img.shape[:2]
    bh, bw = max(2, int(tuning.frame_band * h)), max(2, int(tuning.frame_band * w))
    small = img if max(h, w) <= tuning.frame_check_px else img[::2, ::2]
    sh, sw = small.shape[:2]
    bh, bw = max(2, bh * sh // h), max(2, bw * sw // w)
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    for band in (hsv[:bh], hsv[-bh:], hsv[:, :bw], hsv[:, -bw:]):
        if _paper(band, tuning).mean() < tuning.paper_share:
            return False
    return True


def paper_width_px(img: np.ndarray, tuning: PageTuning = PAGE) -> float:
    """Width (the image's pixels) of the largest paper-coloured region (`paper_hsv`, as
    `paper_fills_frame`): how wide the sheet was taken when no page quad is used (the photo read
    as a whole), for the retake advice — the whole width when the paper fills the frame."""
    h, w = img.shape[:2]
    step = max(1, -(-max(h, w) // tuning.frame_check_px))  # a copy at most frame_check_px large
    small = img[::step, ::step]
    # (a grey image: paper is what is bright enough)
    paper = _paper(cv2.cvtColor(small, cv2.COLOR_BGR2HSV), tuning) if small.ndim > 2 \
        else small >= tuning.paper_hsv[0]
    # printed ink inside the paper would cut it into pieces: closed across a line's width first
    closed = cv2.morphologyEx(paper.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    if n <= 1:
        return float(w)
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return float(stats[biggest, cv2.CC_STAT_WIDTH] * step)


def find_page(img: np.ndarray) -> np.ndarray | None:
    """Corners (TL, TR, BR, BL) of the paper in a photo, or None when the paper fills the frame
    (a scan) or no page-like quad is found (`search_page` without what it looked at)."""
    return search_page(img)[0]


def search_page(img: np.ndarray, tuning: PageTuning = PAGE) -> tuple[np.ndarray | None, PageSearch]:
    """Corners (TL, TR, BR, BL) of the paper in a photo (None as for `find_page`), and what was
    looked at. Candidate quads come from several paper masks (thresholds of brightness and
    colour, a watershed over the gradient); the one with the most page-like outline wins when
    it holds ruled tables. Otherwise (other papers around the sheet) `sheet_pick` chooses the
    quad holding them, or the best outline stays."""
    h, w = img.shape[:2]
    scale = tuning.search_px / max(h, w)
    small = cv2.resize(img, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    small = cv2.GaussianBlur(small, (0, 0), tuning.search_blur)
    light = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)[:, :, 0]
    best: tuple[float, np.ndarray] | None = None
    quads: list[np.ndarray] = []
    for mask in paper_masks(small, tuning):
        for quad in quads_from_mask(mask, tuning):
            score = page_score(quad, light, tuning)
            log.debug("page candidate score %.2f", score)
            quads.append(quad)
            if best is None or score > best[0]:
                best = (score, quad)
    search = PageSearch(scale, gray, light, quads)
    # On a plain background the best outline is the sheet. Among other papers it may be another
    # paper, or the sheet and a paper together: then the sheet is the quad holding ruled tables.
    if (best is None or best[0] < tuning.min_score
            or content_fit(gray, best[1], min_rows=ROW_SHARP_SURE) == 0.0):
        picked = pick_sheet(gray, light, search.surveyed(), order_corners)
        if picked is not None:
            log.debug("page: the quad holding the tables (edge %.2f, margin %.2f)",
                      picked.edge, picked.margin)
            best = (1.0, picked.quad)
    if best is None or best[0] < tuning.min_score:
        return None, search
    return refine_corners(img, (best[1] / scale).astype(np.float32)), search


def refine_corners(img: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Nothing fancy: the downscaled quad is ~1 px/800 accurate, enough because the grid is
    found again on the warped page. Kept as a hook for a sub-pixel step."""
    return corners


def warp_page(img: np.ndarray, corners: np.ndarray | None) -> np.ndarray:
    """Undo the perspective (or just resize a scan) to PAGE_W × PAGE_H."""
    return page_warp(img, corners)[0]


@dataclass
class Warp:
    """How the source image became the page: the homography (source → page pixels) and the
    paper's height in the page (the rest, down to PAGE_H, is padding)."""

    matrix: np.ndarray
    height: int
    paper: str
    """Which paper the corners were taken for (`perspective.paper_aspect`)."""


def upright_corners(corners: np.ndarray, frame: tuple[int, int], tuning: PageTuning = PAGE
                    ) -> tuple[np.ndarray, float, str]:
    """The corners in the order that stands the page upright (a page lying sideways in the
    frame: its side BL→TL becomes the top), the paper's height / width and its name."""
    tl, tr, br, bl = corners
    width = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    height = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    if width > height * tuning.sideways:  # page lies sideways in the frame: rotate the corner order
        corners = np.array([bl, tl, tr, br], dtype=np.float32)
    aspect, paper = paper_aspect(corners, frame)
    return corners, aspect, paper


def page_warp(img: np.ndarray, corners: np.ndarray | None,
              then: np.ndarray | None = None, tuning: PageTuning = PAGE) -> tuple[np.ndarray, Warp | None]:
    """`warp_page`, and the warp (None for a scan): the paper is PAGE_W wide and as high as its
    aspect says (`perspective.paper_aspect`: a Letter page stays Letter, not stretched to A4),
    padded with paper to PAGE_H. `then`: a homography on the page to apply in the same warp
    (the rules' rectification), so the photo is sampled once."""
    if corners is None:
        h, w = img.shape[:2]
        if w > h * tuning.sideways:  # a landscape scan of a portrait sheet
            img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
        return _fit_width(img, tuning), None
    corners, aspect, paper = upright_corners(corners, img.shape[:2], tuning)
    height = int(round(PAGE_W * aspect))
    if not tuning.paper_range * PAGE_H <= height <= PAGE_H:
        height, paper = PAGE_H, f"{paper} shown as A4"  # far from any paper: as before
    dst = np.array([[0, 0], [PAGE_W - 1, 0], [PAGE_W - 1, height - 1], [0, height - 1]],
                   dtype=np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    if then is not None:
        m = then @ m
    # Cubic, although linear costs a fifth (0.02 s instead of 0.1 s): linear loses thin rules
    # and strokes where the page is shrunk (a fixture photo lost a whole table, another its ID).
    out = cv2.warpPerspective(img, m, (PAGE_W, height), flags=cv2.INTER_CUBIC,
                              borderMode=cv2.BORDER_REPLICATE)
    return _pad_to_page(blank_edges(out, tuning), tuning), Warp(m, height, paper)


def _pad_to_page(out: np.ndarray, tuning: PageTuning = PAGE) -> np.ndarray:
    """A page shorter than PAGE_H padded below with the paper of its last rows."""
    height = out.shape[0]
    if height >= PAGE_H:
        return out
    paper = np.median(out[-max(tuning.pad_rows[0], height // tuning.pad_rows[1]):], axis=(0, 1)).astype(out.dtype)
    pad = np.empty((PAGE_H - height,) + out.shape[1:], out.dtype)
    pad[...] = paper
    return np.concatenate([out, pad])


def _fit_width(img: np.ndarray, tuning: PageTuning = PAGE) -> np.ndarray:
    """A whole image scaled to PAGE_W wide, its proportions kept: a page that is not A4 (the
    Konami form is 644 × 834 pt, Letter) stretched to A4 would move every rule off the form's
    own spacing. A shorter page is padded with paper below; a longer one is cut at PAGE_H
    only past the A4 height it may hold (a long receipt-like image is squeezed as before)."""
    h, w = img.shape[:2]
    height = int(round(h * PAGE_W / w))
    if not tuning.paper_range * PAGE_H <= height <= PAGE_H:
        height = PAGE_H  # far from any paper: as before, the whole image as the page
    out = cv2.resize(img, (PAGE_W, height), interpolation=cv2.INTER_AREA
                     if w > PAGE_W else cv2.INTER_CUBIC)
    return _pad_to_page(out, tuning)


def blank_edges(page: np.ndarray, tuning: PageTuning = PAGE) -> np.ndarray:
    """The page with a thin band along its edges replaced by the paper just inside it."""
    m = max(2, int(tuning.edge_band * page.shape[1]))
    return cv2.copyMakeBorder(page[m:-m, m:-m], m, m, m, m, cv2.BORDER_REPLICATE)


def flatten(gray: np.ndarray, tuning: PageTuning = PAGE) -> np.ndarray:
    """Divide by a blurred background so paper is ~255 everywhere (shadows, vignette, gradient).

    The background is estimated on a downscaled copy: a dilation removes text and thin rules
    (dark on light), a median blur smooths the rest.
    """
    h, w = gray.shape
    k = tuning.background_scale
    small = cv2.resize(gray, (w // k, h // k), interpolation=cv2.INTER_AREA)
    dilate, median = tuning.background_kernels
    bg = cv2.dilate(small, np.ones((dilate, dilate), np.uint8))
    bg = cv2.medianBlur(bg, median)
    bg = cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    # (in place: the page-sized float temporaries cost more than the arithmetic)
    out = gray.astype(np.float32)
    np.divide(out, np.maximum(bg, 1.0, out=bg), out=out)
    white = float(PAPER)
    np.multiply(out, white, out=out)
    # Stretch the contrast so the darkest ink sits near `ink_target` whatever the exposure: pale
    # photos then threshold like crisp scans.
    step = tuning.ink_sample
    ink = percentile(out[::step, ::step], tuning.ink_percentile)
    gain = float(np.clip((white - tuning.ink_target) / max(white - ink, 1.0), 1.0, tuning.max_gain))
    np.subtract(white, out, out=out)
    np.multiply(out, gain, out=out)
    np.subtract(white, out, out=out)
    return np.clip(out, 0, PAPER, out=out).astype(np.uint8)


def _ink_strips(small: np.ndarray, columns: bool, tuning: PageTuning = PAGE) -> np.ndarray:
    """Ink (255 - grey, paper noise below 60 dropped: it adds nothing but blur to the profile),
    each `skew_strip` columns averaged into one strip, full height. With `columns`, of the
    transposed image (transposed once small: a page-sized transpose costs)."""
    if columns:
        small = np.ascontiguousarray(small.T)
    _, ink = cv2.threshold(PAPER - small, tuning.skew_paper, 0, cv2.THRESH_TOZERO)
    strips = ink.shape[1] // tuning.skew_strip
    return cv2.resize(ink[:, :strips * tuning.skew_strip].astype(np.float32), (strips, ink.shape[0]),
                      interpolation=cv2.INTER_AREA)


def _ink_profile_images(gray: np.ndarray, columns: bool = False, tuning: PageTuning = PAGE
                        ) -> tuple[np.ndarray, np.ndarray]:
    """The ink strips of a small and a half-size page, for the coarse and the fine sweep.
    Rows: a quarter and a half of the page (halved twice: OpenCV's area resize by two is 6×
    cheaper than by any other factor). Columns (the page on its side): its long side at 450
    and 900 px, each resized from the page itself: the column profile is weak, its sharpest
    angle moves with the slightest change of its pixels."""
    if columns:
        h, w = gray.shape
        small, half = (cv2.resize(gray, (int(w * size / h), size), interpolation=cv2.INTER_AREA)
                       for size in tuning.column_sizes)
    else:
        half = cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        small = cv2.resize(half, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    return _ink_strips(small, columns, tuning), _ink_strips(half, columns, tuning)


def _sharpness(ink: np.ndarray, angle: float, tuning: PageTuning = PAGE) -> float:
    """How sharp the row profile is with the ink's rows tilted by `angle` (degrees, positive =
    counter-clockwise) made level: each strip (SKEW_STRIP columns of the profile image) slides
    up or down by the tilt at its centre, a shear; rules tilted by `angle` then line up. (A
    rotation differs only by a stretch of cos(angle) that does not move the sharpest angle.)"""
    k = float(np.tan(np.radians(angle))) * tuning.skew_strip
    m = np.float32([[1, 0, 0], [-k, 1, k * (ink.shape[1] - 1) / 2]])
    rows = cv2.reduce(cv2.warpAffine(ink, m, (ink.shape[1], ink.shape[0])), 1, cv2.REDUCE_SUM)
    return float(np.square(np.diff(rows[:, 0].astype(np.float64))).sum())


def estimate_skew(gray: np.ndarray, max_deg: float = PAGE.max_skew_deg, *, columns: bool = False,
                  tuning: PageTuning = PAGE) -> float:
    """Skew in degrees (positive = rotate counter-clockwise to fix), by the projection-profile
    method: the angle at which the row sums of the ink are sharpest (table rules line up).
    The coarse sweep runs on a quarter-size copy (a 0.25° step moves a rule end by ~2 px there),
    the fine steps on the half-size one. With `columns`, the lean of the columns: the skew of
    the transposed page."""
    coarse, fine = _ink_profile_images(gray, columns, tuning)
    angles = np.arange(-max_deg, max_deg + ANGLE_EPS, tuning.coarse_step_deg)
    best = float(max(angles, key=lambda a: _sharpness(coarse, a, tuning)))
    for step, span in tuning.fine_steps:
        angles = np.arange(best - span, best + span + ANGLE_EPS, step)
        best = float(max(angles, key=lambda a: _sharpness(fine, a, tuning)))
    return best


ANGLE_EPS = 1e-9
"""Added to a sweep's last angle so `np.arange` includes it."""


def rotate(img: np.ndarray, angle_deg: float, border: int | tuple = PAPER) -> np.ndarray:
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, 1.0)
    return cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def shear(img: np.ndarray, lean_deg: float) -> np.ndarray:
    """Shift rows sideways so columns leaning by lean_deg (estimate_skew of the transposed page)
    stand upright; rows stay level."""
    h, w = img.shape[:2]
    k = -float(np.tan(np.radians(lean_deg)))
    m = np.float32([[1, k, -k * h / 2], [0, 1, 0]])
    return cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def image_to_page(img: np.ndarray, *, is_scan: bool = False,
                  corners: np.ndarray | None = None, tuning: PageTuning = PAGE) -> PageImage:
    """The whole page stage: find, warp, flatten, deskew (`corners`: a quad to use instead of
    the one `find_page` would choose)."""
    notes: list[str] = []
    search = None
    if corners is None and not is_scan and not paper_fills_frame(img, tuning):
        corners, search = search_page(img, tuning)
    notes.append("page: whole image" if corners is None else "page: quad found")
    color, warp = page_warp(img, corners, tuning=tuning)
    if warp is not None and warp.height != PAGE_H:
        notes.append(f"page: {warp.paper} paper ({warp.height} px high)")
    gray = flatten(cv2.cvtColor(color, cv2.COLOR_BGR2GRAY), tuning)
    # What the corners left of the perspective (or all of it, when the page fills the frame):
    # the homography that makes the printed rules upright, applied in the one warp of the photo.
    fix = rules_rectification(gray[:warp.height] if warp is not None else gray)
    if fix is not None:
        notes.append(fix.note())
        if corners is not None:
            color, warp = page_warp(img, corners, then=fix.matrix, tuning=tuning)
        else:
            color = cv2.warpPerspective(color, fix.matrix, (color.shape[1], color.shape[0]),
                                        flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)
        gray = flatten(cv2.cvtColor(color, cv2.COLOR_BGR2GRAY), tuning)
    # Rotation of a scan, or what remains after the warp of a photo.
    total = estimate_skew(gray, tuning.max_skew_deg, tuning=tuning)
    if abs(total) >= tuning.min_skew_deg:
        gray = rotate(gray, total)
        color = rotate(color, total)
    notes.append(f"skew {total:.2f}°")
    # The columns may still lean when the corners were off (a page edge outside the frame, a
    # curled sheet): a leaning rule breaks up in the vertical-rule mask. Undo it as a shear.
    lean = estimate_skew(gray, max_deg=tuning.max_lean_deg, columns=True, tuning=tuning)
    if abs(lean) >= tuning.min_lean_deg:
        gray, color = shear(gray, lean), shear(color, lean)
        notes.append(f"shear {lean:.2f}°")
    return PageImage(gray=gray, color=color, corners=corners, skew_deg=total, notes=notes,
                     search=search, unknown_aspect=None if warp is None or warp.paper in PAPERS
                     else warp.height / PAGE_W)
