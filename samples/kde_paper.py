"""Konami's deck-list form on paper, for make_photos: typed values (kde-scan, kde-photo) or
filled in by hand (kde-hand), printed on A4 "fit to page".

The form is Konami's own blank `KDE_DeckList.pdf` (../shared/forms, never copied here): its
fields are dropped and the values drawn at the field boxes (`make_samples.form_boxes`, from `scanner.layouts.kde`)
as page text, as the fixtures' `kde-flat` sheets are (`make_samples.kde_values`, the Konami ID
one digit per box). The page is then printed on A4 portrait at 0.86–0.89 of its size, centred.
Hand-written values are drawn on that printed page with a pen font (Nanum Pen Script or Nanum
Brush Script, or any face of `HAND_FACES`) and a per-sheet hand: slant, size, and per-glyph
jitter of size, baseline and spacing (`Hand(varied=True)`: pen pressure, bent strokes, more inks).
`HAND_MODES` says what a hand-filled sheet has typed and what written.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from make_samples import (A4, FONT_DIR, KDE_SIZE, KDE_TOTAL_FIELDS as TOTAL_FIELDS, SampleDeck, _register,
                          _text, form_boxes, kde_values, type_value)
from scanner.layouts import KDE

KDE_FORM = Path(__file__).resolve().parent.parent.parent / "shared" / "forms" / "KDE_DeckList.pdf"
"""Konami's blank form (the shared references; make_photos --kde-form overrides)."""
PRINT_SCALE = (0.86, 0.89)
"""'Fit to page' shrinks the 644 × 834 pt form onto A4 by this much."""
PEN_FONTS = {"NanumPen": FONT_DIR / "NanumPen.ttf", "NanumBrush": FONT_DIR / "NanumBrush.ttf"}
HAND_FALLBACK = FONT_DIR / "NanumGothic.ttf"
"""A glyph the pen fonts lack (★, Ω, 「) is drawn from this font, as a writer copies it."""
INKS = {"black": (26, 26, 32), "dark-blue": (28, 38, 120), "blue": (40, 70, 170),
        "pencil": (85, 85, 90)}
HAND_MODES = ("all", "typed-header", "typed-main")
"""all: every value written by hand; typed-header: the player's name, ID, date and event typed,
every card and total written; typed-main: header and main deck typed, extra and side written."""
HEADER_FIELDS = ("First  Middle Names", "Last Names", "CARD GAME ID", "Event Date - Month",
                 "Event Date - Day", "Event Date - Year", "Country of Residency", "Event Name")
COUNTRY = "Korea"


@dataclass
class KdePrint:
    """How one form was filled and printed (for the truth JSON)."""

    family: str
    size: float
    scale: float
    offset_pt: tuple[float, float]
    hand_fields: set[str] = field(default_factory=set)
    mode: str | None = None
    pen: dict | None = None

    def layout(self) -> dict:
        out = {"template": "KDE_DeckList.pdf (Konami TCG form, 644.21 x 833.68 pt)",
               "values_in": ("typed values (page text of kde-flat), printed on A4"
                             if not self.hand_fields else
                             f"filled by hand ({self.mode}), printed on A4"),
               "printed_on": {"paper": "A4 portrait", "fit": "fit to page", "scale": round(self.scale, 3),
                              "offset_pt": [round(self.offset_pt[0], 2), round(self.offset_pt[1], 2)]},
               "font": self.family, "size": self.size,
               "rows": {"main_columns": 18, "extra": 15, "side": 15}, "count_side": "left"}
        if self.hand_fields:
            out["hand"] = {"mode": self.mode, "pen": self.pen,
                           "fields": sorted(self.hand_fields)}
        return out


def form_values(deck: SampleDeck) -> dict[str, str]:
    """Every value a player fills in (`kde_values` and the country)."""
    return {**kde_values(deck), "Country of Residency": COUNTRY}


