"""Schema of the PostgreSQL event store, as named migration steps (`decksheet_migrations`).

One database holds many events: every table has an `event` column, and every key starts with
it. Ids are per event (`id` = the event's highest + 1, given under the event's write lock), so
an event copied from a SQLite file keeps its ids and its hashes. Steps are only ever appended.

Append-only is enforced twice, like the SQLite store's triggers: a trigger refuses UPDATE,
DELETE and TRUNCATE on every record table (whoever connects, the owner included), and the
station and worker roles are granted only SELECT and INSERT on them.
"""
from __future__ import annotations

from scanner.event.migrations import (AMENDMENT_DDL, DECK_CHECK_DDL, DECK_CHECK_VOID_DDL,
                                       INFRACTION_DDL, REGISTRATION_DDL, SHEET_CONFIRMATION_DDL,
                                       STATION_JOB_DDL, WITHDRAWAL_DDL, Migration)

STATION_ROLE = "decksheet_station"
WORKER_ROLE = "decksheet_worker"
"""Group roles (NOLOGIN) a login role is made a member of: `GRANT decksheet_station TO desk1`."""

RECORD_TABLES = ("registrations", "review_decisions", "deck_checks", "infractions",
                 "infraction_amendments", "audit_log", "files")
"""Tables whose rows are never changed or removed."""


def _append_only(tables: tuple[str, ...], revoke: bool = False) -> str:
    """Triggers that refuse UPDATE, DELETE and TRUNCATE on `tables` (whoever connects);
    `revoke`: and no rights for PUBLIC (tables made after the roles' grants)."""
    return "\n".join(
        f"CREATE TRIGGER {t}_append_only BEFORE UPDATE OR DELETE ON {t} FOR EACH ROW "
        f"EXECUTE FUNCTION decksheet_refuse_change();\n"
        f"CREATE TRIGGER {t}_no_truncate BEFORE TRUNCATE ON {t} FOR EACH STATEMENT "
        f"EXECUTE FUNCTION decksheet_refuse_change();"
        + (f"\nREVOKE ALL ON {t} FROM PUBLIC;" if revoke else "")
        for t in tables)

_KEYS = {"konami_id": "players(event, konami_id)", "file_sha256": "files(event, sha256)",
         "registration_id": "registrations(event, id)", "deck_check_id": "deck_checks(event, id)",
         "infraction_id": "infractions(event, id)"}
"""What a record's reference column points at: always a key of the same event."""


def _record_table(table: str, columns: tuple[str, ...], refs: tuple[str, ...],
                  unique: tuple[str, ...] = ()) -> str:
    """A per-event record table: its event, its per-event `id`, `columns` (definitions, or a
    record's shared DDL from migrations.py), keyed (event, id), `unique` column lists unique
    within the event, and each of `refs` a reference (`_KEYS`) within the event."""
    lines = ["event TEXT NOT NULL", "id BIGINT NOT NULL", *(c.strip() for c in columns),
             "PRIMARY KEY (event, id)",
             *(f"UNIQUE (event, {u})" for u in unique),
             *(f"FOREIGN KEY (event, {r}) REFERENCES {_KEYS[r]}" for r in refs)]
    return f"CREATE TABLE {table} (\n" + ",\n".join("    " + line for line in lines) + "\n);"


