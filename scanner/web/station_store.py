"""The station's own records in the event file: the roster and the reading jobs.

They live in the event's SQLite file (so a copy of the file is the whole event) in tables of
their own, created here if missing; the event store's tables are never touched from here.
Every write is one `BEGIN IMMEDIATE` transaction, like the event store's.
"""
from __future__ import annotations

import contextlib
import json
import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from scanner.event.records import now_iso
from scanner.event.store import BUSY_TIMEOUT_MS, immediate_transaction
from scanner.web.texts import ko

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
NEEDS_DECISION = "needs-decision"
"""A read a guard held for a judge (CONTRACT.md v3): nothing stored until `decide`."""
MAX_ATTEMPTS = 3
"""Starts of one job's read before a restart fails it instead of queuing it again."""

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
    file_sha256 TEXT NOT NULL,
    file_name TEXT,
    konami_id TEXT,
    name TEXT,
    judge TEXT,
    result_json TEXT,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
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

    def to_json(self) -> dict:
        if self.state == NEEDS_DECISION:  # the held read itself stays in the row, not the API
            held = self.result or {}
            out = {"job": self.id, "state": self.state, "result": None, "error": None,
                   "decision": held.get("decision"), "detail": held.get("detail")}
            if held.get("decision") == "player":  # the desk flow: whose sheet is it?
                out.update(match=held.get("match"), candidates=held.get("candidates") or [],
                           sheet=held.get("sheet"))
            return out
        return {"job": self.id, "state": self.state, "result": self.result, "error": self.error}


class StationStore:
    """Roster and job queue of one event file. One connection per instance (per thread)."""

    def __init__(self, event_path: Path, create: bool = False) -> None:
        self.con = sqlite3.connect(str(event_path), timeout=BUSY_TIMEOUT_MS / 1000,
                                   isolation_level=None)
        self.con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        self.con.execute("PRAGMA synchronous = FULL")
        if create:  # once per server start: a write lock, so not on every request
            with self.transaction() as con:
                for stmt in _SCHEMA.split(";"):
                    if stmt.strip():
                        con.execute(stmt)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with immediate_transaction(self.con) as con:
            yield con

    # ------------------------------------------------------------------ roster

    def roster(self) -> list[RosterEntry]:
        rows = self.con.execute("SELECT konami_id, name, table_no FROM station_roster "
                                "ORDER BY name, konami_id").fetchall()
        return [RosterEntry(*r) for r in rows]

    def roster_entry(self, konami_id: str) -> RosterEntry | None:
        row = self.con.execute("SELECT konami_id, name, table_no FROM station_roster "
                               "WHERE konami_id = ?", (konami_id,)).fetchone()
        return RosterEntry(*row) if row else None

    def upsert_roster(self, entries: list[RosterEntry]) -> tuple[int, int]:
        """Add or update players (one transaction). Returns (imported, updated)."""
        imported = updated = 0
        with self.transaction() as con:
            for e in entries:
                row = con.execute("SELECT name, table_no FROM station_roster WHERE konami_id = ?",
                                  (e.konami_id,)).fetchone()
                if row is None:
                    con.execute("INSERT INTO station_roster VALUES (?, ?, ?, ?)",
                                (e.konami_id, e.name, e.table_no, now_iso()))
                    imported += 1
                elif (row[0], row[1]) != (e.name, e.table_no):
                    con.execute("UPDATE station_roster SET name = ?, table_no = ?, updated_at = ? "
                                "WHERE konami_id = ?", (e.name, e.table_no, now_iso(), e.konami_id))
                    updated += 1
        return imported, updated

    # ------------------------------------------------------------------ jobs

    _JOB_COLS = ("id, seq, state, file_sha256, file_name, konami_id, name, judge, result_json, error, "
                 "attempts, created_at, finished_at")

    @staticmethod
    def _job(row: tuple) -> Job:
        return Job(id=row[0], seq=int(row[1]), state=row[2], file_sha256=row[3],
                   file_name=row[4], konami_id=row[5], name=row[6], judge=row[7],
                   result=json.loads(row[8]) if row[8] else None, error=row[9],
                   attempts=int(row[10]), created_at=row[11], finished_at=row[12])

    def add_job(self, file_sha256: str, file_name: str | None, konami_id: str | None,
                name: str | None, judge: str | None, held: dict | None = None) -> Job:
        """`held`: what the job keeps from the start (`{"ask_player": true}`: the desk flow)."""
        job_id = uuid.uuid4().hex[:16]
        with self.transaction() as con:
            (seq,) = con.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM station_jobs").fetchone()
            con.execute("INSERT INTO station_jobs (id, seq, state, file_sha256, file_name, "
                        "konami_id, name, judge, result_json, created_at) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (job_id, seq, QUEUED, file_sha256, file_name, konami_id, name, judge,
                         json.dumps(held, ensure_ascii=False) if held else None, now_iso()))
        job = self.job(job_id)
        assert job is not None
        return job

    def job(self, job_id: str) -> Job | None:
        row = self.con.execute(f"SELECT {self._JOB_COLS} FROM station_jobs WHERE id = ?",
                               (job_id,)).fetchone()
        return self._job(row) if row else None

    def jobs(self, states: tuple[str, ...] = (QUEUED, RUNNING)) -> list[Job]:
        marks = ",".join("?" * len(states))
        rows = self.con.execute(f"SELECT {self._JOB_COLS} FROM station_jobs WHERE state IN "
                                f"({marks}) ORDER BY seq", states).fetchall()
        return [self._job(r) for r in rows]

    def requeue_running(self, max_attempts: int = MAX_ATTEMPTS) -> int:
        """At start: jobs a killed server left running go back to the queue, unless they were
        started `max_attempts` times already (a job that takes its server down, or one whose
        registration failed, must not run at every start for ever): those fail, with why."""
        with self.transaction() as con:
            con.execute("UPDATE station_jobs SET state = ?, error = ?, finished_at = ? "
                        "WHERE state = ? AND attempts >= ?",
                        (FAILED, ko("job-restarted-too-often", n=max_attempts), now_iso(),
                         RUNNING, max_attempts))
            return con.execute("UPDATE station_jobs SET state = ? WHERE state = ?",
                               (QUEUED, RUNNING)).rowcount

    def mark_running(self, job_id: str) -> None:
        with self.transaction() as con:
            con.execute("UPDATE station_jobs SET state = ?, attempts = attempts + 1 WHERE id = ?",
                        (RUNNING, job_id))

    def requeue(self, job_id: str) -> None:
        with self.transaction() as con:
            con.execute("UPDATE station_jobs SET state = ? WHERE id = ? AND state = ?",
                        (QUEUED, job_id, RUNNING))

    def wait_decision(self, job_id: str, held: dict) -> None:
        """The job waits for a judge's decision; `held` keeps the decision asked and the read."""
        with self.transaction() as con:
            con.execute("UPDATE station_jobs SET state = ?, result_json = ?, error = NULL, "
                        "finished_at = ? WHERE id = ?",
                        (NEEDS_DECISION, json.dumps(held, ensure_ascii=False), now_iso(), job_id))

    def finish(self, job_id: str, result: dict | None, error: str | None) -> None:
        with self.transaction() as con:
            con.execute("UPDATE station_jobs SET state = ?, result_json = ?, error = ?, "
                        "finished_at = ? WHERE id = ?",
                        (FAILED if error else DONE,
                         json.dumps(result, ensure_ascii=False) if result is not None else None,
                         error, now_iso(), job_id))
