"""Event flows on top of the store: register a sheet, run a deck check, apply review decisions,
void or amend an infraction, and show one player's state.

These functions are the library interface of the event (the CLI and the check-in station both
call them): `register_input`, `commit_registration`, `deck_check`, `deck_check_decklist`,
`void_infraction`, `player_status`, `record_review_decision(s)`. Each takes an `EventContext`
first (the record, the card database, the limit list, the judge, the read options), then only
what the action is about, and returns a dataclass with `to_json()`.

Each flow reads and checks first and writes last (one transaction), so a refused or failed
request stores nothing. See `scanner.event.record` for the record and its rules.
"""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path

from card_db.cdb import CardDatabase
from card_db.lflist import choose_list, load_lflist, resolve_lflist_path
from card_db import messages
from card_db.models import LimitList
from scanner.errors import EventError, RegulationError, UnreadableInput
from scanner.event.context import EventContext
from scanner.event.effective import PlayerRecord, player_record
from scanner.event.files import sha256_bytes
from scanner.event.record import EventRecord, Guard
from scanner.event.records import (Amendment, DeckCheck, EventInfo, IssuedInfraction, NewInfraction,
                                   Registration, ReviewDecision, clean_name, lookup_konami_id,
                                   normalise_konami_id)
from scanner.event.records import MAX_NAME
from scanner.inputs.options import ReadOptions
from scanner.model import SECTIONS, Decklist, Entry, ReviewFlag, position_label
from scanner.inputs import limits
from scanner.read import load_decklist, read_input, read_source_bytes
from scanner.vocab import MAX_ROUND, Reason
from scanner.rules.codes import (CHECK_IN_NOTE, LEGAL, NEEDS_REVIEW, PENALTY_KO, VERDICT_CODES,
                                 list_verdict)

KEEP, CHOOSE, SKIP, REMOVE = "keep", "choose", "skip", "remove"
"""Review actions. CHOOSE on a sheet-level struck-through item restores the struck printed row
(the judge saw the strike was not meant), with the card and count the judge confirms. REMOVE
takes a line out of the list: the row is not part of the deck (struck through by pen, or
garbage the reader took for a line)."""
ACTIONS = (KEEP, CHOOSE, SKIP, REMOVE)


def sheet_flag_key(flag: ReviewFlag) -> str:
    """What a decision on a sheet-level item is stored under: its reason and its detail, so two
    struck rows of one column are two items (a decision on one never settles the other)."""
    return f"{flag.reason}: {flag.detail}" if flag.detail else flag.reason


def _answers(flag: ReviewFlag, read: str) -> bool:
    # Decisions stored before keys carried the detail name only the reason.
    if read == sheet_flag_key(flag) or read == flag.reason:
        return True
    # A section's total item is re-derived from the lines as they stand: its detail ("printed
    # 40 ≠ sum of lines 39") changes with every count a judge fixes, but the judge's answer (the
    # printed total is not the list) is about the section, not about one sum.
    return flag.reason == Reason.TOTAL_MISMATCH and read.split(": ", 1)[0] == flag.reason


# --------------------------------------------------------------------------- regulation


def event_limits(event: EventInfo, db: CardDatabase, lflist: str | os.PathLike | None = None,
                 list_name: str | None = None, extra_bans: bool = True) -> LimitList:
    """The list for this event: an explicit --list, else the event's own, else the OCG list in
    force on the event date (the rules: the newest regulation on the day of the event)."""
    path = resolve_lflist_path(lflist)
    if path is None:
        raise RegulationError("regulation.no-list-file")
    return choose_list(load_lflist(path), list_name or event.list_name, event.date,
                       extra_bans=extra_bans, original_id=db.original_id)


# --------------------------------------------------------------------------- decklist JSON


def decklist_from_json(data: dict) -> Decklist:
    """A stored `Decklist.to_json()` back to a `Decklist`, review state and candidates kept
    (unlike re-resolving it, which would re-judge every name)."""
    src = data.get("source") or {}
    player = data.get("player") or {}
    deck = Decklist(reader=src.get("reader") or "json", source_path=src.get("path"),
                    sha256=src.get("sha256"), player_name=player.get("name"),
                    konami_id=player.get("konami_id"),
                    printed_totals={s: (data.get("printed_totals") or {}).get(s) for s in SECTIONS},
                    review=[ReviewFlag.from_json(r) for r in data.get("review") or []])
    for s in SECTIONS:
        for item in (data.get("sections") or {}).get(s) or []:
            e = Entry.from_json(item)
            e.candidates = [(int(c["card_id"]), str(c.get("name", "")), float(c.get("score", 0)))
                            for c in item.get("candidates") or [] if c.get("card_id") is not None]
            deck.sections[s].append(e)
    return deck


