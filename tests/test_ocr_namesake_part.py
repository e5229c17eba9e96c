"""Namesakes differing only in a run of digits/letters (scanner/ocr/namesake_part.py): the run is
read again on its own and settles the line only when that read and the run's rendering agree;
otherwise the line stays flagged, never silently another namesake."""
from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from needs import require

from scanner.ocr.names import Vocabulary, read_name
from scanner.ocr.namesake_part import namesake_run
from scanner.ocr.verify import BLURS, available_families

FAMILIES = available_families()
DATA = Path(__file__).parent / "data"


@pytest.fixture(autouse=True)
def _fonts():
    require("NanumGothic" in FAMILIES and "NanumBarunGothic" in FAMILIES, "needs fonts-nanum")


@pytest.fixture(scope="module")
def tess():
    from scanner.ocr.engine import Tesseract
    t = Tesseract()
    yield t
    t.close()


def test_namesakes_are_grouped_by_the_run_they_differ_in():
    names = {1: "암드 드래곤 LV3", 2: "암드 드래곤 LV5", 3: "암드 드래곤 LV10", 4: "암드 드래곤",
             5: "분보그006", 6: "분보그004", 7: "OKa 썬더", 8: "ONi 썬더", 9: "썬더"}
    got = namesake_run(names, 1, [2, 3, 4])
    assert got is not None and got.prefix == "암드 드래곤 " and got.runs == {1: "LV3", 2: "LV5", 3: "LV10"}
    assert namesake_run(names, 5, [6]).runs == {5: "006", 6: "004"}
    assert namesake_run(names, 7, [8, 9]).runs == {7: "OKa", 8: "ONi"}  # 썬더 has no run there
    assert namesake_run(names, 4, [1, 2]) is None  # no run of its own to differ in


# Name cells of generated soft photos (samples/make_photos.py, seed 1212), with the renderer as
# the page had it when the row was read (its font not yet known, or guessed as Barun Gothic at
# the heaviest blur). Both were flagged: `kor` read `LV6` as `146`, and the whole-name renderings
# of LV6/LV8 (0.81/0.78) and 006/004 (0.69/0.66) were too close to pick.
CELLS = [("soft-digit-namesake-lv.png", "monster", 1.04, None, BLURS[0], 11224103),
         ("soft-digit-namesake-bunbog.png", "side", 1.09, "NanumBarunGothic", BLURS[-1], 55106249)]


def _vocab(real_db, family, blur, without: int | None = None) -> Vocabulary:
    if without is None:
        v = Vocabulary.build(real_db)
    else:
        v = Vocabulary.from_names((cid, c.name, "extra" if c.is_extra_deck else c.kind.value)
                                  for cid, c in real_db.cards.items() if cid != without and not c.is_token)
    v.renderer.family, v.renderer.blur = family, blur
    return v


@pytest.mark.parametrize("crop, column, scale, family, blur, card_id", CELLS)
def test_a_digit_namesake_is_settled_by_reading_its_run_again(tess, real_db, crop, column, scale,
                                                                family, blur, card_id):
    cell = cv2.imread(str(DATA / crop), cv2.IMREAD_GRAYSCALE)
    got = read_name(cell, column, tess, _vocab(real_db, family, blur), scale=scale, numbers_in_cell=False)
    assert got.match.card_id == card_id and not got.flags, (got.text, got.match.name, got.flags, got.detail)
    assert "read again" in got.detail


@pytest.mark.parametrize("crop, column, scale, family, blur, card_id", CELLS)
def test_a_run_no_namesake_has_settles_nothing(tess, real_db, crop, column, scale, family, blur, card_id):
    """Without the printed card among the namesakes, the run reads as none of them: nothing is
    settled (the line keeps its flag), not the namesake whose rendering came next."""
    from scanner.ocr.names import without_row_number
    from scanner.ocr.namesake_part import settle_by_run
    from scanner.ocr.verify import Verdict, cell_name_ink
    cell = cv2.imread(str(DATA / crop), cv2.IMREAD_GRAYSCALE)
    vocab = _vocab(real_db, family, blur)
    ink = cell_name_ink(without_row_number(cell))
    others = [c for c in vocab.rivals([card_id], column)[card_id] if c != card_id]
    scores = {c: vocab.renderer.likeness(ink, vocab.names[c]).score for c in others}
    best = max(scores, key=scores.get)
    assert settle_by_run(ink, Verdict(best, False, scores=scores), best, vocab.names, others,
                         vocab.renderer, tess) is None
    # …while with it, the same call settles the line on it.
    scores[card_id] = vocab.renderer.likeness(ink, vocab.names[card_id]).score
    got = settle_by_run(ink, Verdict(card_id, False, scores=scores), card_id, vocab.names, others,
                        vocab.renderer, tess)
    assert got is not None and got.sure and got.card_id == card_id


def test_a_missing_digit_namesake_leaves_the_soft_cell_flagged(tess, real_db):
    """The 분보그 cell read with a vocabulary that lacks the printed 분보그006: flagged."""
    crop, column, scale, family, blur, card_id = CELLS[1]
    cell = cv2.imread(str(DATA / crop), cv2.IMREAD_GRAYSCALE)
    got = read_name(cell, column, tess, _vocab(real_db, family, blur, without=card_id), scale=scale,
                    numbers_in_cell=False)
    assert got.flags, (got.text, got.match.name, got.detail)


def soft_cell(name: str, family: str, px: int = 21, blur: float = 1.1, seed: int = 0):
    """A name cell as a soft phone photo shows it: drawn small, blurred, noisy, grey paper."""
    import numpy as np
    from scanner.ocr.verify import render_name
    ink = render_name(name, FAMILIES[family], px=px)
    h, w = ink.shape
    cell = np.full((h + 14, w + 24), 255, np.uint8)
    cell[7:7 + h, 10:10 + w] = ink
    cell = cv2.GaussianBlur(cell, (0, 0), blur).astype(float) * 0.78 + 30
    noise = np.random.default_rng(seed).normal(0, 5, cell.shape)
    return np.clip(cell + noise, 0, 255).astype(np.uint8)


GREEK = {1697104: "ε", 38814750: "γ", 74203495: "δ"}  # PSY프레임기어 ε / γ / δ (and α, β in the db)


@pytest.mark.parametrize("card_id", sorted(GREEK))
def test_a_greek_letter_namesake_is_told_by_its_rendering(tess, real_db, card_id):
    """`kor` reads γ and δ as ε (fixture photos): the run is settled by the letter's rendering,
    which no other namesake's letter fits nearly as well."""
    cell = soft_cell(real_db.cards[card_id].name, "NanumBarunGothic", seed=card_id % 7)
    got = read_name(cell, "monster", tess, _vocab(real_db, "NanumBarunGothic", BLURS[-1]),
                    numbers_in_cell=False)
    assert got.match.card_id == card_id and not got.flags, (got.text, got.match.name, got.flags, got.detail)


@pytest.mark.parametrize("card_id", sorted(GREEK))
def test_a_greek_namesake_missing_from_the_db_leaves_the_line_flagged(tess, real_db, card_id):
    cell = soft_cell(real_db.cards[card_id].name, "NanumBarunGothic", seed=card_id % 7)
    got = read_name(cell, "monster", tess, _vocab(real_db, "NanumBarunGothic", BLURS[-1], without=card_id),
                    numbers_in_cell=False)
    assert got.flags, (got.text, got.match.name, got.detail)
