"""Where card data lives: the fetched data directory and the shipped demo files."""
from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir


def data_dir() -> Path:
    """Where `decksheet db fetch` stores the downloaded database and lists."""
    return Path(os.environ.get("DECKSHEET_DATA_DIR") or user_data_dir("decksheet"))


def package_data(name: str) -> Path:
    """A file shipped in `card_db/data/`."""
    return Path(__file__).parent / "data" / name


def demo_db_path() -> Path:
    return package_data("demo.cdb")
