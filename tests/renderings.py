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
