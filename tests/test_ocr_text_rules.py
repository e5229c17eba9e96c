"""A fax-like page whose grey rules vanished in binarisation is read by its text's alignment
(issue 34 item 6), and a page of text in no deck table's order stays refused."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
pytest.importorskip("reportlab")


def _fax(tmp_path: Path, ms, db, grid_gray: float, ruled: bool, deck: str = "hero") -> tuple[Path, Path]:
    """A card-database sheet with pale grey rules, faxed: 200 × 100 dpi, black and white (the
    rules and the grey title fill fall under the threshold and vanish; the text stays)."""
    from renderings import render
    pdf = tmp_path / f"fax-{deck}.pdf"
    sample = ms.deck_from_ydk(REPO / "samples" / "decks_src" / f"{deck}.ydk", db, **ms.PLAYERS[deck])
    ms.draw_db_sheet(pdf, sample, ms.DbStyle(grid_gray=grid_gray, header_fill=0.85, ruled=ruled))
    img = cv2.cvtColor(render(pdf, "poppler", 200), cv2.COLOR_BGR2GRAY)
    h, w = img.shape
    low = cv2.resize(img, (w, h // 2), interpolation=cv2.INTER_AREA)
    fax = cv2.resize(np.where(low < 128, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST)
    png = tmp_path / f"fax-{deck}.png"
    cv2.imwrite(str(png), fax)
    return pdf, png


@pytest.fixture(scope="module")
def ms():
    from test_read_pdf import _load_make_samples
    return _load_make_samples()


@pytest.mark.parametrize("grid_gray,ruled", [(0.6, True), (0.55, False)])
def test_the_texts_alignment_gives_every_table_its_rows(grid_gray, ruled, ms, demo_db, tmp_path):
    from scanner.ocr.grid import page_to_grid
    from scanner.ocr.page import image_to_page, load_image
    from scanner.ocr.text_rules import ruled_by_text
    _, png = _fax(tmp_path, ms, demo_db, grid_gray, ruled)
    page = image_to_page(load_image(png), is_scan=True)
    assert not [t for t in page_to_grid(page.gray).tables if t.rows]  # the rules are gone
    grid = page_to_grid(ruled_by_text(page.gray))
    assert {t.kind: len(t.rows) for t in grid.tables if t.rows} == \
        {"monster": 20, "spell": 20, "trap": 20, "extra": 15, "side": 15}
    assert all(t.count_ruled for t in grid.tables if t.rows)


def test_text_in_no_tables_order_gives_no_rules():
    """A letter: lines of prose at one pitch, in no columns with counts."""
    from scanner.ocr.text_rules import ruled_by_text
    page = np.full((2546, 1800), 255, np.uint8)
    rng = np.random.default_rng(2)
    for i in range(40):
        y = 200 + i * 50
        x = 150
        while x < 1600:
            w = int(rng.integers(40, 160))
            cv2.rectangle(page, (x, y), (min(x + w, 1650), y + 20), 0, -1)
            x += w + int(rng.integers(12, 30))
    assert ruled_by_text(page) is None
    assert ruled_by_text(np.full((2546, 1800), 255, np.uint8)) is None


@pytest.mark.slow
def test_a_fax_of_a_sheet_is_read_not_refused(ms, demo_db, tmp_path):
    """Its text is legible: the sheet is read (no refusal), nothing is stated that the sheet
    does not say, and most lines are right (the rest are flagged: a fax's glyphs are coarse)."""
    from renderings import agreement
    from scanner.read import load_decklist
    pdf, png = _fax(tmp_path, ms, demo_db, 0.6, True)
    got = agreement(load_decklist(pdf, demo_db), load_decklist(png, demo_db))
    assert got.refused is None and got.silent == 0, got
    assert got.right >= 0.5 * got.lines, got
