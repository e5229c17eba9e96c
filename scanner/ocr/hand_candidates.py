"""A written card name's candidates proposed by its ink, whatever Tesseract read.

`hand_names.fuse` ranks the cards the reads propose; on most wrong written names the right card
is none of them (Tesseract's `kor` reads a hand as a near-miss of some other card). This module
proposes cards from the ink itself: every card of the column's pool is laid along the written
name at its printed advances (as `hand_syllables.name_cuts` lays one candidate; each cut moved
to the column of least ink nearby), each Hangul syllable's piece of ink is compared with that
syllable drawn in the tuning hands (`hand_syllables.NAME_FONTS`: their mean drawing per
syllable; shipped, `hand_syllables.shipped_drawings`), and a card's likeness is the mean over its syllables. Places along the ink
are taken on a grid (`InkSearchTuning.places`), so the whole pool shares a few hundred pieces:
their features are taken once, compared with every syllable in one matrix product, and each
card's likeness is a sum of looked-up entries. Cards mostly lettered (`VS`, `No.39`, `E・HERO`:
`InkSearchTuning.latin_share`) are compared by their Latin letters and digits too (drawn in the
same hands, shipped beside the syllables); the few the whole pool's pass likes best are measured
again on a finer grid (a letter is a narrow piece) and the best joins as one more proposal, the
others keeping their Hangul-only ranking.

Only a proposal: the cards found join the reads' candidates and are scored by the same fused
evidence (reads, width, ink likeness); `fuse` marks a first answer that no read proposed, and
`evidence.py` never accepts such a line unflagged.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from scanner.ocr.hand_syllables import (BINS, CELLS, GRID, LATIN_DRAWN, NAME_SHAPE, TUNING, SyllableTuning, _advance_font,
                                        _is_syllable, shipped_means, syllable_drawings)

@dataclass(frozen=True)
class InkSearchTuning:
    """How the column's pool is searched by the written name's ink."""

    places: int = 32
    """Cuts between syllables are placed on this many steps of the ink's width (a card's
    printed advances rounded to them: the pool shares its pieces; tuning faces, before the
    width term: 32, 48, 64 steps → 737, 735, 735 of 902 names right first, 32 the cheapest)."""
    proposals: int = 2
    """Cards the search adds to the reads' candidates (2, 3, 5 → 750, 751, 753: each costs an
    ink and a syllable comparison a search, ≈ 4 ms)."""
    latin: bool = True
    """Latin letters and digits are compared too, each with its drawings in the tuning hands
    (`hand_syllables.LATIN_DRAWN`): a name mostly lettered (`VS`, `No.39`, `E・HERO`) is found by
    its ink as a Hangul one is. False: only Hangul syllables are (the eighth round)."""
    fold_case: bool = False
    """A letter is compared with its upper-case drawing, however the name prints it (True: 27
    of 72 lettered names written in three tuning hands first, against 42 as printed)."""
    latin_places: int = 64
    """The `latin_recheck` lettered cards (`latin_share`) the search likes best are measured
    again on this many steps (each letter is a narrow piece: 72 lettered names written in three
    tuning hands, the whole pool on 32 / 48 / 64 / 96 steps: first 24 / 37 / 42 / 46, 22
    Hangul only; 64 for the whole pool cost 2.3× the search)."""
    latin_share: float = 0.4
    """…a card is lettered when more than this share of its compared characters are Latin
    letters or digits."""
    latin_recheck: int = 6
    """…this many."""
    latin_proposals: int = 1
    """Lettered cards (`latin_share`) the search adds besides its `proposals` (which are ranked
    by their Hangul syllables alone, as before letters were compared: a few letters ranked among
    syllables pushed right Hangul cards out on the tuning forms); 0: none."""
    least_syllables: int = 2
    """Cards with fewer compared characters (syllables, and letters and digits with `latin`) are not proposed (one piece matches too easily; 1:
    734 against 735, before the width term)."""
    other_likeness: float | None = None
    """A character of a name that is neither Hangul nor a space (Latin letters, digits, marks:
    no drawing of them) counts as this likeness in the card's mean; None: only the Hangul
    syllables are (0.35-0.55 put 739-747 of the tuning sets' 902 names right first, against
    751 not counted)."""
    width_weight: float = 0.2
    """Likeness a card loses per unit of log width ratio off the page's hand (its printed width
    against the ink's, `hand_names.fuse`'s measure): a short name's few pieces, each several
    written syllables squeezed, would otherwise look like anything (0, 0.1, 0.2, 0.3, 0.4 →
    737, 747, 751, 751, 739)."""


INK_SEARCH = InkSearchTuning()
SPACES = np.array([ord(c) for c in " \u3000"], np.uint32)
"""Characters that are a gap in the writing, not a character compared or counted."""


@lru_cache(maxsize=4096)
def mean_drawing(ch: str) -> np.ndarray | None:
    """`ch`'s drawings in the tuning hands (`hand_syllables.syllable_drawings`), averaged, unit
    length (None: no font draws it)."""
    drawn = syllable_drawings(ch)
    if drawn is None:
        return None
    m = drawn.mean(axis=0)
    return (m / max(1e-6, float(np.linalg.norm(m)))).astype(np.float32)


@dataclass(frozen=True)
class PoolLayout:
    """A column pool's cards laid out for the search: one entry per (card, compared character)."""

    ids: np.ndarray
    """The pool's card ids."""
    card: np.ndarray
    """Each entry's card (index into `ids`)."""
    syllable: np.ndarray
    """Each entry's syllable (index into `drawings`)."""
    start: np.ndarray
    end: np.ndarray
    """Each entry's place along the name, in steps of `grid` (0..grid)."""
    half_start: np.ndarray
    half_end: np.ndarray
    """Half the window (steps) a cut at `start` / `end` moves within (from the name's advances)."""
    syllables_per_card: np.ndarray
    """Each card's compared characters (entries)."""
    letter: np.ndarray
    """Whether each entry is a Latin letter or digit (else a Hangul syllable)."""
    hangul_per_card: np.ndarray
    """Each card's Hangul syllables (entries not `letter`)."""
    width: np.ndarray
    """Each card's printed width per pixel of font size (`hand_names.name_width`'s measure)."""
    others: np.ndarray
    """Each card's characters neither compared nor space."""
    drawings: np.ndarray
    """Mean drawing of each syllable (rows, unit length)."""
    grid: int
    """Steps of the ink's width the places are on (`InkSearchTuning.latin_places`)."""


