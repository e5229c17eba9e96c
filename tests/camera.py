"""Phone photos of a rendered page, taken by a pinhole camera held over a table.

The page lies flat on a table; the camera (a phone's main lens: 26 mm equivalent, 4:3 frame)
looks at it from above, its axis tilted from the page's normal by `tilt_deg` about an axis that
lies in the page at `axis_deg` (0: the page's horizontal axis, the keystone of a phone held over
a desk — the far edge narrower; 90: the vertical axis, one side edge shorter; anything between),
and turned in the frame by `roll_deg`. The distance is chosen so the page covers `cover` of the
frame, and the page is put anywhere in the frame that keeps it whole. Light falls unevenly (a
gradient, a vignette, a soft shadow), the lens blurs a little, the sensor adds noise, and the
phone writes a JPEG. Every number comes from the caller's generator: same rng, same bytes.

Any text-layer PDF is the truth of its photo: the benches and slow tests read these photos and
compare them with the PDF's own text layer (`renderings.agreement`).
"""
from __future__ import annotations

import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FOCAL_35MM = 26.0
"""A phone's main camera: 26 mm equivalent focal length (of a 36 mm wide full frame)."""


@dataclass(frozen=True)
class Pose:
    tilt_deg: float
    axis_deg: float
    roll_deg: float
    cover: float
    """Share of the frame (its tighter direction) the page's bounding box spans."""
    landscape: bool = False
    long_side: int = 3000
    offset: tuple[float, float] = (0.0, 0.0)
    """Where the page sits in the room the frame leaves it, -1..1 in x and y."""


def random_pose(rng: np.random.Generator, max_tilt: float = 15.0, tilt: float | None = None,
                axis: float | None = None) -> Pose:
    """A phone held over a desk: tilted 0–`max_tilt`° about a random axis in the page (unless
    given), turned up to ±8° in the frame, the page filling 70–92 % of it."""
    return Pose(tilt_deg=float(rng.uniform(0, max_tilt)) if tilt is None else tilt,
                axis_deg=float(rng.uniform(0, 180)) if axis is None else axis,
                roll_deg=float(rng.uniform(-8, 8)), cover=float(rng.uniform(0.70, 0.92)),
                landscape=bool(rng.random() < 0.15), long_side=int(rng.integers(2600, 4033)),
                offset=(float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))))


PAPERS = {"A4": (210.0, 297.0), "Letter": (215.9, 279.4)}
"""Paper sizes in millimetres."""


