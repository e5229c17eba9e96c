"""Before the page stage: a phone's huge frame made small, and the turns a page may lie in.

EXIF orientation is applied when the file is decoded (OpenCV's imdecode honours the tag); a
page photographed or scanned on its side or upside down carries no tag, so the pipeline tries
the turns in `TURNS` until a layout is found upright.
"""
from __future__ import annotations

import cv2
import numpy as np

LARGE_SIDE = 4200
"""A frame with a longer side than this (a 12-48 MP phone photo) is downscaled first: the page
is warped to 1800 × 2546 px anyway, and every step before the warp costs by the pixel."""
DOWNSCALE_TO = 3200
"""Long side after downscaling: a page filling 80 % of the frame keeps ≥ the warp's resolution."""

TURNS: tuple[int | None, ...] = (None, cv2.ROTATE_180)
"""As the image comes, then upside down. A page on its side needs no turn of its own: the page
stage stands a landscape page upright (one way), and the other way is then upside down."""
TURN_NAMES = {None: "", cv2.ROTATE_180: "180°", cv2.ROTATE_90_CLOCKWISE: "90° clockwise",
              cv2.ROTATE_90_COUNTERCLOCKWISE: "90° anticlockwise"}


def downscale(img: np.ndarray) -> tuple[np.ndarray, str | None]:
    """The image with its long side at most `LARGE_SIDE` (else `DOWNSCALE_TO`), and a note."""
    h, w = img.shape[:2]
    if max(h, w) <= LARGE_SIDE:
        return img, None
    s = DOWNSCALE_TO / max(h, w)
    small = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    return small, f"image downscaled from {w}×{h} to {small.shape[1]}×{small.shape[0]}"


def turned(img: np.ndarray, turn: int | None) -> np.ndarray:
    return img if turn is None else cv2.rotate(img, turn)
