"""Opening an event from its `--event` value: a SQLite file path, or a PostgreSQL URL.

The one place that chooses the backend; everything after works on `EventRecord`.
"""
from __future__ import annotations

import datetime as dt
import os

from scanner.errors import EventError
from scanner.event.backend import RecordBackend
from scanner.event.record import EventRecord, event_name
from scanner.event.store import ENV_EVENT, SqliteBackend

DATABASE_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(target: object) -> bool:
    """Whether an `--event` value names a PostgreSQL database (else it is an event file)."""
    return isinstance(target, str) and target.startswith(DATABASE_SCHEMES)


def event_target(target: str | os.PathLike | None) -> str:
    """The `--event` value, else $DECKSHEET_EVENT (refused when neither is given)."""
    value = str(target) if target else os.environ.get(ENV_EVENT, "")
    if not value:
        raise EventError("event.none-given", env=ENV_EVENT)
    return value


def _backend(value: str, readonly: bool, busy_timeout_s: float | None) -> RecordBackend:
    if is_database_url(value):
        from scanner.event.pg_store import PgBackend  # psycopg only when a URL is given
        return PgBackend.open(value, readonly=readonly)
    if busy_timeout_s is None:
        return SqliteBackend.open(value, readonly=readonly)
    return SqliteBackend.open(value, readonly=readonly, busy_timeout_ms=int(busy_timeout_s * 1000))


def open_event(target: str | os.PathLike | None, readonly: bool = False,
               busy_timeout_s: float | None = None) -> EventRecord:
    """The event `target` names. `busy_timeout_s`: how long a write waits for another program
    holding an event file (None: the command line's minute)."""
    return EventRecord(_backend(event_target(target), readonly, busy_timeout_s))


def create_event(target: str | os.PathLike, name: str, date: dt.date,
                 list_name: str | None = None, copied_at: str | None = None) -> EventRecord:
    """A new event at `target` (a new file, or a new event name in a database). `copied_at`:
    the header's time of an event being copied here (`EventRecord.initialise`)."""
    name = event_name(name)
    backend: RecordBackend
    if is_database_url(str(target)):
        from scanner.event.pg_store import PgBackend
        backend = PgBackend.create(str(target))
    else:
        backend = SqliteBackend.create(target)
    return EventRecord.initialise(backend, name, date, list_name, copied_at)


def event_writable(target: str | os.PathLike | None) -> bool:
    """Whether to open for writing (a database: yes — its privileges decide per write)."""
    value = str(target) if target else os.environ.get(ENV_EVENT, "")
    return is_database_url(value) or SqliteBackend.writable(value)
