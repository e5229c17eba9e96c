"""Count cells: printed, hand-written, struck and corrected (synthetic photos + fixture photos)."""
from __future__ import annotations

import numpy as np
import pytest

from scanner.make_digit_templates import real_cases, synth_count_cell
from scanner.ocr_counts import CountRead, load_templates, read_count_cell, read_handwritten_count


def _cells(kind: str, n: int, seed: int):
    rng = np.random.default_rng(seed)
    return [synth_count_cell(rng, kind) for _ in range(n)]


def test_printed_counts_read_exactly():
    cells = _cells("printed", 60, 11)
    reads = [read_count_cell(g) for g, _, _ in cells]
    assert all(r.value == t.value and not r.struck for r, (_, _, t) in zip(reads, cells))
    assert min(r.confidence for r in reads) > 0.5


def test_struck_count_is_never_reported_clean():
    for g, _, truth in _cells("struck-only", 30, 12):
        r = read_count_cell(g)
        assert r.struck or r.value is None or r.confidence < 0.5, (truth, r)


def test_corrected_count_gives_new_value():
    cells = _cells("struck", 40, 13)
    reads = [read_count_cell(g) for g, _, _ in cells]
    assert sum(r.struck for r in reads) >= 36
    right = sum(r.value == t.value for r, (_, _, t) in zip(reads, cells))
    assert right >= 28
    # a wrong new value must still carry the strike, so the caller flags the line
    assert all(r.struck for r, (_, _, t) in zip(reads, cells) if r.value != t.value and r.value is not None)


def test_hand_digits_leave_one_font_out():
    """The pen font of the cell is not in the templates: the reader must generalise."""
    templates = load_templates()
    rng = np.random.default_rng(14)
    right = total = 0
    for font in ("NanumPen", "NanumBrush"):
        held = templates.without_font(font)
        for _ in range(15):
            g, _, t = synth_count_cell(rng, "hand", pen_fonts=[font])
            r = read_count_cell(g, templates=held)
            total += 1
            right += r.value == t.value
    assert right / total >= 0.8


def test_empty_and_bad_cells():
    assert read_count_cell(np.full((44, 90), 255, np.uint8)).value is None
    assert read_count_cell(np.zeros((0, 0), np.uint8)).value is None
    r = read_handwritten_count(np.full((3, 3), 255, np.uint8))
    assert isinstance(r, CountRead) and r.value is None and r.glyphs == 0


def test_fixture_photo_counts(fixtures_dir):
    """Printed counts of the corrected fixture photos read right; corrected cells are struck."""
    seen = printed_ok = printed = 0
    for sheet, col, row, kind, _, _, cell, beside, count, struck, row_struck, _ in real_cases(fixtures_dir / "sheets"):
        if kind == "empty":
            continue
        r = read_count_cell(cell, beside)
        if kind == "printed" and not row_struck:
            printed += 1
            printed_ok += r.value == count and not r.struck
        if kind.startswith("count-") or row_struck:
            seen += 1
            assert r.struck, (sheet, col, row, r)
    assert seen >= 5 and printed >= 60
    assert printed_ok >= printed - 1  # measured 81/82 (one clean cell flagged struck)
