"""The 합계 a card-database sheet prints under each table, unruled (issue 34: a soft phone photo's
db-ko sheet had every count under 0.8 flagged because no total read to confirm them).

Such a sheet's count column is found by the gap its text leaves, so the total's cell starts left
of the number and holds the label's last letter; the soft photo's bold digits then do not read
at all. The cell is read again as its number alone (`totals.last_ink_group`) by the digit
reader of the form cells. The truth is the sheet's own deck: each column's total."""
from __future__ import annotations

from pathlib import Path

import cv2
import pytest

REPO = Path(__file__).resolve().parent.parent
pytest.importorskip("reportlab")


@pytest.fixture(scope="module")
def ms():
    from test_read_pdf import _load_make_samples
    return _load_make_samples()


@pytest.mark.parametrize("deck", ["blue-eyes", "sky-striker"])
def test_a_soft_photos_unruled_totals_read_as_printed(deck, ms, demo_db, tmp_path):
    from renderings import render

    from scanner.model import SheetRead
    from scanner.ocr.engine import Tesseract
    from scanner.ocr.grid import page_to_grid
    from scanner.ocr.page import image_to_page
    from scanner.ocr.totals import read_totals

    sample = ms.deck_from_ydk(REPO / "samples" / "decks_src" / f"{deck}.ydk", demo_db, **ms.PLAYERS[deck])
    pdf = tmp_path / f"{deck}.pdf"
    ms.draw_db_sheet(pdf, sample, ms.DbStyle(grid_gray=0.35))  # rows ruled, totals not boxed
    want = {c: sample.total(c) for c in ("monster", "spell", "trap")}
    tess = Tesseract()
    for dpi, sigma in ((150, 1.6), (200, 1.6)):
        soft = cv2.GaussianBlur(cv2.cvtColor(render(pdf, "poppler", dpi), cv2.COLOR_BGR2GRAY), (0, 0), sigma)
        page = image_to_page(cv2.cvtColor(soft, cv2.COLOR_GRAY2BGR), is_scan=True).gray
        grid = page_to_grid(page)
        assert not grid.by_kind("monster").count_ruled  # the case: count column found by the gap
        sheet = SheetRead(reader="ocr")
        read_totals(grid, tess, sheet)
        assert {str(k): v for k, v in sheet.column_totals.items()} == want, (dpi, sigma)
