"""Load ygopro-schema `cards.cdb` files (SQLite: `datas` + `texts`) into one `CardDatabase`.

Alternate artworks (`alias` non-zero and within 20 of the row's own passcode) collapse onto the
original passcode: they are the same card for every rule. The first database gives the names
shown; further ones (other locales: `--card-db` repeated) add their names to the one index, their
alternate-art rows, and cards the first lacks. Alias sources (`--aliases`: a CSV or a cdb) add
alternate-art rows only.
"""
from __future__ import annotations

import csv
import dataclasses
import logging
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from card_db.aliases import ALIAS_WINDOW, read_alias_pairs
from card_db.cache import file_sha256, fingerprint, read_cache, write_cache
from card_db.errors import CardDatabaseError
from card_db.models import Candidate, Card
from card_db.names import NameIndex
from card_db.paths import data_dir, demo_db_path, package_data

log = logging.getLogger("decksheet.card_db")

ENV_CARD_DB = "DECKSHEET_CARD_DB"
ENV_ALIASES = "DECKSHEET_ALIASES"
"""Both hold one path, or several separated by the platform's path separator (`:` / `;`)."""

__all__ = ["ALIAS_WINDOW", "CardDatabase", "CardDbSpec", "SourceInfo", "data_dir", "demo_db_path",
           "file_sha256", "load_card_db", "resolve_db_path", "resolve_db_spec"]

PathLike = str | os.PathLike


@dataclass(frozen=True)
class CardDbSpec:
    """Which files make one card database. Small and picklable: a worker process given the
    spec loads the same database."""

    paths: tuple[Path, ...]
    """cards.cdb files; the first gives the names shown (Korean), the others add names."""
    aliases: tuple[Path, ...] = ()
    """Alias sources: CSV `alt_id,original_id` or a cards.cdb whose alias rows are used."""
    is_demo: bool = False


@dataclass
class SourceInfo:
    """What one source file gave (for `db info`)."""

    path: str
    role: str
    """card-db (the first), locale (a further cards.cdb) or aliases."""
    rows: int
    """Rows (cdb) or pairs (alias CSV) in the file."""
    names: int = 0
    """Names added to the index."""
    cards: int = 0
    """Cards added that no earlier source held."""
    alias_rows: int = 0
    """Alternate-art passcodes added that no earlier source held."""
    skipped: int = 0
    """Unreadable lines, or alias pairs whose original no source holds."""


@dataclass
class CardDatabase:
    """All cards of the loaded databases, by original passcode, with a name index."""

    path: Path
    """The first (name-giving) database."""
    cards: dict[int, Card]
    """Original passcode → card."""
    aliases: dict[int, int]
    """Alternate-artwork passcode → original passcode."""
    names: NameIndex
    sha256: str
    """sha256 of the first database."""
    is_demo: bool = False
    rows: int = 0
    """Rows in the first database's `datas` (cards + alternate artworks)."""
    sources: list[SourceInfo] = field(default_factory=list)
    spec: CardDbSpec | None = None
    """The files this database was loaded from (load the same with `load_card_db(spec)`)."""

    @property
    def alias_rows_loaded(self) -> int:
        """Alternate-art passcodes that came from further databases and alias sources."""
        return sum(s.alias_rows for s in self.sources[1:])

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
        more = [s for s in self.sources[1:]]
        extra = "".join(f"; + {s.role} {s.path} ({s.names} names, {s.alias_rows} alias rows)"
                        for s in more)
        return f"{kind}: {self.path} ({len(self.cards)} cards, {self.rows} rows){extra}"


def _env_paths(var: str) -> list[Path]:
    return [Path(p) for p in os.environ.get(var, "").split(os.pathsep) if p.strip()]


def _as_paths(value: PathLike | Sequence[PathLike] | None) -> list[Path]:
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [Path(value)] if str(value) else []
    return [Path(v) for v in value if str(v)]


