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
    code = ("import os; os.environ.pop('OMP_THREAD_LIMIT', None); os.environ.pop('OPENCV_FOR_THREADS_NUM', None); "
            "from scanner.read import single_core_worker; single_core_worker(); import cv2; "
            "print(cv2.getNumThreads(), os.environ['OMP_THREAD_LIMIT'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout.split()
    assert out == ["1", "1"], out


def test_a_batch_forked_after_ocr_in_this_process_does_not_hang(clean_env):
    """`scan -j 2` forks its workers: after this process has run OpenCV (a photo read before),
    the workers must not touch OpenCV's inherited thread pool (they hung in setNumThreads)."""
    import subprocess
    import sys
    photo = SAMPLES / "photos" / "photo-01.jpg"
    code = ("import cv2, numpy as np; cv2.GaussianBlur(np.zeros((2000, 2000), np.uint8), (0, 0), 3); "
            "from click.testing import CliRunner; from scanner.cli import main; "
            f"r = CliRunner().invoke(main, ['scan', '-j', '2', {str(photo)!r}, {str(SAMPLES / 'decks' / 'legal.ydk')!r}]); "
            "print(r.exit_code)")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parent.parent)
    assert got.stdout.strip().splitlines()[-1] in ("0", "1"), got.stderr[-2000:]
