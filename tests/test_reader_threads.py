"""The reader's small matrix products run on one OpenBLAS thread (its workers only spin on the
other cores: ≈ 0.9 s of processor time a hand-filled form), unless the user set the count."""
from __future__ import annotations

import os
import subprocess
import sys

PROBE = "import scanner, numpy, os; print(os.environ['OPENBLAS_NUM_THREADS'])"


def _threads(env: dict[str, str]) -> str:
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_one_openblas_thread_unless_the_user_says_otherwise():
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _threads(env) == "1"
    assert _threads({**env, "OPENBLAS_NUM_THREADS": "3"}) == "3"