def resolve_db_spec(paths: PathLike | Sequence[PathLike] | None = None,
                    aliases: PathLike | Sequence[PathLike] | None = None) -> CardDbSpec:
    """Pick the databases: explicit paths, then $DECKSHEET_CARD_DB, then the fetched ones
    (`cards.cdb`, then any `cards.LOCALE.cdb` fetched beside it), then the demo database.
    Alias sources: explicit, else $DECKSHEET_ALIASES."""
    alias_paths = tuple(_as_paths(aliases) or _env_paths(ENV_ALIASES))
    chosen = _as_paths(paths) or _env_paths(ENV_CARD_DB)
    if chosen:
        return CardDbSpec(tuple(chosen), alias_paths)
    fetched = data_dir() / "cards.cdb"
    if fetched.is_file():
        return CardDbSpec((fetched, *sorted(data_dir().glob("cards.*.cdb"))), alias_paths)
    return CardDbSpec((demo_db_path(),), alias_paths, is_demo=True)


def resolve_db_path(path: PathLike | None = None) -> tuple[Path, bool]:
    """The first database that `resolve_db_spec` picks, and whether it is the demo one."""
    spec = resolve_db_spec(path)
    return spec.paths[0], spec.is_demo


def _check_file(path: Path, what: str) -> None:
    if path.is_dir():
        raise CardDatabaseError(f"{path} is a folder; give the {what} file inside it")
    if not path.is_file():
        raise CardDatabaseError(f"{what} not found: {path} (give --card-db PATH, set "
                                f"{ENV_CARD_DB}, or run 'decksheet db fetch')"
                                if what == "card database" else f"{what} not found: {path}")


def load_card_db(path: PathLike | Sequence[PathLike] | CardDbSpec | None = None, *,
                 aliases: PathLike | Sequence[PathLike] | None = None,
                 use_cache: bool = True) -> CardDatabase:
    """Load the card database(s) (see `resolve_db_spec` for which) with one name index."""
    spec = path if isinstance(path, CardDbSpec) else resolve_db_spec(path, aliases)
    for p in spec.paths:
        _check_file(p, "card database")
    for p in spec.aliases:
        _check_file(p, "alias file")
    files = [("card-db" if i == 0 else "locale", p) for i, p in enumerate(spec.paths)]
    files += [("aliases", p) for p in spec.aliases]
    fp = fingerprint(files)
    if use_cache:
        payload = read_cache(fp)
        if payload is not None:
            try:
                return _from_payload(payload, spec, fp[0]["sha256"])
            except (KeyError, ValueError, TypeError, IndexError):
                log.info("card index cache malformed; rebuilding")
    db = _build(spec, fp[0]["sha256"])
    if use_cache:
        write_cache(fp, _to_payload(db))
    return db


def _build(spec: CardDbSpec, sha256: str) -> CardDatabase:
    primary = spec.paths[0]
    cards, aliases, rows = _read_cdb(primary)
    merge = _Merge(cards, aliases, [(c.card_id, c.name) for c in cards.values()])
    n_primary = len(merge.names)
    sources = [SourceInfo(str(primary), "card-db", rows, names=len(cards))]
    for p in spec.paths[1:]:
        sources.append(merge.add_locale(p, _read_rows(p)))
    for p in spec.aliases:
        pairs = read_alias_pairs(p)
        for msg in pairs.skipped[:5]:
            log.warning(msg)
        info = merge.add_aliases(str(p), pairs.pairs)
        info.skipped += len(pairs.skipped)
        sources.append(info)
    return CardDatabase(path=primary, cards=merge.finish_cards(), aliases=merge.aliases,
                        names=_index(merge.names, n_primary), sha256=sha256,
                        is_demo=spec.is_demo, rows=rows, sources=sources, spec=spec)


def _index(names: list[tuple[int, str]], n_primary: int) -> NameIndex:
    """One index over every name; a further locale's name equal to an earlier one is left out."""
    unique = list(dict.fromkeys(names))
    first = len(dict.fromkeys(names[:n_primary]))
    return NameIndex.build(unique, secondary_from=first if len(unique) > first else None)


