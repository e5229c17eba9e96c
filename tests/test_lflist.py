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


def test_no_list_at_all_is_a_one_line_error():
    with pytest.raises(RegulationError, match="no list") as exc:
        parse_lflist("# only comments\n")
    assert "\n" not in str(exc.value)


def test_unreadable_lines_are_skipped_with_a_warning_naming_the_line():
    # Real files carry lines ygopro skips: EDOPro's `--` comments, a stray header, a passcode
    # beyond 32 bits, a superscript digit. The rest of the file must still load.
    text = ("14558127 0\n!2026.7\n--SS05 Bakura\n--StartDate 1970-01-01\n23434538 1\n"
            "99999999999 1\n\u00b2 1\nhello world\n97268402 2\n")
    lf = parse_lflist(text)
    assert lf.lists == {"2026.7": {23434538: 1, 97268402: 2}}
    assert [w.split(":")[0] for w in lf.warnings] == [
        "lflist line 1", "lflist line 3", "lflist line 4", "lflist line 6", "lflist line 7",
        "lflist line 8"]
    assert "'--SS05 Bakura'" in lf.warnings[1] and "before any !LIST" in lf.warnings[0]
    assert lf.warning_lines(limit=2)[:2] == lf.warnings[:2]
    assert lf.warning_lines(limit=2)[2] == "lflist: 4 more unreadable line(s) skipped"


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


SPELLINGS = "!2026.07 OCG\n14558127 1\n!2026.4\n14558127 2\n!2026.7 TCG\n14558127 3\n"


@pytest.mark.parametrize("asked,found", [
    ("2026.7", "2026.07 OCG"), ("2026.07", "2026.07 OCG"), ("2026.7 OCG", "2026.07 OCG"),
    ("2026.04", "2026.4"), ("2026.7 TCG", "2026.7 TCG"), ("2026.07.TCG", "2026.7 TCG"),
])
def test_list_names_match_by_date_and_kind(asked, found):
    assert choose_list(parse_lflist(SPELLINGS), asked).name == found


def test_ambiguous_list_name_is_refused_with_the_candidates():
    lf = parse_lflist("!2026.7\n1 1\n!2026.07\n1 2\n!2026.4\n1 0\n")
    assert choose_list(lf, "2026.7").name == "2026.7"  # an exact name is never ambiguous
    with pytest.raises(RegulationError, match=r"ambiguous.*2026\.7, 2026\.07"):
        choose_list(lf, "2026.07 OCG")
    with pytest.raises(RegulationError, match="no list named '2026.1'"):
        choose_list(lf, "2026.1")


def test_file_with_only_non_ocg_lists_names_them_and_says_how_to_pick():
    lf = parse_lflist("!2026.5 TCG\n1 1\n!OCG Korea\n1 2\n!Master Duel\n1 0\n")
    for kwargs in ({}, {"date": dt.date(2026, 7, 1)}):
        with pytest.raises(RegulationError) as exc:
            choose_list(lf, **kwargs)
        msg = str(exc.value)
        assert "no OCG list" in msg and "2026.5 TCG, OCG Korea, Master Duel" in msg
        assert "--list NAME" in msg and "\n" not in msg
    assert choose_list(lf, "ocg korea").name == "OCG Korea"  # names without a date: any case


def test_every_real_list_file_loads(shared_dir):
    files = [shared_dir / "carddb" / "lflist.conf",
             *sorted((shared_dir / "carddb" / "real-samples").glob("*.conf"))]
    assert len(files) >= 2
    for f in files:
        lf = load_lflist(f)
        assert lf.lists and lf.newest_ocg() and lf.warnings == []
