"""Namesakes that differ only in a run of digits or Latin letters (`호루스의 흑염룡 LV6` / `LV8`,
`분보그006` / `분보그004`), told apart by reading that run of the cell again.

On a soft photo the whole-name renderings of such namesakes fit the cell alike (one small glyph
of a dozen differs, and the comparison's windows are a Hangul syllable wide), and `kor` reads
digits beside Hangul poorly (`LV6` → `146`). The run is cut from the cell where the rendering of
the best-fitting name puts it, brought to a height `eng` reads digits and capitals well, and
read with `eng` restricted to ASCII letters and digits at three sizes. A run read exactly as one
namesake's at two sizes or more (and as no other at any), whose own rendering fits the cut run
clearly best among the namesakes' runs, settles the line; any other outcome (a run no namesake
has, sizes disagreeing, the run's rendering not clearly preferring it) leaves the line flagged.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import cv2
import numpy as np

from scanner.ocr.engine import Tesseract
from scanner.ocr.verify import (R_PICK_MARGIN, NameRenderer, Verdict, compare, ink_crop,
                                render_name)

log = logging.getLogger("decksheet.ocr")

RUN = re.compile(r"[A-Za-z0-9\u0370-\u03FF]+")
"""A run that may tell namesakes apart: ASCII letters and digits, or Greek letters
(`PSY프레임기어 γ` / `δ` / `ε`, `마그넷 워리어 α` / `β`)."""
READABLE = re.compile(r"[A-Za-z0-9]+")
"""A run `eng` can read; a Greek one is told by its rendering alone (`kor` reads γ and δ as ε)."""
ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
"""What the run is read with: every digit and letter, not only the namesakes' (a slice of a
neighbouring glyph or a misread then reads as no namesake, never forced onto one)."""
READ_HEIGHTS = (48, 64, 80)
"""Heights (px) the cut run's ink is read at: a soft glyph `eng` misses at one size it often
reads at another."""
READS_AGREEING = 2
"""Reads that must name the same namesake (and none may name another)."""
RUN_FLOOR = 0.45
"""The picked namesake's whole-name rendering must fit the cell at least this well (true names
of soft photos fit at ≥ 0.55; a cell that is not this name at all fits none of them)."""
OUTSIDERS_BEHIND = R_PICK_MARGIN
"""Every rendered candidate outside the namesakes must trail the best one by this much: the
doubt must be only about the run, not about the rest of the name."""
RUN_TEMPLATE_LEAD = 0.05
"""The picked run, drawn alone in the page's font, must fit the cut run best, by this much over
every other namesake's run (on generated soft cells the read run led by ≥ 0.09; the whole-name
renderings of the same cells were as often as not within 0.04)."""

GLYPH_RUN_LEAD = 0.15
"""A run no OCR reads is settled by its rendering alone: it must lead every other namesake's run
by this much…"""
GLYPH_RUN_FLOOR = 0.65
"""…and fit the cut run at least this well. On 936 synthetic soft cells (4 Nanum families,
17–24 px, blur σ 0.8–1.6) the best *wrong* Greek letter fit at most 0.61 (99th percentile 0.57):
with the printed card missing from the database, nothing else passes. True letters on the
fixture photos fit at 0.82–0.84; a third of the harshest synthetic cells settle, the rest stay
flagged."""


@dataclass
class Namesakes:
    """Cards whose names share everything but one run of ASCII letters and digits."""

    prefix: str
    suffix: str
    runs: dict[int, str]
    """card → its run (the part that differs)."""


def namesake_run(names: dict[int, str], top: int, pool: list[int]) -> Namesakes | None:
    """The cards of `pool` (with `top`) that are `top`'s name with another run of ASCII letters
    and digits in place of one of its runs; None when no run of `top`'s name has another card."""
    name = names[top]
    best: Namesakes | None = None
    for m in RUN.finditer(name):
        prefix, suffix = name[:m.start()], name[m.end():]
        runs = {top: m.group()}
        for c in pool:
            other = names[c]
            if c == top or len(other) <= len(prefix) + len(suffix):
                continue
            if other.startswith(prefix) and other.endswith(suffix):
                mid = other[len(prefix):len(other) - len(suffix)]
                if RUN.fullmatch(mid):
                    runs[c] = mid
        if len(runs) > 1 and (best is None or len(runs) > len(best.runs)):
            best = Namesakes(prefix, suffix, runs)
    return best