def print_on(page: np.ndarray, dpi: int, paper: str = "A4", scale: float | None = None,
             rng: np.random.Generator | None = None) -> np.ndarray:
    """The rendered page (`dpi`) as printed on `paper`: "fit to page" (shrunk to the printable
    area when it does not fit at 100 %, never enlarged) unless `scale` is given, centred, with a
    printer's offset of up to ±1.5 mm when `rng` is given."""
    ph, pw = page.shape[:2]
    mm = dpi / 25.4
    paper_w, paper_h = (int(round(v * mm)) for v in PAPERS[paper])
    if scale is None:
        printable = min((paper_w - 2 * 4.2 * mm) / pw, (paper_h - 2 * 4.2 * mm) / ph)
        scale = min(1.0, printable) if (pw > paper_w or ph > paper_h) else 1.0
    img = page if scale == 1.0 else cv2.resize(page, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    out = np.full((paper_h, paper_w, 3), 255, np.uint8)
    ih, iw = img.shape[:2]
    dx, dy = (rng.uniform(-1.5, 1.5, 2) * mm) if rng is not None else (0.0, 0.0)
    x0, y0 = int(round((paper_w - iw) / 2 + dx)), int(round((paper_h - ih) / 2 + dy))
    sx0, sy0 = max(0, -x0), max(0, -y0)
    x0, y0 = max(0, x0), max(0, y0)
    w, h = min(iw - sx0, paper_w - x0), min(ih - sy0, paper_h - y0)
    out[y0:y0 + h, x0:x0 + w] = img[sy0:sy0 + h, sx0:sx0 + w]
    return out


def _rodrigues(axis: np.ndarray, angle: float) -> np.ndarray:
    return cv2.Rodrigues((axis / np.linalg.norm(axis) * angle).reshape(3, 1))[0]


def camera_homography(page_wh: tuple[int, int], pose: Pose) -> tuple[np.ndarray, tuple[int, int]]:
    """The homography taking page pixels to frame pixels, and the frame's (width, height)."""
    pw, ph = page_wh
    fw, fh = ((pose.long_side, pose.long_side * 3 // 4) if pose.landscape
              else (pose.long_side * 3 // 4, pose.long_side))
    f = max(fw, fh) * FOCAL_35MM / 36.0
    k = np.array([[f, 0, fw / 2], [0, f, fh / 2], [0, 0, 1]])
    a = math.radians(pose.axis_deg)
    turn = (_rodrigues(np.array([0.0, 0.0, 1.0]), math.radians(pose.roll_deg))
            @ _rodrigues(np.array([math.cos(a), math.sin(a), 0.0]), math.radians(pose.tilt_deg)))
    centre = np.array([[1, 0, -pw / 2], [0, 1, -ph / 2], [0, 0, 1]])  # page pixels about its centre
    corners = np.float64([[0, 0], [pw, 0], [pw, ph], [0, ph]])

    def project(dist: float, tx: float = 0.0, ty: float = 0.0) -> np.ndarray:
        rt = np.column_stack([turn[:, 0], turn[:, 1], [tx, ty, dist]])
        return k @ rt @ centre

    def box(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pts = cv2.perspectiveTransform(corners[None], h)[0]
        return pts.min(axis=0), pts.max(axis=0)

    dist = f * max(pw / (pose.cover * fw), ph / (pose.cover * fh))
    for _ in range(6):  # the distance at which the page's box spans `cover` of the frame
        lo, hi = box(project(dist))
        dist *= max((hi - lo)[0] / (pose.cover * fw), (hi - lo)[1] / (pose.cover * fh))
    # The page is placed in the frame by moving the camera over the table (the principal point
    # stays at the frame's centre, as in a phone): the shift wanted, in table units at `dist`.
    tx = ty = 0.0
    for _ in range(4):
        lo, hi = box(project(dist, tx, ty))
        room = np.maximum(np.float64([fw, fh]) - (hi - lo), 0) / 2 - 4
        want = np.float64([fw, fh]) / 2 + np.clip(pose.offset, -1, 1) * np.maximum(room, 0)
        move = want - (lo + hi) / 2
        tx, ty = tx + move[0] * dist / f, ty + move[1] * dist / f
    return project(dist, tx, ty), (fw, fh)


def _table(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A table surface (float32 RGB): make_photos' wood, desk, fabric and gradient, or a dark one."""
    sys.path.insert(0, str(SAMPLES))
    from clutter_scene import TABLES, dark_table
    from make_photos import background

    kind = str(rng.choice(["wood", "desk", "fabric", "gradient", "dark"]))
    if kind == "dark":
        return dark_table(h, w, str(rng.choice(TABLES)), rng)
    return background(h, w, kind, rng)


def photograph(page: np.ndarray, rng: np.random.Generator, pose: Pose | None = None,
               quality: tuple[int, int] = (70, 90)) -> tuple[bytes, dict]:
    """A JPEG photo of `page` (BGR, rendered at any dpi) lying on a table, and what was done
    (the pose, the page's corners in the frame, light, blur, noise, quality)."""
    pose = pose or random_pose(rng)
    ph, pw = page.shape[:2]
    m, (fw, fh) = camera_homography((pw, ph), pose)
    tint = np.float32([rng.uniform(0.86, 0.95), rng.uniform(0.92, 0.98), rng.uniform(0.93, 0.99)])
    # Shrinking by more than 2 with bilinear sampling drops thin rules: the lens and sensor
    # integrate, so the page is first brought near the scale it has in the frame.
    scale = math.sqrt(abs(np.linalg.det(m[:2, :2] / m[2, 2])))
    if scale < 0.7:
        small = cv2.resize(page, None, fx=scale * 1.2, fy=scale * 1.2, interpolation=cv2.INTER_AREA)
        m = m @ np.diag([1 / (scale * 1.2), 1 / (scale * 1.2), 1.0])
        page = small
    warped = cv2.warpPerspective(page.astype(np.float32) * tint, m, (fw, fh), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.ones(page.shape[:2], np.float32), m, (fw, fh), flags=cv2.INTER_LINEAR)
    table = _table(fh, fw, rng)[:, :, ::-1]  # RGB → BGR
    img = table * (1 - mask[..., None]) + warped * mask[..., None]
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    g0, g1, ga = float(rng.uniform(0.7, 0.92)), float(rng.uniform(0.98, 1.06)), rng.uniform(0, 2 * math.pi)
    t = xx * math.cos(ga) + yy * math.sin(ga)
    light = g0 + (g1 - g0) * (t - t.min()) / max(1e-6, float(t.max() - t.min()))
    vignette = float(rng.uniform(0.1, 0.3))
    light *= 1 - vignette * (((xx - fw / 2) / (fw / 2)) ** 2 + ((yy - fh / 2) / (fh / 2)) ** 2) / 2
    # A soft shadow (the phone, a hand) across part of the page.
    sa, pos = float(rng.uniform(0, math.pi)), float(rng.uniform(0.2, 0.8))
    width, dark = float(rng.uniform(0.05, 0.3)), float(rng.uniform(0.0, 0.35))
    d = (xx / fw - 0.5) * math.cos(sa) + (yy / fh - 0.5) * math.sin(sa) - (pos - 0.5)
    light *= 1 - dark * np.exp(-(d / width) ** 2)
    img *= light[..., None]
    blur = float(rng.uniform(0.3, 1.4))
    img = cv2.GaussianBlur(img, (0, 0), blur)
    noise = float(rng.uniform(1.5, 4.5))
    img = np.clip(img + rng.normal(0, noise, img.shape).astype(np.float32), 0, 255).astype(np.uint8)
    q = int(rng.integers(quality[0], quality[1] + 1))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    assert ok
    corners = cv2.perspectiveTransform(np.float64([[[0, 0], [page.shape[1], 0],
                                                    [page.shape[1], page.shape[0]], [0, page.shape[0]]]]), m)[0]
    return buf.tobytes(), {"pose": asdict(pose), "frame": [fw, fh],
                           "page_corners": [[round(float(x), 1), round(float(y), 1)] for x, y in corners],
                           "blur_sigma": round(blur, 2), "noise_sigma": round(noise, 2),
                           "shadow": round(dark, 3), "jpeg_quality": q}
