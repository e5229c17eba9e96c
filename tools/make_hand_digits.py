"""Build the hand-digit reader that `scanner.ocr.hand_digits` ships (scanner/ocr/data/hand_digits.npz).

    python -m tools.make_hand_digits            # ≈ 3-5 min on one core
    python -m tools.make_hand_digits --more --seed 36 --out scanner/ocr/data/hand_digits_more.npz
    python -m tools.make_hand_digits --more --seed 37 --out scanner/ocr/data/hand_digits_more_b.npz
    python -m tools.make_hand_digits --more --wide --seed 38 --out scanner/ocr/data/hand_digits_wide.npz
                                                # the ID digits' three more networks

Digits written by hand in a form's count, total and ID boxes are read by a small network (one
hidden layer on `counts.glyph_features`) trained here on digits no player wrote: glyphs of
handwriting and print fonts, and digits drawn as pen strokes (a skeleton per way of writing each
digit, its points moved at random), each slanted, turned, stretched, bent (an elastic field),
thickened or thinned, pressed lightly or hard, blurred and noised, then cut out of its cell by
the reader's own steps (`counts.normalise`, `binarize_cell`, `group_components`). No model
weights are downloaded; the fonts come from Debian packages (those missing are skipped).

Held out: no font of the faces `bench/bench_hand.py` measures on (`samples/kde_paper.py`
HELD_OUT_FACES, HELD_OUT_LATER: Un Pilgi and Un Pilgi-a, Un Pen, the alee fonts, BM
Kirang-haerang, the dkg handwriting) is drawn here.
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

OUT = Path(__file__).resolve().parent.parent / "scanner" / "ocr" / "data" / "hand_digits.npz"
FONTS = Path("/usr/share/fonts/truetype")
HAND_FONTS = ["nanum/NanumPen.ttf", "nanum/NanumBrush.ttf", "nanum/NanumBarunpenR.ttf",
              "nanum/NanumBarunpenB.ttf", "humor-sans/Humor-Sans.ttf", "woowa-bm/BMYEONSUNG_ttf.ttf",
              "unfonts-extra/UnPenheulim.ttf", "woowa-bm/BMEuljirooraeorae.ttf",
              "woowa-bm/BMEuljiro10yearslater.ttf"]
"""Handwriting (and hand-lettered) fonts drawn: the reader's tuning faces and a few others."""
PRINT_FONTS = ["nanum/NanumGothic.ttf", "nanum/NanumGothicBold.ttf", "nanum/NanumBarunGothic.ttf",
               "nanum/NanumSquareR.ttf", "nanum/NanumSquareRoundR.ttf", "nanum/NanumMyeongjo.ttf",
               "unfonts-core/UnDotum.ttf", "unfonts-core/UnGraphic.ttf", "unfonts-core/UnDinaru.ttf",
               "unfonts-extra/UnTaza.ttf", "unfonts-extra/UnVada.ttf", "woowa-bm/BMJUA_ttf.ttf",
               "woowa-bm/BMDOHYEON_ttf.ttf", "woowa-bm/BMHANNAAir_ttf.ttf", "woowa-bm/BMHANNAPro.ttf",
               "crosextra/Carlito-Italic.ttf", "crosextra/Carlito-Regular.ttf",
               "dejavu/DejaVuSans-Oblique.ttf", "dejavu/DejaVuSerif-Italic.ttf",
               "liberation2/LiberationSans-Italic.ttf", "liberation2/LiberationSerif-Italic.ttf",
               "liberation2/LiberationMono-Regular.ttf"]
"""Print fonts drawn: people write many digits as they see them printed (a 4 closed or open,
a 1 with a flag and a foot, a 7 with a crossbar)."""
MORE_HAND_FONTS = ["unfonts-core/UnGungseo.ttf", "lexi/LexiSaebomR.ttf", "woowa-bm/BMHANNA_11yrs_ttf.ttf",
                   "woowa-bm/BMEULJIROTTF.ttf", "unfonts-extra/UnShinmun.ttf", "unfonts-extra/UnYetgul.ttf"]
