"""Skips that say why, and that fail under CI, where every data file and tool is installed."""
from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
"""CI has ../shared beside the checkout: there a test that needs it must run, never skip."""


def require(ok: bool, reason: str) -> None:
    """Skip a test whose data or tool is missing, saying why; under CI (where everything is
    installed) fail instead, so a missing install step cannot hide behind a skip."""
    if ok:
        return
    if IN_CI:
        pytest.fail(f"CI=true but the test {reason}", pytrace=False)
    pytest.skip(reason)
