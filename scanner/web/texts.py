"""The station's Korean texts: every one is in the project's message table
(`card_db/messages`, codes `web.*`, with its English text); `ko(code)` renders one."""
from __future__ import annotations

from card_db import messages

PREFIX = "web."


def codes() -> list[str]:
    """The station's codes (without the prefix)."""
    return [c[len(PREFIX):] for c in messages.TABLES["ko"] if c.startswith(PREFIX)]


def ko(code: str, **params: object) -> str:
    """The Korean text of `code`, its parameters filled in."""
    return messages.render(PREFIX + code, params, "ko")
