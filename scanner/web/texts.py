"""Every Korean refusal the station's hardening adds, in one table keyed by a code, so that it
can be folded into the project's message table (`DecksheetError(code, **params)`) as it is."""
from __future__ import annotations

KO: dict[str, str] = {
    # strict JSON input
    "json-unreadable": "JSON 본문을 읽을 수 없습니다",
    "json-not-object": "JSON 객체를 보내세요",
    "json-too-deep": "JSON이 너무 깊게 중첩되어 있습니다 (최대 {depth}단계)",
    "json-too-large": "요청 본문이 너무 큽니다 (최대 {kb} KB)",
    "field-missing": "{field} 값이 필요합니다",
    "field-unknown": "알 수 없는 항목입니다: {field}",
    "field-int": "{field}: {lo}~{hi} 사이의 정수여야 합니다",
    "field-bool": "{field}: true 또는 false여야 합니다",
    "field-text": "{field}: {max_len}자 이하의 문자열이어야 합니다",
    "field-choice": "{field}: 다음 중 하나여야 합니다: {choices}",
    "field-list": "{field}: 최대 {max_items}개의 목록이어야 합니다",
    "field-object": "{field}: JSON 객체여야 합니다",
    # paths and forms
    "version-bad": "판 번호가 올바르지 않습니다",
    "review-field-bad": "알 수 없는 확인 항목입니다: {field}",
    # judge
    "judge-missing": "저지 이름이 필요합니다: 기기에서 이름을 등록하거나 X-Judge 헤더를 보내세요",
    # roster
    "roster-header": "CSV 첫 줄은 player,name[,table] 또는 코나미 ID,이름[,테이블] 이어야 합니다",
    "roster-duplicate": "같은 코나미 ID {kid}가 여러 줄에 있습니다: {lines}번째 줄",
    "roster-bad-id": "{line}번째 줄: 코나미 ID가 올바르지 않습니다: {value}",
    "roster-no-name": "{line}번째 줄: 이름이 비어 있습니다",
    "roster-bad-name": "{line}번째 줄: 이름이 올바르지 않습니다 (최대 {max_len}자, 제어 문자 불가)",
    "roster-field-large": "{line}번째 줄: 칸이 너무 깁니다 (최대 {max_len}자)",
    "roster-unreadable": "CSV를 읽을 수 없습니다: {line}번째 줄",
    "roster-encoding": "CSV가 UTF-8도 CP949도 아닙니다",
    "roster-too-many": "명단이 너무 깁니다 (최대 {max_rows}명)",
    "name-bad": "이름이 올바르지 않습니다 (최대 {max_len}자, 제어 문자 불가)",
    # jobs
    "job-not-registered": "읽은 결과를 등록하지 못했습니다 ({kind}): 헤드 저지에게 알리세요",
    "job-restarted-too-often": "읽기를 {n}번 시작했지만 서버가 그때마다 멈췄습니다: 파일을 확인하세요",
    # auth and server
    "key-wait": "이벤트 키가 여러 번 틀렸습니다: {seconds}초 뒤에 다시 시도하세요",
    "key-needed": "이벤트 키가 필요합니다 (Authorization: Bearer KEY)",
    "disk-full": "저장 공간이 부족해 파일을 저장하지 못했습니다: 헤드 저지에게 알리세요 (아무것도 저장되지 않음)",
    "request-timeout": "요청을 제때 받지 못했습니다",
}


def ko(code: str, **params: object) -> str:
    """The Korean text of `code`, its parameters filled in."""
    return KO[code].format(**params)
