"""The shipped samples and DEMO database: complete, rebuildable, and read exactly with no --card-db."""
from __future__ import annotations

import importlib.util
import json
import sqlite3
import sys
from pathlib import Path

from click.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"
SRC = SAMPLES / "decks_src"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, SAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, mod)
    spec.loader.exec_module(mod)
    return mod


def _ydk_passcodes(path: Path) -> list[int]:
    return [int(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip().isdigit()]


def test_demo_db_holds_every_sample_card(demo_db):
    decks = list(SRC.glob("*.ydk")) + list((SAMPLES / "decks").glob("*.ydk"))
    assert decks
    for deck in decks:
        for cid in _ydk_passcodes(deck):
            assert demo_db.get(cid) is not None, f"{deck.name}: {cid} missing from the demo db"


def test_demo_db_has_the_extra_bans_and_alternates(demo_db):
    from card_db.lflist import EXTRA_BANS
    for cid, name in EXTRA_BANS.items():
        assert demo_db.get(cid).name == name
    # Alternate artworks collapse onto their original printing.
    assert demo_db.original_id(59438931) == 59438930
    assert demo_db.get(59438931).name == "유령토끼"


def test_make_demo_db_rebuilds_the_shipped_database(tmp_path):
    mod = _module("make_demo_db")
    cards = mod.read_cards()
    mod.write_cdb(cards, tmp_path / "demo.cdb")
    mod.write_lflist(cards, tmp_path / "demo-lflist.conf")
    q = "SELECT d.id, d.ot, d.alias, d.type, t.name FROM datas d JOIN texts t USING(id) ORDER BY d.id"
    rebuilt = sqlite3.connect(tmp_path / "demo.cdb").execute(q).fetchall()
    shipped = sqlite3.connect(REPO / "card_db" / "data" / "demo.cdb").execute(q).fetchall()
    assert rebuilt == shipped
    assert (tmp_path / "demo-lflist.conf").read_text(encoding="utf-8") == \
        (REPO / "card_db" / "data" / "demo-lflist.conf").read_text(encoding="utf-8")


def test_demo_list_statuses(tmp_path):
    from card_db.lflist import load_lflist
    lf = load_lflist(REPO / "card_db" / "data" / "demo-lflist.conf")
    text = (REPO / "card_db" / "data" / "demo-lflist.conf").read_text(encoding="utf-8")
    assert text.splitlines()[1] == "!2026.7"
    assert "24224830 0 --무덤의 지명자" in text  # forbidden in 2026.7
    assert "14558127 2 --하루 우라라" in text  # semi-limited in 2026.7
    assert lf is not None


def test_scan_samples_with_no_card_db(tmp_path, monkeypatch):
    """`decksheet scan samples/sheets/*.pdf` on the demo db: every sheet is its source deck."""
    import reportlab  # noqa: F401  (a test extra: installed wherever the tests run)
    monkeypatch.delenv("DECKSHEET_CARD_DB", raising=False)
    monkeypatch.setenv("DECKSHEET_DATA_DIR", str(tmp_path / "no-fetched-db"))
    from card_db.cdb import load_card_db
    from scanner.cli import main

    ms = _module("make_samples")
    sheets = sorted((SAMPLES / "sheets").glob("*.pdf"))
    assert len(sheets) == len(ms.SHEETS)
    result = CliRunner().invoke(main, ["scan", *map(str, sheets), "--json", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    db = load_card_db(REPO / "card_db" / "data" / "demo.cdb")
    deck_of = {file: deck for file, deck, *_ in ms.SHEETS}
    for data in out:
        ydk = SRC / f"{deck_of[Path(data['source']['path']).name]}.ydk"
        want: dict[str, dict[int, int]] = {"main": {}, "extra": {}, "side": {}}
        section = "main"
        for ln in ydk.read_text(encoding="utf-8").splitlines():
            ln = ln.strip()
            if ln in ("#main", "#extra", "!side"):
                section = ln.strip("#!")
            elif ln.isdigit():
                cid = db.original_id(int(ln))
                want[section][cid] = want[section].get(cid, 0) + 1
        for s in ("main", "extra", "side"):
            got: dict[int, int] = {}
            for e in data["sections"][s]:
                assert not e["needs_review"], e
                got[e["card_id"]] = got.get(e["card_id"], 0) + e["count"]
            assert got == want[s], (data["source"]["path"], s)
        assert data["review"] == []
        assert data["printed_totals"] == data["totals"]
        assert (tmp_path / "out" / (Path(data["source"]["path"]).stem + ".json")).is_file()


def test_sample_pdfs_are_small():
    for pdf in (SAMPLES / "sheets").glob("*.pdf"):
        assert pdf.stat().st_size < 200_000, pdf.name
