"""Konami's form filled by hand, photographed in ways that once left it without a layout
(issue 35): the form is found, its rows where the paper has them, and no row read that has
nothing written in it.

- A page whose corners name no known paper (`perspective.paper_aspect`: a cropped or zoomed
  photo, corners a little off, a strong tilt) is warped to the aspect they say: the print on
  it is squeezed, and a fit at the paper's own aspect lands on no form (the Chinese form's
  smaller rows fitted instead, rows off: no line given, a retake asked). The fit also tries
  each known paper's squeeze (`PageImage.unknown_aspect`).
- A small sheet far off in a landscape photo is blurred; its faint print is darkened
  (`form_fit.darken_faint_ink`), and with it the dashed bits of the rules round every empty
  row: a row with ink only along its cell edges is empty (`rows.inner_ink`).

The forms are made by the held-out generator (samples/kde_paper.py, as make_photos --kinds
kde-hand does) on Konami's blank KDE_DeckList.pdf from ../shared/forms; the photo's geometry
is set here, to be the class named."""
from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from needs import require
from sample_makers import kde_paper, make_photos, small_hand_deck
from scoring import score_scan

pytest.importorskip("tesserocr")

DPI = 200


def _hand_page(tmp_path: Path, db, seed: int) -> tuple[np.ndarray, dict, set[tuple[str, int]]]:
    """A small deck of the demo database written by hand on the form printed on A4 (RGB at
    `DPI`), its truth (`score_scan`'s) and the rows written."""
    mp, kp = make_photos(), kde_paper()
    require(kp.KDE_FORM.is_file(), f"needs {kp.KDE_FORM} (Konami's blank form in ../shared/forms)")
    require(kp.PEN_FONTS["NanumPen"].is_file(), "needs the Nanum Pen Script font")
    deck = small_hand_deck(db)
    page, _ = kp.kde_page(deck, "NanumGothic", 9.0, DPI, np.random.default_rng(seed), tmp_path, hand_mode="all")
    ids = {n: db.by_name(n).card_id for col in deck.columns.values() for n, _ in col}
    final = mp.deck_counts(deck.columns, ids)
    truth = {s: {str(k): v for k, v in final[s].items()} for s in ("main", "extra", "side")}
    rows = {(c, r) for c, lines in deck.columns.items() for r in range(1, len(lines) + 1)}
    return page, truth, rows


def _photo(page: np.ndarray, path: Path, frame: tuple[int, int], width: float, aspect: float,
           turn_deg: float, seed: int, blur: float) -> Path:
    """The page photographed straight from above, saved as a JPEG (quality 70) at `path`:
    `width` pixels wide and `aspect` times that high in a (height, width) `frame`, turned by
    `turn_deg`, on a desk, blurred by `blur`, noisy."""
    mp = make_photos()
    rng = np.random.default_rng(seed)
    fh, fw = frame
    w, h = width, width * aspect
    a = math.radians(turn_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]) @ rot.T
    corners += [fw / 2, fh / 2]
    ph, pw = page.shape[:2]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]]), corners.astype(np.float32))
    paper = page.astype(np.float32) * np.float32([0.96, 0.95, 0.9])
    warped = cv2.warpPerspective(paper, m, (fw, fh), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.ones((ph, pw), np.float32), m, (fw, fh), flags=cv2.INTER_LINEAR)
    img = mp.background(fh, fw, "gradient", rng) * (1 - mask[..., None]) + warped * mask[..., None]
    img = cv2.GaussianBlur(img, (0, 0), blur)
    img = np.clip(img + rng.normal(0, 2.5, img.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 70])
    assert ok
    path.write_bytes(buf.tobytes())
    return path


def _read(path: Path, db) -> dict:
    from scanner.read import ReadOptions, load_decklist
    return load_decklist(path, db, ReadOptions()).to_json()


SQUEEZED = dict(frame=(3000, 2250), width=1900, aspect=1.24, turn_deg=1.5, blur=0.8)
"""A4 paper whose corners say 1.24 (no paper's aspect: Letter's is 1.29): the form's rows on the
page warped to it are squeezed to 0.88 of their pitch."""
SMALL = dict(frame=(1704, 2272), width=1000, aspect=297 / 210, turn_deg=2.3, blur=1.2)
"""A portrait sheet 1000 px wide in a landscape photo, soft: its print is darkened."""


