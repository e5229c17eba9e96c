"""Event flows on top of the store: register a sheet, run a deck check, apply review decisions.

Each flow reads and checks first and writes last (one transaction), so a refused or failed
request stores nothing. See `scanner.event.store` for the storage and its safety rules.
"""
from __future__ import annotations

import copy
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from card_db.cdb import CardDatabase
from card_db.lflist import choose_list, load_lflist, resolve_lflist_path
from card_db.models import LimitList
from scanner.errors import EventError, RegulationError, UnreadableInput
from scanner.event.store import (DeckCheck, EventInfo, EventStore, IssuedInfraction,
                                 NewInfraction, Registration, ReviewDecision,
                                 normalise_konami_id)
from scanner.model import SECTIONS, Decklist, Entry, ReviewFlag
from scanner.inputs.options import ReadOptions
from scanner.read import load_decklist

KEEP, CHOOSE, SKIP = "keep", "choose", "skip"


# --------------------------------------------------------------------------- regulation


def event_limits(event: EventInfo, db: CardDatabase, lflist: str | os.PathLike | None = None,
                 list_name: str | None = None, extra_bans: bool = True) -> LimitList:
    """The list for this event: an explicit --list, else the event's own, else the OCG list in
    force on the event date (the rules: the newest regulation on the day of the event)."""
    path = resolve_lflist_path(lflist)
    if path is None:
        raise RegulationError("no limit list file: give --lflist PATH, set DECKSHEET_LFLIST "
                              "or run 'decksheet db fetch'")
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


def apply_decisions(deck: Decklist, decisions: list[ReviewDecision], db: CardDatabase) -> Decklist:
    """The list a judge confirmed: `deck` with review decisions applied (a new object).

    A decision applies only while the line still reads the same (`read`), so a re-read by a
    changed reader can never attach an old answer to another line. The latest decision for a
    line wins; `skip` leaves it flagged.
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
        e.confidence, e.needs_review, e.reasons, e.candidates = 1.0, False, [], []
        decided_lines.add((section, line))
    review = [r for r in out.review
              if not (r.line is not None and (r.section, r.line) in decided_lines)
              and r.reason != "total-mismatch"]
    # Totals are re-derived: a corrected count may have fixed (or caused) a mismatch.
    totals = out.totals()
    for s in SECTIONS:
        printed = out.printed_totals.get(s)
        if printed is not None and printed != totals[s]:
            review.append(ReviewFlag(section=s, reason="total-mismatch",
                                     detail=f"printed total {printed} ≠ sum of lines {totals[s]}"))
    kept_sheet = {(d.section, d.read) for (_, line, _), d in latest.items()
                  if line is None and d.action == KEEP}
    out.review = [r for r in review
                  if not (r.line is None and r.card_id is None and (r.section, r.reason) in kept_sheet)]
    return out


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
            out.append((r.section, None, r.reason, r))
    return out


def effective_decklist(store: EventStore, reg: Registration, db: CardDatabase) -> Decklist:
    """A registration's list as confirmed so far (stored read + review decisions)."""
    return apply_decisions(decklist_from_json(reg.decklist_json), store.decisions(reg.id), db)


# --------------------------------------------------------------------------- register


@dataclass
class RegisterResult:
    registration: Registration
    decklist: Decklist
    """The list as read (flags included)."""
    legal: bool
    infractions: list[dict]
    warnings: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return self.legal and self.registration.needs_review == 0

    def to_json(self) -> dict:
        r = self.registration
        return {"player": r.konami_id, "version": r.version, "legal": self.legal,
                "needs_review": r.needs_review, "infractions": self.infractions,
                "name": r.player_name, "sha256": r.file_sha256, "reader": r.reader,
                "list": r.list_name, "totals": self.decklist.totals(),
                "review": [f.to_json() for f in self.decklist.review],
                "warnings": self.warnings}


def _input_bytes(source: str) -> tuple[bytes, str | None]:
    """The bytes to keep as the original, and a file name (None for a literal ydke:// URL)."""
    p = Path(source)
    if p.is_file():
        try:
            return p.read_bytes(), p.name
        except OSError as exc:
            raise UnreadableInput(f"cannot read {p}: {exc.strerror}") from None
    if source.strip().lower().startswith("ydke://"):
        return source.strip().encode("utf-8"), None
    if p.is_dir():
        raise UnreadableInput(f"{p} is a folder, not a file")
    raise UnreadableInput(f"no such file: {p}")


