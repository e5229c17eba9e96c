"""Review reasons (the contract's `review[].reason` codes) and their Korean labels for judges."""
from __future__ import annotations

REASON_KO: dict[str, str] = {
    "unresolved-name": "카드 이름을 알 수 없음",
    "uncertain-name": "카드 이름이 불확실함",
    "name-language-not-loaded": "이 언어의 카드 DB가 없음 (영어 이름은 --card-db en-US.cdb)",
    "ambiguous-name": "비슷한 이름의 카드가 여럿",
    "name-missing": "이름 칸이 비어 있음",
    "name-passcode-disagree": "이름과 패스코드가 다른 카드",
    "unknown-passcode": "카드 데이터베이스에 없는 패스코드",
    "count-unclear": "매수를 읽을 수 없음",
    "count-missing": "매수 칸이 비어 있음",
    "count-ambiguous": "매수가 불확실함",
    "count-implausible": "매수가 1~3이 아님",
    "count-corrected": "매수를 손으로 고침",
    "struck-through": "줄이 그어져 있음 (삭제?)",
    "possible-strike": "줄이 그어졌을 수 있음",
    "handwritten": "손글씨",
    "annotation": "메모/표시가 있음",
    "total-mismatch": "시트의 합계와 줄의 합이 다름",
    "column-total-mismatch": "칸 합계와 줄의 합이 다름",
    "konami-id-unclear": "코나미 ID를 읽을 수 없음",
    "unreadable-line": "읽을 수 없는 줄",
    "appearance-differs": "PDF 화면에 보이는 내용과 읽은 글자가 다름",
    "not-verified": "PDF 화면(인쇄)으로 확인하지 못함 — 시트를 눈으로 대조",
    "retake-photo": "사진 속 시트가 너무 작음 — 다시 찍어 주십시오",
}
"""Review reasons (contract `review[].reason`, English codes) in the judge's words."""


def reason_ko(reason: str) -> str:
    """`reason` with its Korean label, e.g. 'count-unclear (매수를 읽을 수 없음)'."""
    label = REASON_KO.get(reason)
    return f"{label} ({reason})" if label else reason
