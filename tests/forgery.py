"""A forgery generator: PDFs whose page shows one deck while their text layer or form values say
another, made from the project's honest sample sheets (issue 25).

Each class is one way to make a page lie; `make(kind, out)` writes one forged PDF and returns
what the reader will find there that the page does not show. Two families:

- a **hidden row**: a card line added at an empty row of the Konami form, in the text layer but
  not on the page (render modes, white text, clipping, transparency, a hidden layer, a clipped
  Form XObject), or drawn as an image of another card under invisible text;
- a **covered row**: an honest line painted over after it was drawn (a white box, a thick white
  stroke, a shading, an annotation with a white appearance, a white box after thousands of decoys);
- a **lying font or form**: a ToUnicode map that reads drawn glyphs as other letters, a form field
  whose appearance draws another card than its value.

Drawing is reportlab (overlays merged onto the sheet with pypdf); raw objects are pypdf's.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "sheets"
KDE_FLAT = SAMPLES / "kde-flat-hero.pdf"
KDE_FORM = SAMPLES / "kde-form-sky-striker.pdf"
FONT_FILE = "/usr/share/fonts/truetype/nanum/NanumGothic.ttf"
HIDDEN_NAME = "욕망의 항아리"
"""The card added where the page shows nothing (forbidden: a lie that changes the verdict)."""
SHOWN_NAME = "욕망의 항아리"
READ_NAME = "증원"
EMPTY_ROW = ("monster", 15)
"""A row the honest sample leaves empty."""
COVERED_ROW = ("monster", 1)
"""An honest line that the cover classes paint over."""

HIDDEN_ROW_KINDS = ("tr3", "tr7", "white-text", "cmyk-white-text", "clip", "alpha-zero",
                    "layer-off", "form-bbox", "image-under-invisible-text", "image-row-without-text")
COVER_KINDS = ("white-box", "white-stroke", "shading", "annot-link", "annot-watermark",
               "annot-redact", "annot-fileattachment", "decoys-then-white-box")
LIE_KINDS = ("tounicode-remap", "tounicode-one-syllable", "tounicode-count", "form-value-vs-appearance",
             "form-appearance-without-value")
ONE_SYLLABLE = ("증원", "증식")
"""Drawn, and read through a ToUnicode map that changes one syllable."""
KINDS = HIDDEN_ROW_KINDS + COVER_KINDS + LIE_KINDS


def _font():
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    if "ForgeryNanum" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont("ForgeryNanum", FONT_FILE))
    return "ForgeryNanum"


def _row_box(column: str, row: int) -> tuple[float, float, float, float]:
    from scanner.layouts import KDE

    return KDE.table(column).line_box(row)


def _overlay(size: tuple[float, float], draw) -> bytes:
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    cv = canvas.Canvas(buf, pagesize=size)
    draw(cv, size[1])
    cv.save()
    return buf.getvalue()


def _merge(base: Path, overlay: bytes):
    """A writer holding `base` with `overlay`'s page painted over its page 1."""
    import pypdf

    writer = pypdf.PdfWriter(clone_from=str(base))
    over = pypdf.PdfReader(io.BytesIO(overlay)).pages[0]
    writer.pages[0].merge_page(over)
    return writer


def _text_row(cv, height: float, count: str, name: str, box, setup=None) -> None:
    """`count` and `name` written in the row's count and name cells, after `setup(textobject)`."""
    x0, top, _, bottom = box
    text = cv.beginText()
    text.setFont(_font(), 9)
    if setup:
        setup(text)
    baseline = height - bottom + 4.5
    text.setTextOrigin(x0 + 6, baseline)
    text.textOut(count)
    text.setTextOrigin(x0 + 22, baseline)
    text.textOut(name)
    cv.drawText(text)


def _hidden_row(kind: str, base: Path, out: Path) -> None:
    box = _row_box(*EMPTY_ROW)

    def draw(cv, h):
        if kind == "tr3":
            _text_row(cv, h, "1", HIDDEN_NAME, box, lambda t: t.setTextRenderMode(3))
        elif kind == "tr7":
            _text_row(cv, h, "1", HIDDEN_NAME, box, lambda t: t.setTextRenderMode(7))
        elif kind == "white-text":
            cv.setFillColorRGB(1, 1, 1)
            _text_row(cv, h, "1", HIDDEN_NAME, box)
        elif kind == "cmyk-white-text":
            cv.setFillColorCMYK(0, 0, 0, 0)
            _text_row(cv, h, "1", HIDDEN_NAME, box)
        elif kind == "clip":
            path = cv.beginPath()
            path.rect(0, 0, 1, 1)
            cv.clipPath(path, stroke=0, fill=0)
            _text_row(cv, h, "1", HIDDEN_NAME, box)
        elif kind == "alpha-zero":
            cv.setFillAlpha(0)
            _text_row(cv, h, "1", HIDDEN_NAME, box)
        elif kind == "layer-off":
            cv.addLiteral("/OC /ForgeryHidden BDC")
            _text_row(cv, h, "1", HIDDEN_NAME, box)
            cv.addLiteral("EMC")
        elif kind == "form-bbox":
            cv.beginForm("row", 0, 0, 2, 2)  # the form's BBox: 2 pt in the page's corner
            _text_row(cv, h, "1", HIDDEN_NAME, box)
            cv.endForm()
            cv.doForm("row")
        elif kind == "image-under-invisible-text":
            from reportlab.lib.utils import ImageReader

            x0, top, x1, bottom = box
            cv.drawImage(ImageReader(_row_image(SHOWN_NAME, x1 - x0, bottom - top)), x0, h - bottom,
                         x1 - x0, bottom - top)
            _text_row(cv, h, "1", READ_NAME, box, lambda t: t.setTextRenderMode(3))
        elif kind == "image-row-without-text":
            from reportlab.lib.utils import ImageReader

            x0, top, x1, bottom = box
            cv.drawImage(ImageReader(_row_image(SHOWN_NAME, x1 - x0, bottom - top)), x0, h - bottom,
                         x1 - x0, bottom - top)

    writer = _merge(base, _overlay(_size(base), draw))
    if kind == "layer-off":
        _hide_layer(writer, "/ForgeryHidden")
    writer.write(str(out))


