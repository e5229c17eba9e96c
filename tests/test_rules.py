"""The rule table: every quoted passage and remedy is really in the official Korean rules."""
from __future__ import annotations

import re

import pytest

from needs import require

from scanner.rules.codes import EXTRA_BAN_QUOTE, PENALTY_KO, RULES, make_infraction

CHECK_CODES = {"MAIN_TOO_SMALL", "MAIN_TOO_LARGE", "EXTRA_TOO_LARGE", "SIDE_TOO_LARGE",
               "TOO_MANY_COPIES", "FORBIDDEN_CARD", "OVER_LIMIT", "NOT_EXTRA_DECK_CARD",
               "EXTRA_DECK_CARD_IN_MAIN", "UNUSABLE_CARD", "UNKNOWN_CARD", "UNRESOLVED_LINE"}
COMPARE_CODES = {"DECKLIST_MISMATCH", "SIDE_SIZE_CHANGED", "SIDE_SWAP_BEFORE_FIRST_DUEL"}


@pytest.fixture(scope="module")
def rules_text(shared_dir) -> str:
    path = shared_dir / "rules" / "tournament-rules-ko.txt"
    require(path.is_file(), f"needs {path}")
    return path.read_text(encoding="utf-8")


def test_every_contract_code_has_a_rule():
    assert CHECK_CODES | COMPARE_CODES <= set(RULES)
    for entry in RULES.values():
        assert entry.penalty in PENALTY_KO
        assert entry.quotes and entry.remedy and entry.title


@pytest.mark.parametrize("code", sorted(RULES))
def test_quotes_and_remedies_occur_in_the_rules(code, rules_text):
    entry = RULES[code]
    for quote in entry.quotes:
        assert quote in rules_text, f"{code}: quote not in the rules: {quote}"
    if entry.remedy_quoted:
        assert entry.remedy in rules_text, f"{code}: remedy not in the rules: {entry.remedy}"
    # Every 「heading」 the section names is a heading of the rules too.
    for heading in re.findall(r"「([^」]+)」", entry.section):
        assert heading in rules_text, f"{code}: section heading 「{heading}」 not in the rules"


def test_extra_ban_quote_occurs(rules_text):
    assert EXTRA_BAN_QUOTE in rules_text
    assert "추가 금지 카드\n신비의 중화냄비 / 비상 식량 / 레인보우 라이프 / 자폭 스위치 / 삼위일택" in rules_text


def test_deck_violations_are_game_losses_with_the_3a_penalty(rules_text):
    # 벌칙 3.A / 3.B give 듀얼의 패배 for every deck and deck-list violation.
    block = rules_text[rules_text.index("A : 덱에 관한 위반"):rules_text.index("4. 룰에 관한 위반")]
    assert block.count("벌칙 : 듀얼의 패배") == 5
    for code in CHECK_CODES - {"UNRESOLVED_LINE", "UNKNOWN_CARD"} | COMPARE_CODES:
        assert RULES[code].penalty == "GAME_LOSS"
        assert PENALTY_KO[RULES[code].penalty] in block


def _penalty_after(rules_text: str, quote: str) -> str | None:
    """The penalty the guideline prints under a quoted bullet (`벌칙 : …` right after it)."""
    at = rules_text.find(quote)
    if at < 0:
        return None
    m = re.match(r"\s*벌칙 : (\S+(?: \S+)*)", rules_text[at + len(quote):at + len(quote) + 80])
    return m[1].strip() if m else None


@pytest.mark.parametrize("code", sorted(RULES))
def test_a_quoted_penalty_is_the_one_printed_under_its_bullet(code, rules_text):
    """A code whose penalty is presented as quoted cites the bullet that prints that penalty;
    one the guideline gives no penalty for says so instead (judge's call)."""
    entry = RULES[code]
    printed = {q: _penalty_after(rules_text, q) for q in entry.quotes}
    if entry.penalty == "NONE":
        assert not entry.remedy_quoted and all(p is None for p in printed.values())
    elif entry.penalty_quoted:
        assert PENALTY_KO[entry.penalty] in printed.values(), (code, printed)
    else:
        assert all(p is None for p in printed.values()), (code, printed)
        assert "저지 판단" in entry.penalty_note and not entry.remedy_quoted


def test_oversize_decks_quote_no_penalty_the_rules_do_not_give(rules_text):
    block = rules_text[rules_text.index("A : 덱에 관한 위반"):rules_text.index("B : 덱 리스트에 관한 위반")]
    assert "60장" not in block and "15장" not in block  # 3.A names only 「덱이 40장 미만」
    for code in ("MAIN_TOO_LARGE", "EXTRA_TOO_LARGE", "SIDE_TOO_LARGE"):
        entry = RULES[code]
        assert not entry.penalty_quoted and "3.A" not in entry.section
        assert entry.remedy != RULES["OVER_LIMIT"].remedy  # not the limited-card bullet's remedy
        inf = make_infraction(code, "msg").to_json()
        assert inf["penalty_quoted"] is False and "저지 판단" in inf["penalty_note"]
    assert RULES["MAIN_TOO_SMALL"].penalty_quoted  # 「덱이 40장 미만」 has its penalty


def test_side_swap_before_the_first_duel_cites_the_first_duel_rule(rules_text):
    entry = RULES["SIDE_SWAP_BEFORE_FIRST_DUEL"]
    first_duel = next(q for q in entry.quotes if "1듀얼째" in q)
    assert first_duel in rules_text and "덱 초기화" in entry.section
    assert entry.penalty == "GAME_LOSS" and entry.penalty_quoted


def test_penalty_timing_and_unknown_cards(rules_text):
    from scanner.rules.codes import (PENALTY_TIMING_SECTION, TIMING_CURRENT_DUEL,
                                     TIMING_NEXT_DUEL, highest_penalty)
    assert TIMING_NEXT_DUEL in rules_text and TIMING_CURRENT_DUEL in rules_text
    assert "벌칙의 종류" in PENALTY_TIMING_SECTION
    assert RULES["UNKNOWN_CARD"].penalty == "NONE" and RULES["UNUSABLE_CARD"].penalty == "GAME_LOSS"
    assert highest_penalty(["WARNING", "GAME_LOSS", "CAUTION"]) == "GAME_LOSS"
    assert highest_penalty([]) == "NONE"


def test_make_infraction_carries_the_table():
    inf = make_infraction("OVER_LIMIT", "msg", "side", [14558127])
    assert (inf.code, inf.penalty, inf.section, inf.card_ids) == ("OVER_LIMIT", "GAME_LOSS", "side",
                                                                 [14558127])
    assert inf.remedy == RULES["OVER_LIMIT"].remedy and "3.A" in inf.rule
    assert set(inf.to_json()) >= {"code", "section", "card_ids", "penalty", "rule", "message",
                                  "remedy", "penalty_quoted"}


def test_every_code_the_rules_emit_has_a_korean_label_and_a_line_in_the_judges_guide():
    """No English code word on a Korean page: each code of RULES (the codes `check` and `compare`
    can emit) has a label in the one table, each penalty a Korean name, and each code is
    explained in docs/JUDGES.md."""
    from pathlib import Path

    from scanner.rules.codes import CODE_KO, PENALTY_KO, RULES

    guide = (Path(__file__).resolve().parent.parent / "docs" / "JUDGES.md").read_text("utf-8")
    assert RULES and set(RULES) == set(CODE_KO)
    for code, entry in RULES.items():
        assert re.search("[가-힣]", CODE_KO[code]), code
        assert f"`{code}`" in guide, code
        assert entry.penalty in PENALTY_KO, code