@dataclass(frozen=True)
class NamesLayout:
    """Every name of a vocabulary laid out once: one entry per (card, Hangul syllable)."""

    ids: np.ndarray
    card: np.ndarray
    syllable: np.ndarray
    start: np.ndarray
    end: np.ndarray
    half_start: np.ndarray
    half_end: np.ndarray
    """Places as shares of the name's printed width (0..1), windows likewise."""
    width: np.ndarray
    """Each card's printed width per pixel of font size."""
    others: np.ndarray
    """Each card's characters neither compared nor space."""
    latin: np.ndarray
    """Each card's share of compared characters that are Latin letters or digits."""
    letter: np.ndarray
    """Whether each entry is a Latin letter or digit."""
    drawings: np.ndarray


_NAMES: dict[tuple[int, bool, bool], tuple[dict, NamesLayout | None]] = {}
_POOLS: dict[tuple, tuple[list[int], PoolLayout | None]] = {}


def names_layout(names: dict[int, str], latin: bool = INK_SEARCH.latin, fold_case: bool = INK_SEARCH.fold_case) -> NamesLayout | None:
    """`names` laid out (kept per names dict: a page's vocabulary shares the database's); `latin`,
    `fold_case`: `InkSearchTuning`'s."""
    key = (id(names), latin, fold_case)
    got = _NAMES.get(key)
    if got is not None and got[0] is names:
        return got[1]
    layout = _build_names(names, latin, fold_case)
    _NAMES[key] = (names, layout)
    return layout


def _compared(ch: str, latin: bool, fold_case: bool) -> str | None:
    """The drawn character `ch` is compared with (None: not compared)."""
    if _is_syllable(ch):
        return ch
    if latin and ch in LATIN_DRAWN:
        return ch.upper() if fold_case else ch
    return None


