"""lflist.conf: parsing, list choice by name/date/newest, the event's extra bans."""
from __future__ import annotations

import csv
import datetime as dt

import pytest

from card_db.lflist import EXTRA_BANS, choose_list, load_lflist, parse_lflist
from scanner.errors import RegulationError

CONF = """#[2026.7][2026.4][2026.5 TCG]
!2026.7
#forbidden
14558127 0 --하루 우라라
#limit
23434538 1
#semi limit
97268402 2 -- 이펙트 뵐러

!2026.5 TCG
14558127 3
!2026.4
14558128 1
$whitelist
"""


def test_parse_blocks_counts_and_comments():
    lf = parse_lflist(CONF)
    assert lf.names() == ["2026.7", "2026.5 TCG", "2026.4"]
    assert lf.lists["2026.7"] == {14558127: 0, 23434538: 1, 97268402: 2}
    assert [n for _, n in lf.ocg_lists()] == ["2026.4", "2026.7"]  # the TCG list is not OCG


def test_choose_by_name_date_or_newest_with_extra_bans():
    lf = parse_lflist(CONF)
    newest = choose_list(lf)
    assert newest.name == "2026.7" and newest.allowed(14558127) == 0 and newest.allowed(1) == 3
    assert all(newest.allowed(c) == 0 and newest.is_extra_ban(c) for c in EXTRA_BANS)
    assert choose_list(lf, date=dt.date(2026, 6, 30)).name == "2026.4"
    assert choose_list(lf, date=dt.date(2026, 7, 1)).name == "2026.7"
    plain = choose_list(lf, "2026.5 TCG", extra_bans=False)
    assert plain.allowed(80161395) == 3 and not plain.extra_bans
    # Lists name any printing; limits are kept by original passcode.
    mapped = choose_list(lf, "2026.4", original_id=lambda c: 14558127 if c == 14558128 else c)
    assert mapped.allowed(14558127) == 1


@pytest.mark.parametrize("text,msg", [
    ("!2026.7\nhello world\n", "line 2"),
    ("14558127 0\n!2026.7\n", "before any !LIST"),
    ("# only comments\n", "no list"),
])
def test_malformed_files_give_one_line_errors(text, msg):
    with pytest.raises(RegulationError, match=msg) as exc:
        parse_lflist(text)
    assert "\n" not in str(exc.value)


def test_unknown_list_name_and_date_before_any_list():
    lf = parse_lflist(CONF)
    with pytest.raises(RegulationError, match="no list named"):
        choose_list(lf, "1999.1")
    with pytest.raises(RegulationError, match="in force"):
        choose_list(lf, date=dt.date(2000, 1, 1))


def test_missing_file(tmp_path):
    with pytest.raises(RegulationError, match="cannot read"):
        load_lflist(tmp_path / "nope.conf")


def test_real_list_file_matches_the_official_2026_7_list(real_lflist_path, shared_dir):
    lf = load_lflist(real_lflist_path)
    assert len(lf.lists) == 102 and lf.newest_ocg() == "2026.7"
    official: dict[int, int] = {}
    with open(shared_dir / "carddb" / "ocg_limit_2026-07-01.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:  # columns: count,status,password (= passcode),konami_id,name_ko,...
        official[int(r["password"])] = int(r["count"])
    chosen = choose_list(lf, extra_bans=False)
    assert sorted(official.values()).count(0) == 92
    assert {c: chosen.limits[c] for c in official if c in chosen.limits} == official


def test_real_2020_kcg_file(shared_dir):
    lf = load_lflist(shared_dir / "carddb" / "real-samples" / "ygomobile_ko_lflist_2020.04_with_KCG.conf")
    assert "2020.04.KCG" in lf.lists and lf.newest_ocg() == "2020.04.OCG"
    kcg = choose_list(lf, "2020.04.KCG")
    assert kcg.allowed(20663556) == 0  # 교체 깨구리, forbidden in the file
    assert choose_list(lf, date=dt.date(2020, 3, 1)).name == "2020.01.OCG"
