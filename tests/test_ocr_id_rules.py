"""The Konami ID printed on a db-ko header: its box rules among the header's column rules
(`header.id_rules`) and its digits (`header.read_id_digit`)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scanner.ocr.header import ID_DIGITS, id_rules
from scanner.read import ReadOptions, load_decklist

REPO = Path(__file__).resolve().parent.parent

# The column rules of a real db-ko header (photo-corrected-01 of make_photos seed 3535): the
# label rule (363, doubled at 375), the eleven ID box rules 48 px apart, and 455 — a stroke of
# the name row above that falls between the second and third box.
XS = [86, 363, 375, 423, 455, 471, 517, 565, 613, 661, 709, 757, 805, 852, 863]


def test_a_stray_rule_between_two_boxes_is_passed_over():
    assert id_rules(XS) == [375, 423, 471, 517, 565, 613, 661, 709, 757, 805, 852]


def test_clean_rules_give_the_eleven_and_no_more():
    xs = [86, 363] + [375 + 48 * k for k in range(ID_DIGITS + 1)] + [866]
    assert id_rules(xs) == [375 + 48 * k for k in range(ID_DIGITS + 1)]


def test_a_missing_rule_breaks_the_run():
    # a box whose rule was not found: no run of eleven (the ID is not read, never guessed)
    xs = [375 + 48 * k for k in range(ID_DIGITS + 1) if k != 5]
    assert len(id_rules(xs)) < ID_DIGITS + 1


@pytest.mark.slow
def test_printed_ids_of_photos_are_read_right_or_not_at_all(tmp_path, demo_db):
    """make_photos seed 3535: photo-corrected-01 (a stroke of the name row between two ID
    boxes: the whole ID was lost) and photo-04 (its `1` read as a `4` at 0.75: a wrong ID) —
    both read right now; no ID on any sheet of the set is wrong."""
    out = tmp_path / "set"
    subprocess.run([sys.executable, str(REPO / "samples" / "make_photos.py"), "--out", str(out),
                    "--count", "4", "--seed", "3535", "--kinds", "photo,photo-corrected"],
                   check=True, capture_output=True, env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    got = {}
    for truth_path in sorted(out.glob("*.truth.json")):
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        read = load_decklist(out / truth["file"], demo_db, ReadOptions())
        got[truth["file"]] = (read.konami_id, truth["player"]["konami_id"])
    assert got["photo-corrected-01.jpg"][0] == got["photo-corrected-01.jpg"][1]
    assert got["photo-04.jpg"][0] == got["photo-04.jpg"][1]
    assert all(read in (None, true) for read, true in got.values()), got
