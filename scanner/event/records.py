"""What the event record holds, as dataclasses, and the rules for the values that identify a
player (Konami ID, name). Rows are mapped by column name (`sqlite3.Row`), never by position."""
from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import unicodedata
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Self

from scanner.errors import EventError

KONAMI_ID_DIGITS = 10
WALK_IN_PREFIX = "W"
_KONAMI_ID = re.compile(r"^[0-9]{10}$")
_WALK_IN = re.compile(r"^W[0-9]{4,6}$")
_LEGACY_ID = re.compile(r"^[0-9]{1,20}$")
MAX_NAME = 100
_INVISIBLE = ("Cc", "Cf", "Co", "Cs", "Cn")
"""Unicode categories no stored name or reason keeps: control, format (zero-width, bidi),
private use, surrogate, unassigned."""


def now_iso() -> str:
    """Local time with its UTC offset, to the second (what a judge reads in the record)."""
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")


class _Columns:
    """A record whose every field is the row's column of the same name."""

    @classmethod
    def from_row(cls, r: Any) -> Self:
        return cls(**{f.name: r[f.name] for f in fields(cls)})


def _id_text(raw: object) -> str:
    # NFKC first: a Korean IME types full-width digits (０１２３…), which are not ASCII digits.
    t = unicodedata.normalize("NFKC", str(raw or ""))
    return re.sub(r"[\s\-]", "", t).upper()


def normalise_konami_id(raw: object) -> str:
    """A Konami card game ID to register under: 10 ASCII digits after NFKC (`０１２３-456-789`
    → `0123456789`), or a walk-in number (`W0001`). Anything else is refused."""
    kid = _id_text(raw)
    if _KONAMI_ID.match(kid) or _WALK_IN.match(kid):
        return kid
    digits = sum(ch in "0123456789" for ch in kid)
    if kid and kid.isascii() and kid.isdigit():
        raise EventError("event.id-wrong-length", raw=repr(raw)[:40], digits=digits,
                         need=KONAMI_ID_DIGITS)
    raise EventError("event.not-an-id", raw=repr(raw)[:40])


def lookup_konami_id(raw: object) -> str:
    """An ID to look a player up by: as `normalise_konami_id`, but event files written before IDs
    were validated may hold IDs of other lengths, so any run of ASCII digits is accepted here."""
    kid = _id_text(raw)
    if _KONAMI_ID.match(kid) or _WALK_IN.match(kid) or _LEGACY_ID.match(kid):
        return kid
    raise EventError("event.not-an-id-lookup", raw=repr(raw)[:40])


def clean_name(raw: str | None, cut: bool = False) -> str | None:
    """A player name as stored: NFKC, no invisible characters (bidi controls, zero-width
    spaces/joiners, other format and control characters), spaces collapsed. Two names that look
    the same are then the same text."""
    if raw is None:
        return None
    t = unicodedata.normalize("NFKC", str(raw))
    t = "".join(ch for ch in t if unicodedata.category(ch) not in _INVISIBLE or ch in " \t")
    t = " ".join(t.split())
    if len(t) > MAX_NAME:
        if not cut:
            raise EventError("event.name-too-long", max=MAX_NAME)
        t = t[:MAX_NAME].rstrip()  # `cut`: a name read off a sheet, kept in part
    return t or None


@dataclass
class EventInfo:
    """The event's header row."""

    path: Path
    name: str
    date: dt.date
    list_name: str | None
    """The limit list named at `event init --list`; None = the list in force on `date`."""
    created_at: str