"""More lettered and brush fonts, drawn for the ID digits' other networks (`--more`:
`hand_digits.MORE_MODEL_PATHS`)."""
MORE_PRINT_FONTS = ["nanum/NanumBarunGothicLight.ttf", "nanum/NanumSquareRoundB.ttf", "nanum/NanumMyeongjoBold.ttf",
                    "nanum/NanumGothicCoding.ttf", "crosextra/Carlito-BoldItalic.ttf",
                    "baekmuk/gulim.ttf", "baekmuk/batang.ttf", "unfonts-core/UnBatang.ttf",
                    "unfonts-extra/UnJamoNovel.ttf", "unfonts-extra/UnJamoSora.ttf"]
"""More print fonts for the ID digits' other networks."""
TUNING_FONTS = "NanumPen,NanumBrush,UnPenheulim,Humor-Sans,BMYEONSUNG"
"""The tuning faces' fonts (`samples/kde_paper.py` TUNING_FACES): `--leave-out` them for a network
that judges a recipe on the tuning sets as on a hand it never saw."""
HELD_OUT = ("UnPilgi", "UnPen.", "alee/", "KIRANG", "fifthhorseman/")
"""Parts of font paths never drawn here (the bench's held-out faces and their families)."""

# ------------------------------------------------------------------ digits as pen strokes

Stroke = list[tuple[float, float]]
"""Points of one pen stroke in a unit box: x 0..0.6 (a digit's width), y 0..1 downwards."""


def _arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 12) -> Stroke:
    """Points of an elliptic arc from angle a0 to a1 (degrees; 0 = right, 90 = down)."""
    t = np.radians(np.linspace(a0, a1, n))
    return [(cx + rx * np.cos(a), cy + ry * np.sin(a)) for a in t]


