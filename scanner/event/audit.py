"""Post-event audit: re-read every registered original, re-apply the judges' decisions,
re-check under the event's regulation, and collect what a head judge must look at.

The re-reads are the cost (PDF text layers, OCR), so they run in a process pool on all cores,
the card database loaded once per worker. Identical bytes read identically, so each distinct
original file is read once however many players handed it in.
"""
from __future__ import annotations

import datetime as dt
import os
import time
from collections import defaultdict
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from card_db.cdb import CardDatabase, CardDbSpec, load_card_db
from card_db.models import LimitList
from scanner.errors import DecksheetError
from scanner.event.files import verify_file
from scanner.event.flows import apply_decisions, decklist_from_json
from scanner.event.status import list_status
from scanner.event.context import EventContext
from scanner.event.effective import PlayerRecord, player_records
from scanner.event.record import EventRecord
from scanner.event.records import (DeckCheck, EventInfo, IssuedInfraction, Registration,
                                   ReviewDecision)
from scanner.model import SECTIONS, Decklist
from scanner.inputs.pool import reader_pool
from scanner.read import load_decklist
from scanner.rules.codes import REVIEW_CODES, list_verdict

REVIEW_CODE = "UNRESOLVED_LINE"


@dataclass
class AuditJob:
    """One registration to re-check (picklable: sent to a worker)."""

    registration_id: int
    konami_id: str
    player_name: str | None
    version: int
    latest: bool
    file_path: str
    file_sha256: str
    file_name: str | None
    stored_json: dict
    decisions: list[ReviewDecision]
    withdrawn: dict | None = None
    """The withdrawal (`Withdrawal.to_json()`) when this version was withdrawn."""


@dataclass
class RegistrationAudit:
    """The audit's verdict on one registration version."""

    registration_id: int
    konami_id: str
    player_name: str | None
    version: int
    latest: bool
    file_name: str | None
    reader: str
    decklist: dict
    """The confirmed list (re-read + decisions), as `Decklist.to_json()`."""
    legal: bool
    infractions: list[dict]
    needs_review: int
    problems: list[str] = field(default_factory=list)
    """Integrity findings: original missing/changed, unreadable now, reads differently now."""
    withdrawn: dict | None = None
    """Set when a judge withdrew this version: it is never the player's registration."""

    @property
    def codes(self) -> list[str]:
        return sorted({i["code"] for i in self.infractions})

    @property
    def illegal(self) -> bool:
        """Broken rules other than 'a judge must still look' (that is `needs_review`)."""
        return any(i["code"] not in REVIEW_CODES for i in self.infractions)

    @property
    def verdict(self) -> str:
        """적합 / 확인 필요 / 부적합."""
        return list_verdict(self.codes)

    @property
    def status(self) -> str:
        """legal / illegal / needs-review: the one status function the dashboard asks too."""
        return list_status(self.codes, self.needs_review)

    def signature(self) -> tuple:
        return list_signature(self.decklist)


def list_signature(decklist: dict) -> tuple:
    """What makes two lists the same deck: copies per card and section. A line still in
    doubt counts by its reading, so a guess never makes two lists 'identical'."""
    per: dict[tuple[str, str], int] = defaultdict(int)
    for s in SECTIONS:
        for e in (decklist.get("sections") or {}).get(s) or []:
            sure = e.get("card_id") is not None and not e.get("needs_review")
            key = str(e["card_id"]) if sure else "?" + str(e.get("read") or e.get("name"))
            per[(s, key)] += int(e.get("count") or 0)
    return tuple(sorted(per.items()))