def apply_decisions(deck: Decklist, decisions: list[ReviewDecision], db: CardDatabase,
                    keep_removed: bool = False) -> Decklist:
    """The list a judge confirmed: `deck` with review decisions applied (a new object).

    A decision applies only while the line still reads the same (`read`), so a re-read by a
    changed reader can never attach an old answer to another line. The latest decision for a
    line wins; `skip` leaves it flagged; `remove` takes the line out of the list. With
    `keep_removed` a removed line stays in its place with no card and no copies (`removed`
    set), so line numbers stay those of the stored read (what review decisions are keyed by).
    """
    out = copy.deepcopy(deck)
    latest: dict[tuple, ReviewDecision] = {}
    for d in decisions:
        latest[(d.section, d.line, d.read)] = d
    decided_lines: set[tuple[str, int]] = set()
    for (section, line, read), d in latest.items():
        if line is None or section not in SECTIONS or d.action == SKIP:
            continue
        entries = out.sections[section]
        if not (1 <= line <= len(entries)) or entries[line - 1].read != read:
            continue
        e = entries[line - 1]
        if d.action == CHOOSE:
            card = db.get(d.card_id) if d.card_id is not None else None
            if card is None:
                continue  # a decision naming a card this database lacks cannot apply
            e.card_id, e.name = card.card_id, card.name
            if d.count is not None:
                e.count = d.count
        elif d.action == REMOVE:
            e.card_id, e.count, e.removed = None, 0, True
        elif d.action != KEEP:
            continue  # an action this version does not know changes nothing
        e.confidence, e.needs_review, e.reasons, e.candidates = 1.0, False, [], []
        decided_lines.add((section, line))
    review = [r for r in out.review
              if not (r.line is not None and (r.section, r.line) in decided_lines)
              and r.reason != Reason.TOTAL_MISMATCH]
    sheet_decisions = [d for (_, line, _), d in latest.items()
                       if line is None and d.action in (KEEP, CHOOSE)]
    review = _settle_sheet_items(out, review, sheet_decisions, db)  # restored rows count below
    # Totals are re-derived: a corrected count may have fixed (or caused) a mismatch.
    totals = out.totals()
    for s in SECTIONS:
        printed = out.printed_totals.get(s)
        if printed is not None and printed != totals[s]:
            review.append(ReviewFlag(section=s, reason=Reason.TOTAL_MISMATCH,
                                     detail=f"printed total {printed} ≠ sum of lines {totals[s]}"))
    out.review = _settle_sheet_items(out, review, sheet_decisions, db)  # kept total flags
    if not keep_removed:
        for s in SECTIONS:
            out.sections[s] = [e for e in out.sections[s] if not e.removed]
    return out


def _settle_sheet_items(out: Decklist, review: list[ReviewFlag], decisions: list[ReviewDecision],
                        db: CardDatabase) -> list[ReviewFlag]:
    """`review` less the sheet-level items a judge kept, (a struck row) restored or (a table
    the reader did not read) entered line by line; restored and entered rows are added to their
    section of `out`."""
    left = []
    for r in review:
        if r.line is None and r.card_id is None and r.reason == Reason.UNREADABLE_LINE \
                and r.section in SECTIONS:
            entered = [d for d in decisions if d.action == CHOOSE and d.section == r.section
                       and entered_line_of(r, d.read) is not None]
            added = 0
            for d in sorted(entered, key=lambda d: entered_line_of(r, d.read) or 0):
                card = db.get(d.card_id) if d.card_id is not None else None
                if card is not None and d.count:
                    out.sections[r.section].append(Entry(
                        card_id=card.card_id, name=card.name, count=d.count, confidence=1.0,
                        needs_review=False, read=d.read[:300]))
                    added += 1
            if added:
                continue
        d = next((d for d in decisions if r.line is None and r.card_id is None
                  and d.section == r.section and _answers(r, d.read)), None)
        if d is not None and d.action == CHOOSE:
            card = db.get(d.card_id) if d.card_id is not None else None
            if card is None or r.section not in SECTIONS or not d.count \
                    or r.reason != Reason.STRUCK_THROUGH:
                d = None  # cannot apply: the item stays for the judge
            else:
                out.sections[r.section].append(Entry(
                    card_id=card.card_id, name=card.name, count=d.count, confidence=1.0,
                    needs_review=False, read=f"복원: {r.detail}"[:300]))
        if d is None:
            left.append(r)
    return left


ENTERED = " #"
"""A line a judge entered for a table the reader did not read is stored under the item's key,
this, and its number (`unreadable-line: trap table not found… #2`): one decision per line."""


def entered_line_of(flag: ReviewFlag, read: str) -> int | None:
    """The number of the line a judge entered for `flag` that `read` names, or None."""
    head, sep, n = read.rpartition(ENTERED)
    if not sep or not n.isdigit() or not _answers(flag, head):
        return None
    return int(n)


def lines_missing(flag: ReviewFlag) -> bool:
    """A sheet-level item that says lines of the paper were not read (a table not found or cut
    off, no line read at all): it closes only with those lines entered (or a new photo)."""
    return flag.line is None and flag.card_id is None and flag.reason == Reason.UNREADABLE_LINE


def sum_agrees(deck: Decklist, section: str | None) -> bool:
    """The sheet prints a total for `section` and the lines read add up to it: a table the
    reader did not find holds no card."""
    printed = deck.printed_totals.get(section) if section in SECTIONS else None
    return printed is not None and deck.totals()[section] == printed


def flagged_items(deck: Decklist) -> list[tuple[str | None, int | None, str, ReviewFlag | None]]:
    """Everything a judge must answer, in sheet order: (section, line, read, sheet-level flag).

    `read` is the key a decision is stored under: the line's raw text, or the sheet flag's reason.
    """
    out: list[tuple[str | None, int | None, str, ReviewFlag | None]] = []
    for s in SECTIONS:
        for i, e in enumerate(deck.sections[s], 1):
            if e.needs_review:
                out.append((s, i, e.read, None))
    for r in deck.review:
        if r.line is None and r.card_id is None:
            out.append((r.section, None, sheet_flag_key(r), r))
    return out


def effective_decklist(store: EventRecord, reg: Registration, db: CardDatabase,
                       keep_removed: bool = False) -> Decklist:
    """A registration's list as confirmed so far (stored read + review decisions); see
    `apply_decisions` for `keep_removed` (the review's own view, line numbers as read)."""
    return apply_decisions(decklist_from_json(reg.decklist_json), store.decisions(reg.id), db,
                           keep_removed)


# --------------------------------------------------------------------------- verdicts

def check_round(round_no: object) -> int:
    """A round number 0..MAX_ROUND (one-line refusal otherwise: no OverflowError from SQLite)."""
    try:
        n = int(str(round_no).strip()) if not isinstance(round_no, int) else round_no
    except ValueError:
        raise EventError("event.round-not-a-number", value=repr(round_no)[:40]) from None
    if isinstance(round_no, bool) or not 0 <= n <= MAX_ROUND:
        raise EventError("event.round-out-of-range", max=MAX_ROUND, value=str(round_no)[:40])
    return n


