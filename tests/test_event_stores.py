"""One contract for both event stores: SQLite (a file) and PostgreSQL (a real server the test
session starts, see `pg_server.py`). Every test here runs on both."""
from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from scanner.cli import main
from scanner.errors import EventError
from scanner.event.records import NewInfraction, ReviewDecision
from scanner.event.record import EventRecord
from scanner.event.stores import create_event, open_event

SAMPLE_DECKS = Path(__file__).resolve().parent.parent / "samples" / "decks"
DAY = dt.date(2026, 7, 12)


@pytest.fixture(params=["sqlite", "postgresql"])
def event_target(request, tmp_path) -> str:
    """Where a fresh event goes: a file path, or a URL of a fresh database with ?event=."""
    if request.param == "sqlite":
        return str(tmp_path / "event.db")
    db_url = request.getfixturevalue("pg_db")
    return db_url + "?event=seoul-0712"


def _raw_errors():
    import psycopg
    return (sqlite3.IntegrityError, psycopg.Error)


def _register(store: EventRecord, kid: str | None, data: bytes = b"#main\n14558127\n",
              name: str | None = "홍길동", **kw):
    sha = store.store_file(data)
    return store.add_registration(kid, name, {"sections": {"main": []}, **kw.pop("deck", {})},
                                  sha, "a.ydk", True, [], "2026.7", **kw)


def test_create_open_and_the_header(event_target):
    with create_event(event_target, "  서울 대회 ", DAY, "2026.7") as store:
        assert isinstance(store, EventRecord)
        ev = store.event()
        assert (ev.name, ev.date, ev.list_name) == ("서울 대회", DAY, "2026.7")
        assert store.steps and all(isinstance(s, str) for s in store.steps)
    with pytest.raises(EventError, match="already exists"):
        create_event(event_target, "again", DAY)
    with open_event(event_target) as store:
        assert [a for _, _, a, _ in store.audit_log()] == ["event-init"]


def test_versions_in_upload_order_walk_ins_and_rename(event_target):
    with create_event(event_target, "대회", DAY) as store:
        a = _register(store, "0123456789")
        b = _register(store, "0123456789", data=b"#main\n2\n", name="홍길순")
        assert (a.version, b.version) == (1, 2) and b.id > a.id
        assert store.latest_registration("0123456789").player_name == "홍길순"
        assert [r.version for r in store.registrations(konami_id="0123456789")] == [1, 2]
        assert [r.version for r in store.registrations(latest_only=True)] == [2]
        w1 = _register(store, None, data=b"w1", walk_in=True, name="워크인")
        w2 = _register(store, None, data=b"w2", walk_in=True, name="워크인2")
        assert (w1.konami_id, w2.konami_id) == ("W0001", "W0002")
        assert store.walk_in_ids() == ["W0001", "W0002"]
        assert store.find_players("홍길순") == ["0123456789"]
        assert store.players_with_file(a.file_sha256) == ["0123456789"]
        assert store.file_path(a.file_sha256).read_bytes() == b"#main\n14558127\n"
        assert store.file_bytes("0" * 64) is None
        actions = [a for _, _, a, _ in store.audit_log()]
        assert actions.count("register") == 4 and "player-renamed" in actions
        with pytest.raises(EventError, match="not in"):
            store.add_registration("0123456789", None, {}, "f" * 64, None, True, [], None)


def test_records_are_append_only_in_the_database(event_target):
    with create_event(event_target, "대회", DAY) as store:
        reg = _register(store, "0123456789")
        store.add_deck_check("0123456789", 1, reg.id, "full", False, None, {}, {},
                             [NewInfraction("DECKLIST_MISMATCH", "GAME_LOSS", "fix")], "심판")
        for sql in ("UPDATE registrations SET legal = 0", "DELETE FROM registrations",
                    "DELETE FROM audit_log", "UPDATE infractions SET penalty = 'WARNING'",
                    "DELETE FROM deck_checks", "UPDATE players SET konami_id = '1111111111'",
                    "DELETE FROM players"):
            with pytest.raises(_raw_errors(), match="append-only|never"):
                store.backend.con.execute(sql)
        assert store.latest_registration("0123456789").legal is True
        assert store.infractions()[0].penalty == "GAME_LOSS"


