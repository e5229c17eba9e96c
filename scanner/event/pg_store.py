"""The event record's PostgreSQL backend: many events (a season) in one database, several
stations and reading machines on one event.

`postgresql://USER@HOST[:PORT]/DB?event=NAME` names a database and the event in it (any other
query parameter, e.g. `sslmode`, goes to libpq). The schema is `scanner.event.pg_schema`.

What the rows say is `scanner.event.record.EventRecord`'s; this module stores, reads and locks.
Safety rules, the same as the SQLite backend's:
- every write is one transaction that first takes the event's write lock (a transaction-scoped
  advisory lock), so ids and version numbers are given in upload order and never twice;
- an original file is stored (in the `files` table) before the row naming it commits;
- records are append-only in the database itself (triggers, and privileges of the roles);
- a database whose schema is newer than this decksheet is never written to.
"""
from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import platformdirs
import psycopg
from psycopg.rows import dict_row

from card_db.paths import atomic_write
from scanner.errors import EventError
from scanner.event.backend import RECORD_COLUMNS, Row, where_sql
from scanner.event.files import sha256_bytes
from scanner.event.pg_schema import PG_MIGRATIONS
from scanner.event.records import now_iso

EVENT_PARAM = "event"
CONNECT_TIMEOUT_S = 10
_KNOWN_STEPS = {m.name for m in PG_MIGRATIONS}
_TABLE_STEP = {"registration_withdrawals": "pg-0006-withdrawals",
               "sheet_confirmations": "pg-0008-sheet-identity-and-deck-check-voids",
               "deck_check_voids": "pg-0008-sheet-identity-and-deck-check-voids"}
"""Tables a later migration step added (a database read before it lacks them)."""


@dataclass(frozen=True)
class EventURL:
    """A parsed `--event postgresql://…?event=NAME`."""

    conninfo: str
    """The URL libpq gets (without `event=`)."""
    event: str
    shown: str
    """For messages: no password."""

    @classmethod
    def parse(cls, url: str, require_event: bool = True) -> "EventURL":
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        names = [v for k, v in query if k == EVENT_PARAM]
        if not require_event and not names:
            names = ["-"]
        elif len(names) != 1 or not names[0]:
            raise EventError("event.url-needs-event")
        event = names[0]
        if require_event and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", event):
            raise EventError("event.bad-event-name", event=repr(event))
        rest = urlencode([(k, v) for k, v in query if k != EVENT_PARAM])
        conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, rest, ""))
        host = parts.hostname or "localhost"
        user = f"{parts.username}@" if parts.username else ""
        port = f":{parts.port}" if parts.port else ""
        shown = f"postgresql://{user}{host}{port}{parts.path}?{EVENT_PARAM}={event}"
        return cls(conninfo=conninfo, event=event, shown=shown)


def connect(conninfo: str) -> psycopg.Connection:
    """A connection in autocommit (a write opens its own transaction), rows as dicts."""
    try:
        return psycopg.connect(conninfo, autocommit=True, row_factory=dict_row,
                               connect_timeout=CONNECT_TIMEOUT_S,
                               application_name="decksheet")
    except psycopg.Error as exc:
        raise EventError("event.cannot-connect", detail=first_line(exc)) from None


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def applied_steps(con: psycopg.Connection) -> list[str] | None:
    """The migration steps of this database, None when it has no decksheet schema."""
    (reg,) = con.execute("SELECT to_regclass('decksheet_migrations') AS t").fetchone().values()
    if reg is None:
        return None
    return [r["name"] for r in con.execute("SELECT name FROM decksheet_migrations ORDER BY id")]


def migrate(con: psycopg.Connection) -> list[str]:
    """Apply missing steps in one transaction (two processes at once: one waits, then finds
    nothing to do). Returns the names applied."""
    ran: list[str] = []
    with con.transaction():
        con.execute("SELECT pg_advisory_xact_lock(hashtextextended('decksheet:schema', 0))")
        con.execute("CREATE TABLE IF NOT EXISTS decksheet_migrations (id SERIAL PRIMARY KEY, "
                    "name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)")
        done = set(applied_steps(con) or [])
        for step in PG_MIGRATIONS:
            if step.name in done:
                continue
            con.execute(step.sql.encode())
            con.execute("INSERT INTO decksheet_migrations (name, applied_at) VALUES (%s, %s)",
                        (step.name, now_iso()))
            ran.append(step.name)
    return ran