def registration_check(ctx: EventContext, reg: Registration):
    """The confirmed list of a registration and its check now (`CheckResult`), or None for the
    check when no limit list is at hand."""
    from scanner.rules.check import check_decklist

    deck = effective_decklist(ctx.record, reg, ctx.db)
    return deck, (check_decklist(deck, ctx.limits, ctx.db) if ctx.limits is not None else None)


def _stored_verdict(reg: Registration, deck: Decklist) -> str:
    codes = {i.get("code") for i in reg.infractions}
    if deck.needs_review == 0:
        codes -= {"UNRESOLVED_LINE"}
    return list_verdict({c for c in codes if c})


def _check_in_infractions(infractions: list[dict]) -> list[dict]:
    """At check-in nothing is a penalty yet: each penalty is what applies if found during the
    event."""
    return [dict(i, penalty_applies="if-found-during-event") for i in infractions]


# --------------------------------------------------------------------------- register


@dataclass
class RegisterResult:
    registration: Registration
    decklist: Decklist
    """The list as read (flags included)."""
    legal: bool
    infractions: list[dict]
    warnings: list[str] = field(default_factory=list)
    verdict: str = LEGAL

    @property
    def clean(self) -> bool:
        return self.legal and self.registration.needs_review == 0

    def to_json(self) -> dict:
        r = self.registration
        return {"player": r.konami_id, "version": r.version, "legal": self.legal,
                "verdict": self.verdict, "verdict_code": VERDICT_CODES[self.verdict],
                "needs_review": r.needs_review,
                "infractions": _check_in_infractions(self.infractions),
                "check_in": True, "penalty_note": CHECK_IN_NOTE,
                "name": r.player_name, "sha256": r.file_sha256, "reader": r.reader,
                "list": r.list_name, "totals": self.decklist.totals(),
                "review": [f.to_json() for f in self.decklist.review],
                "warnings": self.warnings}


def _input_bytes(source: str) -> tuple[bytes | None, bytes, str | None]:
    """The bytes the reader gets (None for a literal ydke:// URL, read from the text itself),
    the bytes to keep as the original, and a file name (None for a URL or standard input).
    Read once: a pipe (`register -`) cannot be read twice."""
    if limits.is_stdin(source):
        data = read_source_bytes(source)
        return data, data, None
    p = Path(source)
    if p.is_dir():
        raise UnreadableInput("input.is-folder", file=limits.shown(p))
    if p.exists():
        data = read_source_bytes(source)
        return data, data, p.name
    if source.strip().lower().startswith("ydke://"):
        return None, source.strip().encode("utf-8"), None
    raise UnreadableInput("input.no-such-file", file=limits.shown(p))


def sheet_konami_id(deck: Decklist) -> str | None:
    """The Konami ID printed on the sheet, when it was read with confidence and is valid."""
    if not deck.konami_id or any(r.reason == Reason.KONAMI_ID_UNCLEAR for r in deck.review):
        return None
    try:
        kid = normalise_konami_id(deck.konami_id)
    except EventError:
        return None
    return None if kid.startswith("W") else kid


PLAUSIBLE_MAIN = 40
MOST = 0.5
"""'Most lines unreadable' / 'drops most of the previous version': more than half."""


@dataclass(frozen=True)
class Doubt:
    """One reason a new version does not look like the player's deck (a code of the message
    table and its parameters)."""

    code: str
    params: dict

    def render(self, lang: str = "en") -> str:
        return messages.render(self.code, self.params, lang)

    def __str__(self) -> str:
        return self.render("en")


def implausible_version(deck: Decklist, previous: Decklist | None) -> list[Doubt]:
    """Why a new version does not look like a replacement of the player's deck (empty: fine)."""
    why = []
    lines = [e for s in SECTIONS for e in deck.sections[s]]
    if deck.totals()["main"] < PLAUSIBLE_MAIN:
        why.append(Doubt("doubt.small-main", {"cards": deck.totals()["main"]}))
    unreadable = sum(1 for e in lines if e.card_id is None or e.needs_review)
    if lines and unreadable > MOST * len(lines):
        why.append(Doubt("doubt.unreadable", {"unreadable": unreadable, "lines": len(lines)}))
    if previous is not None:
        before, after = previous.all_counts(), deck.all_counts()
        kept = sum(min(n, after.get(cid, 0)) for cid, n in before.items())
        total = sum(before.values())
        if total and kept < (1 - MOST) * total:
            why.append(Doubt("doubt.drops-previous", {"kept": kept, "total": total}))
    return why


DUPLICATE_ORIGINAL, IMPLAUSIBLE_VERSION = "duplicate-original", "implausible-version"
"""The guards that ask a judge's decision (the station's job state `needs-decision`)."""


class NeedsDecision(EventError):
    """A guard refused a registration a judge may still want: `decision` names which (the CLI's
    --allow-duplicate / --replace, the station's 「그래도 저장」 button). Nothing was stored."""

    def __init__(self, code: str, /, decision: str, **params) -> None:
        super().__init__(code, **params)
        self.decision = decision


@dataclass
class PreparedRegistration:
    """An input read, resolved and checked, not stored yet: what `prepare_registration` makes
    (in a worker process at the station) and `commit_registration` stores."""

    deck: Decklist
    sha256: str
    """Of the original file as kept."""
    file_name: str | None
    legal: bool
    infractions: list[dict]
    verdict: str
    original: bytes | None = None
    """The original's bytes when the store does not hold them yet (the CLI); None when it does
    (the station keeps every upload before it is read)."""


