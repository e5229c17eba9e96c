"""A station reader whose process dies on one kind of file (tests of death attribution).

`read_or_die` is what a JobRunner's reader runs: the station's own `read_original`, except
that an original starting with `KILLER` ends its reader process with SIGKILL, as a file that
takes pdfium past its memory cap would (the guard refuses every such file the tests know how
to build, so the death itself is made here; everything around it is the real station).
"""
from __future__ import annotations

import os
import signal
import time

from scanner.web.reader import ReadOutcome, read_original

KILLER = b"%PDF-1.7\n%KILLS-ITS-READER\n"


NEIGHBOUR_WAIT_S = 10.0
"""How long a killer waits for a neighbour to start reading (a reader spawned on a loaded
machine takes seconds to import its libraries); alone, it dies after that."""


def read_or_die(path: str, file_name: str | None, crops_dir: str,
                preview: str | None = None) -> ReadOutcome:
    with open(path, "rb") as fh:
        head = fh.read(len(KILLER))
    # (next to the originals: every job of the station keeps its original in one folder)
    reading = os.path.join(os.path.dirname(os.path.abspath(path)), ".a-neighbour-is-reading")
    if head == KILLER:
        # Die while a neighbour is reading (not merely spawned): its read is lost with the pool.
        deadline = time.monotonic() + NEIGHBOUR_WAIT_S
        while not os.path.exists(reading) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGKILL)
    with open(reading, "w"):
        pass
    try:
        return read_original(path, file_name, crops_dir, preview)
    finally:
        os.unlink(reading)
