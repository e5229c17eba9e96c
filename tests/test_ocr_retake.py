"""A sheet small in its image whose printed lines mostly could not be read with confidence gets
one sheet-level review item asking for a closer photo or a finer scan (`retake-photo`), beside
its flagged lines; a legible sheet, a large clean image (a font the renderer lacks is not
helped by a retake) and the written lines of a hand-filled form never ask for one."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scanner.inputs.options import ReadOptions
from scanner.ocr.names import NameMatch
from scanner.ocr.pipeline import PageContext, advise_retake, read_image
from scanner.ocr.rows import RowRead

PHOTO = Path(__file__).resolve().parent.parent / "samples" / "photos" / "photo-01.jpg"


def _row(i: int, flags: list[str], handwritten: bool = False) -> RowRead:
    return RowRead(column="monster", row=i, text="x", text_conf=0.9, match=NameMatch(None, "", 0.0, 0.0),
                   count=1, count_conf=1.0, count_detail="", struck_row=False, count_struck=False,
                   handwritten=handwritten, flags=flags)


def _advice(rows: list[RowRead], is_scan: bool = False, width: int = 800) -> list:
    """What `advise_retake` says of `rows` read from a scan `width` pixels wide (the image is the page)."""
    ctx = PageContext(image=np.zeros((int(width * 1.41), width), np.uint8), db=None, options=ReadOptions(),
                      is_scan=is_scan, label="t", rows=rows)
    advise_retake(ctx)
    return [r for r in ctx.sheet.review if r.reason == "retake-photo"]


def test_retake_is_advised_when_most_printed_lines_are_in_doubt():
    doubts = ["uncertain-name", "count-unclear", "unresolved-name", "ambiguous-name"]
    few = [_row(i, [doubts[i % 4]] if i < 3 else []) for i in range(10)]
    many = [_row(i, [doubts[i % 4]] if i < 5 else []) for i in range(10)]
    assert _advice(few) == []
    got = _advice(many)
    assert len(got) == 1 and got[0].section is None and "10개 중 5개" in got[0].detail
    assert "다시 찍어" in got[0].detail and "다시 스캔" in _advice(many, is_scan=True)[0].detail
    assert _advice(many, width=1654) == []  # a 200 dpi page: the doubts are not the image's


def test_pen_marks_and_short_sheets_ask_for_nothing():
    written = [_row(i, ["handwritten", "uncertain-name"], handwritten=True) for i in range(12)]
    assert _advice(written + [_row(99, [])]) == []  # a hand-filled form: flagged by design
    assert _advice([_row(i, ["uncertain-name"]) for i in range(5)]) == []  # too few lines to judge
    assert _advice([_row(i, ["count-corrected", "possible-strike"]) for i in range(10)]) == []


@pytest.mark.slow
def test_a_sheet_small_and_soft_in_the_frame_asks_for_a_retake(demo_db):
    img = cv2.imread(str(PHOTO))
    opts = ReadOptions()
    sharp = read_image(img, demo_db, opts, is_scan=False, label="sharp")
    assert not [r for r in sharp.review if r.reason in ("retake-photo", "retake")]
    small = cv2.GaussianBlur(cv2.resize(img, None, fx=0.35, fy=0.35, interpolation=cv2.INTER_AREA), (0, 0), 1.2)
    frame = np.full_like(img, 40)  # the sheet a third of the frame wide on a dark table
    frame[:small.shape[0], :small.shape[1]] = small
    soft = read_image(frame, demo_db, opts, is_scan=False, label="soft")
    # One sheet-level item: `retake-photo`, or `retake` when tables were lost too (it then
    # says the page is small in the frame as well).
    advice = [r for r in soft.review if r.reason in ("retake-photo", "retake")]
    assert len(advice) == 1, soft.review[:3]
    assert advice[0].reason == "retake-photo" or "px뿐" in advice[0].detail, advice[0]
    assert sum(bool(line.flags) for line in soft.lines) >= 0.4 * len(soft.lines) > 0  # kept, flagged
