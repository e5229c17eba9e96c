"""`RowRead` → what the sheet reports: a `ReadLine`, or for a struck row a review item."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from scanner.model import ReadLine, ReviewFlag, position_label
from scanner.ocr.crops import save_crop
from scanner.ocr.grid import Grid
from scanner.ocr.page import PageImage
from scanner.ocr.rows import RowRead
from scanner.ocr.thresholds import NAME_ACCEPT, NAME_GUESS
from scanner.vocab import SECTION_OF, Reason

if TYPE_CHECKING:
    from scanner.inputs.options import ReadOptions


def to_read_line(r: RowRead, grid: Grid, page: PageImage, options: "ReadOptions", label: str
                 ) -> ReadLine:
    m = r.match
    # (a name written by hand: its reads' fused best, whatever the score, `hand_names.HAND_GUESS`)
    card_id = m.card_id if m.score >= NAME_GUESS or r.name_certainty is not None else None
    flags = list(dict.fromkeys(r.flags))
    detail_parts = []
    if m.candidates and flags:
        detail_parts.append("candidates: " + ", ".join(f"{n} ({s:.2f})" for _, n, s in m.candidates[:3]))
    if r.name_detail and flags:
        detail_parts.append(r.name_detail)
    if r.count_detail and any(f.startswith("count") or f == Reason.COLUMN_TOTAL_MISMATCH for f in flags):
        detail_parts.append(f"count: {r.count_detail}")
    line = ReadLine(section=SECTION_OF[r.column], text=m.name if card_id else r.text,
                    count=r.count, column=r.column, row=r.row, card_id=card_id,
                    text_confidence=r.text_conf, count_text=str(r.count) if r.count is not None else "",
                    flags=flags, detail="; ".join(detail_parts),
                    confidence=round(min(m.score, 1.0) * (1.0 if not flags else 0.5), 3),
                    alternatives=[r.text] if r.text and card_id else [], seen=r.text,
                    certainty=line_certainty(r, card_id) if flags or r.accepted else None)
    if options.crops_dir and flags:
        line.crop = save_crop(Path(options.crops_dir), label, r.column, r.row, grid, page)
    return line


FIRST_ATTEMPT = "as-cut: kor"
"""The name reader's plain path (`names.NAME_ATTEMPTS`' first attempt, `kor` alone)."""


def attempts_note(rows: list[RowRead]) -> str:
    """Which attempt decided each name, for the sheet's notes: how many names each attempt
    decided, and where, for every attempt past the plain path (`names.NAME_ATTEMPTS`)."""
    by: dict[str, list[RowRead]] = {}
    for r in rows:
        by.setdefault(r.name_attempt or "?", []).append(r)
    parts = []
    for attempt, got in sorted(by.items(), key=lambda kv: (kv[0] != FIRST_ATTEMPT, -len(kv[1]), kv[0])):
        where = "" if attempt == FIRST_ATTEMPT else " (" + ", ".join(f"{r.column} {r.row}" for r in got) + ")"
        parts.append(f"{attempt} {len(got)}{where}")
    return "names decided by: " + "; ".join(parts)


NAME_DOUBTS = frozenset({Reason.UNRESOLVED_NAME, Reason.UNCERTAIN_NAME, Reason.AMBIGUOUS_NAME})
FLAGGED_NAME = 0.5
"""A printed name the reader flagged is right about as often as not (its certainty's name part
is its match score times this)."""


def line_certainty(r: RowRead, card_id: int | None) -> float:
    """How likely the line's card and count are right: the name's part (a written name: its
    reads' agreement, `hand_names.name_certainty`; a printed one: 1 when it stands, its match
    score × FLAGGED_NAME when flagged) times the count's (its confidence; a count written by
    hand: its odds, `counts.read_hand_count`, raised when the column's total confirms it)."""
    if card_id is None:
        return 0.0
    if r.name_certainty is not None:
        name = r.name_certainty
    elif NAME_DOUBTS.intersection(r.flags):
        name = min(r.match.score, 1.0) * FLAGGED_NAME
    else:
        name = 1.0
    count = 0.0 if r.count is None else max(0.0, min(1.0, r.count_conf))
    return round(name * count, 3)


def struck_review(r: RowRead, grid: Grid, page: PageImage, options: "ReadOptions", label: str
                  ) -> ReviewFlag:
    """A struck-through printed line leaves the deck; the judge still sees what was struck.

    It names no line and no card_id (the card is not in the deck; a card_id would flag another
    line of the same card), so it is a sheet-level review item."""
    m = r.match
    if m.card_id is not None and m.score >= NAME_ACCEPT:
        name = f"{m.name} [{m.card_id}]"
    elif m.card_id is not None and m.score >= NAME_GUESS:  # the pen line garbles the read
        name = f"{r.text!r} (maybe {m.name} [{m.card_id}])"
    else:
        name = repr(r.text) if r.text else "?"
    count = r.count_old if r.count_struck else r.count
    detail = (f"{r.column} row {r.row}: printed line struck through, left out of the deck: "
              f"{name} ×{count if count in (1, 2, 3) else '?'}")
    if options.crops_dir:
        crop = save_crop(Path(options.crops_dir), label, r.column, r.row, grid, page)
        if crop:
            detail += f"; crop {crop}"
    return ReviewFlag(section=SECTION_OF[r.column], reason=Reason.STRUCK_THROUGH, detail=detail,
                      position=position_label(None, None, r.column, r.row))
