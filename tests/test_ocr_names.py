"""Name cells → cards (scanner/ocr/names.py): Tesseract read, closed-vocabulary match, rendering
check. Cells are drawn in the sheets' fonts, blurred and noised; a namesake OCR cannot tell
apart is decided by rendering or flagged, never silently swapped."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from needs import require

from scanner.ocr.names import Vocabulary, ocr_sure, read_name
from scanner.ocr.verify import available_families, render_name

FAMILIES = available_families()


@pytest.fixture(autouse=True)
def _fonts():
    require("NanumGothic" in FAMILIES, "needs fonts-nanum")

CARDS = [(980973, "암드 드래곤 LV3", "monster"), (46384672, "암드 드래곤 LV5", "monster"),
         (73879377, "암드 드래곤 LV7", "monster"), (14558127, "하루 우라라", "monster"),
         (23434538, "증식의 G", "monster"), (1, "바렐로드 드래곤", "extra"),
         (2, "바렐로드 F 드래곤", "extra"), (3, "바렐로드 S 드래곤", "extra"),
         (4, "미지 개구리", "monster"), (5, "마지 개구리", "monster"),
         (6, "팬텀 오브 카오스", "monster"), (7, "코어 오브 카오스", "monster")]


@pytest.fixture(scope="module")
def tess():
    from scanner.ocr.engine import Tesseract
    t = Tesseract()
    yield t
    t.close()


def sheet_cell(name: str, family: str = "NanumGothic", px: int = 26, blur: float = 0.7,
               seed: int = 1) -> np.ndarray:
    """A printed name as cut from the page."""
    ink = render_name(name, FAMILIES[family], px=px)
    h, w = ink.shape
    cell = np.full((h + 18, w + 40), 255, np.uint8)
    cell[9:9 + h, 10:10 + w] = ink
    cell = cv2.GaussianBlur(cell, (0, 0), blur)
    cell = np.clip(cell + np.random.default_rng(seed).normal(0, 5, cell.shape), 0, 255).astype(np.uint8)
    return cell


def vocab_for_page(family: str = "NanumGothic") -> Vocabulary:
    v = Vocabulary.from_names(CARDS)
    v.renderer.family = family
    return v


def test_vocabulary_knows_the_namesakes_ocr_cannot_tell_apart():
    v = Vocabulary.from_names(CARDS)
    assert sorted(v.rivals([980973], "monster")[980973]) == [46384672, 73879377]
    assert sorted(v.rivals([1], "extra")[1]) == [2, 3]
    assert v.rivals([14558127], "monster")[14558127] == []
    assert v.rivals([2], "side")[2] == [1, 3]  # the side deck holds every card


@pytest.mark.parametrize("name", ["암드 드래곤 LV5", "암드 드래곤 LV7", "증식의 G", "하루 우라라"])
def test_read_name_gets_the_card_or_flags(tess, name):
    cid = next(c for c, n, _ in CARDS if n == name)
    cell = sheet_cell(name)
    got = read_name(cell, "monster", tess, vocab_for_page(), scale=1.5)
    assert got.match.card_id == cid and not got.flags, (got.text, got.flags, got.detail)


@pytest.mark.parametrize("name, other", [("바렐로드 F 드래곤", 1), ("바렐로드 드래곤", 2)])
def test_a_dropped_latin_letter_never_passes_as_the_shadow_card(tess, name, other):
    cid = next(c for c, n, _ in CARDS if n == name)
    cell = sheet_cell(name, family="NanumGothic")
    got = read_name(cell, "extra", tess, vocab_for_page(), scale=1.5)
    assert got.match.card_id != other or got.flags
    assert got.match.card_id == cid and not got.flags, (got.text, got.flags, got.detail)


def test_without_fonts_a_namesake_read_is_flagged(tess):
    v = Vocabulary.from_names(CARDS)
    v.renderer.families = {}
    cell = sheet_cell("바렐로드 드래곤")
    got = read_name(cell, "extra", tess, v, scale=1.5)
    assert got.flags and got.flags[0] in ("ambiguous-name", "uncertain-name")


def test_empty_cell_is_unresolved(tess):
    got = read_name(np.full((30, 200), 255, np.uint8), "monster", tess, vocab_for_page())
    assert got.match.card_id is None and got.flags == ["unresolved-name"]


def test_ocr_sure_needs_score_and_lead():
    v = Vocabulary.from_names(CARDS)
    assert ocr_sure(v.match("하루 우라라", "monster"))
    assert not ocr_sure(v.match("암드 드래곤 L", "monster"))  # LV3/LV5/LV7 tie


def test_real_db_shadow_cards_are_namesakes(real_db):
    v = Vocabulary.build(real_db)
    for cid, shadowing in list(real_db.names.shadows.items())[:40]:
        card = real_db.get(cid)
        column = "extra" if card.is_extra_deck else card.kind.value
        near = set(v.rivals([cid], column)[cid]) | set(v.rivals([cid], "side")[cid])
        assert set(shadowing) <= near, (card.name, shadowing)


def test_a_row_number_glued_to_the_name_is_not_read_as_part_of_it(tess):
    from scanner.ocr.names import without_row_number
    name = sheet_cell("가스타 팔코", px=26)
    digit = render_name("4", FAMILIES["NanumGothic"], px=16)
    h = name.shape[0]
    cell = np.full((h, name.shape[1] + digit.shape[1] + 2), 255, np.uint8)
    cell[:, digit.shape[1] + 2:] = name
    base = 9 + render_name("가스타 팔코", FAMILIES["NanumGothic"], px=26).shape[0]
    cell[base - digit.shape[0]:base, 2:2 + digit.shape[1]] = np.minimum(
        cell[base - digit.shape[0]:base, 2:2 + digit.shape[1]], digit)
    assert (without_row_number(cell)[:, :digit.shape[1] + 2] == 255).all()
    assert (without_row_number(name) == name).all()  # no number: unchanged
    got = read_name(cell, "monster", tess, Vocabulary.from_names(CARDS + [(8, "가스타 팔코", "monster")]),
                    scale=1.5)
    assert got.match.card_id == 8 and not got.flags, (got.text, got.flags)


def test_a_cell_with_only_its_row_number_is_an_empty_row(tess):
    digits = render_name("20", FAMILIES["NanumGothic"], px=16)
    cell = np.full((60, 400), 255, np.uint8)
    cell[40 - digits.shape[0]:40, 4:4 + digits.shape[1]] = digits
    got = read_name(cell, "monster", tess, vocab_for_page(), scale=1.0)
    assert got.row_number_only and got.match.card_id is None
    name = sheet_cell("하루 우라라")
    assert not read_name(name, "monster", tess, vocab_for_page(), scale=1.5).row_number_only


def test_a_blurred_row_number_alone_is_an_empty_row_by_its_shape(tess):
    """Blurred 6 pt digits read as nothing or `| |`: the shape alone (small, at the left end)
    says the row is empty, so no phantom line is made of it."""
    from scanner.ocr.names import only_row_number
    digits = cv2.GaussianBlur(render_name("18", FAMILIES["NanumGothic"], px=16), (0, 0), 1.6)
    cell = np.full((42, 440), 255, np.uint8)
    cell[26 - digits.shape[0]:26, 6:6 + digits.shape[1]] = digits
    assert only_row_number(cell)
    assert read_name(cell, "monster", tess, vocab_for_page(), scale=1.0).row_number_only
    assert not only_row_number(sheet_cell("불행"))  # a short name is taller than a row number
    far = cell.copy()
    far[10:30, 300:304] = 60  # other ink further right: not a number alone
    assert not only_row_number(far)


def test_an_empty_row_keeps_its_shape_with_rule_bits_and_grain(tess):
    """A small, soft photo leaves the bent row rules along the cell's top and bottom edge and
    JPEG grain all over it: the row number is still the cell's only mark (before, the ink ran
    the cell's whole height and the noise was read as a line `jae`)."""
    from scanner.ocr.names import only_row_number
    digits = cv2.GaussianBlur(render_name("9", FAMILIES["NanumGothic"], px=16), (0, 0), 1.0)
    cell = np.full((40, 700), 255, np.uint8)
    cell[24 - digits.shape[0]:24, 6:6 + digits.shape[1]] = digits
    for x0 in range(0, 700, 90):  # dashes of a leaning rule hugging each edge
        cell[1 + x0 // 350:3 + x0 // 350, x0:x0 + 60] = 90
        cell[36 + x0 // 350:38 + x0 // 350, x0:x0 + 60] = 90
    rng = np.random.default_rng(5)
    ys, xs = rng.integers(4, 36, 120), rng.integers(30, 700, 120)
    cell[ys, xs] = 100  # lone grain
    assert only_row_number(cell)
    assert read_name(cell, "monster", tess, vocab_for_page(), scale=1.0).row_number_only
    named = cell.copy()
    text = render_name("하루 우라라", FAMILIES["NanumGothic"], px=22)
    y0 = 30 - text.shape[0]
    named[y0:30, 24:24 + text.shape[1]] = np.minimum(named[y0:30, 24:24 + text.shape[1]], text)
    assert not only_row_number(named)  # a name beside the number is a line, whatever the noise


def test_a_first_letter_clipped_by_the_cell_edge_is_kept_when_numbers_have_their_own_column(tess):
    """A name printed hard against the row-number rule loses the left of its first letter (ㅋ of
    카) to the cell's edge: the stump looks like a row number and was cut, and the rendering then
    rejected the right card. Where the grid found a row-number column, nothing is cut.
    (tests/data/clipped-first-letter.png: a cell of one of our generated photos.)"""
    from pathlib import Path
    cell = cv2.imread(str(Path(__file__).parent / "data" / "clipped-first-letter.png"), cv2.IMREAD_GRAYSCALE)
    v = Vocabulary.from_names(CARDS + [(13076804, "카오스 데몬－혼돈의 마신－", "extra"),
                                       (31385077, "카오스 가디스－혼돈의 여신－", "extra")])
    got = read_name(cell, "extra", tess, v, scale=48 / 46, numbers_in_cell=False)
    assert got.match.card_id == 13076804 and not got.flags, (got.text, got.flags, got.detail)


def test_a_plain_line_that_the_single_line_mode_returns_empty_is_still_read(tess):
    """Tesseract's psm 7 returned nothing for this legible serif line on grey paper
    (tests/data/plain-line-psm7-misses.png, a cell of samples/photos/photo-corrected-01.jpg);
    the raw-line mode reads it."""
    from pathlib import Path
    cell = cv2.imread(str(Path(__file__).parent / "data" / "plain-line-psm7-misses.png"), cv2.IMREAD_GRAYSCALE)
    v = Vocabulary.from_names(CARDS + [(45467446, "하얀 영룡", "monster"), (45467447, "하얀 용", "monster")])
    got = read_name(cell, "monster", tess, v, scale=48 / 46)
    assert got.match.card_id == 45467446, (got.text, got.flags)


def test_a_latin_only_name_is_read_with_eng_when_kor_and_kor_eng_give_junk(tess):
    """`F·G·D` (tests/data/latin-only-name.png, a cell of one of our generated photos): at this
    scale kor and kor+eng both answer `『…60ㅁ`; eng alone reads the letters, and the rendering
    keeps the card one letter away (L·G·D) out."""
    from pathlib import Path
    cell = cv2.imread(str(Path(__file__).parent / "data" / "latin-only-name.png"), cv2.IMREAD_GRAYSCALE)
    v = Vocabulary.from_names(CARDS + [(99267150, "F·G·D", "side"), (10669138, "L·G·D", "side")])
    got = read_name(cell, "side", tess, v, scale=48 / 44)
    assert got.match.card_id == 99267150 and not got.flags, (got.text, got.flags)


def test_a_table_with_a_row_number_column_is_marked():
    from scanner.ocr.grid import Box, Table, build_rows
    ys = [0, 40] + [40 + 30 * i for i in range(1, 22)]
    numbered = Table(box=Box(0, 0, 500, ys[-1] + 1), xs=[0, 22, 420, 500], ys=ys)
    glued = Table(box=Box(0, 0, 500, ys[-1] + 1), xs=[0, 420, 500], ys=ys)
    build_rows(numbered)
    build_rows(glued)
    assert numbered.number_column and numbered.rows[0].name.x0 == 22
    assert not glued.number_column and glued.rows[0].name.x0 == 0


def _glued_number_cell(name: str, family: str, number: str, number_px: int, gap: int,
                       pad: int = 20) -> tuple[np.ndarray, int, int]:
    """A name cell with its row number printed before the name, bottoms aligned, `gap` px apart
    (−1: touching): the cell, the number's width and where the name starts."""
    text = render_name(name, FAMILIES[family], px=26)
    digit = render_name(number, FAMILIES[family], px=number_px)
    h, dw = text.shape[0], digit.shape[1]
    cell = np.full((h + 16, text.shape[1] + dw + pad), 255, np.uint8)
    x_name = 8 + dw + gap
    cell[8:8 + h, x_name:x_name + text.shape[1]] = text
    ys = slice(8 + h - digit.shape[0], 8 + h)
    cell[ys, 8:8 + dw] = np.minimum(cell[ys, 8:8 + dw], digit)
    return cell, dw, x_name


@pytest.mark.parametrize("name", ["샤크 서커", "마운틴 워리어", "Sin 패러렐 기어"])
def test_a_row_number_touching_the_name_goes_and_the_first_letter_stays(name):
    from scanner.ocr.names import without_row_number
    cell, dw, x_name = _glued_number_cell(name, "NanumGothic", "2", 16, gap=-1)  # touching
    out = without_row_number(cell)
    assert (out[:, :8 + dw - 3] == 255).all()  # the number is gone
    kept = (out[:, x_name + 2:] < 160).sum()
    assert kept >= 0.97 * (cell[:, x_name + 2:] < 160).sum()  # the name is whole


@pytest.mark.parametrize("name", ["매드머더", "마도원전 크로울리", "모래의 마녀"])
def test_a_glued_number_before_a_serif_letter_that_starts_a_little_low(name):
    """In NanumMyeongjo the ㅁ of 매/마 starts a quarter of the line below its top: it was cut
    with the number (`1드머더`)."""
    from scanner.ocr.names import without_row_number
    cell, dw, x_name = _glued_number_cell(name, "NanumMyeongjo", "2", 16, gap=3)
    out = without_row_number(cell)
    assert (out[:, :8 + dw] == 255).all()  # the number is gone
    kept = (out[:, x_name:] < 160).sum()
    assert kept >= 0.97 * (cell[:, x_name:] < 160).sum()  # the name is whole


def test_a_name_starting_with_a_low_letter_is_not_cut():
    from scanner.ocr.names import without_row_number
    # (A lowercase Latin start would be cut: one card of 14k, `sophia의 네크로즈`; it is then
    # flagged, not misread.)
    for name in ("샤크 서커", "소울 차지", "스택 리바이버", "시조의 수호자 티라스", "오드아이즈 랜서 드래곤"):
        cell = sheet_cell(name)
        assert (without_row_number(cell) == cell).all(), name


def test_scan_with_lv_namesakes_reads_each_one(fixtures_dir, real_db):
    """scan-04 lists 암드 드래곤 LV3 and LV5 in adjacent rows: kor reads neither digit reliably,
    the rendering tells them apart; no line is silently wrong."""
    import json
    from scanner.read import ReadOptions, load_decklist
    from scoring import score_scan
    src = fixtures_dir / "sheets" / "scan-04.pdf"
    truth = json.loads(src.with_name("scan-04.truth.json").read_text("utf-8"))
    out = load_decklist(src, real_db, ReadOptions()).to_json()
    main = {e["card_id"]: e for e in out["sections"]["main"]}
    for cid in (980973, 46384672):  # LV3, LV5
        assert cid in main and not main[cid]["needs_review"], main.get(cid)
    sc = score_scan(out, truth)
    assert sc["silent"] == 0 and sc.get("extra_silent", 0) == 0


@pytest.mark.parametrize("name", ["클러스터 컨제스터", "전기 도마뱀", "테레키 어택커"])
def test_a_blurred_glued_number_that_reaches_high_is_cut_on_a_second_look(tess, name):
    """A far corner of a tilted photo blurs a 6 pt row number until its top sits only a quarter
    of the line below the name's (`1클러스터`): the first look keeps it, the read does not
    resolve, and the second look with the looser height cuts it."""
    from scanner.ocr.names import NAMES, without_row_number
    cell, _, _ = _glued_number_cell(name, "NanumGothic", "1", 24, gap=3, pad=24)  # 0.75 of the line, as seen
    cell = cv2.GaussianBlur(cell, (0, 0), 1.2)
    assert (without_row_number(cell, NAMES.first_cut) == cell).all()  # the first look keeps it
    vocab = Vocabulary.from_names(CARDS + [(9, name, "monster")])
    vocab.renderer.family = "NanumGothic"
    got = read_name(cell, "monster", tess, vocab, scale=1.5)
    assert got.match.card_id == 9 and not got.flags, (got.text, got.flags)


def _numbered_cell(name: str, number: str, dashed: bool = True) -> tuple[np.ndarray, int]:
    """A name cell the grid cut without finding the row-number column's rule: the number, the
    dashed rule (full cell height) and the name, blurred; and where the name starts."""
    text = render_name(name or "가나다라", FAMILIES["NanumGothic"], px=26)
    if not name:
        text = np.full_like(text, 255)  # an empty row
    digit = render_name(number, FAMILIES["NanumGothic"], px=16)
    h = text.shape[0]
    cell_h = int(1.7 * h)
    cell = np.full((cell_h, max(text.shape[1] + 60, 420)), 255, np.uint8)  # a cell ~ 420 px wide
    y0 = (cell_h - h) // 2
    ys = slice(y0 + h - digit.shape[0], y0 + h)
    cell[ys, 4:4 + digit.shape[1]] = np.minimum(cell[ys, 4:4 + digit.shape[1]], digit)
    rule_x = 8 + digit.shape[1]
    for y in range(0, cell_h, 6 if dashed else cell_h):
        cell[y:y + (4 if dashed else cell_h), rule_x:rule_x + 2] = 40
    x_name = rule_x + 7
    cell[y0:y0 + h, x_name:x_name + text.shape[1]] = text
    return cv2.GaussianBlur(cell, (0, 0), 1.0), x_name


@pytest.mark.parametrize("name", ["마굉신 레이븐", "서지 블리츠크리크", "EM 레벨맨"])
def test_a_row_number_rule_the_grid_missed_goes_with_its_number(tess, name):
    """A dashed, blurred row-number rule the grid did not find stays in the name cell
    (`1¦마굉신`): the rule renders as ink no name has, so the read is flagged; the second look
    cuts the rule and the number, and the name resolves. An empty row is an empty row."""
    from scanner.ocr.names import without_number_rule
    cell, x_name = _numbered_cell(name, "7")
    out = without_number_rule(cell)
    assert out is not None and (out[:, :x_name - 3] > 160).all()  # no ink left of the name
    assert (out[:, x_name:] == cell[:, x_name:]).all()  # the name is whole
    vocab = Vocabulary.from_names(CARDS + [(9, name, "monster")])
    vocab.renderer.family = "NanumGothic"
    got = read_name(cell, "monster", tess, vocab, scale=1.5)
    assert got.match.card_id == 9 and not got.flags, (got.text, got.flags)
    assert got.attempt.split(":")[0] in ("glued-number", "number-rule"), got.attempt  # not the first look
    empty, _ = _numbered_cell("", "12")
    assert read_name(empty, "monster", tess, vocab, scale=1.5).row_number_only


@pytest.mark.parametrize("name", ["Ignister 케이", "l 레이디", "1000 니들", "ㅣ마굉신 레이븐", "리볼버 드래곤"])
def test_a_name_without_a_number_rule_is_not_cut(name):
    from scanner.ocr.names import without_number_rule
    assert without_number_rule(sheet_cell(name, blur=1.0)) is None, name


@pytest.mark.parametrize("crop, column, card_id", [
    ("glued-number-no57", "extra", 53244294), ("glued-number-latin", "monster", 4881365),
    ("glued-number-rb", "spell", 16066654), ("glued-number-sin", "trap", 5125629),
    ("glued-number-round-capital", "extra", 41147577), ("glued-number-touching-hangul", "side", 114932)])
def test_a_glued_number_before_a_latin_capital_is_cut_on_a_second_look(tess, real_db, crop, column, card_id):
    """A 6 pt row number glued to a name that starts with a Latin capital (tests/data/glued-number-*,
    cells of one of our generated photos) reads as more digits or letters (`1840.57 분신룡`,
    `oAlligator's`, `28.8.오퍼레이션`), not as a number before a name, and the rendering finds
    more ink than the name: the second look (looser height) is taken for any read that did not
    resolve, and the name resolves. A digit glued to a round capital (`3CX`) or touching a
    Hangul letter (`2플레이트`) leaves only a shallow valley: the second look takes that too."""
    from pathlib import Path
    from scanner.ocr.names import NAMES, without_row_number
    cell = cv2.imread(str(Path(__file__).parent / "data" / f"{crop}.png"), cv2.IMREAD_GRAYSCALE)
    assert (without_row_number(cell, NAMES.first_cut) == cell).all()  # the first look keeps it
    vocab = Vocabulary.build(real_db)
    vocab.renderer.family = "NanumGothic"
    got = read_name(cell, column, tess, vocab, scale=1.05)
    assert got.match.card_id == card_id and not got.flags, (got.text, got.match.name, got.flags, got.detail)


def test_a_cut_that_could_have_taken_a_real_letter_is_not_kept(tess, monkeypatch):
    """`may_be_cut_off`: a name that is another card's without its first few non-Hangul letters
    (`A 보옥수 코발트 이글` → `보옥수 코발트 이글`) is what a row-number cut of a real first letter
    would leave; such a second look is never taken as the answer."""
    v = Vocabulary.from_names([(1, "A 보옥수 코발트 이글", "monster"), (2, "보옥수 코발트 이글", "monster"),
                               (3, "sophia의 네크로즈", "monster"), (4, "EM 팝업", "spell"), (5, "팝업", "spell")])
    assert v.may_be_cut_off(2, "monster") and v.may_be_cut_off(5, "spell") and v.may_be_cut_off(5, "side")
    assert not v.may_be_cut_off(1, "monster") and not v.may_be_cut_off(3, "monster")
    assert not v.may_be_cut_off(5, "monster")  # another column's card cannot be on this line
    # A low first letter the looser cut takes, on a first look that did not resolve (forced
    # here: a soft photo's): the second look reads the short name, and it is not taken.
    from dataclasses import replace
    import scanner.ocr.names as names
    first_look = names.read_name_once

    def unsure_first_look(cell, column, tess, vocab, scale=1.0, numbers_in_cell=True, row_numbers=True, **kw):
        got = first_look(cell, column, tess, vocab, scale, numbers_in_cell, row_numbers, **kw)
        return replace(got, flags=["uncertain-name"]) if numbers_in_cell else got

    monkeypatch.setattr(names, "read_name_once", unsure_first_look)
    cell = sheet_cell("ex 스타 드래곤", blur=1.0)
    v = Vocabulary.from_names(CARDS + [(21, "ex 스타 드래곤", "monster"), (22, "스타 드래곤", "monster")])
    v.renderer.family = "NanumGothic"
    second = names.glued_number_retry(cell, "monster", tess, v, scale=1.5)
    assert second is not None and second.match.card_id == 22 and not second.flags  # the danger
    got = read_name(cell, "monster", tess, v, scale=1.5)
    assert got.flags, (got.text, got.match.name)


@pytest.mark.parametrize("crop, column, scale, numbers, card_id", [
    ("soft-nebula-neos", "extra", 1.02, True, 40080312), ("soft-militum", "side", 1.09, False, 81661951)])
def test_ocr_and_rendering_agreeing_on_a_soft_photo_settle_a_close_runner_up(tess, real_db, crop, column,
                                                                            scale, numbers, card_id):
    """Cells of our generated soft photos (tests/data/soft-*): kor reads `네블라 네오스` (0.97, but
    `블랙 네오스` is 0.92) and `드래그니티 - 밀리` (0.91, `필룸` 0.84); the rendering puts the same
    card first by a wide lead, at 0.7, under the 0.75 that lets it pick against OCR. Both
    readings agree: the line stands."""
    from pathlib import Path
    cell = cv2.imread(str(Path(__file__).parent / "data" / f"{crop}.png"), cv2.IMREAD_GRAYSCALE)
    vocab = Vocabulary.build(real_db)
    got = read_name(cell, column, tess, vocab, scale=scale, numbers_in_cell=numbers)
    assert got.match.card_id == card_id and not got.flags, (got.text, got.match.name, got.flags, got.detail)
    assert "rendering picked" in got.detail


def test_the_rendering_alone_does_not_overrule_a_close_ocr_best_on_a_soft_photo(real_db):
    """The same soft cell with OCR's best on the wrong card (`블랙 네오스` 0.97, the printed name
    0.92): the rendering prefers the printed name, but at 0.7 it may not pick against OCR; and
    with OCR on the printed name, a rendering that fits it under R_AGREE decides nothing."""
    from pathlib import Path
    from scanner.ocr.names import without_row_number
    from scanner.ocr.verify import R_AGREE, cell_name_ink, decide
    cell = cv2.imread(str(Path(__file__).parent / "data" / "soft-nebula-neos.png"), cv2.IMREAD_GRAYSCALE)
    ink = cell_name_ink(without_row_number(cell))
    names = {40080312: "엘리멘틀 히어로 네뷸라 네오스", 28677304: "엘리멘틀 히어로 블랙 네오스",
             1: "엘리멘틀 히어로 플레어 네오스"}
    vocab = Vocabulary.build(real_db)
    v = decide(vocab.renderer, ink, 28677304, False, {28677304: 0.97, 40080312: 0.92, 1: 0.87}, {}, names)
    assert not v.sure and v.scores[40080312] < 0.75, v.detail
    v = decide(vocab.renderer, ink, 40080312, False, {40080312: 0.97, 28677304: 0.92, 1: 0.87}, {}, names)
    assert v.sure and v.card_id == 40080312 and v.scores[40080312] >= R_AGREE
    blurred = cv2.GaussianBlur(ink, (0, 0), 3.0)  # a rendering this far from the cell decides nothing
    v = decide(vocab.renderer, blurred, 40080312, False, {40080312: 0.97, 28677304: 0.92, 1: 0.87}, {}, names)
    assert v.scores[40080312] < R_AGREE and not v.sure, v.scores


def _soft_photo_cell(crop: str) -> np.ndarray:
    from pathlib import Path
    return cv2.imread(str(Path(__file__).parent / "data" / f"{crop}.png"), cv2.IMREAD_GRAYSCALE)


def test_a_glued_number_on_the_latin_baseline_is_cut_below_lower_hangul(tess, real_db):
    """A name cell of a small, soft generated photo (tests/data/glued-number-hangul-below.png,
    26 px of text, NanumSquare): the row number 1 glued to `F.A. 라이트닝마스터` stands on the
    Latin baseline, 0.27 of the line above the lowest Hangul ink (닝's ㅇ). The second look cuts
    it, and the name resolves; at the first look's baseline tolerance it was not cut."""
    import scanner.ocr.names as names
    cell = _soft_photo_cell("glued-number-hangul-below")
    from dataclasses import replace
    loose = names.without_row_number(cell, names.NAMES.looser_cut)
    strict = names.without_row_number(cell, replace(names.NAMES.looser_cut, base=names.NAMES.first_cut.base))
    assert (strict == cell).all() and not (loose == cell).all()
    got = read_name(cell, "extra", tess, Vocabulary.build(real_db), scale=1.02)
    assert got.match.card_id == 33158448 and not got.flags, (got.text, got.match.name, got.flags, got.detail)
    assert got.attempt.startswith("glued-number: "), got.attempt


def _square_soft_vocab(real_db) -> Vocabulary:
    """The vocabulary as the page's exact reads set it: NanumSquare, the heaviest blur."""
    from scanner.ocr.verify import BLURS
    require("NanumSquare" in FAMILIES, "needs the NanumSquare font")
    vocab = Vocabulary.build(real_db)
    vocab.renderer.family, vocab.renderer.blur = "NanumSquare", BLURS[-1]
    return vocab


def test_the_first_read_is_checked_against_the_cut_cell_when_the_cut_reads_worse(tess, real_db):
    """`2Ga - PUNK. 크러시 비트` (tests/data/glued-number-reads-worse-cut.png, a soft photo's
    cell): the first read matches the card at 0.97 but its cell holds the row number, so the
    rendering finds more ink; the cut cell reads as junk (`Ga -ㅁ401.`, 0.75). The first read's
    card, rendered against the cut cell, fits: the line stands."""
    cell = _soft_photo_cell("glued-number-reads-worse-cut")
    got = read_name(cell, "spell", tess, _square_soft_vocab(real_db), scale=1.02)
    assert got.match.card_id == 17691568 and not got.flags, (got.text, got.match.name, got.flags, got.detail)


def test_a_first_read_of_another_card_is_not_vouched_for_by_the_cut_cell(tess, real_db):
    """The same cell, with the first look's sure match on another card of the column that shares
    its Latin start (`Ga－P.U.N.K. 와일드 피킹`): its rendering does not fit the cut cell, so
    the second look does not return it unflagged."""
    from scanner.ocr.names import NameMatch, NameRead, glued_number_retry
    cell = _soft_photo_cell("glued-number-reads-worse-cut")
    vocab = _square_soft_vocab(real_db)
    wrong = NameMatch(81192859, "Ga－P.U.N.K. 와일드 피킹", 0.93, 0.2,
                      [(81192859, "Ga－P.U.N.K. 와일드 피킹", 0.93), (17691568, "Ga－P.U.N.K. 크러시 비트", 0.73)])
    first = NameRead("2Ga - PUNK. 와일드 피킹", 90.0, wrong, ["uncertain-name"])
    got = glued_number_retry(cell, "spell", tess, vocab, 1.02, first=first)
    assert got is None or got.match.card_id != 81192859 or got.flags, (got.text, got.detail)


def test_rule_bits_at_a_name_cells_edge_are_not_taken_for_the_name(tess, real_db):
    """A soft photo's name cell (tests/data/name-rule-bits-below.png) keeps dashes of the warped
    row rule under the text, apart from it by blank rows: the name's ink box then runs a fifth
    taller and the rendering check finds 'more ink'. Cleared as the row reader does
    (`edge_bits.clear_edge_bits`), the name resolves."""
    from scanner.ocr.edge_bits import clear_edge_bits
    cell = _soft_photo_cell("name-rule-bits-below")
    cleared = clear_edge_bits(cell)
    assert not (cleared == cell).all()
    got = read_name(cleared, "extra", tess, _square_soft_vocab(real_db), scale=1.0)
    assert got.match.card_id == 65910922 and not got.flags, (got.text, got.match.name, got.flags, got.detail)


def test_a_row_number_cut_is_trusted_when_it_is_too_narrow_for_a_longer_names_start(real_db):
    """`1콘택트` (a 6 pt row number glued to the name; generated scan, seed 1717 scan-06): the
    looser cut reads `콘택트` exactly, but `Ai－콘택트` is also a card, so a cut name's start could
    have been taken. The ink taken, one narrow `1`, is far narrower than `Ai－` at the line's
    height: the line is 콘택트. Printed `Ai－콘택트` with a number before it never reads as 콘택트."""
    from pathlib import Path

    import cv2

    from scanner.ocr.engine import Tesseract
    from scanner.ocr.names import Vocabulary, read_name
    from scanner.ocr.verify import available_families, render_name
    require("NanumSquare" in available_families(), "needs fonts-nanum")
    tess = Tesseract()
    vocab = Vocabulary.build(real_db)
    vocab.model_syllables = tess.characters("kor")
    vocab.renderer.family = "NanumSquare"
    cell = cv2.imread(str(Path(__file__).parent / "data" / "glued-one-before-a-cut-off-name.png"), cv2.IMREAD_GRAYSCALE)
    got = read_name(cell, "spell", tess, vocab, scale=1.09)
    assert got.match.name == "콘택트" and not got.flags, (got.text, got.match.name, got.flags, got.detail)
    for number in ("1", "2"):
        ink = render_name(number + "Ai－콘택트", available_families()["NanumSquare"], px=22)
        longer = np.full((ink.shape[0] + 12, ink.shape[1] + 300), 255, np.uint8)
        longer[6:6 + ink.shape[0], 8:8 + ink.shape[1]] = ink
        got = read_name(longer, "spell", tess, vocab, scale=1.09)
        assert got.flags or got.match.name != "콘택트", (got.text, got.match.name, got.detail)


def test_the_name_readers_are_ordered_lists_of_named_attempts_and_say_which_decided():
    """`read_by_attempts`: the first attempt always reads; a later one runs only when it applies
    to that read and decides when it answers; the read names the attempt (issue 32)."""
    from scanner.ocr.latin import LATIN_ATTEMPTS
    from scanner.ocr.names import (NAME_ATTEMPTS, NameAttempt, NameCell, NameMatch, NameRead, empty_read,
                                   read_by_attempts)
    assert [a.name for a in NAME_ATTEMPTS] == ["as-cut", "glued-number", "number-rule"]
    assert [a.name for a in LATIN_ATTEMPTS] == [a.name for a in NAME_ATTEMPTS]
    sure = NameRead("하루 우라라", 90.0, NameMatch(14558127, "하루 우라라", 1.0, 1.0), [], attempt="kor")
    tried: list[str] = []

    def attempt(name: str, answer):
        def read(cell, first):
            tried.append(name)
            return answer
        return NameAttempt(name, read, lambda cell, first: bool(first.flags))

    cell = NameCell(np.full((20, 80), 255, np.uint8), "monster", None, Vocabulary.from_names(CARDS))
    plain = NameAttempt("first", lambda c, f: sure)
    got = read_by_attempts(cell, [plain, attempt("second", empty_read())])
    assert got.attempt == "first: kor" and tried == []  # a sure first read: no later attempt runs
    flagged = NameAttempt("first", lambda c, f: empty_read())
    got = read_by_attempts(cell, [flagged, attempt("second", None), attempt("third", sure)])
    assert got.attempt == "third: kor" and got.match.card_id == 14558127 and tried == ["second", "third"]
    got = read_by_attempts(cell, [flagged, attempt("second", None)])
    assert got.attempt == "first: no-ink" and got.flags  # none decided: the first read stands


def test_a_read_names_its_reading(tess):
    """`kor` reads a plain Korean name: the read says the plain path decided it."""
    got = read_name(sheet_cell("하루 우라라"), "monster", tess, vocab_for_page())
    assert got.match.card_id == 14558127 and not got.flags
    assert got.attempt == "as-cut: kor", got.attempt


def test_a_kept_match_is_the_one_a_fresh_vocabulary_gives(real_db):
    """`Vocabulary.match` keeps each read's best choices per column: asked again with another
    limit, in another column, or after the column's names changed, it answers as a vocabulary
    that never matched anything (ties among many same-score names included)."""
    from scanner.ocr.names import MATCH_HITS
    kept = Vocabulary.build(real_db)
    reads = ["블루아이즈 화이트 드래곤", "블루", "하루 우라라", "룡검사 이그니스", "가", "Evil Twin 키스킬", "엘리멘탈 히어로"]
    for text in reads:
        for column in ("monster", "spell", "extra", "side"):
            for limit in (10, 5, 1, 3, 10, MATCH_HITS):  # larger than the kept best: computed anew
                fresh = Vocabulary.build(real_db)
                got, want = kept.match(text, column, limit=limit), fresh.match(text, column, limit=limit)
                assert got == want, (text, column, limit)
    assert kept._hits and all(len(h) == MATCH_HITS for _, _, h in kept._hits.values())
    # a column whose names were replaced is not answered from what was kept for the old ones
    ids, choices = kept.by_column["spell"]
    kept.by_column = {**kept.by_column, "spell": (ids[::-1], choices[::-1])}
    fresh = Vocabulary.build(real_db)
    fresh.by_column = dict(kept.by_column)
    assert kept.match("하루 우라라", "spell", limit=10) == fresh.match("하루 우라라", "spell", limit=10)
