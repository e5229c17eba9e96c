"""PDF deck sheets: card-database sheets, Konami forms (filled and flattened), bad PDFs, OCR hand-off."""
from __future__ import annotations

import importlib.util
import json
import sys
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

from scanner.errors import UnreadableInput
from scanner.model import SheetRead
from scanner.read import ReadOptions, load_decklist, read_input
from scanner.pdf.reader import read_pdf

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"


def _load_make_samples():
    import reportlab  # noqa: F401  (a test extra: installed wherever the tests run)
    spec = importlib.util.spec_from_file_location("make_samples", SAMPLES / "make_samples.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_samples", mod)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def ms():
    return _load_make_samples()


def _deck(ms, demo_db, name: str):
    return ms.deck_from_ydk(SAMPLES / "decks_src" / f"{name}.ydk", demo_db, **ms.PLAYERS[name])


def _expected_lines(deck) -> list[tuple[str, str, int]]:
    return sorted((col, name, n) for col, lines in deck.columns.items() for name, n in lines)


def assert_reads_exactly(path: Path, deck, db) -> SheetRead:
    """The sheet's lines, player and printed totals are the deck's, and nothing is flagged (the
    text reader's lines; then the whole read, the image reader's second reading agreeing)."""
    sheet, _ = read_input(path, db, ReadOptions(verify=False))
    got = sorted((ln.column, ln.text, ln.count) for ln in sheet.lines)
    want = _expected_lines(deck)
    # Names may be re-spaced by the reader; compare them without spaces.
    assert [(c, t.replace(" ", ""), n) for c, t, n in got] == \
        [(c, t.replace(" ", ""), n) for c, t, n in want]
    assert all(not ln.flags for ln in sheet.lines), [ln for ln in sheet.lines if ln.flags]
    assert sheet.player_name == deck.player_family + deck.player_given
    assert sheet.konami_id == deck.konami_id
    assert sheet.printed_totals == {"main": deck.total("monster", "spell", "trap"),
                                    "extra": deck.total("extra"), "side": deck.total("side")}
    decklist = load_decklist(path, db)
    assert decklist.review == []
    assert decklist.totals() == sheet.printed_totals
    return sheet


# --- the shipped samples (fast, always run) -------------------------------------------------

@pytest.mark.parametrize("file,deck_name", [(s[0], s[1]) for s in _load_make_samples().SHEETS])
def test_shipped_sample_reads_exactly(file, deck_name, ms, demo_db):
    path = SAMPLES / "sheets" / file
    sheet = assert_reads_exactly(path, _deck(ms, demo_db, deck_name), demo_db)
    assert sheet.reader == ("pdf-form" if file.startswith("kde-form") else "pdf-text")


# --- generated variants of the layouts ------------------------------------------------------