def line_fields(column: str, row: int) -> tuple[str, str]:
    """(name field, count field) of one form row."""
    return KDE.form.cell_field("name", column, row), KDE.form.cell_field("count", column, row)


def hand_fields_for(deck: SampleDeck, mode: str) -> set[str]:
    """The fields a hand-filled sheet has written by hand."""
    values = form_values(deck)
    if mode == "all":
        return set(values)
    if mode == "typed-header":
        return set(values) - set(HEADER_FIELDS)
    cols = ("extra", "side")
    out = {TOTAL_FIELDS[c] for c in cols}
    for c in cols:
        for r in range(1, len(deck.columns.get(c, [])) + 1):
            out.update(line_fields(c, r))
    return out & set(values)


def draw_typed_form(template: Path, out: Path, values: dict[str, str], family: str, size: float) -> None:
    """The blank form with `values` drawn as page text in their boxes; fields removed."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    reg, _ = _register(family)
    W, H = KDE_SIZE
    boxes = form_boxes()
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=KDE_SIZE)
    for name, value in values.items():
        x0, t, x1, b = boxes[name]
        if name == "CARD GAME ID":  # one digit per box, as the form asks
            step = (x1 - x0) / 10
            base = H - (t + b) / 2 - size * 0.35
            for i, d in enumerate(value[:10]):
                cx = x0 + (i + 0.5) * step
                _text(c, cx - stringWidth(d, reg, size + 1) / 2, base, d, reg, size + 1)
            continue
        type_value(c, name, value, (x0, t, x1, b), reg, size, H)
    c.showPage()  # one page even when nothing is typed
    c.save()
    writer = PdfWriter(clone_from=str(template))
    page = writer.pages[0]
    if "/Annots" in page:
        del page[NameObject("/Annots")]
    if "/AcroForm" in writer._root_object:
        del writer._root_object[NameObject("/AcroForm")]
    page.merge_page(PdfReader(io.BytesIO(buf.getvalue())).pages[0])
    with open(out, "wb") as f:
        writer.write(f)


def print_on_a4(form_pdf: Path, dpi: int, scale: float) -> tuple[np.ndarray, tuple[float, float]]:
    """The form printed 'fit to page' on A4 portrait (RGB array at `dpi`) and its offset (pt)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(form_pdf))
    try:
        form = doc[0].render(scale=scale * dpi / 72).to_pil().convert("RGB")
    finally:
        doc.close()
    k = dpi / 72
    page = Image.new("RGB", (round(A4[0] * k), round(A4[1] * k)), (255, 255, 255))
    off = ((A4[0] - scale * KDE_SIZE[0]) / 2, (A4[1] - scale * KDE_SIZE[1]) / 2)
    page.paste(form, (round(off[0] * k), round(off[1] * k)))
    return np.asarray(page).copy(), off


@dataclass(frozen=True)
class PenFace:
    """A handwriting face: the font letters are written in, the font digits are written in (a
    Korean pen font's own digits may be print-like serif ones), and the font size per pixel of
    letter height each needs (their ink fills different shares of the em)."""

    letters: Path
    digits: Path | None = None
    letters_size: float = 1.3
    digits_size: float = 1.3


