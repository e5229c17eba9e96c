"""The station's roster and reading queue in a PostgreSQL event (tables of `pg_schema`).

Same interface as `StationStore`, plus what several machines need: `claim` takes the next
queued job with `FOR UPDATE SKIP LOCKED` and a lease (two readers never take one job; a job
whose reader died is taken again once its lease runs out), `renew` keeps a lease while a read
goes on. A player's jobs are taken one at a time in upload order, so their versions are
registered in upload order whichever machine reads them.
"""
from __future__ import annotations

import contextlib
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Self

import psycopg

from scanner.event.pg_store import EventURL, connect
from scanner.event.records import now_iso
from scanner.web.station_store import (DONE, FAILED, NEEDS_DECISION, QUEUED, RUNNING, Job,
                                       RosterEntry)
from scanner.web.texts import ko

_CROP_NAME = re.compile(r"[A-Za-z0-9_.\-]+\.png")
MAX_ATTEMPTS = 3
"""A job whose reader died this many times fails (a file that kills its reader)."""
GAVE_UP = ko("job-readers-died", n=MAX_ATTEMPTS)

_COLS = ("id, seq, state, file_sha256, file_name, konami_id, name, judge, result_json, error, "
         "attempts, created_at, finished_at")


def _job(r: dict) -> Job:
    return Job(id=r["id"], seq=int(r["seq"]), state=r["state"], file_sha256=r["file_sha256"],
               file_name=r["file_name"], konami_id=r["konami_id"], name=r["name"],
               judge=r["judge"], result=json.loads(r["result_json"]) if r["result_json"] else None,
               error=r["error"], attempts=int(r["attempts"]), created_at=r["created_at"],
               finished_at=r["finished_at"])


