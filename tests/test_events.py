"""Event record on the project's own samples and demo card database (runs on a fresh clone)."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from scanner.cli import main
from scanner.errors import EventError
from scanner.event.stores import create_event, open_event
from scanner.event.records import ReviewDecision, normalise_konami_id
from scanner.event.flows import apply_decisions, decklist_from_json, flagged_items
from scanner.event.migrations import MIGRATIONS
from scanner.model import Decklist, Entry, ReviewFlag

REPO = Path(__file__).resolve().parent.parent
SAMPLE_DECKS = REPO / "samples" / "decks"


@pytest.fixture
def demo_env(demo_db, tmp_path, monkeypatch):
    """CLI environment on the demo db, a fresh event file, and a one-list regulation file
    (2026.7 with nothing limited: the event's extra bans still apply)."""
    lflist = tmp_path / "lflist.conf"
    lflist.write_text("#[2026.7]\n!2026.7\n", encoding="utf-8")
    monkeypatch.setenv("DECKSHEET_CARD_DB", str(demo_db.path))
    monkeypatch.setenv("DECKSHEET_LFLIST", str(lflist))
    monkeypatch.delenv("DECKSHEET_LIST", raising=False)
    event = tmp_path / "event.db"
    monkeypatch.setenv("DECKSHEET_EVENT", str(event))
    return event


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def test_konami_id_is_digits_only():
    assert normalise_konami_id(" 0123-456-789 ") == "0123456789"
    with pytest.raises(EventError):
        normalise_konami_id("12ab")
    with pytest.raises(EventError):
        normalise_konami_id("")


def test_store_records_migrations_and_is_append_only(tmp_path):
    import datetime as dt
    path = tmp_path / "e.db"
    with create_event(path, "대회", dt.date(2026, 7, 12)) as store:
        names = [r[0] for r in store.backend.con.execute("SELECT name FROM migrations ORDER BY id")]
        assert names == [m.name for m in MIGRATIONS]
        sha = store.store_file(b"#main\n14558127\n")
        reg = store.add_registration("0123456789", "홍길동", {"sections": {"main": []}}, sha,
                                     "a.ydk", True, [], "2026.7")
        assert reg.version == 1 and store.file_path(sha).read_bytes() == b"#main\n14558127\n"
        for sql in ("UPDATE registrations SET legal = 0", "DELETE FROM registrations",
                    "DELETE FROM audit_log"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                store.backend.con.execute(sql)
        assert store.backend.con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # Re-opening applies nothing new and keeps the record.
    with open_event(path) as store:
        assert [a for _, _, a, _ in store.audit_log()] == ["event-init", "register"]
        assert store.latest_registration("0123456789").player_name == "홍길동"
    with pytest.raises(EventError, match="already exists"):
        create_event(path, "again", dt.date(2026, 7, 12))


def test_open_refuses_what_is_not_an_event(tmp_path):
    other = tmp_path / "cards.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(EventError, match="not a decksheet event"):
        open_event(other)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(EventError, match="not a decksheet event"):
        open_event(text)
    with pytest.raises(EventError, match="no event file"):
        open_event(tmp_path / "missing.db")


def test_event_flow_on_samples(demo_env, tmp_path):
    event = demo_env
    r = run("event", "init", str(event), "--name", "샘플 대회", "--date", "2026-07-12")
    assert r.exit_code == 0, r.output
    assert run("event", "init", str(event), "--name", "x", "--date", "2026-07-12").exit_code == 2

    r = run("register", str(SAMPLE_DECKS / "legal.ydk"), "--player", "0000000001",
            "--name", "김철수", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert (out["player"], out["version"], out["legal"], out["needs_review"]) == \
        ("0000000001", 1, True, 0)

    r = run("register", str(SAMPLE_DECKS / "illegal.txt"), "--player", "0000000002", "--json")
    assert r.exit_code == 1
    bad = json.loads(r.stdout)
    assert bad["legal"] is False and {"MAIN_TOO_SMALL", "FORBIDDEN_CARD"} <= \
        {i["code"] for i in bad["infractions"]}

    # The same list from another player is an identical list for the audit.
    assert run("register", str(SAMPLE_DECKS / "registered.ydk"), "--player", "0000000003",
               "--json").exit_code == 0

    # Unreadable input and unknown player are refused, and nothing is stored.
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    files_before = sorted(p.name for p in Path(str(event) + ".files").iterdir())
    r = run("register", str(empty), "--player", "0000000004", "--json")
    assert r.exit_code == 2 and r.stdout == "" and "Traceback" not in r.output
    assert sorted(p.name for p in Path(str(event) + ".files").iterdir()) == files_before
    r = run("deckcheck", str(SAMPLE_DECKS / "observed.ydk"), "--player", "0000000099",
            "--round", "1", "--json")
    assert r.exit_code == 2 and "no registered decklist" in r.stderr

    # Deck check: the observed deck differs → DECKLIST_MISMATCH, game loss, recorded.
    r = run("deckcheck", str(SAMPLE_DECKS / "observed.ydk"), "--player", "0000000003",
            "--round", "3", "--judge", "이저지", "--json")
    assert r.exit_code == 1, r.output
    dc = json.loads(r.stdout)
    assert dc["match"] is False and dc["player"] == "0000000003" and dc["round"] == 3
    assert dc["recorded"] is True and dc["verdict"] == "불일치"
    issued = [(i["code"], i["penalty"], i["round"], i["judge"]) for i in dc["infractions"]]
    assert issued[0] == ("DECKLIST_MISMATCH", "GAME_LOSS", 3, "이저지")
    # The observed deck's own problems (here a 4th copy after the swap) are findings as well …
    assert all(i[2:] == (3, "이저지") and i[1] == "GAME_LOSS" for i in issued)
    assert dc["differences"]
    # … under one penalty for the one act, recorded once with every finding.
    assert dc["penalty"]["penalty"] == "GAME_LOSS" and dc["penalty"]["findings"] == \
        [i[0] for i in issued]
    assert len(dc["recorded_infractions"]) == 1
    assert [f["code"] for f in dc["recorded_infractions"][0]["findings"]] == [i[0] for i in issued]

    # The same original for a second player is refused unless meant.
    r = run("register", str(SAMPLE_DECKS / "legal.ydk"), "--player", "0000000002", "--json")
    assert r.exit_code == 2 and "--allow-duplicate" in r.stderr
    # Resubmitting makes version 2; version 1 is kept.
    r = run("register", str(SAMPLE_DECKS / "legal.ydk"), "--player", "0000000002", "--json",
            "--allow-duplicate")
    assert json.loads(r.stdout)["version"] == 2 and r.exit_code == 0
    with open_event(event) as store:
        assert [g.version for g in store.registrations() if g.konami_id == "0000000002"] == [1, 2]
        assert not store.registration("0000000002", 1).legal

    out_dir = tmp_path / "report"
    r = run("audit", "--out", str(out_dir), "--json", "--workers", "1")
    assert r.exit_code == 1, r.output
    audit = json.loads(r.stdout)
    assert audit["registrations"] == 3 and audit["versions"] == 4
    assert audit["illegal"] == [] and audit["needs_review"] == []
    assert (audit["deck_checks"], audit["infractions"]) == (1, 1)
    assert audit["duplicates"] == [["0000000001", "0000000002", "0000000003"]]
    page = (out_dir / "report.html").read_text(encoding="utf-8")
    assert "00******03" in page and "0000000003" not in page
    assert "덱 리스트와 덱이 다름" in page and "DECKLIST_MISMATCH" not in page  # Korean labels
    csv = (out_dir / "report.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(csv) == 1 + 4 and csv[1].startswith("00******01,김철수,1,True")
    assert "0000000001" not in "\n".join(csv)
    from openpyxl import load_workbook
    wb = load_workbook(out_dir / "report.xlsx")
    assert wb.sheetnames == ["등록", "줄", "덱 체크", "위반", "확인 결정"]  # judges read it
    assert [c.value for c in wb["등록"][1]][:3] == ["코나미 ID", "이름", "버전"]
    assert not any("0000000003" in str(c.value) for ws in wb for row in ws.iter_rows()
                   for c in row)

    r = run("export", "--out", str(tmp_path / "lists"))
    assert r.exit_code == 0, r.output
    assert (tmp_path / "lists" / "0000000002-v2.ydk").read_text() == \
        (tmp_path / "lists" / "0000000001-v1.ydk").read_text()
    assert (tmp_path / "lists" / "decklists.csv").is_file()
    assert (tmp_path / "lists" / "decklists.xlsx").is_file()


def test_review_walk_stores_decisions_and_clears_the_flag(demo_env, demo_db, tmp_path):
    event = demo_env
    assert run("event", "init", str(event), "--name", "리뷰", "--date", "2026-07-12").exit_code == 0
    # A sample list with one card name mistyped: that line must be flagged.
    lines = (SAMPLE_DECKS / "legal.ydk").read_text(encoding="utf-8").splitlines()
    ids = [int(x) for x in lines if x.strip().isdigit()]
    first = demo_db.get(ids[0])
    text = "\n".join(f"1 {demo_db.get(i).name}" for i in ids[1:40])
    typo = first.name[:-1] + "ㅋ" + "!!"
    deck_file = tmp_path / "typo.txt"
    deck_file.write_text(f"메인 덱\n1 {typo}\n{text}\n", encoding="utf-8")
    r = run("register", str(deck_file), "--player", "0000000007", "--json")
    reg = json.loads(r.stdout)
    assert r.exit_code == 1 and reg["needs_review"] >= 1

    with open_event(event) as store:
        current = store.latest_registration("0000000007")
        items = flagged_items(decklist_from_json(current.decklist_json))
        assert items and items[0][:2] == ("main", 1)
    # Answer: type the right name, count 1; skip anything else.
    answers = f"{first.name}\n1\n" + "s\n" * (len(items) - 1)
    r = run("review", "--player", "0000000007", "--judge", "박저지", input=answers)
    with open_event(event) as store:
        current = store.latest_registration("0000000007")
        decisions = store.decisions(current.id)
        assert decisions[0].action == "choose" and decisions[0].card_id == first.card_id
        assert decisions[0].judge == "박저지"
        fixed = apply_decisions(decklist_from_json(current.decklist_json), decisions, demo_db)
        assert fixed.sections["main"][0].card_id == first.card_id
        assert not fixed.sections["main"][0].needs_review
        # The stored read is unchanged: decisions sit on top of it.
        assert store.latest_registration("0000000007").decklist_json == current.decklist_json
    assert r.exit_code == (1 if len(items) > 1 else 0), r.output


def test_commands_without_an_event_are_refused(demo_env, monkeypatch):
    monkeypatch.delenv("DECKSHEET_EVENT")
    r = run("register", str(SAMPLE_DECKS / "legal.ydk"), "--player", "0000000001")
    assert r.exit_code == 2 and "no event" in r.stderr
    r = run("audit", "--out", "x")
    assert r.exit_code == 2 and "no event" in r.stderr


def test_audit_reports_a_tampered_original(demo_env, tmp_path):
    event = demo_env
    run("event", "init", str(event), "--name", "무결성", "--date", "2026-07-12")
    r = run("register", str(SAMPLE_DECKS / "legal.ydk"), "--player", "0000000001", "--json")
    sha = json.loads(r.stdout)["sha256"]
    r = run("audit", "--out", str(tmp_path / "a"), "--json", "--workers", "1")
    assert r.exit_code == 0 and json.loads(r.stdout)["problems"] == {}
    stored = Path(str(event) + ".files") / sha
    stored.write_text("#main\n")  # someone edits the kept original
    r = run("audit", "--out", str(tmp_path / "b"), "--json", "--workers", "1")
    assert r.exit_code == 1
    problems = json.loads(r.stdout)["problems"]["0000000001"]
    assert problems and problems[0].startswith("original-changed")
    stored.unlink()
    r = run("audit", "--out", str(tmp_path / "c"), "--json", "--workers", "1")
    assert json.loads(r.stdout)["problems"]["0000000001"][0].startswith("original-missing")
    # A report folder that is a file is refused with one line.
    (tmp_path / "file").write_text("x")
    r = run("audit", "--out", str(tmp_path / "file" / "sub"), "--json", "--workers", "1")
    assert r.exit_code == 2 and "cannot write the report" in r.stderr


def test_decisions_settle_a_count_and_the_printed_total(demo_db):
    cards = [c for c in demo_db.cards.values() if not c.is_extra_deck][:2]
    deck = Decklist(printed_totals={"main": 4, "extra": None, "side": None})
    deck.sections["main"] = [
        Entry(cards[0].card_id, cards[0].name, 3, 1.0, False, f"{cards[0].name} 3"),
        Entry(cards[1].card_id, cards[1].name, 2, 0.4, True, f"{cards[1].name} 2?",
              reasons=["count-unclear"])]
    deck.review = [ReviewFlag("main", "count-unclear", line=2, card_id=cards[1].card_id),
                   ReviewFlag("main", "total-mismatch", "printed total 4 ≠ sum of lines 5")]
    assert deck.needs_review == 2
    wrong_read = ReviewDecision(1, "main", 2, "something else", "choose", cards[1].card_id, 1)
    assert apply_decisions(deck, [wrong_read], demo_db).needs_review == 2  # stale: not applied
    fixed = apply_decisions(deck, [ReviewDecision(1, "main", 2, deck.sections["main"][1].read,
                                                  "choose", cards[1].card_id, 1)], demo_db)
    assert fixed.needs_review == 0 and fixed.totals()["main"] == 4 and fixed.review == []
    assert deck.sections["main"][1].count == 2  # the original is untouched
    kept = apply_decisions(deck, [ReviewDecision(1, "main", 2, deck.sections["main"][1].read,
                                                 "keep"),
                                  ReviewDecision(1, "main", None, "total-mismatch", "keep")],
                           demo_db)
    assert kept.needs_review == 0 and kept.sections["main"][1].count == 2


def test_every_event_command_has_help():
    for cmd in (["event", "init"], ["event", "info"], ["register"], ["deckcheck"], ["audit"],
                ["review"], ["export"]):
        r = run(*cmd, "--help")
        assert r.exit_code == 0 and len(r.output) > 100, cmd


def test_a_file_with_no_card_is_not_registered(demo_env, tmp_path):
    event = demo_env
    run("event", "init", str(event), "--name", "x", "--date", "2026-07-12")
    notes = tmp_path / "notes.txt"
    notes.write_text("점심 메뉴\n김밥 2\n라면 1\n", encoding="utf-8")
    r = run("register", str(notes), "--player", "0000000001", "--json")
    assert r.exit_code == 2 and "not a decklist" in r.stderr
    with open_event(event) as store:
        assert store.registrations() == [] and list(store.backend.files_dir.iterdir()) == []
