"""Render digits, count cells and sheet rows like a phone photo of a pen-corrected sheet.

One job: synthetic ink on paper. It builds the digit templates that `scanner.ocr.counts` ships
(`python -m tools.make_digit_templates` writes scanner/ocr/data/digit_templates.npz) and gives the
tests and bench/bench_marks.py realistic cells and rows with known truth. Nothing here is used
at scan time.
"""
from __future__ import annotations

import argparse
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path("/usr/share/fonts/truetype/nanum")
PRINTED_FONTS = ["NanumGothic", "NanumBarunGothic", "NanumMyeongjo", "NanumSquareR"]
"""The families the sheets are printed in (regular weight)."""
PRINTED_EXTRA = ["NanumGothicBold", "NanumSquareB", "NanumBarunGothicBold", "NanumGothicCoding",
                 "NanumMyeongjoBold", "NanumGothicLight"]
"""Other weights: widen the printed templates without being the sheet fonts themselves."""
PRINTED_SPARE = ["UnDotum", "UnBatang", "UnGraphic", "BaekmukGulim", "BaekmukDotum", "BaekmukBatang"]
"""Other Korean print fonts a sheet may be printed in (scanner.ocr.verify's spare families):
their digits are appended as a block of their own, so the Nanum templates stay as they were."""
SPARE_FILES = {"BaekmukGulim": "baekmuk/gulim.ttf", "BaekmukDotum": "baekmuk/dotum.ttf",
               "BaekmukBatang": "baekmuk/batang.ttf"}
"""Fonts whose file is not named after them (under /usr/share/fonts/truetype)."""
PEN_FONTS = ["NanumPen", "NanumBrush"]
"""Nanum Pen Script and Nanum Brush Script: the hand-writing on corrected sheets."""
PEN_EXTRA = ["NanumBarunpenR", "NanumBarunpenB"]
TEMPLATES_PATH = Path(__file__).resolve().parent.parent / "scanner" / "ocr" / "data" / "digit_templates.npz"

SUPER = 4
"""Supersampling factor: ink is drawn at SUPER× and shrunk, so edges are anti-aliased."""
NAMES = ["달인 강시", "뱀파이어 제네시스", "어둠에서 나온 절망", "용골귀", "모래 먼지의 악령",
         "망설임의 사도", "싸이크론", "미라가 부르는 소리", "생환의 패", "강제 탈출 장치",
         "무모한 욕심쟁이", "격류장", "더스트 토네이도", "블루밍 로즈", "크로노다이버 스타트업",
         "BF－잔야의 크리스", "참기 서브트라", "달의 서", "광신화", "메카 헌터", "스킬 석세서",
         "도미나스 임펄스", "증식하는 G", "하루 우라라", "원시생명체 니비루", "엑스트라 링크"]
"""Sample card-like names (Hangul, Latin, full-width punctuation) for synthetic rows."""


@lru_cache(maxsize=64)
def font_path(name: str) -> Path:
    """The font file of a family: Debian's Nanum folder first, else where fontconfig has it."""
    path = FONT_DIR / f"{name}.ttf"
    if path.is_file():
        return path
    if name in SPARE_FILES:
        return FONT_DIR.parent / SPARE_FILES[name]
    try:
        found = subprocess.run(["fc-match", "-f", "%{file}", f"{name}:fontformat=TrueType"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return path
    # fc-match always answers with some font: accept it only when it is the family asked for.
    return Path(found) if found and Path(found).stem.lower() == name.lower() else path


def fonts_available(names: list[str]) -> list[str]:
    return [n for n in names if font_path(n).is_file()]


@lru_cache(maxsize=256)
def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_path(name)), size)


def render_text(text: str, font: str, height_px: float, ink_height: bool = False) -> np.ndarray:
    """Ink coverage (float 0..1) of `text`, tightly cropped.

    height_px is the em size, or (ink_height=True) the height of the inked box.
    """
    size = max(4, int(round(height_px)))
    f = _font(font, size)
    x0, y0, x1, y1 = f.getbbox(text)
    img = Image.new("L", (x1 - x0 + 4, y1 - y0 + 4), 0)
    ImageDraw.Draw(img).text((2 - x0, 2 - y0), text, font=f, fill=255)
    a = np.asarray(img, np.float32) / 255.0
    ys, xs = np.nonzero(a > 0.05)
    if ys.size == 0:
        return a
    a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    if ink_height and a.shape[0] != round(height_px):
        k = height_px / a.shape[0]
        a = cv2.resize(a, (max(1, round(a.shape[1] * k)), max(1, round(height_px))),
                       interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_CUBIC)
    return np.clip(a, 0, 1)


