"""Storage faults: an error that says the event's storage cannot take a write now (a full disk,
a file locked by another program, a read-only medium, a database that is down), told apart from
an error of the request itself, the same way wherever it is raised.

The station answers a storage fault 507 (full) or 503 (try again) with one Korean line, and its
reading queue keeps the read and registers it once the storage is back, instead of failing the
sheet. Anything else is the request's own error (4xx) or a bug (500)."""
from __future__ import annotations

import errno
import sqlite3
from dataclasses import dataclass

from scanner.errors import DecksheetError

FULL = 507
UNAVAILABLE = 503

_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_UNAVAILABLE_ERRNOS = {errno.EROFS, errno.EIO, errno.EAGAIN, errno.ENOLCK, errno.EDEADLK,
                       errno.ETIMEDOUT, errno.EMFILE, errno.ENFILE, errno.EACCES, errno.EPERM}
_SQLITE_FULL = 13
_SQLITE_UNAVAILABLE = {5: "storage-busy", 6: "storage-busy", 8: "storage-read-only",
                       10: "storage-io", 14: "storage-io"}
"""SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR, SQLITE_CANTOPEN."""
_EVENT_CODES = {"event.read-only": "storage-read-only", "event.not-writable": "storage-read-only",
                "event.file-missing": "storage-io", "event.cannot-connect": "storage-down"}
"""Coded errors of the event record that are its storage's state, not the request's fault."""


@dataclass(frozen=True)
class StorageFault:
    status: int
    """507 (full: someone must make room) or 503 (busy, read-only, down: retry later)."""
    text: str
    """The station's message key (scanner.web.texts / card_db.messages `web.*`)."""


def storage_fault(exc: BaseException) -> StorageFault | None:
    """The storage fault `exc` (or an exception it was raised from) stands for, or None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        fault = _one(current)
        if fault is not None:
            return fault
        current = current.__cause__ or current.__context__
    return None


def _one(exc: BaseException) -> StorageFault | None:
    if isinstance(exc, OSError) and exc.errno is not None:
        if exc.errno in _FULL_ERRNOS:
            return StorageFault(FULL, "disk-full")
        if exc.errno in _UNAVAILABLE_ERRNOS:
            return StorageFault(UNAVAILABLE, "storage-io")
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None:
            code &= 0xFF  # extended codes (SQLITE_IOERR_WRITE …) carry the primary in the low byte
        if code == _SQLITE_FULL:
            return StorageFault(FULL, "disk-full")
        if code in _SQLITE_UNAVAILABLE:
            return StorageFault(UNAVAILABLE, _SQLITE_UNAVAILABLE[code])
        if isinstance(exc, sqlite3.OperationalError):  # "database is locked" with no code
            return StorageFault(UNAVAILABLE, "storage-busy")
    if isinstance(exc, DecksheetError) and exc.code in _EVENT_CODES:
        return StorageFault(UNAVAILABLE, _EVENT_CODES[exc.code])
    if _is_database_down(exc):
        return StorageFault(UNAVAILABLE, "storage-down")
    return None


def _is_database_down(exc: BaseException) -> bool:
    """psycopg's connection errors (the PostgreSQL event store), without importing psycopg."""
    module = type(exc).__module__ or ""
    return module.startswith("psycopg") and type(exc).__name__ in (
        "OperationalError", "InterfaceError", "AdminShutdown", "CannotConnectNow",
        "ConnectionTimeout", "PoolTimeout", "QueryCanceled")


@dataclass
class QueueState:
    """What the dashboard shows of the reading queue when something is wrong."""

    fault: str | None = None
    """The last fault the dispatcher met and is riding out (None: all is well)."""
    since: str | None = None
    """When it first occurred (ISO time, as the record writes times)."""
    waiting: int = 0
    """Reads done and waiting for the event record to take their registration."""
