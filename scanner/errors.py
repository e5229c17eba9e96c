"""Exit codes of the contract and the exceptions that carry them.

The library raises; only the CLI turns an exception into a one-line message and an exit code.
"""
from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    """Read / legal / match / done and clean."""
    FINDINGS = 1
    """Infractions, mismatch, or lines needing review."""
    REFUSED = 2
    """The input cannot be read at all, or the request was refused."""


class DecksheetError(Exception):
    """Base error: `str(exc)` is the one line shown to the user."""

    exit_code: ExitCode = ExitCode.REFUSED


class UnreadableInput(DecksheetError):
    """The input is not something decksheet can read (corrupt, empty, encrypted, not a sheet)."""


class CardDatabaseError(DecksheetError):
    """The card database is missing, corrupt or of the wrong schema."""


class RegulationError(DecksheetError):
    """The limit list file is missing, malformed, or has no list of that name/date."""


class EventError(DecksheetError):
    """The event store refuses the request (no event, unknown player, ...)."""


class MissingToolError(DecksheetError):
    """An external program (tesseract, pdftoppm) is not installed."""
