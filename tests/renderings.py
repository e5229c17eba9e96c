"""Clean renderings of text-layer PDFs, and their reads compared with the text layer's.

Any PDF with a text layer (or form values) is ground truth for its own rendering: what the
text reader finds on the page, the OCR reader must find on a picture of that page. Benchmarks
(`bench/bench_renderings.py`) and the slow tests share this one implementation.
"""
from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from scanner.model import SECTIONS, Decklist

RENDERERS = ("poppler", "pdfium")
FORMATS = ("png", "jpg")
DPIS = (150, 200, 300)


def render(pdf: Path, renderer: str, dpi: int) -> np.ndarray:
    """Page 1 of `pdf` as a BGR image, drawn by poppler (pdftoppm) or pdfium (pypdfium2)."""
    if renderer == "poppler":
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["pdftoppm", "-r", str(dpi), "-f", "1", "-l", "1", "-png", str(pdf),
                            f"{tmp}/p"], check=True, capture_output=True)
            out = next(Path(tmp).glob("p*.png"))
            return cv2.imread(str(out), cv2.IMREAD_COLOR)
    if renderer == "pdfium":
        import pypdfium2 as pdfium

        doc = pdfium.PdfDocument(str(pdf))
        try:
            doc.init_forms()  # or the form fields' values are not drawn
            page = doc[0]
            bitmap = page.render(scale=dpi / 72, may_draw_forms=True)
            rgb = bitmap.to_numpy()[:, :, :3].copy()  # BGRx as pdfium hands it
            page.close()
        finally:
            doc.close()
        return np.ascontiguousarray(rgb)
    raise ValueError(renderer)


def write_image(img: np.ndarray, path: Path, fmt: str) -> Path:
    path = path.with_suffix("." + fmt)
    params = [cv2.IMWRITE_JPEG_QUALITY, 90] if fmt == "jpg" else []
    if not cv2.imwrite(str(path), img, params):
        raise OSError(f"cannot write {path}")
    return path


def deck_lines(deck: Decklist) -> dict[str, dict[int, int]]:
    """Unflagged (card, count) per section, over resolved lines."""
    out: dict[str, dict[int, int]] = {}
    for section in SECTIONS:
        got: dict[int, int] = {}
        for e in deck.sections.get(section, []):
            if e.card_id is not None and not e.needs_review:
                got[e.card_id] = got.get(e.card_id, 0) + e.count
        out[section] = got
    return out


@dataclass
class Agreement:
    """How a rendering's OCR read compares with the same page's text layer."""

    lines: int = 0
    right: int = 0
    """Lines of the text layer read the same (card and count) and not flagged."""
    flagged: int = 0
    silent: int = 0
    """Lines the OCR read stated unflagged and differently: the worst outcome."""
    missing: int = 0
    refused: str | None = None
    diffs: list[str] = field(default_factory=list)


def agreement(truth: Decklist, read: Decklist | None, refused: str | None = None) -> Agreement:
    """Score `read` (an OCR decklist) against `truth` (the text layer's), line by line."""
    res = Agreement(refused=refused)
    want = {s: truth.counts(s) for s in SECTIONS}
    res.lines = sum(len(v) for v in want.values())
    if read is None:
        res.missing = res.lines
        return res
    flagged_ids = {(s, e.card_id) for s in SECTIONS for e in read.sections.get(s, [])
                   if e.card_id is not None and e.needs_review}
    sheet_flags = {(r.section, r.card_id) for r in read.review if r.card_id is not None}
    got = deck_lines(read)
    unknown_flags = sum(1 for s in SECTIONS for e in read.sections.get(s, []) if e.card_id is None)
    for s in SECTIONS:
        for cid, n in want[s].items():
            if (s, cid) in flagged_ids or (s, cid) in sheet_flags:
                res.flagged += 1
            elif got[s].get(cid) == n:
                res.right += 1
            elif cid in got[s]:
                res.silent += 1
                res.diffs.append(f"{s} {cid}: {got[s][cid]} ≠ {n}")
            else:
                res.missing += 1
                res.diffs.append(f"{s} {cid} ×{n} missing")
        for cid in got[s]:
            if cid not in want[s]:
                res.silent += 1
                res.diffs.append(f"{s} {cid} ×{got[s][cid]} not on the page")
    if unknown_flags:
        res.diffs.append(f"{unknown_flags} unresolved line(s) flagged")
    return res


