"""A digit written by hand → how likely it is each of 0-9.

The count reader's digit templates (`counts.load_templates`) are print and two pen fonts: a
hand they lack (a bold italic 2, a brush 3) lands nearest the wrong template. Written counts,
totals and Konami ID digits are read instead by a small network (`counts.glyph_features` → one
hidden layer → softmax) trained by `tools/make_hand_digits.py` on digits no player wrote:
handwriting and print fonts and pen-stroke skeletons, slanted, bent, thickened and blurred,
cut out by the reader's own steps. No handwriting face the bench measures on
(`samples/kde_paper.py` held-out faces) gave it a sample.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from scanner.ocr.glyphs import glyph_features
from scanner.ocr.small_net import SmallNet, load_small_net

MODEL_PATH = Path(__file__).resolve().parent / "data" / "hand_digits.npz"
_DATA = Path(__file__).resolve().parent / "data"
MORE_MODEL_PATHS = (_DATA / "hand_digits_more.npz", _DATA / "hand_digits_more_b.npz", _DATA / "hand_digits_wide.npz")
"""More networks for the Konami ID's digits (`id_digit_probs`; the counts and totals are read by
the first alone): two trained (`python -m tools.make_hand_digits --more --seed 36`, `--seed 37`)
with more lettered and print fonts (`MORE_HAND_FONTS`, `MORE_PRINT_FONTS`), one (`--more --wide
--seed 38`) on those glyphs varied further (`make_hand_digits.WIDE`: broader, narrower, more
slanted, bent and heavier): a hand far from every font drawn. Judged with the tuning faces' fonts
left out of training (`--leave-out`, `TUNING_FONTS`) on the tuning sets' written IDs (seeds
3502-3508, 480 digits): a `--more --wide` network read 434 digits right where one of the first's
recipe (fewer fonts, less varied) read 410, the two averaged 422 (how much of it the fonts gave
and how much the variation was not measured apart)."""


@dataclass(frozen=True)
class HandDigitTuning:
    """How the network's scores become odds."""

    temperature: float = 1.6
    """Its logits are divided by this: trained on clean synthetic digits, it is surer than it
    is right on a hand it never saw (chosen by the odds' log-loss on the tuning faces' written
    counts with their own fonts left out of training)."""
    floor: float = 1e-3
    """No digit is ever less likely than this (a hand may write any)."""


TUNING = HandDigitTuning()


@lru_cache(maxsize=2)
def load_model(path: Path = MODEL_PATH) -> SmallNet:
    """The shipped network (built by `python -m tools.make_hand_digits`)."""
    return load_small_net(path, "tools.make_hand_digits")[0]


def digit_probs(mask: np.ndarray, tuning: HandDigitTuning = TUNING,
                model: SmallNet | None = None) -> np.ndarray:
    """How likely the glyph (a bool ink mask, cropped) is each digit 0-9 (sums to 1)."""
    model = model or load_model()
    z = model.logits(glyph_features(mask)[None])[0] / tuning.temperature
    p = np.exp(z - z.max())
    p = p / p.sum()
    p = np.maximum(p, tuning.floor)
    return p / p.sum()


def sheared(mask: np.ndarray, skew: float) -> np.ndarray:
    """The glyph (bool mask, cropped) sheared by `skew` (x shift per row up), cropped to its ink."""
    import cv2
    h, w = mask.shape
    pad = int(abs(skew) * h) + 2
    shear = np.float32([[1, -skew, pad + skew * h / 2], [0, 1, 0]])
    out = cv2.warpAffine(mask.astype(np.uint8), shear, (w + 2 * pad, h), flags=cv2.INTER_NEAREST) > 0
    ys, xs = np.nonzero(out)
    return out[ys.min():ys.max() + 1, xs.min():xs.max() + 1] if len(xs) else mask


def leaning_probs(mask: np.ndarray, skews: tuple[float, ...], tuning: HandDigitTuning = TUNING,
                  model: SmallNet | None = None) -> np.ndarray:
    """`digit_probs` averaged over the glyph as written and leaned by ± each of `skews`: a hand
    the network never saw is read as it would be a little more upright and a little more
    italic, and a digit it names only at one lean (a 7 taken for a 1, a 5 for a 3) loses to the
    one it names at every lean."""
    shapes = [mask] + [sheared(mask, s * sign) for s in skews for sign in (1, -1)]
    return np.mean([digit_probs(m, tuning, model) for m in shapes], axis=0)


def id_digit_probs(mask: np.ndarray, skews: tuple[float, ...], tuning: HandDigitTuning = TUNING) -> np.ndarray:
    """A Konami ID digit's odds: the four networks' `leaning_probs`, averaged (where they
    disagree none is sure, and a wrong ID comes out less sure)."""
    return np.mean([leaning_probs(mask, skews, tuning, model) for model in id_models()], axis=0)


@lru_cache(maxsize=1)
def id_models() -> tuple[SmallNet, ...]:
    """The networks that read an ID's digits (the first and `MORE_MODEL_PATHS`), loaded once."""
    return tuple(load_model(path) for path in (MODEL_PATH, *MORE_MODEL_PATHS))


def odds_among(mask: np.ndarray, values: tuple[int, ...], tuning: HandDigitTuning = TUNING) -> dict[int, float]:
    """How likely the glyph is each of `values` (a written count: 1, 2 or 3), given it is one."""
    p = digit_probs(mask, tuning)
    sub = {v: float(p[v]) for v in values}
    total = sum(sub.values())
    return {v: x / total for v, x in sub.items()}
