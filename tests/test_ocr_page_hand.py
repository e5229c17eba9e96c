"""The page's own hand (`scanner.ocr.page_hand`, issue 35 part 1): a form's sure written lines
teach how its writer draws syllables; its doubtful lines are weighed again by them. Names are
written by the bench's own generator (`samples/kde_paper.Hand`) in two tuning hands unlike the
four drawn ones (Un Penheulim + Humor, Nanum Brush)."""
from __future__ import annotations

import dataclasses

import pytest

from scanner.ocr.evidence import shortfalls
from scanner.ocr.hand_names import INK, FuseParts, by_syllable_likeness
from scanner.ocr.names import NameMatch, Vocabulary
from scanner.ocr.page_hand import PAGE_HAND, learn, second_pass
from scanner.ocr.rows import RowRead
from scanner.ocr.verify import cell_name_ink
from test_ocr_hand_parts import _hand, _written

SURE = ["블랙 매지션", "푸른 눈의 백룡", "사이버 드래곤", "원시생명체 니비루", "하루 우라라", "번개",
        "해피의 깃털", "성스러운 방어막", "신의 경고", "무덤의 지명자", "천사의 주사위", "마법의 통",
        "어둠의 구멍", "강욕의 항아리"]
"""What the page's sure lines carry."""
DOUBTFUL = [("강제 진화", "금강진력"), ("언데드 워리어", "라이트닝 워리어"), ("단결하는 검투수", "위치크래프트 컨퓨전"),
            ("포메이션 유니온", "강인! 무적! 최강!"), ("진화의 특이점", "진화의 분기점"),
            ("뇌전룡－썬더 드래곤", "뇌원룡－썬더 드래곤")]
"""(the rival, the card written) of a doubtful line: the reads left the two level (the first
four as the tuning forms' reads did, the last two near twins)."""
NAMES = SURE + [n for pair in DOUBTFUL for n in pair]
ID = {n: k + 1 for k, n in enumerate(NAMES)}


def _vocab() -> Vocabulary:
    return Vocabulary.from_names([(ID[n], n, "monster") for n in NAMES])


def _row(k: int, name: str, parts: FuseParts, margin: float, certainty: float, agree: int) -> RowRead:
    return RowRead(column="monster", row=k, text="", text_conf=0.0, match=NameMatch(ID[name], name, 0.8, margin),
                   count=1, count_conf=1.0, count_detail="", struck_row=False, count_struck=False,
                   handwritten=True, flags=["handwritten"], count_odds={1: 1.0}, name_certainty=certainty,
                   name_agree=agree, name_reads=3, hand_parts=parts)


def _page(face: str, seed: int, vocab: Vocabulary) -> tuple[list[RowRead], list[RowRead], int]:
    """A page: every SURE name written surely (three reads naming it, certainty 0.99), and each
    DOUBTFUL card written with its rival level with it in the reads; the doubtful lines carry
    the card the drawn hands' syllables put first, as `fuse` gives it. And how many of those are
    the written card."""
    hand = _hand(50 + seed, face)
    rows = []
    for k, name in enumerate(SURE):
        ink = cell_name_ink(_written(name, hand, 420, 40, centre=False))
        rows.append(_row(k + 1, name, FuseParts(ink, [ID[name]] * 3, None, column="monster"), 0.3, 0.99, 3))
    doubtful, drawn_right = [], 0
    for j, (rival, card) in enumerate(DOUBTFUL):
        ink = cell_name_ink(_written(card, hand, 420, 40, centre=False))
        before = [(0.5, ID[rival]), (0.5, ID[card])]
        first = by_syllable_likeness(before, ink, vocab, INK)[0][1]
        drawn_right += first == ID[card]
        doubtful.append(_row(40 + j, vocab.names[first], FuseParts(ink, [None, ID[rival], None], before,
                                                                   column="monster"), 0.01, 0.4, 1 if first == ID[rival] else 0))
    return rows + doubtful, doubtful, drawn_right


@pytest.mark.slow
def test_the_pages_own_syllables_set_doubtful_lines_right():
    """Written in a hand unlike the drawn ones, the doubtful lines the drawn hands' syllables
    leave wrong are set right by the page's own hand on most pages (measured: 30 of 36 → 34; with
    the card-syllable network beside the drawings the first pass puts 32 right, the page 34),
    none set wrong; a line it changed is marked, never surer than before, and never accepted on
    evidence; the sure lines keep their cards."""
    vocab = _vocab()
    tuning = dataclasses.replace(PAGE_HAND, proposals=0)  # (a pool of 26 names: nothing to search)
    drawn = page = 0
    for face in ("UnPenheulim+Humor", "NanumBrush"):
        for seed in range(3):
            rows, doubtful, drawn_right = _page(face, seed, vocab)
            before = {r.row: (r.match.card_id, r.name_certainty) for r in rows}
            second_pass(rows, vocab, tuning)
            drawn += drawn_right
            for r, (rival, card) in zip(doubtful, DOUBTFUL):
                was, certainty = before[r.row]
                page += r.match.card_id == ID[card]
                assert not (was == ID[card] and r.match.card_id != ID[card]), (face, seed, card)
                if r.match.card_id != was:
                    assert r.page_hand == vocab.names[was] and r.name_certainty <= certainty
                    assert r.name_agree == (1 if r.match.card_id == ID[rival] else 0)
                    assert any("page's own hand" in s for s in shortfalls(r, "confirmed", 1.0))
            assert all(before[r.row][0] == r.match.card_id and not r.page_hand for r in rows[:len(SURE)])
    assert page >= drawn + 2 and page >= 32, (drawn, page)


