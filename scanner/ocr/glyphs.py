"""A digit glyph's ink → the feature vector both digit readers compare (the count reader's
templates, `counts`, and the hand-digit network, `hand_digits`)."""
from __future__ import annotations

import cv2
import numpy as np

FEAT_SIZE = 20
"""Glyphs are fitted (aspect kept) into FEAT_SIZE × FEAT_SIZE for the nearest-neighbour reader."""


def glyph_features(mask: np.ndarray) -> np.ndarray:
    """A glyph's ink fitted (aspect kept, centred) into FEAT_SIZE², blurred, unit length,
    plus its aspect ratio: a "1" stays thin instead of being stretched into a block."""
    m = mask.astype(np.float32)
    h, w = m.shape
    s = (FEAT_SIZE - 2) / max(h, w)
    nh, nw = max(1, int(round(h * s))), max(1, int(round(w * s)))
    small = cv2.resize(m, (nw, nh), interpolation=cv2.INTER_AREA)
    box = np.zeros((FEAT_SIZE, FEAT_SIZE), np.float32)
    oy, ox = (FEAT_SIZE - nh) // 2, (FEAT_SIZE - nw) // 2
    box[oy:oy + nh, ox:ox + nw] = small
    box = cv2.GaussianBlur(box, (0, 0), 0.9)
    v = box.ravel()
    v = v / max(1e-6, float(np.linalg.norm(v)))
    aspect = np.log(max(w, 1) / max(h, 1))
    return np.concatenate([v, [0.35 * aspect]]).astype(np.float32)
