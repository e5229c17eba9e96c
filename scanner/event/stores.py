"""Opening an event from its `--event` value: a SQLite file path, or a PostgreSQL URL.

The one place that chooses the store; everything after works on `EventStoreAPI`.
"""
from __future__ import annotations

import datetime as dt
import os

from scanner.errors import EventError
from scanner.event.store import ENV_EVENT, EventStore
from scanner.event.store_api import EventStoreAPI


def is_database_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def event_target(target: str | os.PathLike | None) -> str:
    """The `--event` value, else $DECKSHEET_EVENT (refused when neither is given)."""
    value = str(target) if target else os.environ.get(ENV_EVENT, "")
    if not value:
        raise EventError(f"no event: give --event PATH or set {ENV_EVENT} "
                         f"(create one with 'decksheet event init PATH')")
    return value


def open_event(target: str | os.PathLike | None, readonly: bool = False) -> EventStoreAPI:
    value = event_target(target)
    if is_database_url(value):
        from scanner.event.pg_store import PgEventStore  # psycopg only when a URL is given
        return PgEventStore.open(value, readonly=readonly)
    return EventStore.open(value, readonly=readonly)


def create_event(target: str | os.PathLike, name: str, date: dt.date,
                 list_name: str | None = None, copied_at: str | None = None) -> EventStoreAPI:
    if is_database_url(str(target)):
        from scanner.event.pg_store import PgEventStore
        return PgEventStore.create(str(target), name, date, list_name, copied_at)
    return EventStore.create(target, name, date, list_name, copied_at)


def event_writable(target: str | os.PathLike | None) -> bool:
    """Whether to open for writing (a database: yes — its privileges decide per write)."""
    value = str(target) if target else os.environ.get(ENV_EVENT, "")
    return is_database_url(value) or EventStore.writable(value)
