"""Errors of the card data layer, and the base of every decksheet error.

The base lives here, in the lowest layer, so that `card_db` stands on its own and the CLI can
still catch one class: `scanner.errors` builds on it.

An error carries a code and its parameters (`DecksheetError("event.duplicate-original",
players=..., count=...)`); its text, in English or Korean, comes from the one message table per
language (`card_db.messages`). `str(exc)` is the English line the CLI shows by default.
"""
from __future__ import annotations

from typing import Any

from card_db import messages


class DecksheetError(Exception):
    """Base error: `str(exc)` is the one English line shown to the user; `render("ko")` the
    Korean one."""

    exit_code: int = 2
    """The contract's exit status for this error (2: the input or request was refused)."""
    fallback_code: str = "error.refused"
    """The code an error raised with a free-text message (not yet given a code of its own) is
    shown under in a language other than English."""

    def __init__(self, code: str, /, **params: Any) -> None:
        if messages.is_code(code):
            self.code: str | None = code
            self.params = params
            text = messages.render(code, params, "en")
        else:  # a free-text message from code not converted to codes yet
            self.code, self.params, text = None, {"detail": code}, code
        super().__init__(text)

    def __reduce__(self):
        # Pickled across worker processes with its code and parameters (not re-parsed from text).
        return _restore, (type(self), self.args, self.__dict__)

    def render(self, lang: str = "en") -> str:
        """The one line in `lang` ("en" or "ko")."""
        if self.code is not None:
            return messages.render(self.code, self.params, lang)
        if lang == "en":
            return str(self)
        return messages.render(self.fallback_code, {}, lang)


def _restore(cls: type, args: tuple, state: dict) -> DecksheetError:
    exc = Exception.__new__(cls)
    exc.args = args
    exc.__dict__.update(state)
    return exc


class CardDatabaseError(DecksheetError):
    """The card database is missing, corrupt or of the wrong schema."""

    fallback_code = "carddb.unusable"


class RegulationError(DecksheetError):
    """The limit list file is missing, malformed, or has no list of that name/date."""

    fallback_code = "regulation.unusable"


class FetchError(DecksheetError):
    """A download of the card data failed or did not verify."""

    fallback_code = "fetch.failed"