def test_a_page_with_few_sure_lines_teaches_nothing():
    """Fewer sure lines than `least_lines` (or none surely read: one read naming the card, a
    narrow lead) change no line; a sure line's syllables are kept as the page's drawings, and a
    line whose ink is another card's teaches fewer of its card's syllables than a right one."""
    vocab = _vocab()
    hand = _hand(7, "NanumBrush")
    inks = {n: cell_name_ink(_written(n, hand, 420, 40, centre=False)) for n in SURE[:6] + ["금강진력"]}
    unsure = [_row(k, n, FuseParts(inks[n], [ID[n], None, None], None, column="monster"), 0.05, 0.7, 1)
              for k, n in enumerate(SURE[:6])]
    before = [(0.5, ID["강제 진화"]), (0.5, ID["금강진력"])]
    line = _row(40, "강제 진화", FuseParts(inks["금강진력"], [None] * 3, before, column="monster"), 0.01, 0.4, 0)
    assert second_pass(unsure + [line], vocab) == 0 and line.match.name == "강제 진화"
    assert learn(unsure).lines == 0
    # taught: each line's own card's syllables; more of them from right lines than from the same
    # inks each labelled with the next line's card (a sure line read wrong)
    right = [_row(k, n, FuseParts(inks[n], [ID[n]] * 3, None, column="monster"), 0.3, 0.99, 3)
             for k, n in enumerate(SURE[:6])]
    taught = learn(right)
    assert taught.lines >= 3 and set(taught.rows) <= set("".join(SURE[:6]))
    wrong = [_row(k, SURE[(k + 1) % 6], FuseParts(inks[n], [ID[n]] * 3, None, column="monster"), 0.3, 0.99, 3)
             for k, n in enumerate(SURE[:6])]
    kept = sum(map(len, taught.rows.values()))
    assert sum(map(len, learn(wrong).rows.values())) < kept / 2, kept


def test_pieces_kept_for_the_second_pass_measure_as_new_ones():
    """The ink search's pieces kept for the page's second pass (`measured_pieces`' memo) are the
    pieces measured anew: the same proposals from an empty memo, a full one, and none; the
    centred search (`propose`'s `centre`, the page's hand) compares the same pieces."""
    import numpy as np

    from scanner.ocr.hand_candidates import measured_pieces, propose
    from scanner.ocr.verify import ink_level
    vocab = _vocab()
    hand = _hand(3, "NanumBrush")
    ink = cell_name_ink(_written("금강진력", hand, 420, 40, centre=False))
    mask = ink < ink_level(ink)
    ids, _ = vocab.by_column["monster"]
    memo: dict = {}
    plain = propose(mask, ids, vocab.names)
    assert propose(mask, ids, vocab.names, memo=memo) == plain and memo
    assert propose(mask, ids, vocab.names, memo=memo) == plain
    pairs = np.array(list(memo)[:5], np.int64)
    assert np.allclose(measured_pieces(mask, pairs, memo), measured_pieces(mask, pairs, None), atol=1e-6)
    rows = [_row(k, n, FuseParts(cell_name_ink(_written(n, hand, 420, 40, centre=False)), [ID[n]] * 3, None,
                                 column="monster"), 0.3, 0.99, 3) for k, n in enumerate(SURE[:8])]
    page = learn(rows)
    centred = propose(mask, ids, vocab.names, centre=(page.page_mean, page.drawn_mean), memo=memo)
    assert centred and all(cid in vocab.names for cid, _ in centred)


@pytest.mark.slow
def test_a_card_eng_put_first_is_not_weighed_again():
    """A doubtful line whose card `eng`'s read put first for its Latin prefix (`hand_latin`,
    `FuseParts.eng_first`) keeps it: the page's drawings of syllables are blind to that prefix.
    The same lines unmarked are weighed again (and some change)."""
    vocab = _vocab()
    tuning = dataclasses.replace(PAGE_HAND, proposals=0)
    changed = 0
    for face, seed in [(f, s) for f in ("UnPenheulim+Humor", "NanumBrush") for s in range(3)]:
        rows, doubtful, _ = _page(face, seed, vocab)
        before = [r.match.card_id for r in doubtful]
        for r in doubtful:
            r.hand_parts.eng_first = True
        assert second_pass(rows, vocab, tuning) == 0 and [r.match.card_id for r in doubtful] == before
        for r in doubtful:
            r.hand_parts.eng_first = False
        changed += second_pass(rows, vocab, tuning)
    assert changed, "no line weighed again: the test shows nothing"
