"""Card-name normal forms and a Hangul-aware fuzzy index (rapidfuzz).

Printed and OCR-read names differ from `texts.name` in spacing, hyphen/colon/at-sign width,
quote marks, middle dots and Latin case. `name_key` removes all of that, so exact lookup
survives it. Fuzzy lookup compares names decomposed into jamo (Unicode NFD), so one wrong
jamo (ㅓ/ㅕ, 받침) costs less than a wrong syllable.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Iterable

from rapidfuzz import fuzz, process

# Marks that name the same thing however they are printed; removed from keys altogether.
_DROP = set("「」『』[]()（）〈〉《》<>\"'`´‘’“”")


def name_key(text: str) -> str:
    """Normal form for exact matching: NFKC, case-folded, only letters and digits.

    NFKC folds fullwidth forms (－：＠＝) onto ASCII; then every space, hyphen, colon, dot,
    middle dot (·/・), quote and bracket is dropped.
    """
    t = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in t if ch.isalnum() and ch not in _DROP)


def jamo(text: str) -> str:
    """Decompose Hangul syllables into conjoining jamo (initial/medial/final stay distinct)."""
    return unicodedata.normalize("NFD", text)


def display_key(text: str) -> str:
    """Lighter normal form for showing what was compared: NFKC and single spaces."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


@dataclass
class NameIndex:
    """Exact and fuzzy lookup over the names of one card database."""

    ids: list[int]
    """card_id per indexed name (same order as `keys`/`jamo_keys`)."""
    keys: list[str]
    jamo_keys: list[str]
    exact_map: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def build(cls, items: Iterable[tuple[int, str]]) -> "NameIndex":
        ids: list[int] = []
        keys: list[str] = []
        jkeys: list[str] = []
        exact: dict[str, list[int]] = {}
        for cid, name in items:
            k = name_key(name)
            if not k:
                continue
            ids.append(cid)
            keys.append(k)
            jkeys.append(jamo(k))
            bucket = exact.setdefault(k, [])
            if cid not in bucket:
                bucket.append(cid)
        return cls(ids=ids, keys=keys, jamo_keys=jkeys, exact_map=exact)

    def exact(self, text: str) -> int | None:
        """card_id whose name equals `text` up to the normal form; None if none or ambiguous."""
        hits = self.exact_map.get(name_key(text))
        if hits and len(hits) == 1:
            return hits[0]
        return None

    def exact_all(self, text: str) -> list[int]:
        return list(self.exact_map.get(name_key(text), []))

    def search(self, text: str, limit: int = 5) -> list[tuple[int, float]]:
        """Ranked (card_id, score 0..1) for a name as read. Exact key matches score 1.0."""
        key = name_key(text)
        if not key:
            return []
        out: list[tuple[int, float]] = [(cid, 1.0) for cid in self.exact_map.get(key, [])]
        seen = {cid for cid, _ in out}
        if len(out) >= limit:
            return out[:limit]
        jq = jamo(key)
        # Over-fetch: several names may share a card id only in odd databases, and callers
        # need the runner-up to judge ambiguity.
        hits = process.extract(jq, self.jamo_keys, scorer=fuzz.ratio, limit=limit + len(out) + 2,
                               score_cutoff=20)
        for _, score, idx in hits:
            cid = self.ids[idx]
            if cid in seen:
                continue
            seen.add(cid)
            out.append((cid, round(score / 100.0, 4)))
            if len(out) >= limit:
                break
        return out
