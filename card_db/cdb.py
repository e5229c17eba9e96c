"""Load ygopro-schema `cards.cdb` files (SQLite: `datas` + `texts`) into one `CardDatabase`.

Alternate artworks (`alias` non-zero and within 20 of the row's own passcode) collapse onto the
original passcode: they are the same card for every rule. The first database gives the names
shown; further ones (other locales: `--card-db` repeated) add their names to the one index, their
alternate-art rows, and cards the first lacks. Alias sources (`--aliases`: a CSV or a cdb) add
alternate-art rows only.
"""
from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from card_db.aliases import ALIAS_WINDOW, read_alias_pairs
from card_db.cache import file_sha256, fingerprint, read_cache, write_cache
from card_db.cdb_file import read_cdb, read_rows
from card_db.errors import CardDatabaseError
from card_db.merge import Merge, SourceInfo, build_index
from card_db.models import Candidate, Card
from card_db.names import NameIndex
from card_db.paths import data_dir, demo_db_path

log = logging.getLogger("decksheet.card_db")

ENV_CARD_DB = "DECKSHEET_CARD_DB"
ENV_ALIASES = "DECKSHEET_ALIASES"
"""Both hold one path, or several separated by the platform's path separator (`:` / `;`)."""

__all__ = ["ALIAS_WINDOW", "CardDatabase", "CardDbSpec", "SourceInfo", "data_dir", "demo_db_path",
           "file_sha256", "check_db_files", "load_card_db", "resolve_db_path", "resolve_db_spec"]

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
        extra = "".join(f"; + {s.role} {s.path} ({s.names} names, {s.alias_rows} alias rows)"
                        for s in self.sources[1:])
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
    """`what`: "card database" or "alias file"."""
    alias = what == "alias file"
    if path.is_dir():
        raise CardDatabaseError("carddb.alias-is-folder" if alias else "carddb.is-folder",
                                file=path)
    if not path.is_file():
        if alias:
            raise CardDatabaseError("carddb.alias-not-found", file=path)
        raise CardDatabaseError("carddb.not-found", file=path, env=ENV_CARD_DB)


def check_db_files(spec: CardDbSpec) -> None:
    """Refuse, in one line, a spec one of whose files is missing (before any is loaded)."""
    for p in spec.paths:
        _check_file(p, "card database")
    for p in spec.aliases:
        _check_file(p, "alias file")


def load_card_db(path: PathLike | Sequence[PathLike] | CardDbSpec | None = None, *,
                 aliases: PathLike | Sequence[PathLike] | None = None,
                 use_cache: bool = True) -> CardDatabase:
    """Load the card database(s) (see `resolve_db_spec` for which) with one name index."""
    spec = path if isinstance(path, CardDbSpec) else resolve_db_spec(path, aliases)
    check_db_files(spec)
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
    cards, aliases, rows = read_cdb(primary)
    merge = Merge(cards, aliases, [(c.card_id, c.name) for c in cards.values()])
    n_primary = len(merge.names)
    sources = [SourceInfo(str(primary), "card-db", rows, names=len(cards))]
    for p in spec.paths[1:]:
        sources.append(merge.add_locale(p, read_rows(p)))
    for p in spec.aliases:
        pairs = read_alias_pairs(p)
        for msg in pairs.skipped[:5]:
            log.warning(msg)
        info = merge.add_aliases(str(p), pairs.pairs)
        info.skipped += len(pairs.skipped)
        sources.append(info)
    return CardDatabase(path=primary, cards=merge.finish_cards(), aliases=merge.aliases,
                        names=build_index(merge.names, n_primary), sha256=sha256,
                        is_demo=spec.is_demo, rows=rows, sources=sources, spec=spec)


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
