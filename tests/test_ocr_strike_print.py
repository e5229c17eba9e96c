"""A strike only the Hough detector sees is the print's own bars when the name's rendering fits
the cell (scanner/ocr/rows.py `print_fits`): bold dense Hangul (the ㅡ of 크, 트, 프 in a row)
chains into a "strike"; a real pen line is ink the rendering lacks.

Crops of generated pages (samples/make_photos.py): seed 1313 kde-photo-06 (a printed row Hough
took for struck) and seed 1212 photo-corrected-01 (a row struck with a thin pen line that only
Hough saw, its name still read exactly by OCR)."""
from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from needs import require

from scanner.ocr.corrections import row_struck
from scanner.ocr.marks import row_marks
from scanner.ocr.names import NameMatch, Vocabulary
from scanner.ocr.rows import print_fits
from scanner.ocr.verify import available_families

DATA = Path(__file__).parent / "data"
CASES = {  # name → (row crop, name crop, struck in truth)
    "섬도술식－시저즈크로스": ("hough-bars-row.png", "hough-bars-name.png", False),
    "웅장한 번개 제왕 자보르그": ("thin-strike-row.png", "thin-strike-name.png", True),
}


@pytest.fixture(autouse=True)
def _fonts():
    require("NanumBarunGothic" in available_families(), "needs fonts-nanum")


def _vocab(family: str | None) -> Vocabulary:
    v = Vocabulary.from_names((i, n, "spell") for i, n in enumerate(CASES, 1))
    v.renderer.family = family
    return v


def _load(name: str):
    return cv2.imread(str(DATA / name), cv2.IMREAD_GRAYSCALE)


@pytest.mark.parametrize("name", list(CASES))
def test_only_hough_sees_a_strike_on_both_rows(name):
    row = _load(CASES[name][0])
    assert row_marks(row).struck and not row_struck(row)  # the premise: both would be flagged


@pytest.mark.parametrize("family", [None, "NanumBarunGothic"])
@pytest.mark.parametrize("name", list(CASES))
def test_the_print_fits_its_rendering_only_where_no_pen_line_crosses_it(name, family):
    vocab = _vocab(family)
    card = next(c for c, n in vocab.names.items() if n == name)
    fits = print_fits(_load(CASES[name][1]), NameMatch(card, name, 1.0, 0.4), vocab)
    assert fits is not CASES[name][2]


def test_no_known_card_or_font_clears_nothing():
    vocab = _vocab(None)
    cell = _load(CASES["섬도술식－시저즈크로스"][1])
    assert not print_fits(cell, NameMatch(None, "", 0.0, 0.0), vocab)
    vocab.renderer.families = {}
    assert not print_fits(cell, NameMatch(1, "섬도술식－시저즈크로스", 1.0, 0.4), vocab)
