"""Row marks: strike-through and pen handwriting (synthetic photos + fixture photos)."""
from __future__ import annotations

import numpy as np
import pytest

from tools.make_digit_templates import real_cases, synth_row
from scanner.ocr.marks import RowMarks, row_marks


def _rows(kind: str, n: int, seed: int):
    rng = np.random.default_rng(seed)
    return [synth_row(rng, kind) for _ in range(n)]


def test_struck_rows_found_and_clean_rows_not():
    struck = [row_marks(g) for g, _, _ in _rows("struck", 30, 21)]
    clean = [row_marks(g, b) for g, b, _ in _rows("printed", 30, 22)]
    assert sum(r.struck for r in struck) >= 29
    assert sum(r.struck for r in clean) == 0
    assert min(r.strike_confidence for r in struck if r.struck) >= 0.5


def test_handwriting_found():
    hand = [row_marks(g, b if i % 2 else None) for i, (g, b, _) in enumerate(_rows("hand", 20, 23))]
    left = [row_marks(g) for g, _, _ in _rows("count-left", 20, 24)]
    assert all(r.handwriting for r in hand)
    assert sum(r.handwriting for r in left) >= 18


def test_blue_pen_detected_by_colour():
    rng = np.random.default_rng(25)
    for _ in range(40):
        g, b, t = synth_row(rng, "hand")
        if t.extra["colour"] == "blue":
            r = row_marks(g, b)
            assert r.handwriting and "blue" in r.detail
            return
    raise AssertionError("no blue row generated")


def test_empty_and_bad_rows():
    assert row_marks(np.full((44, 500), 255, np.uint8)) == RowMarks(False, 0.0, False, 0.0, "no ink")
    assert not row_marks(np.zeros((0, 10), np.uint8)).struck


@pytest.mark.slow  # many OCR pages: ~10 s
def test_fixture_photo_rows(fixtures_dir):
    tp = fp = hand_tp = hand_n = hand_fp = 0
    for sheet, col, row, kind, bgr, gray, _, _, _, _, row_struck, hand in real_cases(fixtures_dir / "sheets"):
        m = row_marks(gray, bgr)
        tp += row_struck and m.struck
        fp += (not row_struck) and m.struck
        if hand:
            hand_n += 1
            hand_tp += m.handwriting
        elif not row_struck and kind != "count-right":
            hand_fp += m.handwriting
    assert tp >= 5 and fp == 0
    assert hand_tp == hand_n >= 5
    assert hand_fp <= 3


def test_strike_gate_skips_the_hough_transform_only_where_no_strike_can_be(monkeypatch):
    """`strike_room` settles most rows without HoughLinesP; on the sample corrected photos'
    rows (struck, hand-written, printed, empty) and synthetic ones every row's marks are the
    same as with the transform run on every row, struck rows included."""
    from pathlib import Path

    import scanner.ocr.marks as marks

    photos = Path(__file__).resolve().parent.parent / "samples" / "photos"
    rows = [(gray, bgr) for *_, bgr, gray, _, _, _, _, _, _ in real_cases(photos)]
    rows += [(g, b) for kind, seed in (("struck", 31), ("printed", 32)) for g, b, _ in _rows(kind, 15, seed)]
    skipped: list[bool] = []
    real_gate = marks.strike_room
    monkeypatch.setattr(marks, "strike_room",
                        lambda ink, *tuning: skipped.append(not real_gate(ink, *tuning)) or real_gate(ink, *tuning))
    gated = [row_marks(g, b) for g, b in rows]
    monkeypatch.setattr(marks, "strike_room", lambda ink, *tuning: True)
    every = [row_marks(g, b) for g, b in rows]
    assert gated == every
    assert sum(m.struck for m in every) >= 15  # the struck rows went through the gate
    assert sum(skipped) >= 0.6 * len(skipped)


def test_a_wavy_strike_of_large_amplitude_is_found():
    """A pen line waving across the text by more than a strike's on-ink tolerance (a quick hand
    stroke on a phone photo: ±4 px of a 48 px row, a wave or two along the row) strays from
    the chord of its ends: it is measured along its chained pieces (before: none found)."""
    import cv2

    rng = np.random.default_rng(41)
    found = 0
    for g, _, _ in _rows("printed", 10, 40):
        h, w = g.shape
        amp = 0.08 * h * rng.uniform(0.9, 1.1)
        xs = np.arange(int(0.05 * w), int(0.9 * w))
        ys = h * 0.55 + amp * np.sin(2 * np.pi * xs / (w * rng.uniform(0.5, 0.8)) + rng.uniform(0, 6))
        row = g.copy()
        pts = np.stack([xs, ys], axis=1).round().astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(row, [pts], False, 40, thickness=max(2, int(h / 16)), lineType=cv2.LINE_AA)
        assert not row_marks(g).struck
        found += row_marks(row).struck
    assert found >= 9
