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
    """Write the forgery `kind` (one of KINDS) to `out`."""
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
