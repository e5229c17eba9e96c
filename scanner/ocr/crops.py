"""Crops of flagged or struck rows, saved for the judge's review."""
from __future__ import annotations

from pathlib import Path

import cv2

from scanner.ocr.grid import Grid
from scanner.ocr.page import PageImage

CROP_PAD = 6
"""Pixels of page kept around the row box (so the rules show where the row was)."""


def save_crop(crops_dir: Path, label: str, column: str, row: int, grid: Grid, page: PageImage) -> str | None:
    """The row's colour image as `LABEL-COLUMN-ROW.png`; None when the row is not on the grid."""
    table = grid.by_kind(column)
    cells = next((c for c in table.rows if c.row == row), None) if table else None
    if cells is None:
        return None
    crops_dir.mkdir(parents=True, exist_ok=True)
    out = crops_dir / f"{label}-{column}-{row:02d}.png"
    b = cells.box
    pad = CROP_PAD
    img = page.color[max(0, b.y0 - pad):b.y1 + pad, max(0, b.x0 - pad):b.x1 + pad]
    cv2.imwrite(str(out), img)
    return str(out)
