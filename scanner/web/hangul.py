"""Roster search the way Korean judges type on a phone: `ㄱㅎㄴ` finds 김하늘."""
from __future__ import annotations

import re
import unicodedata

_CHOSEONG = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
_SYLLABLE_FIRST, _SYLLABLE_LAST = 0xAC00, 0xD7A3


def initials(text: str) -> str:
    """Each Hangul syllable's initial consonant; other characters kept (lower-cased)."""
    out = []
    for ch in text:
        code = ord(ch)
        if _SYLLABLE_FIRST <= code <= _SYLLABLE_LAST:
            out.append(_CHOSEONG[(code - _SYLLABLE_FIRST) // 588])
        else:
            out.append(ch.lower())
    return "".join(out)


def _squash(text: str) -> str:
    # NFC (not NFKC: that would turn the typed initials ㄱㅎㄴ into conjoining jamo) composes a
    # decomposed name; invisible format and control characters are dropped, as roster names'.
    text = "".join(ch for ch in unicodedata.normalize("NFC", text)
                   if unicodedata.category(ch) not in ("Cf", "Cc"))
    return re.sub(r"[\s\-]", "", text).lower()


MAX_QUERY = 100
"""Characters of a search worth looking at: no name or ID is longer (records.MAX_NAME), so a
longer query finds no one, and is not compared with every player (3,000 「ㄱ」 against 10,000
players took 43 s when each comparison normalised the whole query again)."""


class PlayerQuery:
    """A roster search typed once and compared with many players: the query is normalised
    here, once, and `matches` costs at most the length of one player's name."""

    def __init__(self, query: str) -> None:
        self.too_long = len(query) > 4 * MAX_QUERY  # before any normalising work
        self.q = "" if self.too_long else _squash(query)
        self.too_long = self.too_long or len(self.q) > MAX_QUERY

    def matches(self, name: str, konami_id: str, table_no: str | None) -> bool:
        """True when the query finds this player: part of the name, its initial consonants (a
        query of jamo initials, or syllables and initials mixed, 김ㅎㄴ), the table number
        (exact; 1-3 digits are only a table) or 4+ digits of the ID (dashes ignored)."""
        q = self.q
        if self.too_long:
            return False
        if not q:
            return True
        if q.isdigit():
            # 1-3 digits is a table number; 4 or more, part of a Konami ID (or a big table number).
            at_table = table_no is not None and q == _squash(table_no)
            return at_table or (len(q) >= 4 and q in konami_id)
        n = _squash(name)
        if len(q) > len(n):
            return False
        if q in n:
            return True
        # Mixed query: each query character matches the syllable or its initial at that position.
        ni = initials(n)
        for start in range(len(n) - len(q) + 1):
            if all(qc == n[start + i] or qc == ni[start + i] for i, qc in enumerate(q)):
                return True
        return False


def matches(query: str, name: str, konami_id: str, table_no: str | None) -> bool:
    """`PlayerQuery(query).matches(...)` for one player (compile the query once for many)."""
    return PlayerQuery(query).matches(name, konami_id, table_no)


def one_syllable_apart(a: str | None, b: str | None) -> bool:
    """Two names (spaces ignored) of the same length that differ in exactly one character: what
    an OCR misread of a printed player name looks like (용지우 read 용기우, 최연서 read 최던서)."""
    x, y = _squash(a or ""), _squash(b or "")
    return len(x) == len(y) > 1 and sum(c != d for c, d in zip(x, y)) == 1
