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


def test_a_pool_worker_reads_on_one_core():
    """Every pool (scan -j, audit, the station) starts its workers with `single_core_worker`:
    OpenCV's thread pool and Tesseract's OpenMP threads would fight the other workers."""
    import subprocess
    import sys
    code = ("import os, cv2; os.environ.pop('OMP_THREAD_LIMIT', None); before = cv2.getNumThreads(); "
            "from scanner.read import single_core_worker; single_core_worker(); "
            "print(before, cv2.getNumThreads(), os.environ['OMP_THREAD_LIMIT'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout.split()
    assert out[1:] == ["1", "1"], out
