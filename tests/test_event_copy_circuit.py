"""Moving an event between SQLite and PostgreSQL (verified), and a season across the events of
one PostgreSQL database."""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from scanner.cli import main
from scanner.errors import EventError
from scanner.event.copy import COPIED, copy_event, fingerprint
from scanner.event.records import NewInfraction, ReviewDecision
from scanner.event.stores import create_event, open_event

SAMPLE_DECKS = Path(__file__).resolve().parent.parent / "samples" / "decks"


@pytest.fixture
def cli_env(demo_db, tmp_path, monkeypatch):
    lflist = tmp_path / "lflist.conf"
    lflist.write_text("#[2026.7]\n!2026.7\n", encoding="utf-8")
    monkeypatch.setenv("DECKSHEET_CARD_DB", str(demo_db.path))
    monkeypatch.setenv("DECKSHEET_LFLIST", str(lflist))
    monkeypatch.delenv("DECKSHEET_LIST", raising=False)
    monkeypatch.delenv("DECKSHEET_EVENT", raising=False)


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def _laptop_event(path: Path) -> None:
    """An event on a laptop: registrations (two versions), a deck check with a game loss that
    is then amended, review decisions, a walk-in."""
    assert run("event", "init", str(path), "--name", "노트북 대회", "--date", "2026-07-12"
               ).exit_code == 0
    ev = str(path)
    for deck, kid in (("legal.ydk", "0000000001"), ("registered.ydk", "0000000003"),
                      ("legal.ydk", "0000000003")):
        r = run("register", str(SAMPLE_DECKS / deck), "--player", kid, "--event", ev,
                "--allow-duplicate", "--json")
        assert r.exit_code == 0, r.output
    with open_event(ev) as store:
        reg = store.latest_registration("0000000003")  # a deck check compares the list in force
        check, issued = store.add_deck_check("0000000003", 2, reg.id, "full", False, None, {},
                                             {"verdict": "불일치"},
                                             [NewInfraction("DECKLIST_MISMATCH", "GAME_LOSS",
                                                            "fix")], "이저지")
        store.add_amendment(issued[0].id, "amend", "헤드 저지 판단", "헤드", "WARNING")
        store.add_decisions([ReviewDecision(reg.id, "main", 1, "x", "keep")], "이저지")
        sha = store.store_file(b"walk-in sheet")
        store.add_registration(None, "워크인", {"sections": {}}, sha, "w.txt", True, [], None,
                               walk_in=True)
        store.withdraw_registration("0000000003", 2, "다른 선수의 시트", "헤드")


def test_copy_sqlite_to_postgresql_and_back_is_verified(cli_env, tmp_path, pg_db):
    laptop = tmp_path / "laptop.db"
    _laptop_event(laptop)
    url = pg_db + "?event=busan-0503"
    r = run("event", "copy", str(laptop), url, "--json", "--judge", "운영")
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["ok"] and report["files"] == 3
    rows = {t["table"]: t["rows"] for t in report["tables"]}
    assert (rows["registrations"], rows["deck_checks"], rows["infractions"],
            rows["infraction_amendments"], rows["review_decisions"],
            rows["registration_withdrawals"]) == (4, 1, 1, 1, 1, 1)
    assert all(t["sha256"] == t["copied_sha256"] for t in report["tables"])

    # The database copy works as the event: status, ids kept, the copy logged there only.
    with open_event(laptop, readonly=True) as src, open_event(url) as dst:
        assert [r.id for r in dst.registrations()] == [r.id for r in src.registrations()]
        assert dst.infractions()[0].effective_penalty == "WARNING"
        assert dst.latest_registration("0000000003").version == 1  # v2 withdrawn, copied
        assert [w.reason for w in dst.withdrawals()] == ["다른 선수의 시트"]
        assert dst.audit_log()[-1][2] == COPIED and src.audit_log()[-1][2] != COPIED
        assert dst.integrity() == []
        r2 = dst.add_registration("0000000001", None, {"sections": {}},
                                  dst.store_file(b"v2"), "v2", True, [], None)
        assert (r2.version, r2.id) == (2, 5)

    # … and back to a file, equal to the database event table by table.
    back = tmp_path / "archive.db"
    assert copy_event(url, back).ok
    with open_event(url, readonly=True) as a, open_event(back, readonly=True) as b:
        fa, fb = fingerprint(a), fingerprint(b)
        assert fa.pop("audit_log")[0] + 1 == fb.pop("audit_log")[0]  # + the copy's own entry
        assert fa == fb and b.audit_log()[:-1] == a.audit_log()
        assert b.file_path(r2.file_sha256).read_bytes() == b"v2"

    # … and within the database, to another event name (ids are per event).
    assert copy_event(url, pg_db + "?event=busan-archive").ok
    with open_event(url, readonly=True) as a, open_event(pg_db + "?event=busan-archive") as c:
        assert [r.id for r in c.registrations()] == [r.id for r in a.registrations()]

    # An existing target is never written to.
    r = run("event", "copy", str(laptop), url)
    assert r.exit_code == 2 and "already exists" in r.stderr
    with pytest.raises(EventError, match="already exists"):
        copy_event(url, back)