def prepare_registration(source: str, db: CardDatabase, limits_: LimitList,
                         options: ReadOptions | None = None, file_name: str | None = None,
                         keep_bytes: bool = True) -> PreparedRegistration:
    """Read, resolve and check an input (no event access: it runs in a worker at the station).
    Refuses an input no line of which is a card: registering it would make garbage the
    player's current list for deck checks."""
    from scanner.rules.check import check_decklist  # late: keeps `event` commands' import light

    read_data, data, own_name = _input_bytes(source)
    name = file_name or own_name
    deck = load_decklist(source, db, options, data=read_data)
    sha = sha256_bytes(data)
    if deck.sha256 is not None and sha != deck.sha256:
        raise UnreadableInput("input.changed-while-read", file=name or limits.shown(source))
    if not any(e.card_id is not None for s in SECTIONS for e in deck.sections[s]):
        raise UnreadableInput("input.no-card-line", file=name or "-")
    check = check_decklist(deck, limits_, db)
    deck.source_path = name
    return PreparedRegistration(deck=deck, sha256=sha, file_name=name, legal=check.legal,
                                infractions=[i.to_json() for i in check.infractions],
                                verdict=check.verdict, original=data if keep_bytes else None)


def _player_name(given: str | None, deck: Decklist, warnings: list[str]) -> str | None:
    """The name to store: the one a judge gave (refused when too long), else the sheet's (cut
    to the limit, with a warning: a misread sheet must not stop a registration)."""
    if given is not None and given.strip():
        return clean_name(given)
    try:
        return clean_name(deck.player_name)
    except EventError:  # longer than the limit once normalised
        warnings.append(messages.render("warn.sheet-name-cut", {"max": MAX_NAME}, "en"))
        return clean_name(deck.player_name, cut=True)


def commit_registration(ctx: EventContext, prepared: PreparedRegistration,
                        konami_id: str | None, *, name: str | None = None,
                        replace: bool = False, allow_duplicate: bool = False,
                        walk_in: bool = False, extra_json: dict | None = None,
                        guard: Guard | None = None) -> RegisterResult:
    """Store a prepared input as the player's next version (in `ctx.judge`'s name, under the
    list `ctx.limits`), every guard applied inside the record's write transaction (two desks
    cannot both pass a guard the other's write breaks):

    - `konami_id`: 10 digits after NFKC; None = the ID printed on the sheet when it was read
      with confidence (else refused); `walk_in=True` gives a player without one a `W0001` number;
    - the same original file for a second player needs `allow_duplicate=True`
      (`NeedsDecision` "duplicate-original");
    - a second version that is not a plausible deck (main < 40, most lines unreadable) or that
      drops most of the previous version needs `replace=True` (`NeedsDecision`
      "implausible-version");
    - a given name longer than the limit after normalisation is refused.
    `extra_json` is merged into the stored decklist JSON (the station's job mark); `guard`
    (the caller's own check, e.g. the station's "a player the judge was shown") runs in the
    same transaction, before the write."""
    if walk_in and konami_id:
        raise EventError("event.walk-in-with-id")
    deck = prepared.deck
    kid = normalise_konami_id(konami_id) if konami_id else None
    warnings: list[str] = []
    sheet_id = sheet_konami_id(deck)
    if kid is None and not walk_in:
        if sheet_id is None:
            raise EventError("event.no-player-id")
        kid = sheet_id
        warnings.append(f"Konami ID {kid} taken from the sheet")
    elif sheet_id and kid and sheet_id != kid:
        warnings.append(f"the sheet gives Konami ID {deck.konami_id}, registered under {kid}")
    player_name = _player_name(name, deck, warnings)
    if not (name and name.strip()) and player_name and deck.reader == "ocr":
        # One syllable misread (용지우 → 용기우) is a confident read no check can catch.
        warnings.append(f"player name {player_name} was read from the sheet by OCR: check it "
                        f"against the player (--name sets it)")

    def guards(st: EventRecord) -> None:
        if guard is not None:
            guard(st)
        others = [k for k in st.players_with_file(prepared.sha256) if k != kid]
        if others and not allow_duplicate:
            raise NeedsDecision("event.duplicate-original", decision=DUPLICATE_ORIGINAL,
                                count=len(others), players=others[:3])
        if kid is not None and not replace:
            previous = st.latest_registration(kid)
            if previous is not None:
                why = implausible_version(deck, effective_decklist(st, previous, ctx.db))
                if why:
                    raise NeedsDecision("event.implausible-version",
                                        decision=IMPLAUSIBLE_VERSION, player=kid,
                                        version=previous.version + 1,
                                        why=[str(w) for w in why],
                                        why_ko=[w.render("ko") for w in why])

    store = ctx.record
    if prepared.original is not None:
        guards(store)  # refuse before keeping the file; checked again under the lock below
        store.store_file(prepared.original)
    stored = dict(deck.to_json(), **(extra_json or {}))
    reg = store.add_registration(kid, player_name, stored, prepared.sha256, prepared.file_name,
                                 prepared.legal, prepared.infractions, ctx.limit_list.name,
                                 ctx.judge, walk_in=walk_in, guard=guards)
    return RegisterResult(registration=reg, decklist=deck, legal=prepared.legal,
                          infractions=prepared.infractions, warnings=warnings,
                          verdict=prepared.verdict)


def register_input(ctx: EventContext, source: str, konami_id: str | None, *,
                   name: str | None = None, replace: bool = False,
                   allow_duplicate: bool = False, walk_in: bool = False) -> RegisterResult:
    """Read, resolve and check a sheet, then keep it (file + list + review state) as the
    player's next version: `prepare_registration` then `commit_registration` (whose guards are
    listed there). Nothing is stored when the input cannot be read or a guard refuses."""
    if walk_in and konami_id:
        raise EventError("event.walk-in-with-id")
    if konami_id:
        normalise_konami_id(konami_id)  # a bad ID is refused before the (slow) read
    prepared = prepare_registration(source, ctx.db, ctx.limit_list, ctx.options)
    return commit_registration(ctx, prepared, konami_id, name=name, replace=replace,
                               allow_duplicate=allow_duplicate, walk_in=walk_in)


