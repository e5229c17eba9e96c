"""How doubtful a flagged line is, and the order the review page lists lines in (issue 35: one
glance per sheet, the doubtful lines first and marked).

One place decides both: the line's own `doubt` (0..1) when the reader gives one, else what its
confidence and its review reasons say. A doubtful line is not confirmed by the page's one tap
for the lines as read: the judge ticks it (or fixes it) on its own.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from scanner.vocab import SECTIONS, Reason

RETAKE_ADVICE = "시트 전체가 화면에 들어오게, 정면에서, 그림자 없이 밝은 곳에서 다시 찍어 주십시오"
"""What the retake box asks of the next photo (angle, light, the whole page in frame)."""
DOUBTFUL = 0.5
"""A line whose doubt (the reader's own) reaches this is doubtful."""
CERTAIN = 0.8
"""A line whose reader's `certainty` is below this is doubtful (held-out hand-filled forms: 23 of
the 90 lines under it were wrong, 13 of the 295 at or above it)."""
LOW_CONFIDENCE_DOUBT = 0.8
"""Without the reader's doubt: a confidence of 0.2 or less is doubtful (on generated hand-filled
forms the lines read wrong had 0.0–0.24, most right ones 0.25–0.5)."""
STRONG_DOUBTS = frozenset({
    Reason.UNRESOLVED_NAME, Reason.AMBIGUOUS_NAME, Reason.NAME_MISSING,
    Reason.NAME_PASSCODE_DISAGREE, Reason.UNKNOWN_PASSCODE, Reason.NAME_OR_COUNT,
    Reason.COUNT_IN_NAME, Reason.COUNT_UNCLEAR, Reason.COUNT_MISSING, Reason.COUNT_AMBIGUOUS,
    Reason.COUNT_IMPLAUSIBLE, Reason.STRUCK_THROUGH, Reason.POSSIBLE_STRIKE, Reason.MERGED_ROWS,
    Reason.UNREADABLE_LINE, Reason.NAME_LANGUAGE_NOT_LOADED})
"""Reasons that say the reader's card or count is a guess (without a `doubt` of the reader's
own): such a line is doubtful whatever its confidence."""


def repeated_cards(sections: dict) -> set[tuple[str, int]]:
    """(section, card) read on more than one line of a section: a sheet lists a card once, so
    one of those lines is likely another card the reader took for it."""
    out: set[tuple[str, int]] = set()
    for section, items in (sections or {}).items():
        seen: set[int] = set()
        for item in items or []:
            card = item.get("card_id") if isinstance(item, dict) else None
            if card is not None:
                (out.add((section, card)) if card in seen else seen.add(card))
    return out


def line_doubt(item: dict, repeated: bool = False) -> tuple[float, bool]:
    """(doubt 0..1, doubtful) of one line of the stored read (`Entry.to_json()`, with the
    reader's `doubt` when it gives one); `repeated`: its card is on another line too."""
    card, count = item.get("card_id"), item.get("count")
    must_look = card is None or not isinstance(count, int) or not 1 <= count <= 3 or repeated
    raw = item.get("doubt")
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        doubt = min(1.0, max(0.0, float(raw)))
        return doubt, must_look or doubt >= DOUBTFUL
    sure = item.get("certainty")  # the OCR reader's own estimate that card and count are right
    if isinstance(sure, (int, float)) and not isinstance(sure, bool):
        doubt = min(1.0, max(0.0, 1.0 - float(sure)))
        return doubt, must_look or float(sure) < CERTAIN
    try:
        confidence = float(item.get("confidence", 1.0))
    except (TypeError, ValueError):
        confidence = 0.0
    doubt = min(1.0, max(0.0, 1.0 - confidence))
    strong = bool(STRONG_DOUBTS.intersection(item.get("reasons") or []))
    if strong or must_look:
        doubt = max(doubt, DOUBTFUL)
    return doubt, must_look or strong or doubt >= LOW_CONFIDENCE_DOUBT


class _Line(Protocol):
    section: str
    line: int
    doubt: float
    doubtful: bool


def glance_order(lines: Iterable[_Line]) -> list:
    """The review list's order: doubtful lines first, the most doubtful first; then sheet order
    (section, line)."""
    order: Sequence[str] = tuple(SECTIONS)
    return sorted(lines, key=lambda lv: (not lv.doubtful, -round(lv.doubt, 3),
                                         order.index(lv.section) if lv.section in order else 9,
                                         lv.line))
