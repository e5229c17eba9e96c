"""The `decksheet` command. Each subcommand wraps one library call; no stage imports this."""
from __future__ import annotations

import click

from scanner.cli.common import main
from scanner.cli import db_cmds, scan_cmd  # noqa: F401  (registers commands)

# Commands owned by later stages register themselves when their module exists.
for _mod in ("check_cmd", "compare_cmd", "event_cmds", "serve_cmd", "circuit_cmds"):
    try:
        __import__(f"scanner.cli.{_mod}")
    except ModuleNotFoundError as _exc:  # pragma: no cover - only while a stage is missing
        if _exc.name != f"scanner.cli.{_mod}":
            raise

__all__ = ["main", "click"]