@dataclass
class Registration:
    """One version of one player's registered decklist, as stored."""

    id: int
    konami_id: str
    player_name: str | None
    version: int
    file_sha256: str
    file_name: str | None
    reader: str
    decklist_json: dict
    """`Decklist.to_json()` as read at registration (review decisions are separate rows)."""
    legal: bool
    needs_review: int
    infractions: list[dict]
    list_name: str | None
    judge: str | None
    created_at: str
    withdrawal: "Withdrawal | None" = None
    """Set when a judge withdrew this version (it then counts for nothing)."""
    confirmation: "SheetConfirmation | None" = None
    """Set when a judge confirmed whose sheet this is (`EventRecord.confirm_sheet`)."""

    @property
    def sheet_id(self) -> str | None:
        """The Konami ID the sheet itself carries (its digits, as read), if any."""
        raw = (self.decklist_json.get("player") or {}).get("konami_id")
        digits = "".join(ch for ch in str(raw or "") if ch in "0123456789")
        return digits or None

    @property
    def identity(self) -> "SheetIdentity":
        return SheetIdentity.of(self)

    @classmethod
    def from_row(cls, r: sqlite3.Row) -> "Registration":
        return cls(id=r["id"], konami_id=r["konami_id"], player_name=r["name"],
                   version=r["version"], file_sha256=r["file_sha256"], file_name=r["file_name"],
                   reader=r["reader"], decklist_json=json.loads(r["decklist_json"]),
                   legal=bool(r["legal"]), needs_review=int(r["needs_review"]),
                   infractions=json.loads(r["infractions_json"]), list_name=r["list_name"],
                   judge=r["judge"], created_at=r["created_at"])

    def summary_json(self) -> dict:
        return {"version": self.version, "time": self.created_at, "file": self.file_name,
                "sha256": self.file_sha256, "reader": self.reader, "legal": self.legal,
                "needs_review": self.needs_review, "judge": self.judge, "list": self.list_name,
                "withdrawn": self.withdrawal.to_json() if self.withdrawal else None,
                "sheet": self.identity.to_json()}


SAME_ID, NO_ID, OTHER_ID = "same", "no-id", "other-id"
"""Whose Konami ID a sheet carries: its player's, none readable, or another one."""


@dataclass
class SheetConfirmation(_Columns):
    """A judge confirmed whose sheet a registration version is (appended). For a sheet that
    carries another Konami ID, `sheet_id` is the ID the judge acknowledged it carries."""

    id: int
    registration_id: int
    konami_id: str
    version: int
    kind: str
    """SAME_ID / NO_ID / OTHER_ID, as the sheet stood when confirmed."""
    sheet_id: str | None
    how: str
    """page (the player page's button) / desk (the tap naming the player at check-in)."""
    judge: str
    created_at: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "sheet_id": self.sheet_id, "how": self.how,
                "judge": self.judge, "time": self.created_at}


@dataclass(frozen=True)
class SheetIdentity:
    """Whose sheet a registration version is, as the record holds it: the ID the sheet
    carries against the player it is stored under, and the judge's confirmation, if any. The
    one reading every view (station, `event status`, audit) shows."""

    kind: str
    sheet_id: str | None
    confirmed: bool
    judge: str | None = None
    time: str | None = None

    @classmethod
    def of(cls, reg: "Registration") -> "SheetIdentity":
        sid = reg.sheet_id
        kind = NO_ID if sid is None else SAME_ID if sid == reg.konami_id else OTHER_ID
        c = reg.confirmation
        # A confirmation counts for the sheet it was given on: another ID is confirmed only by
        # the judge naming that ID (`confirm_sheet`).
        ok = c is not None and (kind != OTHER_ID or c.sheet_id == sid)
        return cls(kind, sid, ok, c.judge if ok and c else None, c.created_at if ok and c else None)

    @property
    def state(self) -> str:
        """confirmed / other-id-confirmed / other-id (a judge must still decide) / unconfirmed."""
        if self.kind == OTHER_ID:
            return "other-id-confirmed" if self.confirmed else "other-id"
        return "confirmed" if self.confirmed else "unconfirmed"

    def to_json(self) -> dict:
        return {"kind": self.kind, "sheet_id": self.sheet_id, "confirmed": self.confirmed,
                "state": self.state, "judge": self.judge, "time": self.time}


MAX_WITHDRAW_REASON = 200


def clean_text(raw: object) -> str:
    """A judge's free text (a reason) as stored: NFC, one line, no invisible characters (control,
    format such as zero-width spaces and bidi marks, private-use, lone surrogates, unassigned),
    spaces collapsed. A reason of zero-width spaces is then no reason, and no stored text can
    break an export or a page."""
    text = unicodedata.normalize("NFC", str(raw or ""))
    text = "".join(ch for ch in text if unicodedata.category(ch) not in _INVISIBLE or ch.isspace())
    return " ".join(text.split())


