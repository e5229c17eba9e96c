"""Make the sample deck sheets in samples/sheets/ from the decks in samples/decks_src/.

    python samples/make_samples.py            # needs reportlab and the Nanum fonts

Layouts: the card-database sheet (db-ko style; several fonts, sizes and offsets), a Konami-style
fillable deck list with AcroForm values, and the same form flattened (values as page text).
The form is drawn here, with the field names and boxes of Konami's KDE_DeckList.pdf, so every
committed PDF is our own. Names and card kinds come from the demo database.
Tests import `draw_db_sheet` / `draw_kde_sheet` / `draw_cn_sheet` to make further variants
(misaligned rows, squeezed or wrapped names, row numbers touching names, glyphs set in a fallback
font, the Chinese official form from a template the caller supplies).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from card_db.cdb import CardDatabase, load_card_db  # noqa: E402
from scanner.layouts import KDE, Layout  # noqa: E402
from scanner.pdf.form import field_boxes  # noqa: E402

FONT_DIR = Path("/usr/share/fonts/truetype/nanum")
FALLBACK_FONTS = (("DejaVuSans", Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")),
                  ("NanumGothic", FONT_DIR / "NanumGothic.ttf"))
"""Where a glyph the sheet's font lacks is set (ϝ, À, ・), as the card database's print does."""
FONTS = {  # family → (regular, bold)
    "NanumGothic": ("NanumGothic.ttf", "NanumGothicBold.ttf"),
    "NanumBarunGothic": ("NanumBarunGothic.ttf", "NanumBarunGothicBold.ttf"),
    "NanumMyeongjo": ("NanumMyeongjo.ttf", "NanumMyeongjoBold.ttf"),
    "NanumSquare": ("NanumSquareR.ttf", "NanumSquareB.ttf"),
}
LATIN_FONTS = {  # family → (regular, bold): the print fonts English sheets come in (Debian paths)
    "LiberationSans": ("/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
                       "/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf"),
    "LiberationSerif": ("/usr/share/fonts/truetype/liberation2/LiberationSerif-Regular.ttf",
                        "/usr/share/fonts/truetype/liberation2/LiberationSerif-Bold.ttf"),
    "Carlito": ("/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf",
                "/usr/share/fonts/truetype/crosextra/Carlito-Bold.ttf"),
    "DejaVuSansLatin": ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),
}
"""Not in `FONTS` (the Korean sheets' fonts, which the generated sheets pick from): sheets with
English names are drawn in these too."""
A4 = (595.2756, 841.8898)
KDE_SIZE = (KDE.width, KDE.height)
KDE_TOTAL_FIELDS = {kind: names[0] for kind, names in KDE.form.totals.items() if kind != "main"}


def form_boxes() -> dict[str, tuple[float, float, float, float]]:
    """Konami's form: every field's box (`scanner.layouts.kde`)."""
    return field_boxes(KDE)
COLUMN_TITLES = {"monster": "몬스터 카드", "spell": "마법 카드", "trap": "함정 카드",
                 "extra": "엑스트라 덱", "side": "사이드 덱"}


@dataclass
class SampleDeck:
    """A deck laid out as a sheet: (name, count) lines per column, plus the player."""

    columns: dict[str, list[tuple[str, int]]]
    player_family: str = "김"
    player_given: str = "민준"
    konami_id: str = "0123456789"
    event: str = "OCG 공인 대회"
    date: tuple[int, int, int] = (2026, 7, 12)

    def total(self, *cols: str) -> int:
        return sum(n for c in cols for _, n in self.columns.get(c, []))


def deck_from_ydk(path: Path, db: CardDatabase, **player) -> SampleDeck:
    """Lines in first-seen order; main-deck cards go to the column of their kind."""
    columns: dict[str, dict[str, int]] = {c: {} for c in COLUMN_TITLES}
    section = "main"
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line in ("#main", "#extra", "!side"):
            section = line.strip("#!")
            continue
        if not line.isdigit():
            continue
        card = db.get(int(line))
        if card is None:
            raise SystemExit(f"{path.name}: passcode {line} is not in the demo database")
        col = card.kind.value if section == "main" else section
        columns[col][card.name] = columns[col].get(card.name, 0) + 1
    return SampleDeck(columns={c: list(v.items()) for c, v in columns.items()}, **player)


def _register(family: str) -> tuple[str, str]:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    regular, bold = FONTS[family] if family in FONTS else LATIN_FONTS[family]  # (absolute paths)
    wanted = [(family, FONT_DIR / regular), (family + "-Bold", FONT_DIR / bold), *FALLBACK_FONTS]
    for name, file in wanted:
        if name not in pdfmetrics.getRegisteredFontNames() and file.is_file():
            pdfmetrics.registerFont(TTFont(name, str(file)))
    return family, family + "-Bold"


def _has_glyph(font: str, ch: str) -> bool:
    from reportlab.pdfbase import pdfmetrics

    face = getattr(pdfmetrics.getFont(font), "face", None)
    return face is None or ord(ch) in face.charToGlyph


def font_runs(text: str, font: str) -> list[tuple[str, str]]:
    """The text cut into runs of one font each: the sheet's font, else the first fallback font
    that has the glyph."""
    from reportlab.pdfbase import pdfmetrics

    registered = set(pdfmetrics.getRegisteredFontNames())
    runs: list[tuple[str, str]] = []
    for ch in text:
        use = font
        if not ch.isspace() and not _has_glyph(font, ch):
            use = next((f for f, _ in FALLBACK_FONTS if f in registered and _has_glyph(f, ch)), font)
        if runs and runs[-1][1] == use:
            runs[-1] = (runs[-1][0] + ch, use)
        else:
            runs.append((ch, use))
    return runs


def text_width(text: str, font: str, size: float) -> float:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return sum(stringWidth(run, f, size) for run, f in font_runs(text, font))


@dataclass
class DbStyle:
    """How one card-database sheet is printed."""

    family: str = "NanumGothic"
    size: float = 9.0
    dx: float = 0.0
    dy: float = 0.0
    row_h: float = 15.0
    entry_no: bool = True
    title: str = "덱 리스트"
    glue_row_numbers: bool = False
    """Print each row number right against its name (no gap), as some exports do."""
    wrap_long_names: bool = False
    """A name too long for its cell goes on two small lines inside the row instead of being
    squeezed (as word processors do)."""
    misalign: dict[tuple[str, int], float] = field(default_factory=dict)
    """(column, row) → vertical shift of that row's name in pt (a sloppy export)."""
    date_format: str = "{y}.{m:02d}.{d:02d}"
    compress: bool = True
    entry_field: bool = False
    """Print the 참가 번호 (entry number) line under the ID, empty, as some sheets do."""
    footer: bool = False
    grid_gray: float = 0.0
    header_fill: float = 0.9
    min_rows: int = 20
    """Rows of each main column (more when a column needs them)."""
    rownum_size: float = 6.0
    rule_width: float = 0.3
    """Line width of the row rules (pt); the card database prints about 0.6."""
    ruled: bool = False
    """Rule off the row-number and count columns and box the 합계 row, as the card database's
    own print does (the OCR reader finds its cells by these rules)."""


def wrap_in_two(name: str) -> tuple[str, str]:
    """Two lines of about equal length, broken at the space nearest the middle if any."""
    mid = len(name) // 2
    spaces = [i for i, ch in enumerate(name) if ch == " "]
    if spaces:
        cut = min(spaces, key=lambda i: abs(i - mid))
        return name[:cut], name[cut + 1:]
    return name[:mid], name[mid:]


def _fit(c, text: str, font: str, size: float, width: float) -> tuple[float, float]:
    """Font size and horizontal scale (%) that fit text into width: shrink, then squeeze (Tz)."""
    w = text_width(text, font, size)
    if w <= width:
        return size, 100.0
    small = max(size * 0.8, size * width / w)
    w = text_width(text, font, small)
    return small, min(100.0, 100.0 * width / w)


def type_value(c, name: str, value: str, box: tuple[float, float, float, float], font: str,
               size: float, page_h: float) -> None:
    """One form value typed in its box (top-left coordinates): counts and totals centred, other
    values left-aligned, shrunk then squeezed to fit."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    x0, t, x1, b = box
    fs, scale = _fit(c, value, font, size, x1 - x0 - 4)
    base = page_h - (t + b) / 2 - fs * 0.35
    if "Count" in name or name.startswith("Total") or name == "Main Deck Total":
        _text(c, (x0 + x1) / 2 - stringWidth(value, font, fs) / 2, base, value, font, fs)
    else:
        _text(c, x0 + 2, base, value, font, fs, scale)


def _text(c, x: float, y: float, text: str, font: str, size: float, scale: float = 100.0) -> None:
    t = c.beginText(x, y)
    t.setHorizScale(scale)
    for run, run_font in font_runs(text, font):
        t.setFont(run_font, size)
        t.textOut(run)
    c.drawText(t)


def draw_db_sheet(path: Path, deck: SampleDeck, style: DbStyle = DbStyle()) -> None:
    """A card-database style sheet: header, three main columns, extra and side below."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    reg, bold = _register(style.family)
    W, H = A4
    c = canvas.Canvas(str(path), pagesize=A4, pageCompression=int(style.compress))
    c.setTitle("덱 리스트")
    s, rh = style.size, style.row_h
    left, top = 30 + style.dx, 36 + style.dy

    def y(t: float) -> float:  # top-left coordinates → PDF
        return H - t

    _text(c, left, y(top + 14), style.title, bold, 14)
    hy = top + 34
    _text(c, left + 4, y(hy), "이름", bold, 8)
    _text(c, left + 98, y(hy), deck.player_family + deck.player_given, reg, s + 1)
    _text(c, left + 266, y(hy), "날짜", bold, 8)
    yy, mm, dd = deck.date
    _text(c, left + 324, y(hy), style.date_format.format(y=yy, m=mm, d=dd), reg, s + 1)
    hy += 19
    _text(c, left + 4, y(hy), "코나미 카드 게임 ID", bold, 8)
    for i, digit in enumerate(deck.konami_id):
        bx = left + 96 + i * 15.8
        c.setLineWidth(0.4)
        if style.ruled:  # taller boxes that meet the header's own rules
            c.rect(bx, y(hy + 3), 15.8, 16)
        else:
            c.rect(bx, y(hy + 4), 14, 14)
        _text(c, bx + 7 - stringWidth(digit, reg, s + 1) / 2, y(hy), digit, reg, s + 1)
    _text(c, left + 266, y(hy), "이벤트명", bold, 8)
    _text(c, left + 324, y(hy), deck.event, reg, s + 1)
    if style.entry_field:
        hy += 19
        _text(c, left + 4, y(hy), "참가 번호", bold, 8)

    col_w = (W - 60) / 3
    main_rows = max(style.min_rows, *(len(deck.columns[k]) for k in ("monster", "spell", "trap")))
    grid_top = hy + 24
    rs = style.rownum_size

    def column(key: str, x0: float, width: float, rows: int, t0: float, rh: float = rh) -> float:
        """Draw one column; returns the y of its total row."""
        c.setStrokeGray(style.grid_gray)
        c.setFillGray(style.header_fill)
        c.rect(x0, y(t0 + rh), width, rh, stroke=1, fill=1)
        c.setFillGray(0)
        title = COLUMN_TITLES[key]
        _text(c, x0 + (width - 24 - stringWidth(title, bold, 8)) / 2, y(t0 + rh - 4), title, bold, 8)
        cx = x0 + width - 12
        _text(c, cx - stringWidth("매수", bold, 7) / 2, y(t0 + rh - 4), "매수", bold, 7)
        lines = deck.columns.get(key, [])
        name_x = x0 + (12 if style.entry_no and not style.glue_row_numbers else 4)
        for r in range(rows):
            rt = t0 + rh * (r + 1)
            c.setLineWidth(style.rule_width)
            c.rect(x0, y(rt + rh), width, rh)
            base = rt + rh - (rh - s * 0.75) / 2
            num = str(r + 1)
            if r < len(lines):
                name, n = lines[r]
                shift = style.misalign.get((key, r + 1), 0.0)
                avail = width - (name_x - x0) - 28
                size, scale = _fit(c, name, reg, s, avail)
                nx = name_x
                if style.entry_no and style.glue_row_numbers:
                    _text(c, x0 + 3, y(base), num, reg, rs)
                    nx = x0 + 3 + stringWidth(num, reg, rs)  # touching: no gap at all
                if style.wrap_long_names and scale < 100.0:
                    first, second = wrap_in_two(name)
                    small = min(s * 0.62, (rh - 2) / 2)
                    _text(c, nx, y(base + shift - small * 1.05), first, reg, small)
                    _text(c, nx, y(base + shift), second, reg, small)
                else:
                    _text(c, nx, y(base + shift), name, reg, size, scale)
                _text(c, cx - stringWidth(str(n), reg, s) / 2, y(base), str(n), reg, s)
            if style.entry_no and not (style.glue_row_numbers and r < len(lines)):
                _text(c, x0 + 6 - stringWidth(num, reg, rs) / 2, y(base - 1), num, reg, rs)
        tt = t0 + rh * (rows + 1)
        if style.ruled:
            c.setLineWidth(0.4)
            c.rect(x0, y(tt + rh), width, rh)
            c.line(cx - 12, y(t0), cx - 12, y(tt + rh))
            if style.entry_no and not style.glue_row_numbers:
                c.line(x0 + 10, y(t0 + rh), x0 + 10, y(tt))
        total = sum(n for _, n in lines)
        _text(c, cx - 18 - stringWidth("합계", bold, 7.5), y(tt + rh - 4), "합계", bold, 7.5)
        _text(c, cx - stringWidth(str(total), bold, s) / 2, y(tt + rh - 4), str(total), bold, s)
        return tt + rh

    for i, key in enumerate(("monster", "spell", "trap")):
        # A long column squeezes the rows so that the page still holds extra and side.
        end = column(key, left + i * col_w, col_w - 6, main_rows, grid_top,
                     min(rh, 350.0 / (main_rows + 2)))
    main_total = deck.total("monster", "spell", "trap")
    label = "메인 덱 합계"
    _text(c, left + 3 * col_w - 50 - stringWidth(label, bold, 8), y(end + 14), label, bold, 8)
    _text(c, left + 3 * col_w - 24, y(end + 14), str(main_total), bold, s + 1)
    lower = end + 24
    if style.ruled:  # framed header block and 메인 덱 합계 box
        c.setLineWidth(0.4)
        for x0, mid, x1 in ((left, left + 92, left + 258), (left + 262, left + 318, left + 3 * col_w - 6)):
            c.rect(x0, y(top + 58), x1 - x0, 36)
            c.line(x0, y(top + 40), x1, y(top + 40))
            c.line(mid, y(top + 22), mid, y(top + 58))
        c.rect(left + 3 * col_w - 30, y(end + 18), 26, 15)
        lower = end + 32
    half = (W - 60) / 2
    column("extra", left, half - 8, 15, lower)
    end = column("side", left + half, half - 8, 15, lower)
    if style.footer:
        foot = "© Studio Dice/SHUEISHA, TV TOKYO, KONAMI"
        _text(c, W - 30 - stringWidth(foot, reg, 6.5), y(min(end + 30, H - 20)), foot, reg, 6.5)
    c.save()


def draw_kde_sheet(path: Path, deck: SampleDeck, filled: bool = True, family: str = "NanumGothic",
                   size: float = 9.0) -> None:
    """A Konami-style deck list: the form drawn here; values as form fields or as page text."""
    from reportlab.pdfgen import canvas

    reg, bold = _register(family)
    W, H = KDE_SIZE
    boxes = form_boxes()
    background = path.with_suffix(".bg.pdf") if filled else path
    c = canvas.Canvas(str(background), pagesize=KDE_SIZE, pageCompression=1)
    c.setLineWidth(0.4)
    c.setFillGray(0.85)  # the form's grey title rows (they tell a reader where row 1 starts)
    for x0, x1, top, bottom in KDE_TITLE_ROWS:
        c.rect(x0, H - bottom, x1 - x0, bottom - top, fill=1, stroke=1)
    c.setFillGray(0)
    c.setFont("Helvetica-Bold", 11)
    for label, x, top in (("MONSTER CARDS", 93.1, 149.2), ("SPELL CARDS", 293.0, 149.2),
                          ("TRAP CARDS", 483.2, 149.2), ("SIDE DECK", 109.5, 496.3),
                          ("EXTRA DECK", 294.4, 496.3)):
        c.drawString(x, H - top - 8.2, label)
    c.setFont("Helvetica-Bold", 10)
    for label, x, top in (("<<< TOTAL MONSTER CARDS", 58.5, 478.6), ("<<< TOTAL SPELL CARDS", 248.0, 478.6),
                          ("<<< TOTAL TRAP CARDS", 437.5, 478.6), ("<<< TOTAL SIDE DECK", 58.5, 773.5),
                          ("<<< TOTAL EXTRA DECK", 248.0, 773.5)):
        c.drawString(x, H - top - 7.5, label)
    c.setFont("Helvetica", 9)
    for label, x, top in (("First & Middle", 39.4, 72.7), ("Name(s):", 39.4, 84.6),
                          ("Last Name(s):", 39.4, 103.9),
                          ("CARD GAME ID:", 39.4, 129.3), ("Event Date:", 314.2, 84.6),
                          ("Country of Residency:", 314.2, 103.9), ("Event Name:", 314.2, 135.4)):
        c.drawString(x, H - top - 7, label)
    c.setFont("Helvetica", 6)
    c.drawString(558.0, H - 115.5, "Main Deck Total")
    c.setLineWidth(0.4)
    for x0, t, x1, b in boxes.values():
        c.rect(x0, H - b, x1 - x0, b - t)

    values = kde_values(deck)
    if not filled:
        for name, value in values.items():
            type_value(c, name, value, boxes[name], reg, size, H)
    c.save()
    if filled:
        _add_form_fields(background, path, values, boxes)
        background.unlink()


KDE_TITLE_ROWS = ((37.5, 227.0, 146.0, 160.5), (227.0, 416.5, 146.0, 160.5), (416.5, 606.0, 146.0, 160.5),
                  (37.5, 227.0, 493.0, 507.5), (227.0, 416.5, 493.0, 507.5))
"""(x0, x1, top, bottom) of the Konami form's grey title rows (MONSTER CARDS … EXTRA DECK)."""


def kde_values(deck: SampleDeck) -> dict[str, str]:
    """Form field name → value, as a player would type them."""
    return layout_values(KDE, deck)


def layout_values(layout: Layout, deck: SampleDeck) -> dict[str, str]:
    """A fillable form's field name → value for the deck, as its description names the fields
    (`scanner.layouts`): a line's name and count, every field of a total, the player (given and
    family name, or one box: 김민준, Zoe Martin), the Konami ID (one field, or a digit a box), the
    event and its date (a field a part, or a digit a box)."""
    form = layout.form
    values: dict[str, str] = {}
    header = form.header
    if "name" in header:
        hangul = any("가" <= ch <= "힣" for ch in deck.player_family + deck.player_given)
        whole = (deck.player_family + deck.player_given if hangul
                 else f"{deck.player_given} {deck.player_family}")
        values[header["name"][0]] = whole
    if "surname" in header:
        values[header["surname"][0]] = deck.player_family
    if "given_name" in header:
        values[header["given_name"][0]] = deck.player_given
    ids = header.get("konami_id", ())
    if len(ids) == 1:
        values[ids[0]] = deck.konami_id
    else:
        values.update(dict(zip(ids, deck.konami_id)))
    if "event" in header:
        values[header["event"][0]] = deck.event
    y, m, d = deck.date
    for names, whole, digits in zip(form.date, (str(y), f"{m:02d}", f"{d:02d}"),
                                    (f"{y % 100:02d}", f"{m:02d}", f"{d:02d}")):
        if len(names) == 1:
            values[names[0]] = whole
        elif names:
            values.update(dict(zip(names, digits)))
    for name in form.totals.get("main", ()):
        values[name] = str(deck.total("monster", "spell", "trap"))
    for table in layout.tables:
        lines = deck.columns.get(table.kind, [])
        if len(lines) > table.rows:
            raise ValueError(f"{table.kind}: {len(lines)} lines do not fit the form's {table.rows} rows")
        for n, (name, count) in enumerate(lines, start=1):
            values[form.cell_field("name", table.kind, n)] = name
            values[form.cell_field("count", table.kind, n)] = str(count)
        for name in form.totals.get(table.kind, ()):
            values[name] = str(deck.total(table.kind))
    return values


def _add_form_fields(background: Path, out: Path, values: dict[str, str],
                     boxes: dict[str, tuple[float, float, float, float]]) -> None:
    """Every form box becomes a text field (filled ones carry their /V), as in Konami's form."""
    from pypdf import PdfWriter
    from pypdf.generic import (ArrayObject, BooleanObject, DictionaryObject, FloatObject,
                               NameObject, NumberObject, TextStringObject)

    writer = PdfWriter(clone_from=str(background))
    page = writer.pages[0]
    H = KDE_SIZE[1]
    annots = ArrayObject()
    for name, (x0, t, x1, b) in boxes.items():
        field = DictionaryObject({
            NameObject("/Type"): NameObject("/Annot"), NameObject("/Subtype"): NameObject("/Widget"),
            NameObject("/FT"): NameObject("/Tx"), NameObject("/T"): TextStringObject(name),
            NameObject("/Rect"): ArrayObject([FloatObject(x0), FloatObject(H - b), FloatObject(x1),
                                              FloatObject(H - t)]),
            NameObject("/F"): NumberObject(4), NameObject("/DA"): TextStringObject("/Helv 9 Tf 0 g"),
        })
        if name in values:
            field[NameObject("/V")] = TextStringObject(values[name])
        annots.append(writer._add_object(field))
    page[NameObject("/Annots")] = annots
    writer._root_object[NameObject("/AcroForm")] = DictionaryObject({
        NameObject("/Fields"): ArrayObject(list(annots)),
        NameObject("/NeedAppearances"): BooleanObject(True),
        NameObject("/DA"): TextStringObject("/Helv 9 Tf 0 g")})
    with open(out, "wb") as f:
        writer.write(f)


def cn_values(deck: SampleDeck) -> dict[str, str]:
    """Field name → value for the Chinese official form (fields numbered row by row: count,
    name for monster/spell/trap; then count, name for extra/side)."""
    from scanner.layouts import CN

    return layout_values(CN, deck)


def draw_cn_sheet(template: Path, path: Path, deck: SampleDeck, filled: bool = True,
                  family: str = "NanumGothic", size: float = 8.5) -> None:
    """The Chinese official form (a blank template PDF given by the caller) with the deck as
    AcroForm values, or flattened: values drawn as page text in the field boxes, fields removed."""
    import io

    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import BooleanObject, NameObject, TextStringObject
    from reportlab.pdfgen import canvas

    values = cn_values(deck)
    writer = PdfWriter(clone_from=str(template))
    page = writer.pages[0]
    if filled:
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            if annot.get("/T") in values:
                annot[NameObject("/V")] = TextStringObject(values[annot["/T"]])
        writer._root_object["/AcroForm"][NameObject("/NeedAppearances")] = BooleanObject(True)
    else:
        reg, _ = _register(family)
        W, H = float(page.mediabox.width), float(page.mediabox.height)
        buf = io.BytesIO()
        c = canvas.Canvas(buf, pagesize=(W, H))
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            name = annot.get("/T")
            if name not in values:
                continue
            x0, y0, x1, y1 = (float(v) for v in annot["/Rect"])
            value = values[name]
            fs, scale = _fit(c, value, reg, size, x1 - x0 - 3)
            base = (y0 + y1) / 2 - fs * 0.35
            if len(value) <= 2 and value.isdigit():
                _text(c, (x0 + x1) / 2 - text_width(value, reg, fs) / 2, base, value, reg, fs)
            else:
                _text(c, x0 + 1.5, base, value, reg, fs, scale)
        c.save()
        page.merge_page(PdfReader(io.BytesIO(buf.getvalue())).pages[0])
        del page[NameObject("/Annots")]
        del writer._root_object[NameObject("/AcroForm")]
    with open(path, "wb") as f:
        writer.write(f)


def english_deck(ydk: Path, db: CardDatabase, en_names: dict[int, str],
                 **player) -> tuple[SampleDeck, dict[str, dict[str, int]]]:
    """A real deck (`.ydk`) laid out with its cards' English names (`en_names`: passcode →
    name, from an English cards.cdb) and its truth (section → passcode → count, alternate art
    as its original), as a player filling Konami's form in English would."""
    from scanner.inputs.formats import parse_ydk

    counts: dict[tuple[str, int], int] = {}  # (section, passcode) → copies, first seen first
    for line in parse_ydk(ydk.read_text(encoding="utf-8")).lines:
        key = (line.section, db.original_id(line.card_id) or line.card_id)
        counts[key] = counts.get(key, 0) + (line.count or 0)
    columns: dict[str, list[tuple[str, int]]] = {c: [] for c in COLUMN_TITLES}
    truth: dict[str, dict[str, int]] = {"main": {}, "extra": {}, "side": {}}
    for (section, cid), n in counts.items():
        col = db.cards[cid].kind.value if section == "main" else section
        columns[col].append((en_names[cid], n))
        truth[section][str(cid)] = n
    return SampleDeck(columns=columns, **player), truth


def random_english_deck(db: CardDatabase, en_names: dict[int, str], rng, rows: dict[str, int],
                        **player) -> tuple[SampleDeck, dict[str, dict[str, int]]]:
    """A deck of the project's own: random cards of each kind (names a Latin-1 form font can
    draw), at most `rows[column]` lines a column, 1–3 copies each."""
    pools: dict[str, list[int]] = {}
    for cid, card in sorted(db.cards.items()):
        name = en_names.get(cid)
        if name is None or db.original_id(cid) not in (None, cid):
            continue
        try:
            name.encode("cp1252")
        except UnicodeEncodeError:
            continue
        pools.setdefault("extra" if card.is_extra_deck else card.kind.value, []).append(cid)
    picks = {"monster": rng.sample(pools["monster"], rng.randint(6, rows["monster"])),
             "spell": rng.sample(pools["spell"], rng.randint(3, rows["spell"])),
             "trap": rng.sample(pools["trap"], rng.randint(1, rows["trap"])),
             "extra": rng.sample(pools["extra"], rng.randint(0, rows["extra"])),
             "side": rng.sample(pools["monster"] + pools["spell"] + pools["trap"], rng.randint(0, rows["side"]))}
    used: set[int] = set()
    columns: dict[str, list[tuple[str, int]]] = {c: [] for c in COLUMN_TITLES}
    truth: dict[str, dict[str, int]] = {"main": {}, "extra": {}, "side": {}}
    for col, cids in picks.items():
        section = col if col in ("extra", "side") else "main"
        for cid in cids:
            if cid in used:
                continue
            used.add(cid)
            n = rng.randint(1, 3)
            columns[col].append((en_names[cid], n))
            truth[section][str(cid)] = n
    return SampleDeck(columns=columns, **player), truth


FILL_MODES = ("form", "flat", "widgets", "no-fields", "appearances")
"""How `fill_template` leaves a filled form: "form" (values in the AcroForm, appearances drawn
by pypdf, as a filler script does), "flat" (pypdf's flattening: the appearances drawn into the
page, fields removed), "widgets" (values and appearances in the page's widgets, no /AcroForm in
the catalogue, as a popular generator writes them), "no-fields" (the catalogue's /AcroForm
kept but its /Fields list empty: a broken form whose widgets still hold the values),
"appearances" (the values only drawn in the widgets' appearances: no /V, no /AcroForm)."""


def fill_template(template: Path, path: Path, layout: Layout, deck: SampleDeck, mode: str = "form",
                  values: dict[str, str] | None = None) -> None:
    """A blank fillable form (its PDF given by the caller) filled with the deck by pypdf, with
    the field names its description (`scanner.layouts`) gives."""
    from pypdf import PdfWriter
    from pypdf.generic import ArrayObject, NameObject

    if mode not in FILL_MODES:
        raise ValueError(f"mode {mode!r}: one of {FILL_MODES}")
    import logging

    values = layout_values(layout, deck) if values is None else values
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # "font dictionary not found": Helvetica is meant
    writer = PdfWriter(clone_from=str(template))
    page = writer.pages[0]
    writer.set_need_appearances_writer(False)
    writer.update_page_form_field_values(page, values, auto_regenerate=False, flatten=(mode == "flat"))
    if mode == "flat":
        writer.remove_annotations(subtypes="/Widget")
        del writer._root_object[NameObject("/AcroForm")]
    elif mode in ("widgets", "appearances"):
        del writer._root_object[NameObject("/AcroForm")]
    if mode == "appearances":
        for ref in page.get("/Annots") or []:
            node = ref.get_object()
            while node is not None:
                if "/V" in node:
                    del node[NameObject("/V")]
                node = node.get("/Parent").get_object() if node.get("/Parent") is not None else None
    elif mode == "no-fields":
        writer._root_object["/AcroForm"][NameObject("/Fields")] = ArrayObject()
    with open(path, "wb") as f:
        writer.write(f)


PLAYERS = {
    "blue-eyes": dict(player_family="김", player_given="하늘", konami_id="0412345678",
                      event="OCG 공인 대회", date=(2026, 7, 12)),
    "sky-striker": dict(player_family="이", player_given="서준", konami_id="1098765432",
                        event="매장 대항전", date=(2026, 8, 3)),
    "hero": dict(player_family="박", player_given="지우", konami_id="5566778899",
                 event="리모트 듀얼 토너먼트", date=(2026, 9, 21)),
}
SHEETS = (  # file name, deck, layout, options
    ("db-blue-eyes-gothic.pdf", "blue-eyes", "db", DbStyle("NanumGothic", 9.0, 0.0, 0.0, 15.0)),
    ("db-sky-striker-myeongjo.pdf", "sky-striker", "db",
     DbStyle("NanumMyeongjo", 8.5, 3.5, -2.5, 14.6, entry_no=False, title="덱 레시피",
             date_format="{y}년 {m}월 {d}일")),
    ("db-hero-square.pdf", "hero", "db", DbStyle("NanumSquare", 10.0, -4.0, 3.0, 15.8,
                                                 glue_row_numbers=True, date_format="{y}/{m:02d}/{d:02d}")),
    ("kde-form-sky-striker.pdf", "sky-striker", "kde-form", {"family": "NanumBarunGothic"}),
    ("kde-flat-hero.pdf", "hero", "kde-flat", {"family": "NanumGothic", "size": 8.5}),
)


def make_all(out_dir: Path = HERE / "sheets") -> list[Path]:
    db = load_card_db(HERE.parent / "card_db" / "data" / "demo.cdb")
    out_dir.mkdir(parents=True, exist_ok=True)
    made = []
    for file, deck_name, layout, opts in SHEETS:
        deck = deck_from_ydk(HERE / "decks_src" / f"{deck_name}.ydk", db, **PLAYERS[deck_name])
        path = out_dir / file
        if layout == "db":
            draw_db_sheet(path, deck, opts)
        else:
            draw_kde_sheet(path, deck, filled=(layout == "kde-form"), **opts)
        made.append(path)
    return made


if __name__ == "__main__":
    for p in make_all():
        print(f"wrote {p} ({p.stat().st_size // 1024} KiB)")
