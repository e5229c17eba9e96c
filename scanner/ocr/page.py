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
from scanner.ocr.order_stats import percentile
from scanner.ocr.perspective import paper_aspect, rules_rectification
from scanner.ocr.sheet_pick import ROW_SHARP_SURE, Survey, content_fit, pick_sheet, survey

log = logging.getLogger("decksheet.ocr")

PAGE_W = 1800
"""Width of the normalised page in pixels (A4 at ~218 dpi: 8 pt text is ~22 px high)."""
PAGE_H = int(round(PAGE_W * 297 / 210))


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


def load_image(path: Path) -> np.ndarray:
    """Read an image file as BGR; a clear error for anything that is not a decodable image."""
    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except OSError as exc:
        raise UnreadableInput("input.cannot-open", file=path, reason=exc.strerror or exc) from None
    return decode_image(data, str(path))


def decode_image(data: np.ndarray | bytes, label: str = "image") -> np.ndarray:
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
        except cv2.error:
            img = None
    if img is None:
        raise UnreadableInput("input.image-corrupt", file=label)
    if min(img.shape[:2]) < 300:
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


A4_ASPECT = 297 / 210


def paper_masks(small: np.ndarray) -> list[np.ndarray]:
    """Candidate paper masks: the paper is bright and nearly colourless, and it holds the centre
    of the frame. Several thresholds, because backgrounds range from dark wood to pale desks."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    sat = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)[:, :, 1]
    score = np.clip(gray.astype(np.int16) - sat.astype(np.int16) // 2, 0, 255).astype(np.uint8)
    _, otsu = cv2.threshold(score, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    masks = [otsu]
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = gray.shape
    centre = lab[h * 2 // 5:h * 3 // 5, w * 2 // 5:w * 3 // 5].reshape(-1, 3)
    l0, a0, b0 = np.median(centre, axis=0)
    dab = np.hypot(lab[:, :, 1] - a0, lab[:, :, 2] - b0)
    for max_dab in (5.0, 7.0, 9.0, 12.0):
        masks.append(((dab < max_dab) & (lab[:, :, 0] > 0.6 * l0)).astype(np.uint8) * 255)
    # The paper usually holds the frame centre, but not in every landscape frame: the watershed
    # also grows from the point deepest inside the bright region.
    seeds = [(w // 2, h // 2)]
    depth = cv2.distanceTransform(otsu, cv2.DIST_L2, 5)
    _, reach, _, (dx, dy) = cv2.minMaxLoc(depth)
    if reach > 0.08 * min(h, w) and np.hypot(dx - w / 2, dy - h / 2) > 0.1 * min(h, w):
        seeds.append((dx, dy))
    gradient = _gradient8(small)
    masks.extend(_watershed_mask(small, seed, gradient) for seed in seeds)
    return masks + _edge_masks(gray)


def _edge_masks(gray: np.ndarray) -> list[np.ndarray]:
    """Candidate paper masks from edges: the page's outline is a brightness step even where
    paper and background have the same colour (a pale grey desk) or a shadow splits the paper's
    brightness. Each large closed outline, filled."""
    edges = cv2.dilate(cv2.Canny(gray, 20, 60), np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    h, w = gray.shape
    out = []
    for c in sorted(contours, key=cv2.contourArea, reverse=True)[:3]:
        hull = cv2.convexHull(c)
        if cv2.contourArea(hull) < 0.15 * h * w:
            break
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [hull], 255)
        out.append(mask)
    return out


def _gradient8(small: np.ndarray) -> np.ndarray:
    """The colour gradient the watershed floods: the largest Sobel magnitude of the Lab channels,
    scaled so its 99.5th percentile is 255."""
    h, w = small.shape[:2]
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    grad = np.zeros((h, w), np.float32)
    for c in range(3):
        ch = lab[:, :, c].astype(np.float32)
        grad = np.maximum(grad, cv2.magnitude(cv2.Sobel(ch, cv2.CV_32F, 1, 0, ksize=3),
                                              cv2.Sobel(ch, cv2.CV_32F, 0, 1, ksize=3)))
    g8 = np.clip(grad / max(percentile(grad, 99.5), 1.0) * 255, 0, 255).astype(np.uint8)
    return cv2.cvtColor(g8, cv2.COLOR_GRAY2BGR)


def _watershed_mask(small: np.ndarray, seed: tuple[int, int], gradient: np.ndarray | None = None) -> np.ndarray:
    """Paper grown from a seed point (the frame centre) against background grown from the frame border, over
    the colour gradient: the two meet on the page edge however faint it is (a pale desk whose
    brightness overlaps the paper's under uneven light defeats every threshold). `gradient`:
    `_gradient8(small)` when the caller made it already (one per copy, whatever the seed)."""
    h, w = small.shape[:2]
    if gradient is None:
        gradient = _gradient8(small)
    markers = np.zeros((h, w), np.int32)
    markers[:2], markers[-2:], markers[:, :2], markers[:, -2:] = 1, 1, 1, 1
    r = int(0.1 * min(h, w))
    x, y = seed
    markers[max(3, y - r):min(h - 3, y + r), max(3, x - r):min(w - 3, x + r)] = 2
    cv2.watershed(gradient, markers)
    return (markers == 2).astype(np.uint8) * 255


def _line_cross(p1, p2, p3, p4) -> np.ndarray | None:
    """Intersection of the lines p1p2 and p3p4 (None when nearly parallel)."""
    d1, d2 = p2 - p1, p4 - p3
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-6 * (np.linalg.norm(d1) * np.linalg.norm(d2) + 1e-9):
        return None
    t = ((p3[0] - p1[0]) * d2[1] - (p3[1] - p1[1]) * d2[0]) / den
    return p1 + t * d1


STRAIGHT_TURN = 20.0
"""Degrees: a polygon vertex turning less than this lies on a straight side."""


def _turn(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    """How many degrees the outline a→b→c turns at b."""
    d1, d2 = b - a, c - b
    cos = float(np.dot(d1, d2) / max(np.linalg.norm(d1) * np.linalg.norm(d2), 1e-9))
    return float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))


def _on_frame(a: np.ndarray, b: np.ndarray, frame: tuple[int, int], tol: float = 3.0) -> bool:
    h, w = frame
    return any(abs(a[k] - v) <= tol and abs(b[k] - v) <= tol
               for k, v in ((0, 0), (0, w - 1), (1, 0), (1, h - 1)))


def _drop_frame_sides(pts: list[np.ndarray], frame: tuple[int, int]) -> list[np.ndarray]:
    """A side running along the frame edge is where the frame cut the page, not a page edge:
    the page sides on either side of it are extended to their crossing (when it is near)."""
    h, w = frame
    i = 0
    while len(pts) > 4 and i < len(pts):
        n = len(pts)
        a, b = pts[i], pts[(i + 1) % n]
        # A corner that merely touches the frame leaves a few pixels along it: not a cut.
        if not _on_frame(a, b, frame) or np.linalg.norm(b - a) < 0.03 * max(h, w):
            i += 1
            continue
        x = _line_cross(pts[(i - 1) % n], a, b, pts[(i + 2) % n])
        if x is None or not (-0.25 * w < x[0] < 1.25 * w and -0.25 * h < x[1] < 1.25 * h):
            i += 1  # a whole page side is out of the frame: the frame edge is the best guess
            continue
        pts[i] = x
        del pts[(i + 1) % n]
    return pts


def _polygon_to_quad(poly: np.ndarray, frame: tuple[int, int]) -> np.ndarray | None:
    """Reduce a convex polygon to four corners by dropping its shortest sides: the neighbours of
    a dropped side are extended to their crossing. A page corner cut off by the frame edge (or
    rounded by the mask) comes back where the page edges meet, even outside the frame."""
    pts = [np.asarray(p, dtype=np.float64) for p in poly.reshape(-1, 2)]
    h, w = frame
    pts = _drop_frame_sides(pts, frame)
    while len(pts) > 4:  # then the vertices where the outline barely turns
        n = len(pts)
        turns = [_turn(pts[i - 1], pts[i], pts[(i + 1) % n]) for i in range(n)]
        i = int(np.argmin(turns))
        if turns[i] >= STRAIGHT_TURN:
            break
        del pts[i]
    while len(pts) > 4:
        n = len(pts)
        lengths = [np.linalg.norm(pts[(i + 1) % n] - pts[i]) for i in range(n)]
        i = int(np.argmin(lengths))
        a, b = pts[(i - 1) % n], pts[i]
        c, d = pts[(i + 1) % n], pts[(i + 2) % n]
        x = _line_cross(a, b, c, d)
        j = (i + 1) % n
        if x is None or not (-0.5 * w < x[0] < 1.5 * w and -0.5 * h < x[1] < 1.5 * h):
            del pts[j]  # parallel neighbours: a tiny step, just drop a vertex
            continue
        pts[i] = x
        del pts[j]
    if len(pts) != 4:
        return None
    return order_corners(np.array(pts, dtype=np.float32))


MORPH_PAD = 16
"""Background border (pixels of the ~800 px copy) around a paper mask while it is smoothed."""
FINE_OUTLINE = 0.001
"""Outline tolerance (share of its length) of a region the frame cuts."""


def _frame_side(quad: np.ndarray, frame: tuple[int, int]) -> bool:
    """Whether a side of the quad runs along the frame edge: the frame edge taken for the page's."""
    return any(_on_frame(quad[i], quad[(i + 1) % 4], frame)
               and np.linalg.norm(quad[(i + 1) % 4] - quad[i]) >= 0.03 * max(frame) for i in range(4))


def _smoothed(mask: np.ndarray, pad: int = 0) -> np.ndarray:
    """The mask closed and opened (`pad`: with a background border around it meanwhile)."""
    h, w = mask.shape
    if pad:
        mask = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((9, 9), np.uint8))
    return mask[pad:pad + h, pad:pad + w]


