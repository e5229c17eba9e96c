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
card's likeness is a sum of looked-up entries.

Only a proposal: the cards found join the reads' candidates and are scored by the same fused
evidence (reads, width, ink likeness); `fuse` marks a first answer that no read proposed, and
`evidence.py` never accepts such a line unflagged.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from scanner.ocr.hand_syllables import (CARD_NET, HANGUL_FIRST, HANGUL_LAST, NAME_SHAPE, CardNetTuning, _advance_font,
                                        _is_syllable, card_net_outputs, card_net_terms, pieces_features, shipped_means,
                                        syllable_drawings)

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
    least_syllables: int = 2
    """Cards with fewer Hangul syllables are not proposed (one piece matches too easily; 1:
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
    net_weight: float = 0.2
    """An entry's likeness is (1 − net_weight) × its piece's cosine to the syllable's mean drawing
    + net_weight × the card-syllable network's term for it (`hand_syllables.card_net_terms`;
    0: the drawings alone). Not in the page's centred search (`page_hand`). Offline on the
    tuning sets' reads (3502, 3504; candidates' weight 0): 0, 0.2, 0.4 → 757, 765, 766 of 907
    right (the network's search finds cards for hands unlike the four drawn ones)."""
    net_proposals: int = 5
    """Cards the card-syllable network alone proposes besides (`pool_likeness`'s `net_only`: the
    mean of its terms over a card's syllables, the width weighed as for the others), those of
    the `proposals` aside: a hand unlike the four drawn ones is read by the network where the
    drawings' share of the mixed likeness buries the right card (0: none; not in the page's
    centred search, which weighs no network). Offline on the tuning sets' reads (3502, 3504 first
    8: 517 written names, `bench/replay_hand_names.py`; `InkTuning.search_weight` 0): 0, 5 → 483,
    484 right; with the search's ranking (weight 1): 3, 5 → 483, 485 (the tuning faces are the
    drawn hands, where the network adds least: it reads hands unlike them)."""


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
class LaidNames:
    """Card names laid out for the search, one entry per (card, Hangul syllable): a vocabulary's
    every name, places as shares of the name's printed width (`names_layout`), or a column pool's
    cards, places in steps of the search's grid (`pool_layout`)."""

    ids: np.ndarray
    """The cards' ids."""
    card: np.ndarray
    """Each entry's card (index into `ids`)."""
    syllable: np.ndarray
    """Each entry's syllable (index into `drawings`)."""
    start: np.ndarray
    end: np.ndarray
    """Each entry's place along the name."""
    half_start: np.ndarray
    half_end: np.ndarray
    """Half the window a cut at `start` / `end` moves within (from the name's advances)."""
    syllables_per_card: np.ndarray
    width: np.ndarray
    """Each card's printed width per pixel of font size (`hand_names.name_width`'s measure)."""
    others: np.ndarray
    """Each card's characters neither Hangul nor space."""
    drawings: np.ndarray
    """Mean drawing of each syllable (rows, unit length)."""
    chars: str
    """The syllable of each of `drawings`' rows."""


_NAMES: dict[int, tuple[dict, LaidNames | None]] = {}
_POOLS: dict[tuple[int, int], tuple[list[int], LaidNames | None]] = {}
KEPT_LAYOUTS = 16
"""Layouts each of those caches keeps before it is emptied: a reader holds one or two
vocabularies (Korean, Latin) of five column pools; a process that opens database after database
(the tests, a long-lived station reloading its database) does not keep every old one alive."""


def names_layout(names: dict[int, str]) -> LaidNames | None:
    """`names` laid out (kept per names dict: a page's vocabulary shares the database's)."""
    got = _NAMES.get(id(names))
    if got is not None and got[0] is names:
        return got[1]
    layout = _build_names(names)
    if len(_NAMES) >= KEPT_LAYOUTS:
        _NAMES.clear()
    _NAMES[id(names)] = (names, layout)
    return layout


def _build_names(names: dict[int, str]) -> LaidNames | None:
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
    chars = [shipped]
    row_of = np.full(len(uniq), -1, np.int64)
    for k, c in enumerate(uniq):
        ch = chr(c)
        if ch in at:
            row_of[k] = at[ch]
        elif _is_syllable(ch):
            d = mean_drawing(ch)  # a syllable a later database added
            if d is not None:
                row_of[k] = len(rows)
                rows.append(d)
                chars.append(ch)
    syl = row_of[inv]
    keep = syl >= 0
    hangul = (cp >= HANGUL_FIRST) & (cp <= HANGUL_LAST)
    if not rows:
        return None
    return LaidNames(np.array([cid for cid, _ in items]), card[keep], syl[keep], start[keep], end[keep],
                     half_start[keep], half_end[keep], np.bincount(card[keep], minlength=len(items)),
                     np.add.reduceat(adv, first) / font.size,
                     np.bincount(card, weights=~hangul & ~np.isin(cp, SPACES), minlength=len(items)),
                     np.array(rows, np.float32), "".join(chars))


def pool_layout(ids: list[int], names: dict[int, str], tuning: InkSearchTuning = INK_SEARCH) -> LaidNames | None:
    """The pool `ids` laid out (kept per pool list: a page's columns share the database's)."""
    key = (id(ids), tuning.places)
    got = _POOLS.get(key)
    if got is not None and got[0] is ids:
        return got[1]
    layout = _pool_of(ids, names_layout(names), tuning)
    if len(_POOLS) >= KEPT_LAYOUTS:
        _POOLS.clear()
    _POOLS[key] = (ids, layout)
    return layout


def _pool_of(ids: list[int], every: LaidNames | None, tuning: InkSearchTuning) -> LaidNames | None:
    if every is None:
        return None
    at = {int(cid): k for k, cid in enumerate(every.ids)}
    where = np.full(len(every.ids), -1, np.int64)
    for k, cid in enumerate(ids):
        if cid in at:
            where[at[cid]] = k
    pos = where[every.card]
    keep = pos >= 0
    q = tuning.places
    card = pos[keep].astype(np.int32)
    width = np.full(len(ids), np.nan)
    width[where[where >= 0]] = every.width[where >= 0]
    others = np.zeros(len(ids))
    others[where[where >= 0]] = every.others[where >= 0]
    return LaidNames(np.asarray(ids), card, every.syllable[keep].astype(np.int32),
                     np.rint(every.start[keep] * q).astype(np.int32), np.rint(every.end[keep] * q).astype(np.int32),
                     np.maximum(1, np.rint(every.half_start[keep] * q)).astype(np.int32),
                     np.maximum(1, np.rint(every.half_end[keep] * q)).astype(np.int32),
                     np.bincount(card, minlength=len(ids)).astype(np.int32), width, others, every.drawings,
                     every.chars)


def cut_table(mask: np.ndarray, places: int, halves: np.ndarray) -> np.ndarray:
    """table[h, p]: the column of least ink (smoothed over three) within `h` steps of step `p`
    along the ink (`hand_syllables.least_ink_cuts` for a place on the grid); 0 and the width at
    the ends."""
    w = mask.shape[1]
    col = np.convolve(mask.sum(axis=0).astype(np.float32), np.ones(3, np.float32) / 3, mode="same")
    step = w / places
    centre = np.arange(places + 1) * step
    table = np.zeros((int(halves.max()) + 1, places + 1), np.int32)
    for h in np.unique(halves):
        for p in range(1, places):
            lo, hi = max(1, int(centre[p] - h * step)), min(w - 1, int(centre[p] + h * step) + 1)
            table[h, p] = lo + int(np.argmin(col[lo:hi])) if hi > lo else int(centre[p])
        table[h, places] = w
    return table


def measured_pieces(mask: np.ndarray, pairs: np.ndarray, memo: dict[tuple[int, int], np.ndarray] | None) -> np.ndarray:
    """`pieces_features` of the column ranges `pairs`, those in `memo` (the same ink's pieces
    measured before: the page's second pass searches a line again, `page_hand`) taken from it
    and the others put in it."""
    if memo is None:
        return pieces_features(mask, pairs)
    keys = [(int(a), int(b)) for a, b in pairs]
    new = [k for k in dict.fromkeys(keys) if k not in memo]
    if new:
        for k, f in zip(new, pieces_features(mask, np.array(new, np.int64).reshape(-1, 2))):
            memo[k] = f
    return np.array([memo[k] for k in keys], np.float32).reshape(len(keys), -1)


def pool_likeness(mask: np.ndarray, layout: LaidNames, tuning: InkSearchTuning = INK_SEARCH,
                  centre: tuple[np.ndarray, np.ndarray] | None = None,
                  memo: dict[tuple[int, int], np.ndarray] | None = None,
                  net_only: list[np.ndarray] | None = None) -> np.ndarray:
    """Each pool card's likeness to the written ink (mean over its Hangul syllables of its
    piece's cosine to the syllable's mean drawing, its other characters but spaces counted as
    `other_likeness`; NaN: no syllable). `net_only`: given, the card-syllable network's own
    likeness of each card is appended to it (the mean of its known syllables' terms; NaN: none
    known, or the network not weighed)."""
    table = cut_table(mask, tuning.places, np.concatenate([layout.half_start, layout.half_end]))
    a = table[layout.half_start, layout.start]
    b = table[layout.half_end, layout.end]
    a = np.where(layout.start == 0, 0, a)
    b = np.where(layout.end >= tuning.places, mask.shape[1], b)
    b = np.maximum(b, a + 1)
    w1 = mask.shape[1] + 1
    keys, piece = np.unique(a.astype(np.int64) * w1 + b, return_inverse=True)
    pairs = np.stack([keys // w1, keys % w1], axis=1)
    raw = measured_pieces(mask, pairs, memo)
    feats, drawings = raw, layout.drawings
    if centre is not None:
        feats, drawings = _unit_rows(feats - centre[0]), centred_drawings(layout.drawings, centre[1])
    sims = cv2.gemm(feats, drawings, 1.0, None, 0.0, flags=cv2.GEMM_2_T)  # (numpy's threads cost more)
    entry = sims[piece, layout.syllable]
    if tuning.net_weight and centre is None:
        terms = pool_net_terms(raw, layout, piece)
        entry = np.where(np.isfinite(terms), (1 - tuning.net_weight) * entry + tuning.net_weight * terms, entry)
        if net_only is not None:
            known = np.isfinite(terms)
            got = np.bincount(layout.card, weights=np.where(known, terms, 0.0), minlength=len(layout.ids))
            n = np.bincount(layout.card, weights=known, minlength=len(layout.ids))
            with np.errstate(invalid="ignore", divide="ignore"):
                net_only.append(np.where(n > 0, got / n, np.nan))
    if net_only is not None and not net_only:
        net_only.append(np.full(len(layout.ids), np.nan))
    total = np.bincount(layout.card, weights=entry, minlength=len(layout.ids))
    with np.errstate(invalid="ignore", divide="ignore"):
        if tuning.other_likeness is None:
            like = total / layout.syllables_per_card
        else:
            like = (total + tuning.other_likeness * layout.others) / (layout.syllables_per_card + layout.others)
    return np.where(layout.syllables_per_card > 0, like, np.nan)


def pool_net_terms(feats: np.ndarray, layout: LaidNames, piece: np.ndarray,
                   net: CardNetTuning = CARD_NET) -> np.ndarray:
    """Each layout entry's card-syllable network term (`hand_syllables.card_net_terms`): its
    piece (`feats` rows, indexed by `piece`) taken for its syllable (NaN: one the network does not
    know)."""
    return card_net_terms(feats, card_net_outputs(layout.chars)[layout.syllable], net, rows=piece)


def _unit_rows(a: np.ndarray) -> np.ndarray:
    return (a / np.maximum(1e-6, np.linalg.norm(a, axis=1, keepdims=True))).astype(np.float32)


_CENTRED: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def centred_drawings(drawings: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """`drawings` less `mean`, unit rows (the last one kept: a page's doubtful lines share it)."""
    got = _CENTRED.get(id(drawings))
    if got is not None and got[0] is drawings and got[1] is mean:
        return got[2]
    out = _unit_rows(drawings - mean)
    _CENTRED.clear()
    _CENTRED[id(drawings)] = (drawings, mean, out)
    return out


@dataclass(frozen=True)
class Searched:
    """Every pool card's likeness to one written ink as the search weighed it (`propose`: the
    width weighed in; NaN: a card of no Hangul syllable), kept for the line's candidates'
    ranking (`hand_names.by_syllable_likeness`)."""

    ids: np.ndarray
    like: np.ndarray

    def of(self, cid: int) -> float | None:
        """The card's likeness (None: not in the pool, or no syllable to weigh)."""
        at = np.flatnonzero(self.ids == cid)
        v = float(self.like[at[0]]) if len(at) else float("nan")
        return v if np.isfinite(v) else None


def propose(mask: np.ndarray, ids: list[int], names: dict[int, str], offset: float | None = None,
            tuning: InkSearchTuning = INK_SEARCH, centre: tuple[np.ndarray, np.ndarray] | None = None,
            memo: dict[tuple[int, int], np.ndarray] | None = None,
            searched: list[Searched] | None = None) -> list[tuple[int, float]]:
    """The pool's `proposals` cards most like the written ink (with their likeness, less
    `width_weight` per unit of log width ratio off `offset`: the page's hand's, None: not weighed).
    `centre`: (the page's mean piece, the drawn hands' mean drawing): pieces and drawings are
    compared less those (the page's own hand, `page_hand`); `memo`: pieces of this ink measured
    before (`measured_pieces`); `searched`: given, every pool card's likeness is appended to it
    (`Searched`)."""
    layout = pool_layout(ids, names, tuning)
    if layout is None or not len(layout.syllable) or not mask.any():
        return []  # (a pool with no Hangul name, e.g. an English database's: nothing to compare)
    net_only: list[np.ndarray] | None = [] if tuning.net_proposals and centre is None else None
    like = _width_weighed(pool_likeness(mask, layout, tuning, centre, memo, net_only), layout, offset, mask, tuning)
    if searched is not None:
        searched.append(Searched(layout.ids, like.astype(np.float32)))
    out = _best(like, layout, tuning, tuning.proposals)
    if net_only:
        taken = {cid for cid, _ in out}
        more = _best(_width_weighed(net_only[0], layout, offset, mask, tuning), layout, tuning,
                     tuning.net_proposals + len(out))
        out += [(cid, lk) for cid, lk in more if cid not in taken][:tuning.net_proposals]
    return out


def _width_weighed(like: np.ndarray, layout: LaidNames, offset: float | None, mask: np.ndarray,
                   tuning: InkSearchTuning) -> np.ndarray:
    """`like` less `width_weight` per unit of log width ratio off `offset` (None: not weighed)."""
    if offset is None:
        return like
    aspect = mask.shape[1] / mask.shape[0]  # (the cell's ink crop, as `fuse` measures it)
    with np.errstate(invalid="ignore", divide="ignore"):
        return like - tuning.width_weight * np.abs(np.log(aspect / np.maximum(layout.width, 0.3)) - offset)


def _best(like: np.ndarray, layout: LaidNames, tuning: InkSearchTuning, k: int) -> list[tuple[int, float]]:
    """The `k` cards of the highest likeness of at least `least_syllables` syllables."""
    like = np.where((layout.syllables_per_card >= tuning.least_syllables) & np.isfinite(like), like, -np.inf)
    k = min(k, len(like))
    if k <= 0:
        return []
    top = np.argpartition(-like, k - 1)[:k]
    top = top[np.argsort(-like[top], kind="stable")]
    return [(int(layout.ids[i]), float(like[i])) for i in top if np.isfinite(like[i])]
