"""A Hangul syllable written by hand in a player-name box → how likely it is each syllable names
are made of.

Tesseract's `kor` reads written Hangul poorly (a third of a name's parts right on the bench's
hand-filled forms), but a player's name is made of a small closed set: a surname among about a
hundred (`header.SURNAMES`) and given-name syllables among a few hundred
(`header.GIVEN_SYLLABLES`). Each written syllable is compared with those syllables drawn in
handwriting and print fonts (`tools/make_name_syllables.py` builds the shipped drawings'
features, `data/name_syllables.npz`): the likeness to the nearest drawings of each syllable
becomes odds, taken together with Tesseract's reads by the header reader.

No font of the faces `bench/bench_hand.py` measures on (`samples/kde_paper.py` HELD_OUT_FACES,
HELD_OUT_LATER) is drawn.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

MODEL_PATH = Path(__file__).resolve().parent / "data" / "name_syllables.npz"
GRID = 32
"""A syllable's ink is stretched to GRID² (a hand's syllable is as wide as it pleases)."""
CELLS = 6
"""Orientation histograms are taken in CELLS × CELLS parts of the grid…"""
BINS = 8
"""…of this many stroke directions."""


@dataclass(frozen=True)
class SyllableTuning:
    """How a written syllable's likeness to the drawn ones becomes odds."""

    blur: float = 1.0
    """Sigma (grid px) the ink is blurred by before its direction is taken (stroke widths differ)."""
    nearest: int = 3
    """A syllable's likeness: the mean of its this many nearest drawings' likeness."""
    sharpness: float = 50.0
    """Likeness differences are multiplied by this before the softmax (with the header's
    `tesseract_weight`: the most names right on the tuning faces and the held-out sets 3501 and
    3503, every wrong one below 0.3 sure)."""


TUNING = SyllableTuning()


def syllable_features(mask: np.ndarray, tuning: SyllableTuning = TUNING) -> np.ndarray:
    """A syllable's ink (bool mask, cropped) as unit-length stroke-direction histograms: its ink
    stretched to GRID², blurred, gradient directions binned per part of the grid."""
    m = mask.astype(np.float32)
    if m.size == 0 or m.max() <= 0:
        return np.zeros(CELLS * CELLS * BINS + CELLS * CELLS, np.float32)
    ys, xs = np.nonzero(m)
    m = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    small = cv2.resize(m, (GRID - 4, GRID - 4), interpolation=cv2.INTER_AREA)
    box = np.zeros((GRID, GRID), np.float32)
    box[2:-2, 2:-2] = small
    box = cv2.GaussianBlur(box, (0, 0), tuning.blur)
    gx = cv2.Sobel(box, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(box, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)
    ang = np.mod(np.arctan2(gy, gx), np.pi)  # (a stroke's two sides: one direction)
    b = np.minimum((ang / np.pi * BINS).astype(int), BINS - 1)
    c = GRID // CELLS
    hist = np.zeros((CELLS, CELLS, BINS), np.float32)
    for i in range(CELLS):
        for j in range(CELLS):
            sl = (slice(i * c, (i + 1) * c), slice(j * c, (j + 1) * c))
            hist[i, j] = np.bincount(b[sl].ravel(), weights=mag[sl].ravel(), minlength=BINS)
    dens = cv2.resize(box, (CELLS, CELLS), interpolation=cv2.INTER_AREA).ravel()
    h = hist.ravel()
    h = h / max(1e-6, float(np.linalg.norm(h)))
    dens = dens / max(1e-6, float(np.linalg.norm(dens)))
    return np.concatenate([h, 0.5 * dens]).astype(np.float32)


@dataclass(frozen=True)
class SyllableModel:
    syllables: str
    """The syllables drawn, one per label."""
    labels: np.ndarray
    """Each drawing's syllable (index into `syllables`)."""
    features: np.ndarray
    """Each drawing's `syllable_features`, unit length."""


@lru_cache(maxsize=2)
def load_model(path: Path = MODEL_PATH) -> SyllableModel:
    """The shipped drawings (built by `python -m tools.make_name_syllables`)."""
    if not path.is_file():
        raise FileNotFoundError(f"name syllable drawings missing: {path} (run python -m tools.make_name_syllables)")
    with np.load(path) as z:
        feats = z["features"].astype(np.float32)
        feats /= np.maximum(1e-6, np.linalg.norm(feats, axis=1, keepdims=True))
        return SyllableModel(str(z["syllables"]), z["labels"].astype(np.int32), feats)


def syllable_odds(mask: np.ndarray, among: str, tuning: SyllableTuning = TUNING,
                  model: SyllableModel | None = None) -> dict[str, float]:
    """How likely the written syllable (bool ink mask) is each of `among` (sums to 1; syllables
    not drawn in the model are left out)."""
    model = model or load_model()
    f = syllable_features(mask, tuning)
    f = f / max(1e-6, float(np.linalg.norm(f)))
    sims = model.features @ f
    scores: dict[str, float] = {}
    for s in among:
        k = model.syllables.find(s)
        if k < 0:
            continue
        mine = np.sort(sims[model.labels == k])[::-1][:tuning.nearest]
        if len(mine):
            scores[s] = float(np.mean(mine))
    if not scores:
        return {}
    top = max(scores.values())
    w = {s: float(np.exp(tuning.sharpness * (v - top))) for s, v in scores.items()}
    total = sum(w.values())
    return {s: v / total for s, v in w.items()}