SKELETONS: dict[int, list[list[Stroke]]] = {
    0: [[_arc(0.3, 0.5, 0.28, 0.48, -100, 265, 20)],
        [_arc(0.3, 0.5, 0.24, 0.48, -80, 290, 20)]],
    1: [[[(0.3, 0.0), (0.3, 1.0)]],
        [[(0.16, 0.15), (0.3, 0.0), (0.3, 1.0)]],
        [[(0.15, 0.14), (0.32, 0.0), (0.32, 1.0)], [(0.12, 1.0), (0.52, 1.0)]],
        [[(0.18, 0.12), (0.34, 0.0), (0.28, 1.0)]]],
    2: [[_arc(0.3, 0.27, 0.27, 0.26, 190, 360, 10) + [(0.5, 0.48), (0.02, 1.0), (0.6, 1.0)]],
        [_arc(0.3, 0.27, 0.27, 0.26, 180, 380, 12) + [(0.02, 1.0), (0.58, 0.98)]],
        [_arc(0.3, 0.27, 0.27, 0.26, 200, 360, 10) + [(0.45, 0.6), (0.05, 0.98), (0.12, 0.86),
                                                      (0.2, 0.96), (0.6, 0.97)]],
        [[(0.02, 0.08), (0.3, 0.0), (0.56, 0.04), (0.5, 0.2), (0.04, 0.98), (0.6, 0.96)]]],
    3: [[_arc(0.3, 0.25, 0.26, 0.24, 200, 450, 12)[:-1] + [(0.22, 0.5)]
         + _arc(0.3, 0.74, 0.28, 0.26, -90, 160, 12)],
        [[(0.04, 0.0), (0.56, 0.0), (0.26, 0.4)] + _arc(0.3, 0.7, 0.28, 0.3, -90, 160, 12)],
        [_arc(0.28, 0.25, 0.25, 0.24, 190, 440, 12) + _arc(0.3, 0.74, 0.29, 0.26, -80, 150, 12)]],
    4: [[[(0.42, 0.0), (0.0, 0.68), (0.6, 0.68)], [(0.44, 0.25), (0.44, 1.0)]],
        [[(0.42, 0.0), (0.0, 0.68), (0.6, 0.68)], [(0.44, 0.0), (0.44, 1.0)]],
        [[(0.08, 0.0), (0.04, 0.62), (0.6, 0.62)], [(0.44, 0.05), (0.44, 1.0)]],
        [[(0.12, 0.0), (0.04, 0.6), (0.58, 0.58)], [(0.46, 0.28), (0.44, 1.0)]]],
    5: [[[(0.56, 0.0), (0.08, 0.0), (0.05, 0.45)] + _arc(0.28, 0.7, 0.28, 0.29, -120, 150, 12)],
        [[(0.08, 0.0), (0.05, 0.45)] + _arc(0.28, 0.7, 0.28, 0.29, -120, 150, 12), [(0.08, 0.0), (0.56, 0.0)]],
        [[(0.58, 0.02), (0.12, 0.0), (0.06, 0.42), (0.3, 0.38)] + _arc(0.28, 0.7, 0.3, 0.3, -70, 160, 10)]],
    6: [[[(0.5, 0.02), (0.25, 0.2), (0.06, 0.55)] + _arc(0.3, 0.72, 0.26, 0.28, 180, 540, 18)],
        [_arc(0.55, 0.55, 0.5, 0.55, 250, 180, 6) + _arc(0.3, 0.72, 0.27, 0.27, 180, 530, 16)]],
    7: [[[(0.0, 0.0), (0.58, 0.0), (0.22, 1.0)]],
        [[(0.0, 0.0), (0.58, 0.0), (0.22, 1.0)], [(0.12, 0.52), (0.5, 0.52)]],
        [[(0.0, 0.15), (0.04, 0.0), (0.58, 0.02), (0.38, 0.45), (0.28, 1.0)]]],
    8: [[_arc(0.3, 0.25, 0.22, 0.24, 100, -180, 12)[:-1] + _arc(0.3, 0.74, 0.28, 0.26, -90, 270, 18)],
        [_arc(0.3, 0.25, 0.23, 0.24, 0, 360, 16), _arc(0.3, 0.74, 0.28, 0.26, 0, 360, 16)]],
    9: [[_arc(0.3, 0.28, 0.27, 0.27, 0, 360, 16) + [(0.57, 0.3), (0.5, 1.0)]],
        [_arc(0.3, 0.28, 0.27, 0.27, 0, 360, 16) + [(0.57, 0.3), (0.56, 0.7), (0.4, 0.98), (0.1, 0.95)]],
        [_arc(0.3, 0.28, 0.27, 0.27, -20, 340, 16) + [(0.52, 1.0)]]],
}
"""Ways of writing each digit (strokes of points), after common handwriting."""


def _smooth(points: np.ndarray, n: int = 6) -> np.ndarray:
    """A Catmull-Rom curve through the points (n steps per span)."""
    if len(points) < 3:
        return points
    p = np.vstack([points[0], points, points[-1]])
    out = []
    for i in range(1, len(p) - 2):
        p0, p1, p2, p3 = p[i - 1], p[i], p[i + 1], p[i + 2]
        for t in np.linspace(0, 1, n, endpoint=False):
            t2, t3 = t * t, t * t * t
            out.append(0.5 * ((2 * p1) + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2
                              + (-p0 + 3 * p1 - 3 * p2 + p3) * t3))
    out.append(p[-2])
    return np.array(out)


def stroke_digit(d: int, rng: np.random.Generator, height: int) -> np.ndarray:
    """Ink coverage (float 0..1) of digit `d` drawn as pen strokes `height` px tall (and margins)."""
    strokes = SKELETONS[d][int(rng.integers(len(SKELETONS[d])))]
    width_k = rng.uniform(0.7, 1.35)
    jitter = rng.uniform(0.015, 0.05)
    pad = 0.35 * height
    w = int(height * 0.6 * width_k + 2 * pad) + 1
    img = np.zeros((int(height + 2 * pad) + 1, w), np.float32)
    thick = max(1.0, height * rng.uniform(0.05, 0.2))
    for stroke in strokes:
        pts = np.array(stroke, np.float32)
        pts = pts + rng.normal(0, jitter, pts.shape)
        pts[:, 0] *= width_k
        curve = _smooth(pts) * height + pad
        wobble = rng.uniform(0.75, 1.25)
        cv2.polylines(img, [np.round(curve * 16).astype(np.int32).reshape(-1, 1, 2)], False, 1.0,
                      thickness=max(1, int(round(thick * wobble))), lineType=cv2.LINE_AA, shift=4)
    return np.clip(img, 0, 1)


