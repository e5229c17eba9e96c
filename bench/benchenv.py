"""What every bench script sets up before it imports the project: one OCR thread per reader (the
figures are per core), the repository and its tests' helpers (`renderings`, `camera`, …)
importable, and where ../shared and the results are.

    from benchenv import REPO, RESULTS, SHARED  # first, before the project's imports
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
REPO = Path(__file__).resolve().parent.parent
for _path in (REPO / "tests", REPO):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

SHARED = Path(os.environ.get("DECKSHEET_SHARED", REPO.parent / "shared"))
"""The shared fixtures, card databases and rules (read-only)."""
RESULTS = REPO / "bench" / "results"
"""Where each bench writes its JSON."""


def make_samples():
    """`samples/make_samples.py` as a module (it is a script, not a package): its sheet and
    deck drawers."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_samples", REPO / "samples" / "make_samples.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_samples", mod)
    spec.loader.exec_module(mod)
    return mod
