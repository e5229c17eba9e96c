"""Rendering check of OCR name matches (scanner/ocr/verify.py): namesakes OCR cannot tell apart
are decided by comparing candidate renderings with the cell, or flagged."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from needs import require

from scanner.ocr.verify import (NameRenderer, Verdict, available_families, compare, decide,
                                ink_crop, render_name)

FAMILIES = available_families()


@pytest.fixture(autouse=True)
def _fonts():
    require("NanumGothic" in FAMILIES and "NanumMyeongjo" in FAMILIES,
            "needs fonts-nanum (apt-get install fonts-nanum)")

NAMES = {1: "암드 드래곤 LV3", 2: "암드 드래곤 LV5", 3: "암드 드래곤 LV7", 4: "바렐로드 드래곤",
         5: "바렐로드 F 드래곤", 6: "Evil★Twin 키스킬", 7: "Evil★Twin 키스킬 딜"}


def printed_cell(name: str, family: str = "NanumGothic", px: int = 25, squeeze: float = 1.0,
                 blur: float = 0.8, seed: int = 0) -> np.ndarray:
    """A name cell as a scanner sees it: drawn at another size than the verifier draws, squeezed
    like a long name on the sheet, blurred, noisy, on a white margin."""
    ink = render_name(name, FAMILIES[family], px=px)
    assert ink is not None
    h, w = ink.shape
    ink = cv2.resize(ink, (max(1, int(w * squeeze)), h), interpolation=cv2.INTER_AREA)
    cell = np.full((h + 16, ink.shape[1] + 30), 255, np.uint8)
    cell[8:8 + h, 12:12 + ink.shape[1]] = ink
    cell = cv2.GaussianBlur(cell, (0, 0), blur)
    noise = np.random.default_rng(seed).normal(0, 6, cell.shape)
    return np.clip(cell + noise, 0, 255).astype(np.uint8)


def renderer_for(family: str) -> NameRenderer:
    r = NameRenderer()
    r.family = family
    return r


def test_ink_crop_drops_specks_and_keeps_pale_strokes():
    cell = np.full((40, 120), 255, np.uint8)
    cell[10:30, 20:50] = 60  # a dark glyph block
    cell[8:10, 20:50] = 170  # its pale top stroke (a blurred serif), above a fixed cut of 160
    cell[2, 110] = 0  # a speck of noise
    got = ink_crop(cell)
    assert got.shape == (22, 30)


def test_ink_crop_keeps_the_dark_end_of_a_broken_pale_stroke():
    cell = np.full((40, 120), 255, np.uint8)
    cell[10:30, 20:50] = 60  # a glyph
    cell[18:20, 50:52] = 200  # its pale stroke, lighter than the ink cut: a gap
    cell[18:20, 52:53] = 60  # the stroke's dark end, a 2-pixel speck
    cell[36:38, 100] = 0  # a speck of noise far from any glyph
    got = ink_crop(cell)
    assert got.shape == (20, 33)  # the stroke's end kept, the noise still dropped


def test_true_name_renders_closer_than_its_namesakes():
    r = renderer_for("NanumGothic")
    for true_id, rivals in ((2, (1, 3)), (5, (4,)), (6, (7,)), (7, (6,))):
        cell = ink_crop(printed_cell(NAMES[true_id]))
        true = r.likeness(cell, NAMES[true_id]).score
        for rv in rivals:
            assert true - r.likeness(cell, NAMES[rv]).score > 0.05, (NAMES[true_id], NAMES[rv])


def test_squeezed_name_still_matches_but_a_too_short_name_does_not():
    r = renderer_for("NanumGothic")
    cell = ink_crop(printed_cell("Evil★Twin 키스킬 딜", squeeze=0.75))
    assert r.likeness(cell, "Evil★Twin 키스킬 딜").score > 0.75
    assert r.likeness(cell, "Evil★Twin 키스킬").score < 0.6  # the ink holds more than this name


def test_font_of_the_page_is_learnt_from_exact_reads():
    r = NameRenderer()
    for i, name in enumerate(("하루 우라라", "증식의 G", "금지된 일적", "영원의 영혼", "욕망과 겸허의 항아리",
                              "서몬 리미터")):
        r.observe(ink_crop(printed_cell(name, family="NanumMyeongjo", seed=i)), name)
    assert r.family == "NanumMyeongjo"
    assert r.estimate is not None and r.estimate.scores["NanumMyeongjo"] == max(r.estimate.scores.values())


def test_decide_picks_the_rendered_namesake_among_unsure_candidates():
    r = renderer_for("NanumGothic")
    cell = ink_crop(printed_cell(NAMES[2], px=24, blur=1.0))
    # kor read "암드 드래곤 Lvs": three namesakes score alike.
    v = decide(r, cell, best=1, ocr_sure=False, ocr_scores={1: 0.93, 2: 0.93, 3: 0.93},
               rivals={1: [2, 3], 2: [1, 3], 3: [1, 2]}, names=NAMES)
    assert v.sure and v.card_id == 2


def test_exact_read_of_a_shadow_name_is_checked():
    r = renderer_for("NanumGothic")
    # kor drops the F: the read "바렐로드 드래곤" is another card's exact name.
    shadowed = ink_crop(printed_cell(NAMES[5]))
    v = decide(r, shadowed, best=4, ocr_sure=True, ocr_scores={4: 1.0}, rivals={4: [5]}, names=NAMES)
    assert v.card_id == 5 and v.sure and "picked" in v.detail
    # Printed in another font than the page's: neither rendering confirms, the line is flagged.
    other_font = ink_crop(printed_cell(NAMES[5], family="NanumMyeongjo", blur=1.6))
    v = decide(renderer_for("NanumSquare"), other_font, best=4, ocr_sure=True, ocr_scores={4: 1.0},
               rivals={4: [5]}, names=NAMES)
    assert not v.sure and v.reason == "ambiguous-name" and "바렐로드 F 드래곤" in v.detail
    plain = ink_crop(printed_cell(NAMES[4]))
    v = decide(r, plain, best=4, ocr_sure=True, ocr_scores={4: 1.0}, rivals={4: [5]}, names=NAMES)
    assert v.sure and v.card_id == 4


def test_without_rendering_a_read_oc_cannot_tell_apart_is_flagged():
    r = NameRenderer()
    r.families = {}  # no fonts installed
    v = decide(r, None, best=4, ocr_sure=True, ocr_scores={4: 1.0}, rivals={4: [5]}, names=NAMES)
    assert isinstance(v, Verdict) and not v.sure
    v = decide(r, None, best=4, ocr_sure=True, ocr_scores={4: 1.0}, rivals={4: []}, names=NAMES)
    assert v.sure


def test_a_contradicted_read_is_vetoed():
    r = renderer_for("NanumGothic")
    cell = ink_crop(printed_cell("Evil★Twin 키스킬 딜"))
    v = decide(r, cell, best=6, ocr_sure=True, ocr_scores={6: 0.9, 7: 0.78}, rivals={}, names=NAMES)
    assert not v.sure and "prefers" in v.detail


def test_compare_is_symmetric_enough_and_bounded():
    a = ink_crop(printed_cell("하루 우라라"))
    b = render_name("하루 우라라", FAMILIES["NanumGothic"])
    lk = compare(a, b)
    assert 0.8 < lk.overall <= 1.0 and 0.6 < lk.worst <= 1.0 and 0.9 < lk.aspect < 1.1


def test_exact_read_stands_beside_a_one_jamo_neighbour_but_not_over_extra_ink():
    names = {10: "미지 개구리", 11: "마지 개구리"}
    r = renderer_for("NanumGothic")
    cell = ink_crop(printed_cell("미지 개구리"))
    v = decide(r, cell, best=10, ocr_sure=True, ocr_scores={10: 1.0, 11: 0.93}, rivals={}, names=names)
    assert v.sure and v.card_id == 10
    # The cell holds more than the name read (a cut read, pen marks): doubted.
    longer = ink_crop(printed_cell("미지 개구리 드래곤 블랙"))
    v = decide(r, longer, best=10, ocr_sure=True, ocr_scores={10: 1.0, 11: 0.93}, rivals={}, names=names)
    assert not v.sure and v.reason == "uncertain-name"


def test_a_pen_mark_far_right_of_the_name_is_not_part_of_it():
    from scanner.ocr.verify import cell_name_ink
    cell = printed_cell("무모한 욕심쟁이")
    h = cell.shape[0]
    marked = np.full((h, cell.shape[1] + 4 * h), 255, np.uint8)
    marked[:, :cell.shape[1]] = cell
    marked[4:h - 4, -h:-h + 6] = 30  # a pen stroke well past the name
    assert cell_name_ink(marked).shape == ink_crop(cell).shape
    assert ink_crop(marked).shape[1] > ink_crop(cell).shape[1] + 2 * h


def test_rendering_picks_a_mostly_latin_name_ocr_turned_to_junk_only_when_clear():
    names = {20: "BOX서", 21: "C·슈터", 22: "설어"}
    r = renderer_for("NanumGothic")
    cell = ink_crop(printed_cell("BOX서"))
    # kor read "680×서": every candidate scores low and alike.
    v = decide(r, cell, best=21, ocr_sure=False, ocr_scores={20: 0.36, 21: 0.36, 22: 0.36}, rivals={},
               names=names)
    assert v.sure and v.card_id == 20
    # With no OCR support at all the rendering alone does not pick.
    v = decide(r, cell, best=21, ocr_sure=False, ocr_scores={20: 0.2, 21: 0.36, 22: 0.36}, rivals={},
               names=names)
    assert not v.sure


def test_a_page_in_an_unknown_font_gets_no_picks():
    r = NameRenderer()
    r.families = {"NanumGothic": FAMILIES["NanumGothic"]}  # the page is printed in Myeongjo
    for i, name in enumerate(("하루 우라라", "증식의 G", "금지된 일적")):
        r.observe(ink_crop(printed_cell(name, family="NanumMyeongjo", blur=2.5, seed=i)), name)
    assert r.estimate is not None
    assert not r.trusted  # a Gothic rendering must not be trusted on a Myeongjo page
    cell = ink_crop(printed_cell(NAMES[2], family="NanumMyeongjo", blur=2.5))
    v = decide(r, cell, best=1, ocr_sure=False, ocr_scores={1: 0.93, 2: 0.93, 3: 0.93},
               rivals={1: [2, 3], 2: [1, 3], 3: [1, 2]}, names=NAMES)
    assert not v.sure


def test_flat_window_test_is_numpys():
    """The rendering check's "no contrast" test (cv2.meanStdDev, numpy deciding near the
    limit) answers as `float(window.std()) < 1.0` did, also on strided windows."""
    from scanner.ocr.verify import _flat
    rng = np.random.default_rng(3)
    for i in range(3000):
        page = np.zeros((32, 200), np.float32)
        if i % 3 == 0:
            page += rng.normal(0, rng.uniform(0.8, 1.2), page.shape).astype(np.float32)  # near the limit
        elif i % 3 == 1:
            page = cv2.GaussianBlur((rng.random(page.shape) < 0.01).astype(np.float32) * 255, (0, 0), 2)
        else:
            page[rng.integers(0, 32), rng.integers(0, 200)] = rng.uniform(0, 80)
        x = int(rng.integers(0, 164))
        window = page[:, x:x + 36]
        assert _flat(window) == (float(window.std()) < 1.0)


def test_an_exact_read_a_syllable_from_another_name_needs_the_rendering_to_tell_them_apart():
    """`실드 웜` printed in Myeongjo was read `실드 윙`, another card's whole name, and the two
    rendered alike (0.87 / 0.86): the exact read stood, a silent error. A name a jamo or two
    from the read (`near`) that renders as well as the read makes the line ambiguous; one that
    renders clearly worse leaves the read standing."""
    names = {1: "실드 웜", 2: "실드 윙"}
    r = renderer_for("NanumMyeongjo")
    soft = ink_crop(printed_cell("실드 웜", "NanumMyeongjo", px=30, blur=0.6))
    v = decide(r, soft, best=2, ocr_sure=True, ocr_scores={2: 1.0, 1: 0.75}, rivals={}, names=names,
               near=frozenset({1}))
    assert not v.sure and v.reason == "ambiguous-name" and "cannot tell" in v.detail
    assert v.tie == 1  # a second OCR read at another scale may still settle it (names.read_name_once)
    clear = ink_crop(printed_cell("실드 웜", "NanumMyeongjo", px=22, blur=0.6))
    v = decide(r, clear, best=1, ocr_sure=True, ocr_scores={1: 1.0, 2: 0.75}, rivals={}, names=names,
               near=frozenset({2}))
    assert v.sure and v.card_id == 1


def test_a_near_name_is_one_a_jamo_or_two_from_the_read():
    from scanner.ocr.names import NAMES as NAME_TUNING, jamo_edits
    assert jamo_edits("실드 윙", "실드 웜") <= NAME_TUNING.neighbour_edits  # 0.75 alike by ratio
    assert jamo_edits("신의 경고", "신의 충고") <= NAME_TUNING.neighbour_edits
    assert jamo_edits("실드 윙", "ZW－실피드 윙") > NAME_TUNING.neighbour_edits
    from scanner.ocr.names import is_near
    assert is_near("스톰 슈터", "스쿱 슈터")  # one syllable, three jamo: read one for the other
    assert is_near("실드 윙", "실드 웜") and not is_near("실드 윙", "ZW－실피드 윙")
    assert not is_near("스톰 슈터", "스쿱 슈트")  # two syllables apart


def test_a_read_that_spells_the_latin_letters_rules_out_a_namesake_without_them():
    """`슈팅 스타 드래곤 TG－EX` read exactly by kor+eng on a soft scan: when its rendering fits
    under R_AGREE (0.56 here), the Hangul-only namesake `슈팅 스타 드래곤` kept it flagged although
    OCR saw the letters and the rendering puts the namesake far behind. A read without all the letters,
    a rival with letters of its own (LV3/LV5) or a single letter decides nothing, and a cell
    that prints the short name is never read as the long one."""
    from scanner.ocr.verify import R_AGREE, spelled_out
    names = {30: "슈팅 스타 드래곤 TG－EX", 31: "슈팅 스타 드래곤"}
    assert spelled_out("슈팅 스타 드래곤 TG-EX", names[30], names[31])
    assert not spelled_out("슈팅 스타 드래곤 16 - EX", names[30], names[31])
    assert not spelled_out("암드 드래곤 LV5", NAMES[2], NAMES[1])  # the rival has letters
    assert not spelled_out("바렐로드 F 드래곤", NAMES[5], NAMES[4])  # one letter: junk can be one
    r = renderer_for("NanumBarunGothic")
    cell = ink_crop(printed_cell(names[30], family="NanumBarunGothic", px=18, blur=1.6))
    plain = decide(r, cell, best=30, ocr_sure=True, ocr_scores={30: 1.0}, rivals={30: [31]}, names=names)
    assert plain.scores[30] < R_AGREE and not plain.sure  # the case: flagged without the read
    v = decide(r, cell, best=30, ocr_sure=True, ocr_scores={30: 1.0}, rivals={30: [31]}, names=names,
               read="슈팅 스타 드래곤 TG-EX")
    assert v.sure and v.card_id == 30, v.detail
    short = ink_crop(printed_cell(names[31], family="NanumBarunGothic", px=18, blur=1.6))
    v = decide(r, short, best=30, ocr_sure=True, ocr_scores={30: 1.0}, rivals={30: [31]}, names=names,
               read="슈팅 스타 드래곤 TG-EX")  # letters read where the sheet has none
    assert not (v.sure and v.card_id == 30), v.detail


def test_a_clear_rendering_lead_picks_among_namesakes_on_a_soft_photo(real_db):
    """tests/data/soft-dd-ghost.png (a cell of our generated soft photo) prints `DD 고스트`; kor reads
    `00 고스트`, sure of the Hangul `고스트`, which is also a card. The rendering fits `DD 고스트`
    at 0.7 (under R_CONFIRM) and `고스트` far below: the lead picks it. A cell printing `고스트`
    is never read as `DD 고스트`, and namesakes a glyph apart (LV3/LV5) are not picked at 0.7."""
    from pathlib import Path
    from scanner.ocr.names import Vocabulary, without_row_number
    from scanner.ocr.verify import R_CLEAR_LEAD, R_CONFIRM, cell_name_ink
    cell = cv2.imread(str(Path(__file__).parent / "data" / "soft-dd-ghost.png"), cv2.IMREAD_GRAYSCALE)
    ink = cell_name_ink(without_row_number(cell))
    names = {61201220: "고스트", 33334269: "DD 고스트"}
    r = Vocabulary.build(real_db).renderer
    v = decide(r, ink, 61201220, True, {61201220: 0.86, 33334269: 0.75}, {61201220: [33334269]}, names)
    assert v.sure and v.card_id == 33334269 and v.scores[33334269] < R_CONFIRM, v.detail
    plain = ink_crop(printed_cell("고스트", blur=1.6))
    v = decide(renderer_for("NanumGothic"), plain, 61201220, True, {61201220: 1.0}, {61201220: [33334269]}, names)
    assert v.card_id == 61201220, v.detail
    lv = ink_crop(printed_cell(NAMES[2], px=18, blur=1.6))
    v = decide(renderer_for("NanumGothic"), lv, 1, True, {1: 1.0}, {1: [2, 3]}, NAMES)
    top = sorted(v.scores.values(), reverse=True)
    assert top[0] - top[1] < R_CLEAR_LEAD
    assert v.sure is False or top[0] >= R_CONFIRM, v.detail


def test_a_name_ocr_cannot_write_is_picked_on_a_clear_rendering_lead():
    """`kor` has no 꿩: `일렉꿩` on a soft photo is read `밀렉권` (OCR 0.67 to it, 0.70 to 일렉기린).
    Named as unwritable, the card is picked by a rendering far ahead of every other candidate;
    otherwise, or without OCR backing it, the line stays unsure."""
    from pathlib import Path
    from scanner.ocr.verify import cell_name_ink
    cell = cv2.imread(str(Path(__file__).parent / "data" / "soft-unwritable-name.png"), cv2.IMREAD_GRAYSCALE)
    ink = cell_name_ink(cell)
    names = {1: "일렉기린", 2: "일렉꿩", 3: "일렉금눈돔", 4: "더미 골렘"}
    scores = {1: 0.70, 2: 0.67, 3: 0.58, 4: 0.53}
    r = renderer_for("NanumGothic")
    r.blur = 1.6
    v = decide(r, ink, 1, False, scores, {}, names, "밀렉권", unwritable=frozenset({2}))
    assert v.sure and v.card_id == 2, v
    assert not decide(r, ink, 1, False, scores, {}, names, "밀렉권").sure
    weak = {**scores, 2: 0.5}  # OCR does not back it
    assert not decide(r, ink, 1, False, weak, {}, names, "밀렉권", unwritable=frozenset({2})).sure


def test_the_model_s_characters_are_read_from_its_traineddata(tmp_path):
    from scanner.ocr.engine import model_characters, tessdata_dir
    from pathlib import Path
    kor = Path(tessdata_dir()) / "kor.traineddata"
    chars = model_characters(kor)
    assert "일" in chars and "렉" in chars and "꿩" not in chars and len(chars) > 1000
    bad = tmp_path / "bad.traineddata"
    bad.write_bytes(b"\xff\xff\xff\x7f junk")
    assert model_characters(bad) == frozenset() == model_characters(tmp_path / "missing.traineddata")


def test_a_crisp_unwritable_name_read_as_junk_is_picked_by_a_rendering_at_confirm():
    """`Evil★Twin 챌린지` on a form scan in a serif font: `kor` cannot write 챌 and reads the
    whole word as junk (`Evil&Twin 2431]`, 0.52). A rendering at R_CONFIRM far ahead of every
    other candidate picks it; a read backing it less than a hardly read name does not, and
    neither does the same lead for a name OCR can write."""
    names = {1: "Evil★Twin 챌린지", 2: "Evil★Twin 이지게임", 3: "Evil★Twin 프레젠트"}
    ink = ink_crop(printed_cell(names[1], family="NanumMyeongjo", px=30, blur=0.6))
    r = renderer_for("NanumMyeongjo")
    scores = {1: 0.52, 2: 0.50, 3: 0.50}
    v = decide(r, ink, 1, False, scores, {}, names, "Evil&Twin 2431]", unwritable=frozenset({1}))
    assert v.sure and v.card_id == 1 and v.scores[1] >= 0.75, v
    assert not decide(r, ink, 1, False, scores, {}, names, "Evil&Twin 2431]").sure
    junk = {1: 0.30, 2: 0.30, 3: 0.30}
    assert not decide(r, ink, 1, False, junk, {}, names, "&2431]", unwritable=frozenset({1})).sure


def test_latin_read_as_junk_beside_exact_hangul_is_picked_by_a_clear_rendering():
    """`Sin 크로스` on a form scan: `kor` reads the Latin as digits (`510 크로스`, 0.67) and the
    Hangul exactly. No other card has that Hangul, so a rendering at R_AGREE far ahead of every
    other candidate picks it; a namesake with the same Hangul, a read of fewer than three
    syllables, or a read whose Hangul differs leaves the line unsure."""
    names = {1: "Sin 크로스", 2: "싱크로 캔슬", 3: "그랜드 크로스", 4: "Neo 크로스", 5: "HSR－GOM건", 6: "GOM건"}
    ink = ink_crop(printed_cell(names[1], px=26, blur=0.9))
    r = renderer_for("NanumGothic")
    scores = {1: 0.67, 2: 0.55, 3: 0.55}
    v = decide(r, ink, 1, False, scores, {}, names, "510 크로스")
    assert v.sure and v.card_id == 1, v
    assert not decide(r, ink, 1, False, scores, {1: [4], 4: [1]}, names, "510 크로스").sure  # a namesake
    assert not decide(r, ink, 1, False, scores, {}, names, "510 크로소").sure  # Hangul not spelled
    from scanner.ocr.verify import spelled_hangul
    assert spelled_hangul("510 크로스", names, [1, 2, 3], {}) == {1}
    assert spelled_hangul("H5R－60M건", names, [5, 6], {}) == set()  # one syllable is too little
    assert spelled_hangul("510 크로스", names, [1, 4], {1: [4], 4: [1]}) == set()


def test_a_bounded_compare_answers_at_least_as_the_full_score_does():
    """`compare(at_least=…)` and `NameRenderer.fits` stop comparing glyph windows once the score
    cannot reach the bound: their yes or no must be the full score's, at every bound, for a true
    name, a namesake, a name far off and handwriting-like ink (a printed name sheared and thickened)."""
    cell_ink = ink_crop(printed_cell("암드 드래곤 LV5", squeeze=0.9, blur=1.2))
    hand = cv2.erode(printed_cell("바렐로드 드래곤", family="NanumMyeongjo"), np.ones((2, 2), np.uint8))
    hand = cv2.warpAffine(hand, np.float32([[1, 0.3, 0], [0, 1, 0]]), (hand.shape[1] + 12, hand.shape[0]),
                          borderValue=255)
    hand_ink = ink_crop(hand)
    stopped = 0
    for ink in (cell_ink, hand_ink):
        r = NameRenderer()
        for name in NAMES.values():
            rendered = render_name(name, FAMILIES["NanumGothic"])
            full = compare(ink, rendered, blur=1.6)
            best = r.likeness(ink, name)
            for bound in (-0.5, 0.0, 0.3, 0.5, 0.6, 0.75, 0.9, 1.0):
                bounded = compare(ink, rendered, blur=1.6, at_least=bound)
                assert (bounded.score >= bound) == (full.score >= bound), (name, bound)
                assert bounded.overall == full.overall and bounded.worst >= full.worst
                stopped += bounded.worst != full.worst
                assert r.fits(ink, name, bound) == (best.score >= bound), (name, bound)
            only = compare(ink, rendered, blur=1.6, overall_only=True)
            assert only.overall == full.overall
    assert stopped  # the bound did cut some comparisons short


def test_an_engine_shared_across_page_modes_reads_as_a_fresh_one():
    """One engine per language and whitelist, its page-segmentation mode set per read: a read in
    a mode after reads in another gives what an engine loaded for that mode gives."""
    from scanner.ocr import engine
    require(_has_tesseract(), "needs tesserocr and Tesseract's kor model")
    img = printed_cell("하루 우라라 3", px=30, blur=0.5)
    digit = np.full((60, 50), 255, np.uint8)
    cv2.putText(digit, "3", (10, 48), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 0, 3)
    saved = dict(engine._ENGINES)
    engine._ENGINES.clear()
    try:
        t = engine.Tesseract()
        shared = [t.read(img, psm=7), t.read(digit, lang="eng", psm=10, whitelist="0123456789"),
                  t.read(img, psm=8), t.read(digit, lang="eng", psm=7, whitelist="0123456789"),
                  t.read(img, psm=7), t.read(digit, lang="eng", psm=10, whitelist="0123456789")]
        assert len(engine._ENGINES) == 2  # kor, and eng with its whitelist: one engine each
        fresh = []
        for im, lang, psm, wl in ((img, "kor", 7, ""), (digit, "eng", 10, "0123456789"), (img, "kor", 8, ""),
                                  (digit, "eng", 7, "0123456789"), (img, "kor", 7, ""),
                                  (digit, "eng", 10, "0123456789")):
            engine._ENGINES.clear()
            fresh.append(engine.Tesseract().read(im, lang=lang, psm=psm, whitelist=wl))
            engine.Tesseract().close()
        assert [(r.text, r.confidence) for r in shared] == [(r.text, r.confidence) for r in fresh]
        assert shared[1].text == "3"
    finally:
        engine.Tesseract().close()
        engine._ENGINES.update(saved)


def _has_tesseract() -> bool:
    try:
        from scanner.ocr.engine import tessdata_dir
        import tesserocr  # noqa: F401
        tessdata_dir()
        return True
    except Exception:
        return False