def _outline_quad(comp: np.ndarray, fine: bool = False) -> np.ndarray | None:
    """Four corners of one region's outline."""
    contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    poly = cv2.approxPolyDP(hull, (FINE_OUTLINE if fine else 0.004) * cv2.arcLength(hull, True), True)
    return _polygon_to_quad(poly, comp.shape) if len(poly) >= 4 else None


def quads_from_mask(mask: np.ndarray) -> list[np.ndarray]:
    """Four corners of each large region of the mask (the paper is one of them)."""
    raw = mask
    mask = _smoothed(raw)
    h, w = mask.shape
    # (the areas by a count of the labels: the labelling's own statistics pass costs 5× more)
    n, labels = cv2.connectedComponents(mask)
    areas = np.bincount(labels.ravel(), minlength=n)
    quads = []
    for cid in range(1, n):
        if areas[cid] < 0.15 * h * w:
            continue
        comp = (labels == cid).astype(np.uint8) * 255
        quad = _outline_quad(comp)
        if quad is not None and _frame_side(quad, (h, w)):
            # The frame edge taken for a page edge: where the page edge leaves the frame at a
            # shallow angle, the smoothing filled the thin wedge between the two (OpenCV's
            # morphology takes the frame's outside as whatever keeps a pixel), and the coarse
            # outline merged them. Smoothed with a background border and outlined finely, the
            # region keeps the page edge's visible stretch, which is extended to its corner.
            region = cv2.bitwise_and(_smoothed(raw, MORPH_PAD), cv2.dilate(comp, np.ones((9, 9), np.uint8)))
            again = _outline_quad(region, fine=True)
            quad = again if again is not None else quad
        if quad is not None:
            quads.append(quad)
    return quads


