"""A sheet-level review item's detail in the judge's words.

Readers write their doubts' details in English for the log and the JSON (`review[].detail`,
the output contract), sometimes with the server's crop path. A judge — on the station or in
the audit report meant for sharing — reads Korean and never a server path: `detail_ko` turns
the details readers write into Korean, and leaves out any it does not know (the reason's
Korean label says what the item is).
"""
from __future__ import annotations

import re

from scanner.vocab import COLUMN_KO, SECTION_SHORT_KO

_CROP = re.compile(r";?\s*crop (\S+)")
_PATH = re.compile(r"(?<![\w/])/(?:[\w.\-]+/)+[\w.\-]+")
_PLACE = {**COLUMN_KO, **SECTION_SHORT_KO}
_HANGUL = re.compile(r"[가-힣]")
_COLUMN = r"(monster|spell|trap|extra|side)"

_ROW = re.compile(rf"^{_COLUMN} row (\d+):")
_STRUCK_CARD = re.compile(r"\[(\d+)\]\)? ×([123])\b")
_STRUCK_OLD = re.compile(r"struck \[(\d+)\]")
_TABLE_MISSING = re.compile(rf"^{_COLUMN} table (?:not found|cut off after row (\d+))")
_STRUCK = re.compile(r"^(\w+) row (\d+): printed line struck through, left out of the deck: "
                     r"(.*) ×(\S+)$")
_TOTAL = re.compile(r"^(?:(\w+) column: )?printed total (\d+) ≠ sum of lines (\d+)$")
_EMPTY = re.compile(r"^(\w+): printed total (\d+) but no line read in the column$")
_ID = re.compile(r"^(?:Konami ID|konami_id|CARD GAME ID) read as '([^']*)' \(not 10 digits\)$")
_PAGE = re.compile(r"^page (\d+) also holds deck lines; only page (\d+)")
_CARD = re.compile(r"(?:'[^']*' \(maybe )?([^\[\]]+?) \[\d+\]\)?$")


# ---- the parts of a reader's detail the station acts on (one parser, for every caller) -------

def split_crop(detail: str) -> tuple[str, str | None]:
    """(the detail without its `crop PATH` note, the path or None)."""
    m = _CROP.search(detail)
    return _CROP.sub("", detail), m.group(1) if m else None


def struck_card(detail: str) -> tuple[int, int] | None:
    """(card ID, count) a struck-through printed row names (`… [14558127]) ×3`), or None."""
    m = _STRUCK_CARD.search(detail)
    return (int(m.group(1)), int(m.group(2))) if m else None


def struck_old_count(detail: str) -> int | None:
    """The count a corrected count's struck digit reads (`count: struck [2] → new 3`), or
    None when the detail gives none."""
    m = _STRUCK_OLD.search(detail or "")
    return int(m.group(1)) if m else None


def row_of(detail: str) -> tuple[str, int] | None:
    """(column, row) of a detail about one printed row (`monster row 7: …`), or None."""
    m = _ROW.match(detail)
    return (m.group(1), int(m.group(2))) if m else None


def missing_table(detail: str) -> tuple[str, int | None] | None:
    """(column, the last row read) of a table whose lines went unread: not found (row None) or
    cut off after that row; None for any other detail."""
    m = _TABLE_MISSING.match(detail)
    return (m.group(1), int(m.group(2)) if m.group(2) else None) if m else None


def is_korean(text: str) -> bool:
    """The text holds Hangul (a reader's advice already written for the judge)."""
    return bool(_HANGUL.search(text))


def _place(word: str | None) -> str:
    return _PLACE.get(word or "", word or "")


def card_of(text: str) -> str:
    """`하루 우라라 [14558127]` or `'하루 우라' (maybe 하루 우라라 [14558127])` → the name."""
    m = _CARD.search(text.strip())
    return m.group(1).strip() + ("?" if "maybe" in text else "") if m else "?"


def detail_ko(detail: str | None) -> str:
    """The Korean of a reader's detail ('' when it is not one the readers write: the item's
    label is then all a judge needs). No crop path or other server path ever remains."""
    text = _PATH.sub("", _CROP.sub("", detail or "")).strip()
    if not text:
        return ""
    if m := _STRUCK.match(text):
        return (f"{_place(m.group(1))} {m.group(2)}번째 줄: 줄이 그어져 덱에서 빠짐 — "
                f"{card_of(m.group(3))} ×{m.group(4)}")
    if m := _TOTAL.match(text):
        where = f"{_place(m.group(1))} 칸: " if m.group(1) else ""
        return f"{where}시트에 적힌 합계 {m.group(2)} ≠ 줄의 합 {m.group(3)}"
    if table := missing_table(text):
        if table[1] is None:
            return f"{_place(table[0])} 표를 시트에서 찾지 못함: 그 줄은 읽지 않았음"
        return f"{_place(table[0])} 표가 {table[1]}번째 줄 뒤에서 잘림: 그 뒤의 줄은 읽지 않았음"
    if m := _EMPTY.match(text):
        return f"{_place(m.group(1))}: 시트에 적힌 합계 {m.group(2)}인데 읽은 줄이 없음"
    if m := _ID.match(text):
        return f"코나미 ID를 「{m.group(1)}」로 읽음 (10자리가 아님)"
    if m := _PAGE.match(text):
        return f"{m.group(1)}쪽에도 덱 줄이 있음: {m.group(2)}쪽만 읽음"
    if is_korean(text) and not re.search(r"[A-Za-z]{3,}", text):
        return text  # a detail already in Korean
    return ""
