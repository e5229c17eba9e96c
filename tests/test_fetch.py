"""`decksheet db fetch` against local file:// URLs: install, corrupt downloads, checksums."""
from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from card_db.cdb import demo_db_path
from scanner.cli import main

LFLIST = "#[2026.7]\n!2026.7\n14558127 1\n"


@pytest.fixture()
def sources(tmp_path) -> dict[str, Path]:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(demo_db_path(), src / "cards.cdb")
    (src / "lflist.conf").write_text(LFLIST, encoding="utf-8")
    (src / "junk.cdb").write_bytes(b"<html>rate limited</html>" * 40)
    cut = (src / "cards.cdb").read_bytes()
    (src / "truncated.cdb").write_bytes(cut[: len(cut) // 2])
    (src / "binary.conf").write_bytes(bytes(range(256)) * 4)
    return {p.name: p for p in src.iterdir()}


def fetch(dest: Path, cdb: Path, lflist: Path, *extra: str):
    locale = [] if "--locale" in extra else ["--locale", "ko-KR"]  # no network in tests
    return CliRunner().invoke(main, ["db", "fetch", "--dest", str(dest), "--cdb-url", cdb.as_uri(),
                                     "--lflist-url", lflist.as_uri(), *locale, *extra])


def test_fetch_installs_verified_files(tmp_path, sources):
    dest = tmp_path / "data"
    res = fetch(dest, sources["cards.cdb"], sources["lflist.conf"])
    assert res.exit_code == 0, res.output
    assert (dest / "cards.cdb").read_bytes() == sources["cards.cdb"].read_bytes()
    assert (dest / "lflist.conf").read_text(encoding="utf-8") == LFLIST
    assert "cards" in res.output and "1 lists" in res.output
    assert sorted(p.name for p in dest.iterdir()) == ["cards.cdb", "lflist.conf"]  # no .part


@pytest.mark.parametrize("cdb,lflist", [("junk.cdb", "lflist.conf"), ("truncated.cdb", "lflist.conf"),
                                        ("cards.cdb", "binary.conf"), ("missing.cdb", "lflist.conf")])
def test_corrupt_or_missing_download_is_refused_and_nothing_installed(tmp_path, sources, cdb, lflist):
    dest = tmp_path / "data"
    cdb_path = sources.get(cdb, tmp_path / "src" / cdb)
    res = fetch(dest, cdb_path, sources[lflist])
    assert res.exit_code == 2
    errors = [ln for ln in res.output.splitlines() if ln.startswith("decksheet: error:")]
    assert len(errors) == 1 and "Traceback" not in res.output
    assert list(dest.iterdir()) == []


def test_failed_fetch_keeps_the_installed_files(tmp_path, sources):
    dest = tmp_path / "data"
    assert fetch(dest, sources["cards.cdb"], sources["lflist.conf"]).exit_code == 0
    before = {p.name: p.read_bytes() for p in dest.iterdir()}
    assert fetch(dest, sources["junk.cdb"], sources["lflist.conf"]).exit_code == 2
    assert {p.name: p.read_bytes() for p in dest.iterdir()} == before


def test_checksum_mismatch_is_refused(tmp_path, sources):
    dest = tmp_path / "data"
    good = hashlib.sha256(sources["cards.cdb"].read_bytes()).hexdigest()
    ok = fetch(dest, sources["cards.cdb"], sources["lflist.conf"], "--cdb-sha256", good)
    assert ok.exit_code == 0
    bad = fetch(tmp_path / "other", sources["cards.cdb"], sources["lflist.conf"],
                "--cdb-sha256", "0" * 64)
    assert bad.exit_code == 2 and "does not match" in bad.output
    assert not (tmp_path / "other" / "cards.cdb").exists()


def _english_copy(src: Path, dest: Path) -> Path:
    """The demo database with English names and one alternate-art row the Korean one lacks."""
    shutil.copy(src, dest)
    con = sqlite3.connect(dest)
    con.execute("UPDATE texts SET name = 'Ash Blossom & Joyous Spring' WHERE id = 14558127")
    con.execute("INSERT INTO datas SELECT 14558129, ot, 14558127, setcode, type, atk, def, level, "
                "race, attribute, category FROM datas WHERE id = 14558127")
    con.execute("INSERT INTO texts (id, name, desc) VALUES (14558129, "
                "'Ash Blossom & Joyous Spring', '')")
    con.commit()
    con.close()
    return dest


def test_fetch_several_locales_then_search_every_name(tmp_path, sources, monkeypatch):
    src = tmp_path / "src"
    _english_copy(src / "cards.cdb", src / "en-US.cdb")
    shutil.copy(src / "cards.cdb", src / "ko-KR.cdb")
    dest = tmp_path / "data"
    res = CliRunner().invoke(main, ["db", "fetch", "--dest", str(dest), "--locale", "ko-KR",
                                    "--locale", "en-US", "--cdb-url-template",
                                    (src / "x").as_uri()[:-1] + "{locale}.cdb",
                                    "--lflist-url", sources["lflist.conf"].as_uri()])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in dest.iterdir()) == ["cards.cdb", "cards.en-US.cdb", "lflist.conf"]
    monkeypatch.setenv("DECKSHEET_DATA_DIR", str(dest))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for var in ("DECKSHEET_CARD_DB", "DECKSHEET_ALIASES", "DECKSHEET_LFLIST", "DECKSHEET_LIST"):
        monkeypatch.delenv(var, raising=False)
    info = json.loads(CliRunner().invoke(main, ["db", "info", "--json"]).stdout)
    assert [s["role"] for s in info["sources"]] == ["card-db", "locale"]
    assert info["alias_rows_loaded"] == 1 and not info["demo"]
    for text in ("Ash Blossom & Joyous Spring", "ash blossom & joyous spring", "하루 우라라"):
        found = json.loads(CliRunner().invoke(main, ["db", "search", text, "--json"]).stdout)
        assert found[0]["card_id"] == 14558127 and found[0]["name"] == "하루 우라라", text
    # a later fetch of one locale removes the other locale's file (it would still be loaded)
    assert fetch(dest, sources["cards.cdb"], sources["lflist.conf"]).exit_code == 0
    assert sorted(p.name for p in dest.iterdir()) == ["cards.cdb", "lflist.conf"]


def test_bad_locale_names_are_refused(tmp_path, sources):
    res = fetch(tmp_path / "d", sources["cards.cdb"], sources["lflist.conf"], "--locale", "../x")
    assert res.exit_code == 2 and "not a locale name" in res.output