def _build_names(names: dict[int, str], latin: bool, fold_case: bool) -> NamesLayout | None:
    font = _advance_font()
    items = [(cid, n) for cid, n in names.items() if n]
    if font is None or not items:
        return None
    lens = np.array([len(n) for _, n in items])
    cp = np.frombuffer("".join(n for _, n in items).encode("utf-32-le"), np.uint32)
    uniq, inv = np.unique(cp, return_inverse=True)
    adv = np.array([max(1.0, font.getlength(chr(c))) for c in uniq], np.float64)[inv]
    card = np.repeat(np.arange(len(items)), lens)
    first = np.concatenate([[0], np.cumsum(lens)[:-1]])
    cum = np.cumsum(adv)
    base = (cum - adv)[first][card]
    total = np.add.reduceat(adv, first)[card]
    start, end = (cum - adv - base) / total, (cum - base) / total
    # a cut's window: NAME_SHAPE.cut_window of its two neighbours' mean advance (name_cuts)
    prev = np.concatenate([[0.0], adv[:-1]])
    nxt = np.concatenate([adv[1:], [0.0]])
    half_start = NAME_SHAPE.cut_window * (prev + adv) / 2 / total
    half_end = NAME_SHAPE.cut_window * (adv + nxt) / 2 / total
    shipped, means = shipped_means()
    at = {ch: k for k, ch in enumerate(shipped)}
    rows: list[np.ndarray] = list(means)
    row_of = np.full(len(uniq), -1, np.int64)
    compared = np.zeros(len(uniq), bool)
    for k, c in enumerate(uniq):
        ch = _compared(chr(c), latin, fold_case)
        if ch is None:
            continue
        compared[k] = True
        if ch in at:
            row_of[k] = at[ch]
        else:
            d = mean_drawing(ch)  # a syllable a later database added
            if d is not None:
                row_of[k] = len(rows)
                rows.append(d)
    syl = row_of[inv]
    keep = syl >= 0
    lettered = np.array([chr(c) in LATIN_DRAWN for c in uniq], bool)[inv] & keep
    latin_share = np.bincount(card, weights=lettered, minlength=len(items)) / np.maximum(1, np.bincount(card, weights=keep, minlength=len(items)))
    if not rows:
        return None
    return NamesLayout(np.array([cid for cid, _ in items]), card[keep], syl[keep], start[keep], end[keep],
                       half_start[keep], half_end[keep], np.add.reduceat(adv, first) / font.size,
                       np.bincount(card, weights=~compared[inv] & ~np.isin(cp, SPACES), minlength=len(items)),
                       latin_share, lettered[keep], np.array(rows, np.float32))


def pool_layout(ids: list[int], names: dict[int, str], tuning: InkSearchTuning = INK_SEARCH,
                fine: bool = False) -> PoolLayout | None:
    """The pool `ids` laid out (kept per pool list: a page's columns share the database's);
    `fine`: only its lettered cards, on `latin_places` steps."""
    key = (id(ids), tuning.places, tuning.latin, tuning.fold_case, tuning.latin_places, tuning.latin_share, fine)
    got = _POOLS.get(key)
    if got is not None and got[0] is ids:
        return got[1]
    layout = _pool_of(ids, names_layout(names, tuning.latin, tuning.fold_case), tuning, fine)
    _POOLS[key] = (ids, layout)
    return layout


def _pool_of(ids: list[int], every: NamesLayout | None, tuning: InkSearchTuning, fine: bool = False) -> PoolLayout | None:
    if every is None:
        return None
    at = {int(cid): k for k, cid in enumerate(every.ids)}
    where = np.full(len(every.ids), -1, np.int64)
    for k, cid in enumerate(ids):
        if cid in at:
            where[at[cid]] = k
    pos = where[every.card]
    keep = pos >= 0
    card = pos[keep].astype(np.int32)
    width = np.full(len(ids), np.nan)
    width[where[where >= 0]] = every.width[where >= 0]
    others = np.zeros(len(ids))
    others[where[where >= 0]] = every.others[where >= 0]
    q = tuning.latin_places if fine else tuning.places
    lettered = every.latin[every.card] > tuning.latin_share
    # fine: only the lettered cards, on the finer grid; else a letter only of a lettered card
    keep = keep & lettered if fine else keep & (~every.letter | lettered)
    card = pos[keep].astype(np.int32)

    def steps(x: np.ndarray, least: int = 0) -> np.ndarray:
        return np.maximum(least, np.rint(x * q)).astype(np.int32)
    letter = every.letter[keep]
    return PoolLayout(np.asarray(ids), card, every.syllable[keep].astype(np.int32),
                      steps(every.start[keep]), steps(every.end[keep]),
                      steps(every.half_start[keep], 1), steps(every.half_end[keep], 1),
                      np.bincount(card, minlength=len(ids)).astype(np.int32), letter,
                      np.bincount(card, weights=~letter, minlength=len(ids)).astype(np.int32), width, others, every.drawings, q)


