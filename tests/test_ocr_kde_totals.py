"""The typed totals of a photographed Konami form (scanner/ocr/totals.py `read_form_digits`):
read through the grey fill, the frame and the bar under the number, so the column totals can
confirm the counts (unread, every count below `SURE_COUNT` is flagged). Crops are total cells
of generated kde-photo / kde-scan pages (seed 9202)."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from needs import require

pytest.importorskip("tesserocr")

DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(__file__).resolve().parent.parent.parent / "shared"


@pytest.fixture(scope="module")
def tess():
    from scanner.ocr.engine import Tesseract
    return Tesseract()


def crop(name: str) -> np.ndarray:
    img = cv2.imread(str(DATA / name), cv2.IMREAD_GRAYSCALE)
    assert img is not None, name
    return img


@pytest.mark.parametrize("name,value", [
    ("kde-total-framed-dark.png", 23),  # a dark, soft 120 dpi page: framed grey cell, read nothing
    ("kde-total-bar-under.png", 12),  # the bar under the number left in: read "2"
    ("kde-main-total-small.png", 44),  # the main total, small in its tall box
    # seed 1212 kde-scan-05: a soft grey 200 dpi scan, the bar under the number set an ink
    # level the 4's thin diagonal missed (read "23"; the column then flagged whole)
    ("kde-total-soft-four.png", 24),
    # seed 9303 kde-photo-03: the main total Tesseract reads nothing of at 48 px, 0.96 at 40
    ("kde-main-total-unread-at-48.png", 44),
    # seed 9303 kde-photo-05: a bit of the frame's corner, as tall as a digit, beside the `10`
    ("kde-total-frame-corner.png", 10),
])
def test_a_form_total_is_read_through_its_frame_and_fill(tess, name, value):
    from scanner.ocr.totals import read_digits, read_form_digits
    cell = crop(name)
    assert read_form_digits(tess, cell) == value
    if name in ("kde-total-framed-dark.png", "kde-total-bar-under.png"):
        assert read_digits(tess, cell) != value  # the reader the db-ko sheet keeps


def test_a_total_cell_with_only_its_frame_reads_nothing(tess):
    """The frame, the fill's edges and the bar are no digits: with the number painted out
    nothing is read (not a 1 from a bar)."""
    from scanner.ocr.totals import form_total_digits, read_form_digits
    cell = crop("kde-total-framed-dark.png").copy()
    h, w = cell.shape
    fill = np.median(cell[int(0.2 * h):int(0.7 * h), int(0.1 * w):int(0.2 * w)])
    cell[int(0.22 * h):int(0.78 * h), int(0.22 * w):int(0.86 * w)] = fill
    assert form_total_digits(cell) is None
    assert read_form_digits(tess, cell) is None


def test_the_main_total_box_holds_the_number_typed_in_its_field():
    """The form's `Main Deck Total` field spans 115.5-144.3 pt and a typed value is centred in it
    (`samples/kde_paper.py`, as a PDF viewer does); the label is printed at its top. The box the
    reader crops (inset 4 px at ~200 dpi, 1.5 pt) must hold a 10 pt number whole: the old box
    (from 127 pt) cut its top off."""
    pypdf = pytest.importorskip("pypdf")
    form = SHARED / "forms" / "KDE_DeckList.pdf"
    require(form.exists(), "needs ../shared/forms/KDE_DeckList.pdf")
    from scanner.ocr.layouts import KDE
    page = pypdf.PdfReader(str(form)).pages[0]
    top_h = float(page.mediabox.height)
    field = next(a.get_object() for a in page["/Annots"] if a.get_object().get("/T") == "Main Deck Total")
    _, y0, _, y1 = (float(v) for v in field["/Rect"])
    centre = top_h - (y0 + y1) / 2
    digit_top, digit_bottom = centre - 0.36 * 10, centre + 0.36 * 10
    _, box_top, _, box_bottom = KDE.boxes["main_total"]
    assert box_top + 1.5 <= digit_top and digit_bottom <= box_bottom - 1.5


def _extra_column(phantom_flags: list[str]):
    """The extra column of a generated kde-photo (seed 9404, sheet 8): four sure 3s under a
    total of 12, and row 14 where the form's bent rules left ink that read as junk: no card
    (`unresolved-name`, its best guess 0.36), no count."""
    from fakes import row_read
    rows = [row_read("extra", r, 3, conf=1.0) for r in range(1, 5)]
    rows.append(row_read("extra", 14, None, conf=0.0, flags=list(phantom_flags), handwritten=True))
    return rows


def test_on_the_form_a_junk_row_with_no_count_does_not_flag_a_column_its_total_confirms():
    """Its total read (it was not before), the column summed 12 without the junk row, which
    then made the whole column `column-total-mismatch`. A row with neither a card nor a count
    may be no line: the sure counts stand (as with no total) and the junk row stays flagged."""
    from scanner.model import SheetRead
    from scanner.ocr.totals import cross_check_totals
    sheet = SheetRead(reader="ocr")
    sheet.printed_totals["extra"] = 12
    col = _extra_column(["unresolved-name", "count-unclear", "handwritten"])
    cross_check_totals(col, sheet, hand_filled=True)
    assert [r.flags for r in col[:4]] == [[]] * 4
    assert "unresolved-name" in col[4].flags
    # a row whose card was read but not its count is a line: 12 cannot hold it
    col = _extra_column(["count-unclear"])
    cross_check_totals(col, sheet, hand_filled=True)
    assert all("column-total-mismatch" in r.flags for r in col)
    # a db-ko sheet is checked as before
    col = _extra_column(["unresolved-name", "count-unclear"])
    cross_check_totals(col, sheet)
    assert all("column-total-mismatch" in r.flags for r in col)


def test_a_form_total_read_two_ways_that_disagree_is_unread(tess, monkeypatch):
    """The total is read at every height of `FORM_READ_HEIGHTS`: a number read surely at one
    and another number read surely at another leaves the total unread (it checks nothing)."""
    from scanner.ocr import totals
    answers = iter([15, 18])
    monkeypatch.setattr(totals, "sure_number", lambda tess, img: next(answers))
    assert totals.read_form_digits(tess, crop("kde-total-soft-four.png")) is None
    answers = iter([15, None])
    assert totals.read_form_digits(tess, crop("kde-total-soft-four.png")) == 15


def _main_deck(monster_total: int | None, main_total: int | None, **monster_kw):
    """A main deck of three columns: monster lines 3+3+1+3+3+3+2+2+3+1 = 24, spell 13, trap 8,
    their totals read as given (spell and trap right); the sheet and its rows."""
    from fakes import row_read
    from scanner.model import SheetRead
    sheet = SheetRead(reader="ocr")
    sheet.column_totals.update(monster=monster_total, spell=13, trap=8)
    sheet.printed_totals["main"] = main_total
    rows = [row_read("monster", i, c, **monster_kw) for i, c in enumerate([3, 3, 1, 3, 3, 3, 2, 2, 3, 1], 1)]
    rows += [row_read("spell", i, c) for i, c in enumerate([3, 3, 3, 2, 1, 1], 1)]
    rows += [row_read("trap", i, c) for i, c in enumerate([3, 3, 2], 1)]
    return sheet, rows


def test_the_main_total_settles_a_column_total_read_wrong():
    """kde-scan-05 of seed 1212: every monster line right, the monster total read 23 (printed
    24): the column was flagged whole. Spell and trap are confirmed by their own totals and the
    main total 45 by every line: the monster column's sum is 45 - 13 - 8 = 24."""
    from scanner.ocr.totals import cross_check_totals
    sheet, rows = _main_deck(23, 45)
    cross_check_totals(rows, sheet, hand_filled=True)
    assert all(r.flags == [] for r in rows)
    assert any("main total 45" in n for n in sheet.notes)
    # an unread column total, and unsure counts under it: settled the same way
    sheet, rows = _main_deck(None, 45, conf=0.6)
    cross_check_totals(rows, sheet, hand_filled=True)
    assert all(r.flags == [] for r in rows)


