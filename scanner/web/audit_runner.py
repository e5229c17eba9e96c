"""The audit queue's runner: one thread takes queued audits one at a time, oldest first.

An audit re-reads every sheet, which takes minutes on a big event: it never runs on a request's
thread, and its sheets are read in a reader process (`run_audit(..., in_process=False)`), so a
reader that crashes fails the audit, not the server. An audit a stopped server left running goes
back to the queue: at once when the server stops (after the sheet in hand), else at the next
start (and an audit whose server died twice fails).
"""
from __future__ import annotations

import logging
import threading

from scanner.web.polling import take_or_idle
from scanner.web.service import StationService

log = logging.getLogger("decksheet.web.audits")

IDLE_POLL_S = 2.0
"""How often the runner looks at the queue when nobody woke it."""


class AuditRunner:
    def __init__(self, service: StationService) -> None:
        self.service = service
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        again = self.service.requeue_audits()
        if again:
            log.warning("%d audit(s) left running by the last server go back to the queue", again)
        self._thread = threading.Thread(target=self._run, name="decksheet-audits", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """An audit was queued."""
        self._wake.set()

    def stop(self, grace_s: float) -> None:
        """Take no new audit; one running stops after the sheet in hand (its reader process
        ends) and goes back to the queue for the next start."""
        self._stopping.set()
        self._wake.set()
        if self._thread:
            self._thread.join(grace_s)

    def _run(self) -> None:
        while not self._stopping.is_set():
            job = take_or_idle(self.service.take_audit, self._wake, IDLE_POLL_S, "an audit", log)
            if job is None:
                continue
            try:
                self.service.run_audit_job(job, should_stop=self._stopping.is_set)
            except Exception:  # noqa: BLE001 - the job is failed with why; the runner goes on
                log.exception("audit %s failed", job.id)
                self._settle(job.id)

    def _settle(self, job_id: str, tries: int = 5) -> None:
        """An audit whose end could not be written (the event file busy under load) must not
        stay `running` while the next one runs: it is failed, trying again a few times."""
        for attempt in range(tries):
            try:
                self.service.fail_running_audit(job_id)
                return
            except Exception:  # noqa: BLE001 - busy: wait and try again
                self._stopping.wait(0.5 * (attempt + 1))
        log.error("audit %s could not be marked failed", job_id)
