"""Photo/scan → a flat, upright, evenly lit page image.

Steps (each a plain function, sequenced by `image_to_page`): load → find the page quad →
undo the perspective → flatten the lighting (divide by a blurred background) → deskew.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from scanner.errors import UnreadableInput

log = logging.getLogger("decksheet.ocr")

PAGE_W = 1800
"""Width of the normalised page in pixels (A4 at ~218 dpi: 8 pt text is ~22 px high)."""
PAGE_H = int(round(PAGE_W * 297 / 210))
MAX_PIXELS = 60_000_000
"""Refuse absurd images instead of running out of memory."""


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


def load_image(path: Path) -> np.ndarray:
    """Read an image file as BGR; a clear error for anything that is not a decodable image."""
    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except OSError as exc:
        raise UnreadableInput(f"cannot read {path}: {exc.strerror or exc}") from None
    return decode_image(data, str(path))


def decode_image(data: np.ndarray | bytes, label: str = "image") -> np.ndarray:
    if isinstance(data, (bytes, bytearray)):
        data = np.frombuffer(data, dtype=np.uint8)
    if data.size == 0:
        raise UnreadableInput(f"{label} is empty")
    img = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if img is None:
        raise UnreadableInput(f"{label} is not a readable image (corrupt or unsupported format)")
    if img.shape[0] * img.shape[1] > MAX_PIXELS:
        raise UnreadableInput(f"{label} is too large ({img.shape[1]}×{img.shape[0]} pixels)")
    if min(img.shape[:2]) < 300:
        raise UnreadableInput(f"{label} is too small to be a sheet ({img.shape[1]}×{img.shape[0]})")
    return img


def order_corners(pts: np.ndarray) -> np.ndarray:
    """Order four points TL, TR, BR, BL."""
    pts = pts.reshape(4, 2).astype(np.float32)
    s = pts.sum(axis=1)
    d = np.diff(pts, axis=1).ravel()
    return np.array([pts[np.argmin(s)], pts[np.argmin(d)], pts[np.argmax(s)], pts[np.argmax(d)]],
                    dtype=np.float32)


A4_ASPECT = 297 / 210


def _paper_masks(small: np.ndarray) -> list[np.ndarray]:
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
    return masks


def _edge_masks(small: np.ndarray) -> list[np.ndarray]:
    """Candidate paper masks from edges: the page's outline is a brightness step even where
    paper and background have the same colour (a pale grey desk) or a shadow splits the paper's
    brightness. Each large closed outline, filled."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
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


def _quad_from_mask(mask: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Four corners of the mask's most page-like large region, and how page-like it is (0..1)."""
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((9, 9), np.uint8))
    h, w = mask.shape
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    best: tuple[np.ndarray, float] | None = None
    # The paper is usually at the frame centre, but not always: every large region is tried.
    for cid in range(1, n):
        if stats[cid, cv2.CC_STAT_AREA] < 0.15 * h * w:
            continue
        found = _region_quad((labels == cid).astype(np.uint8) * 255)
        if found is not None and (best is None or found[1] > best[1]):
            best = found
    return best


def _region_quad(comp: np.ndarray) -> tuple[np.ndarray, float] | None:
    h, w = comp.shape
    contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    region = max(contours, key=cv2.contourArea)
    area = cv2.contourArea(region)
    if area < 0.15 * h * w:
        return None
    hull = cv2.convexHull(region)
    peri = cv2.arcLength(hull, True)
    quad = None
    for eps in (0.01, 0.02, 0.03, 0.04, 0.06):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            quad = approx
            break
    if quad is None:
        quad = cv2.boxPoints(cv2.minAreaRect(hull))
    quad = order_corners(np.asarray(quad, dtype=np.float32))
    quad_area = cv2.contourArea(quad)
    if quad_area <= 0:
        return None
    fill = min(area / quad_area, quad_area / area)
    tl, tr, br, bl = quad
    sw = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    sh = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    aspect = max(sw, sh) / max(min(sw, sh), 1.0)
    aspect_fit = max(0.0, 1.0 - abs(aspect - A4_ASPECT) / 0.5)
    edge = 3  # a region glued to the frame border is a background that won the threshold
    border = np.mean([comp[:edge].mean(), comp[-edge:].mean(), comp[:, :edge].mean(),
                      comp[:, -edge:].mean()]) / 255.0
    return quad, fill * aspect_fit * (1.0 - border)


