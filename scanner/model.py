"""Domain types that flow through decksheet: read → resolve → check/reconcile → report.

- `ReadLine` / `SheetRead`: what a reader saw on a sheet, before any card lookup.
- `Entry` / `Decklist`: lines resolved to cards, with confidence and review state.
- `ReviewFlag`: something a judge must look at.
- `Infraction`: a rule broken, with its penalty and remedy.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from scanner.vocab import COLUMN_KO, MAIN_COLUMNS, SECTION_KO, SECTIONS, Reason

KONAMI_ID_DIGITS = 10

__all__ = ["SECTIONS", "SECTION_KO", "COLUMN_KO", "READERS", "position_label", "ReadLine",
           "ReviewFlag", "SheetRead", "Entry", "Decklist", "Infraction"]


def position_label(section: str | None, index: int | None, column: str | None = None,
                   row: int | None = None) -> str:
    """Where a line is, in the judge's words: as the paper prints it (`몬스터 13`: column and
    printed row number) when the reader knows them, else its place in the list
    (`메인 덱 12번째 줄`)."""
    if column and row:
        return f"{COLUMN_KO.get(column, column)} {row}"
    where = SECTION_KO.get(section or "", "시트")
    return f"{where} {index}번째 줄" if index else where


# Reader names of the contract's `source.reader`.
READERS = ("pdf-text", "pdf-form", "ocr", "ydk", "ydke", "text", "json")


@dataclass
class ReadLine:
    """One line as a reader saw it: a name text and a count, not yet a card."""

    section: str
    """main / extra / side."""
    text: str
    """The card name as read (may be noisy OCR text). Empty when only a passcode is known."""
    count: int | None
    """Copies as read; None when the count could not be read."""
    column: str | None = None
    """Sheet column: monster / spell / trap / extra / side (None for lists)."""
    row: int | None = None
    """1-based row on the sheet column, if the reader knows it."""
    card_id: int | None = None
    """A passcode given by the input itself (ydk, ydke, JSON); then `text` may be empty."""
    text_confidence: float = 1.0
    """The reader's own confidence in `text` (1.0 for a text layer)."""
    count_text: str = ""
    """The count cell as read, before parsing."""
    flags: list[str] = field(default_factory=list)
    """Reader-level reasons to review this line (`vocab.Reason`: struck-through, handwritten,
    count-unclear, count-corrected, ...). Any flag makes the resolved entry need review."""
    detail: str = ""
    """Free text for the judge about the flags."""
    crop: str | None = None
    """Path of a saved image of the line's cells, when the reader saved one."""
    alternatives: list[str] = field(default_factory=list)
    """Other readings of the same cell (e.g. another OCR pass), used as extra evidence."""
    needs_review: bool = False
    """Set by the input itself (JSON input carries a review state)."""
    confidence: float | None = None
    """A confidence given by the input itself (JSON input)."""
    certainty: float | None = None
    """How likely the reader thinks its card and count for the line are right, 0..1, when it
    can tell (the OCR reader): the judge's station shows the least certain lines first."""
    unsplit: str = ""
    """The whole line, when a bare number was split off it as the count (`해피 레이디3`,
    `7 카드`): the resolver lets an exact card name of the whole line win over the split."""
    box: tuple[float, float, float, float] | None = None
    """Where the line sits on its PDF page (x0, top, x1, bottom in pt, top-left origin), when a
    PDF reader knows it: the appearance check compares the rendered page there."""
    seen: str | None = None
    """The name text as the reader saw it, when `text` holds something else: an OCR reader that
    resolves its own lines puts the card's name in `text` and what OCR read here (contract v4:
    `read` is what the reader saw, never a candidate's name). None: `text` is what was seen."""

    @property
    def raw(self) -> str:
        """What the judge should see as 'read': the text as seen, and the count as read."""
        seen = self.text if self.seen is None else self.seen
        parts = [seen] if seen else ([str(self.card_id)] if self.card_id is not None else [])
        if self.count_text or self.count is not None:
            parts.append(self.count_text or str(self.count))
        return " ".join(parts) if parts else (str(self.card_id) if self.card_id else "")


