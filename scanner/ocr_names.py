"""OCR text of a name cell → a card, by closed-vocabulary matching.

The Debian `kor` model knows ~1,076 Hangul syllables and no Latin letters, so many names can
never be read exactly: the OCR text is evidence, matched against the names the column can hold
(monster column → main-deck monsters, extra → fusion/synchro/xyz/link, side → any card) with
the jamo (NFD) ratio, so one wrong jamo costs less than a wrong syllable. A match stands
unflagged only with a high score AND a clear lead over the runner-up.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from card_db.cdb import CardDatabase
from card_db.names import jamo, name_key

COLUMN_KINDS = ("monster", "spell", "trap", "extra", "side")


@dataclass
class NameMatch:
    card_id: int | None
    name: str
    score: float
    """Best candidate's similarity, 0..1."""
    margin: float
    """Lead of the best candidate over the runner-up (1.0 when there is none)."""
    candidates: list[tuple[int, str, float]] = field(default_factory=list)


@dataclass
class Vocabulary:
    """Jamo keys of the card names, per sheet column (built once per read)."""

    by_column: dict[str, tuple[list[int], list[str]]]
    """column → (card_ids, jamo keys) in the same order."""
    names: dict[int, str]

    @classmethod
    def build(cls, db: CardDatabase) -> "Vocabulary":
        cols: dict[str, tuple[list[int], list[str]]] = {c: ([], []) for c in COLUMN_KINDS}
        names: dict[int, str] = {}
        for cid, card in db.cards.items():
            key = name_key(card.name)
            if not key or card.is_token:
                continue
            names[cid] = card.name
            jk = jamo(key)
            column = "extra" if card.is_extra_deck else card.kind.value
            for c in (column, "side"):
                cols[c][0].append(cid)
                cols[c][1].append(jk)
        return cls(by_column=cols, names=names)

    def match(self, text: str, column: str, limit: int = 5) -> NameMatch:
        key = name_key(text)
        if not key:
            return NameMatch(None, "", 0.0, 0.0)
        ids, choices = self.by_column.get(column) or self.by_column["side"]
        hits = process.extract(jamo(key), choices, scorer=fuzz.ratio, limit=limit * 2)
        cands: list[tuple[int, str, float]] = []
        seen: set[int] = set()
        for _, score, idx in hits:
            cid = ids[idx]
            if cid in seen:
                continue
            seen.add(cid)
            cands.append((cid, self.names[cid], score / 100.0))
            if len(cands) >= limit:
                break
        if not cands:
            return NameMatch(None, "", 0.0, 0.0)
        best = cands[0]
        margin = best[2] - cands[1][2] if len(cands) > 1 else 1.0
        return NameMatch(best[0], best[1], best[2], margin, cands)