def _row_image(name: str, width: float, height: float) -> Image.Image:
    """A picture of a printed row, `1` and `name`, at 4 px per pt."""
    scale = 4
    img = Image.new("L", (int(width * scale), int(height * scale)), 255)
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT_FILE, 9 * scale)
    draw.text((6 * scale, int(height * scale) - 13 * scale), "1", font=font, fill=0)
    draw.text((22 * scale, int(height * scale) - 13 * scale), name, font=font, fill=0)
    return img


def _hide_layer(writer, tag: str) -> None:
    """An optional-content group, off by default, named `tag` in page 1's properties."""
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject, TextStringObject

    ocg = writer._add_object(DictionaryObject({NameObject("/Type"): NameObject("/OCG"),
                                               NameObject("/Name"): TextStringObject("notes")}))
    page = writer.pages[0]
    resources = page[NameObject("/Resources")].get_object()
    props = resources.get("/Properties")
    if props is None:
        props = DictionaryObject()
        resources[NameObject("/Properties")] = props
    props.get_object()[NameObject(tag)] = ocg
    writer._root_object[NameObject("/OCProperties")] = DictionaryObject({
        NameObject("/OCGs"): ArrayObject([ocg]),
        NameObject("/D"): DictionaryObject({NameObject("/OFF"): ArrayObject([ocg]),
                                            NameObject("/Order"): ArrayObject([ocg])})})


def _size(base: Path) -> tuple[float, float]:
    import pypdf

    box = pypdf.PdfReader(str(base)).pages[0].mediabox
    return float(box.width), float(box.height)