@dataclass
class ReviewFlag:
    """A thing on the sheet a judge must look at (contract `review` item)."""

    section: str | None
    reason: str
    """A `vocab.Reason` (unresolved-name, count-unclear, total-mismatch, struck-through, ...); a
    JSON input read back may carry one of its own."""
    detail: str = ""
    line: int | None = None
    """1-based position in `sections[section]` of the decklist, when it names a line."""
    card_id: int | None = None
    position: str | None = None
    """The line's place as the paper prints it (`몬스터 13`), see `position_label`."""

    def to_json(self) -> dict:
        out: dict = {"section": self.section, "line": self.line, "reason": self.reason,
                     "detail": self.detail}
        if self.card_id is not None:
            out["card_id"] = self.card_id
        if self.position:
            out["position"] = self.position
        return out

    @classmethod
    def from_json(cls, d: dict) -> "ReviewFlag":
        return cls(section=d.get("section"), reason=str(d.get("reason", "")),
                   detail=str(d.get("detail", "")), line=d.get("line"), card_id=d.get("card_id"),
                   position=d.get("position"))


@dataclass(kw_only=True)
class SheetFacts:
    """The player and the printed totals a sheet gives: what a reader saw (`SheetRead`) and the
    resolved deck (`Decklist`) carry them alike (keyword fields, after each one's own)."""

    player_name: str | None = None
    konami_id: str | None = None
    player_name_confidence: float | None = None
    konami_id_confidence: float | None = None
    """How likely a name / ID read by hand is right (0..1); None for one read as print or typed."""
    printed_totals: dict[str, int | None] = field(
        default_factory=lambda: {s: None for s in SECTIONS})
    """Totals printed on the sheet per section (None where none is printed)."""


