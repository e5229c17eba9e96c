"""`scan` of many inputs reads them on several processes and reports them in the given order,
each exactly as a one-process run does; a bad input in the batch loses none of the others."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from scanner.cli import main

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _scan(*args: str):
    return CliRunner().invoke(main, ["scan", "--json", *args])


def test_a_batch_on_two_processes_equals_one_process(clean_env, tmp_path):
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.7\n garbage")
    inputs = [str(p) for p in sorted((SAMPLES / "sheets").glob("*.pdf"))]
    inputs += [str(SAMPLES / "decks" / "legal.ydk"), str(bad), str(SAMPLES / "decks" / "illegal.txt")]
    one = _scan("-j", "1", *inputs)
    two = _scan("-j", "2", *inputs)
    assert one.exit_code == two.exit_code == 2  # the broken file, reported beside the others
    assert "broken.pdf" in two.stderr
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    assert [d["source"]["path"] for d in b] == [p for p in inputs if p != str(bad)]
    assert a == b