EDGE_STEP = 3.0
"""Paper is at least this much lighter (Lab L) than what lies just outside its edge."""


def page_score(quad: np.ndarray, light: np.ndarray) -> float:
    """How page-like a quad is (0..1): A4 proportions, a large share of the frame, and an edge
    all round: samples just inside its sides lighter than just outside. Sides that leave the
    frame cannot be seen and count neither way, but most of the outline must be visible."""
    h, w = light.shape
    tl, tr, br, bl = quad
    sw = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    sh = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    aspect = max(sw, sh) / max(min(sw, sh), 1.0)
    aspect_fit = max(0.0, 1.0 - abs(aspect - A4_ASPECT) / 0.5)
    area = cv2.contourArea(quad)
    if area < 0.15 * h * w or aspect_fit == 0.0:
        return 0.0
    centre = quad.mean(axis=0)
    d = max(3.0, 0.006 * max(h, w))
    seen = total = good = 0
    for a, b in ((tl, tr), (tr, br), (br, bl), (bl, tl)):
        side = b - a
        normal = np.array([side[1], -side[0]]) / max(np.linalg.norm(side), 1e-6)
        if np.dot(centre - (a + b) / 2, normal) > 0:
            normal = -normal  # pointing out of the page
        for t in np.linspace(0.05, 0.95, 24):
            p = a + t * side
            pin, pout = p - d * normal, p + d * normal
            total += 1
            if not all(1 <= q[0] < w - 2 and 1 <= q[1] < h - 2 for q in (pin, pout)):
                continue
            seen += 1
            good += float(light[int(pin[1]), int(pin[0])]) - float(light[int(pout[1]), int(pout[0])]) >= EDGE_STEP
    if seen < 0.5 * total:
        return 0.0
    return aspect_fit ** 0.5 * good / seen


