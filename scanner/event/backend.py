"""What the event record asks of the database that holds it (`RecordBackend`), and the record
tables both databases share.

Two backends implement it: `scanner.event.store.SqliteBackend` (one SQLite file per event, the
embedded default, originals in a folder beside it) and `scanner.event.pg_store.PgBackend` (many
events in one PostgreSQL database, an `event` key on every row, originals in a table). They know
SQL, files and locks; the record's rules (versions, walk-in numbers, guards, the audit log,
withdrawals, amendments) and its coded errors are `scanner.event.record.EventRecord`'s alone.
Both keep the same guarantees, enforced in the database: records are append-only, every write
is one transaction under the event's write lock, ids are per event, and the schema is a list of
named migration steps.
"""
from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Mapping, Protocol

from scanner.event.records import now_iso

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
    "sheet_confirmations": ("id", "registration_id", "konami_id", "version", "kind",
                            "sheet_id", "how", "judge", "created_at"),
    "deck_check_voids": ("id", "deck_check_id", "konami_id", "reason", "judge", "created_at"),
    "audit_log": ("id", "at", "actor", "action", "detail"),
}
"""The columns of every record table the two stores share, in dependency order (a row only
names rows of tables before it): what `event copy` moves and hashes."""

ORDER_KEY = {"players": "konami_id"}
"""How a table's rows are ordered for copying and hashing (default: id)."""

Row = Mapping[str, Any]
"""A row by column name (`sqlite3.Row` or psycopg's dict row)."""


class RecordBackend(Protocol):
    """One open event in one database. Tables are the record's (`RECORD_COLUMNS`): a backend
    scopes them to its event and numbers their ids; it never decides what a row says."""

    path: Path
    """The event as `EventInfo.path` names it (the file, or the event's key)."""
    readonly: bool
    steps: list[str]
    """Migration steps applied to this event's schema."""

    @property
    def location(self) -> str:
        """Where the event lives, for messages: a file path, or a URL without its password."""

    @property
    def files_location(self) -> str:
        """Where the originals are kept, for messages."""

    def close(self) -> None: ...

    # transaction
    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction holding the event's write lock: all of it commits, or none;
        a refusal by the database is `EventError("event.write-refused")`."""

    # query
    def header(self) -> Row | None:
        """The event's header row (name, date, list_name, created_at)."""

    def write_header(self, name: str, date: str, list_name: str | None,
                     created_at: str) -> None:
        """Write the header of a new event (inside a transaction)."""

    def has_table(self, table: str) -> bool:
        """Whether this schema has `table` (an older one may lack a later step's)."""

    def rows(self, table: str, where: Mapping[str, Any] | None = None, order: str = "id",
             columns: str = "*") -> list[Row]:
        """The event's rows of `table` whose columns equal `where` (a tuple value: one of
        them), ordered by `order` (empty: in no order)."""

    def registration_of_job(self, job_id: str) -> int | None:
        """The id of the registration a station job made, if any."""

    # insert
    def insert(self, table: str, row: Mapping[str, Any]) -> Any:
        """Insert one row; returns its id (a record table's row without one gets the event's
        next)."""

    def update(self, table: str, where: Mapping[str, Any], values: Mapping[str, Any]) -> int:
        """Change columns of the event's rows matching `where` (as `rows`); returns how many.
        Of the record only a player's name ever changes; the station's jobs change state."""

    # files
    def put_file(self, data: bytes) -> str:
        """Keep an original under its sha256, durably, before a row names it."""

    def has_file(self, sha256: str) -> bool: ...
    def file_bytes(self, sha256: str) -> bytes | None: ...
    def file_path(self, sha256: str) -> Path:
        """A local file with the original (readers need a path); missing: a path that is not a
        file."""

    def file_digests(self) -> list[str]: ...

    # integrity
    def integrity(self) -> list[str]:
        """The database's own problems (its integrity and foreign-key checks)."""

    def file_problems(self, digests: list[str]) -> list[str]:
        """Originals among `digests` that are missing or no longer have their digest."""


def where_sql(where: Mapping[str, Any] | None, mark: str) -> tuple[list[str], list[Any]]:
    """`where` as SQL conditions with `mark` placeholders, and their values (a tuple value: IN)."""
    conds: list[str] = []
    args: list[Any] = []
    for col, value in (where or {}).items():
        if isinstance(value, tuple):
            conds.append(f"{col} IN ({', '.join([mark] * len(value))})" if value else "FALSE")
            args.extend(value)
        else:
            conds.append(f"{col} = {mark}")
            args.append(value)
    return conds, args


def audit_row(action: str, detail: dict, actor: str | None = None) -> dict:
    """An `audit_log` row (the one shape of a log entry, whichever writes it)."""
    return {"at": now_iso(), "actor": actor, "action": action,
            "detail": json.dumps(detail, ensure_ascii=False)}


def rows_in_order(table: str, rows: list[dict]) -> list[dict]:
    """Rows of a record table in their canonical order, only the shared columns."""
    key = ORDER_KEY.get(table, "id")
    cols = RECORD_COLUMNS[table]
    return sorted(({c: r.get(c) for c in cols} for r in rows), key=lambda r: r[key])
