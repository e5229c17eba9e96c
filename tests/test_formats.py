"""Decklist formats: ydk, ydke, plain text, JSON — parse/format pairs that round-trip."""
from __future__ import annotations

import glob
from pathlib import Path

import pytest
from click.testing import CliRunner

from scanner.cli import main
from scanner.errors import UnreadableInput
from scanner.read import load_decklist, read_text_source
from scanner.inputs.formats import (format_json, format_text, format_ydk, format_ydke, parse_text_list,
                               parse_ydke)
from scanner.inputs.resolve import resolve_sheet
from scanner.inputs.sniff import InputKind, sniff_bytes

REPO = Path(__file__).resolve().parent.parent
SAMPLE_DECKS = sorted(glob.glob(str(REPO / "samples" / "decks*" / "*.ydk")))
WRITERS = {"ydke": format_ydke, "json": format_json, "ydk": format_ydk,
           "text": lambda deck, db: format_text(deck, db)}


def counts(deck) -> dict[str, dict[int, int]]:
    return {s: deck.counts(s) for s in ("main", "extra", "side")}


def round_trip(deck, db, fmt: str):
    writer = WRITERS[fmt]
    text = writer(deck, db) if fmt == "text" else writer(deck)
    return resolve_sheet(read_text_source(text, db), db), text


def assert_lossless(path: str, db) -> None:
    deck = load_decklist(path, db)
    assert sum(deck.totals().values()) > 0
    for fmt in WRITERS:
        again, text = round_trip(deck, db, fmt)
        assert counts(again) == counts(deck), (path, fmt)
        assert again.needs_review == 0, (path, fmt, text[:200])


@pytest.mark.parametrize("path", SAMPLE_DECKS, ids=lambda p: Path(p).name)
def test_sample_decks_round_trip_on_the_demo_db(path, demo_db):
    assert_lossless(path, demo_db)


def test_fixture_decks_round_trip_on_the_real_db(real_db, fixtures_dir):
    paths = sorted(glob.glob(str(fixtures_dir / "legality" / "*.ydk")) +
                   glob.glob(str(fixtures_dir / "compare" / "*" / "*.ydk")))
    assert len(paths) >= 20
    for p in paths:
        assert_lossless(p, real_db)


def test_fixture_json_decklists_round_trip(real_db, fixtures_dir):
    for p in sorted(glob.glob(str(fixtures_dir / "legality" / "*.json"))):
        if p.endswith(".truth.json") or p.endswith("manifest.json"):
            continue
        deck = load_decklist(p, real_db)
        again, _ = round_trip(deck, real_db, "json")
        assert counts(again) == counts(deck)  # JSON keeps a card in the "wrong" section


def test_convert_command_round_trips(real_db_path, fixtures_dir, tmp_path):
    src = fixtures_dir / "legality" / "L006-side16.ydk"  # holds 융합 (two passcodes, one name)
    runner = CliRunner()
    prev = src
    for fmt, suffix in (("ydke", ".txt"), ("text", ".txt"), ("json", ".json"), ("ydk", ".ydk")):
        out = tmp_path / f"deck-{fmt}{suffix}"
        res = runner.invoke(main, ["convert", str(prev), "--to", fmt, "-o", str(out),
                                   "--card-db", str(real_db_path)])
        assert res.exit_code == 0, res.output
        prev = out
    from card_db.cdb import load_card_db
    db = load_card_db(real_db_path)
    assert counts(load_decklist(prev, db)) == counts(load_decklist(src, db))


@pytest.mark.parametrize("line,name,count", [
    ("3 하루 우라라", "하루 우라라", 3),
    ("하루 우라라 x3", "하루 우라라", 3),
    ("하루 우라라 ×2", "하루 우라라", 2),
    ("하루 우라라 3장", "하루 우라라", 3),
    ("3x 하루 우라라", "하루 우라라", 3),
    ("- 1 No.39 유토피아", "No.39 유토피아", 1),
    ("하루 우라라", "하루 우라라", 1),
])
def test_text_line_shapes(line, name, count):
    rl = parse_text_list(line).lines[0]
    assert (rl.text, rl.count, rl.section) == (name, count, "main")


def test_text_section_headers():
    text = "메인 덱 (40)\n3 하루 우라라\n\n엑스트라 덱: 15장\n1 No.39 유토피아\n[Side Deck]\n2 증식의 G\n"
    read = parse_text_list(text)
    assert [(l.section, l.text) for l in read.lines] == [
        ("main", "하루 우라라"), ("extra", "No.39 유토피아"), ("side", "증식의 G")]
    assert parse_text_list("메인 덱 파괴 1").lines[0].text == "메인 덱 파괴"  # a name, not a header


def test_unknown_name_is_a_review_flag_not_an_error(real_db):
    deck = resolve_sheet(parse_text_list("3 하루 우라라\n2 전혀 없는 카드 이름이다"), real_db)
    first, second = deck.sections["main"]
    assert first.card_id == 14558127 and not first.needs_review
    assert second.needs_review and deck.needs_review == 1


