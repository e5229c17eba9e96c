"""Name normal forms and the Hangul-aware fuzzy index."""
from __future__ import annotations

import random
import unicodedata

import pytest

from card_db.names import NameIndex, fine_key, jamo, name_key, name_similarity


def _index(names: list[str]) -> NameIndex:
    return NameIndex.build((1000 + i, n) for i, n in enumerate(names))


@pytest.mark.parametrize("printed,read", [
    ("섬도희－하야테", "섬도희-하야테"),
    ("섬도희－하야테", "섬도희 - 하야테"),
    ("하루 우라라", "하루우라라"),
    ("A・마인드", "A·마인드"),
    ("SPYRAL－보텍스", "spyral-보텍스"),
    ("No.48 섀도우 리치", "NO48섀도우리치"),
    ("썬더 드래곤 「빛」", "썬더 드래곤 『빛』"),
    ("썬더 드래곤 「빛」", "썬더드래곤빛"),
    ("뉴로즈＠이그니스터", "뉴로즈@이그니스터"),
    ("초카－가드：X", "초카-가드:X"),
])
def test_name_key_survives_printing_variants(printed, read):
    assert name_key(printed) == name_key(read)


def test_name_key_keeps_ocr_junk_that_may_stand_for_letters():
    # kor prints '^' or '<' for Latin letters it cannot read: dropping them would turn
    # "A 보옥수 코발트 이글" read as "^ 보옥수 코발트 이글" into another card's exact name.
    assert name_key("^ 보옥수 코발트 이글") != name_key("보옥수 코발트 이글")
    assert name_key("M∀LICE<P>White Rabbit") == name_key("m∀lice<p> white rabbit")


def test_name_key_drops_every_white_space_and_soft_mark_and_nothing_else():
    # name_key drops in one regex pass what a character loop dropped (`str.isspace` or a soft
    # mark): the same key for every code point, alone and between letters.
    from card_db.names import _SOFT

    def by_loop(text: str) -> str:
        t = unicodedata.normalize("NFKC", text).casefold()
        return "".join(ch for ch in t if not ch.isspace() and ch not in _SOFT)

    spaces = [chr(c) for c in range(0x3100) if chr(c).isspace()] + ["\u3000", "\ufeff", "\u200b"]
    samples = spaces + sorted(_SOFT) + ["A", "ß", "Σ", "ﬁ", "①", "ｶﾞ", "^", "<", "@", "가"]
    for ch in samples:
        for text in (ch, f"하{ch}루 {ch}X", f"{ch}{ch}"):
            assert name_key(text) == by_loop(text), repr(text)
    assert name_key("\u3000하루\u00a0우라라\t-") == "하루우라라"


def test_one_wrong_jamo_costs_less_than_a_wrong_syllable():
    right = name_key("하루 우라라")
    one_jamo = name_key("하루 우라러")  # ㅏ→ㅓ
    one_syllable = name_key("하루 우라모")
    assert name_similarity(one_jamo, right) > name_similarity(one_syllable, right)
    assert jamo("한") == unicodedata.normalize("NFD", "한") and len(jamo("한")) == 3


def test_fine_key_tells_apart_names_the_key_merges():
    idx = _index(["마그넷 워리어 Σ＋", "마그넷 워리어 Σ－", "하루 우라라"])
    assert name_key("마그넷 워리어 Σ＋") != name_key("마그넷 워리어 Σ－")
    assert fine_key("마그넷 워리어 Σ-") == fine_key("마그넷 워리어 Σ－")
    assert idx.exact("마그넷 워리어 Σ-") == 1001
    assert idx.exact("마그넷워리어Σ+") == 1000


def test_exact_hit_still_returns_runners_up_so_ambiguity_is_visible():
    idx = _index(["바렐로드 드래곤", "바렐로드 X 드래곤", "바렐로드 R 드래곤", "하루 우라라"])
    found = idx.search("바렐로드 드래곤", limit=5)
    assert found[0] == (1000, 1.0)
    assert len(found) >= 3 and found[1][1] > 0.9  # a close second: a caller sees the doubt
    assert sorted(idx.shadows[1000]) == [1001, 1002] and 1003 not in idx.shadows


def test_ambiguous_pair_has_no_margin():
    idx = _index(["OKa 썬더", "ONi 썬더", "ONe 썬더", "썬더 드래곤"])
    found = idx.search("아<3 썬더", limit=3)  # how kor reads "OKa 썬더"
    assert found[0][1] - found[1][1] < 0.05