class PgStationStore:
    """Roster and job queue of one event in a PostgreSQL database (one connection)."""

    def __init__(self, url: str, create: bool = False) -> None:
        del create  # the tables come with the event's schema (pg_schema)
        parsed = EventURL.parse(url)
        self.event = parsed.event
        self.con = connect(parsed.conninfo)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self, lock: str) -> Iterator[psycopg.Connection]:
        with self.con.transaction():
            self.con.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                             (f"decksheet:{lock}:{self.event}",))
            yield self.con

    # ------------------------------------------------------------------ roster

    def roster(self) -> list[RosterEntry]:
        return [RosterEntry(r["konami_id"], r["name"], r["table_no"]) for r in self.con.execute(
            "SELECT konami_id, name, table_no FROM station_roster WHERE event = %s "
            "ORDER BY name, konami_id", (self.event,))]

    def roster_entry(self, konami_id: str) -> RosterEntry | None:
        r = self.con.execute("SELECT konami_id, name, table_no FROM station_roster "
                             "WHERE event = %s AND konami_id = %s",
                             (self.event, konami_id)).fetchone()
        return RosterEntry(r["konami_id"], r["name"], r["table_no"]) if r else None

    def upsert_roster(self, entries: list[RosterEntry]) -> tuple[int, int]:
        imported = updated = 0
        with self.transaction("roster") as con:
            for e in entries:
                row = con.execute("SELECT name, table_no FROM station_roster "
                                  "WHERE event = %s AND konami_id = %s",
                                  (self.event, e.konami_id)).fetchone()
                if row is None:
                    con.execute("INSERT INTO station_roster (event, konami_id, name, table_no, "
                                "updated_at) VALUES (%s, %s, %s, %s, %s)",
                                (self.event, e.konami_id, e.name, e.table_no, now_iso()))
                    imported += 1
                elif (row["name"], row["table_no"]) != (e.name, e.table_no):
                    con.execute("UPDATE station_roster SET name = %s, table_no = %s, "
                                "updated_at = %s WHERE event = %s AND konami_id = %s",
                                (e.name, e.table_no, now_iso(), self.event, e.konami_id))
                    updated += 1
        return imported, updated

    # ------------------------------------------------------------------ jobs

    def add_job(self, file_sha256: str, file_name: str | None, konami_id: str | None,
                name: str | None, judge: str | None, held: dict | None = None) -> Job:
        job_id = uuid.uuid4().hex[:16]
        with self.transaction("jobs") as con:
            con.execute(
                "INSERT INTO station_jobs (event, id, seq, state, file_sha256, file_name, "
                "konami_id, name, judge, result_json, created_at) SELECT %s, %s, "
                "COALESCE(MAX(seq), 0) + 1, %s, %s, %s, %s, %s, %s, %s, %s FROM station_jobs "
                "WHERE event = %s",
                (self.event, job_id, QUEUED, file_sha256, file_name, konami_id, name, judge,
                 json.dumps(held, ensure_ascii=False) if held else None, now_iso(), self.event))
        job = self.job(job_id)
        assert job is not None
        return job

    def job(self, job_id: str) -> Job | None:
        r = self.con.execute(f"SELECT {_COLS} FROM station_jobs WHERE event = %s AND id = %s",
                             (self.event, job_id)).fetchone()
        return _job(r) if r else None

    def jobs(self, states: tuple[str, ...] = (QUEUED, RUNNING)) -> list[Job]:
        return [_job(r) for r in self.con.execute(
            f"SELECT {_COLS} FROM station_jobs WHERE event = %s AND state = ANY(%s) "
            f"ORDER BY seq", (self.event, list(states)))]

    def requeue_running(self) -> int:
        """Nothing to do at a front-end's start: another machine's running jobs are its own
        (a dead reader's job is taken again when its lease runs out)."""
        return 0

    def claim(self, worker: str, lease_s: float) -> Job | None:
        """Take the next job (queued, or running with its lease run out), lease it to
        `worker`, and return it; None when there is nothing to take."""
        with self.con.transaction():
            self.con.execute(
                "UPDATE station_jobs SET state = %s, error = %s, finished_at = %s "
                "WHERE event = %s AND state = %s AND lease_until < now() AND attempts >= %s",
                (FAILED, GAVE_UP, now_iso(), self.event, RUNNING, MAX_ATTEMPTS))
            r = self.con.execute(f"""
                WITH next AS (
                    SELECT j.id FROM station_jobs j
                    WHERE j.event = %(e)s AND (j.state = %(q)s
                          OR (j.state = %(r)s AND j.lease_until < now()))
                      AND NOT EXISTS (
                          SELECT 1 FROM station_jobs x WHERE x.event = j.event
                          AND j.konami_id IS NOT NULL AND x.konami_id = j.konami_id
                          AND x.seq < j.seq AND x.state IN (%(q)s, %(r)s))
                    ORDER BY j.seq LIMIT 1 FOR UPDATE SKIP LOCKED)
                UPDATE station_jobs j SET state = %(r)s, attempts = j.attempts + 1,
                       worker = %(w)s, lease_until = now() + make_interval(secs => %(l)s)
                FROM next WHERE j.event = %(e)s AND j.id = next.id
                RETURNING {", ".join("j." + c.strip() for c in _COLS.split(","))}""",
                {"e": self.event, "q": QUEUED, "r": RUNNING, "w": worker,
                 "l": float(lease_s)}).fetchone()
        return _job(r) if r else None

    def renew(self, job_id: str, worker: str, lease_s: float) -> bool:
        """Extend the lease; False when the job is no longer this worker's."""
        cur = self.con.execute(
            "UPDATE station_jobs SET lease_until = now() + make_interval(secs => %s) "
            "WHERE event = %s AND id = %s AND worker = %s AND state = %s",
            (float(lease_s), self.event, job_id, worker, RUNNING))
        return cur.rowcount == 1

    def mark_running(self, job_id: str) -> None:
        self.con.execute("UPDATE station_jobs SET state = %s, attempts = attempts + 1 "
                         "WHERE event = %s AND id = %s", (RUNNING, self.event, job_id))

    def requeue(self, job_id: str) -> None:
        self.con.execute("UPDATE station_jobs SET state = %s, worker = NULL, lease_until = NULL "
                         "WHERE event = %s AND id = %s AND state = %s",
                         (QUEUED, self.event, job_id, RUNNING))

    # ------------------------------------------------------------------ crops

    def put_crops(self, sha256: str, folder: Path) -> int:
        """Keep the crops a read made (PNG files of `folder`) for every front-end."""
        files = [p for p in sorted(folder.glob("*.png")) if _CROP_NAME.fullmatch(p.name)]
        with self.con.transaction(), self.con.cursor() as cur:
            cur.executemany("INSERT INTO station_crops (event, sha256, name, data) "
                            "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                            [(self.event, sha256, p.name, p.read_bytes()) for p in files])
        return len(files)

    def crop(self, sha256: str, name: str) -> bytes | None:
        r = self.con.execute("SELECT data FROM station_crops WHERE event = %s AND sha256 = %s "
                             "AND name = %s", (self.event, sha256, name)).fetchone()
        return bytes(r["data"]) if r else None

    def wait_decision(self, job_id: str, held: dict) -> None:
        """The job waits for a judge's decision; `held` keeps the decision asked and the read."""
        self.con.execute(
            "UPDATE station_jobs SET state = %s, result_json = %s, error = NULL, finished_at = %s, "
            "lease_until = NULL WHERE event = %s AND id = %s AND state IN (%s, %s)",
            (NEEDS_DECISION, json.dumps(held, ensure_ascii=False), now_iso(), self.event, job_id,
             QUEUED, RUNNING))

    def finish(self, job_id: str, result: dict | None, error: str | None) -> None:
        """Close the job (once: a job already done keeps its first answer)."""
        self.con.execute(
            "UPDATE station_jobs SET state = %s, result_json = %s, error = %s, finished_at = %s, "
            "lease_until = NULL WHERE event = %s AND id = %s AND state IN (%s, %s, %s)",
            (FAILED if error else DONE,
             json.dumps(result, ensure_ascii=False) if result is not None else None,
             error, now_iso(), self.event, job_id, QUEUED, RUNNING, NEEDS_DECISION))
