"""The station's own records beside the event: the roster and the reading jobs.

`StationQueue` holds their rules once (upload order, a job's states, a job closes once), over
the same backend protocol as the event record (`scanner.event.backend.RecordBackend`: rows,
insert, update, one transaction under a lock), so the station's tables live where the event
lives. `StationStore`: in the event's SQLite file (a copy of the file is the whole event), in
tables of their own created here if missing; `scanner.web.station_store_pg.PgStationStore`: in
the event's PostgreSQL database, with leases for several reading machines. The event record's
tables are never touched from here.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from scanner.event.backend import RecordBackend, Row
from scanner.event.migrations import STATION_JOB_DDL
from scanner.event.records import now_iso
from scanner.event.store import SqliteBackend, connect
from scanner.web.texts import ko

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
NEEDS_DECISION = "needs-decision"
"""A read a guard held for a judge (CONTRACT.md v3): nothing stored until `decide`."""
PLAYER = "player"
"""The decision a desk-flow job asks: whose sheet it is (`sheet_player.PLAYER_DECISION`)."""
TAP = "tap"
"""Key of a desk-flow job's row (while it is read) holding the judge's tap on whose sheet it is
(`hold_tap`): carried out when the read ends (`CheckinService.complete`)."""
MAX_ATTEMPTS = 3
RETRY_WINDOW_S = 120
"""An upload of the same original for the same player this soon after the last is that upload
sent again (a phone whose connection dropped before the answer), not a new version."""
"""Starts of one job's read before it fails instead of being read again (a file that takes its
reader or its server down must not run for ever)."""
JOBS, ROSTER = "station_jobs", "station_roster"
JOB_COLUMNS = ("id, seq, state, file_sha256, file_name, konami_id, name, judge, result_json, "
               "error, attempts, created_at, finished_at")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS station_roster (
    konami_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    table_no TEXT,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS station_jobs (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    state TEXT NOT NULL,
""" + STATION_JOB_DDL + """,
    finished_at TEXT
);
CREATE INDEX IF NOT EXISTS station_jobs_state ON station_jobs (state, seq);
"""


@dataclass
class RosterEntry:
    konami_id: str
    name: str
    table_no: str | None = None


@dataclass
class Job:
    """One upload waiting for (or done with) its reading."""

    id: str
    seq: int
    """Upload order."""
    state: str
    """queued / running / needs-decision / done / failed (the contract's job states)."""
    file_sha256: str
    file_name: str | None
    konami_id: str | None
    """The player picked at upload; None = take the sheet's own ID."""
    name: str | None
    judge: str | None
    result: dict | None
    error: str | None
    attempts: int
    created_at: str
    finished_at: str | None
    preview: dict | None = None
    """While it runs: the text layer's reading of a PDF, not yet verified, or a photo's header
    (`scanner.web.preview`; never a row's column, never in the event record)."""
    whose: dict | None = None
    """While a desk-flow job is read: whose sheet it may be, from its header already read
    (`player_choices`: match, candidates, sheet) — the judge may tap before the read ends."""

    @classmethod
    def from_row(cls, r: Row) -> "Job":
        return cls(id=r["id"], seq=int(r["seq"]), state=r["state"], file_sha256=r["file_sha256"],
                   file_name=r["file_name"], konami_id=r["konami_id"], name=r["name"],
                   judge=r["judge"],
                   result=json.loads(r["result_json"]) if r["result_json"] else None,
                   error=r["error"], attempts=int(r["attempts"]), created_at=r["created_at"],
                   finished_at=r["finished_at"])

    def to_json(self) -> dict:
        if self.state == NEEDS_DECISION:  # the held read itself stays in the row, not the API
            held = self.result or {}
            out = {"job": self.id, "state": self.state, "result": None, "error": None,
                   "decision": held.get("decision"), "detail": held.get("detail")}
            if held.get("decision") == "player":  # the desk flow: whose sheet is it?
                out.update(match=held.get("match"), candidates=held.get("candidates") or [],
                           sheet=held.get("sheet"), again=bool(held.get("again")))
            return out
        held = self.result or {}
        if self.state in (QUEUED, RUNNING) and held.get("ask_player"):
            # A desk-flow read: what it keeps is the station's (the tap below), not a result.
            out = {"job": self.id, "state": self.state, "result": None, "error": None}
            tap = held.get(TAP)
            if tap:  # the judge's tap while it was read: carried out when the read ends
                out["tapped"] = {k: tap.get(k) for k in ("choice", "player", "name", "how")}
            elif self.whose is not None:
                out.update(decision=PLAYER, **self.whose)
        else:
            out = {"job": self.id, "state": self.state, "result": self.result, "error": self.error}
        if self.state == RUNNING and self.preview is not None:
            out["preview"] = self.preview  # what the text says; the verdict waits for the check
        return out


