"""Written card names wholly in Latin letters (`SPYRAL RESORT`, `Gorgonic Umbral Horror`, `EXP`),
read by Tesseract `eng` when the reads of `kor` leave the line in doubt.

`kor` writes a hand's Latin letters as near-misses of Hangul or of other Latin names, and the
jamo likeness of those reads points to whichever card is near them (`Thousand Umbral Horror` for
`Gorgonic Umbral Horror`, `Sleepy Scapegoats` for `SPYRAL RESORT`). `eng` reads the same ink's
letters nearly right (`Gi ganic Umbra} Horror`, `EPYRAL RESORT`), and the column's names written
in Latin letters alone are few: the one whose letters are clearly like `eng`'s read is put first.

Only an order: the card put first is scored by the reads, `eng`'s among them (`kor`'s alone hold
nearly nothing of its letters, and would leave it below `HAND_GUESS`: no card), and leads by
nothing, so the line stays flagged for the judge (`evidence.py` wants a lead).

Names that begin in Latin letters and go on in Hangul (`SPYRAL GEAR－드론`, `No.101 …`, `S－Force …`):
`kor` garbles the prefix, and the reads' likeness points to a card sharing the Hangul but not the
prefix, or none of it. `eng`'s read of the same ink begins with the prefix nearly right; many
cards share each prefix, so those of the prefix `eng` read are ranked by the likeness of their
Hangul rest to the `kor` reads' (`prefix_card`), and the best is put first (only an order, as above)
when it is clearly the best of them and no less like the reads' Hangul than the line's first.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process

from card_db.names import jamo, name_key
from scanner.ocr.names import NameMatch, Vocabulary


@dataclass(frozen=True)
class HandLatinTuning:
    """When `eng` reads a written name, and how like a Latin card's its read must be.

    Chosen on the tuning sets' reads (3502, 3504, 3505; 770 written lines, `eng` on each line's
    ink): a column's Latin-only name at least 0.8 like the read (letters and digits, case folded)
    was the written card 19 of 19 times; the best below, 0.75, was a Hangul name read as `Re:EX`,
    and from 0.7 down most were Hangul names. Bench (8 forms each): 3504 244 → 245 of 267
    (`SPYRAL RESORT`), 3505 222 → 223 of 253 (`EXP`), 3502 240 of 250 unchanged; accepted wrong 0,
    silent 0, the lines accepted unchanged."""

    doubt_lead: float = 0.08
    """`eng` reads the ink only when the fused match leads by less than this (`InkTuning.doubt_lead`:
    the lines whose reads were in doubt; a read costs ≈13 ms)."""
    sure: float = 0.8
    """A Latin-only name at least this like the read (`fuzz.ratio` / 100) is put first."""
    least_chars: int = 3
    """Reads of fewer letters and digits than this name nothing (anything is like them)."""
    pad: int = 12
    """White pixels around the ink handed to `eng` (it misreads letters touching the image's edge)."""


HAND_LATIN = HandLatinTuning()


@dataclass(frozen=True)
class LatinPrefixTuning:
    """When `eng`'s read names a Latin prefix, and when a card of it is put first (`prefix_card`).

    Chosen on the tuning sets' doubtful written lines (3502, 3504, 3505, 3506, offline on their
    dumps): with a prefix at least 0.8 like the read's start, its best card at least 0.4 like the
    reads' Hangul and 0.1 ahead of the prefix's next, 3 lines came right (`SPYRAL GEAR－드론`,
    `S－Force 소트 월드`, `No.101 사일런트 아너즈 아크 나이트` for `CNo.101 …`) and none went wrong;
    prefixes read 0.67 alike (`RUM` for `HRUM`'s `WRU`, `SR` for `Sr vine`) turned 8 right lines
    wrong, a one-syllable rest (`Ai－보`) one. 3507 and 3508 (238 doubtful lines in all with `eng`'s
    read, 0.3 ms each) changed nothing either way. Bench 3506 (8 forms, the page's pass leaving such a
    card first, `FuseParts.eng_first`): 232 → 233 of 260, accepted wrong 0, silent 0."""

    prefix_like: float = 0.8
    """The prefix (its letters and digits) at least this like as many of the read's first ones."""
    least_chars: int = 2
    """Shorter prefixes (`D－`, `A·`, `W`) name nothing: one letter of a read is like too many."""
    least_syllables: int = 2
    """Cards of a shorter Hangul rest (`Ai－보`) are not ranked: one syllable is like some end of
    most reads."""
    rest_like: float = 0.4
    """The card's Hangul rest at least this like the reads' Hangul (`rest_likeness`)…"""
    rest_gap: float = 0.1
    """…ahead of the next card of the prefixes read by this…"""
    over_first: float = 0.02
    """…and ahead of the line's first card's Hangul by this."""


HAND_PREFIX = LatinPrefixTuning()

_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
_KEEP = re.compile("[^A-Z0-9]")
_SYLLABLE = re.compile("[\uac00-\ud7a3]")


def latin_key(text: str) -> str:
    """A name or read as compared: its letters and digits, case folded."""
    return _KEEP.sub("", text.upper())


def latin_names(vocab: Vocabulary, column: str, tuning: HandLatinTuning = HAND_LATIN) -> dict[int, str]:
    """The column's cards whose name holds no Hangul, by card, as `latin_key` (kept in the
    vocabulary, `Vocabulary.latin_only`)."""
    got = vocab.latin_only.get(column)
    if got is None:
        ids, _ = vocab.by_column.get(column) or vocab.by_column["side"]
        got = {c: k for c in ids if not _HANGUL.search(vocab.names[c])
               and len(k := latin_key(vocab.names[c])) >= tuning.least_chars}
        vocab.latin_only[column] = got
    return got


def latin_card(text: str, column: str, vocab: Vocabulary, tuning: HandLatinTuning = HAND_LATIN) -> int | None:
    """The column's Latin-only card `eng`'s read `text` names (at least `sure` like it), or None."""
    key = latin_key(text)
    if len(key) < tuning.least_chars:
        return None
    best = process.extractOne(key, latin_names(vocab, column, tuning), scorer=fuzz.ratio,
                              score_cutoff=100.0 * tuning.sure)
    return int(best[2]) if best is not None else None


def prefixed_names(vocab: Vocabulary, column: str,
                   tuning: LatinPrefixTuning = HAND_PREFIX) -> dict[str, list[tuple[int, str]]]:
    """The column's names that begin in Latin letters and go on in Hangul: prefix (`latin_key` of
    all before the first syllable) → its cards with their Hangul rest's jamo (kept in the
    vocabulary, `Vocabulary.latin_prefixed`)."""
    got = vocab.latin_prefixed.get(column)
    if got is None:
        ids, _ = vocab.by_column.get(column) or vocab.by_column["side"]
        got = {}
        for c in ids:
            name = vocab.names[c]
            m = _SYLLABLE.search(name)
            if m is None or not name[:1].isascii() or not name[:1].isalpha():
                continue
            prefix = latin_key(name[:m.start()])
            rest = name[m.start():]
            if len(prefix) >= tuning.least_chars and len(_SYLLABLE.findall(rest)) >= tuning.least_syllables:
                got.setdefault(prefix, []).append((c, jamo(name_key(rest))))
        vocab.latin_prefixed[column] = got
    return got


def hangul_rest(key: str) -> str:
    """A name's or read's jamo from its first Hangul syllable on (all of it without one)."""
    text = unicodedata.normalize("NFC", key)
    m = _SYLLABLE.search(text)
    return jamo(text[m.start():]) if m else jamo(text)


def rest_likeness(rest: str, reads: list[str]) -> float:
    """How like a card's Hangul rest (jamo) the reads' Hangul are, 0..1: each read's from its first
    syllable on, or its end as long as the rest (`kor` writes a Latin prefix as Hangul too)."""
    if not reads:
        return 0.0
    return float(sum(max(fuzz.ratio(rest, r), fuzz.ratio(rest, r[-len(rest):]) if r else 0.0)
                     for r in reads)) / (100.0 * len(reads))


def prefix_card(text: str, keys: list[str], first: int, column: str, vocab: Vocabulary,
                tuning: LatinPrefixTuning = HAND_PREFIX) -> int | None:
    """The card of a Latin prefix `eng`'s read `text` begins with whose Hangul rest the `kor`
    reads (`keys`: their jamo) are clearly likest to, and no less than to the line's `first`
    card's (`LatinPrefixTuning`), or None."""
    key = latin_key(text)
    if len(key) < tuning.least_chars:
        return None
    cards = [cr for prefix, got in prefixed_names(vocab, column, tuning).items()
             if fuzz.ratio(prefix, key[:len(prefix)]) >= 100.0 * tuning.prefix_like for cr in got]
    if not cards:
        return None
    reads = [hangul_rest(k) for k in keys]
    ranked = sorted(((rest_likeness(rest, reads), c) for c, rest in cards), key=lambda x: (-x[0], x[1]))
    best, card = ranked[0]
    second = ranked[1][0] if len(ranked) > 1 else 0.0
    now = rest_likeness(hangul_rest(jamo(name_key(vocab.names[first]))), reads)
    if best < tuning.rest_like or best - second < tuning.rest_gap or best - now < tuning.over_first:
        return None
    return card


def eng_ink(ink: np.ndarray, tuning: HandLatinTuning = HAND_LATIN) -> np.ndarray:
    """The written name's grey ink as `eng` is given it (white around it)."""
    return np.pad(ink, tuning.pad, constant_values=255)


def put_first(match: NameMatch, card: int, score: float, vocab: Vocabulary) -> NameMatch:
    """`match` with `card` first at its own (reads') `score`, leading by nothing (only an order)."""
    rest = [c for c in match.candidates if c[0] != card]
    return NameMatch(card, vocab.names[card], score, 0.0, [(card, vocab.names[card], score)] + rest)
