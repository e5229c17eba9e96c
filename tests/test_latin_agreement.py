"""The two readings of an English-name PDF (issue 33): the image reader reads Konami's Genesys
form in Latin script, so an honest sheet's lines are verified, and a line whose page prints
another card is `appearance-differs`.

The sheets are drawn here (`samples/genesys.py` with the form's rules: `QTY | name | PTS`
columns, grey title rows; random decks of the English database, names set lower or higher in
their rows), not the fixtures' generator: the fixtures' Genesys sheets are examples of the class."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
import make_samples as ms  # noqa: E402
from forgery import _merge, _overlay  # noqa: E402
from genesys import NAME_W, PITCH, QTY_W, TOPS, XS, draw_genesys_like  # noqa: E402
from scanner.agreement import verify_readings  # noqa: E402
from scanner.inputs.options import ReadOptions  # noqa: E402
from scanner.pdf.reader import read_pdf  # noqa: E402

LIBERATION = "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf"
ROWS = {"monster": (8, 18), "spell": (5, 18), "trap": (3, 12), "extra": (4, 15), "side": (4, 15)}


def _sheet(ko_en_db, en_names, seed: int, out: Path, low: float):
    rng = random.Random(seed)
    while True:  # (a random deck may leave the side or extra deck empty: the next one is drawn)
        rows = {k: rng.randint(*v) for k, v in ROWS.items()}
        deck, _ = ms.random_english_deck(ko_en_db, en_names, rng, rows)
        if deck.columns["extra"] and deck.columns["side"]:
            break
    columns = {k: v[:18 if k in ("monster", "spell", "trap") else 15] for k, v in deck.columns.items()}
    points = {name: rng.choice((0, 0, 0, 1, 3)) for v in columns.values() for name, _ in v}
    draw_genesys_like(out, columns, "0123456789", "Zoe", "Martin", points, ruled=True, low=low)
    return columns


def _flags(sheet, reason: str) -> list:
    return [ln for ln in sheet.lines if reason in ln.flags]


@pytest.mark.slow
@pytest.mark.parametrize("seed,low", [(4101, 4.0), (4102, 1.8)])
def test_english_genesys_sheet_is_verified_by_the_image_reader(seed, low, ko_en_db, en_names, tmp_path):
    """Every line of an honest English Genesys sheet read alike by both readings: none
    `not-verified` (the points column is no part of a name; descenders that reach the row's rule
    are cut as the rule is), none accused, no sheet item."""
    pdf = tmp_path / f"genesys-ruled-{seed}.pdf"
    columns = _sheet(ko_en_db, en_names, seed, pdf, low)
    sheet = read_pdf(pdf, ko_en_db, ReadOptions())
    report = verify_readings(pdf, sheet, ko_en_db)
    assert len(sheet.lines) == sum(len(v) for v in columns.values())
    assert not _flags(sheet, "not-verified"), [(ln.text, ln.detail) for ln in _flags(sheet, "not-verified")]
    assert not _flags(sheet, "appearance-differs")
    assert not [r for r in sheet.review if r.reason in ("not-verified", "appearance-differs")]
    assert report.not_verified == report.differs == 0


def _name_picture(name: str, width: float, height: float, baseline: float) -> Image.Image:
    """A picture of `name` printed in the name cell (Helvetica's metric twin, 9 pt), 4 px a pt."""
    s = 4
    img = Image.new("L", (int(width * s), int(height * s)), 255)
    font = ImageFont.truetype(LIBERATION, 9 * s)
    ImageDraw.Draw(img).text((6.5 * s, baseline * s), name, font=font, fill=0, anchor="ls")
    return img


@pytest.mark.slow
def test_a_forged_english_line_is_appearance_differs(ko_en_db, en_names, tmp_path):
    """The text layer says one spell; over its cell the page prints a picture of another
    (Pot of Greed, forbidden). The image reader reads the page's card: that line is
    `appearance-differs` (never verified, never merely unverified), the others stay verified."""
    pytest.importorskip("reportlab")
    if not Path(LIBERATION).exists():
        pytest.skip("fonts-liberation2 is not installed")
    honest = tmp_path / "honest.pdf"
    columns = _sheet(ko_en_db, en_names, 4103, honest, 3.0)
    shown = "Pot of Greed"
    assert shown not in {n for v in columns.values() for n, _ in v}
    row = 2
    said = columns["spell"][row - 1][0]
    x = XS["spell"] + QTY_W
    top = TOPS["main"] + 3.0 + PITCH * (row - 1)

    def draw(cv, h):
        from reportlab.lib.utils import ImageReader

        cell_top, cell_h = top + 1.0, PITCH - 2.0  # inside the row's rules
        cv.setFillGray(1)
        cv.rect(x + 1, h - cell_top - cell_h, NAME_W - 2, cell_h, stroke=0, fill=1)
        baseline = TOPS["main"] + PITCH * row - cell_top
        cv.drawImage(ImageReader(_name_picture(shown, NAME_W - 2, cell_h, baseline)), x + 1,
                     h - cell_top - cell_h, NAME_W - 2, cell_h)

    forged = tmp_path / "forged.pdf"
    _merge(honest, _overlay((612.0, 792.0), draw)).write(str(forged))
    sheet = read_pdf(forged, ko_en_db, ReadOptions())
    index = next(i for i, ln in enumerate(sheet.lines) if ln.text == said)
    verify_readings(forged, sheet, ko_en_db)
    line = sheet.lines[index]
    assert "appearance-differs" in line.flags, (line.flags, line.detail)
    assert "Pot of Greed" in line.detail
    others = [ln for i, ln in enumerate(sheet.lines) if i != index and ln.flags
              and set(ln.flags) & {"appearance-differs", "not-verified"}]
    assert not others, [(ln.text, ln.flags, ln.detail) for ln in others]


def test_latin_renderings_are_cut_where_the_cells_descenders_are(tmp_path):
    """A name printed low in its row loses its descenders in the painted-out rule: drawn whole, its
    own name no longer fits it; cut as the cell is, it does — and another name still does not."""
    from scanner.ocr.latin import latin_families
    from scanner.ocr.verify import NameRenderer, R_CONFIRM, R_FLOOR, compare, ink_crop, render_name

    fonts = latin_families()
    if "Liberation Sans" not in fonts:
        pytest.skip("fonts-liberation2 is not installed")
    drawn = render_name("El Shaddoll Shekhinaga", fonts["Liberation Sans"], px=40)
    rows = (drawn < 128).sum(axis=1)
    base = int(np.flatnonzero(rows >= 0.45 * rows.max())[-1])
    cell = ink_crop(np.ascontiguousarray(drawn[:base + 2]))  # the g's cut a pixel under the baseline
    assert cell is not None
    whole = NameRenderer({"Liberation Sans": fonts["Liberation Sans"]}, {})
    latin = NameRenderer({"Liberation Sans": fonts["Liberation Sans"]}, {}, latin=True)
    assert whole.likeness(cell, "El Shaddoll Shekhinaga").score < R_FLOOR + 0.3
    assert latin.likeness(cell, "El Shaddoll Shekhinaga").score >= R_CONFIRM
    assert latin.likeness(cell, "El Shaddoll Winda").score < R_CONFIRM
    # uncut, the cell is compared with the whole rendering, as before
    assert compare(drawn, latin.as_printed(drawn, drawn)).score > 0.95


def test_the_genesys_page_is_placed_as_the_genesys_form(ko_en_db, en_names, tmp_path):
    """Konami's current form fits a Genesys page's rules too (its columns at a scale), with the
    points column inside its name cells: the Genesys form, which explains every column rule, is
    the one placed; a current-form sheet stays the current form."""
    from scanner.ocr.pipeline import locate
    from scanner.pdf.render import render_pages

    pdf = tmp_path / "genesys.pdf"
    _sheet(ko_en_db, en_names, 4104, pdf, 3.0)
    sample = Path(__file__).resolve().parent.parent / "samples" / "sheets" / "kde-flat-hero.pdf"
    for path, name in ((pdf, "genesys"), (sample, "kde")):
        image = render_pages(path, 200, 1, 10 ** 8).renderings[0].image
        got = locate(image, is_scan=True)
        assert got.layout.name == name
        assert got.fit is not None and got.fit.strays == 0