UN_EXTRA = Path("/usr/share/fonts/truetype/unfonts-extra")
HAND_FACES = {
    "NanumPen": PenFace(FONT_DIR / "NanumPen.ttf", None, 1.3, 1.3),
    "NanumBrush": PenFace(FONT_DIR / "NanumBrush.ttf", None, 1.15, 1.15),
    "UnPenheulim+Humor": PenFace(UN_EXTRA / "UnPenheulim.ttf",
                                 Path("/usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf"), 1.05, 1.2),
    "BMYeonsung": PenFace(Path("/usr/share/fonts/truetype/woowa-bm/BMYEONSUNG_ttf.ttf"), None, 1.0, 1.2),
    "UnPilgia": PenFace(UN_EXTRA / "UnPilgia.ttf", None, 1.1, 1.3),
    "EunjinNakseo": PenFace(Path("/usr/share/fonts/truetype/alee/EunjinNakseo.ttf"), None, 0.95, 1.0),
    "BMKirang": PenFace(Path("/usr/share/fonts/truetype/woowa-bm/BMKIRANGHAERANG-TTF.ttf"), None, 1.05, 1.3),
    "UnPen+Dkg": PenFace(UN_EXTRA / "UnPen.ttf",
                         Path("/usr/share/fonts/truetype/fifthhorseman/dkg.ttf"), 1.05, 0.8),
    "Guseul+DkgBI": PenFace(Path("/usr/share/fonts/truetype/alee/Guseul.ttf"),
                            Path("/usr/share/fonts/truetype/fifthhorseman/dkgBI.ttf"), 1.1, 0.75),
    "Eunjin": PenFace(Path("/usr/share/fonts/truetype/alee/Eunjin.ttf"), None, 0.95, 0.95),
}
"""Handwriting faces from Debian packages (fonts-nanum-extra, fonts-unfonts-extra, fonts-alee,
fonts-woowa-bm, fonts-humor-sans, fonts-dkg-handwriting) for `bench/bench_hand.py`. The count
reader's hand-digit templates were drawn in Nanum Pen, Brush and Barun Pen."""
TUNING_FACES = ("NanumPen", "NanumBrush", "UnPenheulim+Humor", "BMYeonsung")
"""Faces the reader may be tuned on."""
HELD_OUT_FACES = ("UnPilgia", "EunjinNakseo", "BMKirang", "UnPen+Dkg")
"""Faces only measured on (never looked at while tuning)."""
HELD_OUT_LATER = ("Guseul+DkgBI", "Eunjin")
"""Two more faces held out from the start of the second round of work on written forms (issue
35): only measured; neither they nor any font of their families (alee, dkg) gives the reader
templates or training data."""
MORE_INKS = {"black-gel": (15, 15, 18), "blue-gel": (30, 60, 190), "light-blue": (70, 110, 200)}
"""Inks of a varied hand (`Hand(..., varied=True)`) besides `INKS`."""


