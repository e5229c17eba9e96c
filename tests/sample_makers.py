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
