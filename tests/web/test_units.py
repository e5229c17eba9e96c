"""Small pieces of the station: Hangul search, upload checks, page text helpers."""
from __future__ import annotations

import pytest

from scanner.web.hangul import initials, matches
from scanner.web.uploads import UploadRefused, check_upload


def test_initial_consonants():
    assert initials("김하늘") == "ㄱㅎㄴ"
    assert initials("Kim 하늘") == "kim ㅎㄴ"


@pytest.mark.parametrize("query,hit", [
    ("ㄱㅎㄴ", True), ("ㅎㄴ", True), ("김ㅎㄴ", True), ("하늘", True), ("김 하 늘", True),
    ("ㄱㄴ", False), ("이서준", False), ("0412", True), ("0412-345", True), ("12", True),
    ("1", False), ("9999", False), ("", True),
])
def test_roster_search(query, hit):
    assert matches(query, "김하늘", "0412345678", "12") is hit


def test_uploads_are_sniffed_by_content_not_name():
    assert check_upload(b"#main\n14558127\n", "deck.pdf").kind.value == "ydk"
    assert check_upload("3 하루 우라라\n".encode(), "x.jpg").kind.value == "text"
    with pytest.raises(UploadRefused) as e:
        check_upload(b"\x00\x01\x02" * 100, "sheet.jpg")
    assert e.value.status == 415
    # JPEG magic, no image: taken unopened (the server process parses no image); its reader
    # fails the job (tests/adversarial/test_pdf_guard.py uploads such files to a live station).
    assert check_upload(b"\xff\xd8\xff\xe0" + b"\x00" * 100, "photo.jpg").kind.value == "image"


def test_file_names_are_cut_to_a_safe_base_name():
    up = check_upload(b"3 x\n", "../../etc/\u202epasswd.txt")
    assert up.file_name == "passwd.txt"


def test_page_helpers():
    from scanner.report.tables import safe_cell
    from scanner.web.present import clean, local_time

    assert local_time("2026-07-12T01:02:03+00:00", "Asia/Seoul") == "2026-07-12 10:02"  # with the year
    assert local_time("garbage", "Asia/Seoul") == "garbage"
    assert clean("line 3; crop /srv/e.sqlite.station/crops/ab/ab-spell-11.png") == "line 3"
    assert [safe_cell(v) for v in ("=1+1", "+82", "-x", "@a", "김", 5)] == \
        ["'=1+1", "'+82", "'-x", "'@a", "김", 5]


@pytest.mark.parametrize("a,b,apart", [
    ("용기우", "용지우", True), ("최던서", "최 연서", True), ("김하늘", "김하늘", False),
    ("김하늘", "이하늘", True), ("김하", "김하늘", False), ("김하늘", "박서준", False), ("", "", False),
    (None, "김하늘", False), ("김", "이", False)])
def test_one_syllable_apart_is_an_ocr_misread_s_shape(a, b, apart):
    from scanner.web.hangul import one_syllable_apart
    assert one_syllable_apart(a, b) is apart
