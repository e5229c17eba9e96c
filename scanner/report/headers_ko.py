"""Korean sheet names and column headers for the spreadsheets judges open (.xlsx, and the
audit's `report-ko.csv`). The CSV files other tools read (`report.csv`, `decklists.csv`, the
station's `players.csv`) keep their English headers: they are the output contract."""
from __future__ import annotations

from scanner.report.tables import Table

SHEETS_KO: dict[str, str] = {
    "registrations": "등록",
    "lines": "줄",
    "deck checks": "덱 체크",
    "infractions": "위반",
    "review decisions": "확인 결정",
    "players": "선수",
}

HEADERS_KO: dict[str, str] = {
    "player": "코나미 ID",
    "konami_id": "코나미 ID",
    "name": "이름",
    "table": "테이블",
    "version": "버전",
    "current": "최신",
    "file": "파일",
    "reader": "읽은 방법",
    "main": "메인",
    "extra": "엑스트라",
    "side": "사이드",
    "verdict": "판정",
    "legal": "적합",
    "illegal": "부적합",
    "codes": "사유 코드",
    "needs_review": "확인 필요",
    "problems": "무결성 문제",
    "duplicate_group": "동일 리스트 그룹",
    "deck_checks": "덱 체크",
    "infractions_issued": "위반 기록",
    "section": "구역",
    "line": "줄",
    "position": "시트 위치",
    "card_id": "패스코드",
    "card_name": "카드 이름",
    "count": "매수",
    "reasons": "확인 이유",
    "read": "읽음",
    "id": "번호",
    "round": "라운드",
    "mode": "시점",
    "penalty": "벌칙",
    "applies": "적용",
    "differences": "차이",
    "confirmed": "확인함",
    "judge": "저지",
    "time": "시간",
    "code": "위반",
    "findings": "발견 내용",
    "status": "상태",
    "penalty_now": "현재 벌칙",
    "void_reason": "무효·정정 사유",
    "voided_by": "무효·정정 저지",
    "remedy": "고칠 점",
    "deck_check_id": "덱 체크 번호",
    "action": "결정",
    "before": "전",
    "after": "후",
    "voided": "무효",
    "place": "위치",
    "sha256": "파일 해시 (sha256)",
    "list": "리미트 레귤레이션",
    "infractions": "위반",
    "withdrawn": "철회됨",
    "withdrawn_reason": "철회 사유",
    "withdrawn_by": "철회한 저지",
    "withdrawn_at": "철회 시각",
    "sheet": "시트의 코나미 ID",
    "sheet_id": "시트에 적힌 ID",
    "void_judge": "무효로 한 저지",
}
"""Every English column header of the event's tables → its Korean header."""


def header_ko(header: str) -> str:
    return HEADERS_KO.get(header, header)


def in_korean(table: Table) -> Table:
    """The same table with a Korean sheet name and Korean column headers."""
    return Table(SHEETS_KO.get(table.name, table.name), [header_ko(h) for h in table.headers],
                 table.rows)