@dataclass
class AuditResult:
    event: EventInfo
    list_name: str
    registrations: list[RegistrationAudit]
    """Every version, by player then version."""
    duplicates: list[list[str]]
    """Groups of players (Konami IDs) whose current lists are identical."""
    deck_checks: list[DeckCheck]
    infractions: list[IssuedInfraction]
    store_problems: list[str]
    seconds: float
    workers: int
    files_read: int
    decisions: list[ReviewDecision] = field(default_factory=list)
    stored: dict[int, Registration] = field(default_factory=dict)
    """Registration id → the stored registration (for the review-decision table)."""
    records: dict[str, PlayerRecord] = field(default_factory=dict)
    """Each player's effective record (`scanner.event.effective`): the dashboard's own."""

    @property
    def sheet_ids(self) -> list[PlayerRecord]:
        """Players whose current sheet carries another player's Konami ID (confirmed by a
        judge as theirs, or still waiting for that decision)."""
        return [r for r in self.records.values() if r.sheet and r.sheet.kind == "other-id"]

    @property
    def current(self) -> list[RegistrationAudit]:
        """Each player's current version (the newest not withdrawn)."""
        return [r for r in self.registrations if r.latest]

    @property
    def withdrawn(self) -> list[RegistrationAudit]:
        return [r for r in self.registrations if r.withdrawn]

    @property
    def statuses(self) -> dict[str, str]:
        """Every registered player's status, as the dashboard gives it (`scanner.event.status`):
        a player whose every version is withdrawn is not registered."""
        out = {r.konami_id: list_status(None) for r in self.registrations}
        out.update({r.konami_id: r.status for r in self.current})
        return dict(sorted(out.items()))

    @property
    def illegal(self) -> list[str]:
        return [r.konami_id for r in self.current if r.illegal]

    @property
    def needs_review(self) -> list[str]:
        return [r.konami_id for r in self.current if r.needs_review]

    @property
    def changed(self) -> list[str]:
        return [r.konami_id for r in self.current if r.problems]

    @property
    def infractions_in_force(self) -> list[IssuedInfraction]:
        """Recorded infractions not voided."""
        return [i for i in self.infractions if i.effective_penalty is not None]

    @property
    def clean(self) -> bool:
        return not (self.illegal or self.needs_review or self.infractions_in_force
                    or self.changed or self.store_problems
                    or any(r.sheet and not r.sheet.confirmed for r in self.sheet_ids))

    def to_json(self) -> dict:
        return {"registrations": len(self.current), "illegal": self.illegal,
                "needs_review": self.needs_review, "deck_checks": len(self.deck_checks),
                "infractions": len(self.infractions_in_force),
                "infractions_recorded": len(self.infractions),
                "infractions_voided": [i.id for i in self.infractions if i.status == "voided"],
                "infractions_amended": [i.id for i in self.infractions if i.status == "amended"],
                "verdicts": {r.konami_id: r.verdict for r in self.current},
                "statuses": self.statuses,
                "withdrawn": [r.withdrawn for r in self.withdrawn if r.withdrawn],
                "deck_checks_voided": [c.id for c in self.deck_checks if c.voided],
                "sheet_ids": {r.konami_id: r.sheet.to_json() for r in self.sheet_ids
                              if r.sheet},
                "records": {k: r.summary() for k, r in self.records.items()},
                "versions": len(self.registrations), "duplicates": self.duplicates,
                "problems": {r.konami_id: r.problems for r in self.current if r.problems},
                "store_problems": self.store_problems, "list": self.list_name,
                "event": {"name": self.event.name, "date": self.event.date.isoformat()},
                "seconds": round(self.seconds, 2), "workers": self.workers,
                "files_read": self.files_read}


# --------------------------------------------------------------------------- worker side


@dataclass
class _WorkerContext:
    db: CardDatabase
    limits: LimitList


_CONTEXT: _WorkerContext | None = None
"""Per-process state of a pool worker, set once by `_init_worker` (never used in the parent)."""


def _init_worker(db_spec: CardDbSpec, limits: LimitList) -> None:
    global _CONTEXT
    # The spec, not one path: extra locales and alias files load in the worker too.
    _CONTEXT = _WorkerContext(db=load_card_db(db_spec), limits=limits)


def _audit_file_in_worker(jobs: list[AuditJob]) -> list[RegistrationAudit]:
    assert _CONTEXT is not None, "worker not initialised"
    return audit_file(jobs, _CONTEXT.db, _CONTEXT.limits)


def audit_file(jobs: list[AuditJob], db: CardDatabase, limits: LimitList) -> list[RegistrationAudit]:
    """Re-read one original file once and re-check every registration that handed it in."""
    from scanner.rules.check import check_decklist

    first = jobs[0]
    path = Path(first.file_path)
    problems: list[str] = []
    reread: Decklist | None = None
    if not path.is_file():
        problems.append("original-missing: the stored file is gone; checked the stored list")
    elif not verify_file(path, first.file_sha256):
        problems.append("original-changed: the stored file no longer has its sha256; "
                        "checked the stored list")
    else:
        try:
            reread = load_decklist(path, db)
        except DecksheetError as exc:
            problems.append(f"unreadable-now: {exc}; checked the stored list")
    out = []
    for job in jobs:
        job_problems = list(problems)
        # What is checked is the list the judges confirmed: the read stored at registration with
        # their decisions (as the dashboard shows it). The re-read is the integrity check: a
        # decision answers one reading, so a re-read that reads otherwise is reported, not
        # silently turned into lines to review again.
        confirmed = apply_decisions(decklist_from_json(job.stored_json), job.decisions, db)
        result = check_decklist(confirmed, limits, db)
        if reread is not None and _lines(reread.to_json()) != _lines(job.stored_json):
            again = decklist_from_json(reread.to_json())
            again = apply_decisions(again, job.decisions, db)
            now = list_status([i.code for i in check_decklist(again, limits, db).infractions],
                              again.needs_review)
            job_problems.append("reads-differently: the re-read differs from the list stored "
                                "at registration (reader changed?); the stored list the judges "
                                f"confirmed is checked (the re-read alone: {now})")
        out.append(RegistrationAudit(
            registration_id=job.registration_id, konami_id=job.konami_id,
            player_name=job.player_name, version=job.version, latest=job.latest,
            file_name=job.file_name, reader=confirmed.reader, decklist=confirmed.to_json(),
            legal=result.legal, infractions=[i.to_json() for i in result.infractions],
            needs_review=confirmed.needs_review, problems=job_problems,
            withdrawn=job.withdrawn))
    return out


