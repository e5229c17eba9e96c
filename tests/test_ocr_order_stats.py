"""The OCR reader's percentile and median (scanner/ocr/order_stats.py) must answer exactly as
numpy does: its thresholds were tuned on numpy's figures, and speed work may not move a line."""
from __future__ import annotations

import numpy as np
import pytest

from scanner.ocr.order_stats import median, percentile


def _arrays(seed: int):
    rng = np.random.default_rng(seed)
    for i in range(3000):
        n = int(rng.integers(1, 500))
        kind = i % 4
        if kind == 0:
            a = rng.integers(0, 256, n).astype(np.uint8)  # gray levels, ties everywhere
        elif kind == 1:
            a = (rng.random(n) * 255).astype(np.float32)  # blurred differences (binarize_cell)
        elif kind == 2:
            a = rng.random(n) * 255  # float64
        else:
            a = rng.integers(0, 256, (n, 3)).astype(np.uint8)[:, 1]  # a strided view
        yield a


@pytest.mark.parametrize("q", [0, 0.5, 5, 10, 50, 75, 90, 99.7, 100])
def test_percentile_is_numpys(q):
    for a in _arrays(int(q * 10)):
        got = percentile(a, q)
        assert type(got) is float
        assert got == float(np.percentile(a, q)), (a.dtype, a.size, q)


def test_median_is_numpys():
    for a in _arrays(1):
        assert median(a) == float(np.median(a)), (a.dtype, a.size)


def test_empty_is_an_error():
    with pytest.raises(ValueError):
        percentile(np.array([], np.uint8), 10)
    with pytest.raises(ValueError):
        median(np.array([], np.float32))
