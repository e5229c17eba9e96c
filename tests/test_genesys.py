"""Konami's Genesys deck list (QTY | name | PTS columns, a judge box beside the extra deck, the
Konami ID in spaced digits, the name asked in two boxes) and English names.

The fixtures' five Genesys sheets are examples of the class; the sheets drawn here (other decks,
the structure drawn by this test, not the fixtures' generator) are the test of the layout."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
import make_samples as ms  # noqa: E402
from genesys import draw_genesys_like, overflow_deck  # noqa: E402
from scanner.inputs.options import ReadOptions  # noqa: E402
from scanner.read import load_decklist  # noqa: E402
from scoring import score_scan  # noqa: E402

PEERS = ("konami-fixer-genesys-01", "konami-fixer-genesys-03", "konami-fixer-genesys-05",
         "konami-fixer-genesys-07", "konami-fixer-genesys-09")


def _score(deck) -> dict:
    return score_scan(json.loads(json.dumps(deck.to_json())), {})


TEXT_ONLY = ReadOptions(verify=False)
"""These tests are of the text reading of a Genesys PDF; the second reading (the image reader on
the drawn page, `scanner.agreement`) is asserted apart: it may leave English lines unverified (a
judge looks), never accuse one (`_accuses_nothing`)."""


def _accuses_nothing(pdf: Path, db) -> None:
    deck = load_decklist(pdf, db)
    lines = [e for s in deck.sections.values() for e in s]
    assert not [e for e in lines if "appearance-differs" in e.reasons]
    assert not [r for r in deck.review if r.reason == "appearance-differs"]


@pytest.mark.parametrize("name", PEERS)
def test_genesys_peer_reads_with_the_english_database(name, fixtures_dir, ko_en_db):
    """Every line right and unflagged, or (a deck longer than the form, printed over its total
    row) caught by the printed total; never a silent line; the player and the spaced ID read."""
    peers = fixtures_dir / "world" / "peers"
    deck = load_decklist(peers / f"{name}.pdf", ko_en_db, TEXT_ONLY)
    _accuses_nothing(peers / f"{name}.pdf", ko_en_db)
    truth = json.loads((peers / f"{name}.truth.json").read_text())
    got = score_scan(deck.to_json(), truth)
    assert got["silent"] == 0, got["errors"]
    assert got["correct"] >= 0.95 * got["lines"], got
    if got["missing"]:
        assert any(r.reason == "total-mismatch" for r in deck.review), "an overflow must be caught"
    assert deck.konami_id == "0123456789"
    assert deck.player_name == "Test Player"


def test_english_names_without_the_english_database_are_flagged_by_language(fixtures_dir, real_db):
    """Only the Korean database loaded: no English line gets a card (its fuzzy best would be a
    Korean name's guess), each says which database would read it."""
    deck = load_decklist(fixtures_dir / "world" / "peers" / "konami-fixer-genesys-01.pdf", real_db)
    lines = [e for s in deck.sections.values() for e in s]
    assert lines and all(e.needs_review and e.reasons[0] == "name-language-not-loaded" for e in lines)
    # a guess only among the few cards the Korean database keeps under English names
    from card_db.names import name_script
    assert all(e.card_id is None or name_script(e.name) == "latin" for e in lines)
    items = [r for r in deck.review if r.reason == "name-language-not-loaded"]
    assert len(items) == len(lines)
    assert all("en-US.cdb" in r.detail for r in items)


# --- a Genesys-structured sheet drawn here (`samples/genesys.py`) -----------------------------

@pytest.mark.parametrize("seed", range(3))
def test_genesys_structured_sheet_of_another_deck_reads(seed, fixtures_dir, ko_en_db, en_names, tmp_path):
    decks = sorted((fixtures_dir / "compare").glob("*/registered.ydk"))
    rng = random.Random(2800 + seed)
    deck, truth = ms.english_deck(rng.choice(decks), ko_en_db, en_names)
    columns = deck.columns
    if any(len(v) > (18 if k in ("monster", "spell", "trap") else 15) for k, v in columns.items()):
        pytest.skip("deck longer than the form")
    points = {name: rng.choice((0, 0, 0, 1, 3)) for v in columns.values() for name, _ in v}
    pdf = tmp_path / f"genesys-like-{seed}.pdf"
    konami_id = "".join(rng.choice("0123456789") for _ in range(10))
    draw_genesys_like(pdf, columns, konami_id, "Minjun", "Kim", points)
    deck = load_decklist(pdf, ko_en_db, TEXT_ONLY)
    _accuses_nothing(pdf, ko_en_db)
    got = score_scan(deck.to_json(), truth)
    assert got["silent"] == 0 and got["missing"] == 0, got
    # Helvetica cannot draw ☆ (`Live☆Twin`): such a name is shown as a box, and flagged.
    drawable = sum(1 for v in columns.values() for name, _ in v if name.isascii())
    assert got["correct"] >= min(drawable, got["lines"]), got
    assert deck.konami_id == konami_id
    assert deck.player_name == "Minjun Kim"


@pytest.mark.parametrize("seed", range(3))
def test_spells_overflowing_into_an_empty_extra_deck_stay_spells(seed, ko_en_db, en_names, tmp_path):
    """A filler prints a column longer than the form on down the page: row 19 over the total
    row, row 20 over the EXTRA DECK title, the rest in the extra deck's rows. Those are spells
    (the printed totals say so: extra 0, spells short by exactly them), never silent extra-deck
    lines; the two rows printed over the total and the title are lost to the overprint, and the
    spell column's printed total says so."""
    rng = random.Random(3500 + seed)
    columns, truth = overflow_deck(ko_en_db, en_names, rng, 21 + seed, side=4)
    pdf = tmp_path / f"overflow-{seed}.pdf"
    draw_genesys_like(pdf, columns, "0123456789", "Zoe", "Martin", {}, overflow=True)
    # (No `_accuses_nothing`: the page does print these spells in the extra deck's rows, and the
    # second reading, which reads them there, says so.)
    deck = load_decklist(pdf, ko_en_db, TEXT_ONLY)
    got = score_scan(deck.to_json(), truth)
    assert got["silent"] == 0, got
    assert deck.sections["extra"] == []
    spells = [e for e in deck.sections["main"] if e.column == "spell"]
    assert [e.read for e in spells[18:]] == [f"{name} {n}" for name, n in columns["spell"][20:]]
    assert got["missing"] <= 2 and got["correct"] >= got["lines"] - 2, got
    assert any(r.reason == "total-mismatch" and "spell column" in r.detail for r in deck.review)
    assert deck.player_name == "Zoe Martin"


def test_lines_whose_table_the_totals_cannot_settle_are_flagged(ko_en_db, en_names, tmp_path):
    """Spells printed into the extra deck's rows while the extra deck's printed total is neither
    0 nor their sum: where they belong is in doubt, and every one of them is flagged."""
    rng = random.Random(3600)
    columns, truth = overflow_deck(ko_en_db, en_names, rng, 22, side=4)
    pdf = tmp_path / "doubt.pdf"
    draw_genesys_like(pdf, columns, "0123456789", "Zoe", "Martin", {}, overflow=True, totals={"extra": 9})
    deck = load_decklist(pdf, ko_en_db)
    got = score_scan(deck.to_json(), truth)
    assert got["silent"] == 0, got
    assert len(deck.sections["extra"]) == 2
    assert all(e.needs_review and "column-total-mismatch" in e.reasons for e in deck.sections["extra"])