# --------------------------------------------------------------------------- deck check


@dataclass
class DeckCheckResult:
    """A deck check: the comparison, and whether (and what) it recorded."""

    recorded: bool
    compare_json: dict
    konami_id: str
    round: int
    registered_version: int
    check: DeckCheck | None = None
    """The stored deck check (None when nothing was recorded)."""
    issued: list[IssuedInfraction] = field(default_factory=list)
    """The one infraction recorded for the act (with every finding), if any."""
    to_confirm: list[dict] = field(default_factory=list)
    """Lines a judge must fix or confirm before anything is recorded."""
    not_recorded: str | None = None
    """Why nothing was recorded."""
    warnings: list[str] = field(default_factory=list)
    judge: str | None = None
    observed: Decklist | None = None
    not_recorded_code: str | None = None
    """Why nothing was recorded, as a code: review-first (the registered list has lines to
    review), observed-needs-judge (lines of the deck seen need confirming), preview."""
    digest: str = ""
    """Of the comparison as shown (`comparison_digest`): a confirmation that names it records
    exactly this comparison, or nothing."""

    @property
    def verdict(self) -> str:
        return self.compare_json.get("verdict") or ""

    @property
    def clean(self) -> bool:
        return (self.recorded and bool(self.compare_json.get("match"))
                and not self.compare_json.get("infractions"))

    def to_json(self) -> dict:
        out = dict(self.compare_json)
        time = self.check.created_at if self.check else None
        out["infractions"] = [dict(inf, round=self.round, judge=self.judge, time=time)
                              for inf in self.compare_json.get("infractions") or []]
        out.update({"player": self.konami_id, "round": self.round, "recorded": self.recorded,
                    "verdict_code": VERDICT_CODES.get(self.verdict, ""),
                    "registered_version": self.registered_version,
                    "deck_check_id": self.check.id if self.check else None,
                    "recorded_infractions": [i.to_json() for i in self.issued],
                    "to_confirm": self.to_confirm, "not_recorded": self.not_recorded,
                    "not_recorded_code": self.not_recorded_code, "preview": self.digest,
                    "judge": self.judge, "time": time, "warnings": self.warnings})
        return out


def _to_confirm(deck: Decklist, label: str) -> list[dict]:
    out = []
    for s in SECTIONS:
        for i, e in enumerate(deck.sections[s], 1):
            if e.needs_review:
                out.append({"list": label, "section": s, "line": i,
                            "position": position_label(s, i, e.column, e.row), "read": e.read,
                            "card_id": e.card_id, "name": e.name, "count": e.count,
                            "reasons": list(e.reasons),
                            "candidates": [{"card_id": c, "name": n, "score": round(sc, 3)}
                                           for c, n, sc in e.candidates[:5]]})
    for r in deck.review:
        if r.line is None and r.card_id is None:
            out.append({"list": label, "section": r.section, "line": None, "position": None,
                        "read": sheet_flag_key(r), "reasons": [r.reason], "detail": r.detail})
    return out


def confirmed_copy(deck: Decklist) -> Decklist:
    """`deck` with every flagged line taken as the judge confirmed it (a new object). A line
    with no card cannot be confirmed: the judge must write the card."""
    out = copy.deepcopy(deck)
    for s in SECTIONS:
        for i, e in enumerate(out.sections[s], 1):
            if not e.needs_review:
                continue
            if e.card_id is None:
                raise EventError("deckcheck.line-no-card", place=position_label(s, i, e.column, e.row),
                                 read=repr(e.read))
            if e.count <= 0:
                raise EventError("deckcheck.line-no-count", place=position_label(s, i, e.column, e.row),
                                 read=repr(e.read))
            e.needs_review, e.reasons, e.candidates, e.confidence = False, [Reason.CONFIRMED_BY_JUDGE], [], 1.0
    out.review = []
    return out


def _act_infraction(result, penalty) -> NewInfraction:
    """One recorded infraction for the act: the highest penalty, every finding listed."""
    findings = [i for i in result.infractions if i.code in penalty.findings]
    top = next(i for i in findings if i.code == penalty.code)
    message = " / ".join(f"[{i.code}] {i.message}" for i in findings)
    rule = top.rule + f"; {penalty.timing_rule}"
    return NewInfraction(code=top.code, penalty=top.penalty, remedy=top.remedy, rule=rule,
                         message=message, findings=[i.to_json() for i in findings])


@dataclass
class _CheckedPlayer:
    """The player a deck check is for: ID, round, newest registration and its confirmed list."""

    kid: str
    round: int
    reg: Registration
    registered: Decklist


@dataclass(frozen=True)
class _CheckRequest:
    """How a deck check was asked for."""

    between_games: bool = False
    confirm: bool = False
    preview: bool = False
    expect: str | None = None
    """The digest of the comparison the judge saw (a confirmation must record that one)."""


def _counts(deck: Decklist) -> list:
    return sorted((str(s), str(e.card_id) if e.card_id is not None else "?" + (e.read or ""), e.count)
                  for s in SECTIONS for e in deck.sections[s])


def comparison_digest(konami_id: str, registration_id: int, round_no: int, between_games: bool,
                      observed: Decklist, compare_json: dict) -> str:
    """What a deck check compared and what it showed, as one digest: the player, the version
    and its decisions' outcome (through the result), the round, the 시점, every count seen and
    the comparison. A count edited after a preview changes it."""
    import hashlib
    import json as _json

    payload = {"player": konami_id, "registration": registration_id, "round": round_no,
               "between_games": between_games, "observed": _counts(observed),
               "result": compare_json}
    return hashlib.sha256(_json.dumps(payload, sort_keys=True, ensure_ascii=False,
                                      default=str).encode()).hexdigest()[:32]


