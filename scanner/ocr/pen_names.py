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

The two readers are independent: the line's name certainty becomes the hand reader's only when
its fused card is the printed reader's card; when they differ the line keeps its old, doubtful
certainty. The count's part (`lines.line_certainty`) is unchanged. Measured on pen-corrected
photos (bench/README.md, "pen lines' certainty").
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from scanner.ocr.engine import Tesseract
from scanner.ocr.hand_names import read_hand_name
from scanner.ocr.names import NameRead, Vocabulary
from scanner.vocab import Reason

if TYPE_CHECKING:
    from scanner.ocr.rows import RowRead

PEN_NAME_DOUBTS = frozenset({Reason.UNCERTAIN_NAME, Reason.AMBIGUOUS_NAME})
"""The printed reader's flags a reading as a hand may weigh (a name it could not resolve at all
stays as it is: there is no card to agree on)."""


def needs_pen_reading(printed: NameRead) -> bool:
    """The printed reader named a card and doubted it (kept for `weigh_pen_names`)."""
    return printed.match.card_id is not None and bool(PEN_NAME_DOUBTS.intersection(printed.flags))


def weigh_pen_names(rows: list["RowRead"], tess: Tesseract, vocab: Vocabulary) -> int:
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
        if hand.read.match.card_id == r.match.card_id:
            r.name_certainty, r.name_agree, r.name_reads = hand.certainty, hand.agree, len(hand.texts)
            r.name_detail = "; ".join(filter(None, [r.name_detail, "read as a hand too: " + hand.read.detail]))
        else:
            r.name_detail = "; ".join(filter(None, [r.name_detail, f"read as a hand: {hand.read.match.name or '?'} "
                                                    f"(not {r.match.name}): {hand.read.detail}"]))
    return n
