"""Small measures of a gray cell's ink, shared by the row, totals and header stages."""
from __future__ import annotations

import numpy as np

from scanner.ocr.thresholds import INK_GLYPH, INK_SOLID


def true_runs(on: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of each run of True in a 1-D mask (the rows or columns that hold ink, the
    lines above a profile's level)."""
    edges = np.diff(np.concatenate(([0], np.asarray(on, bool).ravel().astype(np.int8), [0])))
    return list(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist()))


def ink_share(cell: np.ndarray) -> float:
    """Share of solid-ink pixels (0 for an empty crop)."""
    if cell.size == 0:
        return 0.0
    return float((cell < INK_SOLID).mean())


def trim_to_ink(cell: np.ndarray, pad: int = 6) -> np.ndarray | None:
    """Crop to the ink, with a white margin; None when there is no ink."""
    ink = cell < INK_GLYPH
    ys, xs = np.nonzero(ink)
    if len(xs) < 8:
        return None
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    out = np.full((y1 - y0 + 2 * pad, x1 - x0 + 2 * pad), 255, np.uint8)
    out[pad:pad + y1 - y0, pad:pad + x1 - x0] = cell[y0:y1, x0:x1]
    return out
