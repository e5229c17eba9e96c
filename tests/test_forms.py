"""Every fixed form decksheet knows (`scanner.layouts.FORMS`: Konami's form, its Latin-American
edition, the Chinese template), described once and read by both readers.

The blank forms are the public PDFs in ../shared/forms; they are filled here by pypdf (as filler
scripts and web generators do) with English names of real decks (../shared/fixtures/world/decks)
and of decks of our own, left as AcroForm values, flattened, in widgets with no working AcroForm,
or only drawn by the widgets; the LatAm page is also rendered by poppler and read as an image."""
from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from needs import require

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "samples"))
import make_samples as ms  # noqa: E402
from scanner.errors import UnreadableInput  # noqa: E402
from scanner.inputs.options import ReadOptions  # noqa: E402
from scanner.layouts import FORMS, KDE, LATAM  # noqa: E402
from scanner.pdf.form import field_boxes, form_of_fields  # noqa: E402
from scanner.pdf.reader import read_pdf  # noqa: E402
from scanner.read import load_decklist  # noqa: E402
from scoring import score_scan  # noqa: E402

BLANKS = {"kde": "KDE_DeckList.pdf", "kde-cn": "CN_decklist_template_blank.pdf",
          "kde-latam": "KDE_DeckList_LatAm.pdf"}
PLAYER = dict(player_family="Martin", player_given="Zoe", konami_id="0412345678",
              event="Regional Qualifier", date=(2026, 7, 12))


def _blank(shared_dir: Path, layout) -> Path:
    path = shared_dir / "forms" / BLANKS[layout.name]
    require(path.is_file(), f"needs {path}")
    return path


def _fits(deck, layout) -> bool:
    return all(len(deck.columns.get(t.kind, [])) <= t.rows for t in layout.tables)


def _world_decks(fixtures_dir, db, en_names, layout):
    out = []
    for ydk in sorted((fixtures_dir / "world" / "decks").glob("*.ydk")):
        deck, truth = ms.english_deck(ydk, db, en_names, **PLAYER)
        if _fits(deck, layout):  # a deck longer than the form does not fit it
            out.append((ydk.stem, deck, truth))
    assert len(out) >= 3
    return out


def _lines(sheet) -> list[tuple]:
    return sorted((ln.column, ln.row, ln.text, ln.count) for ln in sheet.lines)


def _want(deck) -> list[tuple]:
    return sorted((col, r, name, n) for col, lines in deck.columns.items()
                  for r, (name, n) in enumerate(lines, start=1))


def _widgets(path: Path) -> dict[str, tuple[float, float, float, float]]:
    """Every widget of page 1 by its full field name (parents' names joined by dots)."""
    import pypdf
    page = pypdf.PdfReader(path).pages[0]
    top = float(page.mediabox.top)
    out = {}
    for ref in page["/Annots"]:
        node = annot = ref.get_object()
        if annot.get("/Subtype") != "/Widget":
            continue
        names = []
        while node is not None:
            if node.get("/T") is not None:
                names.append(str(node["/T"]))
            node = node["/Parent"].get_object() if node.get("/Parent") is not None else None
        x0, y0, x1, y1 = (float(v) for v in annot["/Rect"])
        out[".".join(reversed(names))] = (x0, top - y1, x1, top - y0)
    return out


# --- the descriptions are the blank forms' own ------------------------------------------------

@pytest.mark.parametrize("layout", FORMS, ids=lambda f: f.name)
def test_field_names_and_boxes_are_the_blank_forms_own(layout, shared_dir):
    widgets = _widgets(_blank(shared_dir, layout))
    assert form_of_fields(set(widgets)) is layout
    boxes = field_boxes(layout)
    assert set(boxes) <= set(widgets), sorted(set(boxes) - set(widgets))
    primary = {layout.form.cell_field(role, kind, row) for role, kind, row in layout.form.cells.values()}
    assert primary <= set(widgets), sorted(primary - set(widgets))
    for name, box in boxes.items():
        # (one row height a table: the forms' own fields vary by up to 1.2 pt)
        assert all(abs(a - b) <= 1.5 for a, b in zip(box, widgets[name])), (name, box, widgets[name])


