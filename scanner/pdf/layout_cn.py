"""The Simplified-Chinese official deck list (CN_decklist_template_blank.pdf), filled or flattened.

A4, bilingual labels, 20 rows per main column (count box LEFT of the name), Extra Deck left and
Side Deck middle below with 15 rows each, the Konami ID in ten one-digit boxes `ID1`…`ID10`, the
date in six (YY MM DD). Its fields are generic (`fill_2` … `fill_186`), so they are mapped by the
form's own numbering, checked against the field boxes, and then read as Konami-form fields.
"""
from __future__ import annotations

import re

from scanner.pdf.layout_kde import anchor_shift, assign_to_boxes, sheet_from_kde_fields
from scanner.model import SheetRead
from scanner.pdf.words import Token

CN_SIZE = (595.276, 841.89)
GROUPS: tuple[tuple[str, str, str, int], ...] = (
    ("Monster", "monster", "main", 20), ("Spell", "spell", "main", 20), ("Trap", "trap", "main", 20),
    ("Side Deck", "side", "side", 15), ("Extra Deck", "extra", "extra", 15),
)
_MAIN = ("monster", "spell", "trap")
_LOWER = ("extra", "side")
# Field boxes of the blank form, top-left page coordinates (pt).
_COUNT_X = {"monster": (23.9, 41.8), "spell": (207.7, 226.1), "trap": (391.3, 410.4),
            "extra": (23.9, 41.8), "side": (207.4, 226.1)}
_NAME_X = {"monster": (43.1, 205.4), "spell": (227.4, 389.0), "trap": (411.7, 572.9),
           "extra": (43.2, 205.9), "side": (227.4, 389.0)}
_MAIN_TOPS = (161.0, 175.6, 190.3, 204.7, 219.3, 234.0, 248.4, 263.0, 277.6, 292.3, 306.7, 321.3,
              336.0, 350.4, 365.0, 379.6, 394.1, 408.7, 423.3, 438.0)
_LOWER_TOPS = (498.2, 512.6, 527.2, 542.8, 558.5, 573.1, 587.5, 603.1, 618.7, 633.3, 647.7, 663.3,
               678.9, 693.6, 708.2)
_ROW_H = 13.4
_TOTALS = {"fill_122": (23.9, 452.4, 41.8, 465.9), "fill_123": (207.7, 452.4, 226.1, 465.9),
           "fill_124": (391.3, 452.4, 410.4, 465.9), "fill_185": (23.9, 723.6, 41.8, 737.1),
           "fill_186": (207.4, 723.6, 226.1, 737.1), "Text1": (409.6, 495.9, 466.0, 512.2),
           "Text2": (464.2, 496.8, 521.3, 512.2), "Text3": (520.4, 495.9, 575.1, 511.4)}
_HEADER = {"Name": (115.0, 57.9, 323.9, 80.7), "Event Name": (427.0, 57.9, 572.0, 80.7)}
_ID_X0 = (121.8, 142.9, 161.8, 182.6, 203.2, 223.2, 244.8, 264.4, 284.4, 304.4)
_ID_TOP, _ID_BOTTOM, _ID_W = 100.7, 126.4, 20.5
_DATE_X0 = (416.9, 435.7, 475.1, 495.3, 533.8, 554.1)
_DATE_TOP, _DATE_BOTTOM, _DATE_W = 101.1, 126.8, 22.4
_ANCHOR = ("monsters", 28.0, 145.0)
"""The 'Monsters / ' label: its x0 and top on the blank form."""


def _cell_fields() -> dict[str, tuple[str, str, int]]:
    """fill_N → (count|name, column, row), by the form's numbering: six fields a main row
    (count, name for monster, spell, trap), four a lower row (extra, side)."""
    out: dict[str, tuple[str, str, int]] = {}
    for r in range(1, 21):
        for i, column in enumerate(_MAIN):
            n = 2 + 6 * (r - 1) + 2 * i
            out[f"fill_{n}"] = ("count", column, r)
            out[f"fill_{n + 1}"] = ("name", column, r)
    for r in range(1, 16):
        for i, column in enumerate(_LOWER):
            n = 125 + 4 * (r - 1) + 2 * i
            out[f"fill_{n}"] = ("count", column, r)
            out[f"fill_{n + 1}"] = ("name", column, r)
    return out


