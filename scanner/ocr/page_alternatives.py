"""Other page quads to try when the grid on the chosen one misses deck tables.

Among other papers the page stage may pick a quad drawn on a table's own rules (a card and a
note over the sheet's margins hide its real sides): the quad holds ruled content with blank
margins, yet only part of the sheet. The grid then finds one or two tables where the sheet has
five; the pipeline tries these quads and keeps the one whose grid finds the most. They come
from what `page.search_page` already made (its copy, outlines, edge lines, checked quads).
"""
from __future__ import annotations

import numpy as np

from scanner.ocr.page import PageSearch, order_corners, upright_corners
from scanner.ocr.perspective import PAPERS

MAX_ALTERNATIVES = 3
"""Quads tried besides the chosen one (each costs a warp and a grid, ~1 s)."""
SAME_QUAD = 0.02
"""Quads whose corners all lie within this share of the frame of each other are one quad."""


def paper_shaped(quad: np.ndarray, frame: tuple[int, int]) -> bool:
    """The quad, seen through the camera, has a paper's proportions (`perspective.PAPERS`): a quad
    cut across the sheet's tables (at a table's rules, under a shadow) has none, and taking it
    would cut rows off (a rule where the tables were split: its grid may find more tables
    than the page's own, and lose the rows outside it)."""
    _, _, paper = upright_corners(np.asarray(quad, np.float32), frame)
    return paper in PAPERS


def alternative_corners(search: PageSearch, chosen: np.ndarray | None,
                        limit: int = MAX_ALTERNATIVES) -> list[np.ndarray]:
    """Full-resolution corners (TL, TR, BR, BL) of quads holding ruled content, strongest
    edges first, other than `chosen` (the corners the page stage used)."""
    held = sorted((c for c in search.surveyed().checked if c.content > 0), key=lambda c: -c.edge)
    scale = search.scale
    tol = SAME_QUAD * max(search.gray.shape)
    seen = [chosen * scale] if chosen is not None else []
    out: list[np.ndarray] = []
    for c in held:
        quad = order_corners(c.quad)
        if any(np.abs(quad - s).max() < tol for s in seen):
            continue
        seen.append(quad)
        if not paper_shaped(quad, search.gray.shape):
            continue  # a part of the sheet (cut across its tables), not another paper's outline
        out.append((quad / scale).astype(np.float32))
        if len(out) >= limit:
            break
    return out
