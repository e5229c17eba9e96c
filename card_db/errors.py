"""Errors of the card data layer, and the base of every decksheet error.

The base lives here, in the lowest layer, so that `card_db` stands on its own and the CLI can
still catch one class: `scanner.errors` builds on it.
"""
from __future__ import annotations


class DecksheetError(Exception):
    """Base error: `str(exc)` is the one line shown to the user."""

    exit_code: int = 2
    """The contract's exit status for this error (2: the input or request was refused)."""


class CardDatabaseError(DecksheetError):
    """The card database is missing, corrupt or of the wrong schema."""


class RegulationError(DecksheetError):
    """The limit list file is missing, malformed, or has no list of that name/date."""


class FetchError(DecksheetError):
    """A download of the card data failed or did not verify."""