@dataclass
class SheetRead(SheetFacts):
    """Everything a reader got from one input, before resolving names to cards."""

    reader: str
    """One of READERS."""
    lines: list[ReadLine] = field(default_factory=list)
    column_totals: dict[str, int | None] = field(default_factory=dict)
    """Printed totals per main-deck column (monster/spell/trap) where the sheet has them."""
    review: list[ReviewFlag] = field(default_factory=list)
    """Sheet-level problems the reader found."""
    event_name: str | None = None
    event_date: str | None = None
    notes: list[str] = field(default_factory=list)
    """Reader diagnostics (layout found, fallbacks taken)."""
    page: int | None = None
    """0-based PDF page the lines were read from (None for other inputs)."""
    empty_cells: list[tuple[float, float, float, float]] = field(default_factory=list)
    """Line cells of a fixed PDF form that hold no read line (pt, top-left origin): the page
    must show nothing there either."""

    def flag_line_or_sheet(self, line: int | None, reason: Reason, line_detail: str,
                           sheet_detail: str) -> None:
        """Flag line `line` (0-based) with `reason`, or, when it names no read line, the whole
        sheet: PDF evidence (annotations, covered text) that sits on a line or beside them."""
        if line is None or not 0 <= line < len(self.lines):
            self.review.append(ReviewFlag(section=None, reason=reason, detail=sheet_detail))
            return
        ln = self.lines[line]
        if reason not in ln.flags:
            ln.flags.append(reason)
        ln.detail = "; ".join(p for p in (ln.detail, line_detail) if p)

    # The checks every sheet reader makes of what it read, whatever the sheet: written once.

    def check_column_totals(self, columns: tuple[str, ...] | list[str] = MAIN_COLUMNS) -> None:
        """A main column's printed total against the sum of its lines (when every count was
        read): a mismatch is a sheet-level item."""
        for column in columns:
            total = self.column_totals.get(column)
            lines = [ln for ln in self.lines if ln.column == column]
            if total is None or any(ln.count is None for ln in lines):
                continue
            got = sum(ln.count or 0 for ln in lines)
            if got != total:
                self.review.append(ReviewFlag(
                    section="main", reason=Reason.TOTAL_MISMATCH,
                    detail=f"{column} column: printed total {total} ≠ sum of lines {got}"))

    def settle_main_total(self, printed: int | None,
                          columns: tuple[str, ...] | list[str] = MAIN_COLUMNS) -> None:
        """The main deck's printed total; when the sheet prints none, the sum of its columns'
        printed totals, if every one of them is printed."""
        cols = [self.column_totals.get(c) for c in columns]
        if printed is None and cols and all(v is not None for v in cols):
            printed = sum(v or 0 for v in cols)
        self.printed_totals["main"] = printed

    def check_main_found(self, where: str) -> None:
        """A sheet read with no main-deck line says so: an empty main deck is never passed on
        in silence (a form read in the wrong places, a main deck written where no reader
        looked, a page that shows cards no text gives)."""
        if any(ln.section == "main" for ln in self.lines):
            return
        other = len(self.lines)
        self.review.append(ReviewFlag(
            section="main", reason=Reason.MAIN_DECK_NOT_FOUND,
            detail=f"{where}: no main-deck line found" + (
                f" ({other} extra/side line{'s' if other != 1 else ''} read)" if other else
                " (the deck cells show ink no text or field gives: read the sheet by eye)")))

    def take_konami_id(self, text: str | None, label: str) -> None:
        """The Konami ID from the text of its box (digits kept): one not of 10 digits is
        kept as read and flagged. Nothing written: nothing taken."""
        digits = re.sub(r"\D", "", text or "")
        if not digits:
            return
        self.konami_id = digits
        if len(digits) != KONAMI_ID_DIGITS:
            self.review.append(ReviewFlag(section=None, reason=Reason.KONAMI_ID_UNCLEAR,
                                          detail=f"{label} read as {digits!r} (not 10 digits)"))


@dataclass
class Entry:
    """One resolved line: a card (or None when unresolved) and a count."""

    card_id: int | None
    name: str
    """The card's database name, or the text read when unresolved."""
    count: int
    confidence: float
    needs_review: bool
    read: str
    """The raw text the line came from."""
    reasons: list[str] = field(default_factory=list)
    """Why it needs review (empty when it does not)."""
    candidates: list[tuple[int, str, float]] = field(default_factory=list)
    """Top candidates (card_id, name, score) when the name was not certain."""
    column: str | None = None
    row: int | None = None
    crop: str | None = None
    certainty: float | None = None
    """The reader's own estimate that card and count are right (`ReadLine.certainty`)."""
    removed: bool = False
    """A judge took this line out of the list (struck through, or not a line at all): kept in
    place only in the review's own view of the list, with no card and no copies."""

    def to_json(self) -> dict:
        out = {"card_id": self.card_id, "name": self.name, "count": self.count,
               "confidence": round(self.confidence, 3), "needs_review": self.needs_review,
               "read": self.read}
        if self.column is not None:
            out["column"] = self.column
        if self.row is not None:
            out["row"] = self.row
        if self.column and self.row:
            out["position"] = position_label(None, None, self.column, self.row)
        if self.reasons:
            out["reasons"] = list(self.reasons)
        if self.candidates:
            out["candidates"] = [{"card_id": c, "name": n, "score": round(s, 3)}
                                 for c, n, s in self.candidates]
        if self.crop:
            out["crop"] = self.crop
        if self.certainty is not None:
            out["certainty"] = round(self.certainty, 3)
        if self.removed:
            out["removed"] = True
        return out

    @classmethod
    def from_json(cls, d: dict) -> "Entry":
        cid = d.get("card_id")
        return cls(card_id=int(cid) if cid is not None else None, name=str(d.get("name") or ""),
                   count=int(d.get("count") or 0), confidence=float(d.get("confidence", 1.0)),
                   needs_review=bool(d.get("needs_review", False)), read=str(d.get("read", "")),
                   reasons=list(d.get("reasons", [])), column=d.get("column"), row=d.get("row"),
                   crop=d.get("crop"),
                   certainty=float(d["certainty"]) if isinstance(d.get("certainty"), (int, float)) else None)