def cut_table(mask: np.ndarray, places: int, halves: np.ndarray) -> np.ndarray:
    """table[h, p]: the column of least ink (smoothed over three) within `h` steps of step `p`
    along the ink (`hand_syllables.least_ink_cuts` for a place on the grid); 0 and the width at
    the ends."""
    w = mask.shape[1]
    col = np.convolve(mask.sum(axis=0).astype(np.float32), np.ones(3, np.float32) / 3, mode="same")
    step = w / places
    centre = np.arange(places + 1) * step
    table = np.zeros((int(halves.max()) + 1, places + 1), np.int32)
    inner = centre[1:places]
    padded = np.append(col, np.inf)
    for h in np.unique(halves):
        # each step's window at once: its columns, those past its end read as +inf (argmin: the first least)
        lo = np.maximum(1, (inner - h * step).astype(np.int64))
        hi = np.minimum(w - 1, (inner + h * step).astype(np.int64) + 1)
        span = max(1, int((hi - lo).max()))
        at = lo[:, None] + np.arange(span)[None, :]
        vals = padded[np.where(at < hi[:, None], at, w)]
        table[h, 1:places] = np.where(hi > lo, lo + np.argmin(vals, axis=1), inner.astype(np.int64))
        table[h, places] = w
    return table


def pieces_features(mask: np.ndarray, pieces: np.ndarray, tuning: SyllableTuning = TUNING) -> np.ndarray:
    """`hand_syllables.syllable_features` of each column range (a, b) of the ink, unit length,
    taken together (one histogram pass for all)."""
    n = len(pieces)
    gx = np.zeros((n, GRID, GRID), np.float32)
    gy = np.zeros_like(gx)
    dens = np.zeros((n, CELLS * CELLS), np.float32)
    colink = mask.any(axis=0)
    m32 = mask.astype(np.float32)
    box = np.zeros((GRID, GRID), np.float32)
    for i, (a, b) in enumerate(pieces):
        xs = np.flatnonzero(colink[a:b])
        if not len(xs):
            continue
        part = m32[:, a + xs[0]:a + xs[-1] + 1]
        ys = np.flatnonzero(part.any(axis=1))
        box[2:-2, 2:-2] = cv2.resize(part[ys[0]:ys[-1] + 1], (GRID - 4, GRID - 4), interpolation=cv2.INTER_AREA)
        blurred = cv2.GaussianBlur(box, (0, 0), tuning.blur)
        gx[i] = cv2.Sobel(blurred, cv2.CV_32F, 1, 0, ksize=3)
        gy[i] = cv2.Sobel(blurred, cv2.CV_32F, 0, 1, ksize=3)
        dens[i] = cv2.resize(blurred, (CELLS, CELLS), interpolation=cv2.INTER_AREA).ravel()
    mag = np.hypot(gx, gy)
    b = np.minimum((np.mod(np.arctan2(gy, gx), np.pi) / np.pi * BINS).astype(np.int64), BINS - 1)
    c = GRID // CELLS
    cell_of = np.full(GRID, CELLS, np.int64)  # pixels past CELLS × c (GRID not a multiple) count nowhere
    cell_of[:CELLS * c] = np.arange(CELLS * c) // c
    cy, cx = cell_of[:, None], cell_of[None, :]
    inside = (cy < CELLS) & (cx < CELLS)
    slot = ((np.arange(n)[:, None, None] * CELLS + cy) * CELLS + cx) * BINS + b
    hist = np.bincount(slot[:, inside].ravel(), weights=mag[:, inside].ravel(),
                       minlength=n * CELLS * CELLS * BINS).reshape(n, -1).astype(np.float32)
    hist /= np.maximum(1e-6, np.linalg.norm(hist, axis=1, keepdims=True))
    dens /= np.maximum(1e-6, np.linalg.norm(dens, axis=1, keepdims=True))
    f = np.concatenate([hist, 0.5 * dens], axis=1)
    return f / np.maximum(1e-6, np.linalg.norm(f, axis=1, keepdims=True))


def pool_likeness(mask: np.ndarray, layout: PoolLayout, tuning: InkSearchTuning = INK_SEARCH,
                  letters: bool = True) -> np.ndarray:
    """Each pool card's likeness to the written ink (mean over its compared characters of its
    piece's cosine to the character's mean drawing, its other characters but spaces counted as
    `other_likeness`; NaN: none compared); `letters` False: over its Hangul syllables alone."""
    return _card_likeness(layout, _entry_likeness(mask, layout, tuning), tuning, letters)


