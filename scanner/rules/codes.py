"""Contract code → penalty, rule section and remedy, quoted from the Korean tournament rules.

Every `quotes` and `remedy` string is copied verbatim from the official Korean rules text
(tests check each one occurs in /work/shared/rules/tournament-rules-ko.txt), so a judge can find
the passage. `UNRESOLVED_LINE` is not a rules breach but the tool's own stop sign; its remedy is
an instruction to the judge and says so (`remedy_quoted=False`).
"""
from __future__ import annotations

from dataclasses import dataclass

from scanner.model import Infraction

PENALTY_KO: dict[str, str] = {
    "CAUTION": "주의",
    "WARNING": "경고",
    "GAME_LOSS": "듀얼의 패배",
    "MATCH_LOSS": "매치의 패배",
    "DISQUALIFICATION": "실격",
    "DISQUALIFICATION_NO_PRIZE": "수상 자격을 잃는 실격",
    "NONE": "벌칙 없음 (저지 확인 필요)",
}

# One vocabulary for verdicts, in every output (JSON `verdict`, text, HTML, spreadsheets).
LEGAL, NEEDS_REVIEW, ILLEGAL = "적합", "확인 필요", "부적합"
MATCH, MISMATCH = "일치", "불일치"
VERDICT_CODES = {LEGAL: "legal", NEEDS_REVIEW: "needs-review", ILLEGAL: "illegal",
                 MATCH: "match", MISMATCH: "mismatch"}
REVIEW_CODES = frozenset({"UNRESOLVED_LINE", "UNKNOWN_CARD"})
"""The tool's own review items (penalty NONE): a judge must look; never a breach by itself."""


def list_verdict(codes: list[str] | set[str]) -> str:
    """적합 / 확인 필요 / 부적합 of a list from its infraction codes: any breach is 부적합; only
    review items is 확인 필요."""
    codes = set(codes)
    if codes - REVIEW_CODES:
        return ILLEGAL
    return NEEDS_REVIEW if codes else LEGAL


# The Korean label of every code `RULES` holds (what a judge reads on a page or an export).
CODE_KO: dict[str, str] = {
    "DECKLIST_MISMATCH": "덱 리스트와 덱이 다름", "SIDE_SIZE_CHANGED": "덱 매수가 바뀜",
    "SIDE_SWAP_BEFORE_FIRST_DUEL": "1듀얼째 전에 사이드 교체",
    "MAIN_TOO_SMALL": "메인 덱 40장 미만", "MAIN_TOO_LARGE": "메인 덱 60장 초과",
    "EXTRA_TOO_LARGE": "엑스트라 덱 15장 초과", "SIDE_TOO_LARGE": "사이드 덱 15장 초과",
    "TOO_MANY_COPIES": "같은 카드 4장 이상", "FORBIDDEN_CARD": "금지 카드",
    "OVER_LIMIT": "제한 매수 초과", "NOT_EXTRA_DECK_CARD": "엑스트라 덱에 들어갈 수 없는 카드",
    "EXTRA_DECK_CARD_IN_MAIN": "메인 덱에 엑스트라 덱 카드", "UNUSABLE_CARD": "사용할 수 없는 카드",
    "UNKNOWN_CARD": "데이터베이스에 없는 카드", "UNRESOLVED_LINE": "확인 필요한 줄",
}

PENALTY_RANK: dict[str, int] = {"NONE": 0, "CAUTION": 1, "WARNING": 2, "GAME_LOSS": 3,
                                "MATCH_LOSS": 4, "DISQUALIFICATION": 5,
                                "DISQUALIFICATION_NO_PRIZE": 6}
"""Order of severity: one act gets the highest penalty of its findings (벌칙 규정 1)."""

# When a 듀얼의 패배 applies (벌칙 규정 1.C), verbatim.
PENALTY_TIMING_SECTION = "벌칙 규정 1. 벌칙의 종류 C : 듀얼의 패배"
TIMING_CURRENT_DUEL = "이 벌칙이 적용된 경우, 그 플레이어는 진행중인 듀얼에서 패배한다."
TIMING_NEXT_DUEL = "듀얼과 듀얼 사이에 위반한 경우에는 다음 듀얼에 적용한다."
CHECK_IN_NOTE = ("대회 시작 전 접수 단계: 벌칙이 아니라 고칠 점입니다. 표시된 벌칙은 대회 중에 "
                 "발견되었을 때 적용되는 벌칙입니다.")