# ------------------------------------------------------------------ digits in fonts

def _fonts(paths: list[str]) -> list[Path]:
    out = []
    for p in paths:
        if any(h in p for h in HELD_OUT):
            raise ValueError(f"{p} is held out")
        if (FONTS / p).is_file():
            out.append(FONTS / p)
    return out


def font_digit(d: int, font: Path, height: int) -> np.ndarray:
    """Ink coverage of digit `d` in `font`, its ink `height` px tall (with margins)."""
    f = ImageFont.truetype(str(font), 4 * height)
    x0, y0, x1, y1 = f.getbbox(str(d))
    if x1 <= x0 or y1 <= y0:
        return np.zeros((1, 1), np.float32)
    img = Image.new("L", (x1 - x0 + 8, y1 - y0 + 8), 0)
    ImageDraw.Draw(img).text((4 - x0, 4 - y0), str(d), font=f, fill=255)
    a = np.asarray(img, np.float32) / 255
    ys, xs = np.nonzero(a > 0.1)
    if ys.size == 0:
        return np.zeros((1, 1), np.float32)
    a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    k = height / a.shape[0]
    a = cv2.resize(a, (max(1, int(round(a.shape[1] * k))), height), interpolation=cv2.INTER_AREA)
    pad = int(0.35 * height) + 1
    return cv2.copyMakeBorder(a, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)


# ------------------------------------------------------------------ a hand's variations

@dataclass(frozen=True)
class Variety:
    """How far `vary` moves a glyph from its font or skeleton."""

    shear: tuple[float, float] = (-0.4, 0.3)
    turn_deg: float = 7.0
    stretch: tuple[float, float] = (0.75, 1.25)
    bend: float = 0.05
    """Of the glyph's size: the elastic field's largest shift."""
    heavier: float = 0.25
    """Share of glyphs thickened (a dilation)…"""
    heavier_px: tuple[int, int] = (16, 16)
    """…by a square of size // a number drawn between these…"""
    lighter: float = 0.15
    """…and share thinned."""


VARIETY = Variety()
WIDE = Variety(shear=(-0.5, 0.45), turn_deg=10.0, stretch=(0.6, 1.4), bend=0.08, heavier=0.35,
               heavier_px=(8, 20), lighter=0.2)
"""`--wide`: the ID digits' further networks learn hands further from their fonts (broader,
narrower, more italic or back-slanted, more bent, heavier brush strokes): the held-out faces'
digits lie further from any font drawn than the tuning faces' from theirs."""