_TABLES = """
CREATE TABLE events (
    event TEXT PRIMARY KEY CHECK (event ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    name TEXT NOT NULL,
    date TEXT NOT NULL,
    list_name TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE players (
    event TEXT NOT NULL REFERENCES events(event),
    konami_id TEXT NOT NULL,
    name TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (event, konami_id)
);
CREATE TABLE files (
    event TEXT NOT NULL REFERENCES events(event),
    sha256 TEXT NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    data BYTEA NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (event, sha256)
);
""" + _record_table("registrations", ("konami_id TEXT NOT NULL", REGISTRATION_DDL, "job_id TEXT"),
                  ("konami_id", "file_sha256"), unique=("konami_id, version", "job_id")) + """
""" + _record_table("review_decisions", (
    "registration_id BIGINT NOT NULL", "section TEXT", "line INTEGER", "read TEXT NOT NULL",
    "action TEXT NOT NULL CHECK (action IN ('keep', 'choose', 'skip'))", "card_id BIGINT",
    "count INTEGER", "judge TEXT", "created_at TEXT NOT NULL", "before_json TEXT", "after_json TEXT"),
    ("registration_id",)) + """
""" + _record_table("deck_checks", ("konami_id TEXT NOT NULL", "round INTEGER NOT NULL",
                                    "registration_id BIGINT NOT NULL", DECK_CHECK_DDL,
                                    "confirmed INTEGER NOT NULL DEFAULT 0"),
                    ("konami_id", "registration_id")) + """
""" + _record_table("infractions", ("konami_id TEXT NOT NULL", INFRACTION_DDL, "deck_check_id BIGINT",
                                    "created_at TEXT NOT NULL", "findings_json TEXT"),
                    ("konami_id", "deck_check_id")) + """
""" + _record_table("infraction_amendments", ("infraction_id BIGINT NOT NULL", AMENDMENT_DDL),
                    ("infraction_id",)) + """
CREATE TABLE audit_log (
    event TEXT NOT NULL REFERENCES events(event),
    id BIGINT NOT NULL,
    at TEXT NOT NULL,
    actor TEXT,
    action TEXT NOT NULL,
    detail TEXT NOT NULL,
    PRIMARY KEY (event, id)
);
CREATE TABLE station_roster (
    event TEXT NOT NULL REFERENCES events(event),
    konami_id TEXT NOT NULL,
    name TEXT NOT NULL,
    table_no TEXT,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (event, konami_id)
);
CREATE TABLE station_jobs (
    event TEXT NOT NULL REFERENCES events(event),
    id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
""" + STATION_JOB_DDL + """,
    finished_at TEXT,
    worker TEXT,
    lease_until TIMESTAMPTZ,
    PRIMARY KEY (event, id),
    UNIQUE (event, seq)
);
CREATE INDEX station_jobs_state ON station_jobs (event, state, seq);
CREATE INDEX players_by_id ON players (konami_id);
CREATE INDEX registrations_by_player ON registrations (konami_id);
CREATE INDEX deck_checks_by_player ON deck_checks (konami_id);
CREATE INDEX infractions_by_player ON infractions (konami_id);
CREATE INDEX review_decisions_by_reg ON review_decisions (event, registration_id);
CREATE INDEX amendments_by_inf ON infraction_amendments (event, infraction_id);
CREATE INDEX players_by_name ON players (lower(name));
"""

_GUARDS = """
CREATE FUNCTION decksheet_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only (decksheet: a correction is a new row)', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE FUNCTION decksheet_player_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.event IS DISTINCT FROM OLD.event
            OR NEW.konami_id IS DISTINCT FROM OLD.konami_id
            OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
        RAISE EXCEPTION 'a player''s Konami ID never changes and a player is never removed'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END $$;
""" + _append_only(RECORD_TABLES + ("events",)) + """
CREATE TRIGGER players_guard BEFORE UPDATE OR DELETE ON players FOR EACH ROW
    EXECUTE FUNCTION decksheet_player_guard();
CREATE TRIGGER players_no_truncate BEFORE TRUNCATE ON players FOR EACH STATEMENT
    EXECUTE FUNCTION decksheet_refuse_change();
"""

_ALL = RECORD_TABLES + ("events", "players", "station_roster", "station_jobs",
                        "decksheet_migrations")

_ROLES = f"""
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{STATION_ROLE}') THEN
        CREATE ROLE {STATION_ROLE} NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{WORKER_ROLE}') THEN
        CREATE ROLE {WORKER_ROLE} NOLOGIN;
    END IF;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'decksheet: this user may not create roles: create {STATION_ROLE} and '
                    '{WORKER_ROLE} (NOLOGIN) as a superuser first, or grant it CREATEROLE';
END $$;
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{STATION_ROLE}') THEN
        REVOKE ALL ON {", ".join(_ALL)} FROM PUBLIC;
        GRANT SELECT ON {", ".join(_ALL)} TO {STATION_ROLE}, {WORKER_ROLE};
        GRANT INSERT ON {", ".join(RECORD_TABLES + ("players",))} TO {STATION_ROLE};
        GRANT INSERT ON registrations, players, audit_log, files TO {WORKER_ROLE};
        GRANT UPDATE (name) ON players TO {STATION_ROLE}, {WORKER_ROLE};
        GRANT INSERT, UPDATE ON station_roster TO {STATION_ROLE};
        GRANT INSERT, UPDATE ON station_jobs TO {STATION_ROLE};
        GRANT UPDATE ON station_jobs TO {WORKER_ROLE};
    END IF;
END $$;
"""
"""Least privilege: stations insert records and run the queue, workers take jobs and insert
registrations; neither may UPDATE, DELETE or TRUNCATE a record, nor create an event (the
owner does that with `decksheet event init postgresql://…`)."""