# --- sheets made here from real decks, in the generators' styles ------------------------------

SHEET_KINDS = ("db", "kde-flat", "kde-form", "cn-flat", "cn-form")
ROWS = {"db": {"monster": 20, "spell": 20, "trap": 20, "extra": 15, "side": 15},
        "kde": {"monster": 18, "spell": 18, "trap": 18, "extra": 15, "side": 15},
        "cn": {"monster": 20, "spell": 20, "trap": 20, "extra": 15, "side": 15}}


def fits_form(deck, kind: str) -> bool:
    """The deck's lines fit the form's rows (a long deck does not fit Konami's 18-row columns)."""
    rows = ROWS[kind.split("-")[0]]
    return all(len(deck.columns.get(c, [])) <= n for c, n in rows.items())


def make_sheet(ms, kind: str, deck, rng, out: Path, cn_template: Path | None) -> Path:
    """`deck` drawn as a sheet of `kind` (`SHEET_KINDS`) by the samples' generator, in a style
    picked by `rng` (fonts, sizes, offsets, row heights, grid greys)."""
    family = rng.choice(tuple(ms.FONTS))
    if kind == "db":
        style = ms.DbStyle(
            family=family, size=rng.choice((8.0, 8.5, 9.0, 9.5, 10.0)),
            dx=round(rng.uniform(-6, 6), 2), dy=round(rng.uniform(-5, 5), 2),
            row_h=round(rng.uniform(13.9, 16.0), 2), entry_no=rng.random() < 0.75,
            glue_row_numbers=rng.random() < 0.25, entry_field=rng.random() < 0.5,
            footer=rng.random() < 0.6, grid_gray=rng.choice((0.0, 0.2, 0.35)),
            header_fill=rng.choice((0.82, 0.88, 0.93)), rownum_size=rng.choice((6.0, 6.5)))
        ms.draw_db_sheet(out, deck, style)
    elif kind.startswith("kde"):
        ms.draw_kde_sheet(out, deck, filled=kind.endswith("form"), family=family,
                          size=rng.choice((8.0, 8.5, 9.0, 9.5)))
    else:
        assert cn_template is not None
        ms.draw_cn_sheet(cn_template, out, deck, filled=kind.endswith("form"), family=family,
                         size=rng.choice((8.0, 8.5, 9.0)))
    return out


def renderer_for(kind: str, rng) -> tuple[str, int, str]:
    """A renderer, dpi and format; a form's values without appearance streams are drawn by
    pdfium only (poppler has no font for Hangul form values: an empty form, not a test)."""
    renderer = "pdfium" if kind.endswith("form") else rng.choice(RENDERERS)
    return renderer, rng.choice(DPIS), rng.choice(FORMATS)


def values_drawn(pdf: Path) -> bool:
    """Every filled form field of the PDF carries its own appearance (what any renderer draws).
    A field with a value and no appearance is drawn by pdfium (it makes one) but not by poppler,
    which has no font for Hangul values: such a poppler rendering shows an empty form and is no
    picture of the sheet."""
    import pypdf

    for page in pypdf.PdfReader(str(pdf)).pages:
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            if annot.get("/Subtype") != "/Widget":
                continue
            value = annot.get("/V")
            if value is None and annot.get("/Parent") is not None:
                value = annot["/Parent"].get_object().get("/V")
            if value not in (None, "") and "/AP" not in annot:
                return False
    return True
