"""What flows, commands and the station ask of an event store, whichever database holds it.

Two stores implement it: `scanner.event.store.EventStore` (one SQLite file per event, the
embedded default) and `scanner.event.pg_store.PgEventStore` (many events in one PostgreSQL
database, an `event` key on every row). `scanner.event.stores` opens the right one from the
`--event` value. Both keep the same guarantees, enforced in the database: records are
append-only, a player's versions are numbered in upload order, ids are per event, and the
schema is a list of named migration steps.

A withdrawn version (`withdraw_registration`, a row of its own) stays in the record and in
`registrations()` (with `.withdrawal` set) but is never a player's current version:
`latest_registration`, `registrations(latest_only=True)` and `players_with_file` skip it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Protocol, runtime_checkable

from scanner.event.records import (Amendment, DeckCheck, EventInfo, IssuedInfraction,
                                   NewInfraction, Registration, ReviewDecision,
                                   Withdrawal)

RECORD_COLUMNS: dict[str, tuple[str, ...]] = {
    "players": ("konami_id", "name", "created_at"),
    "registrations": ("id", "konami_id", "version", "file_sha256", "file_name", "reader",
                      "decklist_json", "legal", "needs_review", "infractions_json", "list_name",
                      "judge", "created_at"),
    "registration_withdrawals": ("id", "registration_id", "konami_id", "version", "reason",
                                 "judge", "created_at"),
    "review_decisions": ("id", "registration_id", "section", "line", "read", "action", "card_id",
                         "count", "judge", "created_at", "before_json", "after_json"),
    "deck_checks": ("id", "konami_id", "round", "registration_id", "mode", "match",
                    "observed_sha256", "observed_json", "result_json", "judge", "created_at",
                    "confirmed"),
    "infractions": ("id", "konami_id", "code", "penalty", "remedy", "rule", "message", "round",
                    "judge", "deck_check_id", "created_at", "findings_json"),
    "infraction_amendments": ("id", "infraction_id", "action", "reason", "new_penalty", "judge",
                              "created_at"),
    "audit_log": ("id", "at", "actor", "action", "detail"),
}
"""The columns of every record table the two stores share, in dependency order (a row only
names rows of tables before it): what `event copy` moves and hashes."""

ORDER_KEY = {"players": "konami_id"}
"""How a table's rows are ordered for copying and hashing (default: id)."""


@runtime_checkable
class EventStoreAPI(Protocol):
    """An open event (use as a context manager; `close()` when done)."""

    readonly: bool
    steps: list[str]

    @property
    def location(self) -> str:
        """Where the event lives, for messages: a file path, or a URL without its password."""

    def close(self) -> None: ...
    def __enter__(self) -> Any: ...
    def __exit__(self, *exc: object) -> None: ...
    def log(self, action: str, detail: dict, actor: str | None = None) -> bool: ...

    # reading
    def event(self) -> EventInfo: ...
    def file_path(self, sha256: str) -> Path: ...
    def file_bytes(self, sha256: str) -> bytes | None: ...
    def player_name(self, konami_id: str) -> str | None: ...
    def players(self) -> list[tuple[str, str | None]]: ...
    def find_players(self, name: str) -> list[str]: ...
    def walk_in_ids(self) -> list[str]: ...
    def latest_registration(self, konami_id: str) -> Registration | None: ...
    def registration(self, konami_id: str, version: int) -> Registration | None: ...
    def registration_by_id(self, registration_id: int) -> Registration | None: ...
    def registrations(self, latest_only: bool = False,
                      konami_id: str | None = None) -> list[Registration]: ...
    def players_with_file(self, sha256: str) -> list[str]: ...
    def withdrawals(self) -> list[Withdrawal]: ...
    def decisions(self, registration_id: int | None = None) -> list[ReviewDecision]: ...
    def deck_checks(self, konami_id: str | None = None) -> list[DeckCheck]: ...
    def amendments(self) -> list[Amendment]: ...
    def infractions(self, konami_id: str | None = None) -> list[IssuedInfraction]: ...
    def infraction(self, infraction_id: int) -> IssuedInfraction | None: ...
    def audit_log(self) -> list[tuple[str, str | None, str, dict]]: ...
    def integrity(self) -> list[str]: ...
    def record_rows(self, table: str) -> list[dict]: ...
    def file_digests(self) -> list[str]: ...

    # writing
    def store_file(self, data: bytes) -> str: ...
    def add_registration(self, konami_id: str | None, player_name: str | None,
                         decklist_json: dict, file_sha256: str, file_name: str | None,
                         legal: bool, infractions: list[dict], list_name: str | None,
                         judge: str | None = None, walk_in: bool = False,
                         guard: Callable[[Any], None] | None = None) -> Registration: ...
    def add_decisions(self, decisions: list[ReviewDecision], judge: str | None = None) -> int: ...
    def add_deck_check(self, konami_id: str, round_no: int, registration_id: int, mode: str,
                       match: bool, observed_sha256: str | None, observed_json: dict,
                       result_json: dict, infractions: list[NewInfraction],
                       judge: str | None = None, confirmed: bool = False
                       ) -> tuple[DeckCheck, list[IssuedInfraction]]: ...
    def add_amendment(self, infraction_id: int, action: str, reason: str, judge: str,
                      new_penalty: str | None = None) -> Amendment: ...
    def withdraw_registration(self, konami_id: str, version: int, reason: str,
                              judge: str) -> Withdrawal: ...
    def load_records(self, table: str, rows: list[dict]) -> None: ...


def rows_in_order(table: str, rows: list[dict]) -> list[dict]:
    """Rows of a record table in their canonical order, only the shared columns."""
    key = ORDER_KEY.get(table, "id")
    cols = RECORD_COLUMNS[table]
    return sorted(({c: r.get(c) for c in cols} for r in rows), key=lambda r: r[key])

