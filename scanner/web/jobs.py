"""The reading queue: jobs from the event file, read by a pool of worker processes.

One dispatcher thread owns the pool. It takes queued jobs in upload order, at most one per
worker in flight, and hands each finished read to the service, which registers it. Jobs of
one player are registered in upload order (two desks, one player: two versions, in order).
A read over the time limit fails its job, and the pool is rebuilt so no worker stays hung.

A reader that dies takes every read of its pool with it, and which file killed it is not
known: each job that was in flight is read again **alone** (nothing else starts beside it).
A job whose reader dies while it is read alone did it itself; it fails "too large or
damaged" the second time (the first may be a kill from outside). A neighbour is never failed
for another file's death.
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
from scanner.inputs.pool import reader_pool
from scanner.web.reader import ReadOutcome, init_worker, read_original
from scanner.web.service import StationService
from scanner.web.station_store import Job
from scanner.web.texts import ko

log = logging.getLogger("decksheet.web.jobs")


@dataclass
class _InFlight:
    job: Job
    future: Future
    started: float


DEATHS_ALONE = 2
"""Reader deaths while a job is read alone that fail it (its own file, surely)."""


class JobRunner:
    def __init__(self, service: StationService, workers: int,
                 read: Callable[[str, str | None, str], ReadOutcome] = read_original) -> None:
        self.service = service
        self.workers = workers
        self.read = read
        """What a reader runs for one job (a module-level function: it is pickled by name)."""
        self._alone: set[str] = set()
        """Jobs in flight when a reader died: each is read again with nothing beside it."""
        self._deaths: dict[str, int] = {}
        """Reader deaths of each job while it was read alone."""
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._inflight: dict[str, _InFlight] = {}

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
        with self.service.station() as st:
            for f in list(self._inflight.values()):
                st.requeue(f.job.id)
        self._kill_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # The one reader executor: spawned (the server has threads), memory bounded.
        return reader_pool(self.workers, init_worker, (self.service.db.spec, self.service.limits))

    def _kill_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        procs = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            if p.is_alive():
                p.kill()

    # ------------------------------------------------------------------ the loop

    def _run(self) -> None:
        deadline: float | None = None
        while True:
            if self._stopping.is_set():
                deadline = deadline or time.monotonic() + self.service.config.shutdown_grace_s
                if not self._inflight or time.monotonic() > deadline:
                    return
            else:
                try:
                    self._fill()
                except Exception:
                    log.exception("could not start jobs")
            if self._inflight:
                wait([f.future for f in self._inflight.values()], timeout=0.2,
                     return_when=FIRST_COMPLETED)
            else:
                self._wake.wait(0.5)
                self._wake.clear()
            self._collect()

    def _fill(self) -> None:
        free = self.workers - len(self._inflight)
        if free <= 0 or any(job_id in self._alone for job_id in self._inflight):
            return  # a job read alone has the readers to itself
        pending = [j for j in self.service.pending_jobs()
                   if j.id not in self._inflight and j.state == "queued"]
        suspects = [j for j in pending if j.id in self._alone]
        if suspects:  # first the jobs of a dead reader, each alone, once the others are done
            if self._inflight:
                return
            pending, free = suspects[:1], 1
        for job in pending:
            if free <= 0:
                break
            with self.service.station() as st:
                st.mark_running(job.id)
                job = st.job(job.id) or job
            crops = self.service.crops_dir(job.file_sha256)
            crops.mkdir(parents=True, exist_ok=True)
            future = self._pool_submit(job, str(crops))
            self._inflight[job.id] = _InFlight(job, future, time.monotonic())
            free -= 1

    def _pool_submit(self, job: Job, crops: str) -> Future:
        if self._pool is None:
            self._pool = self._new_pool()
        try:
            return self._pool.submit(self.read, str(self.service.original_path(job)),
                                     job.file_name, crops)
        except (BrokenProcessPool, RuntimeError):
            self._kill_pool()
            self._pool = self._new_pool()
            return self._pool.submit(self.read, str(self.service.original_path(job)),
                                     job.file_name, crops)

    def _collect(self) -> None:
        now = time.monotonic()
        finished: list[tuple[_InFlight, ReadOutcome]] = []
        hung = False
        dead = [f for f in self._inflight.values() if f.future.done()
                and isinstance(f.future.exception(), BrokenProcessPool)]
        if dead:
            # A reader died (its file, its memory cap, a kill): every read of the pool is
            # lost. Reads still in flight were its neighbours or its cause: each is read
            # again alone; one that was alone already did it itself.
            lost = [f for f in self._inflight.values()
                    if not f.future.done() or isinstance(f.future.exception(), BrokenProcessPool)]
            for f in lost:
                if len(lost) == 1:  # nothing beside it: its own file (or a kill from outside)
                    self._deaths[f.job.id] = self._deaths.get(f.job.id, 0) + 1
                self._alone.add(f.job.id)
                log.warning("a reader died reading job %s (%s); it is read again alone",
                            f.job.id, "alone" if len(lost) == 1 else f"{len(lost)} in flight")
        for f in list(self._inflight.values()):
            if f.future.done():
                try:
                    outcome = f.future.result()
                except BrokenProcessPool:
                    hung = True
                    if self._deaths.get(f.job.id, 0) < DEATHS_ALONE:
                        continue  # requeued below, read again alone
                    outcome = ReadOutcome(error=render("station.worker-died", {}, "ko"))
                except Exception as exc:  # noqa: BLE001
                    outcome = ReadOutcome(error=render("station.read-error",
                                                       {"kind": type(exc).__name__}, "ko"))
                finished.append((f, outcome))
            elif now - f.started > self.service.config.job_timeout_s:
                finished.append((f, ReadOutcome(error=render("station.read-timeout", {}, "ko"))))
                hung = True
        finished.sort(key=lambda fo: fo[0].job.seq)
        for f, outcome in finished:
            if self._earlier_job_of_player(f.job):
                continue  # registered after the earlier upload of this player
            self._inflight.pop(f.job.id, None)
            self._alone.discard(f.job.id)
            self._deaths.pop(f.job.id, None)
            try:
                self.service.complete(f.job, outcome)
            except Exception as exc:  # noqa: BLE001 - the job fails with why; never stuck running
                log.exception("could not register job %s", f.job.id)
                with self.service.station() as st:
                    st.finish(f.job.id, None, ko("job-not-registered", kind=type(exc).__name__))
        if hung:
            # Jobs still in the broken pool go back to the queue; their reads start over.
            with self.service.station() as st:
                for f in list(self._inflight.values()):
                    if not f.future.done() or isinstance(f.future.exception(), BrokenProcessPool):
                        st.requeue(f.job.id)
                        self._inflight.pop(f.job.id, None)
            self._kill_pool()

    def _earlier_job_of_player(self, job: Job) -> bool:
        if job.konami_id is None:
            return False
        return any(o.job.konami_id == job.konami_id and o.job.seq < job.seq
                   and o.job.id != job.id for o in self._inflight.values())
