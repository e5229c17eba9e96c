"""Opening the station's store (roster, reading queue) of an event: in its SQLite file, or in
its PostgreSQL database."""
from __future__ import annotations

from pathlib import Path

from scanner.web.station_store import StationStore
from scanner.web.station_store_pg import PgStationStore


def open_station(event: str | Path, create: bool = False) -> StationStore | PgStationStore:
    if str(event).startswith(("postgresql://", "postgres://")):
        return PgStationStore(str(event), create=create)
    return StationStore(Path(event), create=create)
