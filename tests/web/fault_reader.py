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


def read_or_die(path: str, file_name: str | None, crops_dir: str) -> ReadOutcome:
    with open(path, "rb") as fh:
        head = fh.read(len(KILLER))
    if head == KILLER:
        time.sleep(1.0)  # its neighbours are reading by now
        os.kill(os.getpid(), signal.SIGKILL)
    return read_original(path, file_name, crops_dir)
