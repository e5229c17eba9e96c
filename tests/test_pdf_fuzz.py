"""Generative robustness: random real decks on random db-ko sheets and Konami forms read exactly.

Each seed draws a deck from the real card database (long names, spaces, Latin, ·, －, 「」, Greek,
glyphs the Nanum fonts lack) and a random print style (font, 8–10 pt, offsets, row pitch, long
and empty columns, empty or full extra/side, row numbers touching names, 참가 번호 line, footer).
Every printed line must come back with its name, count and row, and every name must resolve to
its card; the second reading of the rendered page (`scanner.agreement`, `scanner.appearance`)
accuses no line of these honest sheets and leaves few unverified (`UNVERIFIED_SHARE`). More seeds: DECKSHEET_FUZZ_SEEDS=300 python -m pytest tests/test_pdf_fuzz.py
"""
from __future__ import annotations

import os
import random
import re
from dataclasses import replace

import pytest

from needs import require

from scanner.model import SheetRead
from scanner.vocab import Reason
from scanner.read import ReadOptions, read_input
from scanner.inputs.resolve import resolve_sheet
from tests.test_read_pdf import _load_make_samples

SEEDS = int(os.environ.get("DECKSHEET_FUZZ_SEEDS", "24"))
KDE_SEEDS = max(6, SEEDS // 4)
HARD_NAME = re.compile(r"[ A-Za-z·－「」『』＋＝ΑΩα-ωΔΖΛΞΣϜϝÀéⅠ-Ⅹ★☆∀∞×Ø’“”!?&.:<>~]")
SURNAMES = "김이박최정강조윤장임한오서신권황안송류홍"
GIVEN = ("민준", "서연", "하늘", "지우", "도윤", "서준", "하은", "예린", "건우", "수아")
EVENTS = ("OCG 공인 대회", "매장 대항전", "리모트 듀얼 토너먼트", "지역 예선 2026", "Neuron CS 3월")


@pytest.fixture(scope="module")
def ms():
    return _load_make_samples()


@pytest.fixture(scope="module")
def pools(real_db):
    return card_pools(real_db)


def card_pools(db) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Card names by sheet column, and the hard names (marks, Latin, long) of each."""
    out: dict[str, list[str]] = {"monster": [], "spell": [], "trap": [], "extra": []}
    for card in db.cards.values():
        if not card.ocg_usable or len(db.names.exact_all(card.name)) != 1:
            continue  # twin names are the resolver's business, not the reader's
        key = "extra" if card.is_extra_deck else card.kind.value
        out[key].append(card.name)
    for names in out.values():
        names.sort()
    hard = {k: [n for n in v if HARD_NAME.search(n) or len(n) >= 16] for k, v in out.items()}
    return out, hard


def _names(rng: random.Random, pools, column: str, n: int, taken: set[str]) -> list[str]:
    every, hard = pools
    out: list[str] = []
    while len(out) < n:
        pool = hard[column] if rng.random() < 0.5 else every[column]
        name = rng.choice(pool)
        if name not in taken:
            taken.add(name)
            out.append(name)
    return out


def _size(rng: random.Random, cap: int) -> int:
    """Lines in one column: sometimes none, sometimes the whole column."""
    r = rng.random()
    if r < 0.12:
        return 0
    if r < 0.27:
        return cap
    return rng.randint(1, cap)


def random_deck(ms, rng: random.Random, pools, caps: dict[str, int]):
    columns: dict[str, list[tuple[str, int]]] = {}
    taken: set[str] = set()
    for column, cap in caps.items():
        src = rng.choice(("monster", "spell", "trap")) if column == "side" else column
        names = _names(rng, pools, src, _size(rng, cap), taken if column != "side" else set())
        columns[column] = [(n, rng.choice((1, 1, 2, 3))) for n in names]
    if not any(columns[c] for c in ("monster", "spell", "trap")):
        columns["monster"] = [(n, 3) for n in _names(rng, pools, "monster", 3, taken)]
    return ms.SampleDeck(columns=columns, player_family=rng.choice(SURNAMES),
                         player_given=rng.choice(GIVEN),
                         konami_id="".join(rng.choice("0123456789") for _ in range(10)),
                         event=rng.choice(EVENTS),
                         date=(2026, rng.randint(1, 12), rng.randint(1, 28)))


def random_db_style(ms, rng: random.Random):
    return ms.DbStyle(
        family=rng.choice(tuple(ms.FONTS)), size=rng.choice((8.0, 8.5, 9.0, 9.5, 10.0)),
        dx=round(rng.uniform(-6, 6), 2), dy=round(rng.uniform(-5, 5), 2),
        row_h=round(rng.uniform(13.9, 16.0), 2), entry_no=rng.random() < 0.75,
        title=rng.choice(("덱 리스트", "덱 레시피", "덱 리스트 (메인 덱 / 엑스트라 덱 / 사이드 덱)")),
        glue_row_numbers=rng.random() < 0.25,
        date_format=rng.choice(("{y}.{m:02d}.{d:02d}", "{y}/{m:02d}/{d:02d}", "{y}년 {m}월 {d}일")),
        entry_field=rng.random() < 0.5, footer=rng.random() < 0.6,
        grid_gray=rng.choice((0.0, 0.2, 0.35)), header_fill=rng.choice((0.82, 0.88, 0.93)),
        rownum_size=rng.choice((6.0, 6.5)), wrap_long_names=rng.random() < 0.2)


def _key(text: str) -> str:
    return text.replace(" ", "")


UNVERIFIED_SHARE = 0.10
"""Of an honest sheet's lines, at most this share may stay `not-verified` (the image reader unsure
of a line it reads right: 8 pt names, Latin capitals, namesakes drawn alike); never one accused."""


def assert_exact(sheet: SheetRead, deck, db, rows: bool, unverified: float = UNVERIFIED_SHARE) -> None:
    """The text reader reads the sheet exactly; the second reading (its rendered pages) accuses
    nothing of an honest sheet, and leaves at most `unverified` of its lines unverified."""
    want = sorted((col, r if rows else None, _key(name), n)
                  for col, lines in deck.columns.items()
                  for r, (name, n) in enumerate(lines, start=1))
    got = sorted((ln.column, ln.row if rows else None, _key(ln.text), ln.count) for ln in sheet.lines)
    assert got == want
    flagged = [ln for ln in sheet.lines if ln.flags]
    assert [ln for ln in flagged if set(ln.flags) != {Reason.NOT_VERIFIED}] == []
    assert len(flagged) <= unverified * len(sheet.lines), [ln.detail for ln in flagged]
    assert [f for f in sheet.review if f.reason != Reason.NOT_VERIFIED] == []
    # What follows checks the text reading itself: the second reading's doubts set aside.
    sheet = replace(sheet, lines=[replace(ln, flags=[], detail="") for ln in sheet.lines], review=[])
    assert sheet.player_name == deck.player_family + deck.player_given
    assert sheet.konami_id == deck.konami_id
    assert sheet.printed_totals == {"main": deck.total("monster", "spell", "trap"),
                                    "extra": deck.total("extra"), "side": deck.total("side")}
    decklist = resolve_sheet(sheet, db)
    for section in ("main", "extra", "side"):
        for e in decklist.sections[section]:
            assert not e.needs_review, e
            assert db.get(e.card_id).name == e.name
    assert decklist.review == []


@pytest.mark.parametrize("seed", range(SEEDS))
def test_random_db_sheet_reads_exactly(seed, ms, pools, real_db, tmp_path):
    rng = random.Random(seed)
    deck = random_deck(ms, rng, pools, {"monster": 26, "spell": 24, "trap": 22, "extra": 15,
                                         "side": 15})
    style = random_db_style(ms, rng)
    path = tmp_path / f"db-{seed}.pdf"
    ms.draw_db_sheet(path, deck, style)
    sheet, _ = read_input(path, real_db, ReadOptions())
    assert sheet.reader == "pdf-text"
    assert_exact(sheet, deck, real_db, rows=style.entry_no)


def test_long_names_wrapped_on_two_lines_read_as_one(ms, pools, real_db, tmp_path):
    """A name set on two small lines inside its row is one name with one count."""
    longest = sorted(pools[0]["monster"], key=len)[-6:]
    deck = ms.SampleDeck(columns={"monster": [(n, 1 + i % 3) for i, n in enumerate(longest)],
                                  "spell": [], "trap": [], "extra": [], "side": []})
    path = tmp_path / "wrapped.pdf"
    style = ms.DbStyle(size=10.0, wrap_long_names=True)
    ms.draw_db_sheet(path, deck, style)
    import pypdfium2 as pdfium
    from scanner.pdf.words import page_text
    doc = pdfium.PdfDocument(str(path))
    small = [t for t in page_text(doc[0]).tokens if t.size < 0.7 * style.size and not t.is_number]
    doc.close()
    assert small  # the generator really wrapped names
    sheet, _ = read_input(path, real_db, ReadOptions())
    # The image reader does not join a name set on two lines: those lines stay unverified (a
    # judge looks), never accused.
    assert_exact(sheet, deck, real_db, rows=True, unverified=1.0)


@pytest.mark.parametrize("size", [8.0, 9.5])
def test_names_starting_with_digits_glued_to_row_numbers(size, ms, pools, real_db, tmp_path):
    """Row numbers of the names' own size printed against names that start with digits
    ('127 카드' is row 12 + '7 카드'): cut where the row sequence says, never inside a name."""
    rng = random.Random(7)
    digit_names = [n for n in pools[0]["monster"] if n[0].isdigit()]
    spells = rng.sample(pools[0]["spell"], 12) + [n for n in pools[0]["spell"] if n[0].isdigit()]
    deck = ms.SampleDeck(columns={"monster": [(n, 2) for n in digit_names],
                                  "spell": [(n, 1 + i % 3) for i, n in enumerate(spells)],
                                  "trap": [], "extra": [], "side": []})
    path = tmp_path / "glued.pdf"
    ms.draw_db_sheet(path, deck, ms.DbStyle(size=size, glue_row_numbers=True, rownum_size=size))
    sheet, _ = read_input(path, real_db, ReadOptions())
    # The image reader cannot cut a row number of the names' size from a name that starts with
    # digits (the text reader cuts by the row sequence): unverified, never accused.
    assert_exact(sheet, deck, real_db, rows=True, unverified=1.0)


@pytest.mark.parametrize("seed", range(KDE_SEEDS))
def test_random_kde_form_reads_exactly(seed, ms, pools, real_db, tmp_path):
    rng = random.Random(10_000 + seed)
    deck = random_deck(ms, rng, pools, {"monster": 18, "spell": 18, "trap": 18, "extra": 15,
                                         "side": 15})
    filled = seed % 2 == 0
    path = tmp_path / f"kde-{seed}.pdf"
    ms.draw_kde_sheet(path, deck, filled=filled, family=rng.choice(tuple(ms.FONTS)),
                      size=rng.choice((8.0, 8.5, 9.0, 9.5)))
    sheet, _ = read_input(path, real_db, ReadOptions())
    assert sheet.reader == ("pdf-form" if filled else "pdf-text")
    assert_exact(sheet, deck, real_db, rows=True)


# --- the Chinese official form ----------------------------------------------------------------

@pytest.fixture(scope="module")
def cn_template(shared_dir):
    path = shared_dir / "forms" / "CN_decklist_template_blank.pdf"
    require(path.is_file(), f"needs {path}")
    return path


def test_cn_field_boxes_are_the_forms_own(cn_template):
    """The reader's field map and boxes agree with every widget of the blank form."""
    import pypdf
    from scanner.layouts import CN
    from scanner.pdf.form import field_boxes, form_of_fields
    page = pypdf.PdfReader(cn_template).pages[0]
    H = float(page.mediabox.top)
    widgets = {}
    for ref in page["/Annots"]:
        a = ref.get_object()
        if a.get("/Subtype") == "/Widget":
            x0, y0, x1, y1 = (float(v) for v in a["/Rect"])
            widgets[str(a["/T"])] = (x0, H - y1, x1, H - y0)
    assert form_of_fields(set(widgets)) is CN
    boxes = field_boxes(CN)
    assert set(CN.form.cells) <= set(boxes) <= set(widgets)
    for name, box in boxes.items():
        assert all(abs(a - b) <= 1.0 for a, b in zip(box, widgets[name])), name


@pytest.mark.parametrize("seed", range(4))
def test_random_cn_form_reads_exactly(seed, ms, pools, real_db, cn_template, tmp_path):
    rng = random.Random(20_000 + seed)
    deck = random_deck(ms, rng, pools, {"monster": 20, "spell": 20, "trap": 20, "extra": 15,
                                         "side": 15})
    filled = seed % 2 == 0
    path = tmp_path / f"cn-{seed}.pdf"
    ms.draw_cn_sheet(cn_template, path, deck, filled=filled, family=rng.choice(tuple(ms.FONTS)),
                     size=rng.choice((8.0, 8.5, 9.0)))
    sheet, _ = read_input(path, real_db, ReadOptions())
    assert sheet.reader == ("pdf-form" if filled else "pdf-text")
    assert "Chinese" in sheet.notes[0]
    assert sheet.event_date == "%04d-%02d-%02d" % deck.date
    assert_exact(sheet, deck, real_db, rows=True)


def test_blank_cn_form_is_not_a_deck(cn_template, real_db):
    """The blank template has fields, labels and two empty text boxes, but no deck."""
    from scanner.errors import UnreadableInput
    with pytest.raises(UnreadableInput, match="blank"):
        read_input(cn_template, real_db, ReadOptions())
