"""Build the card-name syllable network (scanner/ocr/data/card_net.npz).

    python -m tools.make_card_net            # ≈ 25 min CPU on one core

Every Hangul syllable of the shipped card-name drawings (`data/card_syllables.npz`, the Korean
database's card names) drawn in the fonts of `tools.make_name_net` (no face the bench measures
on), varied and written small as there, and learnt by one hidden layer on `syllable_features`.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from scanner.ocr.hand_syllables import CARD_SYLLABLES_PATH
from tools.make_name_net import build

OUT = CARD_SYLLABLES_PATH.with_name("card_net.npz")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--per-font", type=int, default=4, help="varied drawings per syllable and font")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--hidden", type=int, default=512)
    args = ap.parse_args(argv)
    with np.load(CARD_SYLLABLES_PATH) as z:
        syllables = str(z["syllables"])
    build(syllables, args.out, args.seed, args.per_font, args.epochs, args.hidden)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
