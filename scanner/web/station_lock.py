"""One running station per event file: `decksheet serve` holds an exclusive `flock` on a lock
file beside the event for as long as it runs. A second `serve` on the same file is refused at
start with one line, before it could requeue the first one's running jobs. The kernel drops
the lock when the process dies (even by SIGKILL), so a crash never leaves a stale lock."""
from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from scanner.errors import EventError


def lock_path(event_path: Path) -> Path:
    """Beside the event file itself: a symlink to it, or a path through `..` or another
    mount of the folder, names the same lock (the lock is the file's, not the name's)."""
    return Path(os.path.realpath(event_path) + ".station.lock")


@contextlib.contextmanager
def station_lock(event_path: Path) -> Iterator[Path]:
    path = lock_path(event_path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise EventError("serve.lock-unwritable", path=path, reason=exc.strerror) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise EventError("serve.already-running", pid=holder, event=event_path) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield path
    finally:
        os.close(fd)  # releases the lock; the file stays (unlinking it would race a new holder)
