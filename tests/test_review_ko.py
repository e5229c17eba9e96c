"""The one parser of the readers' details (`scanner.report.review_ko`), which the Korean text of
the audit report and the station's review both read: on the details as the readers write them."""
from __future__ import annotations

from scanner.report.review_ko import (detail_ko, is_korean, missing_table, row_of, split_crop,
                                      struck_card)

STRUCK = ("spell row 7: printed line struck through, left out of the deck: "
          "하루 우라라 [14558127] ×3; crop /srv/event/crops/p1_spell_7.png")
GUESSED = ("trap row 12: printed line struck through, left out of the deck: "
           "'무한 포영' (maybe 무한포영 [10045474]) ×2")
NOT_FOUND = "extra table not found on the page: its lines were not read"
CUT = "side table cut off after row 9 (a table has at least 15 rows): rows 10 on were not read"


def test_a_struck_row_gives_its_card_count_row_and_crop():
    text, crop = split_crop(STRUCK)
    assert crop == "/srv/event/crops/p1_spell_7.png" and "crop" not in text
    assert struck_card(text) == (14558127, 3)
    assert row_of(text) == ("spell", 7)
    assert struck_card(GUESSED) == (10045474, 2) and row_of(GUESSED) == ("trap", 12)
    assert detail_ko(STRUCK) == "마법 7번째 줄: 줄이 그어져 덱에서 빠짐 — 하루 우라라 ×3"
    assert detail_ko(GUESSED).endswith("무한포영? ×2")


def test_a_table_not_read_gives_its_column_and_the_last_row_read():
    assert missing_table(NOT_FOUND) == ("extra", None)
    assert missing_table(CUT) == ("side", 9)
    assert missing_table(STRUCK) is None and row_of(NOT_FOUND) is None
    assert detail_ko(NOT_FOUND) == "엑스트라 표를 시트에서 찾지 못함: 그 줄은 읽지 않았음"
    assert detail_ko(CUT) == "사이드 표가 9번째 줄 뒤에서 잘림: 그 뒤의 줄은 읽지 않았음"


def test_no_server_path_and_no_english_reach_the_judge():
    assert split_crop("monster: printed total 3 but no line read in the column") == (
        "monster: printed total 3 but no line read in the column", None)
    assert "/" not in detail_ko("could not open /srv/event/files/x.png")
    assert detail_ko("some reader note in English") == ""
    assert is_korean("사진을 다시 찍어 주십시오") and not is_korean("retake")
