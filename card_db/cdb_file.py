"""One ygopro `cards.cdb` file (SQLite: `datas` + `texts`) → cards, alternate artworks, rows."""
from __future__ import annotations

import csv
import logging
import sqlite3
from pathlib import Path

from card_db.aliases import ALIAS_WINDOW
from card_db.errors import CardDatabaseError
from card_db.models import Card
from card_db.paths import package_data

log = logging.getLogger("decksheet.card_db")


ROWS_SQL = "SELECT d.id, d.ot, d.alias, d.type, t.name FROM datas d JOIN texts t ON t.id = d.id"
FINGERPRINT_SQL = ("SELECT d.id, d.type, d.atk, d.def, d.level, d.race, d.attribute, t.name, t.desc "
                   "FROM datas d JOIN texts t ON t.id = d.id")
"""What makes two rows the same printed card apart from the passcode."""


def _select(path: Path, *queries: str) -> list[list[tuple]]:
    """The rows of each query on a cards.cdb opened read-only; a one-line error for a file that
    is not one, or that holds no card (the first query's rows)."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            results = [con.execute(q).fetchall() for q in queries]
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        raise CardDatabaseError("carddb.not-cdb", file=path, detail=exc) from None
    if not results[0]:
        raise CardDatabaseError("carddb.no-cards", file=path)
    return results


def read_cdb(path: Path) -> tuple[dict[int, Card], dict[int, int], int]:
    rows, fingerprint_rows = _select(path, ROWS_SQL, FINGERPRINT_SQL)
    fingerprints = {int(r[0]): tuple(r[1:]) for r in fingerprint_rows}

    names_by_id = {int(r[0]): (r[4] or "").strip() for r in rows}
    originals: dict[int, tuple[int, int, str]] = {}
    alt_rows: list[tuple[int, int, tuple[int, int, str]]] = []
    for cid, ot, alias, type_bits, name in rows:
        cid, alias = int(cid), int(alias or 0)
        name = (name or "").strip()
        # An alternate artwork: alias within the window, or (further away) a row that points at
        # a card of the very same name. Other far aliases are different cards that are "treated
        # as" another (e.g. rule cards); they keep their own passcode.
        if alias and alias != cid and (abs(cid - alias) <= ALIAS_WINDOW
                                       or names_by_id.get(alias) == name):
            alt_rows.append((cid, alias, (int(ot or 0), int(type_bits or 0), name)))
        else:
            originals[cid] = (int(ot or 0), int(type_bits or 0), name)

    alt_rows.extend(_twin_rows(originals, fingerprints))
    aliases: dict[int, int] = {}
    alts_of: dict[int, list[int]] = {}
    for cid, alias, data in alt_rows:
        if alias in originals:
            aliases[cid] = alias
            alts_of.setdefault(alias, []).append(cid)
        else:
            # A partial database (an update file) may hold an artwork without its original:
            # keep it as a card of its own rather than lose the passcode.
            log.info("alternate artwork %s: original %s is not in this database", cid, alias)
            originals[cid] = data

    cards: dict[int, Card] = {}
    for cid, (ot, type_bits, name) in originals.items():
        kind, extra, token = Card.kinds_from_type(type_bits)
        cards[cid] = Card(card_id=cid, name=name, kind=kind, extra_kind=extra, is_token=token,
                          ot=ot, type_bits=type_bits, alternates=tuple(sorted(alts_of.get(cid, []))))
    return cards, aliases, len(rows)


def known_reprints() -> dict[int, int]:
    """Reprint passcode → original passcode for cards some databases list twice without an
    alias link (card_db/data/reprint_passcodes.csv)."""
    out: dict[int, int] = {}
    with open(package_data("reprint_passcodes.csv"), encoding="utf-8") as f:
        for row in csv.DictReader(f):
            out[int(row["passcode"])] = int(row["original"])
    return out


def _twin_rows(originals: dict[int, tuple[int, int, str]],
               fingerprints: dict[int, tuple]) -> list[tuple[int, int, tuple[int, int, str]]]:
    """Rows that are one card under two passcodes (same name, type, stats and text, no alias).

    They are the same card for every rule and a sheet only shows the name, so they collapse like
    alternate artworks. The original is the known first printing where we know it, else the
    lowest passcode (deterministic)."""
    groups: dict[tuple, list[int]] = {}
    for cid in originals:
        if originals[cid][2]:
            groups.setdefault(fingerprints.get(cid, (cid,)), []).append(cid)
    reprints = known_reprints()
    out = []
    for ids in groups.values():
        if len(ids) < 2:
            continue
        named = {reprints[i] for i in ids if reprints.get(i) in ids}
        original = named.pop() if len(named) == 1 else min(ids)
        for cid in ids:
            if cid != original:
                out.append((cid, original, originals.pop(cid)))
    return out


def read_rows(path: Path) -> list[tuple[int, int, int, int, str]]:
    """(id, ot, alias, type, name) of every named row of a cards.cdb."""
    (rows,) = _select(path, ROWS_SQL + " ORDER BY d.id")
    return [(int(r[0]), int(r[1] or 0), int(r[2] or 0), int(r[3] or 0), (r[4] or "").strip())
            for r in rows]
