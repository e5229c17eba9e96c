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


# ---------------------------------------------------------------- shared options, usage errors


def test_shared_options_work_before_and_after_the_subcommand(real_db_path, real_lflist_path):
    db, lf = str(real_db_path), str(real_lflist_path)
    for args in (["--card-db", db, "--lflist", lf, "db", "info", "--json"],
                 ["db", "--card-db", db, "info", "--json", "--lflist", lf],
                 ["db", "info", "--json", "--card-db", db, "--lflist", lf],
                 ["--lflist", lf, "--list", "2026.4", "db", "info", "--json", "--card-db", db]):
        res = run(*args)
        assert res.exit_code == 0, (args, res.output)
        info = json.loads(res.stdout)
        assert info["cards"] == 14208 and info["lflist"] == lf
    assert info["selected_list"] == "2026.4"
    # the later (subcommand) value wins over the one before it
    res = run("--list", "2026.4", "db", "info", "--json", "--card-db", db, "--lflist", lf,
              "--list", "2026.1")
    assert json.loads(res.stdout)["selected_list"] == "2026.1"


def test_shared_options_on_the_event_group(tmp_path, clean_env):
    event = tmp_path / "e.sqlite"
    assert run("event", "init", str(event), "--name", "t", "--date", "2026-07-12").exit_code == 0
    res = run("event", "--no-extra-bans", "info", "--event", str(event))
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("args", [["db", "info", "--nope"], ["check"], ["db", "search"],
                                  ["convert", "x.ydk", "--to", "pdf"], ["no-such-command"],
                                  ["db", "info", "--date", "yesterday"]])
def test_usage_errors_are_one_line_exit_2(args):
    res = run(*args)
    assert res.exit_code == 2, res.output
    assert res.stdout == "" and len(res.stderr.splitlines()) == 1
    assert res.stderr.startswith("decksheet: error: ") and "Traceback" not in res.stderr


def test_decksheet_list_env_does_not_override_an_explicit_date(real_db_path, real_lflist_path):
    runner = CliRunner(env={"DECKSHEET_LIST": "2025.1"})
    base = ["db", "info", "--json", "--card-db", str(real_db_path), "--lflist", str(real_lflist_path)]
    assert json.loads(runner.invoke(main, base).stdout)["selected_list"] == "2025.1"
    by_date = runner.invoke(main, [*base, "--date", "2026-05-15"])
    assert json.loads(by_date.stdout)["selected_list"] == "2026.4"  # the command line wins
    both = run(*base, "--date", "2026-05-15", "--list", "2026.7")
    assert both.exit_code == 2 and "give one of them" in both.stderr


# ---------------------------------------------------------------- alternate arts, locales, lists


def test_db_info_reports_the_alias_rows_loaded(shared_dir, real_db_path):
    aliases = shared_dir / "carddb" / "alt_passcodes.csv"
    res = run("db", "info", "--json", "--card-db", str(real_db_path), "--aliases", str(aliases))
    info = json.loads(res.stdout)
    assert info["alias_rows_loaded"] == 427 and info["alternate_artworks"] == 75 + 427
    assert info["sources"][1]["role"] == "aliases" and info["sources"][1]["skipped"] == 0
    text = run("db", "info", "--card-db", str(real_db_path), "--aliases", str(aliases)).stdout
    assert "427 alias rows loaded" in text


def test_db_search_finds_korean_and_english_names_over_two_locales(shared_dir, real_db_path):
    en = shared_dir / "carddb" / "en-US.cdb"
    for text in ("Ash Blossom & Joyous Spring", "ash blossom joyous spring", "하루 우라라",
                 "Ash Blossom & Joyus Spring"):
        res = run("db", "search", text, "--json", "--card-db", str(real_db_path),
                  "--card-db", str(en))
        rows = json.loads(res.stdout)
        assert rows[0]["card_id"] == 14558127 and rows[0]["name"] == "하루 우라라", text
    # a Korean database alone knows no English name
    rows = json.loads(run("db", "search", "Ash Blossom & Joyous Spring", "--json", "--card-db",
                          str(real_db_path)).stdout)
    assert not rows or rows[0]["card_id"] != 14558127 or rows[0]["score"] < 0.9


def test_db_info_loads_every_real_list_file(shared_dir, real_db_path):
    files = [shared_dir / "carddb" / "lflist.conf",
             *sorted((shared_dir / "carddb" / "real-samples").glob("*.conf"))]
    for f in files:
        res = run("db", "info", "--json", "--card-db", str(real_db_path), "--lflist", str(f))
        assert res.exit_code == 0, (f, res.output)
        info = json.loads(res.stdout)
        assert info["lists"] >= 2 and info["selected_list"] and info["lflist_lines_skipped"] == 0


def test_list_file_with_unreadable_lines_loads_and_names_them(real_db_path, tmp_path):
    conf = tmp_path / "lflist.conf"
    conf.write_text("#[2026.07 OCG]\n!2026.07 OCG\n--SS05 Bakura\n14558127 1\n", encoding="utf-8")
    res = run("db", "info", "--json", "--card-db", str(real_db_path), "--lflist", str(conf),
              "--list", "2026.7")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["selected_list"] == "2026.07 OCG"
    assert "line 3" in res.stderr and "--SS05 Bakura" in res.stderr


def test_non_ocg_list_file_says_how_to_pick(real_db_path, tmp_path):
    conf = tmp_path / "lflist.conf"
    conf.write_text("!2026.5 TCG\n14558127 1\n!Master Duel\n14558127 0\n", encoding="utf-8")
    res = run("db", "info", "--card-db", str(real_db_path), "--lflist", str(conf))
    assert res.exit_code == 2 and "2026.5 TCG, Master Duel" in res.stderr and "--list" in res.stderr
    ok = run("db", "info", "--json", "--card-db", str(real_db_path), "--lflist", str(conf),
             "--list", "master duel")
    assert ok.exit_code == 0 and json.loads(ok.stdout)["selected_list"] == "Master Duel"