def test_copy_refuses_a_source_with_a_damaged_original(cli_env, tmp_path, pg_db):
    laptop = tmp_path / "laptop.db"
    _laptop_event(laptop)
    victim = next(Path(str(laptop) + ".files").iterdir())
    victim.chmod(0o644)
    victim.write_bytes(b"changed")
    r = run("event", "copy", str(laptop), pg_db + "?event=x")
    assert r.exit_code == 2 and "nothing was copied" in r.stderr
    with pytest.raises(EventError, match="no decksheet events|no event 'x'"):
        open_event(pg_db + "?event=x")


def _season(url_of, events: int) -> None:
    """`events` events; player A has a game loss at each (the second one voided)."""
    for n in range(events):
        with create_event(url_of(f"e{n}"), f"대회 {n}", dt.date(2026, 3 + n, 1)) as s:
            sha = s.store_file(f"sheet {n}".encode())
            a = s.add_registration("0000000001", "김결투", {"sections": {}}, sha, "a.pdf",
                                   True, [], None)
            s.add_registration("0000000002", f"이름{n}", {"sections": {}}, sha, "b.pdf",
                               True, [], None)
            _, issued = s.add_deck_check("0000000001", 1 + n, a.id, "full", False, None, {},
                                         {}, [NewInfraction("DECKLIST_MISMATCH", "GAME_LOSS",
                                                            "fix")], "J")
            if n == 1:
                s.add_amendment(issued[0].id, "void", "오기", "H")


