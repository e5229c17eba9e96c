"""Schema of the event store, as named migration steps recorded in a `migrations` table.

Each step runs once, inside the caller's write transaction, and is recorded by name, so an
older event file is brought up to date when a newer decksheet opens it. Steps are only ever
appended: never edit or reorder a released one.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    name: str
    """Unique, stable step name (recorded in `migrations.name`)."""
    sql: str
    """The statements of the step (run with `executescript`-like splitting)."""


# The columns a record has in both event stores, written once: the SQLite steps below and the
# PostgreSQL ones (pg_schema.py) put their own keys (ids, `event`, references) around them.
REGISTRATION_DDL = """\
    version INTEGER NOT NULL CHECK (version >= 1),
    file_sha256 TEXT NOT NULL,
    file_name TEXT,
    reader TEXT NOT NULL,
    decklist_json TEXT NOT NULL,
    legal INTEGER NOT NULL,
    needs_review INTEGER NOT NULL,
    infractions_json TEXT NOT NULL,
    list_name TEXT,
    judge TEXT,
    created_at TEXT NOT NULL"""
DECK_CHECK_DDL = """\
    mode TEXT NOT NULL,
    match INTEGER NOT NULL,
    observed_sha256 TEXT,
    observed_json TEXT NOT NULL,
    result_json TEXT NOT NULL,
    judge TEXT,
    created_at TEXT NOT NULL"""
INFRACTION_DDL = """\
    code TEXT NOT NULL,
    penalty TEXT NOT NULL,
    remedy TEXT NOT NULL,
    rule TEXT,
    message TEXT,
    round INTEGER,
    judge TEXT"""
SHEET_CONFIRMATION_DDL = """\
    version INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('same', 'no-id', 'other-id')),
    sheet_id TEXT,
    how TEXT NOT NULL,
    judge TEXT NOT NULL CHECK (length(trim(judge)) > 0),
    created_at TEXT NOT NULL"""
AMENDMENT_DDL = """\
    action TEXT NOT NULL CHECK (action IN ('void', 'amend')),
    reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
    new_penalty TEXT,
    judge TEXT NOT NULL,
    created_at TEXT NOT NULL"""
WITHDRAWAL_DDL = """\
    version INTEGER NOT NULL,
    reason TEXT NOT NULL CHECK (length(trim(reason)) > 0 AND length(reason) <= 200),
    judge TEXT NOT NULL CHECK (length(trim(judge)) > 0),
    created_at TEXT NOT NULL"""
DECK_CHECK_VOID_DDL = """\
    reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
    judge TEXT NOT NULL CHECK (length(trim(judge)) > 0),
    created_at TEXT NOT NULL"""
STATION_JOB_DDL = """\
    file_sha256 TEXT NOT NULL,
    file_name TEXT,
    konami_id TEXT,
    name TEXT,
    judge TEXT,
    result_json TEXT,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL"""


_APPEND_ONLY = ("registrations", "review_decisions", "deck_checks", "infractions", "audit_log")


def _append_only_triggers(tables: tuple[str, ...] = _APPEND_ONLY) -> str:
    # Records are evidence: a correction is a new row, never an edit of an old one.
    out = []
    for table in tables:
        for op in ("UPDATE", "DELETE"):
            out.append(
                f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END;")
    return "\n".join(out)


_UNIQUE_KEYS: dict[str, tuple[tuple[str, ...], ...]] = {
    "registrations": (("id",), ("konami_id", "version")),
    "review_decisions": (("id",),),
    "deck_checks": (("id",),),
    "infractions": (("id",),),
    "audit_log": (("id",),),
    "infraction_amendments": (("id",),),
    "players": (("konami_id",),),
    "event": (("id",),),
}
"""Every uniqueness key of the guarded tables: an INSERT that would meet one of them is what
`REPLACE INTO` / `INSERT OR REPLACE` turns into a silent delete of the old row."""


def _record_guards(keys: dict[str, tuple[str, ...]]) -> str:
    """The guards of record tables added after 0003: append-only triggers, and an insert that
    meets an existing row's key column (`keys`: table → its key columns) refused, as 0003 does
    for the first tables (`REPLACE INTO` would silently delete the old row)."""
    return _append_only_triggers(tuple(keys)) + "\n" + "\n".join(
        f"CREATE TRIGGER {table}_no_replace_{n} BEFORE INSERT ON {table} WHEN EXISTS (SELECT 1 "
        f"FROM {table} x WHERE x.{col} IS NEW.{col}) BEGIN SELECT RAISE(ABORT, '{table} is "
        f"append-only: a row with this key exists'); END;"
        for table, cols in keys.items() for n, col in enumerate(cols))


def _no_rewrite_triggers() -> str:
    """Guards the append-only triggers of 0001 missed (issue 15 #3).

    - `REPLACE INTO t` deletes the conflicting row without firing its DELETE trigger (SQLite
      fires delete triggers of REPLACE only with recursive_triggers on): a BEFORE INSERT trigger
      refuses any insert that meets an existing key, whatever the conflict clause.
    - The event header (name, date, regulation) never changes once written, and a player's
      Konami ID never changes (their name may: that is logged).
    """
    out = []
    for table, keys in _UNIQUE_KEYS.items():
        for n, cols in enumerate(keys):
            cond = " AND ".join(f"x.{c} IS NEW.{c}" for c in cols)
            nonnull = " AND ".join(f"NEW.{c} IS NOT NULL" for c in cols)
            out.append(
                f"CREATE TRIGGER {table}_no_replace_{n} BEFORE INSERT ON {table} "
                f"WHEN {nonnull} AND EXISTS (SELECT 1 FROM {table} x WHERE {cond}) "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: a row with this key "
                f"exists'); END;")
    for op in ("UPDATE", "DELETE"):
        out.append(f"CREATE TRIGGER event_no_{op.lower()} BEFORE {op} ON event "
                   f"BEGIN SELECT RAISE(ABORT, 'the event header is fixed once written'); END;")
    out.append("CREATE TRIGGER players_no_delete BEFORE DELETE ON players "
               "BEGIN SELECT RAISE(ABORT, 'players is append-only'); END;")
    out.append("CREATE TRIGGER players_fixed_id BEFORE UPDATE OF konami_id ON players "
               "WHEN NEW.konami_id IS NOT OLD.konami_id "
               "BEGIN SELECT RAISE(ABORT, 'a player''s Konami ID never changes'); END;")
    return "\n".join(out)


MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001-initial", """
CREATE TABLE event (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    date TEXT NOT NULL,
    list_name TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE players (
    konami_id TEXT PRIMARY KEY,
    name TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE registrations (
    id INTEGER PRIMARY KEY,
    konami_id TEXT NOT NULL REFERENCES players(konami_id),
""" + REGISTRATION_DDL + """,
    UNIQUE (konami_id, version)
);
CREATE TABLE review_decisions (
    id INTEGER PRIMARY KEY,
    registration_id INTEGER NOT NULL REFERENCES registrations(id),
    section TEXT,
    line INTEGER,
    read TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('keep', 'choose', 'skip')),
    card_id INTEGER,
    count INTEGER,
    judge TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE deck_checks (
    id INTEGER PRIMARY KEY,
    konami_id TEXT NOT NULL REFERENCES players(konami_id),
    round INTEGER NOT NULL,
    registration_id INTEGER NOT NULL REFERENCES registrations(id),
""" + DECK_CHECK_DDL + """
);
CREATE TABLE infractions (
    id INTEGER PRIMARY KEY,
    konami_id TEXT NOT NULL REFERENCES players(konami_id),
""" + INFRACTION_DDL + """,
    deck_check_id INTEGER REFERENCES deck_checks(id),
    created_at TEXT NOT NULL
);
CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT,
    action TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE INDEX registrations_player ON registrations (konami_id, version);
CREATE INDEX deck_checks_player ON deck_checks (konami_id, round);
CREATE INDEX review_decisions_reg ON review_decisions (registration_id);
""" + _append_only_triggers()),
    Migration("0002-amendments-and-review-trail", """
CREATE TABLE infraction_amendments (
    id INTEGER PRIMARY KEY,
    infraction_id INTEGER NOT NULL REFERENCES infractions(id),
""" + AMENDMENT_DDL + """
);
CREATE INDEX infraction_amendments_inf ON infraction_amendments (infraction_id);
ALTER TABLE review_decisions ADD COLUMN before_json TEXT;
ALTER TABLE review_decisions ADD COLUMN after_json TEXT;
ALTER TABLE deck_checks ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE infractions ADD COLUMN findings_json TEXT;
""" + _append_only_triggers(("infraction_amendments",))),
    Migration("0003-no-rewrite", _no_rewrite_triggers()),
    Migration("0004-withdrawals", """
CREATE TABLE registration_withdrawals (
    id INTEGER PRIMARY KEY,
    registration_id INTEGER NOT NULL UNIQUE REFERENCES registrations(id),
    konami_id TEXT NOT NULL REFERENCES players(konami_id),
""" + WITHDRAWAL_DDL + """
);
""" + _record_guards({"registration_withdrawals": ("id", "registration_id")})),
    # A judge takes a line out of the list (`remove`). SQLite cannot widen a CHECK in place:
    # the table is copied row for row into one that allows it (dropping the old table drops
    # its triggers first, so its append-only guard never fires), and its guards are put back.
    Migration("0005-review-remove", """
CREATE TABLE review_decisions_v5 (
    id INTEGER PRIMARY KEY,
    registration_id INTEGER NOT NULL REFERENCES registrations(id),
    section TEXT,
    line INTEGER,
    read TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('keep', 'choose', 'skip', 'remove')),
    card_id INTEGER,
    count INTEGER,
    judge TEXT,
    created_at TEXT NOT NULL,
    before_json TEXT,
    after_json TEXT
);
INSERT INTO review_decisions_v5 (id, registration_id, section, line, read, action, card_id,
    count, judge, created_at, before_json, after_json)
    SELECT id, registration_id, section, line, read, action, card_id, count, judge, created_at,
           before_json, after_json FROM review_decisions ORDER BY id;
DROP TABLE review_decisions;
ALTER TABLE review_decisions_v5 RENAME TO review_decisions;
CREATE INDEX review_decisions_reg ON review_decisions (registration_id);
""" + _append_only_triggers(("review_decisions",)) + "\n" + "\n".join(
        t for t in _no_rewrite_triggers().splitlines() if " ON review_decisions " in t)),
    Migration("0006-sheet-identity-and-deck-check-voids", """
CREATE TABLE sheet_confirmations (
    id INTEGER PRIMARY KEY,
    registration_id INTEGER NOT NULL REFERENCES registrations(id),
    konami_id TEXT NOT NULL REFERENCES players(konami_id),
""" + SHEET_CONFIRMATION_DDL + """,
    CHECK (kind != 'other-id' OR sheet_id IS NOT NULL)
);
CREATE INDEX sheet_confirmations_reg ON sheet_confirmations (registration_id);
CREATE TABLE deck_check_voids (
    id INTEGER PRIMARY KEY,
    deck_check_id INTEGER NOT NULL UNIQUE REFERENCES deck_checks(id),
    konami_id TEXT NOT NULL REFERENCES players(konami_id),
""" + DECK_CHECK_VOID_DDL + """
);
""" + _record_guards({"sheet_confirmations": ("id",),
                     "deck_check_voids": ("id", "deck_check_id")})),
)
"""Sheet identity (issue 36): a judge's confirmation of whose sheet a version is — for a sheet
carrying another player's Konami ID, naming that ID — is a record of its own; a recorded deck
check can be voided with a reason (its infraction is voided with it)."""


def applied(con: sqlite3.Connection) -> list[str]:
    """Names of the steps already applied to this database (oldest first)."""
    has = con.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").fetchone()
    if not has:
        return []
    return [r[0] for r in con.execute("SELECT name FROM migrations ORDER BY id")]


def migrate(con: sqlite3.Connection, now: str) -> list[str]:
    """Apply the missing steps; the caller holds a write transaction. Returns what was applied."""
    con.execute("CREATE TABLE IF NOT EXISTS migrations ("
                "id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)")
    done = set(applied(con))
    ran: list[str] = []
    for step in MIGRATIONS:
        if step.name in done:
            continue
        for statement in _split(step.sql):
            con.execute(statement)
        con.execute("INSERT INTO migrations (name, applied_at) VALUES (?, ?)", (step.name, now))
        ran.append(step.name)
    return ran


def _split(script: str) -> list[str]:
    """Statements of a step (sqlite3.complete_statement keeps trigger bodies whole)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
