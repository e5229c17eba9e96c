"""How sure a card name written by pen on a printed sheet is (issue 35: pen corrections at a glance).

A name written in an empty row of a printed sheet (replacing a struck one) is read by the
printed-name reader: one read, its card by likeness, then the rendering check — which a hand
never passes ("the cell does not look like …": no print font draws a pen), so the line was
flagged `uncertain-name` and its certainty was its read's score × `lines.FLAGGED_NAME` (≤ 0.5):
every such line was marked doubtful (「⚠ 꼭 확인」), right or wrong. The rendering check says
nothing about a hand; the hand reader's evidence does: the cell read `hand_names.HAND_READS`
ways and fused (the reads' likeness, the ink's length, the ink's likeness to the candidates drawn
in pen fonts and their syllables while they are close), with the certainty fitted on written
names (`hand_names.name_certainty`).

The line's name certainty becomes the hand reader's only when its fused card is the printed
reader's card and both clear the printed names' bars (`PenNameTuning`); else the line keeps its
old, doubtful certainty. The count's part (`lines.line_certainty`) is unchanged. Measured on pen-corrected
photos (bench/README.md, "pen lines' certainty").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rapidfuzz.distance import Levenshtein

from card_db.names import jamo, name_key
from scanner.ocr.engine import Tesseract
from scanner.ocr.hand_names import HandName, read_hand_name
from scanner.ocr.names import NameRead, Vocabulary
from scanner.ocr.thresholds import NAME_ACCEPT, NAME_MARGIN
from scanner.vocab import Reason

if TYPE_CHECKING:
    from scanner.ocr.rows import RowRead


@dataclass(frozen=True)
class PenNameTuning:
    """When the hand reading's certainty stands for a pen-written name. The hand reader's
    certainty (`hand_names.name_certainty`) was fitted on forms whose written card is in the
    database; read with the written card taken out of it (the reader can then only name a
    wrong card), lines it put at 0.998-0.999 were wrong: a read that spells another card
    exactly (`말살의 지명자` taken for 무덤의 지명자, printed 0.69, fused 0.64) and a near
    namesake (`엘리멘틀 히어로 에어맨` taken for …네오스, printed 0.77 with a rival 0.01 behind,
    fused 0.88, lead 0.08). So both readers must clear the printed names' own bars (less the
    rendering check no hand passes): on the tuning sets' 18 right written-in lines the least
    printed score was 0.82, fused 0.86, fused lead 0.17."""

    printed: float = NAME_ACCEPT
    """Least score of the printed reader's one read to the card."""
    fused: float = NAME_ACCEPT
    """Least fused likeness of the hand reading (`hand_names.fuse`)."""
    lead: float = NAME_MARGIN
    """Least lead of the hand reading's card over its next."""
    agree: int = 2
    """Least number of the hand reading's reads naming the card as their own best."""
    edits: int = 2
    """Most jamo edits from the nearest of the reads to the card's name. With the written card
    out of the database, a namesake a syllable off still cleared every bar above (tuning set
    3802: `푸른 눈의 백료` | `푸른 눈의 백로` taken for 푸른 눈의 아백룡, printed 0.91, fused 0.84,
    lead 0.33): the reads say something the card is not (3 edits off). The tuning sets' right
    lines: 0 or 1 edit; the bound lies between."""


PEN = PenNameTuning()

PEN_NAME_DOUBTS = frozenset({Reason.UNCERTAIN_NAME, Reason.AMBIGUOUS_NAME})
"""The printed reader's flags a reading as a hand may weigh (a name it could not resolve at all
stays as it is: there is no card to agree on)."""


def needs_pen_reading(printed: NameRead) -> bool:
    """The printed reader named a card and doubted it (kept for `weigh_pen_names`)."""
    return printed.match.card_id is not None and bool(PEN_NAME_DOUBTS.intersection(printed.flags))


def supported(printed_score: float, hand: HandName, tuning: PenNameTuning = PEN) -> list[str]:
    """What keeps the hand reading's certainty from standing for the line (empty: nothing)."""
    m = hand.read.match
    short = []
    if printed_score < tuning.printed:
        short.append(f"printed read {printed_score:.2f}")
    if m.score < tuning.fused:
        short.append(f"fused {m.score:.2f}")
    if m.margin < tuning.lead:
        short.append(f"lead {m.margin:.2f}")
    if hand.agree < tuning.agree:
        short.append(f"{hand.agree} reads agree")
    edits = nearest_read(hand)
    if edits > tuning.edits:
        short.append(f"nearest read {edits} jamo off")
    return short


def nearest_read(hand: HandName) -> int:
    """Jamo edits from the nearest of the hand reading's reads to its card's name."""
    card = jamo(name_key(hand.read.match.name))
    keys = [jamo(name_key(t)) for t in hand.texts if name_key(t)]
    return min((Levenshtein.distance(k, card) for k in keys), default=len(card))


def weigh_pen_names(rows: list["RowRead"], tess: Tesseract, vocab: Vocabulary,
                    tuning: PenNameTuning = PEN) -> int:
    """The column's rows written by pen (a line in an empty row: `handwritten`, no count
    corrected, not struck) whose printed reading doubted its card: read again as a hand; when
    its fused card is the same, the line's name certainty is the hand reader's. Every kept cell
    is dropped. How many were weighed."""
    n = 0
    for r in rows:
        cell, r.pen_cell = r.pen_cell, None
        if (cell is None or not r.handwritten or r.struck_row or r.count_struck
                or r.name_certainty is not None or r.match.card_id is None):
            continue
        printed = NameRead(r.text, r.text_conf, r.match, list(r.flags))
        hand = read_hand_name(cell[0], r.column, tess, vocab, cell[1], first=printed)
        n += 1
        short = supported(r.match.score, hand, tuning)
        if hand.read.match.card_id == r.match.card_id and not short:
            r.name_certainty, r.name_agree, r.name_reads = hand.certainty, hand.agree, len(hand.texts)
            r.name_detail = "; ".join(filter(None, [r.name_detail, "read as a hand too: " + hand.read.detail]))
        elif hand.read.match.card_id == r.match.card_id:
            r.name_detail = "; ".join(filter(None, [r.name_detail, f"read as a hand: {hand.read.detail}; "
                                                    "not sure by it: " + ", ".join(short)]))
        else:
            r.name_detail = "; ".join(filter(None, [r.name_detail, f"read as a hand: {hand.read.match.name or '?'} "
                                                    f"(not {r.match.name}): {hand.read.detail}"]))
    return n