@pytest.mark.parametrize("head,kind", [
    (b"#created by x\n#main\n14558127\n", InputKind.YDK),
    (b"14558127\n14558127\n", InputKind.YDK),
    (b"  ydke://AAAA!!!", InputKind.YDKE),
    (b'{"schema": 1, "sections": {}}', InputKind.JSON),
    ("3 하루 우라라\n".encode(), InputKind.TEXT),
    ("\ufeff메인 덱\n".encode(), InputKind.TEXT),
    (b"%PDF-1.7\n", InputKind.PDF),
    (b"\x89PNG\r\n\x1a\n....", InputKind.IMAGE),
    (b"\xff\xd8\xff\xe0", InputKind.IMAGE),
])
def test_sniff_by_content(head, kind):
    assert sniff_bytes(head) is kind


@pytest.mark.parametrize("url,msg", [
    ("ydke://AAAA", "expected"),
    ("ydke://@@@!!!", "not base64"),
    ("ydke://AAA=!!!", "whole passcodes"),
])
def test_malformed_ydke(url, msg):
    with pytest.raises(UnreadableInput, match=msg):
        parse_ydke(url)


@pytest.mark.parametrize("content,msg", [
    (b"", "empty"),
    (b"   \n\n", "empty"),
    (bytes(range(256)) * 8, "binary"),
    (b"ydke://not base64!!!", "ydke"),
    (b"{not json", "JSON"),
    (b'{"a": 1}', "sections"),
])
def test_bad_inputs_exit_2_with_one_line(tmp_path, demo_db, monkeypatch, content, msg):
    monkeypatch.delenv("DECKSHEET_CARD_DB", raising=False)  # use the demo db, not a user's
    monkeypatch.setenv("DECKSHEET_DATA_DIR", str(tmp_path / "no-fetched-data"))
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    res = CliRunner().invoke(main, ["convert", str(bad), "--to", "ydk"])
    assert res.exit_code == 2
    err = [ln for ln in res.output.splitlines() if ln.startswith("decksheet: error:")]
    assert len(err) == 1 and msg in err[0] and "Traceback" not in res.output


def test_unknown_passcode_is_flagged_and_kept(demo_db):
    deck = resolve_sheet(read_text_source("#main\n12345678\n", demo_db), demo_db)
    entry = deck.sections["main"][0]
    assert entry.card_id == 12345678 and entry.needs_review and "unknown-passcode" in entry.reasons


# ---------------------------------------------------------------- convert: nothing lost silently

BAD_YDK = "#main\n14558127abc\n14558127\n99999999999\n\u00b2\n\u0661\u0662\n12345\n#extra\n!side\n"


def test_ydk_lines_that_are_no_passcode_are_skipped_and_flagged(demo_db):
    read = read_text_source(BAD_YDK, demo_db, InputKind.YDK)
    assert [(ln.card_id, ln.count) for ln in read.lines] == [(14558127, 1), (12345, 1)]
    assert [r.detail.split(":")[0] for r in read.review] == [
        "ydk line 2", "ydk line 4", "ydk line 5", "ydk line 6"]
    assert all(r.reason == "unreadable-line" for r in read.review)
    assert "beyond 32 bits" in read.review[1].detail


def test_convert_never_exits_0_with_a_dropped_or_unknown_line(real_db_path, tmp_path):
    src = tmp_path / "bad.ydk"
    src.write_text(BAD_YDK, encoding="utf-8")
    for fmt in ("ydk", "ydke", "text", "json"):
        res = CliRunner().invoke(main, ["convert", str(src), "--to", fmt, "--card-db",
                                        str(real_db_path)])
        assert res.exit_code == 1, (fmt, res.output)
        warning = res.stderr.strip()
        assert warning.startswith("decksheet: warning: 5 line(s)") and "\n" not in warning
        assert "'14558127abc'" in warning and "12345" in warning and "internal error" not in warning
    ok = tmp_path / "ok.ydk"
    ok.write_text("#main\n14558127\n#extra\n!side\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["convert", str(ok), "--to", "ydke", "--card-db",
                                    str(real_db_path)])
    assert res.exit_code == 0 and res.stderr == ""


def test_convert_output_file_needs_force_and_never_replaces_a_database(real_db_path, tmp_path):
    src = tmp_path / "ok.ydk"
    src.write_text("#main\n14558127\n#extra\n!side\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    args = ["convert", str(src), "--to", "ydke", "--card-db", str(real_db_path), "-o", str(out)]
    assert CliRunner().invoke(main, args).exit_code == 0
    out.write_text("keep me", encoding="utf-8")
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2 and "--force" in res.stderr and out.read_text() == "keep me"
    res = CliRunner().invoke(main, [*args, "--force"])
    assert res.exit_code == 0 and out.read_text().startswith("ydke://")
    event = tmp_path / "event.sqlite"
    import sqlite3
    sqlite3.connect(event).execute("CREATE TABLE event(id)").connection.close()
    before = event.read_bytes()
    res = CliRunner().invoke(main, [*args[:-1], str(event), "--force"])
    assert res.exit_code == 2 and "SQLite" in res.stderr and event.read_bytes() == before
