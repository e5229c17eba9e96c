"""The sheet's vocabulary, once: its sections, its columns, the review reasons a reader or a
stage can give (with the words a judge reads for each), and the bounds the CLI and the station
share.

Every name is a `StrEnum`: a member *is* its string (`Reason.HANDWRITTEN == "handwritten"`,
`json.dumps` and f-strings write the bare value), so the output contract (`sections`, `column`,
`reasons`, `review[].reason`) is the same text it always was; a saved JSON read back gives plain
strings, which compare and hash equal to the members.
"""
from __future__ import annotations

from enum import StrEnum


class Section(StrEnum):
    """The three parts of a deck (contract `sections`)."""

    MAIN = "main"
    EXTRA = "extra"
    SIDE = "side"


SECTIONS: tuple[Section, ...] = tuple(Section)

SECTION_KO: dict[str, str] = {Section.MAIN: "메인 덱", Section.EXTRA: "엑스트라 덱",
                              Section.SIDE: "사이드 덱"}
"""A section named on its own (`메인 덱 12번째 줄`, a title, a deck-check difference)."""
SECTION_SHORT_KO: dict[str, str] = {Section.MAIN: "메인", Section.EXTRA: "엑스트라",
                                    Section.SIDE: "사이드"}
"""A section beside a number or in a table cell (`메인 3`), as column headings are short."""


class Column(StrEnum):
    """The tables of a printed sheet (contract `column`): three for the main deck, then extra
    and side."""

    MONSTER = "monster"
    SPELL = "spell"
    TRAP = "trap"
    EXTRA = "extra"
    SIDE = "side"


COLUMNS: tuple[Column, ...] = tuple(Column)
"""In the order a sheet prints them."""
MAIN_COLUMNS: tuple[Column, ...] = (Column.MONSTER, Column.SPELL, Column.TRAP)
SECTION_OF: dict[str, Section] = {Column.MONSTER: Section.MAIN, Column.SPELL: Section.MAIN,
                                  Column.TRAP: Section.MAIN, Column.EXTRA: Section.EXTRA,
                                  Column.SIDE: Section.SIDE}
"""The deck section a column's lines belong to."""
COLUMN_KO: dict[str, str] = {Column.MONSTER: "몬스터", Column.SPELL: "마법", Column.TRAP: "함정",
                             Column.EXTRA: "엑스트라", Column.SIDE: "사이드"}
"""Columns as the paper prints their headings (`몬스터 13`: column and printed row)."""


class Reason(StrEnum):
    """Why a line or a sheet needs a judge (contract `reasons`, `review[].reason`). Every reason
    any reader or stage gives is a member, and every member has a Korean label in `REASON_KO`
    (tests/test_vocab.py)."""

    # the name
    UNRESOLVED_NAME = "unresolved-name"
    UNCERTAIN_NAME = "uncertain-name"
    NAME_LANGUAGE_NOT_LOADED = "name-language-not-loaded"
    AMBIGUOUS_NAME = "ambiguous-name"
    NAME_MISSING = "name-missing"
    NAME_PASSCODE_DISAGREE = "name-passcode-disagree"
    UNKNOWN_PASSCODE = "unknown-passcode"
    NAME_OR_COUNT = "name-or-count"
    COUNT_IN_NAME = "count-in-name"
    # the count
    COUNT_UNCLEAR = "count-unclear"
    COUNT_MISSING = "count-missing"
    COUNT_AMBIGUOUS = "count-ambiguous"
    COUNT_IMPLAUSIBLE = "count-implausible"
    COUNT_CORRECTED = "count-corrected"
    # pen on paper (photos and scans)
    STRUCK_THROUGH = "struck-through"
    POSSIBLE_STRIKE = "possible-strike"
    HANDWRITTEN = "handwritten"
    MERGED_ROWS = "merged-rows"
    RETAKE_PHOTO = "retake-photo"
    RETAKE = "retake"
    """Contract v4: the sheet's layout could not be found well enough to read its tables."""
    # the sheet as a whole
    TOTAL_MISMATCH = "total-mismatch"
    COLUMN_TOTAL_MISMATCH = "column-total-mismatch"
    KONAMI_ID_UNCLEAR = "konami-id-unclear"
    PLAYER_NAME_UNCLEAR = "player-name-unclear"
    UNREADABLE_LINE = "unreadable-line"
    ANOTHER_SHEET_PAGE = "another-sheet-page"
    MAIN_DECK_NOT_FOUND = "main-deck-not-found"
    # what a PDF or a text file hides
    ANNOTATION = "annotation"
    APPEARANCE_DIFFERS = "appearance-differs"
    NOT_VERIFIED = "not-verified"
    HIDDEN_TEXT = "hidden-text"
    CONTROL_CHARACTER = "control-character"
    # a review state without a reason of its own
    NEEDS_REVIEW = "needs-review"
    FLAGGED_IN_INPUT = "flagged-in-input"
    CONFIRMED_BY_JUDGE = "confirmed-by-judge"
    """A line a judge decided (the review's own state after a decision)."""

    @property
    def ko(self) -> str:
        return REASON_KO[self]


