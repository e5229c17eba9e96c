"""Remade deck-list forms with one multi-line field per column, each line `3 Name`.

Generators that remake the Konami form (craft-your-list and the like) put a whole column in one
text field: `monster`, `spells`, `traps`, `side_deck`, `extra_deck`, each value a line per card
(`3 Shaddoll Beast`), with `total_*` fields and the player's `name`, `lastname`, `konami_id`.
Each line of a field is one card line; its row is its place in the field.
"""
from __future__ import annotations

import re

from scanner.inputs.formats import one_line
from scanner.model import ReadLine, SheetRead
from scanner.pdf.words import parse_total
from scanner.vocab import Reason

COLUMNS: dict[str, tuple[str, str]] = {
    "monster": ("monster", "main"), "monsters": ("monster", "main"),
    "spells": ("spell", "main"), "spell": ("spell", "main"),
    "traps": ("trap", "main"), "trap": ("trap", "main"),
    "side_deck": ("side", "side"), "side": ("side", "side"),
    "extra_deck": ("extra", "extra"), "extra": ("extra", "extra"),
}
"""Field name (case-folded) → (sheet column, section)."""
TOTALS = {"total_monsters": "monster", "total_spells": "spell", "total_traps": "trap",
          "total_side": "side", "total_extra": "extra"}
LINE_RE = re.compile(r"^\s*[x×X]?(\d{1,2})\s*[x×X]?\s+(.+?)\s*$")
"""`3 Name`, `3x Name`, `x3 Name`."""


def is_line_fields(names: set[str]) -> bool:
    """Whether the form's fields are column fields: at least the three main-deck columns."""
    folded = {n.casefold() for n in names}
    mains = {c for n, (c, s) in COLUMNS.items() if n in folded and s == "main"}
    return mains == {"monster", "spell", "trap"}


def field_lines(value: str) -> list[str]:
    """The non-blank lines of a multi-line value (CR, LF or CRLF)."""
    return [ln for ln in re.split(r"\r\n|\r|\n", value or "") if ln.strip()]


def sheet_from_line_fields(values: dict[str, str], reader: str) -> SheetRead:
    """Form values (field name → raw text, line breaks kept) → lines, player, totals."""
    sheet = SheetRead(reader=reader)
    folded = {k.casefold(): v for k, v in values.items()}
    seen: set[str] = set()
    for field, (column, section) in COLUMNS.items():
        if field not in folded or column in seen:
            continue
        seen.add(column)
        for row, text in enumerate(field_lines(folded[field]), start=1):
            line = one_line(text)
            m = LINE_RE.match(line)
            if m:
                sheet.lines.append(ReadLine(section=section, text=m.group(2), count=int(m.group(1)),
                                            column=column, row=row, count_text=m.group(1)))
            else:
                sheet.lines.append(ReadLine(section=section, text=line.strip(), count=None,
                                            column=column, row=row, flags=[Reason.COUNT_MISSING],
                                            detail="no count before the name"))
    for field, column in TOTALS.items():
        value = parse_total(folded.get(field))
        if column in ("side", "extra"):
            sheet.printed_totals[column] = value
        else:
            sheet.column_totals[column] = value
    sheet.settle_main_total(None)
    sheet.check_column_totals()
    person = " ".join(one_line(folded.get(k) or "").strip() for k in ("name", "lastname")).strip()
    sheet.player_name = person or None
    sheet.take_konami_id(folded.get("konami_id"), "konami_id")
    return sheet