def withdraw_reason(raw: object) -> str:
    """A withdrawal's reason as stored: required, at most `MAX_WITHDRAW_REASON` characters."""
    text = clean_text(raw)
    if not text:
        raise EventError("event.withdraw-no-reason")
    if len(text) > MAX_WITHDRAW_REASON:
        raise EventError("event.withdraw-reason-too-long", max=MAX_WITHDRAW_REASON)
    return text


@dataclass
class Withdrawal(_Columns):
    """A judge withdrew one registration version (appended; the version itself is kept)."""

    id: int
    registration_id: int
    konami_id: str
    version: int
    reason: str
    judge: str
    created_at: str

    def to_json(self) -> dict:
        return {"id": self.id, **withdrawal_json(self.konami_id, self.version, self.reason,
                                                 self.judge, self.created_at)}


def withdrawal_json(konami_id: str, version: int, reason: str, judge: str, time: str) -> dict:
    """A withdrawal as the contract's record and the station's API give it (one shape)."""
    return {"player": konami_id, "version": version, "reason": reason, "judge": judge,
            "time": time}


@dataclass
class ReviewDecision:
    """A judge's answer to one flagged line (or a sheet-level flag when `line` is None)."""

    registration_id: int
    section: str | None
    line: int | None
    """1-based position in the section, as in the contract `review` items."""
    read: str
    """What the line read when decided: a decision only applies to the same reading."""
    action: str
    """keep (the line is right as read), choose (card_id/count given), skip (still unsure)."""
    card_id: int | None = None
    count: int | None = None
    judge: str | None = None
    created_at: str = ""
    before: dict | None = None
    """The line as it stood before the decision (card_id, name, count), when recorded."""
    after: dict | None = None
    """The line as the decision made it."""

    @classmethod
    def from_row(cls, r: sqlite3.Row) -> "ReviewDecision":
        keys = r.keys()
        return cls(registration_id=r["registration_id"], section=r["section"], line=r["line"],
                   read=r["read"], action=r["action"], card_id=r["card_id"], count=r["count"],
                   judge=r["judge"], created_at=r["created_at"],
                   before=json.loads(r["before_json"]) if "before_json" in keys and r["before_json"] else None,
                   after=json.loads(r["after_json"]) if "after_json" in keys and r["after_json"] else None)

    def to_json(self) -> dict:
        return {"section": self.section, "line": self.line, "read": self.read,
                "action": self.action, "card_id": self.card_id, "count": self.count,
                "judge": self.judge, "time": self.created_at, "before": self.before,
                "after": self.after}


@dataclass
class DeckCheck:
    id: int
    konami_id: str
    round: int
    registration_id: int
    mode: str
    match: bool
    observed_sha256: str | None
    observed_json: dict
    result_json: dict
    judge: str | None
    created_at: str
    confirmed: bool = False
    """Recorded on the judge's confirmation of lines the tool was not sure of."""
    void: "DeckCheckVoid | None" = None
    """Set when a judge voided this deck check (it then counts for nothing)."""

    @property
    def voided(self) -> bool:
        return self.void is not None

    @property
    def between_games(self) -> bool:
        return self.mode == "between-games"

    @classmethod
    def from_row(cls, r: sqlite3.Row) -> "DeckCheck":
        return cls(id=r["id"], konami_id=r["konami_id"], round=r["round"],
                   registration_id=r["registration_id"], mode=r["mode"], match=bool(r["match"]),
                   observed_sha256=r["observed_sha256"],
                   observed_json=json.loads(r["observed_json"]),
                   result_json=json.loads(r["result_json"]), judge=r["judge"],
                   created_at=r["created_at"],
                   confirmed=bool(r["confirmed"]) if "confirmed" in r.keys() else False)

    @property
    def verdict(self) -> str:
        return self.result_json.get("verdict") or ("일치" if self.match else "불일치")

    def summary_json(self) -> dict:
        return {"id": self.id, "round": self.round, "mode": self.mode, "match": self.match,
                "verdict": self.verdict, "judge": self.judge, "time": self.created_at,
                "confirmed": self.confirmed, "registration_id": self.registration_id,
                "penalty": self.result_json.get("penalty"),
                "voided": self.void.to_json() if self.void else None}


