"""The event store on PostgreSQL: many events (a season) in one database, several stations and
reading machines on one event.

`postgresql://USER@HOST[:PORT]/DB?event=NAME` names a database and the event in it (any other
query parameter, e.g. `sslmode`, goes to libpq). The schema is `scanner.event.pg_schema`.

Safety rules, the same as the SQLite store's:
- every write is one transaction that first takes the event's write lock (a transaction-scoped
  advisory lock), so ids and version numbers are given in upload order and never twice;
- an original file is stored (in the `files` table) before the row naming it commits;
- records are append-only in the database itself (triggers, and privileges of the roles);
- a database whose schema is newer than this decksheet is never written to.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import platformdirs
import psycopg
from psycopg.rows import dict_row

from card_db.paths import atomic_write
from scanner.errors import EventError
from scanner.event.files import sha256_bytes
from scanner.event.pg_schema import PG_MIGRATIONS
from scanner.event.records import (Amendment, DeckCheck, EventInfo, IssuedInfraction,
                                   NewInfraction, Registration, ReviewDecision, Withdrawal,
                                   clean_name, now_iso, withdraw_reason)
from scanner.event.store import _needs_review
from scanner.event.store_api import RECORD_COLUMNS, rows_in_order

EVENT_PARAM = "event"
CONNECT_TIMEOUT_S = 10
_KNOWN_STEPS = {m.name for m in PG_MIGRATIONS}
_EVENT_NAME_RULE = "letters, digits, '_', '.', '-' (at most 64), starting with a letter or digit"


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
            raise EventError(f"the PostgreSQL event URL needs one ?{EVENT_PARAM}=NAME "
                             f"(e.g. postgresql://judge@db.local/circuit?event=seoul-2026-05)")
        event = names[0]
        if require_event and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", event):
            raise EventError(f"event name {event!r}: use {_EVENT_NAME_RULE}")
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
        raise EventError(f"cannot connect to the event database: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
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


@dataclass
class PgEventStore:
    """One event in a PostgreSQL database. Use `PgEventStore.create` / `PgEventStore.open`."""

    url: EventURL
    con: psycopg.Connection = field(repr=False)
    readonly: bool = False
    steps: list[str] = field(default_factory=list)
    files_cache: Path = field(default_factory=default_files_cache)

    # ------------------------------------------------------------------ opening

    @property
    def event_key(self) -> str:
        return self.url.event

    @property
    def location(self) -> str:
        return self.url.shown

    @classmethod
    def create(cls, url: str, name: str, date: dt.date, list_name: str | None = None,
               copied_at: str | None = None) -> "PgEventStore":
        """Add a new event to the database (bringing its schema up to date first); refuses an
        event name already there. `copied_at`: as `EventStore.create`."""
        parsed = EventURL.parse(url)
        name = clean_name(name) or ""
        if not name:
            raise EventError("the event needs a name (--name)")
        con = connect(parsed.conninfo)
        try:
            steps = applied_steps(con) or []
            newer = [s for s in steps if s not in _KNOWN_STEPS]
            if newer:
                raise EventError(f"{parsed.shown}: the database was set up by a newer decksheet "
                                 f"({', '.join(newer)}); update decksheet")
            migrate(con)
            store = cls(url=parsed, con=con, steps=[m.name for m in PG_MIGRATIONS])
            with store.transaction() as c:
                if c.execute("SELECT 1 FROM events WHERE event = %s",
                             (parsed.event,)).fetchone():
                    raise EventError(f"event {parsed.event!r} already exists in this database; an "
                                     f"event is never re-initialised (pick another name)")
                c.execute("INSERT INTO events (event, name, date, list_name, created_at) "
                          "VALUES (%s, %s, %s, %s, %s)",
                          (parsed.event, name, date.isoformat(), list_name,
                           copied_at or now_iso()))
                if copied_at is None:
                    store._log("event-init", {"name": name, "date": date.isoformat(),
                                              "list": list_name})
            return store
        except psycopg.Error as exc:
            con.close()
            raise EventError(f"cannot create event {parsed.event!r}: {_first_line(exc)}") from None
        except BaseException:
            con.close()
            raise

    @classmethod
    def open(cls, url: str, readonly: bool = False) -> "PgEventStore":
        parsed = EventURL.parse(url)
        con = connect(parsed.conninfo)
        try:
            steps = applied_steps(con)
            if steps is None or "pg-0001-initial" not in steps:
                raise EventError(f"{parsed.shown}: no decksheet events in this database (create "
                                 f"one with 'decksheet event init {parsed.shown} --name …')")
            if not con.execute("SELECT 1 FROM events WHERE event = %s",
                               (parsed.event,)).fetchone():
                raise EventError(f"no event {parsed.event!r} in {parsed.shown.split('?')[0]} "
                                 f"(create it with 'decksheet event init')")
            newer = [s for s in steps if s not in _KNOWN_STEPS]
            if readonly:
                con.execute("SET default_transaction_read_only = on")
            elif newer:
                raise EventError(f"{parsed.shown} was set up by a newer decksheet (schema steps "
                                 f"{', '.join(newer)}); this version will not write to it")
            elif _KNOWN_STEPS - set(steps):
                migrate(con)
                steps = [m.name for m in PG_MIGRATIONS]
            return cls(url=parsed, con=con, readonly=readonly, steps=steps)
        except psycopg.Error as exc:
            con.close()
            raise EventError(f"{parsed.shown}: {_first_line(exc)}") from None
        except BaseException:
            con.close()
            raise

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "PgEventStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """One write transaction holding the event's write lock: all of it commits, or none."""
        if self.readonly:
            raise EventError(f"{self.location} is open read-only")
        try:
            with self.con.transaction():
                self.con.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                                 ("decksheet:event:" + self.event_key,))
                yield self.con
        except psycopg.Error as exc:  # refused (privileges, a guard) or the server went away
            raise EventError(f"{self.location}: the write was not stored: "
                             f"{_first_line(exc)}") from None

    def _q(self, sql: str, args: tuple | list = ()) -> list[dict]:
        try:
            return self.con.execute(sql, args).fetchall()
        except psycopg.OperationalError as exc:
            raise EventError(f"{self.location}: {_first_line(exc)}") from None

    def _one(self, sql: str, args: tuple | list = ()) -> dict | None:
        try:
            return self.con.execute(sql, args).fetchone()
        except psycopg.OperationalError as exc:
            raise EventError(f"{self.location}: {_first_line(exc)}") from None

    def _next_id(self, table: str) -> int:
        row = self._one(f"SELECT COALESCE(MAX(id), 0) + 1 AS n FROM {table} WHERE event = %s",
                        (self.event_key,))
        assert row is not None
        return int(row["n"])

    def _log(self, action: str, detail: dict, actor: str | None = None) -> None:
        self.con.execute("INSERT INTO audit_log (event, id, at, actor, action, detail) "
                         "VALUES (%s, %s, %s, %s, %s, %s)",
                         (self.event_key, self._next_id("audit_log"), now_iso(), actor, action,
                          json.dumps(detail, ensure_ascii=False)))

    def log(self, action: str, detail: dict, actor: str | None = None) -> bool:
        if self.readonly:
            return False
        with self.transaction():
            self._log(action, detail, actor)
        return True

    # ------------------------------------------------------------------ reading

    def event(self) -> EventInfo:
        row = self._one("SELECT name, date, list_name, created_at FROM events WHERE event = %s",
                        (self.event_key,))
        if row is None:
            raise EventError(f"{self.location} has no event header")
        return EventInfo(path=Path(self.event_key), name=row["name"],
                         date=dt.date.fromisoformat(row["date"]), list_name=row["list_name"],
                         created_at=row["created_at"])

    def file_bytes(self, sha256: str) -> bytes | None:
        row = self._one("SELECT data FROM files WHERE event = %s AND sha256 = %s",
                        (self.event_key, sha256))
        return bytes(row["data"]) if row else None

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

    def player_name(self, konami_id: str) -> str | None:
        row = self._one("SELECT name FROM players WHERE event = %s AND konami_id = %s",
                        (self.event_key, konami_id))
        return row["name"] if row else None

    def players(self) -> list[tuple[str, str | None]]:
        return [(r["konami_id"], r["name"]) for r in self._q(
            "SELECT konami_id, name FROM players WHERE event = %s ORDER BY konami_id",
            (self.event_key,))]

    def find_players(self, name: str) -> list[str]:
        want = (clean_name(name) or "").casefold()
        if not want:
            return []
        players = self.players()
        exact = [k for k, n in players if n and n.casefold() == want]
        return exact or [k for k, n in players if n and want in n.casefold()]

    def walk_in_ids(self) -> list[str]:
        return [r["konami_id"] for r in self._q(
            "SELECT konami_id FROM players WHERE event = %s AND konami_id LIKE 'W%%' "
            "ORDER BY konami_id", (self.event_key,))]

    _REG_SELECT = ("SELECT r.*, p.name AS name FROM registrations r JOIN players p "
                   "ON p.event = r.event AND p.konami_id = r.konami_id WHERE r.event = %s ")
    _WITHDRAWALS_STEP = "pg-0006-withdrawals"

    def _live(self, t: str = "r") -> str:
        """SQL: registration `t` is not withdrawn (every version counts in a database read
        before its schema had withdrawals)."""
        if self._WITHDRAWALS_STEP not in self.steps:
            return "TRUE "
        return (f"NOT EXISTS (SELECT 1 FROM registration_withdrawals w "
                f"WHERE w.event = {t}.event AND w.registration_id = {t}.id) ")

    def _with_withdrawal(self, rows: list[dict]) -> list[Registration]:
        by_reg = {w.registration_id: w for w in self.withdrawals()} if rows else {}
        out = [Registration.from_row(r) for r in rows]
        for reg in out:
            reg.withdrawal = by_reg.get(reg.id)
        return out

    def latest_registration(self, konami_id: str) -> Registration | None:
        """The player's current version: the newest one not withdrawn."""
        row = self._one(self._REG_SELECT + "AND r.konami_id = %s AND " + self._live()
                        + "ORDER BY r.version DESC LIMIT 1", (self.event_key, konami_id))
        return Registration.from_row(row) if row else None

    def registration(self, konami_id: str, version: int) -> Registration | None:
        row = self._one(self._REG_SELECT + "AND r.konami_id = %s AND r.version = %s",
                        (self.event_key, konami_id, version))
        return self._with_withdrawal([row])[0] if row else None

    def registration_by_id(self, registration_id: int) -> Registration | None:
        row = self._one(self._REG_SELECT + "AND r.id = %s", (self.event_key, registration_id))
        return self._with_withdrawal([row])[0] if row else None

    def registration_of_job(self, job_id: str) -> Registration | None:
        row = self._one(self._REG_SELECT + "AND r.job_id = %s", (self.event_key, job_id))
        return self._with_withdrawal([row])[0] if row else None

    def registrations(self, latest_only: bool = False,
                      konami_id: str | None = None) -> list[Registration]:
        sql, args = self._REG_SELECT, [self.event_key]
        if latest_only:
            sql += ("AND " + self._live() + "AND r.version = (SELECT MAX(x.version) FROM "
                    "registrations x WHERE x.event = r.event AND x.konami_id = r.konami_id "
                    "AND " + self._live("x") + ") ")
        if konami_id is not None:
            sql += "AND r.konami_id = %s "
            args.append(konami_id)
        return self._with_withdrawal(self._q(sql + "ORDER BY r.konami_id, r.version", args))

    def players_with_file(self, sha256: str) -> list[str]:
        """Players holding this original in a version that is not withdrawn."""
        return [r["konami_id"] for r in self._q(
            "SELECT DISTINCT r.konami_id FROM registrations r WHERE r.event = %s "
            "AND r.file_sha256 = %s AND " + self._live() + "ORDER BY r.konami_id",
            (self.event_key, sha256))]

    def withdrawals(self) -> list[Withdrawal]:
        if self._WITHDRAWALS_STEP not in self.steps:
            return []
        return [Withdrawal.from_row(r) for r in self._q(
            "SELECT * FROM registration_withdrawals WHERE event = %s ORDER BY id",
            (self.event_key,))]

    def decisions(self, registration_id: int | None = None) -> list[ReviewDecision]:
        sql, args = "SELECT * FROM review_decisions WHERE event = %s", [self.event_key]
        if registration_id is not None:
            sql += " AND registration_id = %s"
            args.append(registration_id)
        return [ReviewDecision.from_row(r) for r in self._q(sql + " ORDER BY id", args)]

    def deck_checks(self, konami_id: str | None = None) -> list[DeckCheck]:
        sql, args = "SELECT * FROM deck_checks WHERE event = %s", [self.event_key]
        if konami_id:
            sql += " AND konami_id = %s"
            args.append(konami_id)
        return [DeckCheck.from_row(r) for r in self._q(sql + " ORDER BY round, id", args)]

    def amendments(self) -> list[Amendment]:
        return [Amendment.from_row(r) for r in self._q(
            "SELECT * FROM infraction_amendments WHERE event = %s ORDER BY id",
            (self.event_key,))]

    def infractions(self, konami_id: str | None = None) -> list[IssuedInfraction]:
        sql, args = "SELECT * FROM infractions WHERE event = %s", [self.event_key]
        if konami_id:
            sql += " AND konami_id = %s"
            args.append(konami_id)
        out = [IssuedInfraction.from_row(r) for r in self._q(sql + " ORDER BY id", args)]
        by_id = {i.id: i for i in out}
        for a in self.amendments():
            if a.infraction_id in by_id:
                by_id[a.infraction_id].amendments.append(a)
        return out

    def infraction(self, infraction_id: int) -> IssuedInfraction | None:
        return next((i for i in self.infractions() if i.id == infraction_id), None)

    def audit_log(self) -> list[tuple[str, str | None, str, dict]]:
        return [(r["at"], r["actor"], r["action"], json.loads(r["detail"])) for r in self._q(
            "SELECT at, actor, action, detail FROM audit_log WHERE event = %s ORDER BY id",
            (self.event_key,))]

    def file_digests(self) -> list[str]:
        return [r["sha256"] for r in self._q(
            "SELECT sha256 FROM files WHERE event = %s ORDER BY sha256", (self.event_key,))]

    def record_rows(self, table: str) -> list[dict]:
        if table == "registration_withdrawals" and self._WITHDRAWALS_STEP not in self.steps:
            return []
        cols = ", ".join(RECORD_COLUMNS[table])
        return rows_in_order(table, self._q(f"SELECT {cols} FROM {table} WHERE event = %s",
                                            (self.event_key,)))

    def integrity(self) -> list[str]:
        """Originals named by a record but missing, or whose bytes no longer have their digest."""
        rows = self._q(
            "WITH named AS (SELECT file_sha256 AS sha FROM registrations WHERE event = %s "
            "UNION SELECT observed_sha256 FROM deck_checks WHERE event = %s "
            "AND observed_sha256 IS NOT NULL) "
            "SELECT n.sha, f.sha256 IS NULL AS missing, "
            "encode(sha256(f.data), 'hex') <> n.sha AS changed "
            "FROM named n LEFT JOIN files f ON f.event = %s AND f.sha256 = n.sha ORDER BY n.sha",
            (self.event_key,) * 3)
        return ([f"original file missing: {r['sha']}" for r in rows if r["missing"]]
                + [f"original file changed: {r['sha']}" for r in rows if r["changed"]])

    # ------------------------------------------------------------------ writing

    def has_file(self, sha256: str) -> bool:
        return self._one("SELECT 1 FROM files WHERE event = %s AND sha256 = %s",
                         (self.event_key, sha256)) is not None

    def store_file(self, data: bytes) -> str:
        """Keep an original in the database under its sha256 (the same bytes twice: one row)."""
        if self.readonly:
            raise EventError(f"{self.location} is open read-only")
        digest = sha256_bytes(data)
        try:
            self.con.execute("INSERT INTO files (event, sha256, data, created_at) "
                             "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                             (self.event_key, digest, data, now_iso()))
        except psycopg.errors.InsufficientPrivilege as exc:
            raise EventError(f"the database refused the write: {_first_line(exc)}") from None
        return digest

    def add_registration(self, konami_id: str | None, player_name: str | None,
                         decklist_json: dict, file_sha256: str, file_name: str | None,
                         legal: bool, infractions: list[dict], list_name: str | None,
                         judge: str | None = None, walk_in: bool = False,
                         guard: Callable[["PgEventStore"], None] | None = None) -> Registration:
        """A new version of the player's list. A list made by a station job (`station_job` in
        its JSON) is stored once: the same job again returns the registration it made.
        `guard(store)` runs inside the transaction, before the write: it refuses by raising."""
        if not self.has_file(file_sha256):
            raise EventError(f"original file {file_sha256[:12]}… is not in {self.location}")
        job_id = decklist_json.get("station_job")
        needs_review = int(_needs_review(decklist_json))
        with self.transaction() as con:
            if job_id and (done := self.registration_of_job(str(job_id))) is not None:
                return done
            if guard is not None:
                guard(self)
            if walk_in:
                row = self._one("SELECT COALESCE(MAX(CAST(substr(konami_id, 2) AS INTEGER)), 0) "
                                "AS n FROM players WHERE event = %s AND konami_id ~ '^W[0-9]+$'",
                                (self.event_key,))
                konami_id = f"W{int(row['n']) + 1:04d}"
            if not konami_id:
                raise EventError("a registration needs a Konami ID (or a walk-in number)")
            self._upsert_player(konami_id, clean_name(player_name), judge)
            row = self._one("SELECT COALESCE(MAX(version), 0) + 1 AS v FROM registrations "
                            "WHERE event = %s AND konami_id = %s", (self.event_key, konami_id))
            version = int(row["v"])
            reg_id = self._next_id("registrations")
            con.execute(
                "INSERT INTO registrations (event, id, konami_id, version, file_sha256, file_name, "
                "reader, decklist_json, legal, needs_review, infractions_json, list_name, judge, "
                "created_at, job_id) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                "%s, %s)",
                (self.event_key, reg_id, konami_id, version, file_sha256, file_name,
                 (decklist_json.get("source") or {}).get("reader") or "?",
                 json.dumps(decklist_json, ensure_ascii=False), int(legal), needs_review,
                 json.dumps(infractions, ensure_ascii=False), list_name, judge, now_iso(),
                 str(job_id) if job_id else None))
            self._log("register", {"player": konami_id, "version": version,
                                   "sha256": file_sha256, "file": file_name, "legal": legal,
                                   "needs_review": needs_review}, judge)
        reg = self.registration_by_id(reg_id)
        assert reg is not None
        return reg

    def _upsert_player(self, konami_id: str, name: str | None, judge: str | None) -> None:
        row = self._one("SELECT name FROM players WHERE event = %s AND konami_id = %s",
                        (self.event_key, konami_id))
        if row is None:
            self.con.execute("INSERT INTO players (event, konami_id, name, created_at) "
                             "VALUES (%s, %s, %s, %s)", (self.event_key, konami_id, name,
                                                         now_iso()))
        elif name and name != row["name"]:
            self.con.execute("UPDATE players SET name = %s WHERE event = %s AND konami_id = %s",
                             (name, self.event_key, konami_id))
            self._log("player-renamed", {"player": konami_id, "old": row["name"], "new": name},
                      judge)

    def add_decisions(self, decisions: list[ReviewDecision], judge: str | None = None) -> int:
        if not decisions:
            return 0
        with self.transaction() as con:
            next_id = self._next_id("review_decisions")
            for n, d in enumerate(decisions):
                con.execute(
                    "INSERT INTO review_decisions (event, id, registration_id, section, line, "
                    "read, action, card_id, count, judge, created_at, before_json, after_json) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (self.event_key, next_id + n, d.registration_id, d.section, d.line, d.read,
                     d.action, d.card_id, d.count, d.judge or judge, now_iso(),
                     json.dumps(d.before, ensure_ascii=False) if d.before is not None else None,
                     json.dumps(d.after, ensure_ascii=False) if d.after is not None else None))
            self._log("review", {"registrations": sorted({d.registration_id for d in decisions}),
                                 "decisions": len(decisions),
                                 "actions": [d.action for d in decisions],
                                 "changes": [{"section": d.section, "line": d.line,
                                              "before": d.before, "after": d.after}
                                             for d in decisions if d.before or d.after]},
                      judge)
        return len(decisions)

    def add_deck_check(self, konami_id: str, round_no: int, registration_id: int, mode: str,
                       match: bool, observed_sha256: str | None, observed_json: dict,
                       result_json: dict, infractions: list[NewInfraction],
                       judge: str | None = None, confirmed: bool = False
                       ) -> tuple[DeckCheck, list[IssuedInfraction]]:
        if observed_sha256 is not None and not self.has_file(observed_sha256):
            raise EventError(f"observed file {observed_sha256[:12]}… is not in {self.location}")
        at = now_iso()
        with self.transaction() as con:
            check_id = self._next_id("deck_checks")
            con.execute(
                "INSERT INTO deck_checks (event, id, konami_id, round, registration_id, mode, "
                "match, observed_sha256, observed_json, result_json, judge, created_at, "
                "confirmed) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (self.event_key, check_id, konami_id, round_no, registration_id, mode,
                 int(match), observed_sha256, json.dumps(observed_json, ensure_ascii=False),
                 json.dumps(result_json, ensure_ascii=False), judge, at, int(confirmed)))
            next_inf = self._next_id("infractions")
            for n, inf in enumerate(infractions):
                con.execute(
                    "INSERT INTO infractions (event, id, konami_id, code, penalty, remedy, rule, "
                    "message, round, judge, deck_check_id, created_at, findings_json) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (self.event_key, next_inf + n, konami_id, inf.code, inf.penalty, inf.remedy,
                     inf.rule, inf.message, round_no, judge, check_id, at,
                     json.dumps(inf.findings, ensure_ascii=False)))
            self._log("deckcheck", {"player": konami_id, "round": round_no, "match": match,
                                    "registration_id": registration_id, "confirmed": confirmed,
                                    "infractions": [i.code for i in infractions]}, judge)
        check = next(c for c in self.deck_checks(konami_id) if c.id == check_id)
        issued = [i for i in self.infractions(konami_id) if i.deck_check_id == check_id]
        return check, issued

    def add_amendment(self, infraction_id: int, action: str, reason: str, judge: str,
                      new_penalty: str | None = None) -> Amendment:
        with self.transaction() as con:
            row = self._one("SELECT konami_id, code, penalty FROM infractions "
                            "WHERE event = %s AND id = %s", (self.event_key, infraction_id))
            if row is None:
                raise EventError(f"no recorded infraction {infraction_id} in this event")
            amendment_id = self._next_id("infraction_amendments")
            try:
                con.execute(
                    "INSERT INTO infraction_amendments (event, id, infraction_id, action, reason, "
                    "new_penalty, judge, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    (self.event_key, amendment_id, infraction_id, action, reason, new_penalty,
                     judge, now_iso()))
            except psycopg.errors.CheckViolation:
                raise EventError("a void or amendment needs a reason") from None
            self._log(f"infraction-{action}", {"infraction": infraction_id,
                                               "player": row["konami_id"], "code": row["code"],
                                               "penalty": row["penalty"],
                                               "new_penalty": new_penalty, "reason": reason},
                      judge)
        return next(a for a in self.amendments() if a.id == amendment_id)

    def withdraw_registration(self, konami_id: str, version: int, reason: str,
                              judge: str) -> Withdrawal:
        """Withdraw one version: a new row; the version itself is kept."""
        reason = withdraw_reason(reason)
        if not (judge or "").strip():
            raise EventError("event.judge-needed")
        with self.transaction() as con:
            row = self._one("SELECT id FROM registrations WHERE event = %s AND konami_id = %s "
                            "AND version = %s", (self.event_key, konami_id, version))
            if row is None:
                raise EventError("event.no-version", player=konami_id, version=version)
            if self._one("SELECT 1 FROM registration_withdrawals WHERE event = %s "
                         "AND registration_id = %s", (self.event_key, row["id"])):
                raise EventError("event.already-withdrawn", player=konami_id, version=version)
            withdrawal_id = self._next_id("registration_withdrawals")
            con.execute(
                "INSERT INTO registration_withdrawals (event, id, registration_id, konami_id, "
                "version, reason, judge, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (self.event_key, withdrawal_id, row["id"], konami_id, version, reason, judge,
                 now_iso()))
            self._log("withdraw", {"player": konami_id, "version": version,
                                   "registration_id": int(row["id"]), "reason": reason}, judge)
        return next(w for w in self.withdrawals() if w.id == withdrawal_id)

    def load_records(self, table: str, rows: list[dict]) -> None:
        """Insert rows copied from another store as they are (ids kept): `event copy` only,
        into an event that holds nothing of `table` yet."""
        cols = RECORD_COLUMNS[table]
        sql = (f"INSERT INTO {table} (event, {', '.join(cols)}) VALUES "
               f"(%s, {', '.join(['%s'] * len(cols))})")
        with self.transaction() as con:
            with con.cursor() as cur:
                cur.executemany(sql, [(self.event_key, *[_plain(r[c]) for c in cols])
                                      for r in rows])


def _plain(value: Any) -> Any:
    return bytes(value) if isinstance(value, memoryview) else value