def pen_line(canvas: np.ndarray, p0: tuple[float, float], p1: tuple[float, float], width: float,
             rng: np.random.Generator, wave: float = 1.0) -> None:
    """Draw a slightly wavy pen stroke (coverage 1.0) from p0 to p1 on a coverage canvas."""
    n = 24
    t = np.linspace(0, 1, n)
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    length = max(1e-6, np.hypot(dx, dy))
    nx, ny = -dy / length, dx / length
    phase, cycles = rng.uniform(0, 2 * np.pi), rng.uniform(0.5, 2.5)
    off = wave * np.sin(phase + 2 * np.pi * cycles * t) + rng.normal(0, wave * 0.15, n)
    xs = p0[0] + dx * t + nx * off
    ys = p0[1] + dy * t + ny * off
    pts = np.stack([xs, ys], 1) * 16
    cv2.polylines(canvas, [pts.astype(np.int32).reshape(-1, 1, 2)], False, 1.0,
                  thickness=max(1, int(round(width))), lineType=cv2.LINE_AA, shift=4)


def paste(canvas: np.ndarray, glyph: np.ndarray, x: float, y: float) -> None:
    """Add glyph coverage at top-left (x, y), clipped to the canvas."""
    x, y = int(round(x)), int(round(y))
    h, w = glyph.shape
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(canvas.shape[1], x + w), min(canvas.shape[0], y + h)
    if x1 <= x0 or y1 <= y0:
        return
    sub = glyph[y0 - y:y1 - y, x0 - x:x1 - x]
    canvas[y0:y1, x0:x1] = np.maximum(canvas[y0:y1, x0:x1], sub)


@dataclass
class Layers:
    """Coverage layers at SUPER× resolution: printed ink and pen ink, composed by `photograph`."""

    printed: np.ndarray
    pen: np.ndarray

    @classmethod
    def blank(cls, w: int, h: int) -> "Layers":
        return cls(np.zeros((h * SUPER, w * SUPER), np.float32), np.zeros((h * SUPER, w * SUPER), np.float32))


PEN_COLOURS = {"black": (30, 28, 32), "blue": (120, 45, 25)}
"""BGR pen ink: black and dark blue ballpoint."""


