"""The audit queue in the event file: audits a judge asked for, run one at a time off the
request path (`AuditRunner`), each with its progress and, when done, the files it wrote.

A table of its own beside the reading jobs (`station_jobs` holds uploads); a job ID is looked up
in both, so `GET /api/jobs/ID` answers for either. Every write is one `BEGIN IMMEDIATE`
transaction, as in `station_store`.
"""
from __future__ import annotations

import json
import sqlite3
import uuid
from dataclasses import dataclass, field

from scanner.event.records import now_iso
from scanner.web.station_store import DONE, FAILED, QUEUED, RUNNING, StationQueue

AUDIT_SCHEMA = """
CREATE TABLE IF NOT EXISTS station_audits (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    formats TEXT NOT NULL,
    judge TEXT,
    done INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    result_json TEXT,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE INDEX IF NOT EXISTS station_audits_state ON station_audits (state, seq);
"""

FORMATS = {"html": "report.html", "csv": "report.csv", "xlsx": "report.xlsx",
           "csv-ko": "report-ko.csv"}
"""What `POST /api/audits` may ask for → the file the audit writes."""
MEDIA = {"report.html": "text/html; charset=utf-8", "report.csv": "text/csv; charset=utf-8",
         "report-ko.csv": "text/csv; charset=utf-8",
         "report.xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}
"""The content type each file is served with."""
FILE_KO = {"report.html": "감사 보고서 (HTML, ID 가림)", "report.csv": "감사 표 (CSV)",
           "report.xlsx": "감사 엑셀 (한국어 머리글)", "report-ko.csv": "감사 표 (CSV, 한국어 머리글)"}
"""What the station's pages call each file."""
MAX_ATTEMPTS = 2
"""Starts of one audit before a restart fails it instead of queuing it again."""


@dataclass
class AuditJob:
    id: str
    seq: int
    state: str
    """queued / running / done / failed (the contract's job states)."""
    formats: list[str]
    judge: str | None
    done: int
    total: int
    files: list[dict] = field(default_factory=list)
    """[{"name", "size"}] of the files written (when done)."""
    summary: dict | None = None
    """What `decksheet audit --json` prints (when done)."""
    error: str | None = None
    attempts: int = 0
    created_at: str = ""
    finished_at: str | None = None

    def to_json(self) -> dict:
        result = None
        if self.state == DONE:
            result = {"files": [dict(f, url=f"/api/audits/{self.id}/files/{f['name']}",
                                     label=FILE_KO.get(f["name"], f["name"]))
                                for f in self.files], "audit": self.summary}
        return {"job": self.id, "kind": "audit", "state": self.state,
                "progress": {"done": self.done, "total": self.total}, "result": result,
                "error": self.error}


_COLS = ("id, seq, state, formats, judge, done, total, result_json, error, attempts, created_at, "
         "finished_at")


def _job(row: tuple) -> AuditJob:
    result = json.loads(row[7]) if row[7] else {}
    return AuditJob(id=row[0], seq=int(row[1]), state=row[2], formats=json.loads(row[3]),
                    judge=row[4], done=int(row[5]), total=int(row[6]),
                    files=result.get("files") or [], summary=result.get("audit"), error=row[8],
                    attempts=int(row[9]), created_at=row[10], finished_at=row[11])


class AuditQueue:
    """The audit rows of one event file, through a `StationQueue`'s connection."""

    def __init__(self, st: StationQueue) -> None:
        self.st = st

    def create(self) -> None:
        with self.st.transaction() as con:
            for stmt in AUDIT_SCHEMA.split(";"):
                if stmt.strip():
                    con.execute(stmt)

    def add(self, formats: list[str], judge: str | None) -> AuditJob:
        job_id = uuid.uuid4().hex[:16]
        with self.st.transaction() as con:
            (seq,) = con.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM station_audits").fetchone()
            con.execute("INSERT INTO station_audits (id, seq, state, formats, judge, created_at) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (job_id, seq, QUEUED, json.dumps(formats), judge, now_iso()))
        job = self.get(job_id)
        assert job is not None
        return job

    def get(self, job_id: str) -> AuditJob | None:
        try:
            row = self.st.con.execute(f"SELECT {_COLS} FROM station_audits WHERE id = ?",
                                      (job_id,)).fetchone()
        except sqlite3.OperationalError:  # an event file from before audit jobs
            return None
        return _job(row) if row else None

    def recent(self, limit: int = 20) -> list[AuditJob]:
        """The newest audits first."""
        rows = self.st.con.execute(f"SELECT {_COLS} FROM station_audits ORDER BY seq DESC "
                                   "LIMIT ?", (limit,)).fetchall()
        return [_job(r) for r in rows]

    def take(self) -> AuditJob | None:
        """The oldest queued audit, marked running (None when none waits)."""
        with self.st.transaction() as con:
            row = con.execute("SELECT id FROM station_audits WHERE state = ? ORDER BY seq LIMIT 1",
                              (QUEUED,)).fetchone()
            if row is None:
                return None
            con.execute("UPDATE station_audits SET state = ?, attempts = attempts + 1, done = 0 "
                        "WHERE id = ?", (RUNNING, row[0]))
        return self.get(row[0])

    def progress(self, job_id: str, done: int, total: int) -> None:
        with self.st.transaction() as con:
            con.execute("UPDATE station_audits SET done = ?, total = ? WHERE id = ?",
                        (done, max(done, total), job_id))

    def finish(self, job_id: str, files: list[dict] | None, summary: dict | None,
               error: str | None) -> None:
        result = None if error else json.dumps({"files": files or [], "audit": summary},
                                               ensure_ascii=False)
        with self.st.transaction() as con:
            con.execute("UPDATE station_audits SET state = ?, result_json = ?, error = ?, "
                        "finished_at = ? WHERE id = ?",
                        (FAILED if error else DONE, result, error, now_iso(), job_id))

    def requeue(self, job_id: str) -> None:
        """A running audit back to the queue (its server is stopping)."""
        with self.st.transaction() as con:
            con.execute("UPDATE station_audits SET state = ?, done = 0, attempts = attempts - 1 "
                        "WHERE id = ? AND state = ?",
                        (QUEUED, job_id, RUNNING))

    def requeue_running(self, failed_error: str, max_attempts: int = MAX_ATTEMPTS) -> int:
        """At start: audits a stopped server left running go back to the queue (those started
        `max_attempts` times already fail, with `failed_error`)."""
        with self.st.transaction() as con:
            con.execute("UPDATE station_audits SET state = ?, error = ?, finished_at = ? "
                        "WHERE state = ? AND attempts >= ?",
                        (FAILED, failed_error, now_iso(), RUNNING, max_attempts))
            return con.execute("UPDATE station_audits SET state = ? WHERE state = ?",
                               (QUEUED, RUNNING)).rowcount