def _ink_width(text: str, renderer: NameRenderer, family: str) -> int:
    """Width of `text`'s ink drawn in `family` (0 for no ink)."""
    if not text.strip():
        return 0
    r = render_name(text, renderer.families[family])
    return 0 if r is None else r.shape[1]


def run_span(cell_ink: np.ndarray, group: Namesakes, top_run: str, renderer: NameRenderer,
             family: str) -> tuple[int, int] | None:
    """Columns [x0, x1) of the cell's ink that hold the run: where the rendering of the full
    name puts it, scaled to the cell's width (a squeezed name is squeezed evenly), cut halfway
    between the run's ink and its neighbours' ink."""
    full = group.prefix + top_run + group.suffix
    rw = _ink_width(full, renderer, family)
    if rw <= 0:
        return None
    k = cell_ink.shape[1] / rw
    pre_end = _ink_width(group.prefix, renderer, family)
    run_start = rw - _ink_width(top_run + group.suffix, renderer, family)
    run_end = _ink_width(group.prefix + top_run, renderer, family)
    suf_start = rw - _ink_width(group.suffix, renderer, family) if group.suffix.strip() else rw
    x0 = 0.0 if not group.prefix.strip() else (pre_end + run_start) / 2
    x1 = float(rw) if not group.suffix.strip() else (run_end + suf_start) / 2
    a, b = int(round(x0 * k)), int(round(x1 * k))
    if b - a < 3:
        return None
    return max(0, a), min(cell_ink.shape[1], b)


def _stretched(gray: np.ndarray) -> np.ndarray:
    """Ink black, paper white: a soft photo's small glyphs are grey on grey, and `eng`'s own
    threshold then loses thin strokes (`LV7` read `v7`)."""
    lo, hi = np.percentile(gray, 2), np.percentile(gray, 98)
    out = (gray.astype(np.float32) - lo) * (255.0 / max(float(hi - lo), 1.0))
    return np.clip(out, 0, 255).astype(np.uint8)