def test_circuit_history_across_events(cli_env, pg_db):
    _season(lambda e: f"{pg_db}?event={e}", 3)
    r = run("circuit", "history", "0000000001", "--event", pg_db, "--json")
    assert r.exit_code == 1, r.output  # a penalty stands
    hist = json.loads(r.stdout)
    assert [e["event"] for e in hist["events"]] == ["e0", "e1", "e2"]
    assert [len(e["deck_checks"]) for e in hist["events"]] == [1, 1, 1]
    assert [e["infractions"][0]["status"] for e in hist["events"]] == \
        ["active", "voided", "active"]
    assert hist["penalty_counts"] == {"GAME_LOSS": 2}
    # By name, in text; the player with a different name at every event is found by ID only.
    r = run("circuit", "history", "김결투", "--event", pg_db + "?event=e0")
    assert r.exit_code == 1 and "3개 이벤트" in r.stdout and "(voided)" in r.stdout
    r = run("circuit", "history", "0000000002", "--event", pg_db, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["penalty_counts"] == {}
    r = run("circuit", "players", "--event", pg_db, "--json")
    players = {p["player"]: p for p in json.loads(r.stdout)["players"]}
    assert players["0000000001"] == {"player": "0000000001", "name": "김결투", "events": 3,
                                     "registrations": 3, "deck_checks": 3, "infractions": 2}
    assert players["0000000002"]["name"] == "이름2"  # the name at the latest event
    assert run("circuit", "history", "0000000009", "--event", pg_db).exit_code == 2
    assert run("circuit", "history", "없는 이름", "--event", pg_db).exit_code == 2


def test_circuit_needs_a_database(cli_env, tmp_path):
    r = run("circuit", "players", "--event", str(tmp_path / "e.db"))
    assert r.exit_code == 2 and "PostgreSQL" in r.stderr


def test_circuit_audit_across_events(cli_env, pg_db):
    """The same file handed in by two players at two events, the same list by two others;
    penalty counts per player (a voided one not counted)."""
    _season(lambda e: f"{pg_db}?event={e}", 2)  # player 2 hands in player 1's file each time
    deck = {"sections": {"main": [{"card_id": 5, "count": 3}], "extra": [], "side": []}}
    for n, kid in ((0, "0000000005"), (1, "0000000006")):
        with open_event(f"{pg_db}?event=e{n}") as s:
            s.add_registration(kid, None, deck, s.store_file(f"list {n}".encode()), "l.txt",
                               True, [], None)
    r = run("circuit", "audit", "--event", pg_db, "--json")
    assert r.exit_code == 1, r.output
    out = json.loads(r.stdout)
    assert out["shared_files"] == []  # the same bytes only within one event here
    assert [[p["player"] for p in g["players"]] for g in out["same_lists"]] == \
        [["0000000005", "0000000006"]]
    assert out["penalties"] == [{"player": "0000000001", "total": 1,
                                 "penalties": {"GAME_LOSS": 1}}]
    with open_event(f"{pg_db}?event=e1") as s:  # e0's sheet handed in again by another player
        s.add_registration("0000000007", None, {}, s.store_file(b"sheet 0"), "a.pdf", True, [],
                           None)
    out = json.loads(run("circuit", "audit", "--event", pg_db, "--json").stdout)
    assert [p["player"] for p in out["shared_files"][0]["players"]] == \
        ["0000000001", "0000000002", "0000000007"]


def test_a_lost_database_connection_is_a_clear_error(pg_db):
    """The server ends the connection (restart, failover): reads and writes are refused with
    the event's location, not a traceback; nothing half-written."""
    import psycopg
    url = pg_db + "?event=lost"
    with create_event(url, "대회", dt.date(2026, 7, 12)) as store:
        sha = store.store_file(b"x")
        pid = store.backend.con.info.backend_pid
        with psycopg.connect(pg_db, autocommit=True) as su:
            su.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(EventError, match=r"\?event=lost: "):
            store.registrations()
        with pytest.raises(EventError, match=r"\?event=lost: "):
            store.add_registration("0000000001", None, {}, sha, "x", True, [], None)
    with open_event(url) as store:
        assert store.registrations() == []


def test_postgresql_migrations_are_named_steps(pg_db):
    """An older database gets the missing steps when opened for writing; a database set up by a
    newer decksheet is read but never written to."""
    import psycopg

    from scanner.event.pg_schema import PG_MIGRATIONS
    url = pg_db + "?event=m"
    create_event(url, "대회", dt.date(2026, 7, 12)).close()
    with psycopg.connect(pg_db, autocommit=True) as su:
        su.execute("DROP TABLE station_crops")
        su.execute("DELETE FROM decksheet_migrations WHERE name = 'pg-0004-station-crops'")
    with open_event(url, readonly=True) as store:
        assert "pg-0004-station-crops" not in store.steps  # read-only: nothing applied
    with open_event(url) as store:
        assert store.steps == [m.name for m in PG_MIGRATIONS]
    with psycopg.connect(pg_db, autocommit=True) as su:
        assert su.execute("SELECT to_regclass('station_crops')").fetchone()[0] is not None
        su.execute("INSERT INTO decksheet_migrations (name, applied_at) VALUES ('pg-9999-new', 'x')")
    with pytest.raises(EventError, match="newer decksheet"):
        open_event(url)
    with open_event(url, readonly=True) as store:
        assert store.event().name == "대회"
    with pytest.raises(EventError, match="newer decksheet"):
        create_event(pg_db + "?event=other", "x", dt.date(2026, 7, 12))