REASON_KO: dict[str, str] = {
    Reason.UNRESOLVED_NAME: "카드 이름을 알 수 없음",
    Reason.UNCERTAIN_NAME: "카드 이름이 불확실함",
    Reason.NAME_LANGUAGE_NOT_LOADED: "이 언어의 카드 데이터베이스가 없음 (영어 카드 이름: 영어 카드 데이터베이스가 필요)",
    Reason.AMBIGUOUS_NAME: "비슷한 이름의 카드가 여럿",
    Reason.NAME_MISSING: "이름 칸이 비어 있음",
    Reason.NAME_PASSCODE_DISAGREE: "이름과 패스코드가 다른 카드",
    Reason.UNKNOWN_PASSCODE: "카드 데이터베이스에 없는 패스코드",
    Reason.NAME_OR_COUNT: "이름 끝의 숫자가 이름인지 매수인지 불확실함",
    Reason.COUNT_IN_NAME: "이름에 숫자가 붙어 있음 (매수인지 확인)",
    Reason.COUNT_UNCLEAR: "매수를 읽을 수 없음",
    Reason.COUNT_MISSING: "매수 칸이 비어 있음",
    Reason.COUNT_AMBIGUOUS: "매수가 불확실함",
    Reason.COUNT_IMPLAUSIBLE: "매수가 1~3이 아님",
    Reason.COUNT_CORRECTED: "매수를 손으로 고침",
    Reason.STRUCK_THROUGH: "줄이 그어져 있음 (삭제?)",
    Reason.POSSIBLE_STRIKE: "줄이 그어졌을 수 있음",
    Reason.HANDWRITTEN: "손글씨",
    Reason.MERGED_ROWS: "두 줄이 한 줄로 읽힘 (두 줄 모두 확인)",
    Reason.RETAKE_PHOTO: "사진 속 시트가 너무 작음 — 다시 찍어 주십시오",
    Reason.RETAKE: "표 배치를 찾지 못함 — 다시 찍어 주십시오",
    Reason.TOTAL_MISMATCH: "시트의 합계와 줄의 합이 다름",
    Reason.COLUMN_TOTAL_MISMATCH: "칸 합계와 줄의 합이 다름",
    Reason.KONAMI_ID_UNCLEAR: "코나미 ID를 읽을 수 없음",
    Reason.PLAYER_NAME_UNCLEAR: "손으로 쓴 선수 이름 — 확인 필요",
    Reason.UNREADABLE_LINE: "읽을 수 없는 줄",
    Reason.ANOTHER_SHEET_PAGE: "다른 쪽에도 시트 내용이 있음 (첫 쪽만 읽음)",
    Reason.MAIN_DECK_NOT_FOUND: "메인 덱을 찾지 못함 — 시트를 직접 확인",
    Reason.ANNOTATION: "메모/표시가 있음",
    Reason.APPEARANCE_DIFFERS: "PDF 화면에 보이는 내용과 읽은 글자가 다름",
    Reason.NOT_VERIFIED: "PDF 화면(인쇄)으로 확인하지 못함 — 시트를 눈으로 대조",
    Reason.HIDDEN_TEXT: "PDF에 가려진 글자가 있음 (상자로 덮인 줄)",
    Reason.CONTROL_CHARACTER: "보이지 않는 제어 문자나 줄바꿈이 있음",
    Reason.NEEDS_REVIEW: "확인 필요",
    Reason.FLAGGED_IN_INPUT: "입력 파일에 확인 필요로 표시됨",
    Reason.CONFIRMED_BY_JUDGE: "저지가 확인함",
}
"""Each reason in the judge's words."""


MODE_KO: dict[str, str] = {"start-of-match": "매치 시작 전", "between-games": "게임 사이"}
"""A deck check's 시점 (contract `mode`), in the judge's words."""
READER_KO: dict[str, str] = {"pdf-text": "PDF 글자", "pdf-form": "PDF 입력 칸",
                             "ocr": "사진·스캔 읽기", "ydk": "ydk 파일", "ydke": "ydke 주소",
                             "text": "텍스트 목록", "json": "JSON"}
"""How a list was read (the contract's `source.reader`), in the judge's words."""


def reason_ko(reason: str) -> str:
    """`reason` with its Korean label, e.g. 'count-unclear (매수를 읽을 수 없음)'; a reason
    that is not ours (carried in by a JSON input) as it is."""
    label = REASON_KO.get(reason)
    return f"{label} ({reason})" if label else reason


MAX_ROUND = 99
"""The highest round number a deck check is recorded under, at the CLI and the station alike.
A Swiss event of 500 players plays 9 rounds and a top cut of 6; even a two-day event with a
numbered second day stays far below 99 (docs/JUDGES.md: `--round 3`)."""
