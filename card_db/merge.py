"""Further sources folded into the first database: other locales' names, alternate-art rows and
cards, and alias pairs (CSV or cdb)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from card_db.aliases import ALIAS_WINDOW
from card_db.models import Card
from card_db.names import NameIndex


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


def build_index(names: list[tuple[int, str]], n_primary: int) -> NameIndex:
    """One index over every name; a further locale's name equal to an earlier one is left out."""
    unique = list(dict.fromkeys(names))
    first = len(dict.fromkeys(names[:n_primary]))
    return NameIndex.build(unique, secondary_from=first if len(unique) > first else None)


@dataclass
class Merge:
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