"""Contract penalty codes with the rules' Korean names (벌칙 규정 1. 벌칙의 종류)."""

# Recurring passages of the rules (verbatim).
_PENALTY_3A = "벌칙 규정 3.A 덱에 관한 위반"
_PENALTY_3B = "벌칙 규정 3.B 덱 리스트에 관한 위반"
_SIZE_LIMITS = "대회 규정 3. 카드 제한 「덱의 매수 제한」"
_LIMITED_CARDS = "대회 규정 3. 카드 제한 「매수 제한이 있는 카드」"
_OVERSIZE_ACT = "덱 / 사이드 덱 / 엑스트라 덱의 매수 제한을 넘는 카드를 덱 구축에 사용한다."
_UNUSABLE = "덱(사이드 덱 포함)에 사용 불가능한 카드를 포함하고 있다."
_OVER_LIMIT_3A = "덱(사이드 덱 포함)에 제한을 넘는 매수의 「금지 / 제한 / 준제한 카드」를 포함하고 있다."
_MISMATCH_3B = "덱 리스트의 제출을 의무화한 대회에서 덱 리스트 내용과 덱(사이드 덱 포함) 내용이 다름."
_PROHIBITED_18 = "대회 규정 4. 금지 사항과 대회 중 매너 「반칙 / 위반 행위에 대해」 18"
_FIRST_DUEL_SWAP = ("각 라운드(매치) 1듀얼째 개시전에 덱 / 엑스트라 덱 / 사이드 덱끼리의 카드 교체는 "
                    "인정되지 않는다.")
_OFFICIAL_CARDS = "덱 구축에 사용되는 카드는 전부 「유희왕 오피셜 카드게임」(한글판)을 사용해야만 한다."
OVERSIZE_NOTE = ("벌칙 규정 3.A는 「덱이 40장 미만」에만 벌칙을 정하고, 덱 / 엑스트라 덱 / 사이드 덱의 "
                 "매수 초과에 대한 벌칙은 정하지 않습니다: 저지 판단. 가장 가까운 항목은 벌칙 규정 "
                 "3.A 덱에 관한 위반 (듀얼의 패배)입니다.")
REMEDY_OVERSIZE = "매수 제한을 넘는 만큼 카드를 빼서 매수 제한 안으로 고친다 (규정에 조치 문구 없음: 저지 판단)."

REMEDY_ADD_TO_40 = "덱에 적절한 카드를 추가해 40장으로 고친다."
REMEDY_REPLACE = "덱에서 부적절한 카드를 제거하고 대신 적절한 카드를 추가, 원래의 매수로 되돌린다."
REMEDY_REMOVE = "덱에서 부적절한 카드를 제거하고 사용하는 덱을 적절한 상태로 되돌린다."
REMEDY_FOLLOW_LIST = "덱 리스트대로 수정한다."


@dataclass(frozen=True)
class RuleEntry:
    """What the rules say about one contract code."""

    code: str
    penalty: str
    """Contract penalty code (key of PENALTY_KO)."""
    section: str
    """Where in the rules, in Korean (e.g. 벌칙 규정 3.A 덱에 관한 위반)."""
    quotes: tuple[str, ...]
    """The passages that apply, verbatim from the rules."""
    remedy: str
    """What to do, in Korean."""
    title: str
    """A short Korean name of the problem for tables."""
    remedy_quoted: bool = True
    """True when `remedy` is verbatim from the rules."""
    penalty_quoted: bool = True
    """False where the penalty guideline names no penalty: `penalty` is then the nearest
    section's, the judge's call, and `penalty_note` says so."""
    penalty_note: str = ""

    @property
    def rule(self) -> str:
        """The `rule` field of an infraction: section plus the quoted passages."""
        return self.section + ": " + " / ".join(f"「{q}」" for q in self.quotes)