def register_input(store: EventStore, source: str, konami_id: str, db: CardDatabase,
                   limits: LimitList, name: str | None = None, judge: str | None = None,
                   options: ReadOptions | None = None) -> RegisterResult:
    """Read, resolve and check a sheet, then keep it (file + list + review state) as the
    player's next version. Nothing is stored when the input cannot be read."""
    from scanner.rules.check import check_decklist  # late: keeps `event` commands' import light

    kid = normalise_konami_id(konami_id)
    data, file_name = _input_bytes(source)
    deck = load_decklist(source, db, options)
    if deck.sha256 is not None and hashlib.sha256(data).hexdigest() != deck.sha256:
        raise UnreadableInput(f"{source} changed while it was being read; register it again")
    if not any(e.card_id is not None for s in SECTIONS for e in deck.sections[s]):
        # Registering it would make garbage the player's current list for deck checks.
        raise UnreadableInput(f"no line of {file_name or 'the input'} is a card: not a decklist; "
                              f"nothing registered")
    sha = store.store_file(data)
    if file_name:
        deck.source_path = file_name
    warnings: list[str] = []
    sheet_id = "".join(ch for ch in (deck.konami_id or "") if ch.isdigit())
    if sheet_id and sheet_id != kid:
        warnings.append(f"the sheet gives Konami ID {deck.konami_id}, registered under {kid}")
    check = check_decklist(deck, limits, db)
    infractions = [i.to_json() for i in check.infractions]
    reg = store.add_registration(kid, name or deck.player_name, deck.to_json(), sha, file_name,
                                 check.legal, infractions, limits.name, judge)
    return RegisterResult(registration=reg, decklist=deck, legal=check.legal,
                          infractions=infractions, warnings=warnings)


# --------------------------------------------------------------------------- deck check


@dataclass
class DeckCheckResult:
    check: DeckCheck
    issued: list[IssuedInfraction]
    compare_json: dict
    registered_version: int
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        out = dict(self.compare_json)
        out["infractions"] = [dict(inf, round=self.check.round, judge=self.check.judge,
                                   time=self.check.created_at)
                              for inf in self.compare_json.get("infractions") or []]
        out.update({"player": self.check.konami_id, "round": self.check.round,
                    "registered_version": self.registered_version,
                    "deck_check_id": self.check.id, "judge": self.check.judge,
                    "time": self.check.created_at, "warnings": self.warnings})
        return out


def deck_check(store: EventStore, observed_source: str, konami_id: str, round_no: int,
               db: CardDatabase, limits: LimitList, between_games: bool = False,
               judge: str | None = None, options: ReadOptions | None = None) -> DeckCheckResult:
    """Compare the deck seen at the table with the player's newest registered list and record
    the check and every infraction it finds (penalty, remedy, round, judge, time)."""
    from scanner.rules.compare import compare_decklists  # late: another stage's module

    kid = normalise_konami_id(konami_id)
    if round_no < 0:
        raise EventError(f"round must be 0 or more, not {round_no}")
    reg = store.latest_registration(kid)
    if reg is None:
        raise EventError(f"player {kid} has no registered decklist in this event "
                         f"(register it first with 'decksheet register')")
    registered = effective_decklist(store, reg, db)
    data, file_name = _input_bytes(observed_source)
    observed = load_decklist(observed_source, db, options)
    sha = store.store_file(data)
    if file_name:
        observed.source_path = file_name
    result = compare_decklists(registered, observed, between_games=between_games, db=db,
                               limits=limits)
    compare_json = result.to_json()
    warnings = []
    if registered.needs_review:
        warnings.append(f"the registered list (version {reg.version}) still has "
                        f"{registered.needs_review} line(s) needing review: "
                        f"run 'decksheet review --player {kid}'")
    if observed.needs_review:
        warnings.append(f"{observed.needs_review} line(s) of the observed list need review")
    check, issued = store.add_deck_check(
        kid, round_no, reg.id, compare_json.get("mode") or result.mode, bool(result.match), sha,
        observed.to_json(), compare_json, [NewInfraction.of(i) for i in result.infractions],
        judge)
    return DeckCheckResult(check=check, issued=issued, compare_json=compare_json,
                           registered_version=reg.version, warnings=warnings)
