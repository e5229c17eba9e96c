"""A line written by hand accepted without review when its evidence is conclusive (issue 35).

On a form filled by hand every written line is flagged 'handwritten' for the judge to compare
with the paper. Most of them the reader already knows: this module lets a written line through
unflagged only when every piece of evidence the sheet gives agrees:

- the name: read several ways (`hand_names.HAND_READS`), most reads name the same card as their
  own best, the fused likeness of the reads (ink likeness of the rendered name included) is
  high, and the card leads the next one (no 'ambiguous-name');
- the count: its own odds (`counts.read_hand_count`), before any total raised them, are sure;
- the column: the form's total for the line's column adds up with the column's lines
  (`totals.cross_check_totals` 'confirmed': a total written by the player, or printed);
- together: the line's certainty (name × count, `lines.line_certainty`) is at least
  `EvidenceTuning.certainty`;
- and the line has no other flag (a strike, an unclear or corrected count, merged rows, a total
  that disagrees...).

Any one missing keeps the line flagged as before. Pen-corrected printed sheets are not touched:
a pen line there is read by the printed-name reader (no several reads) and the printed totals
are from before the correction (they cannot confirm the new line).
"""
from __future__ import annotations

from dataclasses import dataclass

from scanner.model import SheetRead
from scanner.ocr.lines import line_certainty
from scanner.ocr.rows import RowRead
from scanner.vocab import Reason


@dataclass(frozen=True)
class EvidenceTuning:
    """What conclusive is. Chosen on the tuning faces (seeds 3502, 3504): the wrong written lines
    there had line certainty ≤ 0.92 and, for a wrong card, fused likeness ≤ 0.55 — each bound
    alone kept every wrong line flagged; they are used together, with the reads' majority and
    the column total, so that one misleading piece of evidence is not enough."""

    certainty: float = 0.98
    """Least line certainty (name × count)."""
    fused: float = 0.6
    """Least fused likeness of the written name's reads to the card (`hand_names.fuse`)."""
    agree: int = 2
    """Least number of reads naming the card as their own best."""
    count_odds: float = 0.98
    """Least odds of the count's value by the count's own reading (not raised by a total)."""


EVIDENCE = EvidenceTuning()

ACCEPTABLE_FLAGS = frozenset({Reason.HANDWRITTEN, Reason.UNCERTAIN_NAME})
"""The flags a conclusive line may carry: that it is written, and that its fused similarity is
below the printed-name bar (`NAME_ACCEPT`, set for print; handwriting is weighed here instead)."""


def conclusive(r: RowRead, verdict: str | None, certainty: float, tuning: EvidenceTuning = EVIDENCE) -> str:
    """Why the written line `r` needs no review (a short text of its evidence), or '' when
    some evidence is missing or short. `verdict`: its column's total check
    (`totals.cross_check_totals`); `certainty`: the line's (`lines.line_certainty`)."""
    if not r.handwritten or r.struck_row or r.count_struck or r.name_certainty is None:
        return ""
    if r.match.card_id is None or not set(r.flags) <= ACCEPTABLE_FLAGS:
        return ""
    if verdict != "confirmed" or r.count not in r.count_odds:
        return ""
    odds = r.count_odds[r.count]
    if (certainty < tuning.certainty or r.match.score < tuning.fused or r.name_agree < tuning.agree
            or odds < tuning.count_odds):
        return ""
    return (f"{r.name_agree} of {r.name_reads} reads, fused {r.match.score:.2f}, count {odds:.2f}, "
            f"{r.column} total agrees, certainty {certainty:.3f}")


def accept_on_evidence(rows: list[RowRead], verdicts: dict[str, str], sheet: SheetRead,
                       tuning: EvidenceTuning = EVIDENCE) -> int:
    """Written lines whose evidence is conclusive lose their flags (they stay `handwritten`
    rows: the page is still known to be written); how many, noted on the sheet."""
    accepted = []
    # a column with a pen correction: its total may be from before it (it confirms nothing new)
    corrected = {r.column for r in rows if r.struck_row or r.count_struck}
    for r in rows:
        verdict = None if r.column in corrected else verdicts.get(r.column)
        why = conclusive(r, verdict, line_certainty(r, r.match.card_id), tuning)
        if why:
            r.accepted = why
            r.flags = []
            accepted.append(r)
    if accepted:
        sheet.notes.append(f"{len(accepted)} written lines accepted on evidence (several reads agree, "
                           f"count sure, column total agrees): "
                           + ", ".join(f"{r.column} {r.row}" for r in accepted))
    return len(accepted)
