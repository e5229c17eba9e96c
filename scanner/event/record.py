"""The event record: its rules written once, over whichever database holds it.

`EventRecord` is what flows, commands and the station work on (`scanner.event.stores` opens
one from the `--event` value). It holds players, registrations (every version), review
decisions, deck checks, infractions issued, their voids/amendments, withdrawals and an
append-only audit log, and the originals by sha256. What a row says, in what order rows are
numbered and what refuses a write is decided here; the backend (`scanner.event.backend`) only
stores, reads and locks. Every refusal is a coded `EventError`, whichever backend.

A withdrawn version (`withdraw_registration`, a row of its own) stays in the record and in
`registrations()` (with `.withdrawal` set) but is never a player's current version:
`latest_registration`, `registrations(latest_only=True)` and `players_with_file` skip it.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from scanner.errors import EventError
from scanner.event.backend import (ORDER_KEY, RECORD_COLUMNS, RecordBackend, audit_row,
                                   rows_in_order)
from scanner.event.records import (OTHER_ID, Amendment, DeckCheck, DeckCheckVoid, EventInfo,
                                   IssuedInfraction, NewInfraction, Registration,
                                   ReviewDecision, SheetConfirmation, SheetIdentity, Withdrawal,
                                   clean_name, clean_text, now_iso, withdraw_reason)

JOB_KEY = "station_job"
"""Key in a registration's stored decklist JSON naming the station job that made it: a job
registers once, even when two readers finish it."""
_WALK_IN_NUMBER = re.compile(r"W([0-9]+)")

Guard = Callable[["EventRecord"], None]
"""Runs inside a registration's write transaction, before the write: refuses by raising."""


def event_name(raw: str | None) -> str:
    """An event's name as stored (refused when empty)."""
    name = clean_name(raw) or ""
    if not name:
        raise EventError("event.needs-name")
    return name


