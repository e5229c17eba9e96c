"""Load a ygopro-schema `cards.cdb` (SQLite: `datas` + `texts`) into `Card`s.

Alternate artworks (`alias` non-zero and within 20 of the row's own passcode) collapse onto the
original passcode: they are the same card for every rule.
"""
from __future__ import annotations

import csv
import hashlib
import logging
import os
import pickle
import sqlite3
import stat
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_cache_dir

from card_db.models import Candidate, Card
from card_db.names import NameIndex
from card_db.paths import data_dir, demo_db_path, package_data
from card_db.errors import CardDatabaseError

log = logging.getLogger("decksheet.card_db")

ALIAS_WINDOW = 20
"""An alias within this many of the passcode is an alternate artwork (ygopro convention)."""
ENV_CARD_DB = "DECKSHEET_CARD_DB"
CACHE_VERSION = 11




@dataclass
class CardDatabase:
    """All cards of one database, by original passcode, with a name index."""

    path: Path
    cards: dict[int, Card]
    """Original passcode → card."""
    aliases: dict[int, int]
    """Alternate-artwork passcode → original passcode."""
    names: NameIndex
    sha256: str
    is_demo: bool = False
    rows: int = 0
    """Rows in `datas` (cards + alternate artworks)."""
    extra: dict = field(default_factory=dict)

    def original_id(self, card_id: int) -> int | None:
        """The original passcode for any passcode of the card, or None when unknown."""
        if card_id in self.cards:
            return card_id
        return self.aliases.get(card_id)

    def get(self, card_id: int) -> Card | None:
        oid = self.original_id(card_id)
        return self.cards.get(oid) if oid is not None else None

    def by_name(self, name: str) -> Card | None:
        """Exact lookup, tolerant of spacing, fullwidth marks and Latin case."""
        cid = self.names.exact(name)
        return self.cards.get(cid) if cid is not None else None

    def search(self, text: str, limit: int = 5) -> list[Candidate]:
        """Ranked fuzzy candidates for a name as read (best first)."""
        return [Candidate(self.cards[cid], score) for cid, score in self.names.search(text, limit)]

    @property
    def label(self) -> str:
        kind = "DEMO database (samples only)" if self.is_demo else "card database"
        return f"{kind}: {self.path} ({len(self.cards)} cards, {self.rows} rows)"


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def resolve_db_path(path: str | os.PathLike | None = None) -> tuple[Path, bool]:
    """Pick the database: explicit path, then $DECKSHEET_CARD_DB, then a fetched one, then
    the demo database. Returns (path, is_demo)."""
    if path:
        return Path(path), False
    env = os.environ.get(ENV_CARD_DB)
    if env:
        return Path(env), False
    fetched = data_dir() / "cards.cdb"
    if fetched.is_file():
        return fetched, False
    return demo_db_path(), True


def load_card_db(path: str | os.PathLike | None = None, *, use_cache: bool = True) -> CardDatabase:
    """Load a cards.cdb (see `resolve_db_path` for which one) with its name index."""
    db_path, is_demo = resolve_db_path(path)
    if db_path.is_dir():
        raise CardDatabaseError(f"{db_path} is a folder; give the cards.cdb file inside it")
    if not db_path.is_file():
        raise CardDatabaseError(f"card database not found: {db_path} "
                                f"(give --card-db PATH, set {ENV_CARD_DB}, or run 'decksheet db fetch')")
    digest = file_sha256(db_path)
    if use_cache:
        cached = _read_cache(db_path, digest)
        if cached is not None:
            cached.is_demo = is_demo
            return cached
    cards, aliases, rows = _read_cdb(db_path)
    db = CardDatabase(path=db_path, cards=cards, aliases=aliases,
                      names=NameIndex.build((c.card_id, c.name) for c in cards.values()),
                      sha256=digest, is_demo=is_demo, rows=rows)
    if use_cache:
        _write_cache(db_path, db)
    return db


def _read_cdb(path: Path) -> tuple[dict[int, Card], dict[int, int], int]:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = con.execute(
                "SELECT d.id, d.ot, d.alias, d.type, t.name FROM datas d JOIN texts t ON t.id = d.id"
            ).fetchall()
            # What makes two rows the same printed card apart from the passcode.
            fingerprints = {int(r[0]): tuple(r[1:]) for r in con.execute(
                "SELECT d.id, d.type, d.atk, d.def, d.level, d.race, d.attribute, t.name, t.desc "
                "FROM datas d JOIN texts t ON t.id = d.id")}
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        raise CardDatabaseError(f"not a ygopro cards.cdb: {path} ({exc})") from None
    if not rows:
        raise CardDatabaseError(f"card database has no cards: {path}")

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


def _folder_writable(folder: Path) -> bool:
    """Writable for us *and* not marked read-only (root ignores the mode bits; we respect
    them, so a shared read-only data folder is never written into)."""
    try:
        mode = folder.stat().st_mode
    except OSError:
        return False
    return os.access(folder, os.W_OK) and bool(stat.S_IMODE(mode) & 0o222)


def _cache_paths(db_path: Path) -> list[Path]:
    """Next to the database when that folder is writable, else the user cache dir."""
    key = hashlib.sha1(str(db_path.resolve()).encode()).hexdigest()[:12]
    user = Path(user_cache_dir("decksheet")) / f"index-{key}.pickle"
    beside = db_path.with_name(db_path.name + ".decksheet-index")
    return [beside, user] if _folder_writable(db_path.parent) else [user]


def _read_cache(db_path: Path, digest: str) -> CardDatabase | None:
    for p in _cache_paths(db_path):
        try:
            with open(p, "rb") as f:
                version, cached_digest, db = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError,
                ImportError):
            continue
        if version == CACHE_VERSION and cached_digest == digest:
            db.path = db_path
            return db
    return None


def _write_cache(db_path: Path, db: CardDatabase) -> None:
    for p in _cache_paths(db_path):
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_name(p.name + f".tmp{os.getpid()}")
            with open(tmp, "wb") as f:
                pickle.dump((CACHE_VERSION, db.sha256, db), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, p)  # atomic: a reader never sees half a cache
            return
        except OSError:
            continue
