"""The same hand writes the same digit alike: a form's written counts read together.

The hand-digit network (`hand_digits`) reads each count alone, and a hand it never saw is
misread the same way on every line (a bold italic 3 taken for a 1 on seven lines of one form,
each at 0.5-0.7). The page's other counts are in the same hand: a digit whose nearest likes on
the page read surely as 3 is likelier a 3 than its own odds say. Each count's odds are weighed
by its nearest likes' (their own odds, by `glyph_features` distance), before the written totals
choose among them (`totals.settle_hand_counts`). The line's own odds (`RowRead.count_odds`) are
kept as read: the evidence rule (`evidence`) asks them alone.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scanner.ocr.counts import COUNT_VALUES
from scanner.ocr.rows import RowRead


@dataclass(frozen=True)
class PageHandTuning:
    """How much a count's likes on the page weigh against its own odds."""

    neighbours: int = 5
    """The nearest other counts of the page (by their digits' features) that vote."""
    floor: float = 0.1
    """Added to the likes' odds of every value before weighing: a value no like reads keeps
    this much of its own odds (a page's only 2 has no like that is a 2)."""
    weight: float = 2.0
    """The power of the likes' vote against the count's own odds."""
    rounds: int = 3
    """Votes taken in turn, each with the likes' odds of the round before (a hand's 3s read
    as 1s lean on each other until the surer ones carry them)."""
    least_counts: int = 4
    """A page with fewer written counts than this has too few likes to weigh."""


PAGE_HAND = PageHandTuning()


def page_odds(rows: list[RowRead], tuning: PageHandTuning = PAGE_HAND) -> dict[int, dict[int, float]]:
    """For each written count (by its index in `rows`): its odds weighed by its likes' on the
    page. Rows without a written count's shape are not in the answer."""
    idx = [i for i, r in enumerate(rows) if r.count_odds and r.count_shape is not None and not r.struck_row]
    if len(idx) < tuning.least_counts:
        return {}
    shapes = np.stack([rows[i].count_shape for i in idx]).astype(np.float64)
    own = np.array([[rows[i].count_odds.get(v, 0.0) for v in COUNT_VALUES] for i in idx])
    dist = np.sqrt(((shapes[:, None, :] - shapes[None, :, :]) ** 2).sum(axis=-1))
    np.fill_diagonal(dist, np.inf)
    k = min(tuning.neighbours, len(idx) - 1)
    likes = np.argsort(dist, axis=1)[:, :k]
    cur = own
    for _ in range(tuning.rounds):
        # the likes' vote over the page's own mix: a value few counts of the page are (its one
        # 2 among 1s and 3s) is not outvoted for being rare
        x = own * ((tuning.floor + cur[likes].mean(axis=1)) / (tuning.floor + cur.mean(axis=0))) ** tuning.weight
        cur = x / x.sum(axis=1, keepdims=True)
    return {i: {v: float(p) for v, p in zip(COUNT_VALUES, cur[n])} for n, i in enumerate(idx)}
