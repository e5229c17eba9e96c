"""Alternate-artwork pairs from a second source: a CSV (`alt_id,original_id[,source]`) or the
alias rows of another `cards.cdb`.

Players' `.ydk` files use alternate-art passcodes (하루 우라라 14558128) that a Korean database
may lack; the other locales of the same repository, or a curated list, carry them.
"""
from __future__ import annotations

import csv
import io
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from card_db.errors import CardDatabaseError

ALIAS_WINDOW = 20
"""An alias within this many of the passcode is an alternate artwork (ygopro convention)."""
MAX_PASSCODE = 2**32 - 1
SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass
class AliasPairs:
    """Pairs read from one alias source, and the lines that could not be read."""

    path: Path
    pairs: list[tuple[int, int]]
    """(alternate-art passcode, original passcode), in file order."""
    skipped: list[str] = field(default_factory=list)
    """One message per unreadable line."""


def read_alias_pairs(path: str | Path) -> AliasPairs:
    """Pairs from a CSV or a cards.cdb (detected by content)."""
    p = Path(path)
    if p.is_dir():
        raise CardDatabaseError("carddb.alias-is-folder", file=p)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise CardDatabaseError("carddb.alias-not-found", file=p) from None
    except OSError as exc:
        raise CardDatabaseError("carddb.alias-unreadable", file=p, reason=exc.strerror) from None
    if data.startswith(SQLITE_MAGIC):
        return AliasPairs(p, _cdb_pairs(p))
    if b"\x00" in data[:4096]:
        raise CardDatabaseError("carddb.alias-binary", file=p)
    return _csv_pairs(p, data.decode("utf-8-sig", errors="replace"))


def _cdb_pairs(path: Path) -> list[tuple[int, int]]:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = con.execute("SELECT id, alias FROM datas WHERE alias <> 0 AND alias <> id "
                               "AND abs(id - alias) <= ? ORDER BY id", (ALIAS_WINDOW,)).fetchall()
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        raise CardDatabaseError("carddb.alias-not-cdb", file=path, detail=exc) from None
    return [(int(a), int(o)) for a, o in rows if _passcode(a) and _passcode(o)]


def _passcode(x: object) -> bool:
    return type(x) is int and 0 < x <= MAX_PASSCODE


def _csv_pairs(path: Path, text: str) -> AliasPairs:
    out = AliasPairs(path, [])
    rows = csv.reader(io.StringIO(text))
    alt_col, orig_col = 0, 1
    for lineno, row in enumerate(rows, 1):
        cells = [c.strip() for c in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if lineno == 1 and not cells[0].isdigit():  # a header names the columns
            low = [c.lower() for c in cells]
            if "alt_id" in low and "original_id" in low:
                alt_col, orig_col = low.index("alt_id"), low.index("original_id")
            continue
        try:
            alt, orig = cells[alt_col], cells[orig_col]
        except IndexError:
            alt = orig = ""
        if not (alt.isascii() and alt.isdigit() and orig.isascii() and orig.isdigit()) \
                or not (_passcode(int(alt)) and _passcode(int(orig))) or alt == orig:
            out.skipped.append(f"{path} line {lineno}: skipped unreadable line {','.join(row)[:60]!r}")
            continue
        out.pairs.append((int(alt), int(orig)))
    if not out.pairs and not out.skipped:
        raise CardDatabaseError("carddb.alias-no-pairs", file=path)
    return out
