"""Konami's official fillable deck list (KDE_DeckList.pdf) and other filled forms.

Filled: values are AcroForm fields (`Monster 3`, `Monster Card 3 Count`, `Total Side Deck`, ...).
Flattened: the same values are page text drawn inside the field boxes; the form is a fixed
printed document, so its field boxes are known, and the page is aligned on its 'MONSTER' header
before text is assigned to boxes.
"""
from __future__ import annotations

import re

from scanner.pdf.layout_dbko import parse_date
from scanner.model import ReadLine, ReviewFlag, SheetRead
from scanner.pdf.words import Token, join_words, label_key, parse_count
from scanner.vocab import Reason

# Field groups: (field name prefix, sheet column, section, rows).
GROUPS: tuple[tuple[str, str, str, int], ...] = (
    ("Monster", "monster", "main", 18), ("Spell", "spell", "main", 18), ("Trap", "trap", "main", 18),
    ("Side Deck", "side", "side", 15), ("Extra Deck", "extra", "extra", 15),
)
TOTAL_FIELDS = {"monster": "Total Monster Cards", "spell": "Total Spell Cards",
                "trap": "Total Trap Cards", "side": "Total Side Deck", "extra": "Total Extra Deck"}
KDE_SIZE = (644.21, 833.68)

# KDE_DeckList.pdf field boxes in top-left page coordinates (pt): count x-range, name x-range,
# and the row tops of the main columns and of the side/extra blocks (rows are ~17 pt high).
_COUNT_X = {"monster": (38.7, 56.9), "spell": (227.4, 245.6), "trap": (417.3, 435.5),
            "side": (38.6, 56.8), "extra": (227.9, 246.1)}
_NAME_X = {"monster": (57.2, 226.0), "spell": (246.8, 416.1), "trap": (436.1, 605.4),
           "side": (57.4, 226.7), "extra": (246.8, 416.1)}
_MAIN_TOPS = (160.9, 178.9, 196.4, 213.0, 230.4, 248.1, 265.4, 283.2, 300.5, 317.8, 335.5, 352.8,
              370.6, 387.9, 404.9, 422.8, 439.7, 457.8)
_LOWER_TOPS = (508.2, 525.7, 543.0, 560.8, 577.6, 595.4, 612.2, 630.4, 647.7, 665.5, 682.4, 700.5,
               717.0, 735.1, 752.2)
_ROW_H = 16.8
_OTHER_BOXES = {  # (x0, top, x1, bottom)
    "First  Middle Names": (105.4, 72.7, 302.2, 93.5), "Last Names": (105.4, 96.8, 302.2, 119.0),
    "CARD GAME ID": (113.4, 123.0, 303.2, 144.3), "Event Date - Month": (350.1, 71.4, 388.1, 94.2),
    "Event Date - Day": (407.0, 71.9, 444.8, 93.1), "Event Date - Year": (464.9, 71.9, 539.3, 93.8),
    "Country of Residency": (408.5, 98.1, 539.0, 119.0), "Event Name": (351.4, 122.5, 539.0, 144.3),
    "Main Deck Total": (550.9, 115.5, 605.0, 144.3),
    "Total Monster Cards": (38.7, 475.4, 56.5, 492.3), "Total Spell Cards": (227.4, 475.4, 246.2, 491.9),
    "Total Trap Cards": (417.3, 475.4, 434.8, 491.9), "Total Side Deck": (38.6, 770.4, 56.6, 785.4),
    "Total Extra Deck": (227.9, 770.4, 245.3, 785.4),
}
MIN_SHIFT = 4.0
"""A page shifted by less than this (pt) is read with the boxes where the form has them."""
_ANCHOR = ("monster", 93.1, 149.2)
"""The 'MONSTER' of the 'MONSTER CARDS' header: its x0 and top on the blank form."""


def _count_field(group: str, n: int, fields: dict[str, str]) -> str | None:
    for name in (f"{group} Card {n} Count", f"{group} {n} Count"):
        if name in fields:
            return fields[name]
    return None


def is_kde_fields(names: set[str]) -> bool:
    return "Monster 1" in names and ("Monster Card 1 Count" in names or "Monster 1 Count" in names)


