"""`decksheet db info|search` through click's CliRunner: output contract and exit codes."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from scanner.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_db_info_json_on_the_real_data(real_db_path, real_lflist_path):
    res = run("db", "info", "--json", "--card-db", str(real_db_path), "--lflist", str(real_lflist_path))
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    # 14,210 cards less the two listed twice (융합, 블랙 매지션), which collapse like artworks
    assert info["cards"] == 14208 and info["rows"] == 14283 and info["alternate_artworks"] == 75
    assert info["newest_ocg_list"] == "2026.7" and info["selected_list"] == "2026.7"
    assert info["extra_bans"] is True and info["demo"] is False


def test_db_info_list_by_date(real_db_path, real_lflist_path):
    res = run("db", "info", "--json", "--card-db", str(real_db_path), "--lflist",
              str(real_lflist_path), "--date", "2026-05-15", "--no-extra-bans")
    info = json.loads(res.stdout)
    assert info["selected_list"] == "2026.4" and info["extra_bans"] is False


@pytest.mark.parametrize("text", ["하루 우라라", "하루우라라", "하루 우라러", "하 루 우 라 라"])
def test_db_search_contract(real_db_path, text):
    res = run("db", "search", text, "--json", "--limit", "3", "--card-db", str(real_db_path))
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert 1 <= len(rows) <= 3 and set(rows[0]) == {"card_id", "name", "score"}
    assert rows[0]["card_id"] == 14558127 and rows[0]["name"] == "하루 우라라"
    assert all(0 <= r["score"] <= 1 for r in rows)
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)


def test_db_search_on_the_demo_db_and_nothing_found(demo_db, monkeypatch, tmp_path):
    monkeypatch.delenv("DECKSHEET_CARD_DB", raising=False)  # use the demo db, not a user's
    monkeypatch.setenv("DECKSHEET_DATA_DIR", str(tmp_path / "no-fetched-data"))
    res = run("db", "search", "하루 우라라", "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)[0]["card_id"] == 14558127
    assert "DEMO" in res.stderr  # the demo database says so, on stderr only
    none = run("db", "search", "\u2603\u2603", "--json")  # no name holds a snowman
    assert none.exit_code == 1 and json.loads(none.stdout) == []


def test_missing_or_corrupt_database_is_one_line_exit_2(tmp_path):
    res = run("db", "info", "--card-db", str(tmp_path / "nope.cdb"))
    assert res.exit_code == 2 and res.output.count("decksheet: error:") == 1
    assert "card database not found" in res.output and "Traceback" not in res.output
    junk = tmp_path / "junk.cdb"
    junk.write_bytes(b"\x00junk" * 50)
    res = run("db", "search", "하루", "--card-db", str(junk))
    assert res.exit_code == 2 and "not a ygopro cards.cdb" in res.output


def test_unknown_list_name_is_exit_2(real_db_path, real_lflist_path):
    res = run("db", "info", "--card-db", str(real_db_path), "--lflist", str(real_lflist_path),
              "--list", "1999.9")
    assert res.exit_code == 2 and "no list named '1999.9'" in res.output


def test_every_db_command_has_help():
    for cmd in ("info", "search", "fetch"):
        res = run("db", cmd, "--help")
        assert res.exit_code == 0 and "Usage:" in res.output and len(res.output) > 200
