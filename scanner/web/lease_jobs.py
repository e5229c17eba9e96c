"""The reading queue of a PostgreSQL event: readers on any machine take leased jobs.

Each reader is a thread with its own one-process pool: it claims the next job (a lease in the
database), reads the original in its process while renewing the lease, registers the result
through the service (once per job: the event store keeps one registration per job) and closes
the job. A reader whose machine or process dies simply stops renewing: its job is taken again
by any reader once the lease runs out. Used by `decksheet worker` and by `decksheet serve` on a
database event (instead of `JobRunner`, whose queue is one process's).
"""
from __future__ import annotations

import logging
import os
import socket
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool

from scanner.inputs.pool import end_pool, reader_pool
from scanner.event.records import now_iso
from scanner.web.faults import QueueState
from scanner.web.polling import take_or_idle
from scanner.web.reader import ReadOutcome, init_worker, read_original, reader_ready
from scanner.web.service import StationService
from scanner.web.stations import open_station
from scanner.web.texts import ko

log = logging.getLogger("decksheet.web.lease_jobs")

DEFAULT_LEASE_S = 60.0
IDLE_POLL_S = 1.0
WAIT_SLICE_S = 0.5
"""How often a reader looks up from a read (stop asked? time out? lease to renew?)."""


class LeaseRunner:
    def __init__(self, service: StationService, workers: int,
                 lease_s: float = DEFAULT_LEASE_S) -> None:
        self.service = service
        self.workers = workers
        self.lease_s = lease_s
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self.name = f"{socket.gethostname()}:{os.getpid()}"
        self.done = 0
        """Jobs this runner closed (for the worker's summary)."""
        self.state = QueueState()

    def start(self) -> None:
        for n in range(self.workers):
            t = threading.Thread(target=self._reader, args=(f"{self.name}:{n}",),
                                 name=f"decksheet-reader-{n}", daemon=True)
            t.start()
            self._threads.append(t)

    def notify(self) -> None:
        self._wake.set()

    def stop(self, grace_s: float) -> None:
        """Take no new job; reads in flight get `grace_s`, then go back to the queue."""
        self._stopping.set()
        self._wake.set()
        end = time.monotonic() + grace_s + 5
        for t in self._threads:
            t.join(max(0.0, end - time.monotonic()))

    def join(self) -> None:
        for t in self._threads:
            t.join()

    def _new_pool(self) -> ProcessPoolExecutor:
        # The one reader executor (spawned, one core, memory bounded), one process per reader,
        # started and warmed now rather than by the first job it claims (`JobRunner._new_pool`).
        pool = reader_pool(1, init_worker, (self.service.db.spec, self.service.limits, True))
        pool.submit(reader_ready)
        return pool

    def _reader(self, worker: str) -> None:
        pool = self._new_pool()
        queue = None  # this reader's own connection for claims and lease renewals

        def claim():
            nonlocal queue
            try:
                queue = queue or open_station(self.service.config.event_path)
                return queue.claim(worker, self.lease_s)
            except Exception:  # the database may be restarting: connect again next time
                queue = _close(queue)
                raise

        try:
            while not self._stopping.is_set():
                job = take_or_idle(claim, self._wake, IDLE_POLL_S, "a job", log)
                if job is None:
                    continue
                try:
                    pool, queue = self._run(job, worker, pool, queue)
                except Exception as exc:  # noqa: BLE001 - a reader outlives any fault
                    # The job's lease runs out and it is read again (here or elsewhere).
                    log.exception("reader %s: job %s stopped by %s", worker, job.id,
                                  type(exc).__name__)
                    self.state = QueueState(fault=type(exc).__name__, since=now_iso())
                    _kill(pool)
                    pool, queue = self._new_pool(), _close(queue)
                    self._stopping.wait(IDLE_POLL_S)
        finally:
            _kill(pool)
            _close(queue)

    def _run(self, job, worker: str, pool: ProcessPoolExecutor, queue
             ) -> tuple[ProcessPoolExecutor, object]:
        crops = self.service.crops_dir(job.file_sha256)
        crops.mkdir(parents=True, exist_ok=True)
        started = renewed = time.monotonic()
        # The text reading of a PDF, before its pages are verified, is written beside the crops:
        # the front-end shows it when it shares this folder (`serve` on a database event); a
        # `decksheet worker` on another machine has its own, so there the verified read alone shows.
        preview = self.service.preview_file(job)
        future: Future = pool.submit(read_original, str(self.service.original_path(job)),
                                     job.file_name, str(crops),
                                     str(preview) if preview is not None else None)
        outcome: ReadOutcome | None = None
        while outcome is None:
            try:
                outcome = future.result(timeout=WAIT_SLICE_S)
            except FutureTimeout:
                now = time.monotonic()
                if self._stopping.is_set() and \
                        now - started > self.service.config.shutdown_grace_s:
                    queue = self._requeue(queue, job)  # SIGTERM: read again elsewhere, now
                    _kill(pool)
                    return self._new_pool(), queue
                if now - started > self.service.config.job_timeout_s:
                    outcome = ReadOutcome(error=ko("job-read-too-long"))
                    _kill(pool)
                    pool = self._new_pool()
                    break
                if now - renewed > self.lease_s / 3:
                    renewed = now
                    queue = self._renew(queue, job, worker)
            except BrokenProcessPool:
                # The reading process died (killed, out of memory): the job goes back to the
                # queue; a file that kills its reader fails after MAX_ATTEMPTS.
                _kill(pool)
                queue = self._requeue(queue, job)
                return self._new_pool(), queue
            except Exception as exc:  # noqa: BLE001
                outcome = ReadOutcome(error=ko("job-read-error", kind=type(exc).__name__))
        try:
            queue = queue or open_station(self.service.config.event_path)
            if outcome.prepared is not None:
                queue.put_crops(job.file_sha256, crops)
            self.service.complete(job, outcome)
            self.done += 1
            self.state = QueueState()
        except Exception as exc:  # noqa: BLE001 - the lease runs out and another reader retries
            log.exception("could not register job %s", job.id)
            self.state = QueueState(fault=type(exc).__name__, since=now_iso())
            queue = _close(queue)
        return pool, queue

    def _renew(self, queue, job, worker: str):
        """The job's lease renewed; a database that is down (restarting) only skips a renewal:
        the connection is opened again at the next one, and the read goes on."""
        try:
            queue = queue or open_station(self.service.config.event_path)
            if not queue.renew(job.id, worker, self.lease_s):
                log.warning("job %s was taken by another reader", job.id)
            return queue
        except Exception as exc:  # noqa: BLE001 - retried at the next slice
            log.warning("could not renew the lease of job %s: %s", job.id, type(exc).__name__)
            self.state = QueueState(fault=type(exc).__name__, since=now_iso())
            return _close(queue)

    def _requeue(self, queue, job):
        """The job back to the queue; if the database cannot be reached, its lease runs out."""
        try:
            queue = queue or open_station(self.service.config.event_path)
            queue.requeue(job.id)
            return queue
        except Exception:  # noqa: BLE001
            log.exception("could not requeue job %s (its lease runs out)", job.id)
            return _close(queue)


def _close(queue) -> None:
    if queue is not None:
        try:
            queue.close()
        except Exception:  # noqa: BLE001 - closing a broken connection
            pass
    return None


def _kill(pool: ProcessPoolExecutor) -> None:
    end_pool(pool)
