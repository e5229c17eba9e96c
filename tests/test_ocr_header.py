"""The db-ko header's player name: reported only when two scales read it alike, confidently."""
from __future__ import annotations

import numpy as np

from scanner.ocr.engine import OcrText
from scanner.ocr.header import _sure_name


class ScaledReads:
    """Answers a read by the image's width (i.e. by the scale the reader chose)."""

    def __init__(self, by_width: dict[int, OcrText]) -> None:
        self.by_width = by_width
        self.widths: list[int] = []

    def read(self, img: np.ndarray, lang: str = "kor", psm: int = 7, **_) -> OcrText:
        self.widths.append(img.shape[1])
        return self.by_width[img.shape[1]]


BOX = np.full((20, 40), 255, np.uint8)  # read at 1.5× (60 px wide) and 2× (80 px wide)


def test_a_name_both_scales_read_alike_is_kept():
    tess = ScaledReads({60: OcrText("홍 재", 0.9), 80: OcrText("홍재", 0.92)})
    assert _sure_name(BOX, tess) == "홍재"


def test_a_syllable_misread_at_one_scale_gives_no_name():
    # fixture-like case: 홍재 read 홍개 at 1.5× (0.86), nothing at 2×
    assert _sure_name(BOX, ScaledReads({60: OcrText("홍개", 0.86), 80: OcrText("", 0.0)})) is None
    assert _sure_name(BOX, ScaledReads({60: OcrText("홍개", 0.9), 80: OcrText("홍재", 0.9)})) is None


def test_an_unsure_or_non_name_read_stops_before_the_second_read():
    tess = ScaledReads({60: OcrText("홍재", 0.80), 80: OcrText("홍재", 0.95)})
    assert _sure_name(BOX, tess) is None and tess.widths == [60]
    tess = ScaledReads({60: OcrText("홍재7", 0.95), 80: OcrText("홍재", 0.95)})
    assert _sure_name(BOX, tess) is None and tess.widths == [60]
