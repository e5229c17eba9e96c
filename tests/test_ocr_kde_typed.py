"""Typed names on a photographed Konami form are told from hand-written ones by rendering
(`rows.looks_typed`): names in Latin letters or symbols must fit as typed, pen names must not
(issue 14). The crops are name cells of generated kde-photo / kde-hand pages (seed 9202)."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from needs import require

from scanner.ocr.names import NameMatch
from scanner.ocr.rows import LATIN_BLUR, TYPED_LIKENESS, looks_typed
from scanner.ocr.verify import NameRenderer, available_families, cell_name_ink, compare, render_name

DATA = Path(__file__).resolve().parent / "data"
FAMILIES = available_families()


@pytest.fixture(autouse=True)
def _fonts():
    require(set(FAMILIES) == {"NanumGothic", "NanumBarunGothic", "NanumMyeongjo", "NanumSquare"},
            "needs fonts-nanum (apt-get install fonts-nanum)")


def crop(name: str) -> np.ndarray:
    img = cv2.imread(str(DATA / name), cv2.IMREAD_GRAYSCALE)
    assert img is not None, name
    return img


def renderer(family: str | None, blur: float = 1.0) -> NameRenderer:
    """A page's renderer as it stands once it has settled (or not yet guessed) the page's font."""
    r = NameRenderer()
    r.family, r.blur = family, blur
    return r


def typed(img: np.ndarray, name: str, r: NameRenderer) -> bool:
    return looks_typed(img, NameMatch(1, name, 1.0, 1.0, [(1, name, 1.0)]), SimpleNamespace(renderer=r))


def test_a_glyph_neither_the_font_nor_dejavu_has_is_drawn_from_nanum_gothic():
    """`・` (U+30FB) is in neither Nanum Myeongjo nor DejaVu Sans: it was drawn as a blank box
    from the sheet's font, and the typed `X・Y・Z 컴바인` of a Myeongjo page (kde-photo-03) fit
    its rendering at 0.4, so it was flagged 'handwritten'."""
    name = "X・Y・Z 컴바인"
    cell = crop("kde-typed-myeongjo-dots.png")
    ink = cell_name_ink(cell)
    assert ink is not None
    got = compare(ink, render_name(name, FAMILIES["NanumMyeongjo"]), blur=2.4).score
    assert got >= 0.8, got
    assert typed(cell, name, renderer("NanumMyeongjo", 2.4))
    # the rendering differs from one without the dots only where the dots are: it is no box
    boxless = render_name("X Y Z 컴바인", FAMILIES["NanumMyeongjo"])
    dotted = render_name(name, FAMILIES["NanumMyeongjo"])
    assert abs(dotted.shape[1] - boxless.shape[1]) < 0.1 * boxless.shape[1]
    assert (dotted < 128).sum() - (boxless < 128).sum() < 0.05 * (dotted < 128).sum()


def test_a_typed_latin_name_is_typed_when_the_page_font_was_taken_for_its_twin():
    """kde-photo-02 is printed in Nanum Square; its Hangul names fit Nanum Barun Gothic as well,
    and the renderer settled on that. `The Fallen & The Virtuous` fits its rendering in Barun
    Gothic below TYPED_LIKENESS (flagged 'handwritten'), in Square at 0.8: typed."""
    name = "The Fallen & The Virtuous"
    cell = crop("kde-typed-square-latin.png")
    r = renderer("NanumBarunGothic", 1.6)
    assert r.likeness(cell_name_ink(cell), name).score < TYPED_LIKENESS
    assert typed(cell, name, r)


@pytest.mark.parametrize("family,blur", [(None, 1.0), ("NanumBarunGothic", 2.4), ("NanumSquare", 1.6),
                                         ("NanumMyeongjo", 1.0)])
def test_a_pen_written_latin_name_is_never_typed(family, blur):
    """`Couple of Aces` written in Nanum Pen (kde-hand-08): the pen name that comes nearest a
    font on the generated sets (0.58, Barun Gothic at the softest blur). Whatever font and blur
    the page settled on, it stays hand-written."""
    cell = crop("kde-pen-latin.png")
    assert not typed(cell, "Couple of Aces", renderer(family, blur))
    for fam, path in FAMILIES.items():
        best = max(compare(cell_name_ink(cell), render_name("Couple of Aces", path), blur=b).score
                   for b in (1.0, 1.6, 2.4))
        assert best < TYPED_LIKENESS, (fam, best)



def test_a_name_in_capitals_is_no_row_number_on_the_form(real_db):
    """seed 1212 kde-scan-04: `EXP`, typed in NanumGothic 8 pt, is read `6` by `kor`, small
    beside the cell: on a sheet that prints row numbers that is an empty row's number. Konami's
    form prints none (`Layout.row_numbers`): the line goes on to `kor+eng` and resolves."""
    from scanner.ocr.engine import Tesseract
    from scanner.ocr.names import Vocabulary, read_name
    cell = cv2.imread(str(Path(__file__).resolve().parent / "data" / "kde-name-capitals-exp.png"),
                      cv2.IMREAD_GRAYSCALE)
    tess, vocab = Tesseract(), Vocabulary.build(real_db)
    scale = 48 / (cell.shape[0] + 6)
    got = read_name(cell, "spell", tess, vocab, scale=scale, numbers_in_cell=False, row_numbers=False)
    assert (got.match.name, got.flags) == ("EXP", [])
    got = read_name(cell, "spell", tess, vocab, scale=scale, numbers_in_cell=False, row_numbers=True)
    assert got.row_number_only and got.match.card_id is None


def test_a_brush_written_latin_name_is_not_typed():
    """seed 701 kde-hand-08: `Light Bringer Lucifer` written with a brush fit NanumBarunGothic
    blurred 2.4 at 0.64: read exactly by kor+eng, it stood unflagged on a hand-filled form.
    Latin letters are compared with renderings blurred at most LATIN_BLUR, where the brush fits
    no font; typed Latin names do (`Ashtraya Mikumari-no-Mikoto`, seed 1212 kde-scan-07, fits
    NanumMyeongjo at 0.64 sharp, 0.70 at 1.6)."""
    require("NanumBarunGothic" in available_families(), "needs fonts-nanum (apt-get install fonts-nanum)")
    data = Path(__file__).resolve().parent / "data"
    renderer = NameRenderer()

    def fits(cell, name, blurs):
        return max(compare(cell_name_ink(cell), renderer.rendered(name, fam), blur=b).score
                   for fam in available_families() for b in blurs)
    name = "Light Bringer Lucifer"
    cell = cv2.imread(str(data / "kde-hand-brush-latin-name.png"), cv2.IMREAD_GRAYSCALE)
    match = NameMatch(1, name, 1.0, 1.0, [(1, name, 1.0)])
    assert not looks_typed(cell, match, SimpleNamespace(renderer=NameRenderer()))
    assert fits(cell, name, (2.4,)) >= TYPED_LIKENESS > fits(cell, name, (1.0, LATIN_BLUR))
    name = "Ashtraya Mikumari-no-Mikoto"
    require("NanumMyeongjo" in available_families(), "needs fonts-nanum (apt-get install fonts-nanum)")
    typed = cv2.imread(str(data / "kde-typed-latin-name.png"), cv2.IMREAD_GRAYSCALE)
    assert looks_typed(typed, NameMatch(1, name, 1.0, 1.0, [(1, name, 1.0)]),
                       SimpleNamespace(renderer=NameRenderer()))