def test_the_main_total_never_hides_a_count_error():
    """A monster count misread (a 3 read 2): the monster total (24) and the main total (45) both
    disagree with the lines: flagged. The same with the main total unread, with another column
    unconfirmed, or with a pen correction in the main deck (the totals are from before it)."""
    from scanner.ocr.totals import cross_check_totals
    sheet, rows = _main_deck(24, 45)
    rows[0].count = 2
    cross_check_totals(rows, sheet, hand_filled=True)
    assert all("column-total-mismatch" in r.flags for r in rows if r.column == "monster")
    sheet, rows = _main_deck(23, None)
    cross_check_totals(rows, sheet, hand_filled=True)
    assert all("column-total-mismatch" in r.flags for r in rows if r.column == "monster")
    sheet, rows = _main_deck(23, 45)
    sheet.column_totals["trap"] = None  # trap unchecked: two columns open, the main total pins neither
    cross_check_totals(rows, sheet, hand_filled=True)
    assert all("column-total-mismatch" in r.flags for r in rows if r.column == "monster")
    sheet, rows = _main_deck(23, 45)
    rows[0].count_struck, rows[0].count_old = True, 3
    cross_check_totals(rows, sheet)
    assert not any("main total" in n for n in sheet.notes)


def test_on_the_form_a_junk_row_with_an_unsure_count_does_not_flag_its_column():
    """seed 1212 kde-photo-02: the extra column's divider, left in an empty row, read `ㅣ` in the
    name cell and a `1` far from every digit template (confidence 0) in the count cell. The four
    sure counts make the total 8: the junk row may be no line; it stays flagged. A row whose
    card was read keeps its count, and then 8 cannot hold it."""
    from fakes import row_read
    from scanner.model import SheetRead
    from scanner.ocr.totals import cross_check_totals

    def column(junk_flags: list[str]):
        rows = [row_read("extra", r, c, conf=1.0) for r, c in enumerate([2, 2, 3, 1], 1)]
        rows.append(row_read("extra", 5, 1, conf=0.0, flags=list(junk_flags)))
        return rows
    sheet = SheetRead(reader="ocr")
    sheet.printed_totals["extra"] = 8
    rows = column(["unresolved-name", "count-unclear"])
    cross_check_totals(rows, sheet, hand_filled=True)
    assert [r.flags for r in rows[:4]] == [[]] * 4
    assert "unresolved-name" in rows[4].flags
    rows = column(["count-unclear"])  # a card read, its count unsure: a line
    cross_check_totals(rows, sheet, hand_filled=True)
    assert all("column-total-mismatch" in r.flags for r in rows)


def test_a_main_total_no_deck_of_these_lines_can_make_is_not_used():
    """A hand-written main total `42` read `4` (seed 701 kde-hand-08): 19 main lines make 19 to
    57 cards, so 4 is a misread; it is dropped with a note rather than reported as the sheet's
    printed total. A possible one stays."""
    from scanner.ocr.totals import cross_check_totals
    sheet, rows = _main_deck(24, 4)
    cross_check_totals(rows, sheet, hand_filled=True)
    assert sheet.printed_totals["main"] is None
    assert any("impossible" in n for n in sheet.notes)
    sheet, rows = _main_deck(24, 46)
    cross_check_totals(rows, sheet, hand_filled=True)
    assert sheet.printed_totals["main"] == 46