def _cover(kind: str, base: Path, out: Path) -> None:
    x0, top, x1, bottom = _row_box(*COVERED_ROW)
    x0, top, x1, bottom = x0 + 1, top + 1, x1 - 1, bottom - 1  # inside the cell's borders

    def draw(cv, h):
        if kind == "white-box":
            cv.setFillColorRGB(1, 1, 1)
            cv.rect(x0, h - bottom, x1 - x0, bottom - top, fill=1, stroke=0)
        elif kind == "white-stroke":
            cv.setStrokeColorRGB(1, 1, 1)
            cv.setLineWidth(bottom - top)
            cv.line(x0, h - (top + bottom) / 2, x1, h - (top + bottom) / 2)
        elif kind == "shading":
            from reportlab.lib.colors import white

            cv.saveState()
            path = cv.beginPath()
            path.rect(x0, h - bottom, x1 - x0, bottom - top)
            cv.clipPath(path, stroke=0, fill=0)
            cv.linearGradient(x0, h - bottom, x1, h - bottom, (white, white))
            cv.restoreState()
        elif kind == "decoys-then-white-box":
            cv.setFillColorRGB(0.97, 0.97, 0.97)
            for i in range(5_000):  # faint squares in the top margin, each a fill to examine
                cv.rect(5 + (i % 250) * 2.4, h - 5 - (i // 250) * 2.4, 2.2, 2.2, fill=1, stroke=0)
            cv.setFillColorRGB(1, 1, 1)
            cv.rect(x0, h - bottom, x1 - x0, bottom - top, fill=1, stroke=0)

    if kind.startswith("annot-"):
        import pypdf

        writer = pypdf.PdfWriter(clone_from=str(base))
        _white_annotation(writer, kind.removeprefix("annot-"), (x0, top, x1, bottom))
    else:
        writer = _merge(base, _overlay(_size(base), draw))
    writer.write(str(out))


ANNOT_SUBTYPES = {"link": "/Link", "watermark": "/Watermark", "redact": "/Redact",
                  "fileattachment": "/FileAttachment"}


def _white_annotation(writer, which: str, box) -> None:
    """An annotation of the given subtype over `box` whose appearance is a white rectangle."""
    from pypdf.generic import (ArrayObject, DecodedStreamObject, DictionaryObject, FloatObject,
                               NameObject, NumberObject)

    height = float(writer.pages[0].mediabox.height)
    x0, top, x1, bottom = box
    w, h = x1 - x0, bottom - top
    ap = DecodedStreamObject()
    ap.set_data(f"1 1 1 rg 0 0 {w:.2f} {h:.2f} re f".encode())
    ap.update({NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Form"),
               NameObject("/BBox"): ArrayObject([FloatObject(0), FloatObject(0), FloatObject(w), FloatObject(h)])})
    annot = DictionaryObject({
        NameObject("/Type"): NameObject("/Annot"),
        NameObject("/Subtype"): NameObject(ANNOT_SUBTYPES[which]),
        NameObject("/Rect"): ArrayObject([FloatObject(x0), FloatObject(height - bottom),
                                          FloatObject(x1), FloatObject(height - top)]),
        NameObject("/F"): NumberObject(4),  # print
        NameObject("/AP"): DictionaryObject({NameObject("/N"): writer._add_object(ap)}),
    })
    if which == "fileattachment":
        annot[NameObject("/Name")] = NameObject("/Paperclip")
    writer.add_annotation(0, annot)


def _tounicode_remap(base: Path, out: Path, shown: str = SHOWN_NAME, read: str = READ_NAME,
                     lie: dict[str, str] | None = None) -> None:
    """A row drawn as `1 shown` whose font's ToUnicode map reads it as `read` (glyph by glyph;
    glyphs beyond `read` read as spaces), or reads the glyphs in `lie` as others."""
    import pypdf
    from pypdf.generic import NameObject

    box = _row_box(*EMPTY_ROW)
    writer = _merge(base, _overlay(_size(base), lambda cv, h: _text_row(cv, h, "1", shown, box)))
    fonts = writer.pages[0]["/Resources"]["/Font"]
    if lie is None:
        lie = {a: b for a, b in zip(shown.replace(" ", ""), read) if a != b}
        lie.update({a: " " for a in shown.replace(" ", "")[len(read):]})
    done = False
    for _, ref in fonts.items():
        font = ref.get_object()
        cmap_ref = font.get("/ToUnicode")
        if cmap_ref is None:
            continue
        cmap = cmap_ref.get_object().get_data().decode("latin-1")
        if f"<{ord(shown[0]):04X}>" not in cmap:
            continue

        def swap(m: re.Match) -> str:
            ch = chr(int(m.group(2), 16))
            if ch in lie:
                return f"<{m.group(1)}> <{ord(lie[ch]):04X}>"
            return m.group(0)

        stream = pypdf.generic.DecodedStreamObject()
        stream.set_data(re.sub(r"<([0-9A-F]{2,4})> <([0-9A-F]{4})>", swap, cmap).encode("latin-1"))
        font[NameObject("/ToUnicode")] = writer._add_object(stream)
        done = True
    assert done, "the overlay font has no ToUnicode map to remap"
    writer.write(str(out))


def _form_value_vs_appearance(base: Path, out: Path) -> None:
    """A filled form field whose appearance draws SHOWN_NAME while its value stays the honest card."""
    column, row = COVERED_ROW
    _draw_field(base, out, f"{column.capitalize()} {row}", SHOWN_NAME)


def _form_appearance_without_value(base: Path, out: Path) -> None:
    """An empty form field whose appearance draws a card: the page shows it, the values do not."""
    column, row = EMPTY_ROW
    _draw_field(base, out, f"{column.capitalize()} {row}", SHOWN_NAME)


def _draw_field(base: Path, out: Path, target: str, text: str) -> None:
    """`base` with field `target`'s appearance drawing `text` (its value untouched) and
    NeedAppearances off, so viewers draw the appearance."""
    import pypdf
    from pypdf.generic import BooleanObject, DictionaryObject, NameObject

    writer = pypdf.PdfWriter(clone_from=str(base))
    writer._root_object["/AcroForm"][NameObject("/NeedAppearances")] = BooleanObject(False)
    for ref in writer.pages[0]["/Annots"]:
        annot = ref.get_object()
        if annot.get("/T") != target:
            continue
        x0, y0, x1, y1 = (float(v) for v in annot["/Rect"])
        w, h = x1 - x0, y1 - y0
        ap_pdf = _overlay((w, h), lambda cv, hh: (cv.setFont(_font(), 9), cv.drawString(2, 4, text)))
        page = pypdf.PdfReader(io.BytesIO(ap_pdf)).pages[0]
        ap = pypdf.generic.DecodedStreamObject()
        ap.set_data(page.get_contents().get_data())
        ap.update({NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Form"),
                   NameObject("/BBox"): pypdf.generic.ArrayObject(
                       [pypdf.generic.FloatObject(v) for v in (0, 0, w, h)]),
                   NameObject("/Resources"): page["/Resources"].clone(writer)})
        annot[NameObject("/AP")] = DictionaryObject({NameObject("/N"): writer._add_object(ap)})
        writer.write(str(out))
        return
    raise AssertionError(f"no field {target!r} in {base.name}")


def make(kind: str, out: Path) -> Path:
    """Write the forgery `kind` (one of KINDS or TWO_READING_KINDS) to `out`."""
    if kind in TWO_READING_KINDS:
        return make_two_reading(kind, out)
    if kind in HIDDEN_ROW_KINDS:
        _hidden_row(kind, KDE_FLAT, out)
    elif kind in COVER_KINDS:
        _cover(kind, KDE_FLAT, out)
    elif kind == "tounicode-remap":
        _tounicode_remap(KDE_FLAT, out)
    elif kind == "tounicode-one-syllable":
        _tounicode_remap(KDE_FLAT, out, *ONE_SYLLABLE)
    elif kind == "tounicode-count":
        _tounicode_remap(KDE_FLAT, out, READ_NAME, READ_NAME, lie={"1": "3"})
    elif kind == "form-value-vs-appearance":
        _form_value_vs_appearance(KDE_FORM, out)
    elif kind == "form-appearance-without-value":
        _form_appearance_without_value(KDE_FORM, out)
    else:
        raise ValueError(kind)
    return out


# --- form values wherever they are (not forgeries: honest forms written another way) ----------

def without_acroform(base: Path, out: Path) -> Path:
    """`base` with its /AcroForm removed: the values sit only in the page's widgets, as a popular
    sheet generator writes them."""
    import pypdf
    from pypdf.generic import NameObject

    writer = pypdf.PdfWriter(clone_from=str(base))
    del writer._root_object[NameObject("/AcroForm")]
    writer.write(str(out))
    return out


def multiline_value_changed(base: Path, out: Path, field: str, old: str, new: str) -> Path:
    """A remade form whose multi-line `field` value says `new` where its appearance (kept, with
    NeedAppearances off) still draws `old`."""
    import pypdf
    from pypdf.generic import BooleanObject, NameObject, TextStringObject

    writer = pypdf.PdfWriter(clone_from=str(base))
    writer._root_object["/AcroForm"][NameObject("/NeedAppearances")] = BooleanObject(False)
    for ref in writer.pages[0]["/Annots"]:
        annot = ref.get_object()
        if annot.get("/T") == field and old in str(annot.get("/V") or ""):
            assert "/AP" in annot, "the field has no appearance of its own to keep"
            annot[NameObject("/V")] = TextStringObject(str(annot["/V"]).replace(old, new))
            writer.write(str(out))
            return out
    raise AssertionError(f"no field {field!r} holding {old!r}")


def page_box_variant(base: Path, out: Path, rotate: int = 0, shift: float = 0.0,
                     crop_bottom: float = 0.0) -> Path:
    """`base` turned by `rotate` degrees (/Rotate), its media box moved down by `shift` pt (the
    content moves with its coordinates), or its crop box cut `crop_bottom` pt above the bottom
    (what lies below is in the text layer but on no screen or paper)."""
    import pypdf
    from pypdf.generic import RectangleObject

    writer = pypdf.PdfWriter(clone_from=str(base))
    page = writer.pages[0]
    w, h = float(page.mediabox.width), float(page.mediabox.height)
    if rotate:
        page.rotate(rotate)
    if shift:
        page.mediabox = RectangleObject([0, -shift, w, h - shift])
    if crop_bottom:
        page.cropbox = RectangleObject([0, crop_bottom, w, h])
    writer.write(str(out))
    return out


def searchable_scan(base: Path, out: Path, dpi: int = 200, noise: float = 8.0) -> Path:
    """An honest 'searchable' scan, as a scanner's OCR writes it: the page as a noisy image, with
    `base`'s own text laid over it invisibly (3 Tr) where it is printed."""
    import numpy as np
    import pypdf
    import pypdfium2 as pdfium
    from pypdf.generic import DecodedStreamObject, NameObject
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    doc = pdfium.PdfDocument(str(base))
    page = doc[0]
    w, h = page.get_size()
    gray = np.asarray(page.render(scale=dpi / 72).to_pil().convert("L")).astype(np.float32)
    doc.close()
    rng = np.random.default_rng(1)
    img = Image.fromarray(np.clip(gray + rng.normal(0, noise, gray.shape), 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    cv = canvas.Canvas(buf, pagesize=(w, h))
    cv.drawImage(ImageReader(img), 0, 0, w, h)
    cv.save()
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(buf.getvalue()))
    text = pypdf.PdfWriter(clone_from=str(base))
    blocks = re.findall(rb"BT.*?ET", text.pages[0].get_contents().get_data(), re.S)
    stream = DecodedStreamObject()
    stream.set_data(b"\n".join(re.sub(rb"\b[0-7] Tr\b", b"3 Tr", b.replace(b"BT", b"BT 3 Tr", 1))
                               for b in blocks))
    text.pages[0][NameObject("/Contents")] = text._add_object(stream)
    layer = io.BytesIO()
    text.write(layer)
    writer.pages[0].merge_page(pypdf.PdfReader(layer).pages[0])
    writer.write(str(out))
    return out


# --- issue 33: two readings that must agree ----------------------------------------------------
# Each class below makes the page (on screen, on paper, or on another page) show a deck the text
# layer or form values do not say, in a way the word-likeness check cannot see. They are flagged
# only by the image reader's own reading of the rendered pages (`scanner.agreement`).

DB_BASE = SAMPLES / "db-blue-eyes-gothic.pdf"
DB_GLUED = SAMPLES / "db-hero-square.pdf"
"""The sample whose row numbers are glued to the names (`12욕망의 항아리`)."""
OVER_LIMIT = ("하루 우라라", 3)
"""A card printed ×3 that the text layer reads ×1."""
LOOK_ALIKE = "태만의 항아리"
"""A real card one syllable from 욕망의 항아리 (likeness ≈ 0.45 in a form's font)."""

ROW_KINDS = ("outline-row-after-last", "picture-row-after-last", "outline-row-empty-side",
             "picture-row-empty-side")
SMALL_PRINT_KINDS = ("small-print-tounicode", "small-print-tounicode-count", "unknown-font-tounicode",
                     "glued-row-number-tounicode", "count-times-three", "decoy-header")
FORM_KINDS = ("form-v-twice", "form-two-fields-one-name", "form-widget-off-cell",
              "form-name-widgets-swapped", "form-value-without-widget", "form-lookalike-value")
PAPER_KINDS = ("print-only-annotation", "screen-only-annotation", "print-only-layer")
PAGE_KINDS = ("picture-page-first",)
TWO_READING_KINDS = ROW_KINDS + SMALL_PRINT_KINDS + FORM_KINDS + PAPER_KINDS + PAGE_KINDS
"""Issue 33's classes (the 22 the word-likeness check let pass, made from the project's samples)."""


def _sample_module():
    import importlib.util
    import sys

    if "make_samples" in sys.modules:
        return sys.modules["make_samples"]
    spec = importlib.util.spec_from_file_location("make_samples", SAMPLES.parent / "make_samples.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["make_samples"] = mod
    spec.loader.exec_module(mod)
    return mod


def _blue_eyes(side: list | None = None, monster_extra: list | None = None):
    """The db sample's deck (blue-eyes), its side deck replaced by `side`, `monster_extra` lines
    appended to its monster column."""
    from card_db.cdb import demo_db_path, load_card_db

    ms = _sample_module()
    deck = ms.deck_from_ydk(SAMPLES.parent / "decks_src" / "blue-eyes.ydk", load_card_db(demo_db_path()),
                            **ms.PLAYERS["blue-eyes"])
    if side is not None:
        deck.columns["side"] = list(side)
    if monster_extra:
        deck.columns["monster"] = deck.columns["monster"] + list(monster_extra)
    return deck


def _draw_db(deck, out: Path) -> Path:
    ms = _sample_module()
    ms.draw_db_sheet(out, deck, ms.DbStyle("NanumGothic", 9.0, 0.0, 0.0, 15.0))
    return out


def _chars(pdf: Path, box) -> list[tuple[str, float, float, float]]:
    """(character, origin x, origin y in PDF space, font size) of the text whose centre lies in
    `box` (top-left pt) on page 1."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c
    import ctypes

    doc = pdfium.PdfDocument(str(pdf))
    page = doc[0]
    height = page.get_size()[1]
    tp = page.get_textpage()
    out = []
    try:
        for i in range(tp.count_chars()):
            ch = tp.get_text_range(i, 1)
            if not ch.strip():
                continue
            x0, y0, x1, y1 = tp.get_charbox(i)
            cx, cy = (x0 + x1) / 2, height - (y0 + y1) / 2
            if not (box[0] <= cx <= box[2] and box[1] <= cy <= box[3]):
                continue
            ox, oy = ctypes.c_double(), ctypes.c_double()
            pdfium_c.FPDFText_GetCharOrigin(tp.raw, i, ox, oy)
            out.append((ch, ox.value, oy.value, pdfium_c.FPDFText_GetFontSize(tp.raw, i)))
    finally:
        tp.close()
        page.close()
        doc.close()
    return out


def _outlines(cv, chars, font_file: str = FONT_FILE) -> None:
    """Each character drawn as its glyph's outline (a filled path: no text, nothing to read)."""
    from fontTools.pens.basePen import BasePen
    from fontTools.ttLib import TTFont

    class CanvasPen(BasePen):  # glyph contours → a reportlab canvas path
        def __init__(self, glyphset, path):
            super().__init__(glyphset)
            self.path = path

        def _moveTo(self, p):
            self.path.moveTo(*p)

        def _lineTo(self, p):
            self.path.lineTo(*p)

        def _curveToOne(self, p1, p2, p3):
            self.path.curveTo(*p1, *p2, *p3)

        def _closePath(self):
            self.path.close()

    font = TTFont(font_file)
    glyphs, cmap = font.getGlyphSet(), font.getBestCmap()
    upem = font["head"].unitsPerEm
    cv.setFillColorRGB(0, 0, 0)
    for ch, x, y, size in chars:
        name = cmap.get(ord(ch))
        if name is None:
            continue
        cv.saveState()
        cv.translate(x, y)
        cv.scale(size / upem, size / upem)
        path = cv.beginPath()
        glyphs[name].draw(CanvasPen(glyphs, path))
        cv.drawPath(path, stroke=0, fill=1)
        cv.restoreState()


def _picture(pdf: Path, box, scale: float = 4.0) -> Image.Image:
    """`box` (top-left pt) of page 1 of `pdf` as a picture."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        page = doc[0]
        w, h = page.get_size()
        x0, top, x1, bottom = box
        img = page.render(scale=scale, crop=(x0, h - bottom, w - x1, top)).to_pil().convert("L")
        page.close()
    finally:
        doc.close()
    return img


def _line_box(pdf: Path, column: str, row: int | None = None):
    """The box of a column's `row`th line (its last when None) as the text reader places it."""
    from scanner.inputs.options import ReadOptions
    from scanner.pdf.reader import read_pdf

    sheet = read_pdf(pdf, None, ReadOptions())
    lines = [ln for ln in sheet.lines if ln.column == column]
    return (lines[-1] if row is None else lines[row - 1]).box


def _shown_row(kind: str, out: Path) -> None:
    """A db sheet whose page shows one more row than its text: drawn as glyph outlines or as a
    picture, after the monster column's last line or in the empty side deck."""
    import tempfile

    after = "after-last" in kind
    extra = [(HIDDEN_NAME, 1)]
    base_deck = _blue_eyes(side=None if after else [])
    shown_deck = _blue_eyes(side=None if after else extra, monster_extra=extra if after else None)
    with tempfile.TemporaryDirectory() as tmp:
        base = _draw_db(base_deck, Path(tmp) / "base.pdf")
        shown = _draw_db(shown_deck, Path(tmp) / "shown.pdf")
        box = _line_box(shown, "monster" if after else "side")
        writer = _merge(base, _overlay(_size(base), lambda cv, h: _draw_shown(cv, h, kind, shown, box)))
        writer.write(str(out))


def _draw_shown(cv, h: float, kind: str, shown: Path, box) -> None:
    if kind.startswith("outline"):
        _outlines(cv, _chars(shown, box))
        return
    from reportlab.lib.utils import ImageReader

    x0, top, x1, bottom = box
    pad = 0.6  # inside the cell's rules
    inner = (x0 + pad, top + pad, x1 - pad, bottom - pad)
    cv.drawImage(ImageReader(_picture(shown, inner)), inner[0], h - inner[3], inner[2] - inner[0],
                 inner[3] - inner[1])


def _small_print(kind: str, out: Path) -> None:
    """A row in an empty row of the Konami form, drawn in one font and read through a ToUnicode
    map that lies: at `1 Tf` scaled ×10 by the text matrix (small print to a size check), in a
    font no check knows, with a count printed `×3`, or glued to a db sheet's row number."""
    if kind == "glued-row-number-tounicode":
        box = _line_box(DB_GLUED, "monster")
        pitch = box[3] - box[1]
        chars = _chars(DB_GLUED, box)  # the last line: small row number, name glued, count
        name0 = next(c for c in chars if not c[0].isdigit())  # the printed number stays the sheet's
        _lying_text(DB_GLUED, out, (box[0], box[3], box[2], box[3] + pitch), count="1",
                    name=HIDDEN_NAME, read=READ_NAME, name_x=name0[1] - box[0],
                    count_x=chars[-1][1] - box[0], size=name0[3], baseline=name0[2] - pitch,
                    font_file="/usr/share/fonts/truetype/nanum/NanumSquareR.ttf")
    elif kind == "small-print-tounicode":
        _lying_text(KDE_FLAT, out, _row_box(*EMPTY_ROW), "1", HIDDEN_NAME, READ_NAME, tf_scale=10)
    elif kind == "small-print-tounicode-count":
        _lying_text(KDE_FLAT, out, _row_box(*EMPTY_ROW), "3", OVER_LIMIT[0], OVER_LIMIT[0],
                    tf_scale=10, read_count="1")
    elif kind == "unknown-font-tounicode":
        _lying_text(KDE_FLAT, out, _row_box(*EMPTY_ROW), "1", HIDDEN_NAME, READ_NAME,
                    font_file="/usr/share/fonts/truetype/unfonts-core/UnDotum.ttf")
    elif kind == "count-times-three":
        _lying_text(KDE_FLAT, out, _row_box(*EMPTY_ROW), "×3", OVER_LIMIT[0], OVER_LIMIT[0],
                    read_count="×1", count_x=1.0)
    elif kind == "decoy-header":
        _decoy_header(KDE_FLAT, out)


def _rows_in(pdf: Path, column: str) -> int:
    from scanner.inputs.options import ReadOptions
    from scanner.pdf.reader import read_pdf

    return sum(1 for ln in read_pdf(pdf, None, ReadOptions()).lines if ln.column == column)


def _lying_text(base: Path, out: Path, box, count: str, name: str, read: str, *, tf_scale: float = 1.0,
                read_count: str | None = None, font_file: str = FONT_FILE, name_x: float = 22.0,
                count_x: float = 6.0, size: float = 9.0, baseline: float | None = None) -> None:
    """`count` and `name` drawn in `box` in a font of their own whose ToUnicode map reads the
    drawn name as `read` and the drawn count as `read_count` (glyph by glyph)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    face = "Forgery" + Path(font_file).stem
    if face not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(face, font_file))
    x0, top, _, bottom = box

    def draw(cv, h):
        text = cv.beginText()
        text.setFont(face, size / tf_scale)
        base_y = h - bottom + 4.5 if baseline is None else baseline
        for value, dx in ((count, count_x), (name, name_x)):
            text.setTextTransform(tf_scale, 0, 0, tf_scale, x0 + dx, base_y)
            text.textOut(value)
        cv.drawText(text)

    lie = {a: b for a, b in zip(name.replace(" ", ""), read.replace(" ", "")) if a != b}
    lie.update({a: " " for a in name.replace(" ", "")[len(read.replace(" ", "")):]})
    if read_count is not None:
        lie.update({a: b for a, b in zip(count, read_count) if a != b})
    _merge(base, _lie_in_overlay(_overlay(_size(base), draw), lie)).write(str(out))


def _lie_in_overlay(overlay: bytes, lie: dict[str, str]) -> bytes:
    """`overlay` (its own fonts only) with every ToUnicode map reading the glyphs of `lie`'s keys
    as its values."""
    import pypdf
    from pypdf.generic import NameObject

    writer = pypdf.PdfWriter(clone_from=io.BytesIO(overlay))
    done = False
    for _, ref in writer.pages[0]["/Resources"]["/Font"].items():
        font = ref.get_object()
        if font.get("/ToUnicode") is None:
            continue
        cmap = font["/ToUnicode"].get_object().get_data().decode("latin-1")

        def swap(m: re.Match) -> str:
            ch = chr(int(m.group(2), 16))
            return f"<{m.group(1)}> <{ord(lie[ch]):04X}>" if ch in lie else m.group(0)

        stream = pypdf.generic.DecodedStreamObject()
        stream.set_data(re.sub(r"<([0-9A-F]{2,4})> <([0-9A-F]{4})>", swap, cmap).encode("latin-1"))
        font[NameObject("/ToUnicode")] = writer._add_object(stream)
        done = True
    assert done, "the overlay has no ToUnicode map to remap"
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


DECOY_LIFT = 1000.0
"""How far above the real header the invisible decoy header (and the copy it anchors) sits."""


def _decoy_header(base: Path, out: Path) -> None:
    """The flattened form with an invisible 'MONSTER CARDS' above the page, and an invisible copy
    of the deck placed as that header would have it: the reader anchors on the first header and
    reads the copy (one line changed: 하루 우라라 ×1 where the page prints ×2... or a card it
    does not print)."""
    from scanner.inputs.options import ReadOptions
    from scanner.pdf.reader import read_pdf

    sheet = read_pdf(base, None, ReadOptions())
    copy = [(ln.column, ln.row, ln.count_text or str(ln.count), ln.text) for ln in sheet.lines]
    copy.append((EMPTY_ROW[0], EMPTY_ROW[1], "1", READ_NAME))  # a card the page does not print

    def draw(cv, h):
        text = cv.beginText()
        text.setTextRenderMode(3)
        text.setFont(_font(), 11)
        text.setTextOrigin(93.1, h - (149.2 - DECOY_LIFT) - 8.2)
        text.textOut("MONSTER CARDS")
        text.setFont(_font(), 9)
        for column, row, count, name in copy:
            x0, top, _, bottom = _row_box(column, row)
            text.setTextOrigin(x0 + 6, h - (bottom - DECOY_LIFT) + 4.5)
            text.textOut(count)
            text.setTextOrigin(x0 + 22, h - (bottom - DECOY_LIFT) + 4.5)
            text.textOut(name)
        cv.drawText(text)

    _merge(base, _overlay(_size(base), draw)).write(str(out))


# --- form values (the filled Konami form sample) ------------------------------------------------

FORM_ROW = 6
"""A monster row the form sample leaves empty (its deck has 5 monster lines)."""


def _appearance(writer, w: float, h: float, draw):
    """A Form XObject of `w`×`h` pt drawn by `draw(canvas, h)` (reportlab), for an /AP."""
    import pypdf
    from pypdf.generic import ArrayObject, DecodedStreamObject, FloatObject, NameObject

    page = pypdf.PdfReader(io.BytesIO(_overlay((w, h), draw))).pages[0]
    ap = DecodedStreamObject()
    ap.set_data(page.get_contents().get_data())
    ap.update({NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Form"),
               NameObject("/BBox"): ArrayObject([FloatObject(v) for v in (0, 0, w, h)]),
               NameObject("/Resources"): page["/Resources"].clone(writer)})
    return writer._add_object(ap)


def _widgets(writer) -> dict[str, object]:
    return {str(ref.get_object().get("/T")): ref for ref in writer.pages[0]["/Annots"]
            if ref.get_object().get("/T") is not None}


def _form(kind: str, out: Path) -> None:
    import pypdf
    from pypdf.generic import ArrayObject, BooleanObject, DictionaryObject, NameObject, TextStringObject

    writer = pypdf.PdfWriter(clone_from=str(KDE_FORM))
    acro = writer._root_object["/AcroForm"]
    widgets = _widgets(writer)
    name_field, count_field = f"Monster {FORM_ROW}", f"Monster Card {FORM_ROW} Count"
    if kind == "form-v-twice":
        # pypdf keeps the first of two /V, pdfium the last: the reader reads one card, the page
        # (drawn from pdfium's value) shows the other.
        widgets[name_field].get_object()[NameObject("/V")] = TextStringObject("QQFIRSTQQ")
        widgets[count_field].get_object()[NameObject("/V")] = TextStringObject("1")
        data = io.BytesIO()
        writer.write(data)
        raw = data.getvalue().replace(b"/V (QQFIRSTQQ)", b"/V " + _pdf_text(READ_NAME) + b" /V "
                                      + _pdf_text(HIDDEN_NAME))
        out.write_bytes(_rebuild_xref(raw))
        return
    if kind == "form-two-fields-one-name":
        # The form's own field draws its value; a second field of the same name, with no place
        # on the page, holds the value one PDF library reads.
        widgets[name_field].get_object()[NameObject("/V")] = TextStringObject(HIDDEN_NAME)
        widgets[count_field].get_object()[NameObject("/V")] = TextStringObject("1")
        twin = writer._add_object(DictionaryObject({
            NameObject("/FT"): NameObject("/Tx"), NameObject("/T"): TextStringObject(name_field),
            NameObject("/V"): TextStringObject(READ_NAME)}))
        acro["/Fields"].insert(0, twin)
    elif kind == "form-widget-off-cell":
        # Monster 1's name is drawn in row FORM_ROW's cell: the page shows it with no count,
        # and row 1 with a count and no name.
        one, target = widgets["Monster 1"].get_object(), widgets[name_field].get_object()
        one[NameObject("/Rect")] = ArrayObject(list(target["/Rect"]))
    elif kind == "form-name-widgets-swapped":
        one, side = widgets["Monster 1"].get_object(), widgets["Side Deck 1"].get_object()
        r1, r2 = list(one["/Rect"]), list(side["/Rect"])
        one[NameObject("/Rect")], side[NameObject("/Rect")] = ArrayObject(r2), ArrayObject(r1)
    elif kind == "form-value-without-widget":
        # The row's fields are values only (no widget on the page); the page draws another card
        # in their cells.
        annots = writer.pages[0]["/Annots"]
        for name, value in ((name_field, READ_NAME), (count_field, "1")):
            ref = widgets[name]
            annots.remove(ref)
            acro["/Fields"].remove(ref)
            acro["/Fields"].append(writer._add_object(DictionaryObject({
                NameObject("/FT"): NameObject("/Tx"), NameObject("/T"): TextStringObject(name),
                NameObject("/V"): TextStringObject(value)})))
        box = _row_box("monster", FORM_ROW)
        over = _overlay(_size(KDE_FORM), lambda cv, h: _text_row(cv, h, "1", HIDDEN_NAME, box))
        writer.pages[0].merge_page(pypdf.PdfReader(io.BytesIO(over)).pages[0])
    elif kind == "form-lookalike-value":
        acro[NameObject("/NeedAppearances")] = BooleanObject(False)
        for name, value, shown in ((name_field, LOOK_ALIKE, HIDDEN_NAME), (count_field, "1", "1")):
            annot = widgets[name].get_object()
            annot[NameObject("/V")] = TextStringObject(value)
            x0, y0, x1, y1 = (float(v) for v in annot["/Rect"])
            annot[NameObject("/AP")] = DictionaryObject({NameObject("/N"): _appearance(
                writer, x1 - x0, y1 - y0, lambda cv, hh, t=shown: (cv.setFont(_font(), 9),
                                                                   cv.drawString(2, 4, t)))})
    else:
        raise ValueError(kind)
    writer.write(str(out))


def _pdf_text(text: str) -> bytes:
    """A PDF text string (UTF-16BE with its BOM, hex)."""
    return b"<FEFF" + text.encode("utf-16-be").hex().upper().encode() + b">"


def _rebuild_xref(data: bytes) -> bytes:
    """`data` (a classic-xref PDF edited in place) with its cross-reference table rewritten."""
    body = data[:data.rindex(b"\nxref") + 1]  # (not the "xref" of "startxref")
    offsets = {int(m.group(1)): m.start(1) for m in re.finditer(rb"(?:^|\n)(\d+) 0 obj", body)}
    trailer = data[data.rindex(b"trailer"):data.rindex(b"startxref")]
    size = max(offsets) + 1
    rows = [b"0000000000 65535 f \n"] + [
        (b"%010d 00000 n \n" % offsets[n]) if n in offsets else b"0000000000 65535 f \n"
        for n in range(1, size)]
    xref = b"xref\n0 %d\n" % size + b"".join(rows)
    trailer = re.sub(rb"/Size \d+", b"/Size %d" % size, trailer)
    return body + xref + trailer + b"startxref\n%d\n%%%%EOF\n" % len(body)


# --- on paper ≠ on screen (the flattened Konami form sample) ----------------------------------

def _paper(kind: str, out: Path) -> None:
    import pypdf
    from pypdf.generic import (ArrayObject, DictionaryObject, FloatObject, NameObject, NumberObject,
                               TextStringObject)

    box = _row_box(*EMPTY_ROW)
    x0, top, x1, bottom = box
    if kind in ("print-only-annotation", "screen-only-annotation"):
        writer = pypdf.PdfWriter(clone_from=str(KDE_FLAT))
        height = float(writer.pages[0].mediabox.height)
        w, h = x1 - x0, bottom - top
        ap = _appearance(writer, w, h, lambda cv, hh: _text_row(cv, hh, "1", HIDDEN_NAME, (0, 0, w, h)))
        flags = 4 | 32 if kind == "print-only-annotation" else 0  # Print|NoView, or neither
        writer.add_annotation(0, DictionaryObject({
            NameObject("/Type"): NameObject("/Annot"), NameObject("/Subtype"): NameObject("/Watermark"),
            NameObject("/Rect"): ArrayObject([FloatObject(x0), FloatObject(height - bottom),
                                              FloatObject(x1), FloatObject(height - top)]),
            NameObject("/F"): NumberObject(flags),
            NameObject("/AP"): DictionaryObject({NameObject("/N"): ap})}))
        writer.write(str(out))
        return
    if kind != "print-only-layer":
        raise ValueError(kind)
    from reportlab.lib.utils import ImageReader

    def draw(cv, h):
        cv.addLiteral("/OC /ForgeryPrint BDC")
        cv.drawImage(ImageReader(_row_image(HIDDEN_NAME, x1 - x0, bottom - top)), x0, h - bottom,
                     x1 - x0, bottom - top)
        cv.addLiteral("EMC")

    writer = _merge(KDE_FLAT, _overlay(_size(KDE_FLAT), draw))
    ocg = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/OCG"), NameObject("/Name"): TextStringObject("print"),
        NameObject("/Usage"): DictionaryObject({
            NameObject("/View"): DictionaryObject({NameObject("/ViewState"): NameObject("/OFF")}),
            NameObject("/Print"): DictionaryObject({NameObject("/PrintState"): NameObject("/ON")})})}))
    resources = writer.pages[0][NameObject("/Resources")].get_object()
    props = resources.get("/Properties")
    if props is None:
        props = DictionaryObject()
        resources[NameObject("/Properties")] = props
    props.get_object()[NameObject("/ForgeryPrint")] = ocg
    auto = [DictionaryObject({NameObject("/Event"): NameObject(f"/{event}"),
                              NameObject("/Category"): ArrayObject([NameObject(f"/{event}")]),
                              NameObject("/OCGs"): ArrayObject([ocg])}) for event in ("View", "Print")]
    writer._root_object[NameObject("/OCProperties")] = DictionaryObject({
        NameObject("/OCGs"): ArrayObject([ocg]),
        NameObject("/D"): DictionaryObject({NameObject("/OFF"): ArrayObject([ocg]),
                                            NameObject("/AS"): ArrayObject(auto),
                                            NameObject("/Order"): ArrayObject([ocg])})})
    writer.write(str(out))


# --- another page ------------------------------------------------------------------------------

def _picture_page_first(out: Path) -> None:
    """Page 1 a picture of a sheet that shows a forbidden card; page 2 the honest text sheet."""
    import tempfile

    import pypdf
    import pypdfium2 as pdfium
    from reportlab.lib.utils import ImageReader

    with tempfile.TemporaryDirectory() as tmp:
        shown = _draw_db(_blue_eyes(monster_extra=[(HIDDEN_NAME, 1)]), Path(tmp) / "shown.pdf")
        doc = pdfium.PdfDocument(str(shown))
        page = doc[0]
        size = page.get_size()
        img = page.render(scale=200 / 72).to_pil().convert("RGB")
        page.close()
        doc.close()
        picture = _overlay(size, lambda cv, h: cv.drawImage(ImageReader(img), 0, 0, size[0], size[1]))
    writer = pypdf.PdfWriter()
    writer.append(pypdf.PdfReader(io.BytesIO(picture)))
    writer.append(pypdf.PdfReader(str(DB_BASE)))
    writer.write(str(out))


def make_two_reading(kind: str, out: Path) -> Path:
    """Write issue 33's forgery `kind` (one of TWO_READING_KINDS) to `out`."""
    if kind in ROW_KINDS:
        _shown_row(kind, out)
    elif kind in SMALL_PRINT_KINDS:
        _small_print(kind, out)
    elif kind in FORM_KINDS:
        _form(kind, out)
    elif kind in PAPER_KINDS:
        _paper(kind, out)
    elif kind == "picture-page-first":
        _picture_page_first(out)
    else:
        raise ValueError(kind)
    return out
