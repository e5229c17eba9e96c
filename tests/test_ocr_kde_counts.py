"""Count cells of a photographed Konami form (scanner/ocr/counts.py, `whole=True` on the form):
a digit's own straight stroke is no strike (issue 14). Crops are count cells of a generated
kde-photo page (seed 9404, sheet 5: Nanum Myeongjo, JPEG 58-64, small in the frame)."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tools.make_digit_templates import synth_count_cell
from scanner.ocr.counts import read_count_cell

DATA = Path(__file__).resolve().parent / "data"


@pytest.mark.parametrize("name", ["kde-count-serif-2-blocky.png", "kde-count-serif-2-soft.png"])
def test_the_diagonal_of_a_serif_2_is_not_a_strike(name):
    """On a soft, blocky photo the diagonal of a Myeongjo 2 is a straight line from its arc to
    its foot; cut out, it runs past each piece it leaves, and the 2 was read `struck [5]` /
    `struck [2]` (the count lost, the line flagged). It stays inside the digit as a whole."""
    cell = cv2.imread(str(DATA / name), cv2.IMREAD_GRAYSCALE)
    assert cell is not None
    assert read_count_cell(cell).struck  # the check every other sheet keeps
    got = read_count_cell(cell, whole=True)
    assert (got.value, got.struck) == (2, False) and got.confidence >= 0.5, got


def test_on_the_form_a_struck_count_is_still_struck():
    """Pen strikes (slash, dash, double dash) run out past the digit: with `whole` no struck
    cell is reported clean, and corrected cells keep their strike."""
    rng = np.random.default_rng(12)
    for _ in range(60):
        g, _, truth = synth_count_cell(rng, "struck-only")
        r = read_count_cell(g, whole=True)
        assert r.struck or r.value is None or r.confidence < 0.5, (truth, r)
    rng = np.random.default_rng(13)
    cells = [synth_count_cell(rng, "struck") for _ in range(60)]
    reads = [read_count_cell(g, whole=True) for g, _, _ in cells]
    assert sum(r.struck for r in reads) >= 56
    assert all(r.struck for r, (_, _, t) in zip(reads, cells) if r.value != t.value and r.value is not None)
