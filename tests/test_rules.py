"""The rule table: every quoted passage and remedy is really in the official Korean rules."""
from __future__ import annotations

import re

import pytest

from needs import require

from scanner.rules.codes import EXTRA_BAN_QUOTE, PENALTY_KO, RULES, make_infraction

CHECK_CODES = {"MAIN_TOO_SMALL", "MAIN_TOO_LARGE", "EXTRA_TOO_LARGE", "SIDE_TOO_LARGE",
               "TOO_MANY_COPIES", "FORBIDDEN_CARD", "OVER_LIMIT", "NOT_EXTRA_DECK_CARD",
               "EXTRA_DECK_CARD_IN_MAIN", "UNUSABLE_CARD", "UNRESOLVED_LINE"}
COMPARE_CODES = {"DECKLIST_MISMATCH", "SIDE_SIZE_CHANGED"}


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
    for code in CHECK_CODES - {"UNRESOLVED_LINE"} | COMPARE_CODES:
        assert RULES[code].penalty == "GAME_LOSS"
        assert PENALTY_KO[RULES[code].penalty] in block


def test_make_infraction_carries_the_table():
    inf = make_infraction("OVER_LIMIT", "msg", "side", [14558127])
    assert (inf.code, inf.penalty, inf.section, inf.card_ids) == ("OVER_LIMIT", "GAME_LOSS", "side",
                                                                 [14558127])
    assert inf.remedy == RULES["OVER_LIMIT"].remedy and "3.A" in inf.rule
    assert set(inf.to_json()) == {"code", "section", "card_ids", "penalty", "rule", "message",
                                  "remedy"}
