"""Written namesakes that differ in a run of digits or Latin letters (`얼루어 퀸 LV3` / `LV5`,
`다크 루시어스 LV4` / `LV6`), told apart by the ink of that run alone.

The reads cannot tell them apart (`kor` writes `LVS` for both, and a jamo likeness of `LVS`
is the same to either), and the whole-name likenesses (`hand_names.by_ink_likeness`, the
syllables) weigh a dozen characters of which one differs. When the first candidate of a written
name has such a namesake close behind it, the ink where the run is written (the name's printed
advances laid along the ink, each end moved to the column of least ink nearby) is compared with
each namesake's run alone: a run of one written digit by the hand-digit network
(`hand_digits.leaning_probs`), any run by its drawing in the hand fonts
(`hand_names.InkTuning.fonts`). The namesake whose run the ink favours clearly is put first.

Only an order: the line keeps the reads' scores, and a namesake put first leads by nothing, so
the line stays flagged for the judge (`evidence.py` wants a lead).
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from scanner.ocr.boxed import ink_runs
from scanner.ocr.hand_digits import leaning_probs
from scanner.ocr.namesake_part import Namesakes, namesake_run
from scanner.ocr.names import Vocabulary
from scanner.ocr.verify import compare, ink_crop, ink_level


@dataclass(frozen=True)
class HandRunTuning:
    """When and how a written namesake's run decides between the namesakes.

    Chosen on the tuning faces: every namesake pair of the Korean database with Hangul around the
    run (121 pairs, each card written once in a varied tuning hand, `samples/kde_paper.Hand`;
    ordered wrong first, then right first): one-digit runs put right 77 of 90, put wrong 4; other
    runs 113 of 152, 8. On the tuning sets' reads (3502, 3504, 3505; `bench/replay_hand_names.py`)
    707 → 709 of 770 lines right, none put wrong (`close` 0.08-0.3, the leads ±half: the same)."""

    close: float = 0.08
    """A namesake is weighed when its score is within this of the first candidate's."""
    cut_window: float = 0.4
    """Each end of the run moves to the column of least ink within this share of a character's
    printed advance (a hand's characters never fall where print's do)."""
    digit_lead: float = 0.2
    """A run of one digit differing: the namesake whose digit the network names this much more
    likely than the first candidate's is put first."""
    skews: tuple[float, ...] = (0.15,)
    """Leans the digit is read at besides as written (`hand_digits.leaning_probs`)."""
    drawn_lead: float = 0.08
    """Any other run: the namesake whose run, drawn in the hand fonts, is this much more like the
    ink than the first candidate's is put first."""
    least_width: int = 3
    """A run cut narrower than this many columns of ink is not weighed (nothing of it is left)."""


HAND_RUN = HandRunTuning()


@dataclass(frozen=True)
class RunDrawings:
    """What weighing a run takes from the written-name reader (`hand_names.run_drawings`; passed
    in, as `hand_names` calls this module): a text's printed advance per pixel of font size (None
    without the font), the text drawn in each hand font, and the blur likenesses compare at."""

    advance: Callable[[str], float | None]
    drawings: Callable[[str], list[np.ndarray]]
    blur: float

    def width(self, text: str) -> float:
        return (self.advance(text) or 0.0) if text else 0.0


def _least_ink(col: np.ndarray, x: float, half: float) -> int:
    """The column of least ink within `half` of `x`."""
    lo, hi = max(0, int(x - half)), min(len(col), int(x + half) + 1)
    return lo + int(np.argmin(col[lo:hi])) if hi > lo else int(np.clip(x, 0, len(col)))