def _entry_likeness(mask: np.ndarray, layout: PoolLayout, tuning: InkSearchTuning) -> np.ndarray:
    """Each entry's piece of the ink, its cosine to the entry's character's mean drawing."""
    table = cut_table(mask, layout.grid, np.concatenate([layout.half_start, layout.half_end]))
    a = table[layout.half_start, layout.start]
    b = table[layout.half_end, layout.end]
    a = np.where(layout.start == 0, 0, a)
    b = np.where(layout.end >= layout.grid, mask.shape[1], b)
    b = np.maximum(b, a + 1)
    w1 = mask.shape[1] + 1
    keys, piece = np.unique(a.astype(np.int64) * w1 + b, return_inverse=True)
    pairs = np.stack([keys // w1, keys % w1], axis=1)
    feats = pieces_features(mask, pairs)
    sims = cv2.gemm(feats, layout.drawings, 1.0, None, 0.0, flags=cv2.GEMM_2_T)  # (numpy's threads cost more)
    return sims[piece, layout.syllable]


def _card_likeness(layout: PoolLayout, entry: np.ndarray, tuning: InkSearchTuning, letters: bool) -> np.ndarray:
    counted = layout.syllables_per_card if letters else layout.hangul_per_card
    weights = entry if letters else np.where(layout.letter, 0.0, entry)
    total = np.bincount(layout.card, weights=weights, minlength=len(layout.ids))
    others = layout.others + (0 if letters else layout.syllables_per_card - layout.hangul_per_card)
    with np.errstate(invalid="ignore", divide="ignore"):
        if tuning.other_likeness is None:
            like = total / counted
        else:
            like = (total + tuning.other_likeness * others) / (counted + others)
    return np.where(counted > 0, like, np.nan)


def _only(layout: PoolLayout, cards: np.ndarray) -> PoolLayout:
    """`layout`'s entries of `cards` (indices into its ids) alone."""
    keep = np.isin(layout.card, cards)
    return dataclasses.replace(layout, card=layout.card[keep], syllable=layout.syllable[keep], letter=layout.letter[keep], start=layout.start[keep],
                               end=layout.end[keep], half_start=layout.half_start[keep], half_end=layout.half_end[keep])


def propose(mask: np.ndarray, ids: list[int], names: dict[int, str], offset: float | None = None,
            tuning: InkSearchTuning = INK_SEARCH) -> list[tuple[int, float]]:
    """The pool's `proposals` cards most like the written ink (with their likeness, less
    `width_weight` per unit of log width ratio off `offset`: the page's hand's, None: not weighed)."""
    layout = pool_layout(ids, names, tuning)
    if layout is None or not len(layout.card) or not mask.any():
        return []  # (a pool with no name to compare, e.g. no card of the column drawn)
    entry = _entry_likeness(mask, layout, tuning)
    off = np.zeros(len(layout.ids))
    if offset is not None:
        aspect = mask.shape[1] / mask.shape[0]  # (the cell's ink crop, as `fuse` measures it)
        with np.errstate(invalid="ignore", divide="ignore"):
            off = tuning.width_weight * np.abs(np.log(aspect / np.maximum(layout.width, 0.3)) - offset)
    # the proposals by their Hangul syllables (the eighth round's), then the best lettered cards
    like = _card_likeness(layout, entry, tuning, letters=False) - off
    like = np.where(layout.hangul_per_card >= tuning.least_syllables, like, -np.inf)
    got = _best(layout, like, tuning.proposals, [])
    fine = pool_layout(ids, names, tuning, fine=True) if tuning.latin and tuning.latin_proposals else None
    if fine is not None and len(fine.card):
        lettered = np.flatnonzero(fine.syllables_per_card > 0)
        full = _card_likeness(layout, entry, tuning, letters=True)
        score = np.nan_to_num(full[lettered] - off[lettered], nan=-np.inf)
        n = min(tuning.latin_recheck, len(lettered))
        best = lettered[np.argpartition(-score, n - 1)[:n]]
        again = np.full(len(full), -np.inf)
        again[best] = pool_likeness(mask, _only(fine, best), tuning)[best] - off[best]
        again = np.where(layout.syllables_per_card >= tuning.least_syllables, again, -np.inf)
        got += _best(layout, again, tuning.latin_proposals, [c for c, _ in got])
    return got


def _best(layout: PoolLayout, like: np.ndarray, k: int, taken: list[int]) -> list[tuple[int, float]]:
    """The `k` cards of highest `like` (finite), but those `taken`."""
    like = np.where(np.isin(layout.ids, taken), -np.inf, np.nan_to_num(like, nan=-np.inf))
    k = min(k, len(like))
    if k <= 0:
        return []
    top = np.argpartition(-like, k - 1)[:k]
    top = top[np.argsort(-like[top], kind="stable")]
    return [(int(layout.ids[i]), float(like[i])) for i in top if np.isfinite(like[i])]