def _deck_check(ctx: EventContext, observed: Decklist, player: _CheckedPlayer,
                ask: _CheckRequest, original: tuple[bytes, str | None] | None
                ) -> DeckCheckResult:
    from scanner.rules.compare import compare_decklists

    store, kid, reg, registered = ctx.record, player.kid, player.reg, player.registered
    round_no, confirm, preview = player.round, ask.confirm, ask.preview
    judge = clean_name(ctx.judge)
    warnings: list[str] = []
    not_recorded = not_recorded_code = None
    to_confirm = _to_confirm(registered, "registered") + _to_confirm(observed, "observed")
    confirmed = False
    shown = observed  # the deck as compared before any confirmation of its lines
    if registered.needs_review:
        not_recorded_code = "review-first"
        not_recorded = (f"the registered list (version {reg.version}) still has "
                        f"{registered.needs_review} line(s) needing review: run 'decksheet review "
                        f"--player {kid}' first; nothing recorded")
    elif observed.needs_review and confirm:
        if not judge:
            raise EventError("event.judge-needed")
        observed = confirmed_copy(observed)
        to_confirm, confirmed = [], True
    elif observed.needs_review:
        not_recorded_code = "observed-needs-judge"
        not_recorded = (f"{observed.needs_review} line(s) of the observed deck need a judge: fix "
                        f"or confirm them, then run again with --confirm; nothing recorded")
    if preview and not_recorded is None:
        not_recorded_code, not_recorded = "preview", "preview: nothing recorded"
    result = compare_decklists(registered, observed, between_games=ask.between_games,
                               db=ctx.db, limits=ctx.limit_list)
    compare_json = result.to_json()
    digest = comparison_digest(kid, reg.id, round_no, ask.between_games, shown,
                               compare_decklists(registered, shown,
                                                 between_games=ask.between_games, db=ctx.db,
                                                 limits=ctx.limit_list).to_json()
                               if shown is not observed else compare_json)
    if confirm and ask.expect is not None and ask.expect != digest:
        raise EventError("deckcheck.changed-since-preview")
    out = DeckCheckResult(recorded=False, compare_json=compare_json, konami_id=kid,
                          round=round_no, registered_version=reg.version, to_confirm=to_confirm,
                          not_recorded=not_recorded, warnings=warnings, judge=judge,
                          observed=observed, not_recorded_code=not_recorded_code,
                          digest=digest)
    if not_recorded is not None:
        return out
    sha = None
    if original is not None:
        sha = store.store_file(original[0])
    issued_new = [_act_infraction(result, result.penalty)] if result.penalty else []
    check, issued = store.add_deck_check(
        kid, round_no, reg.id, result.mode, bool(result.match), sha, observed.to_json(),
        compare_json, issued_new, judge, confirmed=confirmed)
    out.recorded, out.check, out.issued = True, check, issued
    return out


def _checked_player(ctx: EventContext, konami_id: str, round_no: int) -> _CheckedPlayer:
    kid = lookup_konami_id(konami_id)
    round_no = check_round(round_no)
    reg = ctx.record.latest_registration(kid)
    if reg is None:
        raise EventError("event.no-registration", player=kid)
    return _CheckedPlayer(kid, round_no, reg, effective_decklist(ctx.record, reg, ctx.db))


def deck_check(ctx: EventContext, observed_source: str, konami_id: str, round_no: int, *,
               between_games: bool = False, confirm: bool = False,
               preview: bool = False) -> DeckCheckResult:
    """Compare the deck seen at the table (any input `scan` reads) with the player's newest
    registered list, its lines matched against that list first, and record the check and the
    one penalty it gives — only when every line is certain, or `confirm=True` with a judge;
    otherwise `recorded` is False and `to_confirm` lists what to fix or confirm.
    `preview=True` never records."""
    from scanner.rules.observed import resolve_observed

    player = _checked_player(ctx, konami_id, round_no)
    read_data, data, file_name = _input_bytes(observed_source)
    sheet, digest = read_input(observed_source, ctx.db, ctx.options, read_data)
    if digest is not None and digest != sha256_bytes(data):
        raise UnreadableInput("input.changed-while-read",
                              file=file_name or limits.shown(observed_source))
    observed = resolve_observed(sheet, player.registered, ctx.db)
    observed.source_path, observed.sha256 = file_name or str(observed_source), digest
    return _deck_check(ctx, observed, player, _CheckRequest(between_games, confirm, preview),
                       (data, file_name))


def deck_check_decklist(ctx: EventContext, observed: Decklist, konami_id: str, round_no: int,
                        *, between_games: bool = False, confirm: bool = False,
                        preview: bool = False, expect: str | None = None) -> DeckCheckResult:
    """`deck_check` for an observed deck already built as a `Decklist` (e.g. the station's
    checklist of the registered cards with the counts the judge corrected). Lines with
    `needs_review` follow the same rule: recorded only when certain or confirmed. `expect`:
    the `digest` of the preview the judge saw; a confirmation whose comparison now differs
    (a count edited, another 시점, the list changed) is refused and records nothing."""
    player = _checked_player(ctx, konami_id, round_no)
    return _deck_check(ctx, copy.deepcopy(observed), player,
                       _CheckRequest(between_games, confirm, preview, expect), None)


# --------------------------------------------------------------------------- void / amend


@dataclass
class VoidResult:
    infraction: IssuedInfraction
    amendment: Amendment

    def to_json(self) -> dict:
        return {"infraction": self.infraction.to_json(), "amendment": self.amendment.to_json()}


