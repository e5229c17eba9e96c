"""Issue 15, items 1 and 15: typed lists whose names end in digits; a quadratic count regex."""
from __future__ import annotations

import json
import time

import pytest

from scanner.inputs.formats import parse_text_list
from tests.adversarial.conftest import run


def _scan(tmp_path, text: str, *extra) -> dict:
    p = tmp_path / "list.txt"
    p.write_text(text, encoding="utf-8")
    res = run("scan", p, "--json", *extra)
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


@pytest.mark.parametrize("line,card_id,count", [
    ("해피 레이디3", 54415063, 1),      # a card named 해피 레이디3, not 3× 해피 레이디
    ("HSR 글라이더2", 10732060, 1),      # not 2× of another card
    ("마그넷 서클 LV2", 94940436, 1),
    ("7 카드", 86198326, 1),            # a name beginning with digits
])
def test_an_exact_whole_name_wins_over_a_split_count(env, tmp_path, real_db_path, line, card_id, count):
    (entry,) = _scan(tmp_path, line + "\n", "--card-db", real_db_path)["sections"]["main"]
    assert (entry["card_id"], entry["count"]) == (card_id, count), entry


@pytest.mark.parametrize("line", [
    "HSR 글라이더3",     # no such card: the 3 may be a count or part of a name
    "해피 레이디 3",     # reads both ways: 3× 해피 레이디 or 1× 해피 레이디3
    "하루 우라라 -1",    # a negative count, once read as 1 copy of 하루 우라라
])
def test_a_line_that_reads_two_ways_is_flagged(env, tmp_path, real_db_path, line):
    obj = _scan(tmp_path, line + "\n", "--card-db", real_db_path)
    (entry,) = obj["sections"]["main"]
    assert entry["needs_review"] is True, entry
    assert obj["review"], obj


def test_plain_counts_still_read_unflagged(env, tmp_path, real_db_path):
    obj = _scan(tmp_path, "3 하루 우라라\n하루 우라라 3\n하루 우라라 x2\n하루 우라라 1장\n",
                "--card-db", real_db_path)
    got = [(e["card_id"], e["count"], e["needs_review"]) for e in obj["sections"]["main"]]
    assert got == [(14558127, 3, False), (14558127, 3, False), (14558127, 2, False),
                   (14558127, 1, False)]


@pytest.mark.parametrize("line", [
    "3" + " " * 120_000 + "하루 우라라",
    "하루 우라라" + " " * 120_000 + "x",
    "하루 우라라" + " " * 120_000,
    "메인 덱" + ")" * 120_000 + "x",
    "x" * 120_000 + " 3",
])
def test_long_lines_parse_in_linear_time(line):
    start = time.perf_counter()
    try:
        parse_text_list(line + "\n1 하루 우라라\n")
    finally:
        assert time.perf_counter() - start < 1.0


def test_a_line_longer_than_any_card_name_is_flagged_not_read(env, tmp_path):
    obj = _scan(tmp_path, "1 하루 우라라\n" + "3 " + "가" * 5000 + "\n")
    assert len(obj["sections"]["main"]) == 1
    assert any(r["reason"] == "unreadable-line" for r in obj["review"])