def sheet_from_kde_fields(fields: dict[str, str], reader: str,
                          groups: tuple[tuple[str, str, str, int], ...] = GROUPS) -> SheetRead:
    """Form values (field name → text) → lines, player, totals. Other forms are read through
    this one by naming their fields as the Konami form does (`groups` gives their row counts)."""
    sheet = SheetRead(reader=reader)
    for group, column, section, rows in groups:
        for n in range(1, rows + 1):
            name = (fields.get(f"{group} {n}") or "").strip()
            count_text = (_count_field(group, n, fields) or "").strip()
            if not name and not count_text:
                continue
            count = parse_count(count_text) if count_text else None
            flags = []
            if not name:
                flags.append(Reason.NAME_MISSING)
            if count is None:
                flags.append(Reason.COUNT_MISSING if not count_text else Reason.COUNT_UNCLEAR)
            sheet.lines.append(ReadLine(section=section, text=name, count=count, column=column,
                                        row=n, count_text=count_text, flags=flags))
    for column, fname in TOTAL_FIELDS.items():
        value = parse_total(fields.get(fname))
        if column in ("side", "extra"):
            sheet.printed_totals[column] = value
        else:
            sheet.column_totals[column] = value
    main = parse_total(fields.get("Main Deck Total"))
    cols = [sheet.column_totals.get(c) for c in ("monster", "spell", "trap")]
    if main is None and all(v is not None for v in cols):
        main = sum(v or 0 for v in cols)
    sheet.printed_totals["main"] = main
    for column in ("monster", "spell", "trap"):
        total = sheet.column_totals.get(column)
        lines = [ln for ln in sheet.lines if ln.column == column]
        if total is not None and all(ln.count is not None for ln in lines):
            got = sum(ln.count or 0 for ln in lines)
            if got != total:
                sheet.review.append(ReviewFlag(section="main", reason=Reason.TOTAL_MISMATCH,
                                               detail=f"{column} column: printed total {total} ≠ sum of lines {got}"))
    person = "".join((fields.get("Last Names") or "").split()) + \
        "".join((fields.get("First  Middle Names") or fields.get("First Middle Names") or "").split())
    sheet.player_name = person or None
    digits = re.sub(r"\D", "", fields.get("CARD GAME ID") or "")
    sheet.konami_id = digits or None
    if digits and len(digits) != 10:
        sheet.review.append(ReviewFlag(section=None, reason=Reason.KONAMI_ID_UNCLEAR,
                                       detail=f"CARD GAME ID read as {digits!r} (not 10 digits)"))
    sheet.event_name = (fields.get("Event Name") or "").strip() or None
    sheet.event_date = parse_date(" ".join(fields.get(f"Event Date - {p}") or ""
                                           for p in ("Year", "Month", "Day")))
    return sheet


def parse_total(text: str | None) -> int | None:
    if text is None:
        return None
    digits = re.sub(r"\D", "", text)
    return int(digits) if digits else None


def looks_like_kde(tokens: list[Token], width: float, height: float) -> bool:
    """The flattened KDE page: its size and its English column headers."""
    if abs(width - KDE_SIZE[0]) > 3 or abs(height - KDE_SIZE[1]) > 3:
        return False
    keys = {label_key(t.text) for t in tokens}
    return {"monster", "spell", "trap", "cards"} <= keys


def form_boxes(dx: float = 0.0, dy: float = 0.0) -> dict[str, tuple[float, float, float, float]]:
    boxes: dict[str, tuple[float, float, float, float]] = {}
    for group, column, _section, rows in GROUPS:
        tops = _MAIN_TOPS if column in ("monster", "spell", "trap") else _LOWER_TOPS
        for n, top in enumerate(tops[:rows], start=1):
            cx0, cx1 = _COUNT_X[column]
            nx0, nx1 = _NAME_X[column]
            boxes[f"{group} {n}"] = (nx0 + dx, top + dy, nx1 + dx, top + _ROW_H + dy)
            boxes[f"{group} Card {n} Count" if column in ("monster", "spell", "trap")
                  else f"{group} {n} Count"] = (cx0 + dx, top + dy, cx1 + dx, top + _ROW_H + dy)
    for name, (x0, top, x1, bottom) in _OTHER_BOXES.items():
        boxes[name] = (x0 + dx, top + dy, x1 + dx, bottom + dy)
    return boxes


def fields_from_flat_text(tokens: list[Token]) -> dict[str, str]:
    """Assign each page word to the form box holding its centre (form text itself is outside)."""
    dx, dy = anchor_shift(tokens, _ANCHOR)
    return assign_to_boxes(tokens, form_boxes(dx, dy))


def anchor_shift(tokens: list[Token], anchor: tuple[str, float, float]) -> tuple[float, float]:
    """How far the page is shifted from the blank form, found from one printed label."""
    found = [t for t in tokens if re.sub(r"[^0-9a-z]", "", t.text.casefold()) == anchor[0]]
    if not found:
        return 0.0, 0.0
    a = min(found, key=lambda t: t.top)
    dx, dy = a.x0 - anchor[1], a.top - anchor[2]
    if abs(dx) < MIN_SHIFT and abs(dy) < MIN_SHIFT:
        return 0.0, 0.0  # header fonts differ a little between printings; boxes are big
    return dx, dy


def assign_to_boxes(tokens: list[Token],
                    boxes: dict[str, tuple[float, float, float, float]]) -> dict[str, str]:
    """Field name → the words whose centre lies in its box, joined in reading order."""
    found: dict[str, list[Token]] = {}
    for t in tokens:
        for name, (x0, top, x1, bottom) in boxes.items():
            if x0 - 1 <= t.cx <= x1 + 1 and top - 1 <= t.cy <= bottom + 1:
                found.setdefault(name, []).append(t)
                break
    return {name: join_words(toks) for name, toks in found.items()}


def line_box(column: str, row: int) -> tuple[float, float, float, float]:
    """Count and name boxes of one line together (blank-form coordinates)."""
    tops = _MAIN_TOPS if column in ("monster", "spell", "trap") else _LOWER_TOPS
    return (_COUNT_X[column][0], tops[row - 1], _NAME_X[column][1], tops[row - 1] + _ROW_H)
