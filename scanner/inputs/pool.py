"""The one executor of every reader pool (`scan -j`, `audit`, the station's jobs).

Workers are spawned, or forked from a command that has no thread and has loaded none of the
reading libraries yet (`start_context`), read on one core each (with N
workers on N cores, Tesseract's and OpenCV's own threads would only fight the other workers),
and each has a bounded address space (`limits.WORKER_MEMORY_MB`): a hostile file that unpacks
past it fails its own read with a MemoryError (`input.worker-memory`) or ends its worker
(`BrokenProcessPool`), never the machine's other work.
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.context
import os
import resource
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from scanner.inputs import limits

ENV_WORKER_MEMORY = "DECKSHEET_WORKER_MEMORY_MB"


def worker_memory_mb() -> int:
    """The bound in MB (0: none), from DECKSHEET_WORKER_MEMORY_MB or the limits table."""
    raw = os.environ.get(ENV_WORKER_MEMORY, "").strip()
    try:
        return max(0, int(raw)) if raw else limits.WORKER_MEMORY_MB
    except ValueError:
        return limits.WORKER_MEMORY_MB


def single_core_worker() -> None:
    """Make this pool worker read on one core. Set through the environment, read when each
    library starts its threads (a worker forked from a process that already ran OpenCV
    inherits its pool, and `cv2.setNumThreads` there hangs)."""
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # before libtesseract starts
    os.environ.setdefault("OPENCV_FOR_THREADS_NUM", "1")  # before OpenCV's first parallel loop


def bound_memory(mb: int) -> None:
    """Cap this process's address space at `mb` MB (never above the hard limit it has)."""
    if mb <= 0:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    resource.setrlimit(resource.RLIMIT_AS, (want, hard))


PARENT_CHECK_S = 1.0
"""How often a reader looks whether the process that started it is still there."""


def die_with_parent(parent_pid: int, every_s: float = PARENT_CHECK_S) -> None:
    """End this reader as soon as its parent is gone. A station killed by SIGKILL cannot stop
    its pool, and a spawned worker does not notice: it holds both ends of its own queue's pipe,
    so no end-of-file ever reaches it (each crash left ~1 GB of orphaned readers). A thread,
    not PR_SET_PDEATHSIG: that signal follows the parent's *thread* that spawned the worker,
    and the station's threads come and go."""
    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(every_s)
        os._exit(70)  # EX_SOFTWARE; no cleanup owed: the parent that wanted a result is gone

    threading.Thread(target=watch, name="decksheet-parent-watch", daemon=True).start()


def _start_worker(memory_mb: int, initializer: Callable[..., None] | None,
                  initargs: tuple, single_core: bool = True,
                  parent_pid: int | None = None) -> None:
    if parent_pid is not None:
        die_with_parent(parent_pid)
    if single_core:
        single_core_worker()
    bound_memory(memory_mb)
    if initializer is not None:
        initializer(*initargs)


class _ReaderProcess(multiprocessing.context.SpawnProcess):
    """A spawned reader that does not run the parent's main script again: its work is
    functions of `scanner` (pickled by name), and a `decksheet` console script would import
    every command of the CLI (0.3–0.7 s a reader) for nothing."""

    @staticmethod
    def _Popen(process_obj):
        main = sys.modules.get("__main__")
        path = getattr(main, "__file__", None)
        if main is None or path is None or getattr(main, "__spec__", None) is not None \
                or not path.endswith(_SCRIPT_NAMES):
            return multiprocessing.context.SpawnProcess._Popen(process_obj)
        with _LAUNCH:
            del main.__file__
            try:
                return multiprocessing.context.SpawnProcess._Popen(process_obj)
            finally:
                main.__file__ = path


class _ReaderContext(multiprocessing.context.SpawnContext):
    Process = _ReaderProcess


_SCRIPT_NAMES = ("/decksheet",)
"""Main scripts not re-run in a reader: the console script (its `if __name__ == "__main__"`
guard holds nothing a reader needs)."""
_LAUNCH = threading.Lock()


THREADED_LIBRARIES = ("cv2", "tesserocr", "pypdfium2")
"""Libraries that start thread pools of their own (OpenCV's, Tesseract's OpenMP) or are not
safe to use across a fork (pdfium): a process that has loaded one is never forked."""


def start_context() -> multiprocessing.context.BaseContext:
    """How readers start. Forked when this process has no other thread and has loaded no
    `THREADED_LIBRARIES` (a `decksheet scan` or `audit` before its first read): the reader
    then has the interpreter, the package and numpy already loaded (≈ 0.25 s of a one-sheet
    scan). Else spawned (the station's threads, a test process that has read an image): a
    fork there would copy locks held by other threads and thread pools that no longer exist."""
    if (sys.platform.startswith("linux") and threading.active_count() == 1
            and not any(name in sys.modules for name in THREADED_LIBRARIES)):
        return multiprocessing.get_context("fork")
    return _ReaderContext()


def reader_pool(workers: int, initializer: Callable[..., None] | None = None,
                initargs: tuple = (), single_core: bool = True) -> ProcessPoolExecutor:
    """A pool of `workers` reader processes (`start_context`), memory bounded, one core each
    (unless `single_core` is False: one reader alone may use every core); each runs
    `initializer(*initargs)` once (load the card database)."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=start_context(),
                               initializer=_start_worker,
                               initargs=(worker_memory_mb(), initializer, initargs, single_core,
                                         os.getpid()))


def end_pool(pool: ProcessPoolExecutor | None) -> None:
    """Stop a pool now: queued reads cancelled, its processes ended and waited for (a pool
    that is done, or given up, leaves no process behind)."""
    if pool is None:
        return
    procs = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.kill()
    for p in procs:
        p.join(5)
    if manager is not None:
        # Let the pool's manager thread finish closing its wake-up pipe before this process may
        # exit: Python 3.11's exit hook writes to that pipe unlocked, and a close racing it
        # printed a traceback after a refusal's one line (seen under load).
        manager.join(5)

