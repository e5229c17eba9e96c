"""Build the drawings of name syllables that `scanner.ocr.hand_syllables` ships
(scanner/ocr/data/name_syllables.npz).

    python -m tools.make_name_syllables            # ≈ 6 s CPU

Every surname and given-name syllable of the header reader (`header.SURNAMES`,
`header.GIVEN_SYLLABLES`) is drawn in handwriting and print fonts from Debian packages (those
missing are skipped), upright and leaning, and kept as its
`syllable_features`. Held out: no font of the faces `bench/bench_hand.py` measures on
(`samples/kde_paper.py` HELD_OUT_FACES, HELD_OUT_LATER: Un Pilgi-a, Un Pen, the alee fonts,
BM Kirang-haerang, the dkg handwriting) is drawn here.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scanner.ocr.hand_syllables import DRAWN_FONTS, FONTS, MODEL_PATH, syllable_features

SHEARS = (-0.2, 0.0, 0.12)
"""Leanings drawn (a right-leaning hand is negative: tops go right)."""
THICKEN = (0,)
"""Pixels each drawing is thickened by (at SIZE: thicker drawings gained nothing on the tuning faces)."""
SIZE = 56


def draw(ch: str, font: ImageFont.FreeTypeFont, shear: float, thicken: int) -> np.ndarray | None:
    img = Image.new("L", (SIZE * 3, SIZE * 2), 0)
    ImageDraw.Draw(img).text((SIZE, SIZE // 3), ch, font=font, fill=255)
    a = np.asarray(img)
    if shear:
        a = cv2.warpAffine(a, np.float32([[1, -shear, shear * a.shape[0] / 2], [0, 1, 0]]), a.shape[::-1])
    m = (a > 127).astype(np.uint8)
    if thicken:
        m = cv2.dilate(m, np.ones((thicken + 1, thicken + 1), np.uint8))
    return m.astype(bool) if m.any() else None


def main(argv: list[str] | None = None) -> int:
    from scanner.ocr.header import GIVEN_SYLLABLES, SURNAMES
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    args = ap.parse_args(argv)
    syllables = "".join(dict.fromkeys(SURNAMES + GIVEN_SYLLABLES))
    feats, labels = [], []
    for rel in DRAWN_FONTS:
        path = FONTS / rel
        if not path.is_file():
            print("skipped (missing)", rel)
            continue
        font = ImageFont.truetype(str(path), SIZE)
        for k, ch in enumerate(syllables):
            for shear in SHEARS:
                for t in THICKEN:
                    m = draw(ch, font, shear, t)
                    if m is not None:
                        feats.append(syllable_features(m))
                        labels.append(k)
    np.savez_compressed(args.out, syllables=np.array(syllables), labels=np.array(labels, np.int16),
                        features=np.array(feats, np.float16))
    print(f"{len(feats)} drawings of {len(syllables)} syllables → {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
