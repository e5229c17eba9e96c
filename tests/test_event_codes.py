"""The event layer and the station's queue raise only coded errors: every raise of a decksheet
error class there names a code of the message table (so a judge reads a Korean line for it, on
either store), never free text."""
from __future__ import annotations

import ast
from pathlib import Path

import scanner.errors
from card_db import messages
from card_db.errors import DecksheetError

REPO = Path(__file__).resolve().parent.parent
AREA = [*(REPO / "scanner" / "event").glob("*.py"),
        *(REPO / "scanner" / "web").glob("station_store*.py")]
ERRORS = {name for name, obj in vars(scanner.errors).items()
          if isinstance(obj, type) and issubclass(obj, DecksheetError)} | {"NeedsDecision"}


def _raises(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in ERRORS:
                yield node.lineno, node.exc.args[0] if node.exc.args else None


def test_every_raise_in_the_event_layer_names_a_code():
    seen, free = 0, []
    for path in AREA:
        for line, first in _raises(path):
            seen += 1
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)
                    and messages.is_code(first.value)):
                free.append(f"{path.relative_to(REPO)}:{line}")
    assert seen > 50 and free == [], free
