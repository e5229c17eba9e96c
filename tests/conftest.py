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
