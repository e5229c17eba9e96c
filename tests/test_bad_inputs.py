"""Bad input through every command that reads input: one line on stderr, the right exit status,
no traceback, nothing half-written; or, for a readable file with bad lines, a review flag."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image
from pypdf import PdfReader, PdfWriter

from scanner.cli import main

REPO = Path(__file__).resolve().parent.parent
SHEET = REPO / "samples" / "sheets" / "db-hero-square.pdf"
DECKS = REPO / "samples" / "decks"
KONAMI_ID = "1234567890"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_refused(res, *, mentions: str | None = None) -> str:
    """Exit 2, nothing on stdout, exactly one `decksheet: error:` line; returns that line."""
    assert res.exit_code == 2, (res.exit_code, res.stdout, res.stderr)
    assert res.stdout == "", res.stdout
    assert "Traceback" not in res.stderr and res.exception is None or isinstance(
        res.exception, SystemExit)
    lines = [ln for ln in res.stderr.splitlines() if "DEMO card database" not in ln]
    assert len(lines) == 1 and lines[0].startswith("decksheet: error: "), res.stderr
    assert "internal error" not in lines[0], lines[0]
    if mentions:
        assert mentions in lines[0], lines[0]
    return lines[0]


# ---------------------------------------------------------------- the bad files

def _empty(d: Path) -> Path:
    (p := d / "empty.pdf").write_bytes(b"")
    return p


def _junk(d: Path) -> Path:
    (p := d / "junk.ydk").write_bytes(np.random.default_rng(7).bytes(6000))
    return p


def _truncated_pdf(d: Path) -> Path:
    data = SHEET.read_bytes()
    (p := d / "truncated.pdf").write_bytes(data[: len(data) * 2 // 5])
    return p


def _locked_pdf(d: Path) -> Path:
    writer = PdfWriter()
    for page in PdfReader(SHEET).pages:
        writer.add_page(page)
    writer.encrypt(user_password="secret", owner_password="owner")
    with open(p := d / "locked.pdf", "wb") as fh:
        writer.write(fh)
    return p


def _noise_photo(d: Path) -> Path:
    pixels = (np.random.default_rng(3).random((1100, 800, 3)) * 255).astype("uint8")
    Image.fromarray(pixels).save(p := d / "noise.jpg", quality=80)
    return p


def _gradient_photo(d: Path) -> Path:
    ramp = np.tile(np.linspace(30, 230, 900, dtype="uint8"), (1200, 1))
    Image.fromarray(ramp).save(p := d / "gradient.png")
    return p


def _folder(d: Path) -> Path:
    (p := d / "a-folder").mkdir()
    return p


def _missing(d: Path) -> Path:
    return d / "no-such-sheet.pdf"


def _bad_ydke(d: Path) -> Path:
    (p := d / "deck.ydke").write_text("ydke://@@not base64@@!!!\n", encoding="utf-8")
    return p


def _wrong_json(d: Path) -> Path:
    (p := d / "deck.json").write_text(json.dumps(
        {"schema": 1, "sections": {"main": [{"card_id": "abc", "count": "three"}]}}),
        encoding="utf-8")
    return p


BAD_FILES = {f.__name__.strip("_"): f for f in (
    _empty, _junk, _truncated_pdf, _locked_pdf, _noise_photo, _gradient_photo, _folder, _missing,
    _bad_ydke, _wrong_json)}


def _commands(bad: Path, tmp: Path) -> dict[str, list]:
    """Every command that reads a decklist, with `bad` in that place."""
    return {
        "scan": ["scan", bad, "--json", "--out", tmp / "scan-out"],
        "check": ["check", bad, "--json"],
        "compare-registered": ["compare", bad, DECKS / "registered.ydk", "--json"],
        "compare-observed": ["compare", DECKS / "registered.ydk", bad],
        "convert": ["convert", bad, "--to", "ydk", "-o", tmp / "converted.ydk"],
        "register": ["register", bad, "--player", "0000000002", "--event", tmp / "event.sqlite"],
        "deckcheck": ["deckcheck", bad, "--player", KONAMI_ID, "--round", "1", "--event",
                      tmp / "event.sqlite"],
    }


@pytest.fixture
def event_with_one_player(clean_env, tmp_path) -> Path:
    path = tmp_path / "event.sqlite"
    assert run("event", "init", path, "--name", "QA", "--date", "2026-07-12").exit_code == 0
    res = run("register", DECKS / "registered.ydk", "--player", KONAMI_ID, "--event", path)
    assert res.exit_code == 0, res.stderr
    return path


def _event_counts(path: Path) -> tuple[int, int]:
    res = run("event", "info", "--event", path, "--json")
    info = json.loads(res.stdout)
    return info["versions"], info["deck_checks"]


@pytest.mark.parametrize("kind", [pytest.param(k, marks=pytest.mark.slow) if k.endswith("_photo")
                                  else k for k in sorted(BAD_FILES)])  # photos: OCR, ~8 s each
def test_bad_file_is_refused_by_every_command(kind, event_with_one_player, tmp_path):
    bad = BAD_FILES[kind](tmp_path)
    before = _event_counts(event_with_one_player)
    for name, args in _commands(bad, tmp_path).items():
        line = assert_refused(run(*args))
        assert len(line) < 300, (name, line)
    # Nothing half-written: no scan output, no converted file, nothing stored in the event.
    assert not (tmp_path / "scan-out").exists() or not any((tmp_path / "scan-out").iterdir())
    assert not (tmp_path / "converted.ydk").exists()
    assert _event_counts(event_with_one_player) == before


def test_messages_say_what_is_wrong(clean_env, tmp_path):
    expect = {"empty": "empty", "locked_pdf": "password", "folder": "folder",
              "missing": "no-such-sheet.pdf", "truncated_pdf": "truncated.pdf",
              "noise_photo": "not a deck sheet", "bad_ydke": "ydke"}
    for kind, word in expect.items():
        line = assert_refused(run("scan", BAD_FILES[kind](tmp_path)))
        assert word in line, (kind, line)


# ---------------------------------------------------------------- readable files, bad lines

def test_unknown_passcode_is_flagged_then_a_review_item(clean_env, tmp_path):
    ydk = tmp_path / "deck.ydk"
    ydk.write_text("#main\n14558127\n99999999\n#extra\n!side\n", encoding="utf-8")
    res = run("scan", ydk, "--json")
    assert res.exit_code == 0
    obj = json.loads(res.stdout)
    (bad,) = [e for e in obj["sections"]["main"] if e["card_id"] != 14558127]
    assert bad["needs_review"] is True
    assert any(r["reason"] == "unknown-passcode" and r["line"] == 2 for r in obj["review"])
    res = run("check", ydk, "--json")
    assert res.exit_code == 1
    codes = {i["code"]: i for i in json.loads(res.stdout)["infractions"]}
    # The database may be older than the card: a review item, no penalty (contract v2).
    assert codes["UNKNOWN_CARD"]["card_ids"] == [99999999]
    assert codes["UNKNOWN_CARD"]["penalty"] == "NONE" and "UNUSABLE_CARD" not in codes


@pytest.mark.parametrize("count", ["-2", "0"])
def test_a_signed_or_zero_count_is_flagged_and_stops_the_verdict(clean_env, tmp_path, count):
    txt = tmp_path / "list.txt"
    txt.write_text(f"메인 덱\n{count} 하루 우라라\n", encoding="utf-8")
    obj = json.loads(run("scan", txt, "--json").stdout)
    (line,) = obj["sections"]["main"]
    assert line["needs_review"] is True and obj["review"]
    res = run("check", txt, "--json")
    assert res.exit_code == 1
    result = json.loads(res.stdout)
    assert result["legal"] is False
    assert "UNRESOLVED_LINE" in {i["code"] for i in result["infractions"]}
    # A size verdict on a count that is itself in doubt would be a guess.
    assert "MAIN_TOO_SMALL" not in {i["code"] for i in result["infractions"]}


def test_a_count_of_seven_is_never_legal(clean_env, tmp_path):
    txt = tmp_path / "list.txt"
    txt.write_text("메인 덱\n7 하루 우라라\n", encoding="utf-8")
    res = run("check", txt, "--json")
    assert res.exit_code == 1
    infs = json.loads(res.stdout)["infractions"]
    assert any(i["code"] == "TOO_MANY_COPIES" and i["card_ids"] == [14558127] for i in infs)


def test_an_unknown_name_is_flagged_not_guessed(clean_env, tmp_path):
    txt = tmp_path / "list.txt"
    txt.write_text("메인 덱\n3 존재하지않는카드이름입니다\n", encoding="utf-8")
    obj = json.loads(run("scan", txt, "--json").stdout)
    (line,) = obj["sections"]["main"]
    assert line["needs_review"] is True and obj["review"][0]["line"] == 1


# ---------------------------------------------------------------- card database, lflist

def _corrupt_db(d: Path) -> Path:
    (p := d / "cards.cdb").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    return p


def _wrong_schema_db(d: Path) -> Path:
    import sqlite3
    p = d / "other.cdb"
    with sqlite3.connect(p) as con:
        con.execute("create table t (x)")
    return p


@pytest.mark.parametrize("make_db", [_corrupt_db, _wrong_schema_db, _missing, _folder],
    ids=["corrupt", "wrong-schema", "missing", "folder"])
def test_bad_card_database_is_refused_everywhere(make_db, clean_env, tmp_path):
    db = make_db(tmp_path)
    ev = tmp_path / "event.sqlite"
    assert run("event", "init", ev, "--name", "QA", "--date", "2026-07-12").exit_code == 0
    for args in (["scan", DECKS / "legal.ydk"], ["check", DECKS / "legal.ydk"],
                 ["compare", DECKS / "registered.ydk", DECKS / "observed.ydk"],
                 ["convert", DECKS / "legal.ydk", "--to", "text"], ["db", "info"],
                 ["db", "search", "하루 우라라"], ["register", DECKS / "legal.ydk", "--player",
                                                KONAMI_ID, "--event", ev]):
        assert_refused(run(*args, "--card-db", db))
        clean_env.setenv("DECKSHEET_CARD_DB", str(db))  # the same through the environment
        assert_refused(run(*args))
        clean_env.delenv("DECKSHEET_CARD_DB")
    assert _event_counts(ev) == (0, 0)


def test_corrupt_lflist_is_refused(clean_env, tmp_path):
    bad = tmp_path / "lflist.conf"
    bad.write_text("#[2026.7\nthis is not a limit list\n", encoding="utf-8")
    binary = tmp_path / "binary.conf"
    binary.write_bytes(np.random.default_rng(1).bytes(3000))
    ev = tmp_path / "event.sqlite"
    assert run("event", "init", ev, "--name", "QA", "--date", "2026-07-12").exit_code == 0
    for lf in (bad, binary, tmp_path / "absent.conf"):
        assert_refused(run("check", DECKS / "legal.ydk", "--lflist", lf))
        if lf.exists():
            assert_refused(run("db", "info", "--lflist", lf))
        assert_refused(run("register", DECKS / "legal.ydk", "--player", KONAMI_ID, "--event", ev,
                           "--lflist", lf))
    assert _event_counts(ev) == (0, 0)


def test_db_info_with_an_absent_lflist_is_refused(clean_env, tmp_path):
    assert_refused(run("db", "info", "--lflist", tmp_path / "absent.conf"))


# ---------------------------------------------------------------- event store

def test_missing_or_foreign_event_file_is_refused(clean_env, tmp_path):
    not_an_event = _junk(tmp_path)
    for ev in (tmp_path / "absent.sqlite", not_an_event, _folder(tmp_path)):
        for args in (["event", "info"], ["register", DECKS / "legal.ydk", "--player", KONAMI_ID],
                     ["deckcheck", DECKS / "legal.ydk", "--player", KONAMI_ID, "--round", "1"],
                     ["review", "--player", KONAMI_ID], ["export", "--out", tmp_path / "x"],
                     ["audit", "--out", tmp_path / "y"]):
            assert_refused(run(*args, "--event", ev))
    assert not (tmp_path / "absent.sqlite").exists()
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_unknown_player_and_bad_ids_are_refused(event_with_one_player, tmp_path):
    ev = event_with_one_player
    assert_refused(run("deckcheck", DECKS / "registered.ydk", "--player", "9999999999",
                       "--round", "1", "--event", ev), mentions="9999999999")
    assert_refused(run("review", "--player", "9999999999", "--event", ev), mentions="9999999999")
    assert_refused(run("register", DECKS / "legal.ydk", "--player", "not-an-id", "--event", ev))
    assert _event_counts(ev) == (1, 0)


def test_audit_and_export_into_a_file_are_refused_and_the_event_is_kept(event_with_one_player, tmp_path):
    blocker = tmp_path / "report-here"
    blocker.write_text("a file, not a folder", encoding="utf-8")
    for cmd in ("audit", "export"):
        assert_refused(run(cmd, "--out", blocker, "--event", event_with_one_player),
                       mentions="not a folder")
    assert blocker.read_text(encoding="utf-8") == "a file, not a folder"
    assert _event_counts(event_with_one_player) == (1, 0)


def test_event_init_never_overwrites(clean_env, tmp_path):
    ev = tmp_path / "event.sqlite"
    assert run("event", "init", ev, "--name", "QA", "--date", "2026-07-12").exit_code == 0
    data = ev.read_bytes()
    assert_refused(run("event", "init", ev, "--name", "again", "--date", "2026-07-12"))
    assert ev.read_bytes() == data
    other = tmp_path / "sheet-copy.pdf"
    shutil.copy(SHEET, other)
    assert_refused(run("event", "init", other, "--name", "QA", "--date", "2026-07-12"))
    assert other.read_bytes() == SHEET.read_bytes()
