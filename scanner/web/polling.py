"""Taking the next job from a queue that may be busy or down, or idling until there is one
(the audit runner and the database reading queue's readers)."""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def take_or_idle(take: Callable[[], T | None], wake: threading.Event, idle_s: float,
                 what: str, log: logging.Logger) -> T | None:
    """The job `take` gives, or None after idling: when the queue is empty, or when taking
    failed (a busy event file, a restarting database: logged, looked at again later), wait
    `idle_s` seconds or until `wake` is set."""
    try:
        job = take()
    except Exception:  # noqa: BLE001 - the queue may be busy or down: look again later
        log.exception("could not take %s", what)
        job = None
    if job is None:
        wake.wait(idle_s)
        wake.clear()
    return job