@pytest.mark.parametrize("layout", FORMS, ids=lambda f: f.name)
def test_printed_rules_are_the_blank_forms_own(layout, shared_dir):
    """Every column and row rule the image reader fits lies on a rule of the blank page (drawn
    by pdfium at 4 px/pt), within 1 pt."""
    import numpy as np
    import pypdfium2 as pdfium
    doc = pdfium.PdfDocument(str(_blank(shared_dir, layout)))
    try:
        assert abs(doc[0].get_width() - layout.width) < 1 and abs(doc[0].get_height() - layout.height) < 1
        ink = np.asarray(doc[0].render(scale=4, grayscale=True).to_pil().convert("L")) < 128
    finally:
        doc.close()
    for t in layout.tables:
        y0, y1 = int(t.first_row * 4) + 2, int((t.first_row + t.rows * t.pitch) * 4) - 2
        cols = ink[y0:y1].mean(axis=0)
        for x in (t.left, t.divider, t.right):
            near = cols[int((x - 1) * 4): int((x + 1) * 4) + 1]
            assert near.max() > 0.9, (t.kind, x)
        rows = ink[:, int(t.divider * 4) + 4: int(t.right * 4) - 4].mean(axis=1)
        for y in t.row_rules():
            near = rows[int((y - 1) * 4): int((y + 1) * 4) + 1]
            assert near.max() > 0.9, (t.kind, y)


# --- the Latin-American edition, filled by pypdf ----------------------------------------------

@pytest.mark.parametrize("mode", ms.FILL_MODES)
def test_latam_form_of_real_decks_reads_exactly(mode, shared_dir, fixtures_dir, ko_en_db, en_names, tmp_path):
    """Every line, total, the player as printed (given name first), the ID and the date, in
    every way a filler leaves the form; before, 0 of these lines were read."""
    blank = _blank(shared_dir, LATAM)
    for stem, deck, _ in _world_decks(fixtures_dir, ko_en_db, en_names, LATAM):
        path = tmp_path / f"{stem}-{mode}.pdf"
        ms.fill_template(blank, path, LATAM, deck, mode)
        sheet = read_pdf(path, ko_en_db, ReadOptions())
        assert sheet.reader == ("pdf-form" if mode in ("form", "widgets", "no-fields") else "pdf-text")
        assert "Latin-American" in sheet.notes[0]
        assert _lines(sheet) == _want(deck), stem
        assert [ln for ln in sheet.lines if ln.flags] == []
        assert sheet.player_name == "Zoe Martin"
        assert sheet.konami_id == "0412345678"
        assert sheet.event_date == "2026-07-12" and sheet.event_name == "Regional Qualifier"
        assert sheet.printed_totals == {"main": deck.total("monster", "spell", "trap"),
                                        "extra": deck.total("extra"), "side": deck.total("side")}
        assert not any(r.reason in ("total-mismatch", "main-deck-not-found") for r in sheet.review)


@pytest.mark.parametrize("seed", range(3))
def test_latam_form_of_our_own_decks_has_no_silent_line(seed, shared_dir, ko_en_db, en_names, tmp_path):
    rng = random.Random(3400 + seed)
    deck, truth = ms.random_english_deck(ko_en_db, en_names, rng, {t.kind: t.rows for t in LATAM.tables},
                                         **PLAYER)
    mode = ("form", "flat", "appearances")[seed]
    path = tmp_path / f"own-{seed}.pdf"
    ms.fill_template(_blank(shared_dir, LATAM), path, LATAM, deck, mode)
    got = score_scan(load_decklist(path, ko_en_db).to_json(), truth)
    assert got["silent"] == 0 and got["missing"] == 0, got
    assert got["correct"] >= 0.9 * got["lines"], got  # (the rest flagged by the appearance check)


def test_recognised_form_without_a_main_deck_says_so(shared_dir, fixtures_dir, ko_en_db, en_names, tmp_path):
    """Before, the LatAm form's judge box was read as extra-deck lines and the main deck came
    back empty in silence: an empty main deck of a recognised form is a sheet-level item."""
    _, deck, _ = _world_decks(fixtures_dir, ko_en_db, en_names, LATAM)[0]
    deck.columns.update(monster=[], spell=[], trap=[])
    path = tmp_path / "no-main.pdf"
    ms.fill_template(_blank(shared_dir, LATAM), path, LATAM, deck, "form")
    decklist = load_decklist(path, ko_en_db)
    assert decklist.sections["main"] == [] and decklist.sections["extra"]
    items = [r for r in decklist.review if r.reason == "main-deck-not-found"]
    assert len(items) == 1 and items[0].section == "main" and items[0].line is None


def test_blank_latam_form_is_refused_as_blank(shared_dir, ko_en_db):
    with pytest.raises(UnreadableInput, match="blank"):
        read_pdf(_blank(shared_dir, LATAM), ko_en_db, ReadOptions())