class StationQueue:
    """Roster and job queue of one event, over its backend (one connection per instance: per
    thread). Open one with `scanner.web.stations.open_station`."""

    shared = False
    """Several machines share this queue (jobs are leased; a front-end's restart leaves other
    machines' running jobs alone)."""
    _RELEASED: dict[str, Any] = {}
    """Columns cleared when a job leaves its reader (the lease of a shared queue)."""

    def __init__(self, db: RecordBackend) -> None:
        self.db = db

    @property
    def con(self) -> Any:
        """The backend's connection (for the station's other tables: audits)."""
        return self.db.con  # type: ignore[attr-defined]

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Any]:
        """One write transaction under the station's lock; yields the connection."""
        with self.db.transaction():
            yield self.con

    # ------------------------------------------------------------------ roster

    def roster(self) -> list[RosterEntry]:
        return [RosterEntry(r["konami_id"], r["name"], r["table_no"]) for r in
                self.db.rows(ROSTER, order="name, konami_id", columns="konami_id, name, table_no")]

    def roster_entry(self, konami_id: str) -> RosterEntry | None:
        rows = self.db.rows(ROSTER, {"konami_id": konami_id}, "", "konami_id, name, table_no")
        return RosterEntry(rows[0]["konami_id"], rows[0]["name"], rows[0]["table_no"]) \
            if rows else None

    def upsert_roster(self, entries: list[RosterEntry]) -> tuple[int, int]:
        """Add or update players (one transaction). Returns (imported, updated)."""
        imported = updated = 0
        with self.transaction():
            for e in entries:
                row = self.roster_entry(e.konami_id)
                if row is None:
                    self.db.insert(ROSTER, {"konami_id": e.konami_id, "name": e.name,
                                            "table_no": e.table_no, "updated_at": now_iso()})
                    imported += 1
                elif (row.name, row.table_no) != (e.name, e.table_no):
                    self.db.update(ROSTER, {"konami_id": e.konami_id},
                                   {"name": e.name, "table_no": e.table_no,
                                    "updated_at": now_iso()})
                    updated += 1
        return imported, updated

    # ------------------------------------------------------------------ jobs

    def add_job(self, file_sha256: str, file_name: str | None, konami_id: str | None,
                name: str | None, judge: str | None, held: dict | None = None,
                upload_key: str | None = None) -> Job:
        """Queue a read, numbered in upload order, once per upload: an upload sent again (its
        connection dropped before the answer) is the job it already made — the one its
        `upload_key` names, or, with no key, a job of the same original for the same player
        queued in the last `RETRY_WINDOW_S` that has not failed. Looked up and added in one
        transaction, so two copies arriving at once make one job. `held`: what the job keeps
        from the start (`{"ask_player": true}`: the desk flow)."""
        job_id = _keyed_job_id(upload_key) if upload_key else uuid.uuid4().hex[:16]
        with self.transaction():
            same = self._same_upload(job_id if upload_key else None, file_sha256, konami_id)
            if same is not None:
                if same.file_sha256 != file_sha256:
                    raise UploadKeyReused(same.id)
                return same
            (last,) = self.db.rows(JOBS, order="", columns="COALESCE(MAX(seq), 0) AS n")
            self.db.insert(JOBS, {"id": job_id, "seq": int(last["n"]) + 1, "state": QUEUED,
                                  "file_sha256": file_sha256, "file_name": file_name,
                                  "konami_id": konami_id, "name": name, "judge": judge,
                                  "result_json": _json(held) if held else None,
                                  "created_at": now_iso()})
        job = self.job(job_id)
        assert job is not None
        return job

    def _same_upload(self, keyed_id: str | None, file_sha256: str,
                     konami_id: str | None) -> Job | None:
        if keyed_id is not None:
            return self.job(keyed_id)
        since = (dt.datetime.now().astimezone() - dt.timedelta(seconds=RETRY_WINDOW_S))
        for row in self.db.rows(JOBS, {"file_sha256": file_sha256}, "seq", JOB_COLUMNS):
            job = Job.from_row(row)
            if job.konami_id == konami_id and job.state != FAILED \
                    and dt.datetime.fromisoformat(job.created_at) >= since:
                return job
        return None

    def job(self, job_id: str) -> Job | None:
        rows = self.db.rows(JOBS, {"id": job_id}, "", JOB_COLUMNS)
        return Job.from_row(rows[0]) if rows else None

    def jobs(self, states: tuple[str, ...] = (QUEUED, RUNNING)) -> list[Job]:
        return [Job.from_row(r) for r in self.db.rows(JOBS, {"state": tuple(states)}, "seq",
                                                      JOB_COLUMNS)]

    def requeue_running(self, max_attempts: int = MAX_ATTEMPTS) -> int:
        """At start: jobs a killed server left running go back to the queue, unless they were
        started `max_attempts` times already (a job that takes its server down, or one whose
        registration failed, must not run at every start for ever): those fail, with why."""
        with self.transaction():
            running = self.jobs((RUNNING,))
            for job in running:
                if job.attempts >= max_attempts:
                    self._set_closed(job.id, FAILED, None, ko("job-restarted-too-often",
                                                              n=max_attempts), (RUNNING,))
                else:
                    self.db.update(JOBS, {"id": job.id}, {"state": QUEUED})
        return sum(1 for j in running if j.attempts < max_attempts)

    def mark_running(self, job_id: str) -> None:
        with self.transaction():
            job = self.job(job_id)
            if job is not None:
                self.db.update(JOBS, {"id": job_id}, {"state": RUNNING,
                                                      "attempts": job.attempts + 1})

    def requeue(self, job_id: str) -> None:
        """A running job back to the queue (its reader is stopping)."""
        with self.transaction():
            self.db.update(JOBS, {"id": job_id, "state": RUNNING},
                           {"state": QUEUED, **self._RELEASED})

    def wait_decision(self, job_id: str, held: dict) -> None:
        """The job waits for a judge's decision; `held` keeps the decision asked and the read
        (a job a judge decided on may ask the next guard's)."""
        self._close(job_id, NEEDS_DECISION, held, None, (QUEUED, RUNNING, NEEDS_DECISION))

    def hold_tap(self, job_id: str, tap: dict) -> dict | None:
        """Keep the judge's tap on whose sheet a desk-flow job is, made while it is still read
        (`held["tap"]`), for the read's end to carry out. Returns the tap the job holds — this
        one, or the first of two (a second tap changes nothing) — or None when the job no longer
        runs (its read ended: the tap is decided as on a held sheet)."""
        with self.transaction():
            job = self.job(job_id)
            if job is None or job.state not in (QUEUED, RUNNING):
                return None
            held = job.result or {}
            if held.get(TAP):
                return held[TAP]
            self.db.update(JOBS, {"id": job_id, "state": (QUEUED, RUNNING)},
                           {"result_json": _json({**held, TAP: tap})})
        return tap

    def tap_or_wait(self, job_id: str, held: dict) -> dict | None:
        """A desk-flow read has ended: the judge's tap made while it was read, if there is one
        (the job stays running for the caller to carry it out), else the job waits for the tap
        (`needs-decision` with `held`). One transaction: a tap comes before or after, never
        lost between the look and the wait."""
        with self.transaction():
            job = self.job(job_id)
            tap = (job.result or {}).get(TAP) if job is not None else None
            if tap:
                return tap
            self._set_closed(job_id, NEEDS_DECISION, held, None, (QUEUED, RUNNING, NEEDS_DECISION))
        return None

    def take_decision(self, job_id: str) -> Job | None:
        """The job, if it still waits for a decision, now being carried out (`running`): of
        two judges deciding at once, the first takes it and the second gets None."""
        with self.transaction():
            taken = self.db.update(JOBS, {"id": job_id, "state": NEEDS_DECISION},
                                   {"state": RUNNING})
        return self.job(job_id) if taken else None

    def give_back_decision(self, job_id: str) -> None:
        """A decision that could not be carried out: the job waits for one again."""
        with self.transaction():
            self.db.update(JOBS, {"id": job_id, "state": RUNNING}, {"state": NEEDS_DECISION})

    def finish(self, job_id: str, result: dict | None, error: str | None) -> None:
        """Close the job (once: a job already done keeps its first answer)."""
        self._close(job_id, FAILED if error else DONE, result, error,
                    (QUEUED, RUNNING, NEEDS_DECISION))

    def _close(self, job_id: str, state: str, result: dict | None, error: str | None,
               from_states: tuple[str, ...]) -> None:
        with self.transaction():
            self._set_closed(job_id, state, result, error, from_states)

    def _set_closed(self, job_id: str, state: str, result: dict | None, error: str | None,
                    from_states: tuple[str, ...]) -> None:
        self.db.update(JOBS, {"id": job_id, "state": from_states},
                       {"state": state, "result_json": _json(result), "error": error,
                        "finished_at": now_iso(), **self._RELEASED})

    # ------------------------------------------------------------------ crops

    def crop(self, sha256: str, name: str) -> bytes | None:
        """A line crop another machine's read kept (none: crops stay in this station's
        folder)."""
        del sha256, name
        return None


class StationStore(StationQueue):
    """Roster and job queue in the event's SQLite file (one station machine per file)."""

    def __init__(self, event_path: Path, create: bool = False,
                 busy_timeout_s: float | None = None) -> None:
        path = Path(event_path)
        con = connect(path) if busy_timeout_s is None else connect(path, int(busy_timeout_s * 1000))
        super().__init__(SqliteBackend(path=path, con=con))
        if create:  # once per server start: a write lock, so not on every request
            try:
                with self.transaction() as con:
                    for stmt in _SCHEMA.split(";"):
                        if stmt.strip():
                            con.execute(stmt)
            except BaseException:
                self.close()
                raise


def _keyed_job_id(upload_key: str) -> str:
    """The job an upload key names (the same key: the same job, on every store)."""
    return hashlib.sha256(f"upload:{upload_key}".encode()).hexdigest()[:16]


class UploadKeyReused(Exception):
    """An upload key already names a job of another file."""


def _json(value: dict | None) -> str | None:
    return json.dumps(value, ensure_ascii=False) if value is not None else None