def test_deck_check_infraction_void_and_decisions(event_target):
    with create_event(event_target, "대회", DAY) as store:
        reg = _register(store, "0123456789")
        obs = store.store_file(b"observed")
        check, issued = store.add_deck_check(
            "0123456789", 3, reg.id, "full", False, obs, {"o": 1}, {"verdict": "불일치"},
            [NewInfraction("DECKLIST_MISMATCH", "GAME_LOSS", "fix", findings=[{"code": "X"}])],
            "심판", confirmed=True)
        assert (check.round, check.match, check.confirmed, check.verdict) == \
            (3, False, True, "불일치")
        assert [(i.code, i.penalty, i.deck_check_id, i.findings) for i in issued] == \
            [("DECKLIST_MISMATCH", "GAME_LOSS", check.id, [{"code": "X"}])]
        amend = store.add_amendment(issued[0].id, "amend", "착오", "헤드", "WARNING")
        assert amend.new_penalty == "WARNING"
        inf = store.infraction(issued[0].id)
        assert (inf.status, inf.effective_penalty) == ("amended", "WARNING")
        store.add_amendment(issued[0].id, "void", "취소", "헤드")
        assert store.infraction(issued[0].id).effective_penalty is None
        with pytest.raises(EventError, match="no recorded infraction"):
            store.add_amendment(999, "void", "x", "헤드")
        n = store.add_decisions([ReviewDecision(reg.id, "main", 1, "x", "keep"),
                                 ReviewDecision(reg.id, "main", 2, "y", "choose", 1, 3,
                                                after={"card_id": 1})], "심판")
        assert n == 2 and [d.action for d in store.decisions(reg.id)] == ["keep", "choose"]
        assert store.decisions(reg.id)[1].after == {"card_id": 1}
        assert store.integrity() == []


def test_read_only_writes_nothing(event_target):
    create_event(event_target, "대회", DAY).close()
    with open_event(event_target, readonly=True) as store:
        assert store.event().name == "대회"
        assert store.log("x", {}) is False
        with pytest.raises(EventError, match="read-only"):
            store.store_file(b"x")
    with open_event(event_target) as store:
        assert [a for _, _, a, _ in store.audit_log()] == ["event-init"]


def test_two_desks_at_once_get_versions_in_order(event_target):
    """Eight threads, each its own connection, register the same player: versions 1..8, once
    each, and the walk-in numbers handed out at the same time are all different."""
    create_event(event_target, "대회", DAY).close()
    errors: list[BaseException] = []

    def desk(n: int) -> None:
        try:
            with open_event(event_target) as store:
                _register(store, "0123456789", data=f"#main\n{n}\n".encode())
                _register(store, None, walk_in=True, name=f"w{n}")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=desk, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    with open_event(event_target, readonly=True) as store:
        regs = store.registrations(konami_id="0123456789")
        assert [r.version for r in regs] == list(range(1, 9))
        assert [r.id for r in regs] == sorted(r.id for r in regs)
        assert store.walk_in_ids() == [f"W{n:04d}" for n in range(1, 9)]


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


