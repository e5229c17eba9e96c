"""A roster CSV (bytes as uploaded) → the players it lists, or one Korean line saying why not.

Header `player,name[,table]` or the Korean `코나미 ID,이름[,테이블]`, UTF-8 with or without BOM
(CP949 as Korean Excel saves it), any line ends (CR-only too). Names are cleaned as
registration names are (`clean_name`: NFKC, so decomposed jamo are composed; no zero-width,
bidi or control characters), so names that look the same are the same text. The same Konami
ID on two lines is refused with both line numbers, not silently collapsed.
"""
from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass, field

from scanner.errors import EventError
from scanner.event.records import MAX_NAME, clean_name, normalise_konami_id
from scanner.web.station_store import RosterEntry
from scanner.web.texts import ko

MAX_FIELD = 1000
"""No roster cell needs more; a 128 KB field is refused by the line, not by the csv module."""
MAX_ROWS = 10_000
MAX_TABLE = 20
COLUMNS = {"player": "player", "코나미id": "player", "name": "name", "이름": "name",
           "table": "table", "테이블": "table"}
"""Header cell (NFKC, case-folded, no spaces) → the column it names."""


class RosterRefused(ValueError):
    """A roster the station does not import; the message is one Korean line."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class RosterFile:
    entries: list[RosterEntry] = field(default_factory=list)
    columns: dict[str, str | None] = field(default_factory=dict)
    """Column → the header cell it was found under (None: not in the file)."""


def decode(data: bytes) -> str:
    for codec in ("utf-8-sig", "cp949"):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    raise RosterRefused(ko("roster-encoding"), 415)


def _column(cell: str) -> str | None:
    key = "".join(unicodedata.normalize("NFKC", cell).casefold().split())
    return COLUMNS.get(key.strip("\ufeff"))


def parse_roster(data: bytes) -> RosterFile:
    text = decode(data)
    # Universal newlines: CR-only (old Mac Excel) and CRLF read as LF, also inside quotes.
    rows = csv.reader(io.StringIO(text, newline=None))
    out = RosterFile()
    seen: dict[str, list[int]] = {}
    where: dict[str, int] = {}
    try:
        header = next(rows, [])
        for n, cell in enumerate(header):
            if len(cell) > MAX_FIELD:
                raise RosterRefused(ko("roster-field-large", line=1, max_len=MAX_FIELD))
            col = _column(cell)
            if col and col not in where:
                where[col] = n
                out.columns[col] = cell.strip().lstrip("\ufeff")
        if "player" not in where or "name" not in where:
            raise RosterRefused(ko("roster-header"))
        out.columns.setdefault("table", None)
        for row in rows:
            line = rows.line_num
            if any(len(cell) > MAX_FIELD for cell in row):
                raise RosterRefused(ko("roster-field-large", line=line, max_len=MAX_FIELD))
            entry = _entry(row, where, line)
            if entry is None:
                continue
            seen.setdefault(entry.konami_id, []).append(line)
            out.entries.append(entry)
            if len(out.entries) > MAX_ROWS:
                raise RosterRefused(ko("roster-too-many", max_rows=MAX_ROWS))
    except csv.Error:  # a field past the csv module's own limit, a NUL byte, a stray quote
        raise RosterRefused(ko("roster-unreadable", line=rows.line_num)) from None
    twice = {kid: lines for kid, lines in seen.items() if len(lines) > 1}
    if twice:
        kid, lines = min(twice.items(), key=lambda kv: kv[1][0])
        raise RosterRefused(ko("roster-duplicate", kid=kid, lines=", ".join(map(str, lines))))
    return out


def _cell(row: list[str], where: dict[str, int], col: str) -> str:
    n = where.get(col)
    return row[n].strip() if n is not None and n < len(row) else ""


def _entry(row: list[str], where: dict[str, int], line: int) -> RosterEntry | None:
    kid_raw, name_raw = _cell(row, where, "player"), _cell(row, where, "name")
    if not kid_raw and not name_raw:
        return None
    try:
        kid = normalise_konami_id(kid_raw)
    except EventError:
        raise RosterRefused(ko("roster-bad-id", line=line, value=repr(kid_raw[:30]))) from None
    name = clean_player_name(name_raw, line)
    table_raw = _cell(row, where, "table")
    table = clean_name(table_raw) if len(table_raw) <= MAX_TABLE else None
    if len(table_raw) > MAX_TABLE:
        raise RosterRefused(ko("roster-field-large", line=line, max_len=MAX_TABLE))
    return RosterEntry(kid, name, table)


def clean_player_name(raw: str, line: int | None = None) -> str:
    """A roster name as stored (as `clean_name`); empty or too long → `RosterRefused`."""
    try:
        name = clean_name(raw)
    except EventError:
        if line is None:
            raise RosterRefused(ko("name-bad", max_len=MAX_NAME)) from None
        raise RosterRefused(ko("roster-bad-name", line=line, max_len=MAX_NAME)) from None
    if not name:
        raise RosterRefused(ko("roster-no-name", line=line) if line else ko("name-bad",
                                                                           max_len=MAX_NAME))
    return name
