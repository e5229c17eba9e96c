"""The form's fit when the page stage took the paper for another (issue 35): an A4 print of
Konami's form whose corners, in a photo with strong perspective, gave Letter's aspect is
squeezed 0.915 down the page. The form's row pitch then no longer matches the x scale, and
another form with a smaller pitch (the Chinese one) was fitted two rows off: the ID label and
the 'MONSTER CARDS' title read as rows 1 and 2, every line of the sheet at the wrong row."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from fakes import row_read

pytest.importorskip("tesserocr")

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "sheets" / "kde-form-sky-striker.pdf"
A4, LETTER = 297 / 210, 11 / 8.5


def _a4_print_read_as_letter() -> np.ndarray:
    """The project's sample form printed "fit to page" on A4, then the A4 sheet shown at
    Letter's aspect (what the page stage makes of it when the corners say Letter)."""
    from scanner.ocr.rasterize import pdf_page_image
    form = pdf_page_image(SAMPLE)
    fh, fw = form.shape[:2]
    page_w = int(round(fw * 595.28 / 644.21))
    page = np.full((int(round(page_w * A4)), page_w, 3), 255, np.uint8)
    scale = 0.866
    small = cv2.resize(form, (int(fw * scale), int(fh * scale)), interpolation=cv2.INTER_AREA)
    x0, y0 = (page_w - small.shape[1]) // 2, int(60 / 842 * page.shape[0])
    page[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
    return cv2.resize(page, (page_w, int(round(page_w * LETTER))), interpolation=cv2.INTER_AREA)


def _title_over_row_one(located) -> tuple[float, float]:
    monster = located.grid.by_kind("monster")
    gray = located.page.gray
    return (float(np.median(monster.title.crop(gray, inset=6))),
            float(np.median(monster.rows[0].name.crop(gray, inset=6))))


def test_an_a4_form_squeezed_to_letter_is_fitted_on_its_own_rows():
    from scanner.ocr.layouts import KDE
    from scanner.ocr.pipeline import locate
    got = locate(_a4_print_read_as_letter(), is_scan=True)
    assert got.layout is KDE, got.layout.name
    assert got.fit.sy / got.fit.sx == pytest.approx(LETTER / A4, abs=0.02)
    title, row1 = _title_over_row_one(got)
    assert row1 - title > 25  # the grey title above row 1, not a row of it
    assert len(got.grid.by_kind("monster").rows) == 18


def test_a_fit_rows_off_asks_for_a_retake_instead_of_shifted_lines(real_db, monkeypatch):
    """Were the fit left two rows off (here forced: the grey-title check made to keep a fit two
    rows up, as the chosen fit of another form was on the photos), the rows that read as the
    form's printed labels tell: no line is given, the tables are said unread, and the sheet
    asks for another photo."""
    from scanner.ocr import form_fit
    from scanner.ocr.pipeline import read_page
    from scanner.read import ReadOptions
    from scanner.vocab import Reason
    from scanner.ocr.rasterize import pdf_page_image
    true_fill = form_fit._by_title_fill

    def two_rows_up(gray, fit, layout, hpk, tuning=form_fit.FORM_FIT):
        f = true_fill(gray, fit, layout, hpk, tuning)
        up = 2 * f.sy * layout.tables[0].pitch
        return form_fit.Fit(f.sx, f.ox, f.sy, f.oy - up, f.x_match, f.y_match, f.strays)

    monkeypatch.setattr(form_fit, "_by_title_fill", two_rows_up)
    ctx = read_page(pdf_page_image(SAMPLE), real_db, ReadOptions(), is_scan=True, label="rows-off")
    assert ctx.fit is not None and ctx.rows_off and not ctx.sheet.lines
    retake = [r for r in ctx.sheet.review if r.reason == Reason.RETAKE]
    assert len(retake) == 1 and "MONSTER CARDS" in retake[0].detail
    assert {r.section for r in ctx.sheet.review if r.reason == Reason.UNREADABLE_LINE} >= {"main", "extra", "side"}


@pytest.mark.parametrize("text,label", [
    ("MONSTER CARDS", "MONSTER CARDS"), ("'GAMEID: (7 15] 5/5] 7|2 1", "CARD GAME ID"),
    ("<<< TOTAL SPELL CARD", "<<< TOTAL SPELL CARDS"), ("Monster Reborn", None), ("Trap Hole", None),
    ("몬스터 카드", None), ("Cards", None), ("Spell", None), ("STER CARDS", "MONSTER CARDS"),
    ("1 dd", None), (") GAME ID:  71712 joy y ! 2", "CARD GAME ID"), ("Spell Calling", None)])
def test_a_row_read_as_a_printed_label(text, label):
    from scanner.layouts import FORMS
    from scanner.ocr.fit_check import printed_labels, reads_as_label
    assert reads_as_label(text, printed_labels(FORMS)) == label


def test_only_rows_at_a_tables_ends_are_looked_at():
    from scanner.layouts import FORMS, KDE
    from scanner.ocr.fit_check import label_rows, printed_labels
    rows = [row_read("monster", 2, 1, text="MONSTER CARDS"), row_read("monster", 9, 1, text="SPELL CARDS"),
            row_read("side", 15, 1, text="<<< TOTAL SIDE DECK"), row_read("trap", 1, 1, text="Trap Hole")]
    assert label_rows(rows, KDE, printed_labels(FORMS)) == [("monster", 2, "MONSTER CARDS"),
                                                           ("side", 15, "<<< TOTAL SIDE DECK")]


def test_a_small_db_ko_photo_upside_down_is_not_squeezed_into_a_form():
    """The swapped papers' scales give a false fit more room: a db-ko photo small and soft in
    its frame, turned upside down, fitted the Latin-American form at 1.12 with ten of the page's
    column rules unexplained. Such a fit is made at the paper's own aspect, as before."""
    from scanner.ocr import form_fit
    from scanner.ocr.orient import downscale, turned
    from scanner.ocr.pipeline import locate
    img = cv2.imread(str(SAMPLE.parent.parent / "photos" / "photo-01.jpg"))
    small = cv2.GaussianBlur(cv2.resize(img, None, fx=0.35, fy=0.35, interpolation=cv2.INTER_AREA), (0, 0), 1.2)
    frame = np.full_like(img, 40)
    frame[:small.shape[0], :small.shape[1]] = small
    image, _ = downscale(frame)
    lo, hi, _ = form_fit.FORM_FIT.y_scale
    for turn in (None, cv2.ROTATE_180):
        got = locate(turned(image, turn) if turn is not None else image, is_scan=False)
        assert got.fit is None or lo <= got.fit.sy / got.fit.sx <= hi + 1e-9, (turn, got.layout.name, got.fit)