def photograph(layers: Layers, rng: np.random.Generator, pen_colour: str = "black",
               blur: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Compose the layers on paper and degrade like a phone photo.

    Returns (gray, bgr): gray flattened by dividing by a blurred background (what the OCR
    pipeline hands over), bgr the unflattened colour image.
    """
    hs, ws = layers.printed.shape
    h, w = hs // SUPER, ws // SUPER
    printed = cv2.resize(layers.printed, (w, h), interpolation=cv2.INTER_AREA)
    pen = cv2.resize(layers.pen, (w, h), interpolation=cv2.INTER_AREA)
    paper = np.array([rng.uniform(215, 245), rng.uniform(220, 248), rng.uniform(220, 250)], np.float32)
    ink_p = np.full(3, rng.uniform(80, 125), np.float32)  # print photographs greyer than pen
    ink_pen = np.array(PEN_COLOURS[pen_colour], np.float32) + rng.uniform(-10, 10, 3)
    img = paper[None, None, :] * np.ones((h, w, 1), np.float32)
    img = img * (1 - printed[..., None]) + ink_p * printed[..., None]
    img = img * (1 - pen[..., None]) + ink_pen * pen[..., None]
    # uneven light: a gradient and a soft shadow
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    grad = 1 + rng.uniform(-0.25, 0.05) * ((np.cos(ang) * gx + np.sin(ang) * gy) / max(w, h))
    img *= grad[..., None]
    sigma = rng.uniform(0.0, 1.2) if blur is None else blur
    if sigma > 0.1:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img += rng.normal(0, rng.uniform(1.5, 6), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 86))])
    bgr = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    return flatten(gray), bgr


def flatten(gray: np.ndarray) -> np.ndarray:
    """Divide by a blurred background so paper is ≈255 everywhere (the pipeline's clean-up)."""
    k = max(15, (max(gray.shape) // 4) | 1)
    bg = cv2.dilate(gray, np.ones((7, 7), np.uint8))
    bg = cv2.GaussianBlur(bg.astype(np.float32), (k, k), 0)
    out = gray.astype(np.float32) / np.maximum(bg, 1) * 255
    return np.clip(out, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- count cells

@dataclass
class CellTruth:
    value: int | None
    """What the cell means after corrections (the new value when struck)."""
    printed: int | None
    struck: bool
    strike: str = ""
    hand: bool = False
    font: str = ""


def _digit_glyph(d: int, font: str, height: float, rng: np.random.Generator, hand: bool) -> np.ndarray:
    g = render_text(str(d), font, height * SUPER, ink_height=True)
    if hand:  # hand digits lean and wobble a little
        ang = rng.uniform(-8, 8)
        h, w = g.shape
        pad = int(h * 0.3)
        g = cv2.copyMakeBorder(g, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        m = cv2.getRotationMatrix2D((g.shape[1] / 2, g.shape[0] / 2), ang, 1.0)
        g = cv2.warpAffine(g, m, (g.shape[1], g.shape[0]))
        ys, xs = np.nonzero(g > 0.05)
        g = g[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    return g


def strike_glyph(layers: Layers, box: tuple[float, float, float, float], kind: str, width: float,
                 rng: np.random.Generator) -> None:
    """Strike the ink box (x0, y0, x1, y1 at SUPER×) with a slash, dash or double dash."""
    x0, y0, x1, y1 = box
    gw, gh = x1 - x0, y1 - y0
    ext = max(gw * rng.uniform(0.3, 0.9), gh * rng.uniform(0.15, 0.4))
    cy = (y0 + y1) / 2 + rng.uniform(-0.12, 0.12) * gh
    tilt = np.tan(np.radians(rng.uniform(-8, 8)))
    if kind == "slash":  # bottom-left to top-right, 30–65° from the horizontal
        ang = np.radians(rng.uniform(30, 65))
        half = gh * rng.uniform(0.6, 0.85) / np.sin(ang)
        cx = (x0 + x1) / 2 + rng.uniform(-0.1, 0.1) * gw
        ddx, ddy = np.cos(ang) * half, np.sin(ang) * half
        pen_line(layers.pen, (cx - ddx, cy + ddy), (cx + ddx, cy - ddy), width, rng, wave=0.6 * SUPER)
    elif kind == "dash":
        a, b = x0 - ext, x1 + ext
        pen_line(layers.pen, (a, cy - tilt * (b - a) / 2), (b, cy + tilt * (b - a) / 2), width, rng, 0.6 * SUPER)
    else:  # double dash
        gap = gh * rng.uniform(0.12, 0.22)
        a, b = x0 - ext, x1 + ext
        for off in (-gap, gap):
            pen_line(layers.pen, (a, cy + off - tilt * (b - a) / 2), (b, cy + off + tilt * (b - a) / 2),
                     width, rng, 0.6 * SUPER)


def synth_count_cell(rng: np.random.Generator, kind: str, printed_fonts: list[str] | None = None,
                     pen_fonts: list[str] | None = None) -> tuple[np.ndarray, np.ndarray, CellTruth]:
    """A count cell: kind 'printed' (1–3 printed), 'hand' (a hand digit), 'struck' (a printed digit
    struck, new hand digit right of it), 'struck-only' (struck, new digit outside the cell)."""
    printed_fonts = printed_fonts or fonts_available(PRINTED_FONTS)
    pen_fonts = pen_fonts or fonts_available(PEN_FONTS)
    row_h = rng.uniform(38, 64)
    cell_w = row_h * rng.uniform(1.6, 2.4)
    w, h = int(cell_w), int(row_h)
    layers = Layers.blank(w, h)
    pfont = str(rng.choice(printed_fonts))
    digit_h = row_h * rng.uniform(0.36, 0.48)
    pen_w = rng.uniform(2.0, 4.0) * (row_h / 44) * SUPER
    truth = CellTruth(None, None, False)
    if kind in ("printed", "struck", "struck-only"):
        d = int(rng.integers(1, 4)) if kind != "printed" or rng.random() < 0.9 else int(rng.integers(0, 10))
        g = render_text(str(d), pfont, digit_h * SUPER, ink_height=True)
        gx = (w * SUPER - g.shape[1]) / 2 + rng.uniform(-0.08, 0.08) * w * SUPER
        gy = (h * SUPER - g.shape[0]) / 2 + rng.uniform(-0.1, 0.1) * h * SUPER
        paste(layers.printed, g, gx, gy)
        truth = CellTruth(d, d, False, font=pfont)
        if kind != "printed":
            skind = str(rng.choice(["slash", "dash", "double"]))
            strike_glyph(layers, (gx, gy, gx + g.shape[1], gy + g.shape[0]), skind, pen_w, rng)
            truth = CellTruth(None, d, True, strike=skind, font=pfont)
            if kind == "struck":
                new = int(rng.choice([x for x in (1, 2, 3) if x != d]))
                hfont = str(rng.choice(pen_fonts))
                hg = _digit_glyph(new, hfont, row_h * rng.uniform(0.55, 0.85), rng, hand=True)
                hx = gx + g.shape[1] + rng.uniform(0.35, 0.7) * g.shape[0]
                hx = min(hx, w * SUPER - hg.shape[1] * 0.6)
                hy = (h * SUPER - hg.shape[0]) / 2 + rng.uniform(-0.15, 0.05) * h * SUPER
                paste(layers.pen, hg, hx, hy)
                truth = CellTruth(new, d, True, strike=skind, hand=True, font=hfont)
    elif kind == "hand":
        d = int(rng.integers(1, 4)) if rng.random() < 0.8 else int(rng.integers(0, 10))
        hfont = str(rng.choice(pen_fonts))
        hg = _digit_glyph(d, hfont, row_h * rng.uniform(0.5, 0.85), rng, hand=True)
        paste(layers.pen, hg, (w * SUPER - hg.shape[1]) / 2 + rng.uniform(-0.15, 0.15) * w * SUPER,
              (h * SUPER - hg.shape[0]) / 2 + rng.uniform(-0.12, 0.08) * h * SUPER)
        truth = CellTruth(d, None, False, hand=True, font=hfont)
    elif kind != "empty":
        raise ValueError(f"unknown cell kind {kind!r}")
    colour = "blue" if rng.random() < 0.4 else "black"
    gray, bgr = photograph(layers, rng, colour)
    return gray, bgr, truth


# ---------------------------------------------------------------- rows

@dataclass
class RowTruth:
    struck: bool
    handwriting: bool
    name: str
    kind: str
    extra: dict = field(default_factory=dict)


def synth_row(rng: np.random.Generator, kind: str, printed_fonts: list[str] | None = None,
              pen_fonts: list[str] | None = None) -> tuple[np.ndarray, np.ndarray, RowTruth]:
    """A name+count row of one column: kind 'printed', 'struck' (a pen line through it),
    'hand' (name and count written in pen), 'empty', 'count-left' (printed row with a hand
    digit written at the right end of the name cell)."""
    printed_fonts = printed_fonts or fonts_available(PRINTED_FONTS)
    pen_fonts = pen_fonts or fonts_available(PEN_FONTS)
    row_h = rng.uniform(38, 64)
    w, h = int(row_h * rng.uniform(11, 14)), int(row_h)
    count_x = w * 0.84
    layers = Layers.blank(w, h)
    name = str(rng.choice(NAMES))
    em = row_h * rng.uniform(0.5, 0.66)
    pen_w = rng.uniform(2.0, 4.0) * (row_h / 44) * SUPER
    if kind in ("printed", "struck", "count-left"):
        font = str(rng.choice(printed_fonts))
        g = render_text(name, font, em * SUPER)
        if g.shape[1] > (count_x - row_h * 0.6) * SUPER:
            g = cv2.resize(g, (int((count_x - row_h * 0.6) * SUPER), g.shape[0]), interpolation=cv2.INTER_AREA)
        gy = (h * SUPER - g.shape[0]) / 2 + rng.uniform(-0.06, 0.06) * h * SUPER
        paste(layers.printed, g, row_h * 0.3 * SUPER, gy)
        c = render_text(str(int(rng.integers(1, 4))), font, em * 0.72 * SUPER, ink_height=True)
        paste(layers.printed, c, ((count_x + w) / 2) * SUPER - c.shape[1] / 2, (h * SUPER - c.shape[0]) / 2)
        text_end = row_h * 0.3 + g.shape[1] / SUPER
        if kind == "struck":
            frac = rng.uniform(0.45, 1.0)
            x0 = rng.uniform(0.0, 0.15) * w
            x1 = max(x0 + frac * w, text_end) if rng.random() < 0.5 else x0 + frac * w
            x1 = min(x1, w - 2)
            slope = np.tan(np.radians(rng.uniform(-3, 3)))
            cy = h / 2 + rng.uniform(-0.15, 0.15) * h
            y0 = cy - slope * (x1 - x0) / 2
            y1 = cy + slope * (x1 - x0) / 2
            pen_line(layers.pen, (x0 * SUPER, y0 * SUPER), (x1 * SUPER, y1 * SUPER), pen_w, rng,
                     wave=rng.uniform(0.3, 1.2) * SUPER)
        if kind == "count-left":
            hg = _digit_glyph(int(rng.integers(1, 4)), str(rng.choice(pen_fonts)), row_h * rng.uniform(0.6, 0.9),
                              rng, hand=True)
            paste(layers.pen, hg, (count_x - rng.uniform(0.3, 1.0) * row_h) * SUPER - hg.shape[1],
                  (h * SUPER - hg.shape[0]) / 2 + rng.uniform(-0.3, 0.0) * h * SUPER)
    elif kind == "hand":
        font = str(rng.choice(pen_fonts))
        g = render_text(name, font, row_h * rng.uniform(0.7, 1.0) * SUPER)
        if g.shape[1] > (count_x - row_h * 0.6) * SUPER:
            g = cv2.resize(g, (int((count_x - row_h * 0.6) * SUPER), g.shape[0]), interpolation=cv2.INTER_AREA)
        g = (cv2.dilate((g * 255).astype(np.uint8), np.ones((3, 3), np.uint8)) / 255.0
             if pen_w > 3 * SUPER else g)
        paste(layers.pen, g, row_h * rng.uniform(0.3, 1.5) * SUPER,
              (h * SUPER - g.shape[0]) / 2 + rng.uniform(-0.15, 0.1) * h * SUPER)
        hg = _digit_glyph(int(rng.integers(1, 4)), font, row_h * rng.uniform(0.55, 0.85), rng, hand=True)
        paste(layers.pen, hg, ((count_x + w) / 2) * SUPER - hg.shape[1] / 2, (h * SUPER - hg.shape[0]) / 2)
    elif kind != "empty":
        raise ValueError(f"unknown row kind {kind!r}")
    colour = "blue" if rng.random() < 0.4 else "black"
    gray, bgr = photograph(layers, rng, colour)
    truth = RowTruth(struck=kind == "struck", handwriting=kind in ("hand", "count-left"), name=name, kind=kind,
                     extra={"colour": colour, "count_x": int(count_x)})
    return gray, bgr, truth


# ---------------------------------------------------------------- templates

def template_glyphs(rng: np.random.Generator, fonts: list[str], hand: bool, per_font: int,
                    digits: range = range(10)) -> tuple[list[np.ndarray], list[int], list[str]]:
    """Degraded digit glyph images (ink dark on white, gray uint8) with labels and fonts."""
    glyphs, labels, srcs = [], [], []
    for font in fonts:
        for d in digits:
            for _ in range(per_font):
                height = rng.uniform(14, 34)
                g = _digit_glyph(d, font, height, rng, hand=hand or rng.random() < 0.3)
                if not hand and rng.random() < 0.3:  # weight: thicken or thin
                    k = np.ones((SUPER, SUPER), np.uint8)
                    g = (cv2.dilate if rng.random() < 0.5 else cv2.erode)((g * 255).astype(np.uint8), k) / 255.0
                pad = SUPER * 6
                layers = Layers(np.zeros((g.shape[0] + 2 * pad, g.shape[1] + 2 * pad), np.float32),
                                np.zeros((g.shape[0] + 2 * pad, g.shape[1] + 2 * pad), np.float32))
                h4 = (layers.printed.shape[0] // SUPER) * SUPER
                w4 = (layers.printed.shape[1] // SUPER) * SUPER
                layers = Layers(layers.printed[:h4, :w4], layers.pen[:h4, :w4])
                paste(layers.pen if hand else layers.printed, g, pad, pad)
                glyph = _photographed_ink(layers, rng)
                if glyph is None:
                    continue
                glyphs.append(glyph)
                labels.append(d)
                srcs.append(font)
    return glyphs, labels, srcs


def _photographed_ink(layers: "Layers", rng: np.random.Generator) -> np.ndarray | None:
    """Photograph the layers like a phone does, binarise, crop to the ink (None if too little)."""
    from scanner.ocr.counts import binarize_cell
    ink = binarize_cell(photograph(layers, rng, "black")[0])
    ys, xs = np.nonzero(ink)
    if ys.size < 5:
        return None
    return ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def struck_template_glyphs(rng: np.random.Generator, fonts: list[str], per_font: int
                           ) -> tuple[list[np.ndarray], list[str]]:
    """Printed digits struck through (slash, dash, double dash), binarised and cropped."""
    glyphs, srcs = [], []
    for font in fonts:
        for _ in range(per_font):
            d = int(rng.integers(1, 4)) if rng.random() < 0.8 else int(rng.integers(0, 10))
            height = rng.uniform(14, 34)
            g = _digit_glyph(d, font, height, rng, hand=False)
            pad = int(height * SUPER * 1.2)
            h4 = ((g.shape[0] + 2 * pad) // SUPER + 1) * SUPER
            w4 = ((g.shape[1] + 2 * pad) // SUPER + 1) * SUPER
            layers = Layers(np.zeros((h4, w4), np.float32), np.zeros((h4, w4), np.float32))
            paste(layers.printed, g, pad, pad)
            kind = str(rng.choice(["slash", "dash", "double"]))
            strike_glyph(layers, (pad, pad, pad + g.shape[1], pad + g.shape[0]), kind,
                         rng.uniform(2.0, 4.0) * height / 19 * SUPER, rng)
            glyph = _photographed_ink(layers, rng)
            if glyph is None:
                continue
            glyphs.append(glyph)
            srcs.append(font)
    return glyphs, srcs


def build_templates(seed: int = 7, per_font: int = 12) -> dict[str, np.ndarray]:
    """Feature vectors for every template glyph, labelled by digit, font and printed/hand."""
    from scanner.ocr.counts import glyph_features
    rng = np.random.default_rng(seed)
    feats, labels, fonts, hand = [], [], [], []
    for is_hand, names in ((False, fonts_available(PRINTED_FONTS + PRINTED_EXTRA)),
                           (True, fonts_available(PEN_FONTS + PEN_EXTRA))):
        gl, lb, src = template_glyphs(rng, names, is_hand, per_font * (2 if is_hand else 1))
        feats += [glyph_features(g) for g in gl]
        labels += lb
        fonts += src
        hand += [is_hand] * len(lb)
    from scanner.ocr.counts import STRUCK_LABEL
    gl, src = struck_template_glyphs(rng, fonts_available(PRINTED_FONTS + PRINTED_EXTRA), per_font * 4)
    feats += [glyph_features(g) for g in gl]
    labels += [STRUCK_LABEL] * len(gl)
    fonts += src
    hand += [False] * len(gl)
    spare = fonts_available(PRINTED_SPARE)
    if spare:  # last, from a generator of its own: the blocks above are the same with or without
        gl, lb, src = template_glyphs(np.random.default_rng(seed + 1), spare, False, per_font)
        feats += [glyph_features(g) for g in gl]
        labels += lb
        fonts += src
        hand += [False] * len(lb)
    return {"features": np.asarray(feats, np.float16), "labels": np.asarray(labels, np.int8),
            "fonts": np.asarray(fonts), "hand": np.asarray(hand, bool)}


# ---------------------------------------------------------------- fixture photos (tests, bench)
# Rows and count cells of the main-deck columns of photo-corrected fixtures, cut with the truth's
# page corners (no page detection here: that is the OCR pipeline's job and not what is measured).
import json  # noqa: E402

W, H = 1800, int(round(1800 * 297 / 210))
from pathlib import Path
def warp(jpg, truth):
    img = cv2.imread(str(jpg))
    c = np.array(truth['distortions']['page_corners'], np.float32)
    M = cv2.getPerspectiveTransform(c, np.array([[0,0],[W,0],[W,H],[0,H]], np.float32))
    return cv2.warpPerspective(img, M, (W, H))
def lines_1d(mask, axis, min_frac):
    prof = mask.mean(axis=axis)
    idx = np.nonzero(prof > min_frac)[0]
    groups = []
    for i in idx:
        if groups and i - groups[-1][-1] <= 2: groups[-1].append(i)
        else: groups.append([i])
    return [(g[0], g[-1]) for g in groups]
def main_grid(bgr):
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    ink = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 31, 12) > 0
    # main table: the region between the first column header and the 합계 row; find long vertical lines
    v = cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_OPEN, np.ones((200, 1), np.uint8))
    h = cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_OPEN, np.ones((1, 150), np.uint8))
    return ink, v, h, gray

def main_rows_cells(bgr):
    """{column: [(row_bgr, row_gray, count_gray, beside_gray) for rows 1..]} for monster/spell/trap."""
    ink, v, h, gray = main_grid(bgr)
    band = v[int(0.16*H):int(0.4*H)] > 0
    vx = [int((a+b)/2) for a, b in lines_1d(band, 0, 0.5)]
    x0 = [x for x in vx if 20 < x < W - 20][0]
    col = v[:, x0-3:x0+4].max(axis=1) > 0
    top = bot = int(0.25 * H)
    while top > 0 and col[top - 1]: top -= 1
    while bot < H - 1 and col[bot + 1]: bot += 1
    hy = [int((a+b)/2) for a, b in lines_1d(h[:, x0:x0+300] > 0, 1, 0.5) if top - 5 <= a <= bot + 5]
    rows = list(zip(hy[1:-1], hy[2:]))  # skip the header row
    flat = flatten(gray)
    out = {}
    cols = ['monster', 'spell', 'trap']
    # groups of 4 verticals: left, after-number, before-count, right (doubled lines possible)
    xs = [x for x in vx if 20 < x < W - 20]
    for ci, col in enumerate(cols):
        l, nm, cnt, r = xs[ci*4:(ci+1)*4]
        lst = []
        for (ya, yb) in rows:
            p = 4
            lst.append((bgr[ya+p:yb-p+1, nm+p:r-p], flat[ya+p:yb-p+1, nm+p:r-p], flat[ya+p:yb-p+1, cnt+p:r-p], flat[ya+p:yb-p+1, cnt-int(1.2*(yb-ya)):cnt-p]))
        out[col] = lst
    return out

def real_cases(sheets_dir):
    """Yield (sheet, column, row, kinds, row_bgr, row_gray, count_gray, beside, truth_count, count_struck)."""
    for jpg in sorted(Path(sheets_dir).glob('photo-corrected-*.jpg')):
        t = json.load(open(jpg.with_suffix('').with_suffix('.truth.json') if False else str(jpg)[:-4] + '.truth.json'))
        cells = main_rows_cells(warp(jpg, t))
        printed = {(l['column'], l['row']): l['count'] for l in t['layout']['lines'] if l['column'] in cells}
        struck_rows, hand_rows, counts = set(), set(), {}
        for c in t['corrections']:
            if c['type'] == 'replace-row':
                struck_rows.add((c['column'], c['row']))
                hand_rows.add((c['column'], c['written']['row']))
                counts[(c['column'], c['written']['row'])] = (c['written']['count'], False, 'hand')
            else:
                counts[(c['column'], c['row'])] = (c['new'], True, 'count-' + c['written_at'])
                if c['written_at'] == 'left': hand_rows.add((c['column'], c['row']))
        for col, rows in cells.items():
            for r in range(1, 21):
                key = (col, r)
                rb, rg, cg, bs = rows[r - 1]
                if key in counts: cnt, st, kind = counts[key]
                elif key in printed: cnt, st, kind = printed[key], key in struck_rows, 'printed'
                else: cnt, st, kind = None, False, 'empty'
                yield jpg.name, col, r, kind, rb, rg, cg, bs, cnt, st, key in struck_rows, key in hand_rows


def main() -> None:
    ap = argparse.ArgumentParser(description="Build scanner/ocr/data/digit_templates.npz")
    ap.add_argument("--out", type=Path, default=TEMPLATES_PATH)
    ap.add_argument("--per-font", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    data = build_templates(args.seed, args.per_font)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    print(f"{len(data['labels'])} templates → {args.out}")


if __name__ == "__main__":
    main()
