"""Other page quads to try when the grid on the chosen one misses deck tables.

Among other papers the page stage may pick a quad drawn on a table's own rules (a card and a
note over the sheet's margins hide its real sides): the quad holds ruled content with blank
margins, yet only part of the sheet. The grid then finds one or two tables where the sheet has
five; the pipeline tries these quads and keeps the one whose grid finds the most.
"""
from __future__ import annotations

import cv2
import numpy as np

from scanner.ocr.page import paper_masks, quads_from_mask, order_corners
from scanner.ocr.sheet_pick import (
    check_quads,
    edge_lines,
    line_quads,
    quad_sides,
    side_lines,
)

MAX_ALTERNATIVES = 3
"""Quads tried besides the chosen one (each costs a warp and a grid, ~1 s)."""
SAME_QUAD = 0.02
"""Quads whose corners all lie within this share of the frame of each other are one quad."""


def alternative_corners(img: np.ndarray, chosen: np.ndarray | None,
                        limit: int = MAX_ALTERNATIVES) -> list[np.ndarray]:
    """Full-resolution corners (TL, TR, BR, BL) of quads holding ruled content, strongest
    edges first, other than `chosen` (the corners the page stage used)."""
    h, w = img.shape[:2]
    scale = 800.0 / max(h, w)
    small = cv2.resize(img, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    light = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 2), cv2.COLOR_BGR2LAB)[:, :, 0]
    quads = [q for mask in paper_masks(cv2.GaussianBlur(small, (0, 0), 2))
             for q in quads_from_mask(mask)]
    lines = edge_lines(gray, light, [ln for q in quads for ln in quad_sides(q)])
    arr = np.concatenate([np.array([order_corners(q) for q in quads], np.float32).reshape(-1, 4, 2),
                          line_quads(side_lines(lines, gray.shape), gray.shape)])
    held = sorted((c for c in check_quads(gray, light, arr, 32) if c.content > 0), key=lambda c: -c.edge)
    tol = SAME_QUAD * max(gray.shape)
    seen = [chosen * scale] if chosen is not None else []
    out: list[np.ndarray] = []
    for c in held:
        quad = order_corners(c.quad)
        if any(np.abs(quad - s).max() < tol for s in seen):
            continue
        seen.append(quad)
        out.append((quad / scale).astype(np.float32))
        if len(out) >= limit:
            break
    return out
