"""A written name stops being read once its reads settle it (`hand_names.settled`): the costly
third read (`kor+eng`, sheared) is made only when the first two do not name one card."""
from __future__ import annotations

import numpy as np

from scanner.ocr.engine import OcrText
from scanner.ocr.hand_names import HAND_READS, SETTLED_AFTER, _reads, read_hand_name, settled
from scanner.ocr.names import Vocabulary

VOCAB = Vocabulary.from_names([(1, "봉인된 자의 왼쪽 다리", "monster"), (2, "봉인된 자의 오른쪽 팔", "monster"),
                               (3, "네오스 퓨전", "spell"), (4, "네오스 포스", "spell"),
                               (5, "D·D·D 마왕 다르크", "monster")])


class CountingTess:
    """Answers each read with the next of `texts` and records the language asked for."""

    def __init__(self, texts: list[str]):
        self.texts = list(texts)
        self.langs: list[str] = []

    def read(self, img, lang="kor", psm=7, whitelist="", words=False):
        self.langs.append(lang)
        return OcrText(self.texts.pop(0), 0.5)


def _cell() -> np.ndarray:
    cell = np.full((40, 300), 255, np.uint8)
    cell[12:28, 20:260] = 0
    return cell


def test_reads_naming_one_card_settle_it():
    assert SETTLED_AFTER < len(HAND_READS)
    assert settled(["봉인된 자의 왼쪽 다리", "봉인된 자의 왼쪽 다라"], "monster", VOCAB)
    assert not settled(["봉인된 자의 왼쪽 다리"], "monster", VOCAB)  # one read settles nothing
    assert not settled(["봉인된 자의 왼쪽 다리", "봉인된 자의 오른쪽 팔"], "monster", VOCAB)
    assert not settled(["봉인된 자의 왼쪽 다리", "   "], "monster", VOCAB)  # a read of nothing
    # near-misses agreeing on a card far from what they read: the third read may still tell
    assert not settled(["봉인 왼", "봉인 왼"], "monster", VOCAB)
    # kor writes digits and junk where Latin letters stand; kor+eng reads them
    assert not settled(["0.0.0 마왕 다르크", "0.0.0 마왕 다르크"], "monster", VOCAB)
    assert not settled(["마왕 다르크", "마왕 다르크"], "monster", VOCAB)  # a Latin name read without it


def test_the_third_read_is_made_only_when_the_first_two_disagree():
    agree = CountingTess(["네오스 퓨전", "네오스 퓨젼", "unused"])
    texts = _reads(_cell(), 1.0, agree, {}, done=lambda ts: settled(ts, "spell", VOCAB))
    assert texts == ["네오스 퓨전", "네오스 퓨젼"] and agree.langs == ["kor", "kor"]
    differ = CountingTess(["네오스 퓨전", "네오스 포스", "네오스 퓨전"])
    texts = _reads(_cell(), 1.0, differ, {}, done=lambda ts: settled(ts, "spell", VOCAB))
    assert len(texts) == len(HAND_READS) and differ.langs == [h.lang for h in HAND_READS]
    # without a stopping rule every way is read
    every = CountingTess(["네오스 퓨전", "네오스 퓨젼", "네오스 퓨전"])
    assert len(_reads(_cell(), 1.0, every, {})) == len(HAND_READS)


def test_a_settled_name_says_how_many_ways_it_was_read():
    tess = CountingTess(["네오스 퓨젼"])  # the first read is known (the row's glance)
    from scanner.ocr.names import NameMatch, NameRead
    first = NameRead("네오스 퓨전", 0.6, NameMatch(3, "네오스 퓨전", 1.0, 0.2), [], None, "")
    hand = read_hand_name(_cell(), "spell", tess, VOCAB, 1.0, first=first)
    assert hand.texts == ["네오스 퓨전", "네오스 퓨젼"] and tess.langs == ["kor"]
    assert hand.read.match.card_id == 3 and hand.agree == SETTLED_AFTER
    assert "read 2 ways" in hand.read.detail
