"""Covered text (issue 15, item 7): only an opaque shape painted after text and over it hides it.

Each page is drawn with reportlab: the words, then (or first) a fill or an image, so the paint
order is known; `hidden_runs` must name exactly the covered characters.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from scanner.pdf.hidden import hidden_runs

canvas_mod = pytest.importorskip("reportlab.pdfgen.canvas")
from reportlab.lib.utils import ImageReader  # noqa: E402  (after the importorskip)

H = 300.0  # page height (pt); tests speak in top-left coordinates like the reader


def _page(path: Path, draw) -> list:
    import pypdfium2 as pdfium

    cv = canvas_mod.Canvas(str(path), pagesize=(400, H))
    cv.setFont("Helvetica", 10)
    draw(cv)
    cv.save()
    doc = pdfium.PdfDocument(str(path))
    try:
        page = doc[0]
        try:
            return hidden_runs(page)
        finally:
            page.close()
    finally:
        doc.close()


def _words(cv, top: float = 100) -> None:
    """'KEEP' at x 20–48 and 'GONE' at x 120–150, baseline `top` pt from the page top."""
    cv.setFillColorRGB(0, 0, 0)
    cv.drawString(20, H - top, "KEEP")
    cv.drawString(120, H - top, "GONE")


def _box(cv, x0, top, x1, bottom, grey: float = 1.0, alpha: float = 1.0) -> None:
    cv.setFillColorRGB(grey, grey, grey)
    cv.setFillAlpha(alpha)
    cv.rect(x0, H - bottom, x1 - x0, bottom - top, fill=1, stroke=0)
    cv.setFillAlpha(1)


def test_a_white_box_drawn_after_a_word_hides_that_word_only(tmp_path):
    runs = _page(tmp_path / "p.pdf", lambda cv: (_words(cv), _box(cv, 110, 85, 170, 105)))
    assert [(r.text, r.cover) for r in runs] == [("GONE", "a white box")]
    x0, top, x1, bottom = runs[0].box
    assert 115 < x0 < 125 and 145 < x1 < 155 and 88 < top < bottom < 105


def test_a_grey_box_is_an_opaque_cover(tmp_path):
    runs = _page(tmp_path / "p.pdf", lambda cv: (_words(cv), _box(cv, 10, 85, 60, 105, grey=0.4)))
    assert [(r.text, r.cover) for r in runs] == [("KEEP", "an opaque box")]


def test_shading_drawn_before_the_text_hides_nothing(tmp_path):
    """Table header fills and grey title rows lie under the text they colour."""
    def draw(cv):
        _box(cv, 10, 85, 170, 105, grey=0.8)
        _box(cv, 0, 0, 400, 300, grey=1.0)  # a white page background, painted first
        _words(cv)
    assert _page(tmp_path / "p.pdf", draw) == []

    def shaded_and_covered(cv):
        _box(cv, 10, 85, 60, 105, grey=0.8)  # under 'KEEP'
        _words(cv)
        _box(cv, 110, 85, 170, 105)  # over 'GONE'
    assert [r.text for r in _page(tmp_path / "both.pdf", shaded_and_covered)] == ["GONE"]


def test_a_faint_fill_or_a_thin_rule_over_text_hides_nothing(tmp_path):
    def draw(cv):
        _words(cv)
        _box(cv, 110, 85, 170, 105, grey=0.9, alpha=0.3)  # a highlighter stroke
        _box(cv, 10, 96, 170, 97.5, grey=0.0)  # a strike-through rule, 1.5 pt
    assert _page(tmp_path / "p.pdf", draw) == []


def test_an_opaque_image_over_text_hides_it_a_transparent_one_does_not(tmp_path):
    solid = ImageReader(Image.new("RGB", (20, 10), "white"))
    rgba = np.zeros((10, 20, 4), np.uint8)
    rgba[..., :3] = 255  # white but fully transparent: a PNG with an alpha channel
    clear = ImageReader(Image.fromarray(rgba, "RGBA"))

    def draw(cv, image, mask):
        _words(cv)
        cv.drawImage(image, 110, H - 105, width=60, height=20, mask=mask)

    runs = _page(tmp_path / "solid.pdf", lambda cv: draw(cv, solid, None))
    assert [(r.text, r.cover) for r in runs] == [("GONE", "an image")]
    assert _page(tmp_path / "clear.pdf", lambda cv: draw(cv, clear, "auto")) == []


def test_an_image_hides_text_only_where_it_is_opaque(tmp_path):
    """One image over two lines: opaque in its top-right quarter only, so only 'GONE' of the
    upper line is hidden (the image's own alpha, read where each character lies)."""
    rgba = np.full((20, 40, 4), 255, np.uint8)
    rgba[..., 3] = 0
    rgba[:10, 20:, 3] = 255

    def draw(cv):
        _words(cv, top=100)
        _words(cv, top=120)
        cv.drawImage(ImageReader(Image.fromarray(rgba, "RGBA")), 10, H - 130, width=160, height=40,
                     mask="auto")

    runs = _page(tmp_path / "p.pdf", draw)
    assert [(r.text, r.cover) for r in runs] == [("GONE", "an image")]
    assert runs[0].box[1] < 100


def test_a_form_xobject_is_placed_by_its_matrix(tmp_path):
    """Text inside a form drawn scaled and moved, a cover over where it lands on the page: hidden.
    A cover at the form's own (untransformed) coordinates hides nothing."""
    def draw(cv, cover_box):
        cv.beginForm("words")
        _words(cv)
        cv.endForm()
        cv.saveState()
        cv.translate(0, -100)  # the words land 100 pt lower: baseline at top 200
        cv.doForm("words")
        cv.restoreState()
        _box(cv, *cover_box)

    runs = _page(tmp_path / "moved.pdf", lambda cv: draw(cv, (110, 185, 170, 205)))
    assert [r.text for r in runs] == ["GONE"]
    assert _page(tmp_path / "beside.pdf", lambda cv: draw(cv, (110, 85, 170, 105))) == []


def test_a_cover_inside_a_form_after_the_text_hides_it(tmp_path):
    def draw(cv):
        cv.beginForm("sheet")
        _words(cv)
        _box(cv, 10, 85, 60, 105)
        cv.endForm()
        cv.doForm("sheet")
    assert [r.text for r in _page(tmp_path / "p.pdf", draw)] == ["KEEP"]
