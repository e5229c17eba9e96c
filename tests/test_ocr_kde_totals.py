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
])
def test_a_form_total_is_read_through_its_frame_and_fill(tess, name, value):
    from scanner.ocr.totals import read_digits, read_form_digits
    cell = crop(name)
    assert read_form_digits(tess, cell) == value
    if name != "kde-main-total-small.png":
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