_CROPS = f"""
CREATE TABLE station_crops (
    event TEXT NOT NULL REFERENCES events(event),
    sha256 TEXT NOT NULL CHECK (sha256 ~ '^[0-9a-f]{{64}}$'),
    name TEXT NOT NULL CHECK (name ~ '^[A-Za-z0-9_.-]+[.]png$'),
    data BYTEA NOT NULL,
    PRIMARY KEY (event, sha256, name)
);
REVOKE ALL ON station_crops FROM PUBLIC;
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{STATION_ROLE}') THEN
        GRANT SELECT, INSERT ON station_crops TO {STATION_ROLE}, {WORKER_ROLE};
    END IF;
END $$;
"""
"""Line crops a reader made, so the review page of any front-end shows them (a reader may be
another machine)."""

# A registration a guard held waits for a judge (the one registration path's `needs-decision`).
_NEEDS_DECISION = """
ALTER TABLE station_jobs DROP CONSTRAINT station_jobs_state_check;
ALTER TABLE station_jobs ADD CONSTRAINT station_jobs_state_check
    CHECK (state IN ('queued', 'running', 'needs-decision', 'done', 'failed'));
"""

_WITHDRAWALS = """
""" + _record_table("registration_withdrawals", ("registration_id BIGINT NOT NULL",
                                                 "konami_id TEXT NOT NULL", WITHDRAWAL_DDL),
                    ("registration_id", "konami_id"), unique=("registration_id",)) + f"""
CREATE TRIGGER registration_withdrawals_append_only BEFORE UPDATE OR DELETE
    ON registration_withdrawals FOR EACH ROW EXECUTE FUNCTION decksheet_refuse_change();
CREATE TRIGGER registration_withdrawals_no_truncate BEFORE TRUNCATE ON registration_withdrawals
    FOR EACH STATEMENT EXECUTE FUNCTION decksheet_refuse_change();
REVOKE ALL ON registration_withdrawals FROM PUBLIC;
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{STATION_ROLE}') THEN
        GRANT SELECT ON registration_withdrawals TO {STATION_ROLE}, {WORKER_ROLE};
        GRANT INSERT ON registration_withdrawals TO {STATION_ROLE};
    END IF;
END $$;
"""
"""A judge withdraws a registration version (a wrong sheet on the wrong player): a row of its
own, append-only like every record; the version stays."""

_IDENTITY_AND_CHECK_VOIDS = """
""" + _record_table("sheet_confirmations", (
    "registration_id BIGINT NOT NULL", "konami_id TEXT NOT NULL", SHEET_CONFIRMATION_DDL,
    "CHECK (kind != 'other-id' OR sheet_id IS NOT NULL)"), ("registration_id", "konami_id")) + """
CREATE INDEX sheet_confirmations_by_reg ON sheet_confirmations (event, registration_id);
""" + _record_table("deck_check_voids", ("deck_check_id BIGINT NOT NULL", "konami_id TEXT NOT NULL",
                                         DECK_CHECK_VOID_DDL),
                    ("deck_check_id", "konami_id"), unique=("deck_check_id",)) + """
""" + _append_only(("sheet_confirmations", "deck_check_voids"), revoke=True) + f"""
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{STATION_ROLE}') THEN
        GRANT SELECT ON sheet_confirmations, deck_check_voids TO {STATION_ROLE}, {WORKER_ROLE};
        GRANT INSERT ON sheet_confirmations, deck_check_voids TO {STATION_ROLE};
    END IF;
END $$;
"""
"""Sheet identity confirmations and deck-check voids (issue 36): append-only records like
every other; the station inserts them, nobody changes them."""

_REVIEW_REMOVE = """
ALTER TABLE review_decisions DROP CONSTRAINT review_decisions_action_check;
ALTER TABLE review_decisions ADD CONSTRAINT review_decisions_action_check
    CHECK (action IN ('keep', 'choose', 'skip', 'remove'));
"""
"""A judge takes a line out of the list (`remove`: a struck or garbage row)."""

PG_MIGRATIONS: tuple[Migration, ...] = (
    Migration("pg-0001-initial", _TABLES),
    Migration("pg-0002-append-only", _GUARDS),
    Migration("pg-0003-roles", _ROLES),
    Migration("pg-0004-station-crops", _CROPS),
    Migration("pg-0005-jobs-needs-decision", _NEEDS_DECISION),
    Migration("pg-0006-withdrawals", _WITHDRAWALS),
    Migration("pg-0007-review-remove", _REVIEW_REMOVE),
    Migration("pg-0008-sheet-identity-and-deck-check-voids", _IDENTITY_AND_CHECK_VOIDS),
)
