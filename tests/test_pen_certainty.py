"""A card name written by pen on a printed sheet is as sure as the hand reader's evidence says
(issue 35, `scanner/ocr/pen_names.py`): a right written-in line its reads support comes above
the station's doubt mark, a wrong one stays below it (real reads of the project's generated
pen-corrected photos, samples/photos/)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from scanner.read import ReadOptions, read_input
from scanner.web.glance import CERTAIN, line_doubt

PHOTOS = Path(__file__).resolve().parent.parent / "samples" / "photos"


def written_in(name: str) -> list[dict]:
    """The truth's lines written by pen in an empty row of the sheet `name`."""
    truth = json.loads((PHOTOS / f"{name}.truth.json").read_text(encoding="utf-8"))
    return [{"column": c["column"], **c["written"]} for c in truth["corrections"] if c["type"] == "replace-row"]


def read_lines(name: str, db) -> dict:
    sheet, _ = read_input(PHOTOS / f"{name}.jpg", db, ReadOptions())
    return {(ln.column, ln.row): ln for ln in sheet.lines}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["photo-corrected-01", "photo-corrected-02"])
def test_a_right_written_in_line_its_reads_support_is_not_doubtful(name, demo_db):
    lines = read_lines(name, demo_db)
    for want in written_in(name):
        got = lines[(want["column"], want["row"])]
        assert got.card_id == want["card_id"] and got.count == want["count"], (want, got.text)
        assert "handwritten" in got.flags
        # before: the rendering check (which no hand passes) left it at score × 0.5, ≤ 0.5
        assert got.certainty is not None and got.certainty >= CERTAIN, (want["name"], got.certainty, got.detail)
        item = {"card_id": got.card_id, "count": got.count, "certainty": got.certainty}
        assert line_doubt(item)[1] is False


@pytest.mark.slow
def test_a_wrong_written_in_line_stays_doubtful(demo_db):
    """The written card missing from the card database: the reader can only name another card,
    and that line must stay under the doubt mark."""
    name = "photo-corrected-02"
    want = written_in(name)[0]
    db = dataclasses.replace(demo_db, cards={k: v for k, v in demo_db.cards.items() if k != want["card_id"]})
    got = read_lines(name, db)[(want["column"], want["row"])]
    assert got.card_id != want["card_id"]
    assert got.certainty is None or got.certainty < CERTAIN, (got.text, got.certainty, got.detail)