def test_latin_letters_kor_cannot_read_are_matched_on_the_hangul_part():
    idx = _index(["EM 골드 팽", "No.56 골드래트", "골렘 드래곤", "골드 고블린"])
    found = idx.search("614 골드 팽", limit=3)
    assert found[0][0] == 1000
    assert found[0][1] >= 0.85 and found[0][1] - found[1][1] >= 0.12


def test_search_of_nothing_or_noise():
    idx = _index(["하루 우라라", "증식의 G"])
    assert idx.search("", 5) == [] and idx.search(" - ", 5) == []
    assert idx.exact("없는 카드") is None and idx.exact_all("없는 카드") == []


# ---------------------------------------------------------------- the real 14k-card database


def _variants(name: str) -> list[str]:
    return [name, name.replace(" ", ""), name.replace("－", "-"),
            name.replace("：", ":").replace("＠", "@"),
            name.replace("「", "").replace("」", "").replace("『", "").replace("』", ""),
            name.replace("・", "·") if "・" in name else name.replace("·", "・")]


def test_every_name_of_the_database_is_found_exactly(real_db):
    idx = real_db.names
    missed = []
    for card in real_db.cards.values():
        for v in _variants(card.name):
            hits = idx.exact_all(v)
            if card.card_id not in hits:
                missed.append((card.name, v, hits))
            # Unique unless it is one card under two passcodes (same name, same data).
            elif len(hits) > 1 and len({real_db.cards[h].name for h in hits}) > 1:
                missed.append((card.name, v, hits))
    assert missed == []
    twins = [k for k, v in idx.exact_map.items() if len(v) > 1]
    assert len(twins) <= 2  # the card data README: only two keys collide, each one card


def test_fuzzy_finds_real_names_with_one_wrong_jamo(real_db):
    # (Its speed, ms per lookup, is bench/bench_resolver.py's to measure: a timed assert fails
    # on a busy machine and proves nothing on an idle one.)
    rng = random.Random(3)
    cards = rng.sample(sorted(real_db.cards.values(), key=lambda c: c.card_id), 300)
    ok = 0
    for card in cards:
        d = list(unicodedata.normalize("NFD", card.name))
        hangul = [i for i, ch in enumerate(d) if "\u1161" <= ch <= "\u1175"]  # vowels
        if hangul:
            d[rng.choice(hangul)] = "\u1175" if d[hangul[0]] != "\u1175" else "\u1161"
        noisy = unicodedata.normalize("NFC", "".join(d))
        found = real_db.search(noisy, limit=3)
        ok += bool(found) and found[0].card.name == card.name
    assert ok >= 0.95 * len(cards)


@pytest.mark.parametrize("read, wrong", [
    ("스네이크 &", "C·스네이크"),          # junk where a syllable was, not the name's Latin letter
    ("블랙 페더 ME 드래곤", "블랙 페더 드래곤"),  # letters an all-Hangul name cannot explain
])
def test_ocr_junk_never_accepts_a_near_namesake(real_db, read, wrong):
    # Both reads were once accepted unflagged in bench_resolver (kor+eng); they must be flagged.
    from scanner.model import ReadLine
    from scanner.inputs.resolve import OCR_POLICY, resolve_line

    e = resolve_line(ReadLine(section="main", text=read, count=1), real_db, OCR_POLICY, True)
    assert e.needs_review, (read, e.name, e.candidates)
    assert not (e.name == wrong and not e.needs_review)


def test_other_locales_names_do_not_change_korean_reads(real_db_path, shared_dir):
    # English names join the one index, but the fuzzy prefilter keeps the best Korean candidates
    # apart: a Korean (or OCR-noisy) read ranks the Korean cards exactly as before.
    from card_db.cdb import load_card_db
    ko = load_card_db(real_db_path)
    both = load_card_db([real_db_path, shared_dir / "carddb" / "en-US.cdb"])
    assert both.names.first_secondary == len(ko.names.keys)
    for read in ("하루 우라러", "SPYRAL 보텍스", "No.39 유토피아", "블랙 페더 ME 드래곤",
                 "마그넷 워리어 Σ+", "해피 레이디3", "U.A. 스트롱 블로커", "엘디리치"):
        assert both.names.search(read, 3)[:1] == ko.names.search(read, 3)[:1], read
    assert both.by_name("Ash Blossom & Joyous Spring").card_id == 14558127
