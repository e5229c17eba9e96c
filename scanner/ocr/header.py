"""The header block: the player's name (이름) and Konami ID (10 digits, one per box).
Only confident reads are kept: a guessed ID is worse than none."""
from __future__ import annotations

import re

import cv2
import numpy as np

from scanner.model import SheetRead
from scanner.ocr.engine import Tesseract
from scanner.ocr.grid import Box, Grid, Table
from scanner.ocr.ink import trim_to_ink
from scanner.ocr.thresholds import INK_RULE

HANGUL_NAME = re.compile(r"^[가-힣]{2,5}$")
NAME_CONFIDENCE = 0.85
"""A player name read below this Tesseract confidence is left out."""
ID_DIGIT_CONFIDENCE = 0.6
"""Every ID digit must be read at least this confidently, else no ID is reported."""


def read_header(grid: Grid, tess: Tesseract, sheet: SheetRead) -> None:
    """Player name (이름) and Konami ID (10 digits, one per box) from the header block."""
    headers = sorted((t for t in grid.tables if t.kind == "header"), key=lambda t: t.box.x0)
    if not headers:
        return
    t = headers[0]
    ys = t.ys
    if len(ys) < 3 or len(t.xs) < 2:
        return
    label_x = label_divider(t)
    name_box = Box(label_x, ys[0], t.box.x1, ys[1])
    img = name_box.crop(grid.clean, inset=5)
    trimmed = trim_to_ink(img)
    if trimmed is not None:
        got = tess.read(cv2.resize(trimmed, None, fx=1.5, fy=1.5, interpolation=cv2.INTER_CUBIC),
                        lang="kor", psm=7)
        name = got.text.replace(" ", "")
        if HANGUL_NAME.match(name) and got.confidence > NAME_CONFIDENCE:
            sheet.player_name = name
    digits = read_id_boxes(grid, t, ys[1], ys[2], tess)
    if digits is not None:
        sheet.konami_id = digits


def read_id_boxes(grid: Grid, t: Table, y0: int, y1: int, tess: Tesseract) -> str | None:
    """The 10 one-digit boxes of the Konami ID: 11 evenly spaced short rules; one digit each.
    Only a full, confident read is returned (never a guessed ID)."""
    xs = t.xs
    best: list[int] = []
    for i in range(len(xs)):
        run = [xs[i]]
        for x in xs[i + 1:]:
            gap = x - run[-1]
            if len(run) >= 2 and abs(gap - (run[1] - run[0])) > 0.25 * (run[1] - run[0]):
                break
            if gap < 20:
                break
            run.append(x)
        if len(run) > len(best):
            best = run
    if len(best) != 11:
        return None
    out = []
    for a, b in zip(best, best[1:]):
        d = read_id_digit(Box(a, y0, b, y1).crop(grid.clean, inset=4).copy(), tess)
        if d is None:
            return None
        out.append(d)
    return "".join(out)


def read_id_digit(cell: np.ndarray, tess: Tesseract) -> str | None:
    """One ID box's digit (its own frame painted out), or None when not read confidently."""
    ink = (cell < INK_RULE).astype(np.uint8)
    # The digit box has its own frame, off the table's rule positions: paint it out.
    frame = (cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, max(8, int(cell.shape[1] * 0.7))), np.uint8))
             | cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((max(8, int(cell.shape[0] * 0.7)), 1), np.uint8)))
    cell[cv2.dilate(frame, np.ones((3, 3), np.uint8)) > 0] = 255
    trimmed = trim_to_ink(cell, pad=10)
    if trimmed is None:
        return None
    got = tess.read(trimmed, lang="eng", psm=10, whitelist="0123456789")
    d = got.text.strip()
    if not re.fullmatch(r"[0-9]", d) or got.confidence < ID_DIGIT_CONFIDENCE:
        return None
    return d


def label_divider(t: Table) -> int:
    """x of the rule between the labels (이름 / 코나미 카드 게임 ID) and the values."""
    inner = [x for x in t.xs if t.box.x0 + 20 < x < t.box.x1 - 20]
    return inner[0] if inner else t.box.x0 + t.box.w // 3