def _read_run(run_ink: np.ndarray, tess: Tesseract, height: int) -> str:
    """The run read by `eng` (letters and digits only) with its ink brought to `height` px."""
    pad = max(6, height // 4)
    scale = height / max(run_ink.shape[0], 1)
    img = cv2.resize(_stretched(run_ink), None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)
    return "".join(tess.read(img, lang="eng", psm=7, whitelist=ALNUM).text.split())


def _member(read: str, runs: dict[int, str]) -> int | None:
    """The one namesake whose run is `read` (case-folded when the case alone decides nothing)."""
    exact = [c for c, r in runs.items() if r == read]
    if len(exact) == 1:
        return exact[0]
    folded = [c for c, r in runs.items() if r.casefold() == read.casefold()]
    return folded[0] if len(folded) == 1 else None


def settle_by_run(cell_ink: np.ndarray | None, verdict: Verdict, ocr_best: int | None,
                  names: dict[int, str], rivals: list[int], renderer: NameRenderer,
                  tess: Tesseract) -> Verdict | None:
    """A sure verdict when the candidates the rendering could not tell apart are namesakes
    differing in one run of digits/letters and that run, read again, names one of them; else
    None (the caller keeps its flag). `rivals`: the namesakes of the rendering's best (scored
    here when the verdict did not render them)."""
    if cell_ink is None or not verdict.scores or not renderer.usable or not renderer.trusted:
        return None
    scores = dict(verdict.scores)
    top = max(scores, key=scores.get)
    pool = list(dict.fromkeys(list(scores) + list(rivals)))
    group = namesake_run(names, top, pool)
    if group is None or ocr_best not in group.runs:
        return None
    family = renderer.family or _best_family(cell_ink, names[top], renderer)
    if family is None:
        return None
    for c in group.runs:
        if c not in scores:
            lk = renderer.likeness(cell_ink, names[c])
            scores[c] = lk.score if lk is not None else -1.0
    top = max(scores, key=scores.get)
    if top not in group.runs or any(scores[c] > scores[top] - OUTSIDERS_BEHIND
                                    for c in scores if c not in group.runs):
        return None
    span = run_span(cell_ink, group, group.runs[top], renderer, family)
    if span is None:
        return None
    run_ink = ink_crop(cell_ink[:, span[0]:span[1]])
    if run_ink is None:
        return None
    if not all(READABLE.fullmatch(r) for r in group.runs.values()):
        return _settle_by_glyph(run_ink, group, scores, renderer, family)
    reads = [_read_run(run_ink, tess, h) for h in READ_HEIGHTS]
    named = [m for m in (_member(r, group.runs) for r in reads) if m is not None]
    log.debug("namesake run of %s: cut %s, read %s", names[top], span, reads)
    if len(set(named)) != 1 or len(named) < READS_AGREEING:
        return None
    pick = named[0]
    if scores[pick] < RUN_FLOOR:
        return None
    fits = _run_fits(run_ink, group.runs, renderer, family)
    if any(fits[c] > fits[pick] - RUN_TEMPLATE_LEAD for c in fits if c != pick):
        return None
    shown = ", ".join(f"{group.runs[c]} {fits[c]:.2f}" for c in sorted(fits, key=lambda c: -fits[c]))
    return Verdict(pick, True, detail=f"{group.runs[pick]!r} read again in the cell's "
                   f"{group.prefix.strip() or 'start'}… (run rendered: {shown})", scores=scores)


def glyph_run_doubt(cell_ink: np.ndarray | None, card: int, names: dict[int, str], pool: list[int],
                    renderer: NameRenderer) -> str | None:
    """Why a pick of `card` must stay flagged when it has namesakes differing only in a Greek run
    (no OCR model here writes Greek: `kor` reads γ and δ as ε, so neither a read nor the
    whole-name rendering, where one small glyph of a dozen differs, vouches for the letter):
    unless the run drawn alone fits the cell's run clearly best (`_settle_by_glyph`). None when
    `card` has no such namesakes or its run is confirmed."""
    group = namesake_run(names, card, [c for c in pool if c != card])
    if group is None or all(READABLE.fullmatch(r) for r in group.runs.values()):
        return None
    others = ", ".join(names[c] for c in group.runs if c != card)
    if cell_ink is None or not renderer.usable:
        return f"its letter is not confirmed against {others}"
    family = renderer.family or _best_family(cell_ink, names[card], renderer)
    span = run_span(cell_ink, group, group.runs[card], renderer, family) if family else None
    run_ink = ink_crop(cell_ink[:, span[0]:span[1]]) if span is not None else None
    if run_ink is None:
        return f"its letter is not confirmed against {others}"
    settled = _settle_by_glyph(run_ink, group, {card: 1.0}, renderer, family)
    if settled is None or settled.card_id != card:
        return f"its letter is not confirmed against {others} ({settled.detail if settled else 'no clear fit'})"
    return None


def _settle_by_glyph(run_ink: np.ndarray, group: Namesakes, scores: dict[int, float],
                     renderer: NameRenderer, family: str) -> Verdict | None:
    """A sure verdict for namesakes differing in a run no OCR model here reads (Greek): the
    run drawn alone fits the cut run best by GLYPH_RUN_LEAD over every other namesake's run."""
    fits = _run_fits(run_ink, group.runs, renderer, family)
    pick = max(fits, key=fits.get)
    shown = ", ".join(f"{group.runs[c]} {fits[c]:.2f}" for c in sorted(fits, key=lambda c: -fits[c]))
    log.debug("namesake glyph run of %s…: %s", group.prefix, shown)
    if scores.get(pick, -1.0) < RUN_FLOOR or fits[pick] < GLYPH_RUN_FLOOR:
        return None
    if any(fits[c] > fits[pick] - GLYPH_RUN_LEAD for c in fits if c != pick):
        return None
    return Verdict(pick, True, detail=f"{group.runs[pick]!r} told by its rendering in the cell's "
                   f"{group.prefix.strip() or 'start'}… (run rendered: {shown})", scores=scores)


def _run_fits(run_ink: np.ndarray, runs: dict[int, str], renderer: NameRenderer,
              family: str) -> dict[int, float]:
    """Likeness of the cut run and each namesake's run drawn alone in the page's font."""
    out = {}
    for c, run in runs.items():
        r = render_name(run, renderer.families[family])
        out[c] = compare(run_ink, r, blur=renderer.blur).score if r is not None else -1.0
    return out


def _best_family(cell_ink: np.ndarray, name: str, renderer: NameRenderer) -> str | None:
    """The family whose rendering of `name` fits the cell best (the page's font not yet known)."""
    best, fam = -2.0, None
    for f in renderer.families:
        r = renderer.rendered(name, f)
        if r is None:
            continue
        s = compare(cell_ink, r, blur=renderer.blur).score
        if s > best:
            best, fam = s, f
    return fam