def default_files_cache() -> Path:
    """Where originals are written out for readers that need a path (OCR, audit): this
    user's cache folder (each copy is checked against its digest before use)."""
    return Path(platformdirs.user_cache_dir("decksheet")) / "originals"


def _where(event: str, where: Mapping[str, Any] | None) -> tuple[str, list[Any]]:
    conds, args = where_sql({"event": event, **(where or {})}, "%s")
    return " WHERE " + " AND ".join(conds), args


def _plain(value: Any) -> Any:
    return bytes(value) if isinstance(value, memoryview) else value


@dataclass
class PgBackend:
    """One event in a PostgreSQL database. Use `PgBackend.create` / `PgBackend.open`."""

    url: EventURL
    con: psycopg.Connection = field(repr=False)
    readonly: bool = False
    steps: list[str] = field(default_factory=list)
    files_cache: Path = field(default_factory=default_files_cache)
    lock: str = "event"
    """The write lock a transaction takes (per event): the record's, or the station's."""

    # ------------------------------------------------------------------ opening

    @property
    def event_key(self) -> str:
        return self.url.event

    @property
    def path(self) -> Path:
        return Path(self.event_key)

    @property
    def location(self) -> str:
        return self.url.shown

    @property
    def files_location(self) -> str:
        return self.url.shown

    @classmethod
    def create(cls, url: str) -> "PgBackend":
        """A new event's place in the database, its schema brought up to date first (the
        header, written by `EventRecord.initialise`, refuses an event name already there)."""
        parsed = EventURL.parse(url)
        con = connect(parsed.conninfo)
        try:
            steps = applied_steps(con) or []
            newer = [s for s in steps if s not in _KNOWN_STEPS]
            if newer:
                raise EventError("event.newer-schema", location=parsed.shown, steps=newer)
            migrate(con)
            return cls(url=parsed, con=con, steps=[m.name for m in PG_MIGRATIONS])
        except psycopg.Error as exc:
            con.close()
            raise EventError("event.cannot-create", target=repr(parsed.event),
                             detail=first_line(exc)) from None
        except BaseException:
            con.close()
            raise

    @classmethod
    def open(cls, url: str, readonly: bool = False) -> "PgBackend":
        parsed = EventURL.parse(url)
        con = connect(parsed.conninfo)
        try:
            steps = applied_steps(con)
            if steps is None or "pg-0001-initial" not in steps:
                raise EventError("event.no-database-events", location=parsed.shown)
            if not con.execute("SELECT 1 FROM events WHERE event = %s",
                               (parsed.event,)).fetchone():
                raise EventError("event.no-such-event", event=repr(parsed.event),
                                 database=parsed.shown.split("?")[0])
            newer = [s for s in steps if s not in _KNOWN_STEPS]
            if readonly:
                con.execute("SET default_transaction_read_only = on")
            elif newer:
                raise EventError("event.newer-schema", location=parsed.shown, steps=newer)
            elif _KNOWN_STEPS - set(steps):
                migrate(con)
                steps = [m.name for m in PG_MIGRATIONS]
            return cls(url=parsed, con=con, readonly=readonly, steps=steps)
        except psycopg.Error as exc:
            con.close()
            raise EventError("event.database-error", location=parsed.shown,
                             detail=first_line(exc)) from None
        except BaseException:
            con.close()
            raise

    def close(self) -> None:
        self.con.close()

    # ------------------------------------------------------------------ transaction

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction holding the event's write lock (a transaction-scoped advisory
        lock): ids and version numbers are given in upload order and never twice."""
        try:
            with self.con.transaction():
                self.con.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                                 (f"decksheet:{self.lock}:{self.event_key}",))
                yield
        except psycopg.Error as exc:  # refused (privileges, a guard) or the server went away
            raise EventError("event.write-refused", location=self.location,
                             detail=first_line(exc)) from None

    def _q(self, sql: str, args: tuple | list = ()) -> list[dict]:
        try:
            return self.con.execute(sql, args).fetchall()
        except psycopg.Error as exc:  # the server went away, or refused a read (privileges)
            raise EventError("event.database-error", location=self.location,
                             detail=first_line(exc)) from None

    # ------------------------------------------------------------------ query

    def header(self) -> Row | None:
        rows = self._q("SELECT name, date, list_name, created_at FROM events WHERE event = %s",
                       (self.event_key,))
        return rows[0] if rows else None

    def write_header(self, name: str, date: str, list_name: str | None,
                     created_at: str) -> None:
        if self._q("SELECT 1 FROM events WHERE event = %s", (self.event_key,)):
            raise EventError("event.exists-in-database", event=repr(self.event_key))
        self.con.execute("INSERT INTO events (event, name, date, list_name, created_at) "
                         "VALUES (%s, %s, %s, %s, %s)",
                         (self.event_key, name, date, list_name, created_at))

    def has_table(self, table: str) -> bool:
        return _TABLE_STEP.get(table, "pg-0001-initial") in self.steps

    def rows(self, table: str, where: Mapping[str, Any] | None = None, order: str = "id",
             columns: str = "*") -> list[Row]:
        cond, args = _where(self.event_key, where)
        order_by = f" ORDER BY {order}" if order else ""
        return self._q(f"SELECT {columns} FROM {table}{cond}{order_by}", args)

    def registration_of_job(self, job_id: str) -> int | None:
        rows = self.rows("registrations", {"job_id": job_id}, "id", "id")
        return int(rows[0]["id"]) if rows else None

    # ------------------------------------------------------------------ insert

    def insert(self, table: str, row: Mapping[str, Any]) -> Any:
        values = dict(row)
        if "id" in RECORD_COLUMNS.get(table, ()) and values.get("id") is None:
            (n,) = self._q(f"SELECT COALESCE(MAX(id), 0) + 1 AS n FROM {table} "
                           f"WHERE event = %s", (self.event_key,))
            values["id"] = int(n["n"])
        self.con.execute(f"INSERT INTO {table} (event, {', '.join(values)}) "
                         f"VALUES (%s, {', '.join(['%s'] * len(values))})",
                         (self.event_key, *map(_plain, values.values())))
        return values.get("id")

    def update(self, table: str, where: Mapping[str, Any], values: Mapping[str, Any]) -> int:
        cond, args = _where(self.event_key, where)
        return self.con.execute(
            f"UPDATE {table} SET {', '.join(f'{c} = %s' for c in values)}{cond}",
            (*values.values(), *args)).rowcount

    # ------------------------------------------------------------------ files

    def put_file(self, data: bytes) -> str:
        """Keep an original in the database under its sha256 (the same bytes twice: one row)."""
        digest = sha256_bytes(data)
        try:
            self.con.execute("INSERT INTO files (event, sha256, data, created_at) "
                             "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                             (self.event_key, digest, data, now_iso()))
        except psycopg.Error as exc:
            raise EventError("event.write-refused", location=self.location,
                             detail=first_line(exc)) from None
        return digest

    def has_file(self, sha256: str) -> bool:
        return bool(self._q("SELECT 1 FROM files WHERE event = %s AND sha256 = %s",
                            (self.event_key, sha256)))

    def file_bytes(self, sha256: str) -> bytes | None:
        rows = self._q("SELECT data FROM files WHERE event = %s AND sha256 = %s",
                       (self.event_key, sha256))
        return bytes(rows[0]["data"]) if rows else None

    def file_path(self, sha256: str) -> Path:
        """The original written out to the local cache (readers need a file): verified by its
        digest, so a stale or damaged cached copy is written again."""
        target = self.files_cache / sha256
        if target.is_file() and sha256_bytes(target.read_bytes()) == sha256:
            return target
        data = self.file_bytes(sha256)
        if data is None:
            return target  # missing: the caller's open fails, as for a missing file
        self.files_cache.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write(target, data)
        return target

    def file_digests(self) -> list[str]:
        return [r["sha256"] for r in self._q(
            "SELECT sha256 FROM files WHERE event = %s ORDER BY sha256", (self.event_key,))]

    # ------------------------------------------------------------------ integrity

    def integrity(self) -> list[str]:
        """Nothing beyond the server's own guarantees (keys, foreign keys, checks)."""
        return []

    def file_problems(self, digests: list[str]) -> list[str]:
        """Digests checked in the server: the bytes never leave it."""
        rows = self._q(
            "SELECT n.sha, f.sha256 IS NULL AS missing, "
            "encode(sha256(f.data), 'hex') <> n.sha AS changed "
            "FROM unnest(%s::text[]) AS n(sha) "
            "LEFT JOIN files f ON f.event = %s AND f.sha256 = n.sha ORDER BY n.sha",
            (digests, self.event_key))
        return ([f"original file missing: {r['sha']}" for r in rows if r["missing"]]
                + [f"original file changed: {r['sha']}" for r in rows if r["changed"]])