class Hand:
    """One writer's hand: pen font, ink, slant, letter size; each glyph jittered.

    `faces` (names of `HAND_FACES`) picks the face among those; `varied` also varies the pen's
    pressure (stroke width and ink strength along the text) and bends each glyph a little
    (an elastic, smooth displacement), with more inks. Without either, the hand is the original
    Nanum Pen / Brush one (same random draws, same pages)."""

    def __init__(self, rng: np.random.Generator, faces: tuple[str, ...] | None = None,
                 varied: bool = False):
        self.rng = rng
        if faces:
            self.font_name = str(rng.choice(list(faces)))
            self.face = HAND_FACES[self.font_name]
        else:
            self.font_name = str(rng.choice(list(PEN_FONTS)))
            self.face = HAND_FACES[self.font_name]
        inks = {**INKS, **MORE_INKS} if varied else INKS
        p = [0.4, 0.3, 0.2, 0.1] if not varied else None
        self.ink_name = str(rng.choice(list(inks), p=p))
        self.ink = inks[self.ink_name]
        self.slant = float(rng.uniform(-0.25, 0.15))
        """Horizontal shear (a right-leaning hand is negative: tops go right)."""
        self.height = float(rng.uniform(0.7, 0.95))
        """Letter height / box height."""
        self.jitter = float(rng.uniform(0.03, 0.09))
        self.bold = int(rng.integers(0, 2))
        self.varied = varied
        self.pressure = float(rng.uniform(0.55, 1.0)) if varied else 1.0
        """Ink strength (a light hand or a drying pen writes paler)."""
        self.bend = float(rng.uniform(0.0, 0.035)) if varied else 0.0
        """Elastic displacement of the strokes, as a share of the letter size."""
        self._fonts: dict[tuple[str, int], ImageFont.FreeTypeFont] = {}
        self._cmaps = {p: _cmap(p) for p in {self.face.letters, self.face.digits or self.face.letters}}

    def info(self) -> dict:
        out = {"font": self.font_name, "ink": self.ink_name, "slant": round(self.slant, 3),
               "height": round(self.height, 3), "jitter": round(self.jitter, 3), "bold": self.bold}
        if self.varied:
            out.update(pressure=round(self.pressure, 3), bend=round(self.bend, 3))
        return out

    def _path(self, ch: str) -> Path:
        path = self.face.digits if (ch.isdigit() and self.face.digits) else self.face.letters
        return path if ord(ch) in self._cmaps[path] or ch.isspace() else HAND_FALLBACK

    def _size(self, ch: str, height_px: float) -> int:
        digit = ch.isdigit()
        return max(8, int(height_px * (self.face.digits_size if digit else self.face.letters_size)))

    def _font(self, path: Path, size: int) -> ImageFont.FreeTypeFont:
        key = (str(path), size)
        if key not in self._fonts:
            self._fonts[key] = ImageFont.truetype(str(path), size)
        return self._fonts[key]

    def render(self, text: str, height_px: float) -> Image.Image:
        """The text written glyph by glyph on a transparent (L) layer, slanted."""
        size = max(8, int(height_px * self.face.letters_size))
        pad = size
        glyphs = []
        x = float(pad)
        for ch in text:
            base = self._size(ch, height_px)
            s = max(6, int(base * self.rng.uniform(1 - 2 * self.jitter, 1 + 2 * self.jitter)))
            font = self._font(self._path(ch), s)
            dy = float(np.clip(self.rng.normal(0, 0.5 * self.jitter * size), -0.1 * size, 0.1 * size))
            glyphs.append((x, dy, ch, font))
            x += font.getlength(ch) * self.rng.uniform(0.92, 1.06)
        w, h = int(x + pad), int(size * 1.6 + 2 * pad)
        layer = Image.new("L", (w, h), 0)
        draw = ImageDraw.Draw(layer)
        for gx, dy, ch, font in glyphs:
            fill = int(255 * self.pressure * self.rng.uniform(0.85, 1.0)) if self.varied else 255
            draw.text((gx, pad + size + dy), ch, font=font, fill=fill, anchor="ls",
                      stroke_width=self.bold, stroke_fill=fill)
        if self.varied:
            layer = self._bent(layer, size)
        layer = layer.transform(layer.size, Image.AFFINE, (1, self.slant, -self.slant * h / 2, 0, 1, 0),
                                resample=Image.BICUBIC)
        layer = layer.rotate(float(self.rng.uniform(-2, 2)), resample=Image.BICUBIC, expand=True)
        bbox = layer.getbbox()
        return layer.crop(bbox) if bbox else layer

    def _bent(self, layer: Image.Image, size: int) -> Image.Image:
        """The layer displaced by a smooth random field (strokes wobble as a hand's do) and its
        strokes thickened or thinned here and there (pen pressure)."""
        import cv2

        a = np.asarray(layer, np.float32)
        h, w = a.shape
        amp = self.bend * size
        cell = max(4, size // 3)
        gx = cv2.resize(self.rng.normal(0, 1, (h // cell + 2, w // cell + 2)).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC) * amp
        gy = cv2.resize(self.rng.normal(0, 1, (h // cell + 2, w // cell + 2)).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC) * amp
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        a = cv2.remap(a, xs + gx, ys + gy, cv2.INTER_LINEAR, borderValue=0)
        k = max(1, size // 14)
        thick = cv2.dilate(a, np.ones((k + 1, k + 1), np.uint8))
        mix = cv2.resize(self.rng.uniform(0, 1, (h // cell + 2, w // cell + 2)).astype(np.float32), (w, h),
                         interpolation=cv2.INTER_LINEAR)
        a = np.where(mix > 0.65, thick, a)
        return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))

    def write(self, img: Image.Image, text: str, box: tuple[float, float, float, float],
              centre: bool = False) -> None:
        """Write `text` in a box (pixels): left-aligned (names) or centred (digits); a text too
        wide for the box is written narrower, as a writer squeezes it in."""
        x0, y0, x1, y1 = box
        bh, bw = y1 - y0, x1 - x0
        layer = self.render(text, bh * self.height)
        room = bw - 0.1 * bh
        if layer.width > room:
            layer = layer.resize((max(1, int(room)), layer.height), Image.BICUBIC)
        if layer.height > bh * 1.15:
            f = bh * 1.15 / layer.height
            layer = layer.resize((max(1, int(layer.width * f)), max(1, int(layer.height * f))), Image.BICUBIC)
        if centre:
            x = x0 + (bw - layer.width) / 2 + self.rng.uniform(-0.1, 0.1) * bh
        else:
            x = x0 + self.rng.uniform(0.05, 0.3) * bh
            x = min(x, x1 - layer.width)
        y = y0 + (bh - layer.height) / 2 + self.rng.uniform(-0.1, 0.1) * bh
        ink = Image.new("RGB", layer.size, self.ink)
        img.paste(ink, (int(round(x)), int(round(y))), layer)


def _cmap(path: Path) -> set[int]:
    from fontTools.ttLib import TTFont

    font = TTFont(str(path), lazy=True)
    try:
        return set(font.getBestCmap())
    finally:
        font.close()


def write_by_hand(page: np.ndarray, values: dict[str, str], fields: set[str], hand: Hand,
                  scale: float, off: tuple[float, float], dpi: int) -> np.ndarray:
    """The `fields` of `values` written on the printed page."""
    img = Image.fromarray(page)
    k = dpi / 72
    boxes = form_boxes()

    def px(rect: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        x0, t, x1, b = rect
        return ((off[0] + scale * x0) * k, (off[1] + scale * t) * k,
                (off[0] + scale * x1) * k, (off[1] + scale * b) * k)

    for name in sorted(fields):
        value = values[name]
        x0, y0, x1, y1 = px(boxes[name])
        if name == "CARD GAME ID":
            step = (x1 - x0) / 10
            for i, d in enumerate(value[:10]):
                hand.write(img, d, (x0 + i * step, y0, x0 + (i + 1) * step, y1), centre=True)
        elif name == "Main Deck Total":  # a tall box under a small label: write in its lower part
            hand.write(img, value, (x0, y0 + 0.4 * (y1 - y0), x1, y1), centre=True)
        else:
            numeric = "Count" in name or name.startswith(("Total", "Event Date"))
            hand.write(img, value, (x0, y0, x1, y1), centre=numeric)
    return np.asarray(img).copy()


def kde_page(deck: SampleDeck, family: str, size: float, dpi: int, rng: np.random.Generator,
             work: Path, template: Path = KDE_FORM, hand_mode: str | None = None,
             faces: tuple[str, ...] | None = None, varied: bool = False) -> tuple[np.ndarray, KdePrint]:
    """The filled form printed on A4 (RGB array at `dpi`): typed, or partly / wholly by hand
    (`faces`, `varied`: the hand, see `Hand`)."""
    if not template.is_file():
        raise SystemExit(f"{template}: Konami's blank KDE_DeckList.pdf is needed (--kde-form)")
    values = form_values(deck)
    hand_fields = hand_fields_for(deck, hand_mode) if hand_mode else set()
    scale = float(rng.uniform(*PRINT_SCALE))
    pdf = work / "kde.pdf"
    draw_typed_form(template, pdf, {k: v for k, v in values.items() if k not in hand_fields}, family, size)
    page, off = print_on_a4(pdf, dpi, scale)
    info = KdePrint(family, size, scale, off, hand_fields, hand_mode)
    if hand_fields:
        hand = Hand(rng, faces, varied)
        info.pen = hand.info()
        page = write_by_hand(page, values, hand_fields, hand, scale, off, dpi)
    return page, info


def line_written_by(info: KdePrint, column: str, row: int) -> str:
    return "hand" if line_fields(column, row)[0] in info.hand_fields else "typed"

