"""Deck checks and penalties a judge can stand behind (issue 13), and the event record's
guards (issue 15 #3, #8, #9, #11, #18, #19), on the shipped samples and demo database."""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from scanner.cli import main
from scanner.errors import EventError
from scanner.event import flows
from scanner.event.context import EventContext
from scanner.event.flows import (deck_check, deck_check_decklist, event_limits, player_status,
                                 record_review_decision, register_input, void_infraction)
from scanner.event.migrations import MIGRATIONS
from scanner.event.record import EventRecord
from scanner.event.stores import create_event, open_event
from scanner.event.records import clean_name, normalise_konami_id
from scanner.read import load_decklist

REPO = Path(__file__).resolve().parent.parent
DECKS = REPO / "samples" / "decks"
SHEETS = REPO / "samples" / "sheets"


@pytest.fixture
def env(demo_db, tmp_path, monkeypatch):
    lflist = tmp_path / "lflist.conf"
    lflist.write_text("#[2026.7]\n!2026.7\n", encoding="utf-8")
    for var in ("DECKSHEET_LIST", "DECKSHEET_JUDGE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("DECKSHEET_CARD_DB", str(demo_db.path))
    monkeypatch.setenv("DECKSHEET_LFLIST", str(lflist))
    event = tmp_path / "event.db"
    monkeypatch.setenv("DECKSHEET_EVENT", str(event))
    with create_event(event, "테스트 대회", dt.date(2026, 7, 12)):
        pass
    return event


@pytest.fixture
def store(env, demo_db):
    with open_event(env) as s:
        yield s


@pytest.fixture
def limits(store, demo_db, tmp_path):
    return event_limits(store.event(), demo_db, os.environ["DECKSHEET_LFLIST"])


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def typed(deck, names: dict[int, str] | None = None, drop_spaces: bool = False) -> str:
    """A typed observed list of `deck`: names as given (short names), spaces dropped."""
    out = []
    titles = {"main": "메인", "extra": "엑스트라", "side": "사이드"}
    for s in ("main", "extra", "side"):
        out.append(titles[s])
        for e in deck.sections[s]:
            name = (names or {}).get(e.card_id, e.name)
            if drop_spaces:
                name = name.replace(" ", "")
            out.append(f"{name} {e.count}")
    return "\n".join(out) + "\n"


def counts(store: EventRecord) -> tuple[int, int]:
    return len(store.deck_checks()), len(store.infractions())


# ---------------------------------------------------------------- the registered list as vocabulary


def test_typed_short_names_reconcile_with_no_review(store, demo_db, limits, tmp_path):
    register_input(EventContext(store, demo_db, limits),
                   str(DECKS / "registered.ydk"), "0000000001")
    reg = load_decklist(DECKS / "registered.ydk", demo_db)
    short = {14558127: "우라라", 97268402: "뵐러", 27204311: "니비루", 89631139: "백룡",
             10045474: "무한포영", 44508094: "스타더스트", 73580471: "블랙로즈"}
    f = tmp_path / "typed.txt"
    f.write_text(typed(reg, short, drop_spaces=True), encoding="utf-8")
    res = deck_check(EventContext(store, demo_db, limits), str(f), "0000000001", 1)
    obs = res.observed
    assert obs.needs_review == 0, [(e.read, e.reasons) for s in obs.sections.values() for e in s
                                   if e.needs_review]
    assert res.recorded and res.verdict == "일치" and res.compare_json["differences"] == []
    assert counts(store) == (1, 0)


def test_one_changed_card_is_named_exactly(store, demo_db, limits, tmp_path):
    register_input(EventContext(store, demo_db, limits),
                   str(DECKS / "registered.ydk"), "0000000001")
    reg = load_decklist(DECKS / "registered.ydk", demo_db)
    text = typed(reg, {14558127: "우라라"}).replace("무한포영 3", "무한포영 2\n명왕결계파 1")
    f = tmp_path / "typed.txt"
    f.write_text(text, encoding="utf-8")
    res = deck_check(EventContext(store, demo_db, limits), str(f), "0000000001", 2)
    diffs = {(d["section"], d["card_id"], d["registered"], d["observed"])
             for d in res.compare_json["differences"]}
    assert diffs == {("main", 10045474, 3, 2), ("main", 54693926, 0, 1)}
    assert res.recorded and res.verdict == "불일치"


def test_a_part_of_two_registered_names_is_flagged_not_guessed(store, demo_db, limits, tmp_path):
    register_input(EventContext(store, demo_db, limits),
                   str(DECKS / "registered.ydk"), "0000000001")
    reg = load_decklist(DECKS / "registered.ydk", demo_db)
    # "드래곤" is part of 블랙 로즈 드래곤, 스타더스트 드래곤 and 사이버 드래곤.
    text = typed(reg).replace("스타더스트 드래곤 3", "드래곤 3")
    f = tmp_path / "typed.txt"
    f.write_text(text, encoding="utf-8")
    res = deck_check(EventContext(store, demo_db, limits), str(f), "0000000001", 1)
    flagged = [c for c in res.to_confirm if c["list"] == "observed"]
    assert len(flagged) == 1 and flagged[0]["card_id"] is None
    assert "ambiguous-name" in flagged[0]["reasons"] and len(flagged[0]["candidates"]) >= 2
    assert not res.recorded and counts(store) == (0, 0)


# ---------------------------------------------------------------- nothing recorded until certain


def test_nothing_is_recorded_from_unconfirmed_lines(env, store, demo_db, limits, tmp_path):
    register_input(EventContext(store, demo_db, limits),
                   str(DECKS / "registered.ydk"), "0000000001")
    reg = load_decklist(DECKS / "registered.ydk", demo_db)
    # A line a judge must look at: a name that fits no registered card and no card exactly.
    text = typed(reg).replace("유벨 3", "유벨 2\n유밸드래곤 1")
    f = tmp_path / "typed.txt"
    f.write_text(text, encoding="utf-8")
    r = run("deckcheck", f, "--player", "0000000001", "--round", "4", "--json")
    out = json.loads(r.stdout)
    assert r.exit_code == 1 and out["recorded"] is False and out["to_confirm"]
    assert out["verdict"] == "확인 필요" and out["deck_check_id"] is None
    assert counts(store) == (0, 0)
    files = sorted(p.name for p in store.backend.files_dir.iterdir())
    # --confirm is recorded in a judge's name only.
    r = run("deckcheck", f, "--player", "0000000001", "--round", "4", "--confirm", "--json")
    assert r.exit_code == 2 and "--judge" in r.stderr and counts(store) == (0, 0)
    assert sorted(p.name for p in store.backend.files_dir.iterdir()) == files
    r = run("deckcheck", f, "--player", "0000000001", "--round", "4", "--confirm",
            "--judge", "박저지", "--json")
    out = json.loads(r.stdout)
    assert out["recorded"] is True and out["judge"] == "박저지"
    assert counts(store)[0] == 1 and store.deck_checks()[0].confirmed


def test_a_registration_with_an_unresolved_line_never_records_a_false_mismatch(
        store, demo_db, limits, tmp_path):
    """Issue 15 #8: identical decks, the registration still has a line in doubt."""
    reg = load_decklist(DECKS / "registered.ydk", demo_db)
    text = typed(reg).replace("유벨 3", "유벨ㅋㅋ 3")
    f = tmp_path / "sheet.txt"
    f.write_text(text, encoding="utf-8")
    assert register_input(EventContext(store, demo_db, limits),
                          str(f), "0000000002").registration.needs_review
    for confirm in (False, True):
        res = deck_check(EventContext(store, demo_db, limits, "김저지"),
                         str(DECKS / "registered.ydk"), "0000000002", 1,
                         confirm=confirm)
        assert not res.recorded and res.verdict == "확인 필요" and "review" in res.not_recorded
        assert "UNRESOLVED_LINE" not in [i.code for i in store.infractions()]
    assert counts(store) == (0, 0)


# ---------------------------------------------------------------- one act, one penalty; timing


def test_between_games_one_penalty_applies_to_the_next_duel(store, demo_db, limits, tmp_path):
    register_input(EventContext(store, demo_db, limits),
                   str(DECKS / "registered.ydk"), "0000000001")
    reg = load_decklist(DECKS / "registered.ydk", demo_db)
    # A card moved from main to side between games: main 39 (size changed, main < 40).
    text = typed(reg).replace("유벨 3", "유벨 2").replace("사이드\n", "사이드\n유벨 1\n")
    f = tmp_path / "obs.txt"
    f.write_text(text, encoding="utf-8")
    res = deck_check(EventContext(store, demo_db, limits, "이저지"),
                     str(f), "0000000001", 3, between_games=True)
    data = res.to_json()
    assert data["penalty"]["penalty"] == "GAME_LOSS" and data["penalty"]["applies"] == "next-duel"
    assert "다음 듀얼에 적용한다" in data["penalty"]["timing_rule"]
    assert data["penalty"]["findings"] == ["SIDE_SIZE_CHANGED", "MAIN_TOO_SMALL"]
    assert len(store.infractions()) == 1  # one act: one penalty, both findings under it
    assert [f["code"] for f in store.infractions()[0].findings] == ["SIDE_SIZE_CHANGED",
                                                                    "MAIN_TOO_SMALL"]
    r = run("deckcheck", f, "--player", "0000000001", "--round", "3", "--between-games",
            "--preview")
    assert r.stdout.count("적용할 벌칙") == 1 and "다음 듀얼에 적용" in r.stdout
    assert "\n     벌칙:" not in r.stdout and "기록 안 됨" in r.stdout
    assert len(store.deck_checks()) == 1  # the preview stored nothing


def test_side_swap_before_the_first_duel(store, demo_db, limits, tmp_path):
    register_input(EventContext(store, demo_db, limits),
                   str(DECKS / "registered.ydk"), "0000000001")
    reg = load_decklist(DECKS / "registered.ydk", demo_db)
    text = typed(reg).replace("유벨 3", "유벨 2\n명왕결계파 1").replace("명왕결계파 3", "명왕결계파 2\n유벨 1")
    f = tmp_path / "obs.txt"
    f.write_text(text, encoding="utf-8")
    res = deck_check(EventContext(store, demo_db, limits), str(f), "0000000001", 1, preview=True)
    codes = [i["code"] for i in res.compare_json["infractions"]]
    assert codes == ["SIDE_SWAP_BEFORE_FIRST_DUEL"]
    assert "1듀얼째" in res.compare_json["infractions"][0]["rule"]
    assert res.compare_json["penalty"]["applies"] == "current-duel"
    assert not res.recorded


def test_check_in_is_not_a_penalty(env):
    r = run("register", DECKS / "illegal.txt", "--player", "0000000009", "--json")
    data = json.loads(r.stdout)
    assert data["check_in"] is True and data["verdict"] == "부적합"
    assert all(i["penalty_applies"] == "if-found-during-event" for i in data["infractions"])
    r = run("register", DECKS / "illegal.txt", "--player", "0000000008", "--allow-duplicate")
    assert "대회 중 발견 시 벌칙" in r.stdout and "\n     벌칙:" not in r.stdout


# ---------------------------------------------------------------- void, status, review


def test_void_shows_in_status_and_audit(env, store, demo_db, limits, tmp_path):
    register_input(EventContext(store, demo_db, limits),
                   str(DECKS / "registered.ydk"), "0000000003",
                   name="홍길동")
    res = deck_check(EventContext(store, demo_db, limits, "이저지"),
                     str(DECKS / "observed.ydk"), "0000000003", 2)
    (inf,) = res.issued
    with pytest.raises(EventError, match="reason"):
        void_infraction(store, inf.id, reason=" ", judge="이저지")
    with pytest.raises(EventError, match="judge"):
        void_infraction(store, inf.id, reason="wrong deck", judge=None)
    r = run("event", "void", inf.id, "--reason", "덱을 잘못 확인함", "--judge", "헤드저지")
    assert r.exit_code == 0, r.output
    st = player_status(EventContext(store, demo_db, limits), "홍길동").to_json()
    assert st["player"] == "0000000003" and st["verdict"] == "적합"
    assert st["infractions"][0]["status"] == "voided" and st["penalties_in_force"] == []
    assert st["infractions"][0]["amendments"][0]["reason"] == "덱을 잘못 확인함"
    r = run("event", "status", "0000000003")
    assert "무효" in r.stdout and "덱을 잘못 확인함" in r.stdout and "판정: 적합" in r.stdout
    out = tmp_path / "audit"
    r = run("audit", "--out", out, "--json", "--workers", "1")
    audit = json.loads(r.stdout)
    assert audit["infractions"] == 0 and audit["infractions_voided"] == [inf.id]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "무효" in page and "덱을 잘못 확인함" in page
    # Amend instead: the record keeps both rows.
    void_infraction(store, inf.id, reason="재확인", judge="헤드저지", new_penalty="WARNING")
    assert store.infraction(inf.id).effective_penalty == "WARNING"
    assert len(store.amendments()) == 2
    with pytest.raises(sqlite3.IntegrityError):
        store.backend.con.execute("DELETE FROM infraction_amendments")


def test_review_decision_keeps_before_and_after_and_the_verdict(store, demo_db, limits,
                                                                 tmp_path):
    f = tmp_path / "sheet.txt"
    reg = load_decklist(DECKS / "registered.ydk", demo_db)
    f.write_text(typed(reg).replace("유벨 3", "유벨ㅋㅋ 3"), encoding="utf-8")
    register_input(EventContext(store, demo_db, limits), str(f), "0000000002")
    st = player_status(EventContext(store, demo_db, limits), "0000000002")
    assert st.verdict == "확인 필요"
    line = next(i for i, e in enumerate(st.decklist.sections["main"], 1) if e.needs_review)
    yubel = demo_db.by_name("유벨")
    res = record_review_decision(EventContext(store, demo_db, limits, "박저지"), "0000000002",
                                 "main", line, "choose", card_id=yubel.card_id, count=3)
    assert res.verdict == "적합" and res.needs_review == 0
    d = store.decisions()[-1]
    assert d.judge == "박저지" and d.created_at and d.after["card_id"] == yubel.card_id
    assert d.before["needs_review"] is True and d.after["needs_review"] is False
    # Now the deck check is certain and records.
    ok = deck_check(EventContext(store, demo_db, limits),
                    str(DECKS / "registered.ydk"), "0000000002", 1)
    assert ok.recorded and ok.verdict == "일치"


def test_deck_check_decklist_for_the_station(store, demo_db, limits):
    register_input(EventContext(store, demo_db, limits),
                   str(DECKS / "registered.ydk"), "0000000001")
    observed = load_decklist(DECKS / "registered.ydk", demo_db)
    observed.sections["main"][0].count -= 1
    preview = deck_check_decklist(EventContext(store, demo_db, limits),
                                  observed, "0000000001", 5, preview=True)
    assert not preview.recorded and preview.verdict == "불일치"
    done = deck_check_decklist(EventContext(store, demo_db, limits, "저지"),
                               observed, "0000000001", 5)
    assert done.recorded and done.check.observed_sha256 is None and len(done.issued) == 1
    assert json.loads(json.dumps(done.to_json()))["recorded"] is True


# ---------------------------------------------------------------- registration guard rails


def test_konami_ids_are_ten_digits_after_nfkc():
    assert normalise_konami_id("０１２３４５６７８９") == "0123456789"  # issue 15 #11
    assert normalise_konami_id(" 0123-456-789 ") == "0123456789"
    for bad in ("12345", "012345678901", "١٢٣٤٥٦٧٨٩٠", "12ab345678", ""):
        with pytest.raises(EventError):
            normalise_konami_id(bad)


def test_register_guard_rails(env, store, demo_db, limits, tmp_path):
    r = run("register", DECKS / "legal.ydk", "--player", "12345", "--json")
    assert r.exit_code == 2 and "10" in r.stderr and "--walk-in" in r.stderr
    r = run("register", DECKS / "legal.ydk", "--player", "０１２３４５６７８９", "--json")
    assert json.loads(r.stdout)["player"] == "0123456789"
    # No --player and no ID on a .ydk: refused, asking for --player.
    r = run("register", DECKS / "registered.ydk", "--json")
    assert r.exit_code == 2 and "--player" in r.stderr
    # Walk-ins get numbers, never the same one.
    ids = [json.loads(run("register", p, "--walk-in", "--name", n, "--json",
                          "--allow-duplicate").stdout)["player"]
           for p, n in ((DECKS / "registered.ydk", "가"), (DECKS / "observed.ydk", "나"))]
    assert ids == ["W0001", "W0002"]
    # A one-card list as version 2 asks for --replace; so does a list of another deck.
    one = tmp_path / "one.txt"
    one.write_text("하루 우라라 1\n", encoding="utf-8")
    r = run("register", one, "--player", "0123456789", "--json")
    assert r.exit_code == 2 and "--replace" in r.stderr
    assert store.latest_registration("0123456789").version == 1
    r = run("register", one, "--player", "0123456789", "--replace", "--json")
    assert json.loads(r.stdout)["version"] == 2
    # The same file for a second player is refused unless meant.
    r = run("register", DECKS / "legal.ydk", "--player", "0000000077", "--json")
    assert r.exit_code == 2 and "--allow-duplicate" in r.stderr


def test_id_and_name_from_the_sheet(env, demo_db):
    deck = load_decklist(SHEETS / "db-hero-square.pdf", demo_db)
    r = run("register", SHEETS / "db-hero-square.pdf", "--json")
    if flows.sheet_konami_id(deck) is None:
        assert r.exit_code == 2 and "--player" in r.stderr
    else:
        out = json.loads(r.stdout)
        assert out["player"] == flows.sheet_konami_id(deck) and out["name"] == deck.player_name


def test_names_lose_invisible_characters():
    assert clean_name("홍\u200b길\u200d동\u202e ") == "홍길동"
    assert clean_name("Ｋｉｍ  Chul\tsu") == "Kim Chul su"


def test_round_out_of_range_is_one_line(env):
    run("register", DECKS / "registered.ydk", "--player", "0000000001")
    r = run("deckcheck", DECKS / "registered.ydk", "--player", "0000000001", "--round",
            "99999999999999999999")
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "round" in r.stderr and "Traceback" not in r.output


# ---------------------------------------------------------------- the record's protection


def test_the_record_cannot_be_rewritten(store, demo_db, limits):
    """Issue 15 #3: REPLACE INTO passes DELETE triggers; the event header was not guarded."""
    assert "0003-no-rewrite" in [m.name for m in MIGRATIONS]
    register_input(EventContext(store, demo_db, limits),
                   str(DECKS / "registered.ydk"), "0000000003")
    deck_check(EventContext(store, demo_db, limits, "x"),
               str(DECKS / "observed.ydk"), "0000000003", 2)
    (inf,) = store.infractions()
    con = store.backend.con
    for sql in (f"REPLACE INTO infractions (id, konami_id, code, penalty, remedy, created_at) "
                f"VALUES ({inf.id}, '0000000003', 'X', 'CAUTION', '', '')",
                f"INSERT OR REPLACE INTO infractions (id, konami_id, code, penalty, remedy, "
                f"created_at) VALUES ({inf.id}, '0000000003', 'X', 'CAUTION', '', '')",
                "REPLACE INTO audit_log (id, at, actor, action, detail) VALUES (1, '', '', 'x', '{}')",
                "REPLACE INTO registrations (konami_id, version, file_sha256, reader, decklist_json,"
                " legal, needs_review, infractions_json, created_at) VALUES ('0000000003', 1, 'x',"
                " 'x', '{}', 1, 0, '[]', '')",
                "UPDATE event SET date = '2020-01-01'", "UPDATE event SET list_name = 'x'",
                "DELETE FROM event", "DELETE FROM players",
                "UPDATE players SET konami_id = '9999999999'"):
        with pytest.raises(sqlite3.IntegrityError):
            con.execute(sql)
    assert store.infractions()[0].code == inf.code and store.event().date == dt.date(2026, 7, 12)
    con.execute("UPDATE players SET name = '새 이름' WHERE konami_id = '0000000003'")  # allowed


def test_a_sqlite_file_that_is_not_an_event_is_left_untouched(tmp_path):
    """Issue 15 #9: refused without switching it to WAL or writing anything."""
    cdb = tmp_path / "cards.cdb"
    con = sqlite3.connect(cdb)
    con.execute("CREATE TABLE datas (id INTEGER)")
    con.commit()
    con.close()
    before = (hashlib.sha256(cdb.read_bytes()).hexdigest(), cdb.stat().st_mtime_ns)
    for args in (["event", "info", "--event", cdb], ["event", "status", "1", "--event", cdb],
                 ["register", DECKS / "legal.ydk", "--player", "0000000001", "--event", cdb]):
        r = run(*args)
        assert r.exit_code == 2 and "not a decksheet event" in r.stderr
    assert (hashlib.sha256(cdb.read_bytes()).hexdigest(), cdb.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards.cdb"]
    assert sqlite3.connect(cdb).execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_an_event_from_a_newer_schema_is_not_written(env):
    con = sqlite3.connect(env)
    con.execute("INSERT INTO migrations (name, applied_at) VALUES ('9999-future', 'x')")
    con.commit()
    con.close()
    r = run("register", DECKS / "legal.ydk", "--player", "0000000001")
    assert r.exit_code == 2 and "newer decksheet" in r.stderr
    assert run("event", "info").exit_code == 0  # reading still works


def test_read_only_commands_on_a_write_protected_event(env, demo_db, tmp_path, monkeypatch):
    """Issue 15 #18: event info / status / export / audit write nothing to the event."""
    run("register", DECKS / "registered.ydk", "--player", "0000000003")
    run("deckcheck", DECKS / "observed.ydk", "--player", "0000000003", "--round", "1")
    media = tmp_path / "media"
    media.mkdir()
    shutil.copy(env, media / "event.db")
    shutil.copytree(str(env) + ".files", media / "event.db.files")
    ev = media / "event.db"

    def tree() -> dict:
        return {str(p): (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
                for p in sorted(media.rglob("*")) if p.is_file()}

    before = tree()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if mode & os.W_OK and
                        str(p).startswith(str(media)) else real_access(p, mode, **kw))
    for args in (["event", "info", "--event", ev, "--json"],
                 ["event", "status", "0000000003", "--event", ev, "--json"],
                 ["export", "--out", tmp_path / "x", "--event", ev],
                 ["audit", "--out", tmp_path / "a", "--event", ev, "--workers", "1"]):
        r = run(*args)
        assert r.exit_code in (0, 1) and "error" not in r.stderr, (args, r.output)
    assert tree() == before  # no -wal, no -shm, no log row, nothing
    with open_event(ev, readonly=True) as s:
        with pytest.raises(sqlite3.OperationalError):
            s.backend.con.execute("INSERT INTO audit_log (at, action, detail) VALUES ('', 'x', '{}')")


def test_deck_check_originals_are_covered_by_the_integrity_check(env, store, demo_db, limits):
    register_input(EventContext(store, demo_db, limits),
                   str(DECKS / "registered.ydk"), "0000000003")
    res = deck_check(EventContext(store, demo_db, limits),
                     str(DECKS / "observed.ydk"), "0000000003", 1)
    assert store.integrity() == []
    store.file_path(res.check.observed_sha256).write_bytes(b"edited")
    assert any(res.check.observed_sha256 in p for p in store.integrity())


def test_spreadsheet_cells_cannot_run(env, tmp_path):
    from openpyxl import load_workbook
    run("register", DECKS / "registered.ydk", "--player", "0000000005", "--name",
        "=HYPERLINK(\"http://x\",\"y\")")
    r = run("export", "--out", tmp_path / "x")
    assert r.exit_code == 0, r.output
    text = (tmp_path / "x" / "decklists.csv").read_text(encoding="utf-8-sig")
    assert "'=HYPERLINK" in text and ",=HYPERLINK" not in text
    wb = load_workbook(tmp_path / "x" / "decklists.xlsx")
    values = [c.value for ws in wb for row in ws.iter_rows() for c in row if c.value]
    assert any(str(v).startswith("'=HYPERLINK") for v in values)
    assert not any(str(v).startswith(("=", "+", "@")) for v in values)
    r = run("audit", "--out", tmp_path / "a", "--workers", "1")
    wb = load_workbook(tmp_path / "a" / "report.xlsx")
    assert not any("0000000005" in str(c.value) for ws in wb for row in ws.iter_rows() for c in row)


def test_an_older_event_file_is_read_as_it_is_and_migrated_on_write(tmp_path):
    from scanner.event.migrations import _split
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
                "applied_at TEXT NOT NULL)")
    for st in _split(MIGRATIONS[0].sql):
        con.execute(st)
    con.execute("INSERT INTO migrations (name, applied_at) VALUES ('0001-initial', 'x')")
    con.execute("INSERT INTO event (id, name, date, created_at) VALUES (1, '옛 대회', '2026-07-12', 'x')")
    con.execute("INSERT INTO players (konami_id, name, created_at) VALUES ('12345', '옛 선수', 'x')")
    con.execute("INSERT INTO infractions (konami_id, code, penalty, remedy, created_at) "
                "VALUES ('12345', 'DECKLIST_MISMATCH', 'GAME_LOSS', 'r', 'x')")
    con.commit()
    con.close()
    with open_event(path, readonly=True) as s:  # nothing written, old columns tolerated
        assert s.infractions()[0].status == "active" and s.amendments() == []
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM migrations").fetchone()[0] == 1
    with open_event(path) as s:  # a write opening brings it up to date
        assert [m.name for m in MIGRATIONS] == [r[0] for r in s.backend.con.execute(
            "SELECT name FROM migrations ORDER BY id")]
        void_infraction(s, 1, reason="옛 기록 정정", judge="헤드저지")
        assert s.infractions()[0].status == "voided"
        assert player_status(EventContext(s, None),
                             "12345").konami_id == "12345"  # legacy IDs still found


def test_read_only_commands_on_a_read_only_mount(env, tmp_path):
    """The same on a real read-only file system (a read-only bind mount; skipped where this
    user cannot mount)."""
    import subprocess
    run("register", DECKS / "registered.ydk", "--player", "0000000003")
    src, mnt = tmp_path / "src", tmp_path / "mnt"
    src.mkdir()
    mnt.mkdir()
    shutil.copy(env, src / "event.db")
    shutil.copytree(str(env) + ".files", src / "event.db.files")
    if os.geteuid() != 0 or subprocess.run(["mount", "--bind", src, mnt],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount here")
    try:
        if subprocess.run(["mount", "-o", "remount,bind,ro", mnt],
                          capture_output=True).returncode != 0:
            pytest.skip("cannot remount read-only here")
        ev = mnt / "event.db"
        for args in (["event", "info", "--event", ev], ["event", "status", "0000000003", "--event", ev],
                     ["export", "--out", tmp_path / "x", "--event", ev],
                     ["audit", "--out", tmp_path / "a", "--event", ev, "--workers", "1"]):
            r = run(*args)
            assert r.exit_code in (0, 1) and "error" not in r.stderr, (args, r.output)
        r = run("register", DECKS / "legal.ydk", "--player", "0000000004", "--event", ev)
        assert r.exit_code == 2 and "cannot be written" in r.stderr
    finally:
        subprocess.run(["umount", mnt], capture_output=True)


def test_register_and_deck_check_from_a_pipe(env, store):
    """`register -` reads standard input once (the original kept is what was piped)."""
    sent = (DECKS / "registered.ydk").read_bytes()
    res = run("register", "-", "--player", "1000000002", input=sent)
    assert res.exit_code == 0, res.output
    reg = store.latest_registration("1000000002")
    assert store.file_path(reg.file_sha256).read_bytes() == sent
    res = run("deckcheck", "-", "--player", "1000000002", "--round", "1",
              input=(DECKS / "observed.ydk").read_bytes())
    assert res.exit_code == 1 and "불일치" in res.stdout


def test_two_struck_rows_are_two_items_and_a_struck_row_can_be_restored(demo_db):
    """Keeping one struck row never settles another of the same column, and `choose` on a
    struck row puts it back (card and count) into the confirmed list."""
    from scanner.event.flows import apply_decisions, decision_for, flagged_items
    from scanner.model import ReviewFlag

    deck = load_decklist(DECKS / "registered.ydk", demo_db)
    first = deck.sections["main"][0]
    struck = [ReviewFlag("main", "struck-through",
                         f"몬스터 {n}: printed line struck through, left out of the deck: "
                         f"{first.name} [{first.card_id}] ×{n}") for n in (1, 2)]
    deck.review += struck
    total = deck.totals()["main"]
    items = [i for i in flagged_items(deck) if i[3] is not None]
    assert len({read for _, _, read, _ in items}) == 2  # one key each
    keep = decision_for(deck, 1, "main", None, "keep", reason="struck-through",
                        detail=struck[0].detail)
    after = apply_decisions(deck, [keep], demo_db)
    assert [r.detail for r in after.review if r.reason == "struck-through"] == [struck[1].detail]
    restore = decision_for(deck, 1, "main", None, "choose", first.card_id, 2, db=demo_db,
                           reason="struck-through", detail=struck[1].detail)
    after = apply_decisions(deck, [keep, restore], demo_db)
    assert not [r for r in after.review if r.reason == "struck-through"]
    assert after.totals()["main"] == total + 2
    assert after.sections["main"][-1].card_id == first.card_id
    assert not after.sections["main"][-1].needs_review
    with pytest.raises(EventError):  # a count the rules cannot hold is refused
        decision_for(deck, 1, "main", None, "choose", first.card_id, 4, db=demo_db,
                     reason="struck-through", detail=struck[1].detail)


@pytest.mark.slow
def test_a_player_name_read_by_ocr_is_registered_with_a_warning(store, demo_db, limits):
    """OCR can misread one syllable of a name with confidence; the judge is told to check it,
    unless the name was given."""
    photo = Path(__file__).resolve().parent.parent / "samples" / "photos" / "scan-01.pdf"
    read = load_decklist(photo, demo_db).player_name
    assert read, "the sample scan's header name should be read"
    got = register_input(EventContext(store, demo_db, limits), str(photo), "0000000005")
    assert got.registration.player_name == read
    assert any("read from the sheet by OCR" in w and read in w for w in got.warnings)
    given = register_input(EventContext(store, demo_db, limits),
                           str(photo), "0000000005", name="김철수", replace=True)
    assert given.registration.player_name == "김철수"
    assert not any("by OCR" in w for w in given.warnings)