def run_ink(ink: np.ndarray, group: Namesakes, run: str, drawings: RunDrawings,
            tuning: HandRunTuning = HAND_RUN) -> np.ndarray | None:
    """The grey ink (cropped) of `run` in the written name `prefix + run + suffix` (`ink`: the
    whole name's, cropped): laid at the name's printed advances, each end at the column of least
    ink nearby; None when nothing is left."""
    full = group.prefix + run + group.suffix
    total = drawings.width(full)
    if total <= 0:
        return None
    w = ink.shape[1]
    k = w / total
    col = np.convolve((ink < ink_level(ink)).sum(axis=0).astype(np.float32), np.ones(3) / 3, mode="same")
    half = tuning.cut_window * k * total / max(1, len(full))
    x0 = 0 if not group.prefix.strip() else _least_ink(col, drawings.width(group.prefix) * k, half)
    x1 = w if not group.suffix.strip() else _least_ink(col, (total - drawings.width(group.suffix)) * k, half)
    if x1 - x0 < tuning.least_width:
        return None
    return ink_crop(ink[:, x0:x1])


def narrowed(group: Namesakes) -> Namesakes:
    """The namesakes with their runs' common start and end moved to the shared prefix and suffix
    (`LV3` / `LV5` → `3` / `5`: only the differing part is cut from the ink and weighed)."""
    runs = list(group.runs.values())
    head = len(os.path.commonprefix(runs))
    tail = len(os.path.commonprefix([r[head:][::-1] for r in runs]))
    if not head and not tail:
        return group
    first = runs[0]
    return Namesakes(group.prefix + first[:head], first[len(first) - tail:] + group.suffix if tail else group.suffix,
                     {c: r[head:len(r) - tail] for c, r in group.runs.items()})


def _digit_odds(cut: np.ndarray, runs: dict[int, str], tuning: HandRunTuning) -> dict[int, float] | None:
    """Each namesake's likelihood when every run is one digit (None otherwise, or no ink): the
    network's odds of its digit for the cut's glyph."""
    if not all(len(r) == 1 and r.isdigit() for r in runs.values()):
        return None
    mask = cut < ink_level(cut)
    if not mask.any():
        return None
    # the run's one glyph: the widest run of inked columns (a cut may keep a sliver of a neighbour)
    x0, x1 = max(ink_runs(mask.any(axis=0), 1), key=lambda run: run[1] - run[0])
    glyph = mask[:, x0:x1]
    ys = np.flatnonzero(glyph.any(axis=1))
    if not len(ys) or glyph.shape[1] < 2:
        return None
    p = leaning_probs(glyph[ys[0]:ys[-1] + 1], tuning.skews)
    return {c: float(p[int(r)]) for c, r in runs.items()}


def _drawn_likeness(cut: np.ndarray, run: str, drawings: RunDrawings) -> float | None:
    """How like the cut ink `run` looks drawn in the hand fonts (best over them)."""
    likes = [compare(cut, drawn, blur=drawings.blur, overall_only=True).overall for drawn in drawings.drawings(run)]
    return max(likes) if likes else None


def by_namesake_run(scored: list[tuple[float, int]], ink: np.ndarray | None, vocab: Vocabulary,
                    drawings: RunDrawings, tuning: HandRunTuning = HAND_RUN) -> list[tuple[float, int]]:
    """`scored` (score, card; best first) with a namesake of the first put first when the ink of
    the run they differ in clearly favours it (see the module); else as given."""
    if ink is None or len(scored) < 2:
        return scored
    best_score, top = scored[0]
    close = [c for s, c in scored[1:] if s >= best_score - tuning.close]
    if not close:
        return scored
    group = namesake_run(vocab.names, top, close)
    if group is None:
        return scored
    group = narrowed(group)
    cuts = {c: run_ink(ink, group, r, drawings, tuning) for c, r in group.runs.items()}
    if cuts[top] is None:
        return scored
    pick = None
    digits = _digit_odds(cuts[top], group.runs, tuning)
    if digits is not None:
        rival = max((c for c in digits if c != top), key=digits.get)
        if digits[rival] >= digits[top] + tuning.digit_lead:
            pick = rival
    else:
        likes = {c: _drawn_likeness(cut, group.runs[c], drawings) for c, cut in cuts.items() if cut is not None}
        if likes.get(top) is None:
            return scored
        known = {c: lk for c, lk in likes.items() if lk is not None and c != top}
        if known:
            rival = max(known, key=known.get)
            if known[rival] >= likes[top] + tuning.drawn_lead:
                pick = rival
    if pick is None:
        return scored
    return [x for x in scored if x[1] == pick] + [x for x in scored if x[1] != pick]