@dataclass
class Decklist(SheetFacts):
    """A resolved deck: three sections of entries, plus where it came from (and `SheetFacts`:
    the name / ID read by hand with their likelihood, a review item saying so)."""

    sections: dict[str, list[Entry]] = field(default_factory=lambda: {s: [] for s in SECTIONS})
    reader: str = "text"
    source_path: str | None = None
    sha256: str | None = None
    review: list[ReviewFlag] = field(default_factory=list)

    def totals(self) -> dict[str, int]:
        return {s: sum(e.count for e in self.sections.get(s, [])) for s in SECTIONS}

    def counts(self, section: str) -> dict[int, int]:
        """Resolved card_id → copies in one section (unresolved lines are left out)."""
        out: dict[int, int] = {}
        for e in self.sections.get(section, []):
            if e.card_id is not None:
                out[e.card_id] = out.get(e.card_id, 0) + e.count
        return out

    def all_counts(self) -> dict[int, int]:
        """card_id → copies over main + extra + side."""
        out: dict[int, int] = {}
        for s in SECTIONS:
            for cid, n in self.counts(s).items():
                out[cid] = out.get(cid, 0) + n
        return out

    @property
    def needs_review(self) -> int:
        """How many lines (and sheet-level items) need a judge."""
        lines = sum(1 for s in SECTIONS for e in self.sections[s] if e.needs_review)
        sheet = sum(1 for r in self.review if r.line is None and r.card_id is None)
        return lines + sheet

    def _player_json(self) -> dict:
        out: dict = {"name": self.player_name, "konami_id": self.konami_id}
        if self.player_name_confidence is not None:
            out["name_confidence"] = self.player_name_confidence
        if self.konami_id_confidence is not None:
            out["konami_id_confidence"] = self.konami_id_confidence
        return out

    def to_json(self) -> dict:
        return {
            "schema": 1,
            "source": {"path": self.source_path, "sha256": self.sha256, "reader": self.reader},
            "player": self._player_json(),
            "sections": {s: [e.to_json() for e in self.sections[s]] for s in SECTIONS},
            "totals": self.totals(),
            "printed_totals": {s: self.printed_totals.get(s) for s in SECTIONS},
            "review": [r.to_json() for r in self.review],
        }


@dataclass
class Infraction:
    """A rule broken by a decklist or at a deck check."""

    code: str
    """Contract code, e.g. FORBIDDEN_CARD."""
    penalty: str
    """CAUTION / WARNING / GAME_LOSS / MATCH_LOSS / DISQUALIFICATION / DISQUALIFICATION_NO_PRIZE."""
    rule: str
    """Section of the tournament rules, in Korean."""
    message: str
    """What is wrong, in Korean, for the judge."""
    remedy: str
    """What the rules say to do, in Korean."""
    section: str | None = None
    card_ids: list[int] = field(default_factory=list)
    penalty_quoted: bool = True
    """False where the penalty guideline names no penalty for this breach (the judge's call)."""
    penalty_note: str = ""
    position: str | None = None
    """Where on the sheet, as the paper prints it (e.g. 몬스터 13), when it names one line."""

    def to_json(self) -> dict:
        out = {"code": self.code, "section": self.section, "card_ids": list(self.card_ids),
               "penalty": self.penalty, "rule": self.rule, "message": self.message,
               "remedy": self.remedy, "penalty_quoted": self.penalty_quoted}
        if self.penalty_note:
            out["penalty_note"] = self.penalty_note
        if self.position:
            out["position"] = self.position
        return out
