"""Build the name-syllable network that `scanner.ocr.hand_syllables` ships (scanner/ocr/data/name_net.npz).

    python -m tools.make_name_net            # ≈ 4 min CPU on one core

A player's name written by hand is read syllable by syllable among the surnames and given-name
syllables of the header reader (`header.SURNAMES`, `header.GIVEN_SYLLABLES`). The shipped
drawings (`tools/make_name_syllables.py`) compare a written syllable with each syllable drawn
upright and leaning in fourteen fonts; this network (one hidden layer on the same
`syllable_features`) learns the syllables from many more drawings: each syllable drawn in every
Korean handwriting and print font of `FONTS` (those missing are skipped), then slanted, turned,
stretched, bent, thickened or thinned (`tools.make_hand_digits.vary`) and written small (18-45 px
high, blurred, cut at a random ink level), as a hand in a form's name box is. No weights are
downloaded.

Held out: no font of the faces `bench/bench_hand.py` measures on (`samples/kde_paper.py`
HELD_OUT_FACES, HELD_OUT_LATER: Un Pilgi and Un Pilgi-a, Un Pen, the alee fonts, BM
Kirang-haerang, the dkg handwriting) is drawn here (`tools.make_hand_digits.HELD_OUT`).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scanner.ocr.hand_syllables import FONTS, NET_PATH, syllable_features
from tools.make_hand_digits import HELD_OUT, Samples, train, vary

FONT_FILES = ("nanum/NanumPen.ttf", "nanum/NanumBrush.ttf", "nanum/NanumBarunpenR.ttf", "nanum/NanumBarunpenB.ttf",
              "woowa-bm/BMYEONSUNG_ttf.ttf", "unfonts-extra/UnPenheulim.ttf", "woowa-bm/BMEuljirooraeorae.ttf",
              "woowa-bm/BMEuljiro10yearslater.ttf", "nanum/NanumGothic.ttf", "nanum/NanumGothicBold.ttf",
              "nanum/NanumGothicLight.ttf", "nanum/NanumMyeongjo.ttf", "nanum/NanumSquareR.ttf",
              "nanum/NanumSquareRoundR.ttf", "unfonts-core/UnDotum.ttf",
              "unfonts-core/UnGraphic.ttf", "unfonts-core/UnDinaru.ttf", "unfonts-core/UnBatang.ttf",
              "unfonts-core/UnGungseo.ttf", "unfonts-extra/UnTaza.ttf", "unfonts-extra/UnVada.ttf",
              "unfonts-extra/UnShinmun.ttf", "unfonts-extra/UnYetgul.ttf", "unfonts-extra/UnJamoNovel.ttf",
              "woowa-bm/BMJUA_ttf.ttf", "woowa-bm/BMDOHYEON_ttf.ttf", "woowa-bm/BMHANNAAir_ttf.ttf",
              "woowa-bm/BMHANNAPro.ttf", "woowa-bm/BMHANNA_11yrs_ttf.ttf", "woowa-bm/BMEULJIROTTF.ttf",
              "lexi/LexiSaebomR.ttf", "baekmuk/gulim.ttf")
"""Korean handwriting, lettered and print fonts drawn (Debian packages; not NanumBarunGothic, the
print face the header tests read as one no drawing is made in)."""
DRAW_PX = 56
"""Pixel size each syllable is drawn at before it is varied."""
WRITTEN_PX = (16.0, 45.0)
"""Heights (px) a varied drawing is shrunk to: a name box's syllables at 150-300 dpi."""
CUT_LEVEL = (0.25, 0.55)
"""Ink levels (of 1) the shrunk drawing is cut at: pressed hard or lightly."""
BLUR = (0.3, 0.9)
"""Blur (px) of half the shrunk drawings (a phone's lens)."""


def drawn(ch: str, font: ImageFont.FreeTypeFont) -> np.ndarray | None:
    img = Image.new("L", (DRAW_PX * 3, DRAW_PX * 2), 0)
    ImageDraw.Draw(img).text((DRAW_PX, DRAW_PX // 3), ch, font=font, fill=255)
    a = np.asarray(img).astype(np.float32) / 255
    return a if a.max() > 0 else None


def written_small(glyph: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """The varied drawing as written in a name box: shrunk, maybe blurred, cut at an ink level."""
    ys, xs = np.nonzero(glyph > 0.3)
    if len(ys) == 0:
        return None
    g = glyph[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h = rng.uniform(*WRITTEN_PX)
    k = h / g.shape[0]
    g = cv2.resize(g, (max(2, int(g.shape[1] * k)), max(2, int(h))), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        g = cv2.GaussianBlur(g, (0, 0), rng.uniform(*BLUR))
    m = g > rng.uniform(*CUT_LEVEL)
    return m if m.any() else None


def make_samples(syllables: str, per_font: int, rng: np.random.Generator) -> Samples:
    feats, labels, src = [], [], []
    for rel in FONT_FILES:
        path = FONTS / rel
        if not path.is_file() or any(h in str(path) for h in HELD_OUT):
            print("skipped", rel)
            continue
        font = ImageFont.truetype(str(path), DRAW_PX)
        for k, ch in enumerate(syllables):
            glyph = drawn(ch, font)
            for _ in range(per_font if glyph is not None else 0):
                m = written_small(vary(glyph, rng), rng)
                if m is not None:
                    feats.append(syllable_features(m))
                    labels.append(k)
                    src.append(path.stem)
    return Samples(np.asarray(feats, np.float32), np.asarray(labels, np.int64), np.asarray(src))


def build(syllables: str, out: Path, seed: int, per_font: int, epochs: int, hidden: int) -> None:
    """`syllables` drawn, varied and written small in every font, learnt, saved to `out`."""
    rng = np.random.default_rng(seed)
    t0 = time.process_time()
    samples = make_samples(syllables, per_font, rng)
    print(f"{len(samples.labels)} drawings of {len(syllables)} syllables in {time.process_time() - t0:.0f} s", flush=True)
    net = train(samples, np.random.default_rng(seed + 2), hidden=hidden, epochs=epochs,
                classes=len(syllables), dropout=0.3, batch=256)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, syllables=np.array(syllables),
                        **{k: v.astype(np.float16) if k.startswith("w") else v for k, v in net.items()})
    print(f"network → {out} ({out.stat().st_size // 1024} KiB) in {time.process_time() - t0:.0f} s CPU")


def main(argv: list[str] | None = None) -> int:
    from scanner.ocr.header import GIVEN_SYLLABLES, SURNAMES
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=NET_PATH)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--per-font", type=int, default=10, help="varied drawings per syllable and font")
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--hidden", type=int, default=384)
    args = ap.parse_args(argv)
    build("".join(dict.fromkeys(SURNAMES + GIVEN_SYLLABLES)), args.out, args.seed, args.per_font,
          args.epochs, args.hidden)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