def find_page(img: np.ndarray) -> np.ndarray | None:
    """Corners (TL, TR, BR, BL) of the paper in a photo, or None when the paper fills the frame
    (a scan) or no page-like quad is found."""
    h, w = img.shape[:2]
    scale = 800.0 / max(h, w)
    small = cv2.resize(img, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 2)
    best: tuple[np.ndarray, float] | None = None
    for mask in _paper_masks(small) + _edge_masks(small):
        found = _quad_from_mask(mask)
        if found and (best is None or found[1] > best[1]):
            best = found
    if best is None or best[1] < 0.5:
        return None
    return refine_corners(img, best[0] / scale)


def refine_corners(img: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Nothing fancy: the downscaled quad is ~1 px/800 accurate, enough because the grid is
    found again on the warped page. Kept as a hook for a sub-pixel step."""
    return corners


def warp_page(img: np.ndarray, corners: np.ndarray | None) -> np.ndarray:
    """Undo the perspective (or just resize a scan) to PAGE_W × PAGE_H."""
    if corners is None:
        h, w = img.shape[:2]
        if w > h * 1.15:  # a landscape scan of a portrait sheet
            img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
        return cv2.resize(img, (PAGE_W, PAGE_H), interpolation=cv2.INTER_AREA
                          if img.shape[1] > PAGE_W else cv2.INTER_CUBIC)
    tl, tr, br, bl = corners
    width = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    height = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    if width > height * 1.15:  # page lies sideways in the frame: rotate the corner order
        corners = np.array([bl, tl, tr, br], dtype=np.float32)
    dst = np.array([[0, 0], [PAGE_W - 1, 0], [PAGE_W - 1, PAGE_H - 1], [0, PAGE_H - 1]],
                   dtype=np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    return cv2.warpPerspective(img, m, (PAGE_W, PAGE_H), flags=cv2.INTER_CUBIC,
                               borderMode=cv2.BORDER_REPLICATE)


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
    out = gray.astype(np.float32) / np.maximum(bg, 1.0) * 255.0
    # Stretch the contrast so the darkest ink sits near 40 whatever the exposure: pale
    # photos then threshold like crisp scans.
    ink = float(np.percentile(out[::4, ::4], 0.5))
    gain = float(np.clip((255.0 - 40.0) / max(255.0 - ink, 1.0), 1.0, 4.0))
    out = 255.0 - (255.0 - out) * gain
    return np.clip(out, 0, 255).astype(np.uint8)


def _ink_profile_image(gray: np.ndarray, width: int) -> np.ndarray:
    h, w = gray.shape
    small = cv2.resize(gray, (width, int(h * width / w)), interpolation=cv2.INTER_AREA)
    ink = (255 - small).astype(np.float32)
    ink[ink < 60] = 0  # paper noise adds nothing but blur to the profile
    return ink


def _sharpness(ink: np.ndarray, angle: float) -> float:
    m = cv2.getRotationMatrix2D((ink.shape[1] / 2, ink.shape[0] / 2), angle, 1.0)
    rows = cv2.warpAffine(ink, m, (ink.shape[1], ink.shape[0])).sum(axis=1)
    return float(np.square(np.diff(rows)).sum())


def estimate_skew(gray: np.ndarray, max_deg: float = 5.0) -> float:
    """Skew in degrees (positive = rotate counter-clockwise to fix), by the projection-profile
    method: the angle at which the row sums of the ink are sharpest (table rules line up).
    The coarse sweep runs on a quarter-size copy (a 0.25° step moves a rule end by ~2 px there),
    the fine steps on the half-size one."""
    coarse, fine = _ink_profile_image(gray, 450), _ink_profile_image(gray, 900)
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


def image_to_page(img: np.ndarray, *, is_scan: bool = False) -> PageImage:
    """The whole page stage: find, warp, flatten, deskew."""
    notes: list[str] = []
    corners = None if is_scan else find_page(img)
    notes.append("page: whole image" if corners is None else "page: quad found")
    color = warp_page(img, corners)
    gray = flatten(cv2.cvtColor(color, cv2.COLOR_BGR2GRAY))
    # Rotation of a scan, or what remains after the warp of a photo.
    total = estimate_skew(gray)
    if abs(total) >= 0.03:
        gray = rotate(gray, total)
        color = rotate(color, total)
    notes.append(f"skew {total:.2f}°")
    return PageImage(gray=gray, color=color, corners=corners, skew_deg=total, notes=notes)
