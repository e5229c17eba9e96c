"""Every user-facing error text, one table per language (`en`, `ko`), keyed by error code.

A code names what happened (`area.what`); its parameters fill the text's `{name}` fields. Every
code has a text in every language (tests/test_messages.py). The Korean texts never name a CLI
flag: they are read at the station, where the choice is a button.
"""
from __future__ import annotations

import os
import re
from typing import Any

from card_db.messages import en, ko

TABLES: dict[str, dict[str, str]] = {"en": en.MESSAGES, "ko": ko.MESSAGES}
LANGS = tuple(TABLES)
ENV_LANG = "DECKSHEET_LANG"
_CODE = re.compile(r"^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$")


def is_code(text: str) -> bool:
    return bool(_CODE.match(text)) and text in en.MESSAGES


def lang_from_env(default: str = "en") -> str:
    """The CLI's language: DECKSHEET_LANG (`ko` or `en`), else `default`."""
    lang = (os.environ.get(ENV_LANG) or "").strip().lower()[:2]
    return lang if lang in TABLES else default


class _Params(dict):
    def __missing__(self, key: str) -> str:  # a missing parameter shows as "?", never raises
        return "?"


def render(code: str, params: dict[str, Any], lang: str = "en") -> str:
    table = TABLES.get(lang, en.MESSAGES)
    template = table.get(code) or en.MESSAGES.get(code) or code
    shown = _Params({k: _one_line(v) for k, v in params.items()})
    return template.format_map(shown)


def _one_line(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        value = ", ".join(str(v) for v in value)
    text = " ".join(str(value).split())
    return text if len(text) <= 300 else text[:299] + "…"