def vary(glyph: np.ndarray, rng: np.random.Generator, variety: Variety = VARIETY) -> np.ndarray:
    """The glyph slanted, turned, stretched, bent and its strokes made heavier or lighter."""
    h, w = glyph.shape
    size = max(h, w)
    g = cv2.copyMakeBorder(glyph, size // 3, size // 3, size // 3, size // 3, cv2.BORDER_CONSTANT, value=0)
    h, w = g.shape
    shear = rng.uniform(*variety.shear)
    ang = np.radians(rng.uniform(-variety.turn_deg, variety.turn_deg))
    sx = rng.uniform(*variety.stretch)
    c, s = np.cos(ang), np.sin(ang)
    m = np.array([[c * sx, -s + shear, 0], [s * sx, c, 0]], np.float32)
    centre = np.array([w / 2, h / 2], np.float32)
    m[:, 2] = centre - m[:, :2] @ centre
    g = cv2.warpAffine(g, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
    bend = rng.uniform(0.0, variety.bend) * size
    if bend > 0.3:
        cell = max(3, size // 4)
        fx = cv2.resize(rng.normal(0, 1, (h // cell + 2, w // cell + 2)).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC) * bend
        fy = cv2.resize(rng.normal(0, 1, (h // cell + 2, w // cell + 2)).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC) * bend
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        g = cv2.remap(g, xs + fx, ys + fy, cv2.INTER_LINEAR, borderValue=0)
    r = rng.random()
    lo, hi = variety.heavier_px
    k = max(2, size // (lo if lo == hi else int(rng.integers(lo, hi + 1))))
    if r < variety.heavier:
        g = cv2.dilate(g, np.ones((k, k), np.uint8))
    elif r < variety.heavier + variety.lighter:
        g = cv2.erode(g, np.ones((2, 2), np.uint8))
    return np.clip(g, 0, 1)


def on_paper(glyph: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The glyph written in a count cell at a form's scale (gray uint8, white paper): the glyph
    fills 0.45-0.95 of the cell's height, with pen pressure, blur, noise and JPEG."""
    ys, xs = np.nonzero(glyph > 0.1)
    if ys.size == 0:
        return np.full((20, 30), 255, np.uint8)
    glyph = glyph[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    cell_h = rng.uniform(26, 56)  # a count cell's rows at 150-300 dpi
    gh = cell_h * rng.uniform(0.45, 0.95)
    k = gh / glyph.shape[0]
    g = cv2.resize(glyph, (max(1, int(round(glyph.shape[1] * k))), max(1, int(round(gh)))),
                   interpolation=cv2.INTER_AREA)
    H = int(cell_h)
    W = int(max(cell_h * 1.1, g.shape[1] + 6))
    cover = np.zeros((max(H, g.shape[0] + 2), W), np.float32)
    y = (cover.shape[0] - g.shape[0]) // 2 + int(rng.integers(-2, 3))
    y = min(max(0, y), cover.shape[0] - g.shape[0])
    x = (W - g.shape[1]) // 2
    cover[y:y + g.shape[0], x:x + g.shape[1]] = g
    pressure = rng.uniform(0.45, 1.0)
    paper = rng.uniform(215, 250)
    ink = rng.uniform(10, 90)
    img = paper - (paper - ink) * pressure * cover
    sigma = rng.uniform(0, 1.0)
    if sigma > 0.15:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img = img + rng.normal(0, rng.uniform(1, 6), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 90))])
        img = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    return img


def glyph_mask(cell: np.ndarray) -> np.ndarray | None:
    """The largest glyph of a cell as the count reader finds it (`counts.read_hand_count`)."""
    from scanner.ocr.counts import (H_NORM, MIN_GLYPH_H, binarize_cell, drop_rule_remnants,
                                    group_components, normalise)
    ink = drop_rule_remnants(binarize_cell(normalise(cell)))
    glyphs = [g for g in group_components(ink, MIN_GLYPH_H * H_NORM) if g.height >= MIN_GLYPH_H * H_NORM]
    if not glyphs:
        return None
    return max(glyphs, key=lambda g: int(g.mask.sum())).mask


@dataclass
class Samples:
    features: np.ndarray
    labels: np.ndarray
    source: np.ndarray


def make_samples(rng: np.random.Generator, per_digit_font: int, per_digit_strokes: int,
                 more: bool = False, leave_out: tuple[str, ...] = (), variety: Variety = VARIETY) -> Samples:
    from scanner.ocr.counts import glyph_features
    feats, labels, src = [], [], []
    hand_fonts = HAND_FONTS + (MORE_HAND_FONTS if more else [])
    print_fonts = PRINT_FONTS + (MORE_PRINT_FONTS if more else [])
    fonts = [(f, True) for f in _fonts(hand_fonts)] + [(f, False) for f in _fonts(print_fonts)]
    fonts = [(f, hand) for f, hand in fonts if not any(part in str(f) for part in leave_out)]

    def add(glyph: np.ndarray, d: int, name: str) -> None:
        mask = glyph_mask(on_paper(vary(glyph, rng, variety), rng))
        if mask is not None:
            feats.append(glyph_features(mask))
            labels.append(d)
            src.append(name)

    for d in range(10):
        for font, hand in fonts:
            for _ in range(per_digit_font * (2 if hand else 1)):
                add(font_digit(d, font, int(rng.integers(28, 64))), d, font.stem)
        for _ in range(per_digit_strokes):
            add(stroke_digit(d, rng, int(rng.integers(28, 64))), d, "strokes")
    return Samples(np.asarray(feats, np.float32), np.asarray(labels, np.int64), np.asarray(src))


# ------------------------------------------------------------------ the network

def train(samples: Samples, rng: np.random.Generator, hidden: int = 128, epochs: int = 40,
          lr: float = 2e-3, decay: float = 1e-4, classes: int = 10, dropout: float = 0.2,
          batch: int = 128) -> dict[str, np.ndarray]:
    """One hidden layer (ReLU) and a softmax over `classes`, trained with Adam on mini-batches."""
    x, y = samples.features, samples.labels
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-3
    x = (x - mean) / std
    n, d = x.shape
    params = {"w1": rng.normal(0, np.sqrt(2 / d), (d, hidden)).astype(np.float32),
              "b1": np.zeros(hidden, np.float32),
              "w2": rng.normal(0, np.sqrt(2 / hidden), (hidden, classes)).astype(np.float32),
              "b2": np.zeros(classes, np.float32)}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(n)
        rate = lr * (0.5 * (1 + np.cos(np.pi * epoch / epochs)))
        for a in range(0, n, batch):
            idx = order[a:a + batch]
            xb, yb = x[idx], y[idx]
            h = np.maximum(0, xb @ params["w1"] + params["b1"])
            drop = (rng.random(h.shape) > dropout).astype(np.float32) / (1 - dropout)
            hd = h * drop
            z = hd @ params["w2"] + params["b2"]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            g = p
            g[np.arange(len(yb)), yb] -= 1
            g /= len(yb)
            grads = {"w2": hd.T @ g + decay * params["w2"], "b2": g.sum(axis=0)}
            gh = (g @ params["w2"].T) * drop * (h > 0)
            grads["w1"] = xb.T @ gh + decay * params["w1"]
            grads["b1"] = gh.sum(axis=0)
            step += 1
            for k in params:
                m[k] = 0.9 * m[k] + 0.1 * grads[k]
                v[k] = 0.999 * v[k] + 0.001 * grads[k] ** 2
                mh = m[k] / (1 - 0.9 ** step)
                vh = v[k] / (1 - 0.999 ** step)
                params[k] -= rate * mh / (np.sqrt(vh) + 1e-8)
    return {"mean": mean.astype(np.float32), "std": std.astype(np.float32), **params}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--per-font", type=int, default=30, help="samples per digit and font (hand fonts twice)")
    ap.add_argument("--per-strokes", type=int, default=800, help="stroke-drawn samples per digit")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--more", action="store_true",
                    help="also the MORE_ fonts: the ID digits' other networks (hand_digits.MORE_MODEL_PATHS)")
    ap.add_argument("--leave-out", default="",
                    help="comma-separated parts of font paths not drawn (TUNING_FONTS: a network for choosing a "
                         "recipe on the tuning faces, never shipped)")
    ap.add_argument("--wide", action="store_true", help="glyphs varied further (WIDE)")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    leave_out = tuple(p for p in args.leave_out.split(",") if p)
    samples = make_samples(rng, args.per_font, args.per_strokes, args.more, leave_out,
                           WIDE if args.wide else VARIETY)
    print(f"{len(samples.labels)} samples in {time.time() - t0:.0f} s", flush=True)
    model = train(samples, rng, hidden=args.hidden, epochs=args.epochs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **{k: v.astype(np.float16) if k.startswith("w") else v
                                     for k, v in model.items()})
    print(f"model → {args.out} ({args.out.stat().st_size // 1024} KiB) in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
