"""The station's roster and reading queue in a PostgreSQL event (tables of `pg_schema`).

`StationQueue`'s rules, plus what several machines need: `claim` takes the next queued job with
`FOR UPDATE SKIP LOCKED` and a lease (two readers never take one job; a job whose reader died
is taken again once its lease runs out), `renew` keeps a lease while a read goes on. A player's
jobs are taken one at a time in upload order, so their versions are registered in upload order
whichever machine reads them. Line crops are kept in the database for every front-end.
"""
from __future__ import annotations

import re
from pathlib import Path

from scanner.event.pg_store import EventURL, PgBackend, connect
from scanner.event.records import now_iso
from scanner.web.station_store import (FAILED, JOB_COLUMNS, JOBS, MAX_ATTEMPTS, QUEUED, RUNNING,
                                       Job, StationQueue)
from scanner.web.texts import ko

__all__ = ["MAX_ATTEMPTS", "PgStationStore"]

_CROP_NAME = re.compile(r"[A-Za-z0-9_.\-]+\.png")
GAVE_UP = ko("job-readers-died", n=MAX_ATTEMPTS)


class PgStationStore(StationQueue):
    """Roster and job queue of one event in a PostgreSQL database (one connection)."""

    shared = True
    _RELEASED = {"worker": None, "lease_until": None}

    def __init__(self, url: str, create: bool = False) -> None:
        del create  # the tables come with the event's schema (pg_schema)
        parsed = EventURL.parse(url)
        super().__init__(PgBackend(url=parsed, con=connect(parsed.conninfo), lock="station"))

    @property
    def event(self) -> str:
        return self.db.url.event  # type: ignore[attr-defined]

    def requeue_running(self, max_attempts: int = MAX_ATTEMPTS) -> int:
        """Nothing to do at a front-end's start: another machine's running jobs are its own
        (a dead reader's job is taken again when its lease runs out)."""
        del max_attempts
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
                    SELECT j.id FROM {JOBS} j
                    WHERE j.event = %(e)s AND (j.state = %(q)s
                          OR (j.state = %(r)s AND j.lease_until < now()))
                      AND NOT EXISTS (
                          SELECT 1 FROM {JOBS} x WHERE x.event = j.event
                          AND j.konami_id IS NOT NULL AND x.konami_id = j.konami_id
                          AND x.seq < j.seq AND x.state IN (%(q)s, %(r)s))
                    ORDER BY j.seq LIMIT 1 FOR UPDATE SKIP LOCKED)
                UPDATE {JOBS} j SET state = %(r)s, attempts = j.attempts + 1,
                       worker = %(w)s, lease_until = now() + make_interval(secs => %(l)s)
                FROM next WHERE j.event = %(e)s AND j.id = next.id
                RETURNING {", ".join("j." + c.strip() for c in JOB_COLUMNS.split(","))}""",
                {"e": self.event, "q": QUEUED, "r": RUNNING, "w": worker,
                 "l": float(lease_s)}).fetchone()
        return Job.from_row(r) if r else None

    def renew(self, job_id: str, worker: str, lease_s: float) -> bool:
        """Extend the lease; False when the job is no longer this worker's."""
        cur = self.con.execute(
            "UPDATE station_jobs SET lease_until = now() + make_interval(secs => %s) "
            "WHERE event = %s AND id = %s AND worker = %s AND state = %s",
            (float(lease_s), self.event, job_id, worker, RUNNING))
        return cur.rowcount == 1

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
        rows = self.db.rows("station_crops", {"sha256": sha256, "name": name}, "", "data")
        return bytes(rows[0]["data"]) if rows else None