class EventRecord:
    """One open event (use as a context manager; `close()` when done)."""

    def __init__(self, backend: RecordBackend) -> None:
        self.backend = backend

    @classmethod
    def initialise(cls, backend: RecordBackend, name: str, date: dt.date,
                   list_name: str | None = None, copied_at: str | None = None) -> "EventRecord":
        """Write a new event's header into `backend` (closed again if that is refused).
        `copied_at`: the header's time of an event being copied here (its own log comes with
        it: no init entry)."""
        record = cls(backend)
        try:
            with record._write():
                backend.write_header(name, date.isoformat(), list_name, copied_at or now_iso())
                if copied_at is None:
                    record._log("event-init", {"name": name, "date": date.isoformat(),
                                               "list": list_name})
        except BaseException:
            backend.close()
            raise
        return record

    @property
    def location(self) -> str:
        return self.backend.location

    @property
    def readonly(self) -> bool:
        return self.backend.readonly

    @property
    def steps(self) -> list[str]:
        return self.backend.steps

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> "EventRecord":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction: all of it commits, or none of it."""
        if self.readonly:
            raise EventError("event.read-only", path=self.location)
        with self.backend.transaction():
            yield

    def _log(self, action: str, detail: dict, actor: str | None = None) -> None:
        self.backend.insert("audit_log", audit_row(action, detail, actor))

    def log(self, action: str, detail: dict, actor: str | None = None,
            on_registration: int | None = None) -> bool:
        """Append to the audit log; a read-only record logs nothing (returns False). An entry
        `on_registration` (a check-in confirmed on a version) is refused, in the same
        transaction, when that version was withdrawn."""
        if self.readonly:
            return False
        with self._write():
            if on_registration is not None:
                self._refuse_withdrawn({on_registration})
            self._log(action, detail, actor)
        return True

    # ------------------------------------------------------------------ reading

    def event(self) -> EventInfo:
        row = self.backend.header()
        if row is None:
            raise EventError("event.no-header", location=self.location)
        return EventInfo(path=self.backend.path, name=row["name"],
                         date=dt.date.fromisoformat(row["date"]), list_name=row["list_name"],
                         created_at=row["created_at"])

    def file_path(self, sha256: str) -> Path:
        return self.backend.file_path(sha256)

    def file_bytes(self, sha256: str) -> bytes | None:
        return self.backend.file_bytes(sha256)

    def file_digests(self) -> list[str]:
        """Every original kept with the event, by digest."""
        return self.backend.file_digests()

    def player_name(self, konami_id: str) -> str | None:
        rows = self.backend.rows("players", {"konami_id": konami_id}, "konami_id", "name")
        return rows[0]["name"] if rows else None

    def players(self) -> list[tuple[str, str | None]]:
        return [(r["konami_id"], r["name"]) for r in
                self.backend.rows("players", order="konami_id", columns="konami_id, name")]

    def find_players(self, name: str) -> list[str]:
        """Konami IDs of players whose (cleaned) name equals `name`, else contains it."""
        want = (clean_name(name) or "").casefold()
        if not want:
            return []
        players = self.players()
        exact = [k for k, n in players if n and n.casefold() == want]
        return exact or [k for k, n in players if n and want in n.casefold()]

    def walk_in_ids(self) -> list[str]:
        return [k for k, _ in self.players() if k.upper().startswith("W")]

    def _withdrawn(self, where: Mapping[str, Any] | None = None) -> dict[int, Withdrawal]:
        """Withdrawals by registration id (none on a schema from before withdrawals)."""
        if not self.backend.has_table("registration_withdrawals"):
            return {}
        return {w.registration_id: w for w in map(Withdrawal.from_row, self.backend.rows(
            "registration_withdrawals", where))}

    def _confirmations(self, where: Mapping[str, Any] | None = None
                       ) -> dict[int, SheetConfirmation]:
        """The first sheet confirmation per registration id (none on an older schema)."""
        if not self.backend.has_table("sheet_confirmations"):
            return {}
        out: dict[int, SheetConfirmation] = {}
        for c in map(SheetConfirmation.from_row, self.backend.rows("sheet_confirmations", where)):
            out.setdefault(c.registration_id, c)
        return out

    def _refuse_withdrawn(self, registration_ids: set[int]) -> None:
        """Inside a write: nothing more is recorded on a withdrawn version. Checked in the same
        transaction as the write it guards, so a withdrawal at the same moment is either before
        it (refused) or after it; never between the look and the write."""
        if registration_ids:
            found = self._withdrawn({"registration_id": tuple(sorted(registration_ids))})
            if found:
                w = next(iter(found.values()))
                raise EventError("event.version-withdrawn", player=w.konami_id, version=w.version)

    def _registrations(self, where: Mapping[str, Any] | None = None) -> list[Registration]:
        """Registrations (every version), by player then version, withdrawals and sheet
        confirmations attached."""
        rows = self.backend.rows("registrations", where, "konami_id, version")
        if not rows:
            return []
        kids = {r["konami_id"] for r in rows}
        if len(kids) == 1:  # one player's versions: no need to read everyone
            (kid,) = kids
            names = {kid: self.player_name(kid)}
            withdrawn = self._withdrawn({"konami_id": kid})
            confirmed = self._confirmations({"konami_id": kid})
        else:
            names, withdrawn = dict(self.players()), self._withdrawn()
            confirmed = self._confirmations()
        out = []
        for r in rows:
            reg = Registration.from_row({**r, "name": names.get(r["konami_id"])})
            reg.withdrawal = withdrawn.get(reg.id)
            reg.confirmation = confirmed.get(reg.id)
            out.append(reg)
        return out

    def latest_registration(self, konami_id: str) -> Registration | None:
        """The player's current version: the newest one not withdrawn."""
        live = [r for r in self._registrations({"konami_id": konami_id}) if r.withdrawal is None]
        return live[-1] if live else None

    def registration(self, konami_id: str, version: int) -> Registration | None:
        found = self._registrations({"konami_id": konami_id, "version": version})
        return found[0] if found else None

    def registration_by_id(self, registration_id: int) -> Registration | None:
        found = self._registrations({"id": registration_id})
        return found[0] if found else None

    def registration_of_job(self, job_id: str) -> Registration | None:
        """The registration a station job made, if it made one."""
        reg_id = self.backend.registration_of_job(job_id)
        return self.registration_by_id(reg_id) if reg_id is not None else None

    def registrations(self, latest_only: bool = False,
                      konami_id: str | None = None) -> list[Registration]:
        """Every stored version (withdrawn ones with `.withdrawal` set), or only each player's
        current one (newest not withdrawn), by player then version."""
        regs = self._registrations({"konami_id": konami_id} if konami_id is not None else None)
        if not latest_only:
            return regs
        current = {r.konami_id: r for r in regs if r.withdrawal is None}
        return [r for r in regs if current.get(r.konami_id) is r]

    def players_with_file(self, sha256: str) -> list[str]:
        """Players holding this original in a version that is not withdrawn."""
        rows = self.backend.rows("registrations", {"file_sha256": sha256}, "id",
                                 "id, konami_id")
        withdrawn = self._withdrawn() if rows else {}
        return sorted({r["konami_id"] for r in rows if r["id"] not in withdrawn})

    def withdrawals(self) -> list[Withdrawal]:
        return sorted(self._withdrawn().values(), key=lambda w: w.id)

    def decisions(self, registration_id: int | None = None) -> list[ReviewDecision]:
        """Review decisions (of one registration), oldest first (a later one wins)."""
        where = {"registration_id": registration_id} if registration_id is not None else None
        return [ReviewDecision.from_row(r) for r in self.backend.rows("review_decisions", where)]

    def deck_checks(self, konami_id: str | None = None) -> list[DeckCheck]:
        """Recorded deck checks (by round), each with its void, if any."""
        where = {"konami_id": konami_id} if konami_id else None
        checks = [DeckCheck.from_row(r) for r in self.backend.rows("deck_checks", where,
                                                                   "round, id")]
        if checks and self.backend.has_table("deck_check_voids"):
            voids = {v.deck_check_id: v for v in map(DeckCheckVoid.from_row, self.backend.rows(
                "deck_check_voids", where))}
            for c in checks:
                c.void = voids.get(c.id)
        return checks

    def deck_check(self, check_id: int) -> DeckCheck | None:
        return next((c for c in self.deck_checks() if c.id == check_id), None)

    def amendments(self) -> list[Amendment]:
        if not self.backend.has_table("infraction_amendments"):
            return []
        return [Amendment.from_row(r) for r in self.backend.rows("infraction_amendments")]

    def infractions(self, konami_id: str | None = None) -> list[IssuedInfraction]:
        """Recorded infractions with their voids/amendments attached, oldest first."""
        return self._infractions({"konami_id": konami_id} if konami_id else None)

    def _infractions(self, where: Mapping[str, Any] | None) -> list[IssuedInfraction]:
        out = [IssuedInfraction.from_row(r) for r in self.backend.rows("infractions", where)]
        by_id = {i.id: i for i in out}
        for a in self.amendments() if out else []:
            if a.infraction_id in by_id:
                by_id[a.infraction_id].amendments.append(a)
        return out

    def infraction(self, infraction_id: int) -> IssuedInfraction | None:
        found = self._infractions({"id": infraction_id})
        return found[0] if found else None

    def audit_log(self) -> list[tuple[str, str | None, str, dict]]:
        return [(r["at"], r["actor"], r["action"], json.loads(r["detail"])) for r in
                self.backend.rows("audit_log", columns="at, actor, action, detail")]

    def record_rows(self, table: str) -> list[dict]:
        """The rows of one record table (the columns both stores share), in canonical order
        (a column an older schema lacks reads as None)."""
        if not self.backend.has_table(table):
            return []
        return rows_in_order(table, [dict(r) for r in self.backend.rows(
            table, order=ORDER_KEY.get(table, "id"))])

    def integrity(self) -> list[str]:
        """Problems with the record: the database's own checks, plus originals (registrations
        and deck checks) whose file is missing or no longer has its digest."""
        named = {r["file_sha256"] for r in self.backend.rows("registrations",
                                                             columns="id, file_sha256")}
        named |= {r["observed_sha256"] for r in self.backend.rows(
            "deck_checks", columns="id, observed_sha256") if r["observed_sha256"] is not None}
        return self.backend.integrity() + self.backend.file_problems(sorted(named))

    # ------------------------------------------------------------------ writing

    def store_file(self, data: bytes) -> str:
        """Keep an original file under its sha256 (durable before any row names it)."""
        if self.readonly:
            raise EventError("event.read-only", path=self.location)
        return self.backend.put_file(data)

    def _need_file(self, sha256: str) -> None:
        if not self.backend.has_file(sha256):
            raise EventError("event.file-missing", sha=sha256[:12],
                             folder=self.backend.files_location)

    def add_registration(self, konami_id: str | None, player_name: str | None,
                         decklist_json: dict, file_sha256: str, file_name: str | None,
                         legal: bool, infractions: list[dict], list_name: str | None,
                         judge: str | None = None, walk_in: bool = False,
                         guard: Guard | None = None) -> Registration:
        """Store a new version of the player's list (the file must be stored already).
        A list made by a station job (`JOB_KEY` in its JSON) is stored once: the same job again
        returns the registration it made. `walk_in=True`: a new player without a Konami ID gets
        the next `W0001` number (given inside the transaction, so two desks never hand out the
        same one). `guard(record)` runs inside the transaction, before the write."""
        self._need_file(file_sha256)
        needs_review = needs_review_count(decklist_json)
        job_id = decklist_json.get(JOB_KEY)
        with self._write():
            if job_id and (earlier := self.registration_of_job(str(job_id))) is not None:
                return earlier
            if guard is not None:
                guard(self)
            if walk_in:
                konami_id = self._next_walk_in()
            if not konami_id:
                raise EventError("event.no-id")
            self._upsert_player(konami_id, clean_name(player_name), judge)
            version = 1 + max((r["version"] for r in self.backend.rows(
                "registrations", {"konami_id": konami_id}, "id", "id, version")), default=0)
            reg_id = self.backend.insert("registrations", {
                "konami_id": konami_id, "version": version, "file_sha256": file_sha256,
                "file_name": file_name,
                "reader": (decklist_json.get("source") or {}).get("reader") or "?",
                "decklist_json": json.dumps(decklist_json, ensure_ascii=False),
                "legal": int(legal), "needs_review": needs_review,
                "infractions_json": json.dumps(infractions, ensure_ascii=False),
                "list_name": list_name, "judge": judge, "created_at": now_iso(),
                "job_id": str(job_id) if job_id else None})
            self._log("register", {"player": konami_id, "version": version,
                                   "sha256": file_sha256, "file": file_name, "legal": legal,
                                   "needs_review": needs_review}, judge)
        reg = self.registration_by_id(reg_id)
        assert reg is not None
        return reg

    def _next_walk_in(self) -> str:
        numbers = [int(m.group(1)) for k, _ in self.players()
                   if (m := _WALK_IN_NUMBER.fullmatch(k))]
        return f"W{max(numbers, default=0) + 1:04d}"

    def _upsert_player(self, konami_id: str, name: str | None, judge: str | None) -> None:
        rows = self.backend.rows("players", {"konami_id": konami_id}, "konami_id", "name")
        if not rows:
            self.backend.insert("players", {"konami_id": konami_id, "name": name,
                                            "created_at": now_iso()})
        elif name and name != rows[0]["name"]:
            # The log keeps the old name: the player row is the one mutable record.
            self.backend.update("players", {"konami_id": konami_id}, {"name": name})
            self._log("player-renamed", {"player": konami_id, "old": rows[0]["name"],
                                         "new": name}, judge)

    def add_decisions(self, decisions: list[ReviewDecision], judge: str | None = None) -> int:
        """Append review decisions (all in one transaction). Returns how many."""
        if not decisions:
            return 0
        with self._write():
            self._refuse_withdrawn({d.registration_id for d in decisions})
            for d in decisions:
                self.backend.insert("review_decisions", {
                    "registration_id": d.registration_id, "section": d.section, "line": d.line,
                    "read": d.read, "action": d.action, "card_id": d.card_id, "count": d.count,
                    "judge": d.judge or judge, "created_at": now_iso(),
                    "before_json": _json_or_none(d.before), "after_json": _json_or_none(d.after)})
            self._log("review", {"registrations": sorted({d.registration_id for d in decisions}),
                                 "decisions": len(decisions),
                                 "actions": [d.action for d in decisions],
                                 "changes": [{"section": d.section, "line": d.line,
                                              "before": d.before, "after": d.after}
                                             for d in decisions if d.before or d.after]},
                      judge)
        return len(decisions)

    def add_deck_check(self, konami_id: str, round_no: int, registration_id: int, mode: str,
                       match: bool, observed_sha256: str | None, observed_json: dict,
                       result_json: dict, infractions: list[NewInfraction],
                       judge: str | None = None, confirmed: bool = False
                       ) -> tuple[DeckCheck, list[IssuedInfraction]]:
        """Record a deck check and the infraction(s) it issued, in one transaction."""
        if observed_sha256 is not None:
            self._need_file(observed_sha256)
        at = now_iso()
        with self._write():
            # Checked under the write lock: a version withdrawn (or replaced) since the
            # comparison is not the list this check compared against.
            current = self.latest_registration(konami_id)
            if current is None or current.id != registration_id:
                raise EventError("event.deckcheck-list-changed", player=konami_id)
            check_id = self.backend.insert("deck_checks", {
                "konami_id": konami_id, "round": round_no, "registration_id": registration_id,
                "mode": mode, "match": int(match), "observed_sha256": observed_sha256,
                "observed_json": json.dumps(observed_json, ensure_ascii=False),
                "result_json": json.dumps(result_json, ensure_ascii=False), "judge": judge,
                "created_at": at, "confirmed": int(confirmed)})
            for inf in infractions:
                self.backend.insert("infractions", {
                    "konami_id": konami_id, "code": inf.code, "penalty": inf.penalty,
                    "remedy": inf.remedy, "rule": inf.rule, "message": inf.message,
                    "round": round_no, "judge": judge, "deck_check_id": check_id,
                    "created_at": at,
                    "findings_json": json.dumps(inf.findings, ensure_ascii=False)})
            self._log("deckcheck", {"player": konami_id, "round": round_no, "match": match,
                                    "registration_id": registration_id, "confirmed": confirmed,
                                    "infractions": [i.code for i in infractions]}, judge)
        check = next(c for c in self.deck_checks(konami_id) if c.id == check_id)
        issued = [i for i in self.infractions(konami_id) if i.deck_check_id == check_id]
        return check, issued

    def add_amendment(self, infraction_id: int, action: str, reason: str, judge: str,
                      new_penalty: str | None = None) -> Amendment:
        """Void or amend a recorded infraction: a new row; the infraction itself is kept."""
        reason = clean_text(reason)
        if not reason:
            raise EventError("event.void-needs-reason")
        with self._write():
            rows = self.backend.rows("infractions", {"id": infraction_id}, "id",
                                     "id, konami_id, code, penalty")
            if not rows:
                raise EventError("event.no-infraction", id=infraction_id)
            amendment_id = self.backend.insert("infraction_amendments", {
                "infraction_id": infraction_id, "action": action, "reason": reason,
                "new_penalty": new_penalty, "judge": judge, "created_at": now_iso()})
            self._log(f"infraction-{action}", {"infraction": infraction_id,
                                               "player": rows[0]["konami_id"],
                                               "code": rows[0]["code"],
                                               "penalty": rows[0]["penalty"],
                                               "new_penalty": new_penalty, "reason": reason},
                      judge)
        return next(a for a in self.amendments() if a.id == amendment_id)

    def withdraw_registration(self, konami_id: str, version: int, reason: str,
                              judge: str) -> Withdrawal:
        """Withdraw one version: a new row; the version itself is kept. Refuses a missing
        version and one already withdrawn."""
        reason = withdraw_reason(reason)
        if not (judge or "").strip():
            raise EventError("event.judge-needed")
        with self._write():
            rows = self.backend.rows("registrations", {"konami_id": konami_id,
                                                       "version": version}, "id", "id")
            if not rows:
                raise EventError("event.no-version", player=konami_id, version=version)
            reg_id = int(rows[0]["id"])
            if self.backend.rows("registration_withdrawals", {"registration_id": reg_id},
                                 "id", "id"):
                raise EventError("event.already-withdrawn", player=konami_id, version=version)
            withdrawal_id = self.backend.insert("registration_withdrawals", {
                "registration_id": reg_id, "konami_id": konami_id, "version": version,
                "reason": reason, "judge": judge, "created_at": now_iso()})
            self._log("withdraw", {"player": konami_id, "version": version,
                                   "registration_id": reg_id, "reason": reason}, judge)
        return next(w for w in self.withdrawals() if w.id == withdrawal_id)

    def confirm_sheet(self, konami_id: str, version: int, judge: str, how: str,
                      sheet_id: str | None = None) -> SheetConfirmation:
        """A judge confirms whose sheet `version` is: an appended row. A sheet that carries
        another Konami ID is confirmed only with `sheet_id` naming that ID (the judge's
        explicit word that the sheet is this player's although it carries that ID). Refuses a
        missing or withdrawn version; a version confirmed already keeps its first confirmation."""
        judge = clean_name(judge) or ""
        if not judge:
            raise EventError("event.judge-needed")
        with self._write():
            regs = self._registrations({"konami_id": konami_id, "version": version})
            if not regs:
                raise EventError("event.no-version", player=konami_id, version=version)
            reg = regs[0]
            if reg.withdrawal is not None:
                raise EventError("event.version-withdrawn", player=konami_id, version=version)
            ident = SheetIdentity.of(reg)
            if ident.confirmed and reg.confirmation is not None:
                return reg.confirmation
            if ident.kind == OTHER_ID and sheet_id != ident.sheet_id:
                raise EventError("event.sheet-id-not-acknowledged", player=konami_id,
                                 sheet_id=ident.sheet_id)
            row_id = self.backend.insert("sheet_confirmations", {
                "registration_id": reg.id, "konami_id": konami_id, "version": version,
                "kind": ident.kind, "sheet_id": ident.sheet_id, "how": how, "judge": judge,
                "created_at": now_iso()})
            self._log("sheet-confirmed", {"player": konami_id, "version": version,
                                          "kind": ident.kind, "sheet_id": ident.sheet_id,
                                          "how": how}, judge)
        found = self._confirmations({"id": row_id})
        return found[next(iter(found))]

    def void_deck_check(self, check_id: int, reason: str, judge: str) -> DeckCheck:
        """Void a recorded deck check with a reason: an appended row, and a void of every
        infraction it issued still in force (one transaction). Refuses a missing check and one
        voided already."""
        reason = " ".join((reason or "").split())
        judge = clean_name(judge) or ""
        if not reason:
            raise EventError("event.void-needs-reason")
        if not judge:
            raise EventError("event.judge-needed")
        with self._write():
            check = self.deck_check(check_id)
            if check is None:
                raise EventError("event.no-deck-check", id=check_id)
            if check.void is not None:
                raise EventError("event.deck-check-already-void", id=check_id)
            at = now_iso()
            self.backend.insert("deck_check_voids", {
                "deck_check_id": check_id, "konami_id": check.konami_id, "reason": reason,
                "judge": judge, "created_at": at})
            voided = []
            for inf in self.infractions(check.konami_id):
                if inf.deck_check_id == check_id and inf.effective_penalty is not None:
                    self.backend.insert("infraction_amendments", {
                        "infraction_id": inf.id, "action": "void",
                        "reason": f"덱 체크 무효: {reason}", "new_penalty": None,
                        "judge": judge, "created_at": at})
                    voided.append(inf.id)
            self._log("deckcheck-void", {"deck_check": check_id, "player": check.konami_id,
                                         "round": check.round, "reason": reason,
                                         "infractions": voided}, judge)
        found = self.deck_check(check_id)
        assert found is not None
        return found

    def load_records(self, table: str, rows: list[dict]) -> None:
        """Insert rows copied from another record as they are (ids kept): `event copy` only,
        into an event that holds nothing of `table` yet."""
        cols = RECORD_COLUMNS[table]
        with self._write():
            for r in rows:
                self.backend.insert(table, {c: r[c] for c in cols})


def _json_or_none(value: Any) -> str | None:
    return json.dumps(value, ensure_ascii=False) if value is not None else None


def needs_review_count(decklist_json: dict) -> int:
    """Same count as `Decklist.needs_review`, from the JSON form."""
    sections = decklist_json.get("sections") or {}
    lines = sum(1 for items in sections.values() for e in items if e.get("needs_review"))
    sheet = sum(1 for r in decklist_json.get("review") or []
                if r.get("line") is None and r.get("card_id") is None)
    return lines + sheet