def test_the_event_commands_on_either_store(cli_env, event_target, monkeypatch, tmp_path):
    """The same commands, the same answers: init, register, deck check, void, status, info
    (the PostgreSQL event given by $DECKSHEET_EVENT, as a station would)."""
    monkeypatch.setenv("DECKSHEET_EVENT", event_target)
    assert run("event", "init", event_target, "--name", "샘플", "--date", "2026-07-12"
               ).exit_code == 0
    r = run("register", str(SAMPLE_DECKS / "legal.ydk"), "--player", "0000000001", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["version"] == 1
    r = run("register", str(SAMPLE_DECKS / "registered.ydk"), "--player", "0000000003", "--json")
    assert r.exit_code == 0, r.output
    with open_event(event_target, readonly=True) as store:
        files_before = store.file_digests()
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    r = run("register", str(empty), "--player", "0000000004", "--json")
    assert r.exit_code == 2 and r.stdout == "" and "Traceback" not in r.output
    with open_event(event_target, readonly=True) as store:
        assert store.file_digests() == files_before and store.latest_registration(
            "0000000004") is None
    r = run("deckcheck", str(SAMPLE_DECKS / "observed.ydk"), "--player", "0000000003",
            "--round", "3", "--judge", "이저지", "--json")
    assert r.exit_code == 1, r.output
    dc = json.loads(r.stdout)
    assert dc["recorded"] is True and dc["infractions"][0]["code"] == "DECKLIST_MISMATCH"
    inf_id = dc["recorded_infractions"][0]["id"]
    r = run("event", "void", str(inf_id), "--reason", "잘못 기록", "--judge", "헤드", "--json")
    assert r.exit_code == 0, r.output
    r = run("event", "status", "0000000003", "--json")
    assert r.exit_code in (0, 1), r.output
    status = json.loads(r.stdout)
    assert status["player"] == "0000000003"
    r = run("event", "info", "--json")
    info = json.loads(r.stdout)
    assert (info["players"], info["versions"], info["deck_checks"], info["infractions"],
            info["problems"]) == (2, 2, 1, 1, [])
    out = tmp_path / "audit"
    r = run("audit", "--out", str(out), "--json")
    assert r.exit_code in (0, 1), r.output
    audit = json.loads(r.stdout)
    assert audit and "Traceback" not in r.output
    assert any(p.suffix == ".html" for p in out.iterdir())
    r = run("export", "--out", str(tmp_path / "export"))
    assert r.exit_code == 0, r.output
    assert any((tmp_path / "export").iterdir())


def test_a_station_job_registers_once(event_target):
    """Two readers finishing the same job (a lease ran out during a slow read): one version,
    whichever store."""
    create_event(event_target, "대회", DAY).close()
    results = []

    def finish() -> None:
        with open_event(event_target) as s:
            results.append(_register(s, "0123456789", deck={"station_job": "job-1"}))

    threads = [threading.Thread(target=finish) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 4 and {(r.id, r.version) for r in results} == {(1, 1)}
    with open_event(event_target) as s:
        assert len(s.registrations()) == 1
        assert _register(s, "0123456789", deck={"station_job": "job-2"}).version == 2


def test_a_withdrawn_version_stays_recorded_and_stops_counting(event_target):
    with create_event(event_target, "대회", DAY) as store:
        a1 = _register(store, "0123456789")
        a2 = _register(store, "0123456789", data=b"#main\n2\n")
        w = store.withdraw_registration("0123456789", 2, "  다른 선수의   시트 ", "헤드")
        assert (w.konami_id, w.version, w.reason, w.judge, w.registration_id) == \
            ("0123456789", 2, "다른 선수의 시트", "헤드", a2.id)
        assert store.latest_registration("0123456789").version == 1
        assert [r.version for r in store.registrations(latest_only=True)] == [1]
        versions = store.registrations(konami_id="0123456789")
        assert [(r.version, r.withdrawal is not None) for r in versions] == \
            [(1, False), (2, True)]
        assert store.registration("0123456789", 2).withdrawal.reason == "다른 선수의 시트"
        from scanner.event.context import EventContext
        from scanner.event.flows import record_review_decisions
        with pytest.raises(EventError) as exc:  # nothing more is recorded on it
            record_review_decisions(EventContext(store, None, judge="헤드"),
                                    store.registration("0123456789", 2), [])
        assert exc.value.code == "event.version-withdrawn"
        assert store.registration_by_id(a2.id).summary_json()["withdrawn"]["judge"] == "헤드"
        # the same original can then go to the right player: the guard no longer sees it
        assert store.players_with_file(a2.file_sha256) == []
        with pytest.raises(EventError) as exc:
            store.withdraw_registration("0123456789", 2, "again", "헤드")
        assert exc.value.code == "event.already-withdrawn"
        for kid, version, reason, judge, code in (
                ("0123456789", 9, "x", "헤드", "event.no-version"),
                ("0123456789", 1, "  ", "헤드", "event.withdraw-no-reason"),
                ("0123456789", 1, "가" * 201, "헤드", "event.withdraw-reason-too-long"),
                ("0123456789", 1, "x", " ", "event.judge-needed")):
            with pytest.raises(EventError) as exc:
                store.withdraw_registration(kid, version, reason, judge)
            assert exc.value.code == code
        store.withdraw_registration("0123456789", 1, "가" * 200, "헤드")
        assert store.latest_registration("0123456789") is None
        assert store.registrations(latest_only=True) == []
        assert len(store.registrations()) == 2 and len(store.withdrawals()) == 2
        assert [a for _, _, a, _ in store.audit_log()].count("withdraw") == 2
        for sql in ("UPDATE registration_withdrawals SET reason = 'x'",
                    "DELETE FROM registration_withdrawals"):
            with pytest.raises(_raw_errors(), match="append-only"):
                store.backend.con.execute(sql)
        assert len(store.withdrawals()) == 2 and a1.version == 1
        b = _register(store, "0123456789", data=b"#main\n3\n")
        assert b.version == 3 and store.latest_registration("0123456789").version == 3


def test_withdraw_on_the_command_line_frees_the_original_for_the_right_player(
        cli_env, event_target, monkeypatch):
    monkeypatch.setenv("DECKSHEET_EVENT", event_target)
    monkeypatch.delenv("DECKSHEET_JUDGE", raising=False)
    assert run("event", "init", event_target, "--name", "샘플", "--date", "2026-07-12"
               ).exit_code == 0
    sheet = str(SAMPLE_DECKS / "legal.ydk")
    assert run("register", sheet, "--player", "0000000001", "--json").exit_code == 0
    r = run("register", sheet, "--player", "0000000002", "--json")
    assert r.exit_code != 0  # the same original on a second player asks for a decision
    with open_event(event_target, readonly=True) as store:
        assert store.latest_registration("0000000002") is None
    r = run("event", "withdraw", "0000000001", "1", "--reason", "다른 선수의 시트", "--json")
    assert r.exit_code == 2 and "Traceback" not in r.output  # no judge: refused
    r = run("event", "withdraw", "0000000001", "1", "--reason", "다른 선수의 시트",
            "--judge", "헤드", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert (data["player"], data["version"], data["current_version"]) == ("0000000001", 1, None)
    assert (data["withdrawn"]["reason"], data["withdrawn"]["judge"]) == ("다른 선수의 시트", "헤드")
    r = run("event", "withdraw", "0000000001", "1", "--reason", "x", "--judge", "헤드")
    assert r.exit_code == 2 and "already withdrawn" in r.output
    r = run("event", "withdraw", "0000000001", "7", "--reason", "x", "--judge", "헤드")
    assert r.exit_code == 2 and "no registration version 7" in r.output
    r = run("register", sheet, "--player", "0000000002", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["version"] == 1
    r = run("event", "status", "0000000001", "--json")
    status = json.loads(r.stdout)
    assert [v.get("withdrawn") is not None for v in status["versions"]] == [True]


def _refusal(call, *args, **kw) -> EventError:
    with pytest.raises(EventError) as exc:
        call(*args, **kw)
    return exc.value


def test_every_refusal_is_the_same_coded_error_on_both_stores(event_target):
    """The record's rules are written once: what SQLite refuses with a code, PostgreSQL refuses
    with the same code and parameters, so the station shows the same Korean line (never the
    fallback 「대회 기록이 요청을 거절했습니다」)."""
    from card_db.messages import ko
    fallback = ko.MESSAGES["event.refused"]
    create_event(event_target, "대회", DAY).close()
    seen = []
    with open_event(event_target, readonly=True) as store:
        seen.append(_refusal(store.store_file, b"x"))
        seen.append(_refusal(store.add_decisions, [ReviewDecision(1, "main", 1, "x", "keep")]))
        seen.append(_refusal(store.withdraw_registration, "0123456789", 1, "x", "헤드"))
    assert [e.code for e in seen] == ["event.read-only"] * 3
    assert seen[0].params == {"path": store.location}
    with open_event(event_target) as store:
        reg = _register(store, "0123456789")
        missing = "f" * 64
        seen = [_refusal(store.add_registration, "0123456789", None, {}, missing, None, True,
                         [], None),
                _refusal(store.add_deck_check, "0123456789", 1, reg.id, "full", True, missing,
                         {}, {}, []),
                _refusal(store.add_registration, None, None, {}, reg.file_sha256, None, True,
                         [], None),
                _refusal(store.add_amendment, 999, "void", "착오", "헤드"),
                _refusal(store.add_amendment, 999, "void", "  ", "헤드"),
                _refusal(store.withdraw_registration, "0123456789", 9, "착오", "헤드")]
        assert [e.code for e in seen] == ["event.file-missing", "event.file-missing",
                                          "event.no-id", "event.no-infraction",
                                          "event.void-needs-reason", "event.no-version"]
        assert seen[0].params["sha"] == "f" * 12 and seen[3].params == {"id": 999}
        for e in seen:
            assert e.render("ko") != fallback and re.search("[가-힣]", e.render("ko")), e.code
        assert len(store.registrations()) == 1 and store.infractions() == []


def test_a_database_refusal_is_one_coded_line(event_target):
    """What the database itself refuses (a trigger of the schema, a lost connection) reaches
    the caller as `event.write-refused` / `event.database-error` naming the event."""
    with create_event(event_target, "대회", DAY) as store:
        reg = _register(store, "0123456789")
        # A row with the same id written behind the record's back: the schema refuses the next.
        with store.backend.transaction():
            store.backend.insert("review_decisions", {
                "id": 7, "registration_id": reg.id, "section": "main", "line": 1, "read": "x",
                "action": "keep", "created_at": "x"})
        err = _refusal(store.load_records, "review_decisions", [dict(
            store.record_rows("review_decisions")[0], line=2)])
        assert err.code == "event.write-refused" and err.params["location"] == store.location
        assert "저장되지 않았습니다" in err.render("ko")
        assert len(store.decisions(reg.id)) == 1


def test_sheet_identity_and_deck_check_voids_are_records_on_both_stores(event_target):
    """Issue 36: whose sheet a version is and a voided deck check are rows of their own
    (migration steps 0006 / pg-0008), append-only, refused the same way on both stores."""
    with create_event(event_target, "대회", DAY) as store:
        _register(store, "0123456789", deck={"player": {"konami_id": "0123456789"}})
        _register(store, "1111111111", data=b"#main\n2\n",
                  deck={"player": {"konami_id": "2222222222"}})
        assert store.latest_registration("1111111111").identity.state == "other-id"
        with pytest.raises(EventError) as exc:  # the plain confirmation: refused
            store.confirm_sheet("1111111111", 1, "헤드", "page")
        assert exc.value.code == "event.sheet-id-not-acknowledged"
        with pytest.raises(EventError) as exc:  # naming another ID than the sheet's
            store.confirm_sheet("1111111111", 1, "헤드", "page", "3333333333")
        assert exc.value.code == "event.sheet-id-not-acknowledged"
        c = store.confirm_sheet("1111111111", 1, "헤드", "page-other-id", "2222222222")
        assert (c.kind, c.sheet_id, c.judge) == ("other-id", "2222222222", "헤드")
        ident = store.latest_registration("1111111111").identity
        assert (ident.state, ident.judge) == ("other-id-confirmed", "헤드")
        store.confirm_sheet("0123456789", 1, "헤드", "page")
        assert store.latest_registration("0123456789").identity.state == "confirmed"
        reg = store.latest_registration("0123456789")
        check, (inf,) = store.add_deck_check(
            "0123456789", 2, reg.id, "between-games", False, None, {}, {"verdict": "불일치"},
            [NewInfraction("DECKLIST_MISMATCH", "GAME_LOSS", "덱 리스트대로 수정한다.")], "헤드")
        clean, _ = store.add_deck_check("0123456789", 3, reg.id, "start-of-match", True, None,
                                        {}, {"verdict": "일치"}, [], "헤드")
        voided = store.void_deck_check(check.id, "  다른 덱을 봄 ", "헤드")
        assert voided.void.reason == "다른 덱을 봄" and voided.voided
        assert store.infraction(inf.id).status == "voided"  # its penalty goes with it
        assert store.deck_check(clean.id).void is None
        for bad, code in (((check.id, "x", "헤드"), "event.deck-check-already-void"),
                          ((999, "x", "헤드"), "event.no-deck-check"),
                          ((clean.id, " ", "헤드"), "event.void-needs-reason"),
                          ((clean.id, "x", " "), "event.judge-needed")):
            with pytest.raises(EventError) as exc:
                store.void_deck_check(*bad)
            assert exc.value.code == code
        # a deck check against a version withdrawn meanwhile: refused under the write lock
        store.withdraw_registration("0123456789", 1, "잘못", "헤드")
        with pytest.raises(EventError) as exc:
            store.add_deck_check("0123456789", 4, reg.id, "start-of-match", True, None, {},
                                 {}, [], "헤드")
        assert exc.value.code == "event.deckcheck-list-changed"
        for sql in ("UPDATE sheet_confirmations SET judge = 'x'", "DELETE FROM sheet_confirmations",
                    "UPDATE deck_check_voids SET reason = 'x'", "DELETE FROM deck_check_voids"):
            with pytest.raises(_raw_errors(), match="append-only"):
                store.backend.con.execute(sql)
        actions = [a for _, _, a, _ in store.audit_log()]
        assert actions.count("sheet-confirmed") == 2 and actions.count("deckcheck-void") == 1