VARIANTS = {
    "gothic-8pt-left-up": dict(family="NanumGothic", size=8.0, dx=-5.5, dy=-4.0, row_h=14.2),
    "barun-9.5pt-right-down": dict(family="NanumBarunGothic", size=9.5, dx=5.0, dy=4.5, row_h=15.9),
    "myeongjo-10pt-no-row-numbers": dict(family="NanumMyeongjo", size=10.0, dx=2.0, dy=-1.0,
                                         row_h=16.0, entry_no=False),
    "square-8.5pt-glued-row-numbers": dict(family="NanumSquare", size=8.5, dx=-2.0, dy=2.0,
                                           row_h=14.8, glue_row_numbers=True),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_db_sheet_variants(variant, ms, demo_db, tmp_path):
    deck = _deck(ms, demo_db, "hero")  # long names (squeezed), names with spaces, Latin letters
    path = tmp_path / f"{variant}.pdf"
    ms.draw_db_sheet(path, deck, ms.DbStyle(**VARIANTS[variant]))
    assert_reads_exactly(path, deck, demo_db)


def test_long_names_are_squeezed_and_still_read(ms, demo_db, tmp_path):
    deck = _deck(ms, demo_db, "hero")
    path = tmp_path / "big.pdf"
    ms.draw_db_sheet(path, deck, ms.DbStyle(family="NanumGothic", size=11.0, row_h=16.5,
                                                       compress=False))
    raw = path.read_bytes()
    assert b" Tz" in raw  # the generator really squeezed a name (horizontal scale)
    assert_reads_exactly(path, deck, demo_db)


def test_misaligned_row_does_not_shift_other_counts(ms, demo_db, tmp_path):
    deck = _deck(ms, demo_db, "blue-eyes")
    # Row 3 of the monster column printed 4 pt low; every count must stay with its own name.
    path = tmp_path / "misaligned.pdf"
    ms.draw_db_sheet(path, deck, ms.DbStyle(misalign={("monster", 3): 4.0, ("spell", 5): -3.5}))
    sheet, _ = read_input(path, demo_db, ReadOptions())
    by_name = {ln.text.replace(" ", ""): ln.count for ln in sheet.lines}
    for col, lines in deck.columns.items():
        for name, n in lines:
            assert by_name[name.replace(" ", "")] == n, name
    # Nothing silently wrong: a line whose count sits level with its name is not flagged.
    flagged = [ln for ln in sheet.lines if ln.flags]
    assert all(ln.row in (3, 5) for ln in flagged)


def test_far_misaligned_row_is_flagged_not_guessed(ms, demo_db, tmp_path):
    deck = _deck(ms, demo_db, "blue-eyes")
    path = tmp_path / "far.pdf"
    ms.draw_db_sheet(path, deck, ms.DbStyle(misalign={("monster", 4): 7.0}))  # half a row
    deck_read = load_decklist(path, demo_db)
    monster4 = deck.columns["monster"][3][0]
    entry = next(e for e in deck_read.sections["main"] if e.name == monster4)
    assert entry.needs_review


def test_kde_flat_and_form_variants(ms, demo_db, tmp_path):
    deck = _deck(ms, demo_db, "blue-eyes")
    flat = tmp_path / "flat.pdf"
    ms.draw_kde_sheet(flat, deck, filled=False, family="NanumMyeongjo", size=8.0)
    assert assert_reads_exactly(flat, deck, demo_db).reader == "pdf-text"
    form = tmp_path / "form.pdf"
    ms.draw_kde_sheet(form, deck, filled=True)
    assert assert_reads_exactly(form, deck, demo_db).reader == "pdf-form"


def test_printed_total_disagreeing_with_lines_is_flagged(ms, demo_db, tmp_path):
    deck = _deck(ms, demo_db, "blue-eyes")
    form = tmp_path / "form.pdf"
    ms.draw_kde_sheet(form, deck, filled=True)
    import pypdf
    writer = pypdf.PdfWriter(clone_from=str(form))
    writer.update_page_form_field_values(writer.pages[0], {"Monster Card 1 Count": "1"},
                                         auto_regenerate=False)
    bad = tmp_path / "bad.pdf"
    with open(bad, "wb") as f:
        writer.write(f)
    decklist = load_decklist(bad, demo_db)
    reasons = {r.reason for r in decklist.review}
    assert "total-mismatch" in reasons


# --- the shared fixtures (real card database) ----------------------------------------------

def _text_fixtures() -> list[str]:
    from tests.conftest import SHARED
    d = SHARED / "fixtures" / "sheets"
    if not d.is_dir():
        return []
    return sorted(p.name for p in d.glob("*.pdf")
                  if p.name.startswith(("db-ko-", "kde-form-", "kde-flat-")))


@pytest.mark.parametrize("name", _text_fixtures())
def test_fixture_sheet_reads_exactly(name, fixtures_dir, real_db):
    path = fixtures_dir / "sheets" / name
    truth = json.loads(path.with_suffix(".truth.json").read_text(encoding="utf-8"))
    sheet, _ = read_input(path, real_db, ReadOptions())
    got = sorted((ln.column, ln.row, ln.text.replace(" ", ""), ln.count) for ln in sheet.lines)
    want = sorted((ln["column"], ln["row"], ln["name"].replace(" ", ""), ln["count"])
                  for ln in truth["layout"]["lines"])
    if name.startswith("db-ko") and not any(ln.row for ln in sheet.lines):
        got = [(c, None, t, n) for c, _, t, n in got]  # sheets printed without row numbers
        want = [(c, None, t, n) for c, _, t, n in want]
    assert got == want
    assert not any(ln.flags for ln in sheet.lines)
    assert {"name": sheet.player_name, "konami_id": sheet.konami_id} == truth["player"]
    assert sheet.printed_totals == {s: truth["printed_totals"][s] for s in ("main", "extra", "side")}
    assert sheet.column_totals == truth["printed_totals"]["columns"]
    assert sheet.review == []

    deck = load_decklist(path, real_db)
    for section in ("main", "extra", "side"):
        for e in deck.sections[section]:
            if e.needs_review:
                # Only names the database holds under two passcodes may stay open (flagged).
                assert len(real_db.names.exact_all(e.name)) > 1, e
            else:
                assert truth[section].get(str(e.card_id)) == e.count, e
    assert deck.totals() == truth["totals"]


# --- bad input through the CLI --------------------------------------------------------------

def _scan(path: Path):
    from scanner.cli import main
    return CliRunner().invoke(main, ["scan", str(path), "--json"])


def _assert_refused(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    err = result.stderr if hasattr(result, "stderr") else result.output
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("decksheet: using the DEMO")]
    assert len(lines) == 1 and lines[0].startswith("decksheet: error:"), err
    assert "Traceback" not in result.output
    assert any(w in lines[0] for w in words), lines[0]


def test_cli_empty_pdf(tmp_path):
    p = tmp_path / "empty.pdf"
    p.write_bytes(b"")
    _assert_refused(_scan(p), "empty")


def test_cli_truncated_pdf(tmp_path):
    p = tmp_path / "cut.pdf"
    data = (SAMPLES / "sheets" / "db-blue-eyes-gothic.pdf").read_bytes()
    p.write_bytes(data[: len(data) // 3])
    _assert_refused(_scan(p), "damaged", "truncated", "not a readable PDF")


def test_cli_truncated_pdf_stderr_is_one_line(tmp_path):
    """Through a real process: no library warnings or traceback around the one-line reason."""
    import subprocess
    p = tmp_path / "cut.pdf"
    data = (SAMPLES / "sheets" / "kde-form-sky-striker.pdf").read_bytes()
    p.write_bytes(data[: int(len(data) * 0.9)])
    r = subprocess.run([sys.executable, "-c", "from scanner.cli import main; main()", "scan", str(p), "--json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    lines = [ln for ln in r.stderr.strip().splitlines() if "DEMO card database" not in ln]
    assert len(lines) == 1 and lines[0].startswith("decksheet: error:"), r.stderr
    assert r.stdout == ""


def test_cli_password_protected_pdf(tmp_path):
    import pypdf
    writer = pypdf.PdfWriter(clone_from=str(SAMPLES / "sheets" / "db-blue-eyes-gothic.pdf"))
    writer.encrypt(user_password="judge", owner_password="owner", algorithm="AES-128")
    p = tmp_path / "locked.pdf"
    with open(p, "wb") as f:
        writer.write(f)
    _assert_refused(_scan(p), "password")


@pytest.mark.parametrize("sheet, algorithm", [("db-blue-eyes-gothic.pdf", "AES-128"),
                                              ("kde-form-sky-striker.pdf", "AES-256")])
def test_an_owner_password_pdf_opens_without_a_password(tmp_path, sheet, algorithm):
    """Printing apps may lock a sheet's permissions (an owner password, AES) and leave it open to
    read: it is read like any other (pypdf needs `cryptography` for AES: pypdf[crypto])."""
    import pypdf
    src = SAMPLES / "sheets" / sheet
    writer = pypdf.PdfWriter(clone_from=str(src))
    writer.encrypt(user_password="", owner_password="owner", algorithm=algorithm)
    p = tmp_path / f"locked-{sheet}"
    with open(p, "wb") as f:
        writer.write(f)
    got, plain = _scan(p), _scan(src)
    assert got.exit_code == plain.exit_code, got.output
    assert json.loads(got.stdout)["sections"] == json.loads(plain.stdout)["sections"]


def test_cli_pdf_that_is_not_a_deck_sheet(tmp_path):
    import reportlab  # noqa: F401  (a test extra: installed wherever the tests run)
    from reportlab.pdfgen import canvas
    p = tmp_path / "invoice.pdf"
    c = canvas.Canvas(str(p))
    for i in range(20):
        c.drawString(72, 750 - 20 * i, f"Invoice line {i}: 3 widgets at 10.00 each")
    c.save()
    _assert_refused(_scan(p), "not a deck sheet")


def test_cli_blank_pdf_page(tmp_path):
    import reportlab  # noqa: F401  (a test extra: installed wherever the tests run)
    from reportlab.pdfgen import canvas
    p = tmp_path / "blank.pdf"
    c = canvas.Canvas(str(p))
    c.showPage()
    c.save()
    _assert_refused(_scan(p), "not a deck sheet")


# --- pages without usable text go to the OCR reader -----------------------------------------

def _image_only_pdf(tmp_path: Path) -> Path:
    import reportlab  # noqa: F401  (a test extra: installed wherever the tests run)
    from PIL import Image
    from reportlab.pdfgen import canvas
    img = tmp_path / "page.png"
    Image.new("L", (400, 560), 255).save(img)
    p = tmp_path / "scan.pdf"
    c = canvas.Canvas(str(p))
    c.drawImage(str(img), 0, 0, 595, 842)
    c.save()
    return p


def test_image_only_pdf_is_handed_to_ocr(tmp_path, monkeypatch, demo_db):
    path = _image_only_pdf(tmp_path)
    calls = []

    def fake_read_pdf_pages(p, db, options):
        calls.append(p)
        return SheetRead(reader="ocr")
    fake = types.ModuleType("scanner.ocr.pipeline")
    fake.read_pdf_pages = fake_read_pdf_pages
    monkeypatch.setitem(sys.modules, "scanner.ocr.pipeline", fake)
    assert read_pdf(path, demo_db, ReadOptions()) is None  # the PDF reader hands it back
    assert read_input(path, demo_db, ReadOptions())[0].reader == "ocr"
    assert calls == [path]


def test_fonts_without_unicode_map_go_to_ocr(tmp_path, monkeypatch, demo_db):
    """A text layer of glyph ids ('(cid:N)') is no text: the page is OCR'd instead."""
    import pypdf
    from pypdf.generic import NameObject
    writer = pypdf.PdfWriter(clone_from=str(SAMPLES / "sheets" / "db-blue-eyes-gothic.pdf"))
    for font in writer.pages[0]["/Resources"]["/Font"].values():
        font = font.get_object()
        if "/ToUnicode" in font:
            del font[NameObject("/ToUnicode")]
    path = tmp_path / "nomap.pdf"
    with open(path, "wb") as f:
        writer.write(f)
    fake = types.ModuleType("scanner.ocr.pipeline")
    fake.read_pdf_pages = lambda p, db, options: SheetRead(reader="ocr", notes=["ocr"])
    monkeypatch.setitem(sys.modules, "scanner.ocr.pipeline", fake)
    assert read_pdf(path, demo_db, ReadOptions()) is None
    assert read_input(path, demo_db, ReadOptions())[0].reader == "ocr"


# --- real OCR hand-off, end to end ----------------------------------------------------------

def _ruled_sheet(ms, demo_db, tmp_path: Path):
    deck = _deck(ms, demo_db, "blue-eyes")
    path = tmp_path / "ruled.pdf"
    ms.draw_db_sheet(path, deck, ms.DbStyle(ruled=True))  # the OCR reader finds cells by rules
    return deck, path


def _assert_ocr_read(sheet: SheetRead, deck, db) -> None:
    assert sheet.reader == "ocr"
    got = sorted((ln.column, ln.text.replace(" ", ""), ln.count) for ln in sheet.lines)
    assert got == [(c, t.replace(" ", ""), n) for c, t, n in _expected_lines(deck)]
    from scanner.inputs.resolve import resolve_sheet
    decklist = resolve_sheet(sheet, db)
    assert decklist.totals() == {"main": deck.total("monster", "spell", "trap"),
                                 "extra": deck.total("extra"), "side": deck.total("side")}


def test_font_without_unicode_map_is_read_by_ocr(ms, demo_db, tmp_path):
    """Glyph ids are no text: the page goes to the real OCR reader and reads right."""
    import pypdf
    from pypdf.generic import NameObject
    deck, ruled = _ruled_sheet(ms, demo_db, tmp_path)
    writer = pypdf.PdfWriter(clone_from=str(ruled))
    removed = 0
    for font in writer.pages[0]["/Resources"]["/Font"].values():
        font = font.get_object()
        if "/ToUnicode" in font:
            del font[NameObject("/ToUnicode")]
            removed += 1
    assert removed
    path = tmp_path / "nomap.pdf"
    with open(path, "wb") as f:
        writer.write(f)
    _assert_ocr_read(read_input(path, demo_db, ReadOptions())[0], deck, demo_db)


def test_image_only_pdf_is_read_by_ocr(ms, demo_db, tmp_path):
    import pypdfium2 as pdfium
    deck, ruled = _ruled_sheet(ms, demo_db, tmp_path)
    doc = pdfium.PdfDocument(str(ruled))
    image = doc[0].render(scale=200 / 72).to_pil().convert("L")
    doc.close()
    path = tmp_path / "scan.pdf"
    image.save(path, "PDF", resolution=200)
    _assert_ocr_read(read_input(path, demo_db, ReadOptions())[0], deck, demo_db)


# --- digital corrections (annotations) -------------------------------------------------------

def _token_of(path: Path, text: str):
    import pypdfium2 as pdfium
    from scanner.pdf.words import page_text
    doc = pdfium.PdfDocument(str(path))
    try:
        tokens = page_text(doc[0]).tokens
    finally:
        doc.close()
    return next(t for t in tokens if t.text == text)


def _annotate(src: Path, out: Path, notes: list[tuple[str, tuple[float, float, float, float]]],
              subtype: str = "/FreeText") -> None:
    """Add annotations; boxes are (x0, top, x1, bottom) in top-left page coordinates."""
    import pypdf
    from pypdf.generic import (ArrayObject, DictionaryObject, FloatObject, NameObject,
                               TextStringObject)
    writer = pypdf.PdfWriter(clone_from=str(src))
    page = writer.pages[0]
    H = float(page.mediabox.top)
    annots = page.get("/Annots")
    annots = list(annots) if annots else []
    for text, (x0, top, x1, bottom) in notes:
        annot = DictionaryObject({
            NameObject("/Type"): NameObject("/Annot"), NameObject("/Subtype"): NameObject(subtype),
            NameObject("/Rect"): ArrayObject([FloatObject(x0), FloatObject(H - bottom),
                                              FloatObject(x1), FloatObject(H - top)]),
            NameObject("/Contents"): TextStringObject(text),
            NameObject("/DA"): TextStringObject("/Helv 9 Tf 0 g")})
        annots.append(writer._add_object(annot))
    page[NameObject("/Annots")] = ArrayObject(annots)
    with open(out, "wb") as f:
        writer.write(f)


def test_typed_correction_flags_the_line_it_sits_on(ms, demo_db, tmp_path):
    deck = _deck(ms, demo_db, "blue-eyes")
    src = SAMPLES / "sheets" / "db-blue-eyes-gothic.pdf"
    name, _ = deck.columns["spell"][2]
    word = _token_of(src, name.split()[0])
    count_cell = (word.x0 + 120, word.top - 2, word.x0 + 150, word.bottom + 2)  # beside the count
    header = (300, 20, 380, 34)  # over the title: about the sheet, no line
    path = tmp_path / "noted.pdf"
    _annotate(src, path, [("→ 2", count_cell), ("", (400, 700, 420, 720)), ("확인 필요", header)])
    sheet = read_pdf(path, demo_db, ReadOptions())
    flagged = [ln for ln in sheet.lines if ln.flags]
    assert [(ln.column, ln.text, ln.flags) for ln in flagged] == [("spell", name, ["annotation"])]
    assert "'→ 2'" in flagged[0].detail
    # The empty text box is ignored; the note over the title is a sheet-level item.
    assert [(r.reason, r.section) for r in sheet.review] == [("annotation", None)]
    assert "확인 필요" in sheet.review[0].detail
    decklist = load_decklist(path, demo_db)
    entry = next(e for e in decklist.sections["main"] if e.name == name)
    assert entry.needs_review and "annotation" in entry.reasons
    assert sum(e.needs_review for s in decklist.sections.values() for e in s) == 1


def test_pen_marks_on_a_filled_form_flag_their_line(ms, demo_db, tmp_path):
    from scanner.layouts import KDE
    deck = _deck(ms, demo_db, "sky-striker")
    src = SAMPLES / "sheets" / "kde-form-sky-striker.pdf"
    x0, top, x1, bottom = KDE.table("extra").line_box(2)
    path = tmp_path / "inked.pdf"
    _annotate(src, path, [("", (x0 + 20, top + 4, x1 - 20, bottom - 4))], subtype="/Ink")
    sheet = read_pdf(path, demo_db, ReadOptions())
    assert sheet.reader == "pdf-form"
    flagged = [ln for ln in sheet.lines if ln.flags]
    assert [(ln.column, ln.row, ln.text, ln.flags) for ln in flagged] == \
        [("extra", 2, deck.columns["extra"][1][0], ["annotation"])]
    assert "pen marks" in flagged[0].detail


@pytest.mark.parametrize("layout", ["db", "kde-flat", "kde-form"])
def test_blank_sheet_is_refused_not_read_as_an_empty_deck(layout, ms, demo_db, tmp_path):
    deck = ms.SampleDeck(columns={c: [] for c in ms.COLUMN_TITLES})
    path = tmp_path / f"blank-{layout}.pdf"
    if layout == "db":
        ms.draw_db_sheet(path, deck)
    else:
        ms.draw_kde_sheet(path, deck, filled=(layout == "kde-form"))
    with pytest.raises(UnreadableInput, match="blank"):
        read_pdf(path, demo_db, ReadOptions())


def test_second_sheet_page_is_flagged_not_dropped(ms, demo_db, tmp_path):
    import pypdf
    writer = pypdf.PdfWriter()
    for name in ("db-blue-eyes-gothic.pdf", "db-hero-square.pdf"):
        writer.append(str(SAMPLES / "sheets" / name))
    path = tmp_path / "two.pdf"
    with open(path, "wb") as f:
        writer.write(f)
    sheet = read_pdf(path, demo_db, ReadOptions())
    assert [r.reason for r in sheet.review] == ["another-sheet-page"]
    assert "page 2" in sheet.review[0].detail
    assert load_decklist(path, demo_db).needs_review >= 1