@dataclass
class _Merge:
    """Further sources folded into the first database's cards, aliases and names."""

    cards: dict[int, Card]
    aliases: dict[int, int]
    names: list[tuple[int, str]]
    new_alts: dict[int, list[int]] = field(default_factory=dict)

    def original_id(self, cid: int) -> int | None:
        return cid if cid in self.cards else self.aliases.get(cid)

    def _alias(self, alt: int, original: int) -> None:
        self.aliases[alt] = original
        self.new_alts.setdefault(original, []).append(alt)

    def add_locale(self, path: Path, rows: list[tuple[int, int, int, int, str]]) -> SourceInfo:
        info = SourceInfo(str(path), "locale", len(rows))
        alt_rows = []
        for cid, ot, alias, type_bits, name in rows:
            if alias and alias != cid and abs(cid - alias) <= ALIAS_WINDOW:
                alt_rows.append((cid, alias, name))
                continue
            oid = self.original_id(cid)
            if oid is None:  # a card the first database lacks (e.g. newer than it)
                kind, extra, token = Card.kinds_from_type(type_bits)
                self.cards[cid] = Card(card_id=cid, name=name, kind=kind, extra_kind=extra,
                                       is_token=token, ot=ot, type_bits=type_bits)
                oid, info.cards = cid, info.cards + 1
            if name:
                self.names.append((oid, name))
                info.names += 1
        for cid, alias, name in alt_rows:
            oid = self.original_id(cid)
            if oid is None:
                oid = self.original_id(alias)
                if oid is None:
                    info.skipped += 1
                    continue
                self._alias(cid, oid)
                info.alias_rows += 1
            if name:
                self.names.append((oid, name))
                info.names += 1
        return info

    def add_aliases(self, path: str, pairs: list[tuple[int, int]]) -> SourceInfo:
        info = SourceInfo(path, "aliases", len(pairs))
        for alt, original in pairs:
            if self.original_id(alt) is not None:
                continue  # an earlier source holds it already: the first word wins
            oid = self.original_id(original)
            if oid is None:
                info.skipped += 1
                continue
            self._alias(alt, oid)
            info.alias_rows += 1
        return info

    def finish_cards(self) -> dict[int, Card]:
        for oid, alts in self.new_alts.items():
            card = self.cards[oid]
            self.cards[oid] = dataclasses.replace(
                card, alternates=tuple(sorted({*card.alternates, *alts})))
        return self.cards


def _read_rows(path: Path) -> list[tuple[int, int, int, int, str]]:
    """(id, ot, alias, type, name) of every named row of a cards.cdb."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = con.execute("SELECT d.id, d.ot, d.alias, d.type, t.name FROM datas d "
                               "JOIN texts t ON t.id = d.id ORDER BY d.id").fetchall()
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        raise CardDatabaseError(f"not a ygopro cards.cdb: {path} ({exc})") from None
    if not rows:
        raise CardDatabaseError(f"card database has no cards: {path}")
    return [(int(r[0]), int(r[1] or 0), int(r[2] or 0), int(r[3] or 0), (r[4] or "").strip())
            for r in rows]


# --------------------------------------------------------------------------- cache payload


def _to_payload(db: CardDatabase) -> dict[str, Any]:
    return {"rows": db.rows,
            "cards": [[c.card_id, c.name, c.ot, c.type_bits, list(c.alternates)]
                      for c in db.cards.values()],
            "aliases": [[a, o] for a, o in db.aliases.items()],
            "sources": [dataclasses.asdict(s) for s in db.sources],
            "names": db.names.to_json()}


def _from_payload(d: dict[str, Any], spec: CardDbSpec, sha256: str) -> CardDatabase:
    """A `CardDatabase` from a cache payload; every value checked (ValueError when not)."""
    cards: dict[int, Card] = {}
    for cid, name, ot, type_bits, alts in d["cards"]:
        if not (isinstance(name, str) and all(type(x) is int for x in (cid, ot, type_bits, *alts))):
            raise ValueError("malformed card")
        kind, extra, token = Card.kinds_from_type(type_bits)
        cards[cid] = Card(card_id=cid, name=name, kind=kind, extra_kind=extra, is_token=token,
                          ot=ot, type_bits=type_bits, alternates=tuple(alts))
    aliases = {}
    for alt, orig in d["aliases"]:
        if type(alt) is not int or orig not in cards:
            raise ValueError("malformed alias")
        aliases[alt] = orig
    names = NameIndex.from_json(d["names"])
    if not set(names.ids) <= cards.keys():
        raise ValueError("index names an unknown card")
    fields = {f.name for f in dataclasses.fields(SourceInfo)}
    sources = [SourceInfo(**{k: v for k, v in s.items() if k in fields}) for s in d["sources"]]
    rows = d["rows"]
    if type(rows) is not int:
        raise ValueError("malformed rows")
    return CardDatabase(path=spec.paths[0], cards=cards, aliases=aliases, names=names,
                        sha256=sha256, is_demo=spec.is_demo, rows=rows, sources=sources, spec=spec)


# --------------------------------------------------------------------------- one cards.cdb


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
