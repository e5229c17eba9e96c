"""Test fixtures: the project's own samples always; ../shared (real card data, fixtures) when present."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from needs import require

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DECKSHEET_SHARED", REPO.parent / "shared"))
SAMPLES = REPO / "samples"


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run slow tests (many OCR pages)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def _need(path: Path) -> Path:
    require(path.exists(), f"needs {path} (the shared card data / fixtures are not beside this checkout)")
    return path


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return _need(SHARED)


@pytest.fixture(scope="session")
def real_db_path(shared_dir) -> Path:
    return _need(shared_dir / "carddb" / "ko-KR.cdb")


@pytest.fixture(scope="session")
def real_db(real_db_path):
    from card_db.cdb import load_card_db
    return load_card_db(real_db_path)


@pytest.fixture(scope="session")
def real_lflist_path(shared_dir) -> Path:
    return _need(shared_dir / "carddb" / "lflist.conf")


@pytest.fixture(scope="session")
def ko_en_db(shared_dir):
    """The Korean and the English card databases together (English names resolve)."""
    from card_db.cdb import load_card_db
    return load_card_db([_need(shared_dir / "carddb" / "ko-KR.cdb"), _need(shared_dir / "carddb" / "en-US.cdb")])


@pytest.fixture(scope="session")
def en_names(shared_dir) -> dict[int, str]:
    """Passcode → English name (../shared/carddb/en-US.cdb)."""
    import sqlite3
    con = sqlite3.connect(_need(shared_dir / "carddb" / "en-US.cdb"))
    try:
        return {int(i): n for i, n in con.execute("select id, name from texts")}
    finally:
        con.close()


@pytest.fixture(scope="session")
def fixtures_dir(shared_dir) -> Path:
    return _need(shared_dir / "fixtures")


@pytest.fixture(scope="session")
def demo_db():
    from card_db.cdb import demo_db_path, load_card_db
    if not demo_db_path().is_file():
        pytest.fail("the shipped demo database card_db/data/demo.cdb is missing")
    return load_card_db(demo_db_path())


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """No DECKSHEET_* from the caller's shell, no fetched data: the demo database applies."""
    for var in ("DECKSHEET_CARD_DB", "DECKSHEET_ALIASES", "DECKSHEET_LFLIST", "DECKSHEET_LIST",
                "DECKSHEET_EVENT", "DECKSHEET_JUDGE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("DECKSHEET_DATA_DIR", str(tmp_path / "no-fetched-data"))
    return monkeypatch


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL for the session (skipped with its reason where none is installed;
    under CI=true a missing PostgreSQL fails)."""
    from pg_server import PgServer, pg_bindir, wait_ready
    require(pg_bindir() is not None,
            "needs PostgreSQL server binaries (Debian package 'postgresql': make system)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        require(False, "needs psycopg (pip install -e '.[test]')")
    try:
        server = PgServer.start()
    except RuntimeError as exc:
        require(False, f"could not start a PostgreSQL server: {exc}")
    wait_ready(server)
    yield server
    server.stop()


@pytest.fixture
def pg_db(pg_server, request):
    """A fresh database of that server, per test: its URL without ?event=."""
    import re
    name = "t_" + re.sub(r"[^a-z0-9]", "_", request.node.name.lower())[:50] + f"_{os.getpid()}"
    import psycopg
    with psycopg.connect(pg_server.url(), autocommit=True) as con:
        con.execute(f'DROP DATABASE IF EXISTS "{name}"')
        con.execute(f'CREATE DATABASE "{name}"')
    return pg_server.url(db=name)