@pytest.mark.parametrize("layout", FORMS, ids=lambda f: f.name)
def test_a_form_whose_cells_show_ink_no_text_gives_is_not_blank(layout, shared_dir, ko_en_db, tmp_path):
    """'Blank' is said only of a page with no ink in its cells: names drawn as strokes (a pen
    in a PDF editor, a name set as outlines) leave no text, and the sheet is flagged, not refused."""
    import io

    from pypdf import PdfReader, PdfWriter
    from reportlab.pdfgen import canvas

    writer = PdfWriter(clone_from=str(_blank(shared_dir, layout)))
    page = writer.pages[0]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(layout.width, layout.height))
    c.setLineWidth(1.2)
    for row in (1, 2, 3):
        x0, top, x1, bottom = layout.table("monster").line_box(row)
        mid = layout.height - (top + bottom) / 2
        c.line(x0 + 25, mid, x0 + 110, mid + 3)
        c.line(x0 + 4, mid - 3, x0 + 10, mid + 3)
    c.save()
    page.merge_page(PdfReader(io.BytesIO(buf.getvalue())).pages[0])
    path = tmp_path / "strokes.pdf"
    writer.write(path)
    sheet = read_pdf(path, ko_en_db, ReadOptions())
    assert sheet is not None and sheet.lines == []
    assert [r.reason for r in sheet.review if r.line is None][:1] == ["main-deck-not-found"]


# --- widgets without a working AcroForm, on every form ----------------------------------------

@pytest.mark.parametrize("mode", ["widgets", "no-fields", "appearances"])
@pytest.mark.parametrize("layout", FORMS, ids=lambda f: f.name)
def test_widget_values_without_a_working_acroform_are_read(layout, mode, shared_dir, fixtures_dir,
                                                            ko_en_db, en_names, tmp_path):
    """A popular generator leaves the values in the page's widgets with no working AcroForm
    (or only in what the widgets draw): the page shows 40+15+15 cards, and so does the read —
    before, the Chinese template was refused as blank."""
    blank = _blank(shared_dir, layout)
    _, deck, _ = _world_decks(fixtures_dir, ko_en_db, en_names, layout)[1]
    path = tmp_path / f"{layout.name}-{mode}.pdf"
    ms.fill_template(blank, path, layout, deck, mode)
    sheet = read_pdf(path, ko_en_db, ReadOptions())
    assert _lines(sheet) == _want(deck)
    assert sheet.konami_id == "0412345678"
    assert sheet.player_name == "Zoe Martin"


# --- player names as printed ------------------------------------------------------------------

def test_player_names_keep_their_script_order(shared_dir, ko_en_db, tmp_path):
    """Latin names given name first with a space (`Zoe Martin`, never `MartinZoe`), in two boxes
    or one; Korean names family name first, run together (이서준)."""
    deck = ms.SampleDeck(columns={"monster": [("Dark Magician", 3)]}, **PLAYER)
    for layout in FORMS:
        path = tmp_path / f"{layout.name}.pdf"
        ms.fill_template(_blank(shared_dir, layout), path, layout, deck, "form")
        assert read_pdf(path, ko_en_db, ReadOptions()).player_name == "Zoe Martin", layout.name
    korean = ms.SampleDeck(columns={"monster": [("Dark Magician", 3)]}, player_family="이",
                           player_given="서 준")
    sheet = read_pdf(REPO / "samples" / "sheets" / "kde-form-sky-striker.pdf", ko_en_db, ReadOptions())
    assert sheet.player_name == "이서준"
    path = tmp_path / "kde-korean.pdf"
    ms.fill_template(_blank(shared_dir, KDE), path, KDE, korean, "form")
    assert read_pdf(path, ko_en_db, ReadOptions()).player_name == "이서준"


# --- the LatAm page as an image ---------------------------------------------------------------

def test_latam_page_rendered_by_poppler_reads_as_an_image(shared_dir, fixtures_dir, ko_en_db, en_names, tmp_path):
    """The filled LatAm form printed to an image (poppler, 200 dpi): the image reader fits the
    LatAm layout (not Konami's current form, whose rows it nearly shares), and every line comes
    out in its column and row with its count; a name the OCR is unsure of is flagged, never wrong
    in silence."""
    pytest.importorskip("tesserocr")
    require(shutil.which("pdftoppm") is not None, "needs poppler's pdftoppm")
    stem, deck, truth = _world_decks(fixtures_dir, ko_en_db, en_names, LATAM)[0]
    pdf = tmp_path / "latam.pdf"
    ms.fill_template(_blank(shared_dir, LATAM), pdf, LATAM, deck, "flat")
    subprocess.run(["pdftoppm", "-r", "200", "-png", "-singlefile", str(pdf), str(tmp_path / "latam")],
                   check=True)
    from scanner.read import read_input
    sheet, _ = read_input(tmp_path / "latam.png", ko_en_db, ReadOptions())
    assert sheet.reader == "ocr" and "layout: kde-latam" in sheet.notes
    assert sorted((ln.column, ln.row, ln.count) for ln in sheet.lines) == \
        sorted((col, r, n) for col, r, _, n in _want(deck))
    # English names on images are read by the Latin-script reader; whatever it makes of a name,
    # a line it is not sure of is flagged (a wrong card proposed for review counts as missing).
    got = score_scan(json.loads(json.dumps(load_decklist(tmp_path / "latam.png", ko_en_db).to_json())), truth)
    assert got["silent"] == 0, got