def void_infraction(store: EventRecord, infraction_id: int, *, reason: str, judge: str | None,
                    new_penalty: str | None = None) -> VoidResult:
    """Void a recorded infraction, or amend its penalty (`new_penalty`), with a reason and the
    judge's name (no card database needed: it takes the record alone). Appended: the
    infraction row stays, and the audit and `player_status` show both."""
    reason = " ".join((reason or "").split())
    judge = clean_name(judge)
    if not reason:
        raise EventError("event.void-needs-reason")
    if not judge:
        raise EventError("event.judge-needed")
    if new_penalty is not None:
        new_penalty = new_penalty.strip().upper()
        if new_penalty not in PENALTY_KO or new_penalty == "NONE":
            raise EventError("event.unknown-penalty", penalty=repr(new_penalty)[:40],
                             known=[p for p in PENALTY_KO if p != "NONE"])
    current = store.infraction(int(infraction_id))
    if current is None:
        raise EventError("event.no-infraction", id=infraction_id)
    if current.status == "voided" and new_penalty is None:
        raise EventError("event.already-void", id=infraction_id)
    amendment = store.add_amendment(int(infraction_id), "amend" if new_penalty else "void",
                                    reason, judge, new_penalty)
    refreshed = store.infraction(int(infraction_id))
    assert refreshed is not None
    return VoidResult(infraction=refreshed, amendment=amendment)


def void_deck_check(store: EventRecord, check_id: int, *, reason: str,
                    judge: str | None) -> DeckCheck:
    """Void a recorded deck check (with a reason and the judge): appended, with a void of the
    infraction it issued; the check stays in the record, shown as 무효."""
    return store.void_deck_check(int(check_id), reason, judge or "")


def confirm_sheet(store: EventRecord, konami_id: str, version: int, *, judge: str | None,
                  how: str = "page", sheet_id: str | None = None):
    """A judge confirms whose sheet a version is (`EventRecord.confirm_sheet`: a sheet that
    carries another player's Konami ID needs `sheet_id` naming it)."""
    return store.confirm_sheet(lookup_konami_id(konami_id), int(version), judge or "", how,
                               sheet_id)


# --------------------------------------------------------------------------- review decisions


@dataclass
class ReviewResult:
    """Decisions stored for one registration, and where that leaves it."""

    registration: Registration
    decisions: list[ReviewDecision]
    needs_review: int
    verdict: str
    infractions: list[dict]

    def to_json(self) -> dict:
        return {"player": self.registration.konami_id, "version": self.registration.version,
                "decisions": [d.to_json() for d in self.decisions],
                "needs_review": self.needs_review, "verdict": self.verdict,
                "verdict_code": VERDICT_CODES[self.verdict], "infractions": self.infractions}


def _line_state(e: Entry | None) -> dict | None:
    if e is None:
        return None
    return {"card_id": e.card_id, "name": e.name, "count": e.count,
            "needs_review": e.needs_review}


def decision_for(deck: Decklist, registration_id: int, section: str | None, line: int | None,
                 action: str, card_id: int | None = None, count: int | None = None,
                 judge: str | None = None, db: CardDatabase | None = None,
                 reason: str | None = None, detail: str | None = None,
                 entry: int | None = None) -> ReviewDecision:
    """A decision on the line as it stands in `deck` (the confirmed list so far), with the line
    before and after it. A sheet-level item (`line` None) is named by its reason and, where
    several share it, its detail; `choose` on it restores a struck row (card and count) or, on
    an item whose lines were not read (a table not found), enters line number `entry` of it;
    `keep` does not close such an item unless the sheet's printed total says it holds no card.
    `remove` takes a line out of the list."""
    if action not in ACTIONS:
        raise EventError("review.unknown-action", action=repr(action)[:40])
    if line is None and action == REMOVE:
        raise EventError("review.remove-lines-only")
    if line is None:
        flag = next((r for r in deck.review if r.line is None and r.card_id is None
                     and r.section == section and (reason is None or r.reason == reason)
                     and (detail is None or r.detail == detail)), None)
        if flag is None:
            raise EventError("review.no-sheet-item", section=section or "sheet")
        after: dict = {"flag": flag.reason, "action": action}
        key = sheet_flag_key(flag)
        if action == KEEP and lines_missing(flag) and not sum_agrees(deck, flag.section):
            # "Checked" would leave the cards of that table entered nowhere.
            raise EventError("review.enter-lines-first")
        if action == CHOOSE:  # restore the struck row, or enter a line of an unread table
            card = db.get(card_id) if (db is not None and card_id is not None) else None
            if section not in SECTIONS or not (flag.reason == Reason.STRUCK_THROUGH
                                               or lines_missing(flag)):
                raise EventError("review.restore-only-struck")
            if card is None or count is None or not 1 <= count <= 3:
                raise EventError("review.restore-needs-card")
            card_id = card.card_id
            after.update(card_id=card.card_id, name=card.name, count=count)
            if lines_missing(flag):
                if entry is None or not 1 <= entry <= 200:
                    raise EventError("review.entry-number", entry=entry)
                key, after["entry"] = f"{key}{ENTERED}{entry}", entry
        return ReviewDecision(registration_id, section, None, key, action,
                              card_id if action == CHOOSE else None,
                              count if action == CHOOSE else None, judge=judge,
                              before={"flag": flag.reason, "detail": flag.detail}, after=after)
    if section not in SECTIONS or not 1 <= line <= len(deck.sections[section]):
        raise EventError("review.no-line", line=line, section=section)
    e = deck.sections[section][line - 1]
    after = copy.deepcopy(e)
    if action == CHOOSE:
        card = db.get(card_id) if (db is not None and card_id is not None) else None
        if card is None:
            raise EventError("review.unknown-card", card_id=card_id)
        if count is not None and not 1 <= count <= 3:
            raise EventError("review.bad-count", count=count)
        after.card_id, after.name = card.card_id, card.name
        after.count = count if count is not None else e.count
        after.needs_review = False
    elif action == REMOVE:
        after.card_id, after.name, after.count, after.needs_review = None, "", 0, False
    elif action == KEEP:
        if e.card_id is None:
            raise EventError("review.keep-no-card", place=position_label(section, line, e.column, e.row))
        if not 1 <= e.count <= 3:
            raise EventError("review.keep-bad-count",
                             place=position_label(section, line, e.column, e.row), count=e.count)
        after.needs_review = False
    state = _line_state(after)
    if action == REMOVE and state is not None:
        state["removed"] = True
    return ReviewDecision(registration_id, section, line, e.read, action,
                          card_id if action == CHOOSE else None,
                          count if action == CHOOSE else None,
                          judge=judge, before=_line_state(e), after=state)