RULES: dict[str, RuleEntry] = {e.code: e for e in (
    RuleEntry("MAIN_TOO_SMALL", "GAME_LOSS", f"{_PENALTY_3A}; {_SIZE_LIMITS}",
              ("덱이 40장 미만.", "덱 : 40장 이상, 60장 이하"), REMEDY_ADD_TO_40,
              "메인 덱 40장 미만"),
    RuleEntry("MAIN_TOO_LARGE", "GAME_LOSS", f"{_SIZE_LIMITS}; {_PROHIBITED_18}",
              ("덱 : 40장 이상, 60장 이하", _OVERSIZE_ACT), REMEDY_OVERSIZE, "메인 덱 60장 초과",
              remedy_quoted=False, penalty_quoted=False, penalty_note=OVERSIZE_NOTE),
    RuleEntry("EXTRA_TOO_LARGE", "GAME_LOSS", f"{_SIZE_LIMITS}; {_PROHIBITED_18}",
              ("엑스트라 덱 : 0장 이상, 15장 이하", _OVERSIZE_ACT), REMEDY_OVERSIZE,
              "엑스트라 덱 15장 초과", remedy_quoted=False, penalty_quoted=False,
              penalty_note=OVERSIZE_NOTE),
    RuleEntry("SIDE_TOO_LARGE", "GAME_LOSS", f"{_SIZE_LIMITS}; {_PROHIBITED_18}",
              ("사이드 덱 : 0장 이상 15장 이하(엑스트라 덱에만 투입 가능한 카드도 포함한다.)",
               _OVERSIZE_ACT), REMEDY_OVERSIZE, "사이드 덱 15장 초과", remedy_quoted=False,
              penalty_quoted=False, penalty_note=OVERSIZE_NOTE),
    RuleEntry("TOO_MANY_COPIES", "GAME_LOSS", _PENALTY_3A,
              ("덱(사이드 덱 포함)에 동일 카드가 4장 이상 포함하고 있다.",), REMEDY_REPLACE,
              "같은 이름 4장 이상"),
    RuleEntry("FORBIDDEN_CARD", "GAME_LOSS", f"{_PENALTY_3A}; {_LIMITED_CARDS}",
              (_OVER_LIMIT_3A, "금지 카드는 덱 / 사이드 덱 / 엑스트라 덱의 구축에 사용할 수 없다."),
              REMEDY_REMOVE, "금지 카드"),
    RuleEntry("OVER_LIMIT", "GAME_LOSS", f"{_PENALTY_3A}; {_LIMITED_CARDS}",
              (_OVER_LIMIT_3A,
               "제한 카드는 덱 / 사이드 덱 / 엑스트라 덱에 같은 이름의 카드 카드를 1장까지만 넣을 수 있다.",
               "준제한 카드는 덱 / 사이드 덱 / 엑스트라 덱에 같은 이름의 카드 카드를 2장 까지만 넣을 수 있다."),
              REMEDY_REMOVE, "제한/준제한 매수 초과"),
    RuleEntry("NOT_EXTRA_DECK_CARD", "GAME_LOSS", f"{_PENALTY_3A}; 대회 규정 1.B 엑스트라 덱",
              ("15장 이내의 「융합 몬스터 카드」・「싱크로 몬스터 카드」・「엑시즈 몬스터 카드」・"
               "「링크 몬스터 카드」로 구축.", _UNUSABLE), REMEDY_REPLACE,
              "엑스트라 덱에 넣을 수 없는 카드"),
    RuleEntry("EXTRA_DECK_CARD_IN_MAIN", "GAME_LOSS", f"{_PENALTY_3A}; 대회 규정 1.B 엑스트라 덱",
              ("15장 이내의 「융합 몬스터 카드」・「싱크로 몬스터 카드」・「엑시즈 몬스터 카드」・"
               "「링크 몬스터 카드」로 구축.", _UNUSABLE), REMEDY_REPLACE,
              "메인 덱의 엑스트라 덱 몬스터"),
    RuleEntry("UNUSABLE_CARD", "GAME_LOSS", f"{_PENALTY_3A}; 대회 규정 3. 카드 제한 「대용 카드의 사용 금지」",
              (_UNUSABLE, _OFFICIAL_CARDS), REMEDY_REPLACE, "사용할 수 없는 카드"),
    RuleEntry("UNKNOWN_CARD", "NONE", "대회 규정 3. 카드 제한 「대용 카드의 사용 금지」",
              (_OFFICIAL_CARDS,),
              "카드 데이터베이스에 없는 패스코드입니다 (데이터베이스가 카드보다 오래되었을 수 있음): "
              "저지가 실물 카드를 확인하고, 한글판 OCG 카드가 아니면 UNUSABLE_CARD(벌칙 규정 3.A)로 처리한다.",
              "데이터베이스에 없는 카드", remedy_quoted=False),
    RuleEntry("UNRESOLVED_LINE", "NONE", "대회 규정 2.B 덱에 대해",
              ("참가자는 대회에 사용하는 덱 내용을 「덱 기입 시트」에 기입하여 보고해야 한다.",),
              "저지가 시트의 해당 줄을 직접 확인하고 카드와 매수를 확정한 뒤 다시 검사한다.",
              "확인 필요한 줄", remedy_quoted=False),
    RuleEntry("DECKLIST_MISMATCH", "GAME_LOSS", f"{_PENALTY_3B}; 대회 규정 2.B 덱에 대해",
              (_MISMATCH_3B,
               "「덱 기입 시트」에 기재된 카드 이외의 카드는 덱, 사이드덱, 엑스트라덱 전부에 사용이 금지된다."),
              REMEDY_FOLLOW_LIST, "덱 리스트 불일치"),
    RuleEntry("SIDE_SWAP_BEFORE_FIRST_DUEL", "GAME_LOSS",
              f"{_PENALTY_3B}; 대회 규정 2.B 덱에 대해 「각 라운드(매치)마다의 덱 초기화」",
              (_MISMATCH_3B, _FIRST_DUEL_SWAP), REMEDY_FOLLOW_LIST, "1듀얼째 전 사이드 교체"),
    RuleEntry("SIDE_SIZE_CHANGED", "GAME_LOSS", f"{_PENALTY_3B}; 대회 규정 2.E.8 듀얼의 순서",
              (_MISMATCH_3B, "※ 이 때, 교체 전과 교체 후의 덱, 엑스트라 덱의 매수는 동일해야 한다."),
              REMEDY_FOLLOW_LIST, "사이드 교체 후 매수 변경"),
)}

