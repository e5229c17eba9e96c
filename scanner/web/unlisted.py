"""The deck-check page's 「리스트에 없는 카드」 rows: any number of them (「카드 추가」), each a
card picked from the suggestions with a section and a count. Row 1's fields are `extra_card`,
`extra_card_text`, `extra_section`, `extra_count`; row N's end in `-N`."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from scanner.web.service import StationError
from scanner.web.texts import ko

MAX_ROWS = 20
SECTIONS = ("main", "extra", "side")
_FORM_INT = re.compile(r"[0-9]{1,10}")


@dataclass
class UnlistedRow:
    """One row as the judge left it (kept on the page after a comparison)."""

    text: str
    card: str
    section: str
    count: str


def suffix(n: int) -> str:
    return "" if n == 1 else f"-{n}"


def read_rows(form: Any, text_of: Callable[[Any, str], str | None]) -> list[UnlistedRow]:
    """The rows the form holds (empty ones left out), as typed."""
    rows = []
    for n in range(1, MAX_ROWS + 1):
        s = suffix(n)
        row = UnlistedRow(text=(text_of(form, f"extra_card_text{s}") or "").strip()[:100],
                          card=(text_of(form, f"extra_card{s}") or "").strip()[:40],
                          section=(text_of(form, f"extra_section{s}") or "").strip()[:10],
                          count=(text_of(form, f"extra_count{s}") or "").strip()[:10])
        if row.text or row.card:
            rows.append(row)
    return rows


def _int(text: str, lo: int, hi: int, message: str) -> int:
    if not _FORM_INT.fullmatch(text) or not lo <= int(text) <= hi:
        raise StationError(message)
    return int(text)


def to_extra(rows: list[UnlistedRow]) -> list[tuple[str, int, int]]:
    """(section, card ID, count) of every row; a row typed but not picked, or without a section
    or a count, refuses the comparison (a card left out would make a false 일치)."""
    out = []
    for row in rows:
        if not row.card:
            raise StationError(ko("extra-card-not-picked", name=row.text[:40]))
        card_id = _int(row.card, 1, 2 ** 31 - 1, ko("pick-extra-card"))
        if row.section not in SECTIONS:
            raise StationError(ko("extra-section", name=row.text[:40] or row.card))
        out.append((row.section, card_id, _int(row.count, 1, 60, ko("extra-count"))))
    return out
