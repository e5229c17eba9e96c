"""Opening the station's queue (roster, reading jobs) of an event: in its SQLite file, or in
its PostgreSQL database."""
from __future__ import annotations

from pathlib import Path

from scanner.event.stores import is_database_url
from scanner.web.station_store import StationQueue, StationStore


def open_station(event: str | Path, create: bool = False,
                 busy_timeout_s: float | None = None) -> StationQueue:
    if is_database_url(str(event)):
        from scanner.web.station_store_pg import PgStationStore  # psycopg only for a URL
        return PgStationStore(str(event), create=create)
    return StationStore(Path(event), create=create, busy_timeout_s=busy_timeout_s)