CELLS = _cell_fields()


def is_cn_fields(names: set[str]) -> bool:
    return {"ID1", "ID10", "fill_2", "fill_3", "fill_186", "Text1"} <= names


def cn_boxes(dx: float = 0.0, dy: float = 0.0) -> dict[str, tuple[float, float, float, float]]:
    """Every field's box on the page (shifted by dx, dy)."""
    boxes: dict[str, tuple[float, float, float, float]] = {}
    for field, (role, column, row) in CELLS.items():
        tops = _MAIN_TOPS if column in _MAIN else _LOWER_TOPS
        x0, x1 = (_COUNT_X if role == "count" else _NAME_X)[column]
        boxes[field] = (x0, tops[row - 1], x1, tops[row - 1] + _ROW_H)
    boxes.update(_TOTALS)
    boxes.update(_HEADER)
    for i, x0 in enumerate(_ID_X0):
        boxes[f"ID{i + 1}"] = (x0, _ID_TOP, x0 + _ID_W, _ID_BOTTOM)
    for i, x0 in enumerate(_DATE_X0):
        boxes[f"Date{i + 1}"] = (x0, _DATE_TOP, x0 + _DATE_W, _DATE_BOTTOM)
    return {k: (x0 + dx, t + dy, x1 + dx, b + dy) for k, (x0, t, x1, b) in boxes.items()}


def line_box(column: str, row: int) -> tuple[float, float, float, float]:
    """Count and name boxes of one line together."""
    tops = _MAIN_TOPS if column in _MAIN else _LOWER_TOPS
    return (_COUNT_X[column][0], tops[row - 1], _NAME_X[column][1], tops[row - 1] + _ROW_H)


def as_kde_fields(fields: dict[str, str]) -> dict[str, str]:
    """The CN values under the Konami form's field names."""
    group = {g[1]: g[0] for g in GROUPS}
    out: dict[str, str] = {}
    for field, value in fields.items():
        cell = CELLS.get(field)
        if cell is None:
            continue
        role, column, row = cell
        if role == "name":
            out[f"{group[column]} {row}"] = value
        elif column in _MAIN:
            out[f"{group[column]} Card {row} Count"] = value
        else:
            out[f"{group[column]} {row} Count"] = value

    def first(*names: str) -> str:
        return next((fields[n] for n in names if (fields.get(n) or "").strip()), "")

    out.update({
        "Total Monster Cards": first("fill_122"), "Total Spell Cards": first("fill_123"),
        "Total Trap Cards": first("fill_124"), "Total Extra Deck": first("fill_185", "Text2"),
        "Total Side Deck": first("fill_186", "Text3"), "Main Deck Total": first("Text1"),
        "Last Names": fields.get("Name", ""), "Event Name": fields.get("Event Name", ""),
        "CARD GAME ID": "".join(re.sub(r"\s", "", fields.get(f"ID{i}", "")) for i in range(1, 11)),
    })
    date = [re.sub(r"\D", "", fields.get(f"Date{i}", "")) for i in range(1, 7)]
    if all(date):
        out["Event Date - Year"] = date[0] + date[1]
        out["Event Date - Month"] = date[2] + date[3]
        out["Event Date - Day"] = date[4] + date[5]
    return out


def sheet_from_cn_fields(fields: dict[str, str], reader: str) -> SheetRead:
    return sheet_from_kde_fields(as_kde_fields(fields), reader, GROUPS)


def _key(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.casefold())


def looks_like_cn(tokens: list[Token], width: float, height: float) -> bool:
    """The flattened CN page: A4 and its English labels 'Monsters / Spells / Traps' (the form's
    own font maps spaces to '!', so labels are compared on letters only)."""
    if abs(width - CN_SIZE[0]) > 3 or abs(height - CN_SIZE[1]) > 3:
        return False
    keys = {_key(t.text) for t in tokens}
    return {"monsters", "spells", "traps"} <= keys and any("decklistform" in k for k in keys)


def fields_from_flat_cn(tokens: list[Token]) -> dict[str, str]:
    dx, dy = anchor_shift(tokens, _ANCHOR)
    return assign_to_boxes(tokens, cn_boxes(dx, dy))