def _lines(data: dict) -> list:
    return [[(e.get("card_id"), e.get("count"), bool(e.get("needs_review")), e.get("read"))
             for e in (data.get("sections") or {}).get(s) or []] for s in SECTIONS]


# --------------------------------------------------------------------------- parent side


def audit_jobs(store: EventRecord) -> list[AuditJob]:
    """Every version; `latest` marks each player's current one (the newest not withdrawn)."""
    regs = store.registrations()
    newest: dict[str, int] = {}
    for r in regs:
        if r.withdrawal is None:
            newest[r.konami_id] = max(newest.get(r.konami_id, 0), r.version)
    return [AuditJob(registration_id=r.id, konami_id=r.konami_id, player_name=r.player_name,
                     version=r.version, latest=r.version == newest.get(r.konami_id),
                     file_path=str(store.file_path(r.file_sha256)), file_sha256=r.file_sha256,
                     file_name=r.file_name, stored_json=r.decklist_json,
                     decisions=store.decisions(r.id),
                     withdrawn=r.withdrawal.to_json() if r.withdrawal else None)
            for r in regs]


def find_duplicates(regs: list[RegistrationAudit]) -> list[list[str]]:
    """Players whose current lists are the same deck (same cards and counts, every section)."""
    by_sig: dict[tuple, list[str]] = defaultdict(list)
    for r in regs:
        if r.latest and any(r.decklist["sections"][s] for s in SECTIONS):
            by_sig[r.signature()].append(r.konami_id)
    return sorted(sorted(ids) for ids in by_sig.values() if len(ids) > 1)


class AuditStopped(Exception):
    """`run_audit` was asked to stop (`should_stop`) before every sheet was re-read: no result;
    the caller runs the audit again later."""


def run_audit(ctx: EventContext, workers: int | None = None,
              progress: Callable[[int], None] | None = None, in_process: bool = True,
              should_stop: Callable[[], bool] | None = None) -> AuditResult:
    """Audit the whole event (`ctx`: its record, the card database, the limit list to check
    against). `workers` = processes (default: all cores; 1 = in this process,
    unless `in_process=False`: a server reads no sheet in its own process, where a reader's crash
    would take every desk down). `progress(n)` is called as each registration is done. When
    `should_stop()` turns true (a server stopping), reads not started are dropped, the pool's
    processes end after the file in hand, and `AuditStopped` is raised."""
    started = time.perf_counter()
    store, db, limits = ctx.record, ctx.db, ctx.limit_list
    jobs = audit_jobs(store)
    by_file: dict[str, list[AuditJob]] = defaultdict(list)
    for job in jobs:
        by_file[job.file_sha256].append(job)
    groups = list(by_file.values())
    workers = max(1, min(workers or os.cpu_count() or 1, len(groups) or 1))
    results: list[RegistrationAudit] = []

    def done(batch: list[RegistrationAudit]) -> None:
        results.extend(batch)
        if progress:
            progress(len(batch))

    stop = should_stop or (lambda: False)
    if workers == 1 and in_process:
        for group in groups:
            if stop():
                raise AuditStopped()
            done(audit_file(group, db, limits))
    else:
        # Largest groups first keeps the tail short; each worker loads the db once.
        pool = reader_pool(workers, _init_worker, (db.spec, limits))
        try:
            futures = [pool.submit(_audit_file_in_worker, g)
                       for g in sorted(groups, key=len, reverse=True)]
            for fut in as_completed(futures):
                done(fut.result())
                if stop():
                    raise AuditStopped()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
    results.sort(key=lambda r: (r.konami_id, r.version))
    return AuditResult(event=store.event(), list_name=limits.name, registrations=results,
                       duplicates=find_duplicates(results), deck_checks=store.deck_checks(),
                       infractions=store.infractions(), store_problems=store.integrity(),
                       seconds=time.perf_counter() - started, workers=workers,
                       files_read=len(groups), decisions=store.decisions(),
                       stored={r.id: r for r in store.registrations()},
                       records=player_records(store))


def generated_at() -> str:
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")
