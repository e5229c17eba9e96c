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