@dataclass
class DeckCheckVoid(_Columns):
    """A judge voided a recorded deck check (appended; the deck check row stays)."""

    id: int
    deck_check_id: int
    konami_id: str
    reason: str
    judge: str
    created_at: str

    def to_json(self) -> dict:
        return {"id": self.id, "reason": self.reason, "judge": self.judge,
                "time": self.created_at}


@dataclass
class Amendment(_Columns):
    """A void or an amendment of a recorded infraction (appended; the infraction row stays)."""

    id: int
    infraction_id: int
    action: str
    """void / amend."""
    reason: str
    new_penalty: str | None
    judge: str
    created_at: str

    def to_json(self) -> dict:
        return {"id": self.id, "action": self.action, "reason": self.reason,
                "new_penalty": self.new_penalty, "judge": self.judge, "time": self.created_at}


@dataclass
class InfractionEntry:
    """What an issued infraction records, as every reader of the record shows it (the station's
    view adds its own readings)."""

    id: int
    konami_id: str
    code: str
    penalty: str
    """The penalty as recorded; see `IssuedInfraction.effective_penalty` for amendments."""
    remedy: str
    rule: str | None
    message: str | None
    round: int | None
    judge: str | None

    def entry(self) -> dict[str, Any]:
        """These fields by name (to build another reading of the same infraction)."""
        return {f.name: getattr(self, f.name) for f in fields(InfractionEntry)}


@dataclass
class IssuedInfraction(InfractionEntry):
    """An infraction a judge issued (at a deck check), with its penalty and remedy."""

    deck_check_id: int | None
    created_at: str
    findings: list[dict] = field(default_factory=list)
    """Every finding of the act this one penalty answers (codes, messages)."""
    amendments: list[Amendment] = field(default_factory=list)

    @classmethod
    def from_row(cls, r: sqlite3.Row) -> "IssuedInfraction":
        keys = r.keys()
        return cls(id=r["id"], konami_id=r["konami_id"], code=r["code"], penalty=r["penalty"],
                   remedy=r["remedy"], rule=r["rule"], message=r["message"], round=r["round"],
                   judge=r["judge"], deck_check_id=r["deck_check_id"], created_at=r["created_at"],
                   findings=json.loads(r["findings_json"])
                   if "findings_json" in keys and r["findings_json"] else [])

    @property
    def status(self) -> str:
        """active / voided / amended (the latest amendment decides)."""
        if not self.amendments:
            return "active"
        return "voided" if self.amendments[-1].action == "void" else "amended"

    @property
    def effective_penalty(self) -> str | None:
        """The penalty that stands now: None when voided."""
        if not self.amendments:
            return self.penalty
        last = self.amendments[-1]
        return None if last.action == "void" else (last.new_penalty or self.penalty)

    @property
    def penalty_before_last(self) -> str | None:
        """The penalty that stood before the latest amendment (None: it was void then) — what
        undoing that amendment puts back."""
        current: str | None = self.penalty
        for a in self.amendments[:-1]:
            current = None if a.action == "void" else (a.new_penalty or self.penalty)
        return current

    def to_json(self) -> dict:
        return {"id": self.id, "player": self.konami_id, "code": self.code,
                "penalty": self.penalty, "remedy": self.remedy, "rule": self.rule,
                "message": self.message, "round": self.round, "judge": self.judge,
                "time": self.created_at, "deck_check_id": self.deck_check_id,
                "findings": self.findings, "status": self.status,
                "effective_penalty": self.effective_penalty,
                "amendments": [a.to_json() for a in self.amendments]}


@dataclass
class NewInfraction:
    """What `add_deck_check` needs of an infraction (from `Infraction` or its JSON)."""

    code: str
    penalty: str
    remedy: str
    rule: str | None = None
    message: str | None = None
    findings: list[dict] = field(default_factory=list)

    @classmethod
    def of(cls, obj: Any) -> "NewInfraction":
        d = obj if isinstance(obj, dict) else obj.to_json()
        return cls(code=str(d.get("code")), penalty=str(d.get("penalty") or ""),
                   remedy=str(d.get("remedy") or ""), rule=d.get("rule"), message=d.get("message"),
                   findings=list(d.get("findings") or []))