PAGE_MIN_SCORE = 0.5
EDGE_BAND = 0.012
"""Share of the page width replaced along the warped page's edges: a sliver of background left
there would pass for a rule (and darken the contrast stretch); the sheet's margins are wider."""


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


FRAME_BAND = 0.01
"""Share of the image's width/height along each edge that `paper_fills_frame` looks at."""


def paper_fills_frame(img: np.ndarray) -> bool:
    """The image is all paper to its edges: a rendering ("save as image"), a flatbed scan or a
    phone scanner's crop. Every edge band is bright and colourless nearly everywhere (a photo
    shows desk, shadow or other papers somewhere along its edges; a printed sheet's margins
    are blank). Such an image is the page: a quad searched inside it can only be a table's
    outline, and warping that cuts rows off."""
    h, w = img.shape[:2]
    bh, bw = max(2, int(FRAME_BAND * h)), max(2, int(FRAME_BAND * w))
    small = img if max(h, w) <= 1600 else img[::2, ::2]
    sh, sw = small.shape[:2]
    bh, bw = max(2, bh * sh // h), max(2, bw * sw // w)
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    for band in (hsv[:bh], hsv[-bh:], hsv[:, :bw], hsv[:, -bw:]):
        value, sat = band[:, :, 2].astype(np.int16), band[:, :, 1].astype(np.int16)
        paper = (value >= 200) & (sat <= 40)
        if paper.mean() < 0.98:
            return False
    return True


def find_page(img: np.ndarray) -> np.ndarray | None:
    """Corners (TL, TR, BR, BL) of the paper in a photo, or None when the paper fills the frame
    (a scan) or no page-like quad is found (`search_page` without what it looked at)."""
    return search_page(img)[0]


def search_page(img: np.ndarray) -> tuple[np.ndarray | None, PageSearch]:
    """Corners (TL, TR, BR, BL) of the paper in a photo (None as for `find_page`), and what was
    looked at. Candidate quads come from several paper masks (thresholds of brightness and
    colour, a watershed over the gradient); the one with the most page-like outline wins when
    it holds ruled tables. Otherwise (other papers around the sheet) `sheet_pick` chooses the
    quad holding them, or the best outline stays."""
    h, w = img.shape[:2]
    scale = 800.0 / max(h, w)
    small = cv2.resize(img, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    small = cv2.GaussianBlur(small, (0, 0), 2)
    light = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)[:, :, 0]
    best: tuple[float, np.ndarray] | None = None
    quads: list[np.ndarray] = []
    for mask in paper_masks(small):
        for quad in quads_from_mask(mask):
            score = page_score(quad, light)
            log.debug("page candidate score %.2f", score)
            quads.append(quad)
            if best is None or score > best[0]:
                best = (score, quad)
    search = PageSearch(scale, gray, light, quads)
    # On a plain background the best outline is the sheet. Among other papers it may be another
    # paper, or the sheet and a paper together: then the sheet is the quad holding ruled tables.
    if (best is None or best[0] < PAGE_MIN_SCORE
            or content_fit(gray, best[1], min_rows=ROW_SHARP_SURE) == 0.0):
        picked = pick_sheet(gray, light, search.surveyed(), order_corners)
        if picked is not None:
            log.debug("page: the quad holding the tables (edge %.2f, margin %.2f)",
                      picked.edge, picked.margin)
            best = (1.0, picked.quad)
    if best is None or best[0] < PAGE_MIN_SCORE:
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


def upright_corners(corners: np.ndarray, frame: tuple[int, int]) -> tuple[np.ndarray, float, str]:
    """The corners in the order that stands the page upright (a page lying sideways in the
    frame: its side BL→TL becomes the top), the paper's height / width and its name."""
    tl, tr, br, bl = corners
    width = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    height = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    if width > height * 1.15:  # page lies sideways in the frame: rotate the corner order
        corners = np.array([bl, tl, tr, br], dtype=np.float32)
    aspect, paper = paper_aspect(corners, frame)
    return corners, aspect, paper


def page_warp(img: np.ndarray, corners: np.ndarray | None,
              then: np.ndarray | None = None) -> tuple[np.ndarray, Warp | None]:
    """`warp_page`, and the warp (None for a scan): the paper is PAGE_W wide and as high as its
    aspect says (`perspective.paper_aspect`: a Letter page stays Letter, not stretched to A4),
    padded with paper to PAGE_H. `then`: a homography on the page to apply in the same warp
    (the rules' rectification), so the photo is sampled once."""
    if corners is None:
        h, w = img.shape[:2]
        if w > h * 1.15:  # a landscape scan of a portrait sheet
            img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
        return _fit_width(img), None
    corners, aspect, paper = upright_corners(corners, img.shape[:2])
    height = int(round(PAGE_W * aspect))
    if not 0.8 * PAGE_H <= height <= PAGE_H:
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
    return _pad_to_page(blank_edges(out)), Warp(m, height, paper)


def _pad_to_page(out: np.ndarray) -> np.ndarray:
    """A page shorter than PAGE_H padded below with the paper of its last rows."""
    height = out.shape[0]
    if height >= PAGE_H:
        return out
    paper = np.median(out[-max(4, height // 100):], axis=(0, 1)).astype(out.dtype)
    pad = np.empty((PAGE_H - height,) + out.shape[1:], out.dtype)
    pad[...] = paper
    return np.concatenate([out, pad])


def _fit_width(img: np.ndarray) -> np.ndarray:
    """A whole image scaled to PAGE_W wide, its proportions kept: a page that is not A4 (the
    Konami form is 644 × 834 pt, Letter) stretched to A4 would move every rule off the form's
    own spacing. A shorter page is padded with paper below; a longer one is cut at PAGE_H
    only past the A4 height it may hold (a long receipt-like image is squeezed as before)."""
    h, w = img.shape[:2]
    height = int(round(h * PAGE_W / w))
    if not 0.8 * PAGE_H <= height <= PAGE_H:
        height = PAGE_H  # far from any paper: as before, the whole image as the page
    out = cv2.resize(img, (PAGE_W, height), interpolation=cv2.INTER_AREA
                     if w > PAGE_W else cv2.INTER_CUBIC)
    return _pad_to_page(out)


def blank_edges(page: np.ndarray) -> np.ndarray:
    """The page with a thin band along its edges replaced by the paper just inside it."""
    m = max(2, int(EDGE_BAND * page.shape[1]))
    return cv2.copyMakeBorder(page[m:-m, m:-m], m, m, m, m, cv2.BORDER_REPLICATE)


def flatten(gray: np.ndarray) -> np.ndarray:
    """Divide by a blurred background so paper is ~255 everywhere (shadows, vignette, gradient).

    The background is estimated on a downscaled copy: a dilation removes text and thin rules
    (dark on light), a median blur smooths the rest.
    """
    h, w = gray.shape
    small = cv2.resize(gray, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    bg = cv2.dilate(small, np.ones((7, 7), np.uint8))
    bg = cv2.medianBlur(bg, 21)
    bg = cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    # (in place: the page-sized float temporaries cost more than the arithmetic)
    out = gray.astype(np.float32)
    np.divide(out, np.maximum(bg, 1.0, out=bg), out=out)
    np.multiply(out, 255.0, out=out)
    # Stretch the contrast so the darkest ink sits near 40 whatever the exposure: pale
    # photos then threshold like crisp scans.
    ink = percentile(out[::4, ::4], 0.5)
    gain = float(np.clip((255.0 - 40.0) / max(255.0 - ink, 1.0), 1.0, 4.0))
    np.subtract(255.0, out, out=out)
    np.multiply(out, gain, out=out)
    np.subtract(255.0, out, out=out)
    return np.clip(out, 0, 255, out=out).astype(np.uint8)


SKEW_STRIP = 5
"""Columns of the profile image averaged into one strip for the skew search: the search shears
the strips up and down instead of rotating every pixel (5× fewer pixels per angle). With 5 the
angles found are the rotation's own on every photo tried (6 moved one weak column peak by 0.01°)."""


def _ink_strips(small: np.ndarray, columns: bool) -> np.ndarray:
    """Ink (255 - grey, paper noise below 60 dropped: it adds nothing but blur to the profile),
    each SKEW_STRIP columns averaged into one strip, full height. With `columns`, of the
    transposed image (transposed once small: a page-sized transpose costs)."""
    if columns:
        small = np.ascontiguousarray(small.T)
    _, ink = cv2.threshold(255 - small, 59, 0, cv2.THRESH_TOZERO)
    strips = ink.shape[1] // SKEW_STRIP
    return cv2.resize(ink[:, :strips * SKEW_STRIP].astype(np.float32), (strips, ink.shape[0]),
                      interpolation=cv2.INTER_AREA)


def _ink_profile_images(gray: np.ndarray, columns: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The ink strips of a small and a half-size page, for the coarse and the fine sweep.
    Rows: a quarter and a half of the page (halved twice: OpenCV's area resize by two is 6×
    cheaper than by any other factor). Columns (the page on its side): its long side at 450
    and 900 px, each resized from the page itself: the column profile is weak, its sharpest
    angle moves with the slightest change of its pixels."""
    if columns:
        h, w = gray.shape
        small, half = (cv2.resize(gray, (int(w * size / h), size), interpolation=cv2.INTER_AREA)
                       for size in (450, 900))
    else:
        half = cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        small = cv2.resize(half, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    return _ink_strips(small, columns), _ink_strips(half, columns)


def _sharpness(ink: np.ndarray, angle: float) -> float:
    """How sharp the row profile is with the ink's rows tilted by `angle` (degrees, positive =
    counter-clockwise) made level: each strip (SKEW_STRIP columns of the profile image) slides
    up or down by the tilt at its centre, a shear; rules tilted by `angle` then line up. (A
    rotation differs only by a stretch of cos(angle) that does not move the sharpest angle.)"""
    k = float(np.tan(np.radians(angle))) * SKEW_STRIP
    m = np.float32([[1, 0, 0], [-k, 1, k * (ink.shape[1] - 1) / 2]])
    rows = cv2.reduce(cv2.warpAffine(ink, m, (ink.shape[1], ink.shape[0])), 1, cv2.REDUCE_SUM)
    return float(np.square(np.diff(rows[:, 0].astype(np.float64))).sum())


def estimate_skew(gray: np.ndarray, max_deg: float = 5.0, *, columns: bool = False) -> float:
    """Skew in degrees (positive = rotate counter-clockwise to fix), by the projection-profile
    method: the angle at which the row sums of the ink are sharpest (table rules line up).
    The coarse sweep runs on a quarter-size copy (a 0.25° step moves a rule end by ~2 px there),
    the fine steps on the half-size one. With `columns`, the lean of the columns: the skew of
    the transposed page."""
    coarse, fine = _ink_profile_images(gray, columns)
    angles = np.arange(-max_deg, max_deg + 1e-9, 0.25)
    best = float(max(angles, key=lambda a: _sharpness(coarse, a)))
    for step, span in ((0.05, 0.25), (0.01, 0.05)):
        angles = np.arange(best - span, best + span + 1e-9, step)
        best = float(max(angles, key=lambda a: _sharpness(fine, a)))
    return best


def rotate(img: np.ndarray, angle_deg: float, border: int | tuple = 255) -> np.ndarray:
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
                  corners: np.ndarray | None = None) -> PageImage:
    """The whole page stage: find, warp, flatten, deskew (`corners`: a quad to use instead of
    the one `find_page` would choose)."""
    notes: list[str] = []
    search = None
    if corners is None and not is_scan and not paper_fills_frame(img):
        corners, search = search_page(img)
    notes.append("page: whole image" if corners is None else "page: quad found")
    color, warp = page_warp(img, corners)
    if warp is not None and warp.height != PAGE_H:
        notes.append(f"page: {warp.paper} paper ({warp.height} px high)")
    gray = flatten(cv2.cvtColor(color, cv2.COLOR_BGR2GRAY))
    # What the corners left of the perspective (or all of it, when the page fills the frame):
    # the homography that makes the printed rules upright, applied in the one warp of the photo.
    fix = rules_rectification(gray[:warp.height] if warp is not None else gray)
    if fix is not None:
        notes.append(fix.note())
        if corners is not None:
            color, warp = page_warp(img, corners, then=fix.matrix)
        else:
            color = cv2.warpPerspective(color, fix.matrix, (color.shape[1], color.shape[0]),
                                        flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)
        gray = flatten(cv2.cvtColor(color, cv2.COLOR_BGR2GRAY))
    # Rotation of a scan, or what remains after the warp of a photo.
    total = estimate_skew(gray)
    if abs(total) >= 0.03:
        gray = rotate(gray, total)
        color = rotate(color, total)
    notes.append(f"skew {total:.2f}°")
    # The columns may still lean when the corners were off (a page edge outside the frame, a
    # curled sheet): a leaning rule breaks up in the vertical-rule mask. Undo it as a shear.
    lean = estimate_skew(gray, max_deg=3.0, columns=True)
    if abs(lean) >= 0.1:
        gray, color = shear(gray, lean), shear(color, lean)
        notes.append(f"shear {lean:.2f}°")
    return PageImage(gray=gray, color=color, corners=corners, skew_deg=total, notes=notes,
                     search=search)
