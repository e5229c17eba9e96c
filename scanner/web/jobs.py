"""The reading queue: jobs from the event file, read by a pool of worker processes.

One dispatcher thread owns the pool. It takes queued jobs in upload order, at most one per
worker in flight, and hands each finished read to the service, which registers it. Jobs of
one player are registered in upload order (two desks, one player: two versions, in order).
A read over the time limit fails its job, and the pool is rebuilt so no worker stays hung.

Faults never stop the dispatcher: a read whose registration meets a storage fault (a full disk,
the event file locked by another program, a read-only medium) waits in memory and is registered
once the storage takes writes again; any other exception is logged and the loop goes on. A reader
process that dies takes every read of its pool with it, and which file killed it is not known:
those jobs are read again, each ALONE, and only a job whose reader dies while it is the only read
is failed, after `SOLO_DEATHS` such deaths (never an honest neighbour of a hostile file).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from card_db.messages import render
from scanner.inputs.pool import end_pool, reader_pool
from scanner.event.records import now_iso
from scanner.web.faults import QueueState, storage_fault
from scanner.web.reader import ReadOutcome, init_worker, read_original, reader_ready
from scanner.web.service import StationService
from scanner.web.station_store import Job
from scanner.web.texts import ko

log = logging.getLogger("decksheet.web.jobs")

SOLO_DEATHS = 2
"""Deaths of a reader while it read only this job, after which the job fails (its file kills)."""
RETRY_FIRST_S = 0.5
RETRY_MAX_S = 10.0
"""Waits between attempts after a fault (doubling from the first up to the last)."""


@dataclass
class _InFlight:
    job: Job
    future: Future
    started: float


class JobRunner:
    def __init__(self, service: StationService, workers: int,
                 read: Callable[[str, str | None, str, str | None], ReadOutcome] = read_original
                 ) -> None:
        self.service = service
        self.workers = workers
        self.read = read
        """What a reader runs for one job (a module-level function: it is pickled by name)."""
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._inflight: dict[str, _InFlight] = {}
        self.ready: list[Future] = []
        """The current pool's `reader_ready` answers (its readers started and warmed)."""
        self._unwritten: list[tuple[Job, ReadOutcome | None, str | None]] = []
        """Finished jobs whose end could not be written yet: (job, outcome to register, or the
        error to fail it with)."""
        self._suspects: set[str] = set()
        """Jobs in flight when a reader died beside other reads: read again alone."""
        self._solo_deaths: dict[str, int] = {}
        self.state = QueueState()

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        with self.service.station() as st:
            again = st.requeue_running()
        if again:
            log.warning("%d job(s) left running by the last server go back to the queue", again)
        self._pool = self._new_pool()
        self._thread = threading.Thread(target=self._run, name="decksheet-jobs", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """A new job was queued."""
        self._wake.set()

    def stop(self, grace_s: float) -> None:
        """Take no new job; give running reads `grace_s`; requeue the rest; end the workers."""
        self._stopping.set()
        self._wake.set()
        if self._thread:
            self._thread.join(grace_s + 5)
        try:
            with self.service.station() as st:
                for f in list(self._inflight.values()):
                    st.requeue(f.job.id)
        except Exception:  # noqa: BLE001 - left running: the next start requeues them
            log.exception("could not requeue the reads in flight")
        self._kill_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # The one reader executor: spawned (the server has threads), memory bounded. Its readers
        # are started now, each warmed (models, fonts), not by the first sheets on the judge's
        # clock: a spawned pool starts a reader per submission finding none idle.
        pool = reader_pool(self.workers, init_worker,
                           (self.service.db.spec, self.service.limits, True))
        self.ready = [pool.submit(reader_ready) for _ in range(self.workers)]
        return pool

    def _kill_pool(self) -> None:
        pool, self._pool = self._pool, None
        end_pool(pool)

    # ------------------------------------------------------------------ the loop

    def _run(self) -> None:
        deadline: float | None = None
        backoff = RETRY_FIRST_S
        while True:
            if self._stopping.is_set():
                deadline = deadline or time.monotonic() + self.service.config.shutdown_grace_s
                if not self._inflight or time.monotonic() > deadline:
                    return
            try:
                self._step()
            except Exception as exc:  # noqa: BLE001 - the dispatcher outlives any fault
                self._fault(exc)
                self._stopping.wait(backoff)
                backoff = min(backoff * 2, RETRY_MAX_S)
            else:
                backoff = RETRY_FIRST_S
                if not self._unwritten:
                    self.state = QueueState()

    def _step(self) -> None:
        if self._unwritten:
            self._write_ends()
        if not self._stopping.is_set() and not self._unwritten:
            self._fill()
        if self._inflight:
            wait([f.future for f in self._inflight.values()], timeout=0.2,
                 return_when=FIRST_COMPLETED)
        else:
            self._wake.wait(0.5)
            self._wake.clear()
        self._collect()

    def _fault(self, exc: Exception) -> None:
        kind = type(exc).__name__
        if self.state.fault != kind:  # one log line per fault, not one per retry
            if storage_fault(exc) is not None:
                log.error("reading queue: the event record cannot be written (%s: %s); "
                          "reads wait and are registered when it can", kind, exc)
            else:
                log.exception("reading queue: %s; going on", kind)
            self.state = QueueState(fault=kind, since=now_iso())
        self.state.waiting = len(self._unwritten)

    def _fill(self) -> None:
        free = self.workers - len(self._inflight)
        if free <= 0 or self._suspects & self._inflight.keys():
            return  # a suspect reads alone
        for job in self.service.pending_jobs():
            if free <= 0:
                break
            if job.id in self._inflight or job.state != "queued":
                continue
            if job.id in self._suspects:
                if self._inflight:
                    break  # its turn comes when the reads in flight are done
                free = 1
            # What the read needs from the disk and the record first: a fault here (a full disk,
            # a locked record) leaves the job queued; once marked running it was in no one's
            # hands, running for good (seen under the fault load test).
            args = self._read_args(job)
            with self.service.station() as st:
                st.mark_running(job.id)
                job = st.job(job.id) or job
            future = self._pool_submit(args)
            self._inflight[job.id] = _InFlight(job, future, time.monotonic())
            free -= 1

    def _read_args(self, job: Job) -> tuple[str, str, str, str | None]:
        """The reader's arguments: the original's path, its name, the crops folder (made) and
        where a PDF's text reading is written beside the crops before its pages are verified."""
        crops = self.service.crops_dir(job.file_sha256)
        crops.mkdir(parents=True, exist_ok=True)
        preview = self.service.preview_file(job)
        return (str(self.service.original_path(job)), job.file_name, str(crops),
                str(preview) if preview is not None else None)

    def _pool_submit(self, args: tuple) -> Future:
        if self._pool is None:
            self._pool = self._new_pool()
        try:
            return self._pool.submit(self.read, *args)
        except (BrokenProcessPool, RuntimeError):
            self._kill_pool()
            self._pool = self._new_pool()
            return self._pool.submit(self.read, *args)

    def _collect(self) -> None:
        now = time.monotonic()
        finished: list[tuple[_InFlight, ReadOutcome]] = []
        broken = hung = False
        for f in list(self._inflight.values()):
            if f.future.done():
                try:
                    outcome = f.future.result()
                except BrokenProcessPool:
                    broken = True
                    continue  # settled below, with every read the dead pool held
                except Exception as exc:  # noqa: BLE001
                    outcome = ReadOutcome(error=render("station.read-error",
                                                       {"kind": type(exc).__name__}, "ko"))
                finished.append((f, outcome))
            elif now - f.started > self.service.config.job_timeout_s:
                finished.append((f, ReadOutcome(error=render("station.read-timeout", {}, "ko"))))
                hung = True
        if broken:
            finished += self._reader_died()
        finished.sort(key=lambda fo: fo[0].job.seq)
        for f, outcome in finished:
            if self._earlier_job_of_player(f.job):
                continue  # registered after the earlier upload of this player
            self._inflight.pop(f.job.id, None)
            self._suspects.discard(f.job.id)
            self._solo_deaths.pop(f.job.id, None)
            self._unwritten.append((f.job, outcome, None))
        self._write_ends()
        if hung:
            # Jobs still in the pool go back to the queue; their reads start over.
            self._requeue_inflight()

    def _reader_died(self) -> list[tuple[_InFlight, ReadOutcome]]:
        """A reader process died (killed, out of memory, a library crash) and with it every read
        of the pool. A read that was alone is the one that died: after SOLO_DEATHS it fails.
        Reads that were not alone are suspects, each read again alone."""
        lost = [f for f in self._inflight.values() if f.future.done()
                and isinstance(f.future.exception(), BrokenProcessPool)]
        # a read whose answer came back before the death was not beside it (its answer is
        # written by the caller): only reads still running, or lost, make a death "not alone"
        running = [f for f in self._inflight.values() if not f.future.done() or f in lost]
        failed = []
        if len(running) == 1 and lost:
            f = lost[0]
            deaths = self._solo_deaths[f.job.id] = self._solo_deaths.get(f.job.id, 0) + 1
            if deaths >= SOLO_DEATHS:
                failed.append((f, ReadOutcome(error=render("station.worker-died", {}, "ko"))))
                self._inflight.pop(f.job.id, None)
        else:
            self._suspects.update(f.job.id for f in lost)
        self._requeue_inflight()
        return failed

    def _requeue_inflight(self) -> None:
        """Every read still in the pool goes back to the queue; the pool is rebuilt."""
        pending = list(self._inflight.values())
        self._inflight.clear()
        self._kill_pool()
        with self.service.station() as st:
            for f in pending:
                st.requeue(f.job.id)

    def _write_ends(self) -> None:
        """Register (or fail) finished jobs, in order. A storage fault keeps the rest for the
        next round, so a full disk or a locked file delays registrations and loses none."""
        while self._unwritten:
            job, outcome, error = self._unwritten[0]
            try:
                if error is not None:
                    with self.service.station() as st:
                        st.finish(job.id, None, error)
                else:
                    self.service.complete(job, outcome)
            except Exception as exc:  # noqa: BLE001 - the job fails with why; never stuck running
                if storage_fault(exc) is not None:
                    raise  # the loop waits and tries again; the read is kept
                if error is None:
                    log.exception("could not register job %s", job.id)
                    self._unwritten[0] = (job, None,
                                          ko("job-not-registered", kind=type(exc).__name__))
                    continue
                log.exception("could not end job %s (the next start reads it again)", job.id)
            self._unwritten.pop(0)

    def _earlier_job_of_player(self, job: Job) -> bool:
        if job.konami_id is None:
            return False
        return any(o.job.konami_id == job.konami_id and o.job.seq < job.seq
                   and o.job.id != job.id for o in self._inflight.values())
