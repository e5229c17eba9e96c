"""The reading queue: jobs from the event file, read by a pool of worker processes.

One dispatcher thread owns the pool. It takes queued jobs in upload order, at most one per
worker in flight, and hands each finished read to the service, which registers it. Jobs of
one player are registered in upload order (two desks, one player: two versions, in order).
A read over the time limit fails its job, and the pool is rebuilt so no worker stays hung.
"""
from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

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


class JobRunner:
    def __init__(self, service: StationService, workers: int) -> None:
        self.service = service
        self.workers = workers
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
        # spawn, not fork: the server process has threads (uvicorn, this one).
        return ProcessPoolExecutor(
            max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=init_worker,
            initargs=(self.service.db.spec, self.service.limits))

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
        if free <= 0:
            return
        for job in self.service.pending_jobs():
            if free <= 0:
                break
            if job.id in self._inflight or job.state != "queued":
                continue
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
            return self._pool.submit(read_original, str(self.service.original_path(job)),
                                     job.file_name, crops)
        except (BrokenProcessPool, RuntimeError):
            self._kill_pool()
            self._pool = self._new_pool()
            return self._pool.submit(read_original, str(self.service.original_path(job)),
                                     job.file_name, crops)

    def _collect(self) -> None:
        now = time.monotonic()
        finished: list[tuple[_InFlight, ReadOutcome]] = []
        hung = False
        for f in list(self._inflight.values()):
            if f.future.done():
                try:
                    outcome = f.future.result()
                except BrokenProcessPool:
                    # A worker died (killed, out of memory): every read in the pool is lost.
                    # Try each job once more; a second death fails it (a file that kills).
                    hung = True
                    if f.job.attempts < 2:
                        continue
                    outcome = ReadOutcome(error="읽는 프로세스가 중단되었습니다 (파일이 너무 크거나 손상됨)")
                except Exception as exc:  # noqa: BLE001
                    outcome = ReadOutcome(error=f"읽는 중 오류: {type(exc).__name__}")
                finished.append((f, outcome))
            elif now - f.started > self.service.config.job_timeout_s:
                finished.append((f, ReadOutcome(error="읽기가 너무 오래 걸려 중단했습니다 "
                                                      "(시트가 맞는지 확인하세요)")))
                hung = True
        finished.sort(key=lambda fo: fo[0].job.seq)
        for f, outcome in finished:
            if self._earlier_job_of_player(f.job):
                continue  # registered after the earlier upload of this player
            self._inflight.pop(f.job.id, None)
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
