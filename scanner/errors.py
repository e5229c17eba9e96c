"""Exit codes of the contract and the exceptions that carry them.

The library raises; only the CLI turns an exception into a one-line message and an exit code.
"""
from __future__ import annotations

import enum

from card_db.errors import CardDatabaseError, DecksheetError, FetchError, RegulationError

__all__ = ["ExitCode", "DecksheetError", "CardDatabaseError", "RegulationError", "FetchError",
           "UnreadableInput", "EventError", "MissingToolError"]


class ExitCode(enum.IntEnum):
    OK = 0
    """Read / legal / match / done and clean."""
    FINDINGS = 1
    """Infractions, mismatch, or lines needing review."""
    REFUSED = 2
    """The input cannot be read at all, or the request was refused."""


class UnreadableInput(DecksheetError):
    """The input is not something decksheet can read (corrupt, empty, encrypted, not a sheet)."""

    fallback_code = "input.unreadable"


class EventError(DecksheetError):
    """The event store refuses the request (no event, unknown player, ...)."""

    fallback_code = "event.refused"


class MissingToolError(DecksheetError):
    """An external program (Tesseract and its language models) is not installed."""

    fallback_code = "tool.missing"
