"""Text the page does not show: characters painted over by a filled shape drawn after them.

A row "deleted" by drawing an opaque (white) box over it is gone for the eye but still in the
text layer, where the reader finds it. pdfplumber (pdfminer) gives the page's characters and
filled rectangles/paths in drawing order with their fill colours; a character whose centre lies
under a fill painted later is hidden. Evidence only: any failure here yields nothing.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scanner.model import SheetRead

log = logging.getLogger("decksheet.read_pdf")

Box = tuple[float, float, float, float]
MAX_FILLS = 5_000
"""Filled shapes examined per page (a sheet has a few dozen); bounds the work on hostile files."""
MIN_FILL_SIDE = 2.0
"""Thinner fills (pt) are rules and underlines, not covers."""


@dataclass(frozen=True)
class HiddenRun:
    """Hidden characters on one text line of the page (top-left coordinates, pt)."""

    text: str
    box: Box
    colour: str


def hidden_runs(path: Path, page_index: int) -> list[HiddenRun]:
    """Runs of characters covered by a fill drawn after them on page `page_index` (0-based)."""
    try:
        import pdfplumber

        with pdfplumber.open(str(path)) as pdf:
            if page_index >= len(pdf.pages):
                return []
            page = pdf.pages[page_index]
            return _covered(list(page.iter_layout_objects(list(page.layout))))
    except Exception as exc:  # noqa: BLE001 - extra evidence; the text reader already succeeded
        log.debug("hidden-text check of %s failed: %s", path.name, exc)
        return []


def _covered(objs: list[dict]) -> list[HiddenRun]:
    chars: list[tuple[int, dict]] = []
    fills: list[tuple[int, dict]] = []
    for order, obj in enumerate(objs):
        kind = obj.get("object_type")
        if kind == "char" and str(obj.get("text", "")).strip():
            chars.append((order, obj))
        elif (kind in ("rect", "curve") and obj.get("fill") and len(fills) < MAX_FILLS
              and obj["x1"] - obj["x0"] >= MIN_FILL_SIDE
              and obj["bottom"] - obj["top"] >= MIN_FILL_SIDE):
            fills.append((order, obj))
    if not chars or not fills:
        return []
    when = np.array([o for o, _ in chars])
    cx = np.array([(c["x0"] + c["x1"]) / 2 for _, c in chars])
    cy = np.array([(c["top"] + c["bottom"]) / 2 for _, c in chars])
    hidden_by = np.full(len(chars), -1)
    for i, (order, f) in enumerate(fills):
        under = (when < order) & (cx > f["x0"]) & (cx < f["x1"]) & (cy > f["top"]) & (cy < f["bottom"])
        hidden_by[under] = i
    runs: dict[tuple[int, int], list[dict]] = {}
    for k in np.flatnonzero(hidden_by >= 0):
        c = chars[k][1]
        runs.setdefault((int(hidden_by[k]), round(c["top"])), []).append(c)
    out = []
    for (fill, _), cs in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[1][0]["x0"])):
        cs.sort(key=lambda c: c["x0"])
        out.append(HiddenRun(text="".join(c["text"] for c in cs),
                             box=(min(c["x0"] for c in cs), min(c["top"] for c in cs),
                                  max(c["x1"] for c in cs), max(c["bottom"] for c in cs)),
                             colour=_colour(fills[fill][1].get("non_stroking_color"))))
    return out


def _colour(value) -> str:
    if isinstance(value, (list, tuple)) and value:
        v = [float(x) for x in value if isinstance(x, (int, float))]
        if len(v) in (1, 3) and min(v, default=0) >= 0.9:
            return "white"
        if len(v) == 4 and max(v) <= 0.1:
            return "white"
    elif isinstance(value, (int, float)) and value >= 0.9:
        return "white"
    return "opaque"


def flag_hidden_text(sheet: SheetRead, path: Path, page_index: int, boxes: list[Box]) -> None:
    """Flag each read line with hidden characters on it ('hidden-text'), and the sheet for hidden
    text on no read line: what the reader found there, the page does not show."""
    for run in hidden_runs(path, page_index):
        detail = f"{run.text[:60]!r} is covered by a {run.colour} box drawn over it"
        sheet.flag_line_or_sheet(_line_of(run.box, boxes), "hidden-text",
                                 detail + " on the page", f"page {page_index + 1}: {detail}")


def _line_of(box: Box, boxes: list[Box]) -> int | None:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for i, (x0, top, x1, bottom) in enumerate(boxes):
        if x0 - 2 <= cx <= x1 + 2 and top <= cy <= bottom:
            return i
    # A run wider than one cell (name and count covered together): any overlap on its row.
    for i, (x0, top, x1, bottom) in enumerate(boxes):
        if top <= cy <= bottom and box[0] < x1 and box[2] > x0:
            return i
    return None
