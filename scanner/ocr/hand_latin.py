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
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process

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

_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
_KEEP = re.compile("[^A-Z0-9]")


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


def eng_ink(ink: np.ndarray, tuning: HandLatinTuning = HAND_LATIN) -> np.ndarray:
    """The written name's grey ink as `eng` is given it (white around it)."""
    return np.pad(ink, tuning.pad, constant_values=255)


def put_first(match: NameMatch, card: int, score: float, vocab: Vocabulary) -> NameMatch:
    """`match` with `card` first at its own (reads') `score`, leading by nothing (only an order)."""
    rest = [c for c in match.candidates if c[0] != card]
    return NameMatch(card, vocab.names[card], score, 0.0, [(card, vocab.names[card], score)] + rest)
