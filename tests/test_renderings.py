"""Self-consistency: a clean rendering of a text-layer sheet reads by OCR as its text layer reads.

Any PDF is ground truth for its own picture, so this never runs out of data: the shipped samples
(always) and a sample of the shared fixtures' text sheets (with ../shared), each drawn by poppler
and by pdfium at 150, 200 or 300 dpi as PNG or JPEG — no paper edge, no noise, what a flatbed
scan or "save as image" gives. Every rendering must be read (never refused), nothing stated
that the text layer does not say (no silent line), and at least 99 % of the lines right and
unflagged. The whole matrix (every sheet × renderer × dpi × format) is `bench/bench_renderings.py`.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from renderings import DPIS, FORMATS, RENDERERS, agreement, render, write_image
from scanner.errors import DecksheetError
from scanner.read import load_decklist

REPO = Path(__file__).resolve().parent.parent
SAMPLE_TEXT_SHEETS = ("db-blue-eyes-gothic.pdf", "db-hero-square.pdf",
                      "db-sky-striker-myeongjo.pdf", "kde-flat-hero.pdf")
FIXTURE_TEXT_SHEETS = ("db-ko-06.pdf", "db-ko-09.pdf", "db-ko-12.pdf", "kde-flat-03.pdf",
                       "kde-flat-04.pdf", "kde-form-04.pdf")
"""Not the sheets the reader was tuned on (db-ko-01..04, kde-flat-01/02)."""
COMBOS = list(itertools.product(RENDERERS, DPIS, FORMATS))


def _cases(names: tuple[str, ...], start: int, per_sheet: int) -> list[tuple[str, tuple]]:
    """Each sheet with `per_sheet` renderer/dpi/format combinations, rotating so the sheets
    together cover every combination."""
    out = []
    for i, name in enumerate(names):
        for j in range(per_sheet):
            out.append((name, COMBOS[(start + i * per_sheet + j) % len(COMBOS)]))
    return out


def _check(pdf: Path, combo: tuple[str, int, str], db, tmp_path: Path) -> None:
    renderer, dpi, fmt = combo
    truth = load_decklist(pdf, db)
    assert sum(len(v) for v in truth.sections.values()) >= 10, f"{pdf.name}: text layer too small"
    image = write_image(render(pdf, renderer, dpi), tmp_path / f"{pdf.stem}-{renderer}-{dpi}", fmt)
    try:
        read, refused = load_decklist(image, db), None
    except DecksheetError as exc:
        read, refused = None, str(exc)
    got = agreement(truth, read, refused)
    label = f"{pdf.name} by {renderer} at {dpi} dpi as {fmt}"
    assert got.refused is None, f"{label}: refused: {got.refused}"
    assert got.silent == 0, f"{label}: stated what the page does not say: {got.diffs}"
    assert got.right >= 0.99 * got.lines, (
        f"{label}: {got.right}/{got.lines} right, {got.flagged} flagged, {got.missing} missing: "
        f"{got.diffs}")


@pytest.mark.slow
@pytest.mark.parametrize("name,combo", _cases(SAMPLE_TEXT_SHEETS, 0, 3),
                         ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v)))
def test_sample_rendering_reads_as_its_text_layer(name, combo, demo_db, tmp_path):
    _check(REPO / "samples" / "sheets" / name, combo, demo_db, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name,combo", _cases(FIXTURE_TEXT_SHEETS, 5, 1),
                         ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v)))
def test_fixture_rendering_reads_as_its_text_layer(name, combo, fixtures_dir, real_db, tmp_path):
    _check(fixtures_dir / "sheets" / name, combo, real_db, tmp_path)
