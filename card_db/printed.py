"""Card names as printed, in one script, from every loaded database.

The name index keeps only normal forms (`names.name_key`: no spaces, no case), which are enough
to look a read up but not to draw it. A reader that checks a picture of a sheet by drawing its
candidates (`scanner.ocr.verify`) needs the names as a sheet prints them: the first database's
names, and each further locale's (`--card-db ko-KR.cdb --card-db en-US.cdb` prints English
names in the second file only).
"""
from __future__ import annotations

import logging
import weakref

from card_db.cdb import CardDatabase
from card_db.cdb_file import read_rows
from card_db.errors import CardDatabaseError
from card_db.names import name_script

log = logging.getLogger("decksheet.carddb")

_BUILT: dict[tuple[int, str], tuple["weakref.ref[CardDatabase]", dict[int, str]]] = {}
"""(id(db), script) → names, with a weak reference telling a reused id from the same database
(a cache: reading a locale file again gives the same names)."""


def printed_names(db: CardDatabase, script: str) -> dict[int, str]:
    """Original passcode → the card's name in `script` (`names.name_script`: latin, hangul, …),
    as the databases spell it: the first database's name when written in that script alone, else
    the first further locale's that is. Cards with no such name are left out (a Korean name with a
    few Latin letters, `Sin 튠`, is no English name: the English database's `Malefic Tune` is)."""
    key = (id(db), script)
    ref, got = _BUILT.get(key, (None, None))
    if got is not None and ref is not None and ref() is db:
        return got
    out = {cid: card.name for cid, card in db.cards.items() if written_in(card.name, script)}
    for path in (db.spec.paths[1:] if db.spec is not None else ()):
        try:
            rows = read_rows(path)
        except CardDatabaseError as exc:  # loaded a moment ago: only a file changed since
            log.warning("names of %s not read: %s", path, exc)
            continue
        for cid, _ot, _alias, _type, name in rows:
            oid = db.original_id(cid)
            if oid is not None and oid not in out and written_in(name, script):
                out[oid] = name
    for k in [k for k, (r, _) in _BUILT.items() if r() is None]:
        del _BUILT[k]
    _BUILT[key] = (weakref.ref(db), out)
    return out


def written_in(name: str, script: str) -> bool:
    """Every letter of `name` is of `script` (digits, marks and other letters — Greek — aside)."""
    return bool(name) and name_script(name) == script and all(
        name_script(ch) in (None, script) for ch in name)
