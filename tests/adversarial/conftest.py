"""Helpers of the adversarial suite: run the CLI in-process and judge its answer."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from scanner.cli import main

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"


def run(*args, input: bytes | str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def stderr_lines(res) -> list[str]:
    return [ln for ln in res.stderr.splitlines() if "DEMO card database" not in ln]


def assert_refused(res, *, mentions: str | None = None) -> str:
    """Exit 2 with exactly one `decksheet: error:` line, no traceback, no internal error."""
    assert res.exit_code == 2, (res.exit_code, res.stdout[:500], res.stderr[:500])
    lines = stderr_lines(res)
    assert len(lines) == 1 and lines[0].startswith("decksheet: error: "), res.stderr[:1000]
    assert "internal error" not in lines[0] and "Traceback" not in res.stderr, lines[0]
    if mentions:
        assert mentions in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def env(clean_env):
    """The caller's DECKSHEET_* variables removed: the demo database applies."""
    return clean_env
