"""The project's own sheet generators (`samples/make_photos.py`, `samples/kde_paper.py`) as
modules, for tests and benches that make sheets the way `make photos` does: loaded once."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def make_photos() -> ModuleType:
    """samples/make_photos.py (samples/ put on sys.path: it imports its neighbours by name)."""
    if str(SAMPLES) not in sys.path:
        sys.path.insert(0, str(SAMPLES))
    if "make_photos" not in sys.modules:
        spec = importlib.util.spec_from_file_location("make_photos", SAMPLES / "make_photos.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["make_photos"] = module
        spec.loader.exec_module(module)
    return sys.modules["make_photos"]


def kde_paper() -> ModuleType:
    """samples/kde_paper.py (Konami's form filled in, by hand or typed)."""
    make_photos()
    import kde_paper as module
    return module


def small_hand_deck(db):
    """The demo hero deck cut to a few lines a column (4 monsters, 3 spells, 2 traps, 3 extra,
    2 side): a hand-filled form the tests read quickly."""
    mp = make_photos()
    deck = mp.deck_from_ydk(SAMPLES / "decks_src" / "hero.ydk", db, **mp.PLAYERS["hero"])
    deck.columns = {"monster": deck.columns["monster"][:4], "spell": deck.columns["spell"][:3],
                    "trap": deck.columns["trap"][:2], "extra": deck.columns["extra"][:3],
                    "side": deck.columns["side"][:2]}
    return deck
