"""ydk → ydke exactly as the npm encoder `ygopro-deck-encode` does it (tests/data/ydk/README.md)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from card_db.cdb import load_card_db
from scanner.cli import main
from scanner.inputs.formats import format_ydke, parse_ydk, parse_ydke
from scanner.model import Decklist, Entry

DATA = Path(__file__).resolve().parent / "data" / "ydk"
EXPECTED: dict[str, dict[str, str]] = json.loads((DATA / "expected-ydke.json").read_text())
ALT_ART = {"ourygo-alt-art.ydk", "deck-api-alt-art.ydk"}


def as_written(read) -> Decklist:
    """A decklist of the passcodes exactly as read (no database: nothing mapped or routed)."""
    deck = Decklist(reader=read.reader)
    for line in read.lines:
        deck.sections[line.section].append(Entry(card_id=line.card_id, name="", count=line.count,
                                                 confidence=1.0, needs_review=False, read=""))
    return deck


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_ydk_to_ydke_matches_the_npm_encoder(name):
    read = parse_ydk((DATA / name).read_bytes().decode("utf-8-sig"))
    assert read.review == []
    url = format_ydke(as_written(read))
    assert url == EXPECTED[name]["ydke"]
    assert format_ydke(as_written(parse_ydke(url))) == url  # and back, byte for byte


def test_scattered_copies_keep_their_places():
    read = parse_ydk((DATA / "eldlich-extra-under-main-scattered-copies.ydk").read_text())
    main_ids = [ln.card_id for ln in read.lines if ln.section == "main"]
    assert main_ids.count(95440946) == 2  # two runs of the same card, not one line of 3
    assert sum(ln.count for ln in read.lines if ln.card_id == 95440946) == 3


@pytest.mark.parametrize("name", sorted(set(EXPECTED) - ALT_ART))
def test_convert_to_ydke_with_the_real_db_is_byte_identical(name, real_db_path, real_lflist_path):
    res = CliRunner().invoke(main, ["convert", str(DATA / name), "--to", "ydke",
                                    "--card-db", str(real_db_path)])
    assert res.exit_code == 0, res.output
    want = EXPECTED[name].get("ydke_routed_by_type") or EXPECTED[name]["ydke"]
    assert res.stdout.strip() == want


@pytest.mark.parametrize("name,regulation", [("ourygo-alt-art.ydk", "2025.4"),
                                             ("deck-api-alt-art.ydk", "2024.1")])
def test_real_alternate_art_decks_are_legal_with_the_alias_list(name, regulation, shared_dir,
                                                               real_db_path, real_lflist_path):
    aliases = shared_dir / "carddb" / "alt_passcodes.csv"
    args = ["check", str(DATA / name), "--json", "--card-db", str(real_db_path), "--lflist",
            str(real_lflist_path), "--list", regulation]
    res = CliRunner().invoke(main, [*args, "--aliases", str(aliases)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["legal"] is True
    # the same through the environment variable
    res = CliRunner(env={"DECKSHEET_ALIASES": str(aliases)}).invoke(main, args)
    assert res.exit_code == 0 and json.loads(res.stdout)["legal"] is True
    # without the alias list, 14558128 is an unknown passcode: a review item, kept as read
    scan = CliRunner(env={"DECKSHEET_ALIASES": None}).invoke(
        main, ["scan", str(DATA / name), "--json", "--card-db", str(real_db_path)])
    data = json.loads(scan.stdout)
    unknown = {r["card_id"] for r in data["review"] if r["reason"] == "unknown-passcode"}
    assert 14558128 in unknown
    alt_ids = {int(line.split(",")[0]) for line in aliases.read_text().splitlines()[1:]}
    assert unknown <= alt_ids
    # with it, the alternate art is reported as its original printing, the ydke in file order
    conv = CliRunner().invoke(main, ["convert", str(DATA / name), "--to", "ydke", "--card-db",
                                     str(real_db_path), "--aliases", str(aliases)])
    assert conv.exit_code == 0, conv.output
    db = load_card_db(real_db_path, aliases=aliases)
    assert [(ln.section, ln.card_id, ln.count) for ln in parse_ydke(conv.stdout.strip()).lines] \
        == [(ln.section, db.original_id(ln.card_id), ln.count)
            for ln in parse_ydke(EXPECTED[name]["ydke"]).lines]
