"""What the station's pages and API show: plain dataclasses the service fills in.

No event-layer types leak past `scanner.web.service`; these are all the pages see.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from scanner.event.records import InfractionEntry, withdrawal_json

NOT_REGISTERED, NEEDS_REVIEW, ILLEGAL, LEGAL = "not-registered", "needs-review", "illegal", "legal"
STATUS_KO = {NOT_REGISTERED: "미등록", NEEDS_REVIEW: "확인 필요", ILLEGAL: "부적합", LEGAL: "적합"}


@dataclass
class Verdict:
    status: str
    needs_review: int
    breaches: int
    """Infractions with a real penalty (not the tool's own NONE review items)."""

    @property
    def text(self) -> str:
        if self.status == NOT_REGISTERED:
            return "미등록"
        parts = []
        if self.breaches:
            parts.append(f"부적합 {self.breaches}")
        if self.needs_review:
            parts.append(f"확인 필요 {self.needs_review}")
        return " · ".join(parts) or "적합"


@dataclass
class PlayerRow:
    konami_id: str
    name: str | None
    table_no: str | None
    version: int | None
    verdict: Verdict
    fixed: bool = False
    """A judge has answered review items of the current version."""
    deck_checks: int = 0
    infractions: int = 0
    in_roster: bool = True
    sheet: str | None = None
    """The current version's sheet identity state (`SheetIdentity.state`)."""
    sheet_id: str | None = None
    record: dict = field(default_factory=dict)
    """The effective record's summary (`PlayerRecord.summary`)."""

    @property
    def status(self) -> str:
        return self.verdict.status

    def to_api(self) -> dict:
        return {"player": self.konami_id, "name": self.name, "version": self.version,
                "status": self.status, "table": self.table_no,
                "needs_review": self.verdict.needs_review, "infractions": self.verdict.breaches,
                "deck_checks": self.deck_checks, "sheet": self.sheet}


@dataclass
class LineView:
    """One line of a registered list, placed as on the paper."""

    section: str
    line: int
    """1-based position in the section (the key of review decisions)."""
    place: str
    """Column and printed row, e.g. '몬스터 3', or '메인 12' for lists without a sheet."""
    card_id: int | None
    name: str
    count: int
    read: str
    needs_review: bool
    reasons: list[str]
    candidates: list[tuple[int, str, float]]
    crop_url: str | None
    decided: str | None = None
    """How a judge answered it (text), when answered."""
    doubt: float = 0.0
    """How doubtful the reader's answer is, 0..1 (`scanner.web.glance.line_doubt`)."""
    doubtful: bool = False
    """Listed first and marked; not confirmed by the one tap for the lines as read."""
    removed: bool = False
    """A judge took the line out of the list (이 줄은 덱에 없음)."""
    keepable: bool = True
    """The line as read names a card and 1..3 copies (it can be confirmed as it is)."""


@dataclass
class SheetFlagView:
    index: int
    section: str | None
    reason: str
    reason_ko: str
    detail: str
    crop_url: str | None
    restore: tuple[int, str, int] | None
    """(card_id, name, count) of a struck-through row that could be restored."""
    place: str | None = None
    """Where the paper prints it (`마법 11`), when the item names a row."""
    detail_ko: str = ""
    """What the page shows of the detail (a struck row: its card and count, in Korean)."""
    kind: str = "other"
    """new-photo (another photo is asked for), missing (lines of the paper were not read: a table
    not found or cut off), struck, total, or other."""
    keepable: bool = True
    """「확인함」 closes it (a `missing` item only when the printed total says the table is
    empty)."""
    entered: list[tuple[int, str, int]] = field(default_factory=list)
    """Lines a judge entered for a `missing` item so far: (card_id, name, count)."""
    next_entry: int = 1
    """The number the next line entered for it takes."""
    explained: str = ""
    """A `total` item the sheet's own pen edits account for exactly (struck rows, corrected
    counts, added lines): what the glance list says instead of a separate item (issue 35)."""

    @property
    def in_glance(self) -> bool:
        """Confirmed with the glance list's lines: a struck row (a line of the list, "not in the
        deck") and a printed total the pen edits explain (no line: a note by the deck's totals)."""
        return self.kind == "struck" or bool(self.explained)


@dataclass
class RegistrationView:
    konami_id: str
    name: str | None
    table_no: str | None
    version: int
    versions: list[int]
    file_name: str | None
    reader: str
    created_at: str
    judge: str | None
    verdict: Verdict
    columns: list[tuple[str, list[LineView]]]
    flagged: list[LineView]
    sheet_flags: list[SheetFlagView]
    infractions: list[dict]
    totals: dict
    printed_totals: dict
    sheet_id: str | None
    sheet_name: str | None
    warnings: list[str]
    decisions: list[DecisionView]
    checkin_confirmed: bool
    withdrawn: "WithdrawalView | None" = None
    """Set when this version was withdrawn (shown as 철회됨; it counts for nothing)."""
    withdrawn_versions: list[int] = field(default_factory=list)
    decided_lines: list[LineView] = field(default_factory=list)
    """Flagged lines a judge has answered (listed apart, each can be answered again)."""
    retake: list[SheetFlagView] = field(default_factory=list)
    """Sheet-level items that ask for a new photo or say lines were not read (one box)."""


@dataclass
class WithdrawalView:
    """A registration version a judge withdrew (a wrong sheet on the wrong player)."""

    konami_id: str
    name: str | None
    version: int
    reason: str
    judge: str
    at: str
    current_version: int | None = None
    """The player's current version after it (None: not registered)."""
    sheet_id: str | None = None
    """The Konami ID the withdrawn sheet gives (where it belongs), when read."""

    def to_api(self) -> dict:
        return {**withdrawal_json(self.konami_id, self.version, self.reason, self.judge, self.at),
                "current_version": self.current_version}


@dataclass
class DecisionView:
    konami_id: str
    name: str | None
    version: int
    place: str
    before: str
    after: str
    judge: str | None
    at: str


@dataclass
class InfractionView(InfractionEntry):
    name: str | None
    at: str
    voids: list[dict] = field(default_factory=list)
    """Voids/amendments recorded later, oldest first: {reason, judge, at, new_penalty}."""
    status: str = "active"
    """active / voided / amended: the record's own reading (`IssuedInfraction.status`)."""
    penalty_now: str | None = None
    """The penalty in force (`IssuedInfraction.effective_penalty`); None when voided."""
    undo_to: str | None = None
    """What undoing the latest void/amendment puts back (a penalty code; None: void)."""
    deck_check_id: int | None = None
    applies: str | None = None
    """next-duel / current-duel, when the deck check that issued it says."""
    findings: list[str] = field(default_factory=list)
    """The codes of every finding of the act."""

    @property
    def voided(self) -> bool:
        return self.status == "voided"

    @property
    def amended(self) -> bool:
        return bool(self.voids)


@dataclass
class DeckCheckView:
    """A recorded deck check as the player page and the deck-check page show it."""

    id: int
    round: int
    mode: str
    verdict: str
    differences: list[dict]
    penalty: dict | None
    """The one penalty of the act (`Penalty.to_json()`), None when none."""
    judge: str | None
    at: str
    void: dict | None = None
    """{reason, judge, time} when voided."""
    infraction_ids: list[int] = field(default_factory=list)

    @property
    def voided(self) -> bool:
        return self.void is not None


@dataclass
class SheetIdentityView:
    """Whose sheet a version is (`SheetIdentity`), for the identity box."""

    kind: str
    """same / no-id / other-id."""
    sheet_id: str | None
    confirmed: bool
    state: str
    judge: str | None = None
    at: str | None = None


@dataclass
class PlayerRecordView:
    """A player's effective record (`scanner.event.effective`): what the dashboard, the
    player page, `event status` and the audit all show."""

    konami_id: str
    sheet: SheetIdentityView | None
    deck_checks: list[DeckCheckView]
    infractions: list[InfractionView]
    summary: dict


@dataclass
class ChecklistRow:
    section: str
    index: int
    card_id: int
    name: str
    count: int


@dataclass
class ChecklistCard:
    """One registered card as judges count it: its registered count per section, and the
    sections it may be found in (a main-deck card in main or side, an extra-deck card in extra
    or side), each an input on the deck-check page."""

    card_id: int
    name: str
    registered: dict[str, int]
    sections: tuple[str, ...]


@dataclass
class DeckCheckPreview:
    konami_id: str
    name: str | None
    round: int
    between_games: bool
    match: bool
    differences: list[dict]
    infractions: list[dict]
    registered_version: int
    observed: dict[tuple[str, int], int]
    recorded: bool = False
    deck_check_id: int | None = None
    not_recorded: str | None = None
    """Why the event layer did not record a confirmed check (e.g. the list still needs review)."""
    verdict: str = ""
    """일치 / 불일치 / 확인 필요 (a list or a line under review: never 불일치)."""
    penalty: dict | None = None
    """The one penalty of the act (`Penalty.to_json()`: label, applies_label, remedy)."""
    token: str = ""
    """The comparison's digest: 이대로 기록 sends it back, and records only this comparison."""
