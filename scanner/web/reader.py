"""What a worker process does: read and check one stored original (no event writes here).

Workers are separate processes so OCR uses every core; each loads the card database once
(`init_worker`). The result goes back to the server process, which alone writes the event.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

from card_db.cdb import CardDbSpec
from card_db.models import LimitList
from card_db import messages
from scanner.errors import DecksheetError
from scanner.event.flows import PreparedRegistration
from scanner.inputs.limits import MAX_PIXELS, MAX_SHEET_PAGES, out_of_memory
from scanner.inputs.pool import worker_memory_mb
from scanner.inputs.options import ReadOptions

_STATE: dict = {}


@dataclass
class ReadOutcome:
    """A worker's answer for one job."""

    prepared: PreparedRegistration | None = None
    """The read, resolved and checked input, for `commit_registration` in the server."""
    error: str | None = None
    """One line for the judge (Korean) when the file could not be read as a decklist."""
    seconds: float = 0.0


def init_worker(card_db: CardDbSpec, limits: LimitList, warm: bool = False) -> None:
    """Load the card database once; `warm`: also what the first photo read would load
    (`scanner.ocr.warm`), so a reader started ahead of the first sheet reads it as fast as the next."""
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS  # the one limit the CLI reads by too
    warnings.simplefilter("error", Image.DecompressionBombWarning)
    from card_db.cdb import load_card_db

    _STATE["db"] = load_card_db(card_db)  # the spec: extra locales and aliases too
    _STATE["limits"] = limits
    if warm:
        from scanner.ocr.warm import warm_up

        _STATE["warm_seconds"] = warm_up()


def reader_ready() -> tuple[int, float | None]:
    """Nothing to read: the station submits one per reader when it starts, so each reader is
    started (and warmed by `init_worker`) before the desk's first sheet rather than by it.
    (This reader's process id, and the seconds its warming took.)"""
    import os

    return os.getpid(), _STATE.get("warm_seconds")


def read_original(path: str, file_name: str | None, crops_dir: str,
                  preview: str | None = None) -> ReadOutcome:
    """Prepare one stored original for registration (the same `prepare_registration` as the
    CLI's `register`); errors become `error`, never an exception. `preview`: where a text or form
    PDF's reading is written as soon as it is read, before its pages are verified
    (`scanner.web.preview`: the check-in page shows it, with no verdict, while the job runs)."""
    import functools
    import time

    from scanner.event.flows import prepare_registration
    from scanner.web.preview import write_header_preview, write_preview

    started = time.perf_counter()
    db, limits = _STATE["db"], _STATE["limits"]
    try:
        # Every check of the upload that needs a PDF or image library happens here, in this
        # memory-capped reader: the guard (pages counted on the page tree), the image header.
        # A photo's header goes out as soon as it is read (before its rows): whose sheet it is
        # is asked while the rows are read.
        options = ReadOptions(crops_dir=Path(crops_dir), max_pages=MAX_SHEET_PAGES,
                              on_text_read=functools.partial(write_preview, Path(preview), db)
                              if preview else None,
                              on_header_read=functools.partial(write_header_preview, Path(preview))
                              if preview else None)
        prepared = prepare_registration(path, db, limits, options, file_name=file_name,
                                        keep_bytes=False)
    except DecksheetError as exc:
        return ReadOutcome(error=_ko(exc, path, file_name), seconds=time.perf_counter() - started)
    except Exception as exc:  # noqa: BLE001 - a reader bug must fail the job, not the worker
        if out_of_memory(exc):  # past the worker's memory bound (scanner.inputs.pool)
            return ReadOutcome(error=messages.render("input.worker-memory",
                                                     {"file": file_name or "파일",
                                                      "max_mb": worker_memory_mb()}, "ko"),
                               seconds=time.perf_counter() - started)
        return ReadOutcome(error=messages.render("station.read-error",
                                                 {"kind": type(exc).__name__}, "ko"),
                           seconds=time.perf_counter() - started)
    return ReadOutcome(prepared=prepared, seconds=time.perf_counter() - started)


def _ko(exc: DecksheetError, path: str, file_name: str | None) -> str:
    """The error in Korean; the store's path (a sha256 name) becomes the file's name."""
    name = file_name or "파일"
    text = exc.render("ko").replace(path, name).replace(Path(path).name, name)
    return text.replace(Path(path).stem, name)
