"""Audits as jobs: a judge asks (`start_audit`), the audit runner takes the queue one audit at a
time (`run_audit_job`: sheets re-read in a reader process, progress kept in the event file), and
the files it wrote are served by name from the audit's own folder (`audit_file`)."""
from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from scanner.web.audit_queue import FORMATS, MEDIA, AuditJob, AuditQueue
from scanner.web.service.core import StationError
from scanner.web.service.records import RecordsService
from scanner.web.texts import ko

_JOB_ID = re.compile(r"[0-9a-f]{16}")


class AuditsService(RecordsService):
    def _audits_refused(self) -> None:
        if self.config.uses_database:  # the queue lives in the SQLite event file
            raise StationError(ko("audits-sqlite-only"), 501)

    def audits_root(self) -> Path:
        return self.config.station_dir / "audits"

    def start_audit(self, formats: list[str], judge: str) -> AuditJob:
        """Queue an audit writing `formats` (keys of `FORMATS`; none given: html, csv, xlsx)."""
        self._audits_refused()
        wanted = [f for f in FORMATS if f in formats] if formats else ["html", "csv", "xlsx"]
        with self.station() as st:
            return AuditQueue(st).add(wanted, judge)

    def audit_job(self, job_id: str) -> AuditJob | None:
        if self.config.uses_database or not _JOB_ID.fullmatch(job_id):
            return None
        with self.station() as st:
            return AuditQueue(st).get(job_id)

    def recent_audits(self, limit: int = 20) -> list[AuditJob]:
        if self.config.uses_database:
            return []
        with self.station() as st:
            return AuditQueue(st).recent(limit)

    def audit_file(self, job_id: str, name: str) -> tuple[Path, str]:
        """(path, content type) of a file a finished audit wrote; only those files, by the
        name the job lists (no path is ever built from the request's text)."""
        job = self.audit_job(job_id)
        if job is None:
            raise StationError(ko("no-such-job"), 404)
        if job.state != "done":
            raise StationError(ko("audit-not-done"), 409)
        listed = next((f["name"] for f in job.files if f["name"] == name), None)
        path = self.audits_root() / job.id / listed if listed else None
        if path is None or not path.is_file():
            raise StationError(ko("no-such-audit-file"), 404)
        return path, MEDIA[listed]

    def take_audit(self) -> AuditJob | None:
        """The next queued audit, now running (the runner's only way in)."""
        with self.station() as st:
            return AuditQueue(st).take()

    def requeue_audits(self) -> int:
        with self.station() as st:
            return AuditQueue(st).requeue_running(ko("audit-restarted-too-often", n=2))

    def run_audit_job(self, job: AuditJob, should_stop: Callable[[], bool] | None = None
                      ) -> None:
        """Run one audit into its folder; the job ends done (files listed) or failed (why), or
        goes back to the queue when `should_stop()` turned true (the server stopping)."""
        from scanner.event.audit import AuditStopped

        out = self.audits_root() / job.id
        shutil.rmtree(out, ignore_errors=True)  # a restarted audit starts clean
        try:
            summary = self.run_audit(out, log=True, judge=job.judge,
                                     progress=self._progress_of(job.id),
                                     should_stop=should_stop)
            files = []
            for fmt, name in FORMATS.items():
                path = out / name
                if fmt not in job.formats:
                    path.unlink(missing_ok=True)
                elif path.is_file():
                    files.append({"name": name, "size": path.stat().st_size})
        except AuditStopped:
            with self.station() as st:
                AuditQueue(st).requeue(job.id)
            return
        except Exception as exc:  # noqa: BLE001 - the job fails with why; the server goes on
            with self.station() as st:
                AuditQueue(st).finish(job.id, None, None, ko("audit-failed",
                                                             kind=type(exc).__name__))
            raise
        with self.station() as st:
            AuditQueue(st).finish(job.id, files, summary, None)

    def fail_running_audit(self, job_id: str) -> None:
        """An audit still `running` after its runner gave up on it ends failed."""
        with self.station() as st:
            queue = AuditQueue(st)
            job = queue.get(job_id)
            if job is not None and job.state == "running":
                queue.finish(job_id, None, None, ko("audit-failed", kind="StationError"))

    def _progress_of(self, job_id: str) -> Callable[[int, int], None]:
        def progress(done: int, total: int) -> None:
            with self.station() as st:
                AuditQueue(st).progress(job_id, done, total)
        return progress