EXTRA_BAN_SECTION = "대회 규정 2.A 대회 룰 「추가 금지 카드」"
EXTRA_BAN_QUOTE = "※ 대회 개최일 시점의 최신 리미트 레귤레이션 + 추가 금지카드를 적용한다."
"""Cited beside FORBIDDEN_CARD when the card is one of the event's extra bans."""


def make_infraction(code: str, message: str, section: str | None = None,
                    card_ids: list[int] | None = None, extra_rule: str = "") -> Infraction:
    """An `Infraction` of `code` with the penalty, rule and remedy of the table."""
    entry = RULES[code]
    rule = entry.rule + (f"; {extra_rule}" if extra_rule else "")
    return Infraction(code=code, penalty=entry.penalty, rule=rule, message=message,
                      remedy=entry.remedy, section=section, card_ids=list(card_ids or []),
                      penalty_quoted=entry.penalty_quoted, penalty_note=entry.penalty_note)


def penalty_label(penalty: str, quoted: bool = True) -> str:
    """The Korean label of a penalty code; a penalty the rules do not name is labelled so."""
    ko = PENALTY_KO.get(penalty, penalty)
    return ko if quoted else f"규정에 명시 없음 — 저지 판단 (가장 가까운 항목: {ko})"


def highest_penalty(penalties: list[str]) -> str:
    """The highest of some penalty codes ('NONE' for none)."""
    return max(penalties, key=lambda p: PENALTY_RANK.get(p, 0), default="NONE")