def record_review_decision(ctx: EventContext, konami_id: str, section: str | None,
                           line: int | None, action: str, *, card_id: int | None = None,
                           count: int | None = None, version: int | None = None,
                           reason: str | None = None) -> ReviewResult:
    """Store one judge's decision on a flagged line (or a sheet-level item: `line=None`,
    `reason` naming it) of a player's registration, with the judge (`ctx.judge`), the time and
    the line before → after; returns the verdict the list has now."""
    store = ctx.record
    kid = lookup_konami_id(konami_id)
    reg = store.registration(kid, version) if version else store.latest_registration(kid)
    if reg is None:
        raise EventError("event.no-version", player=kid, version=version or "-")
    deck = effective_decklist(store, reg, ctx.db, keep_removed=True)
    d = decision_for(deck, reg.id, section, line, action, card_id, count, clean_name(ctx.judge),
                     ctx.db, reason)
    return record_review_decisions(ctx, reg, [d])


def record_review_decisions(ctx: EventContext, reg: Registration,
                            decisions: list[ReviewDecision]) -> ReviewResult:
    """Store decisions (one transaction, in `ctx.judge`'s name) and return where the
    registration stands now. A withdrawn version takes no more decisions."""
    if reg.withdrawal is not None:
        raise EventError("event.version-withdrawn", player=reg.konami_id, version=reg.version)
    ctx.record.add_decisions(decisions, clean_name(ctx.judge))
    deck, check = registration_check(ctx, reg)
    verdict = check.verdict if check is not None else _stored_verdict(reg, deck)
    return ReviewResult(registration=reg, decisions=decisions, needs_review=deck.needs_review,
                        verdict=verdict,
                        infractions=[i.to_json() for i in check.infractions] if check else [])


# --------------------------------------------------------------------------- player status


@dataclass
class PlayerStatus:
    """One player's state: current list, verdict, versions, deck checks, infractions."""

    konami_id: str
    name: str | None
    registration: Registration | None
    decklist: Decklist | None
    verdict: str
    infractions_now: list[dict]
    versions: list[Registration]
    deck_checks: list[DeckCheck]
    infractions: list[IssuedInfraction]
    decisions: list[ReviewDecision]
    record: "PlayerRecord | None" = None
    """The effective record (`scanner.event.effective`), as every view shows it."""

    @property
    def penalties_in_force(self) -> list[IssuedInfraction]:
        return [i for i in self.infractions if i.effective_penalty is not None]

    def to_json(self) -> dict:
        reg = self.registration
        return {"player": self.konami_id, "name": self.name,
                "version": reg.version if reg else None,
                "status": ("not-registered" if reg is None else VERDICT_CODES[self.verdict]),
                "verdict": self.verdict if reg else None,
                "verdict_code": VERDICT_CODES[self.verdict] if reg else None,
                "needs_review": self.decklist.needs_review if self.decklist else None,
                "list": self.decklist.to_json() if self.decklist else None,
                "infractions_now": self.infractions_now,
                "versions": [r.summary_json() for r in self.versions],
                "deck_checks": [c.summary_json() for c in self.deck_checks],
                "infractions": [i.to_json() for i in self.infractions],
                "penalties_in_force": [i.id for i in self.penalties_in_force],
                "review_decisions": [d.to_json() for d in self.decisions],
                "sheet": reg.identity.to_json() if reg else None,
                "record": self.record.summary() if self.record else None}


def find_player(store: EventRecord, who: str) -> str:
    """A Konami ID from an ID or a player's name (one-line refusal when none or several)."""
    try:
        kid = lookup_konami_id(who)
        if (store.latest_registration(kid) is not None or store.player_name(kid) is not None
                or store.registrations(konami_id=kid)):  # every version withdrawn
            return kid
    except EventError:
        pass
    found = store.find_players(who)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise EventError("event.ambiguous-player", count=len(found), who=repr(who)[:60],
                         players=found[:5])
    raise EventError("event.no-player", who=repr(who)[:60])


def player_status(ctx: EventContext, konami_id: str) -> PlayerStatus:
    """A player's current list (review decisions applied), its verdict (적합 / 확인 필요 /
    부적합; re-checked when `ctx.limits` is given, else as stored), every version, every deck
    check and every infraction with its voids/amendments applied."""
    store = ctx.record
    kid = find_player(store, konami_id)
    versions = store.registrations(konami_id=kid)
    live = [v for v in versions if v.withdrawal is None]
    reg = live[-1] if live else None  # a withdrawn version is never the current one
    deck, check = (registration_check(ctx, reg) if reg else (None, None))
    if reg is None:
        verdict = NEEDS_REVIEW
    elif check is not None:
        verdict = check.verdict
    else:
        verdict = _stored_verdict(reg, deck)
    infractions_now = ([i.to_json() for i in check.infractions] if check is not None
                       else (reg.infractions if reg else []))
    decisions = [d for r in versions for d in store.decisions(r.id)]
    record = player_record(store, kid)
    return PlayerStatus(konami_id=kid, name=store.player_name(kid), registration=reg,
                        decklist=deck, verdict=verdict, infractions_now=infractions_now,
                        versions=versions, deck_checks=record.deck_checks,
                        infractions=record.infractions, decisions=decisions, record=record)
