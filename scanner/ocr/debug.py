"""Debug pictures of the OCR reader (`--debug DIR`): the page found, the grid, the clean page."""
from __future__ import annotations

from pathlib import Path

import cv2

from scanner.ocr.grid import Grid
from scanner.ocr.page import PageImage

COLOURS = {"monster": (0, 140, 255), "spell": (0, 170, 0), "trap": (200, 0, 200),
           "extra": (255, 120, 0), "side": (0, 0, 220), "header": (120, 120, 120)}


def draw_grid(page: PageImage, grid: Grid):
    """The warped page with each table's rules, rows and name/count cells drawn on it."""
    out = page.color.copy()
    for t in grid.tables:
        colour = COLOURS.get(t.kind, (0, 200, 200))
        cv2.rectangle(out, (t.box.x0, t.box.y0), (t.box.x1, t.box.y1), colour, 3)
        cv2.putText(out, t.kind, (t.box.x0 + 4, max(20, t.box.y0 - 6)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.8, colour, 2)
        for r in t.rows:
            cv2.rectangle(out, (r.name.x0, r.name.y0), (r.name.x1, r.name.y1), colour, 1)
            cv2.rectangle(out, (r.count.x0, r.count.y0), (r.count.x1, r.count.y1), colour, 1)
    return out


def write_debug(folder: Path, label: str, page: PageImage, grid: Grid) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{label}-1-page.png", folder / f"{label}-2-grid.png",
             folder / f"{label}-3-clean.png"]
    cv2.imwrite(str(paths[0]), page.gray)
    cv2.imwrite(str(paths[1]), draw_grid(page, grid))
    cv2.imwrite(str(paths[2]), grid.clean)
    (folder / f"{label}-notes.txt").write_text("\n".join(page.notes + grid.notes) + "\n",
                                               encoding="utf-8")
    return paths
