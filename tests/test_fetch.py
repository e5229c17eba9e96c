"""`decksheet db fetch` against local file:// URLs: install, corrupt downloads, checksums."""
from __future__ import annotations

import hashlib
import shutil
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
    return CliRunner().invoke(main, ["db", "fetch", "--dest", str(dest), "--cdb-url", cdb.as_uri(),
                                     "--lflist-url", lflist.as_uri(), *extra])


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
