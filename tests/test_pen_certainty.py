"""A card name written by pen on a printed sheet is as sure as the hand reader's evidence says
(issue 35, `scanner/ocr/pen_names.py`): a right written-in line its reads support comes above
the station's doubt mark (before: every one flagged by the rendering check no hand passes, at
its read's score × 0.5), a wrong one stays below it. Real reads of the project's generated
pen-corrected photos (samples/photos/, and sets made here as `make_photos.py` makes them); a
wrong line is made by reading a sheet with its written card taken out of the card database, so
the reader can only name another card."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from sample_makers import make_photos

from scanner.read import ReadOptions, read_input
from scanner.web.glance import CERTAIN, line_doubt

PHOTOS = Path(__file__).resolve().parent.parent / "samples" / "photos"


def written_in(photo: Path) -> list[dict]:
    """The truth's lines written by pen in an empty row of the sheet `photo`."""
    truth = json.loads(photo.with_name(photo.stem + ".truth.json").read_text(encoding="utf-8"))
    return [{"column": c["column"], **c["written"]} for c in truth["corrections"] if c["type"] == "replace-row"]


def read_lines(photo: Path, db) -> dict:
    sheet, _ = read_input(photo, db, ReadOptions())
    return {(ln.column, ln.row): ln for ln in sheet.lines}


def without(db, card_id: int):
    """The card database less one card."""
    return dataclasses.replace(db, cards={k: v for k, v in db.cards.items() if k != card_id})


@pytest.fixture(scope="module")
def pen_sets(tmp_path_factory) -> dict[int, Path]:
    """Pen-corrected photos as `make_photos.py --kinds photo-corrected --seed S` makes them."""
    out = {}
    for seed, count in ((3535, 4), (3802, 1)):
        folder = tmp_path_factory.mktemp(f"pen{seed}")
        assert make_photos().main(["--out", str(folder), "--count", str(count), "--seed", str(seed),
                                   "--kinds", "photo-corrected"]) == 0
        out[seed] = folder
    return out


def assert_sure_and_right(photo: Path, db) -> None:
    lines = read_lines(photo, db)
    for want in written_in(photo):
        got = lines[(want["column"], want["row"])]
        assert got.card_id == want["card_id"] and got.count == want["count"], (want, got.text)
        assert "handwritten" in got.flags
        assert got.certainty is not None and got.certainty >= CERTAIN, (want["name"], got.certainty, got.detail)
        assert line_doubt({"card_id": got.card_id, "count": got.count, "certainty": got.certainty})[1] is False


@pytest.mark.slow
@pytest.mark.parametrize("name", ["photo-corrected-01", "photo-corrected-02"])
def test_a_right_written_in_line_its_reads_support_is_not_doubtful(name, demo_db):
    assert_sure_and_right(PHOTOS / f"{name}.jpg", demo_db)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["photo-corrected-02", "photo-corrected-04"])
def test_the_bench_sets_doubtful_right_lines_are_sure_now(name, demo_db, pen_sets):
    """Seed 3535's 무한포영 (read `무간포영`) and 엘리멘틀 히어로 에어맨 (`엘리멘들 히어로 에어맨`):
    0.45 and 0.48 before, a tap each at the station."""
    assert_sure_and_right(pen_sets[3535] / f"{name}.jpg", demo_db)


@pytest.mark.slow
@pytest.mark.parametrize("seed,name,written", [
    (3535, "photo-corrected-04", "엘리멘틀 히어로 에어맨"),  # → 엘리멘틀 히어로 네오스, a rival 0.01 behind
    (3802, "photo-corrected-01", "푸른 눈의 백룡"),  # → 푸른 눈의 아백룡: the reads 3 jamo off it
])
def test_a_wrong_written_in_line_stays_doubtful(seed, name, written, demo_db, pen_sets):
    photo = pen_sets[seed] / f"{name}.jpg"
    want = next(w for w in written_in(photo) if w["name"] == written)
    got = read_lines(photo, without(demo_db, want["card_id"]))[(want["column"], want["row"])]
    assert got.card_id is not None and got.card_id != want["card_id"], got.text
    assert got.certainty is not None and got.certainty < CERTAIN, (got.text, got.certainty, got.detail)
    assert line_doubt({"card_id": got.card_id, "count": got.count, "certainty": got.certainty})[1] is True