def _lines_at(out: dict) -> set[tuple[str, int]]:
    return {(e["column"], e["row"]) for sec in out["sections"].values() for e in sec}


def test_a_form_on_a_page_of_no_known_paper_is_fitted_on_its_own_rows(tmp_path, demo_db):
    from scanner.ocr.layouts import KDE
    from scanner.ocr.orient import downscale
    from scanner.ocr.page import load_image
    from scanner.ocr.pipeline import locate
    page, _, _ = _hand_page(tmp_path, demo_db, 3)
    img, _ = downscale(load_image(_photo(page, tmp_path / "squeezed.jpg", seed=3, **SQUEEZED)))
    got = locate(img, is_scan=False)
    assert got.page.unknown_aspect == pytest.approx(SQUEEZED["aspect"], abs=0.02)
    assert got.layout is KDE, got.layout.name
    assert got.fit.sy / got.fit.sx == pytest.approx(SQUEEZED["aspect"] / (297 / 210), abs=0.02)
    monster = got.grid.by_kind("monster")
    title = float(np.median(monster.title.crop(got.page.gray, inset=6)))
    row1 = float(np.median(monster.rows[0].name.crop(got.page.gray, inset=6)))
    assert row1 - title > 25  # the grey title above row 1, not a row of it
    assert len(monster.rows) == 18 and len(got.grid.by_kind("side").rows) == 15


def test_a_squeezed_hand_form_gives_its_lines_where_they_are_written(tmp_path, demo_db):
    page, truth, rows = _hand_page(tmp_path, demo_db, 3)
    out = _read(_photo(page, tmp_path / "squeezed.jpg", seed=3, **SQUEEZED), demo_db)
    assert _lines_at(out) == rows
    s = score_scan(out, truth)
    assert s["silent"] == 0 and s["missing"] == 0, s["errors"]
    assert s["correct"] >= 0.8 * s["lines"], s
    assert not any(r["reason"] == "retake" for r in out["review"])


def test_a_fit_rows_off_on_a_squeezed_form_is_a_retake_not_a_list(tmp_path, demo_db, monkeypatch):
    """Without the known papers' squeeze, the Chinese form's smaller rows fit the page two rows
    off (row 1 on the ID's line, reading `) GAME ID:  71712 …`): no line may be given from it —
    before, two lines of it were accepted unflagged, wrong."""
    from scanner.ocr import form_fit
    plain = form_fit.y_scales
    monkeypatch.setattr(form_fit, "y_scales", lambda tuning=form_fit.FORM_FIT, unknown_aspect=None: plain(tuning))
    page, truth, _ = _hand_page(tmp_path, demo_db, 3)
    out = _read(_photo(page, tmp_path / "squeezed.jpg", seed=3, **SQUEEZED), demo_db)
    assert not _lines_at(out)
    assert [r["reason"] for r in out["review"]].count("retake") == 1
    assert score_scan(out, truth)["silent"] == 0


def test_a_small_soft_hand_form_reads_no_empty_row(tmp_path, demo_db):
    """Its darkened print darkens the rules' dashed bits round every empty row too: before,
    three empty rows of this sheet were read as lines of garbage."""
    page, truth, rows = _hand_page(tmp_path, demo_db, 3)
    out = _read(_photo(page, tmp_path / "small.jpg", seed=3, **SMALL), demo_db)
    assert _lines_at(out) == rows
    assert score_scan(out, truth)["silent"] == 0


def test_ink_only_along_a_cells_edges_is_no_writing():
    from scanner.ocr.ink import ink_share
    from scanner.ocr.rows import inner_ink
    from scanner.ocr.thresholds import EMPTY_INK
    cell = np.full((40, 430), 250, np.uint8)
    cell[1, ::3] = 90  # a rule's dashes along the top edge, and along the bottom one
    cell[39, 5:300:2] = 100
    assert ink_share(cell) >= EMPTY_INK and inner_ink(cell, across=False) < EMPTY_INK
    count = np.full((40, 38), 250, np.uint8)
    count[:, 1] = 80  # a column rule's sliver at the count cell's side
    assert ink_share(count) >= EMPTY_INK and inner_ink(count) < EMPTY_INK
    short = cell.copy()
    short[12:30, 2:40] = 30  # a short name written at the cell's left end
    assert inner_ink(short, across=False) >= EMPTY_INK
    digit = count.copy()
    digit[10:30, 15:20] = 30
    assert inner_ink(digit) >= EMPTY_INK
