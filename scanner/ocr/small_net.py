"""A small network the reader ships (one hidden layer, ReLU, scores per class), built offline by a
`tools.make_*` module from drawings no player wrote and loaded from its `.npz`."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scanner.ocr.tools import shipped_data

PARTS = ("mean", "std", "w1", "b1", "w2", "b2")
"""The arrays a shipped network's file holds (features are standardised by mean and std)."""


@dataclass(frozen=True)
class SmallNet:
    mean: np.ndarray
    std: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def logits(self, features: np.ndarray) -> np.ndarray:
        x = (features - self.mean) / self.std
        h = np.maximum(0.0, x @ self.w1 + self.b1)
        return h @ self.w2 + self.b2


def load_small_net(path: Path, make: str) -> tuple[SmallNet, dict[str, np.ndarray]]:
    """The network in `path` (`MissingToolError` naming `make` when the file is missing), and the
    file's other arrays (what its classes are)."""
    with np.load(shipped_data(path, make)) as z:
        net = SmallNet(*(z[k].astype(np.float32) for k in PARTS))
        return net, {k: z[k] for k in z.files if k not in PARTS}
