"""Make scans, phone photos and pen-corrected photos of db-ko sheets, each with a truth JSON.

    python samples/make_photos.py                     # the small committed set → samples/photos/
    python samples/make_photos.py --out /tmp/gen --count 10 --seed 5 \\
        --card-db ../shared/carddb/ko-KR.cdb          # N of each kind from random real decks
    python samples/make_photos.py --out /tmp/kde --kinds kde-scan,kde-photo,kde-hand \\
        --count 8 --seed 9101 --card-db ../shared/carddb/ko-KR.cdb   # Konami's form on paper

Sheets are drawn by make_samples.draw_db_sheet (DbStyle.ruled: the card database's column rules)
in a random style, rendered with pypdfium2, then:
- scan: 200/300 dpi, rotation ≤ 1.5°, shift, light blur/noise, grey or colour, one JPEG in an
  image-only PDF;
- photo: off-white paper on a procedural background (wood/desk/fabric/gradient), perspective
  (corners moved up to 8 % of the page), rotation ±5°, light gradient, vignette, a soft shadow
  band, blur σ 0–1.2, noise, JPEG 55–85, long side 2000–4000 px, some landscape frames;
- photo-corrected: 1–3 pen corrections drawn on the page before the photo step: a whole row
  struck through with another card of its column written by hand in the first empty row, or a
  printed count struck (slash / dash / double dash) with the new count written beside it;
- photo-cluttered (not made unless asked: `--kinds photo-cluttered`): the sheet at an angle
  (±18°, a strong perspective) on a dark table among 1–4 other papers (another sheet with text
  or a grid, a receipt, a note, a card, a card box), some cut by the frame, some touching the
  sheet or lying on its margin, sometimes a hand; see clutter_scene.py. `distortions.scene`
  is "cluttered" and `distortions.others` lists every other paper with its frame corners;
- photo-sparse (not made unless asked): the sheet printed with its extra deck, side deck or
  both left empty (and a third of the time no trap: an empty main column), photographed in a
  strong pose (far edge 10–22 % shorter, a lean, rotated 2.5–7°); `distortions.dropped` names
  the empty sections, as ../shared/fixtures/sheets' photo-sparse.
Konami's deck-list form (asked for with --kinds; drawn by kde_paper on Konami's blank
KDE_DeckList.pdf, --kde-form, in the sheet's random font family and size, printed on A4
"fit to page" at 0.86–0.89, centred):
- kde-scan / kde-photo: typed values (as the fixtures' kde-flat), then the scan or photo step;
- kde-hand: the form filled by hand (Nanum Pen / Brush Script, one hand per sheet: slant, size,
  per-glyph jitter): everything, or the header typed and the cards written, or the header and
  main deck typed and extra / side written; then scanned (40 %) or photographed.
Each `NAME.EXT` gets `NAME.truth.json` in the schema of ../shared/fixtures/sheets (deck after
the corrections, printed totals from before them, printed lines, distortions, corrections).
Everything is seeded: the same arguments give the same bytes.
"""
from __future__ import annotations

import argparse
import io
import json
import math
import re
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from card_db.cdb import CardDatabase, demo_db_path, load_card_db  # noqa: E402
from card_db.models import Card  # noqa: E402
from clutter_scene import cluttered_photo, smooth_noise  # noqa: E402
from make_samples import (A4, FONT_DIR, FONTS, PLAYERS, DbStyle, SampleDeck,  # noqa: E402
                          deck_from_ydk, draw_db_sheet)
from kde_paper import (HAND_FACES, HAND_MODES, HELD_OUT_FACES, KDE_FORM, kde_page,  # noqa: E402
                       line_written_by)

KINDS = ("scan", "photo", "photo-corrected", "kde-scan", "kde-photo", "kde-hand")
"""Kinds in seed order (a kind's index seeds its sheets: new kinds go at the end)."""
DB_KINDS = KINDS[:3]
"""The db-ko kinds, made by default; the Konami-form kinds (kde_paper) are asked for by name."""
EXTRA_KINDS = {"photo-cluttered": 100, "photo-sparse": 101}
"""db-ko kinds made only when asked (`--kinds`), each with its own random stream number."""
MAIN_COLUMNS = ("monster", "spell", "trap")
SECTION_OF = {"monster": "main", "spell": "main", "trap": "main", "extra": "extra", "side": "side"}
PEN_FONTS = {"NanumPen": "NanumPen.ttf", "NanumBrush": "NanumBrush.ttf"}
PEN_COLOURS = {"dark-blue": (28, 38, 120), "black": (28, 28, 34)}
PHOTO_DPI = 250
SAFE_NAME = re.compile(r"^[가-힣A-Za-z0-9 ·－\-!?:'&.,()/~＋+=「」・★☆Ω]+$")
"""Names drawn on generated sheets: characters every Nanum sheet font has."""

COMMITTED = (  # kind, sample deck, seed: the set in samples/photos/ (small files)
    ("scan", "blue-eyes", 1), ("scan", "sky-striker", 2),
    ("photo", "blue-eyes", 3), ("photo", "sky-striker", 4), ("photo", "hero", 5),
    ("photo-corrected", "blue-eyes", 6), ("photo-corrected", "sky-striker", 7),
)
SMALL = {"scan_dpi": (200,), "long_side": (1900, 2300), "quality": (55, 72), "landscape": 0.0}
"""Limits for committed files (≤ 400 KB each; portrait, so the page keeps ≥ 140 dpi)."""
FULL = {"scan_dpi": (200, 300), "long_side": (2000, 4000), "quality": (55, 85), "landscape": 0.25}


@dataclass
class Sheet:
    """A deck as printed: the sheet's deck, its style, and passcodes of the names on it."""

    deck: SampleDeck
    style: DbStyle
    ids: dict[str, int]
    """Printed name → original passcode."""
    source: dict
    corrections: list[dict] = field(default_factory=list)
    final: dict[str, dict[int, int]] = field(default_factory=dict)
    """Section → passcode → count after the corrections."""


# ---------------------------------------------------------------- decks and styles

def random_style(rng: np.random.Generator, glue: bool = True, thin: bool = False) -> DbStyle:
    """A random ruled db-ko style; `thin` prints hairline row rules (0.3–0.45 pt, not 0.6)."""
    family = str(rng.choice(list(FONTS)))
    size = float(rng.choice([8.0, 8.5, 9.0, 9.5, 10.0]))
    entry_no = bool(rng.random() < 0.7)
    return DbStyle(family=family, size=size, dx=round(float(rng.uniform(-5, 5)), 2),
                   dy=round(float(rng.uniform(-3, 4)), 2),
                   row_h=round(max(size * 1.55, float(rng.uniform(14.2, 15.8))), 2),
                   entry_no=entry_no, title=str(rng.choice(["덱 리스트", "덱 레시피"])),
                   glue_row_numbers=bool(glue and entry_no and rng.random() < 0.15),
                   date_format=str(rng.choice(["{y}.{m:02d}.{d:02d}", "{y}년 {m}월 {d}일",
                                               "{y}/{m:02d}/{d:02d}"])),
                   ruled=True, rule_width=round(float(rng.uniform(0.3, 0.45)), 2) if thin else 0.6)


SURNAMES = "김이박최정강조윤장임한오서신권황안송류홍"
GIVEN = "민서준하윤지우도현수아은채영재혁유찬진호성연"
EVENTS = ("OCG 공인 대회", "매장 대항전", "지역 대표 결정전", "리모트 듀얼 토너먼트", "주말 토너먼트")


def random_player(rng: np.random.Generator) -> dict:
    given = "".join(rng.choice(list(GIVEN), size=int(rng.choice([1, 2, 2, 2]))))
    return dict(player_family=str(rng.choice(list(SURNAMES))), player_given=given,
                konami_id="".join(str(d) for d in rng.integers(0, 10, size=10)),
                event=str(rng.choice(EVENTS)),
                date=(2026, int(rng.integers(1, 13)), int(rng.integers(1, 29))))


def sample_sheet(name: str, db: CardDatabase, rng: np.random.Generator) -> Sheet:
    deck = deck_from_ydk(HERE / "decks_src" / f"{name}.ydk", db, **PLAYERS[name])
    ids = {n: db.by_name(n).card_id for col in deck.columns.values() for n, _ in col}
    return Sheet(deck, random_style(rng, glue=False), ids, {"id": f"samples/decks_src/{name}.ydk"})


def card_pools(db: CardDatabase) -> dict[str, list[Card]]:
    """Usable cards with drawable names, by sheet column (side takes any)."""
    pools: dict[str, list[Card]] = {c: [] for c in ("monster", "spell", "trap", "extra")}
    for card in sorted(db.cards.values(), key=lambda c: c.card_id):
        if not card.ocg_usable or not SAFE_NAME.match(card.name) or len(card.name) > 28:
            continue
        pools["extra" if card.is_extra_deck else card.kind.value].append(card)
    return pools


def _pick(pool: list[Card], rng: np.random.Generator, taken: set[int]) -> Card:
    """A random card not taken yet; a third of the time one with a hard name (Latin letters,
    marks, spaces or a long name)."""
    hard = rng.random() < 0.35
    for _ in range(200):
        card = pool[int(rng.integers(len(pool)))]
        if card.card_id in taken:
            continue
        if hard and not (re.search(r"[A-Za-z·－\-!]", card.name) or len(card.name) >= 12):
            continue
        taken.add(card.card_id)
        return card
    raise RuntimeError("card pool exhausted")


def _fill(pool: list[Card], total: int, max_lines: int, rng: np.random.Generator,
          taken: set[int]) -> list[tuple[Card, int]]:
    lines: list[tuple[Card, int]] = []
    while total > 0 and len(lines) < max_lines:
        n = min(total, int(rng.choice([1, 2, 3], p=[0.35, 0.2, 0.45])))
        lines.append((_pick(pool, rng, taken), n))
        total -= n
    return lines


def random_sheet(db: CardDatabase, pools: dict[str, list[Card]], rng: np.random.Generator,
                 index: int, seed: int, thin: bool = False) -> Sheet:
    """A legal-looking random deck of real cards: main 40–45, extra 0–15, side 0–15."""
    taken: set[int] = set()
    main = int(rng.integers(40, 46))
    monsters = int(rng.integers(14, 25))
    spells = int(rng.integers(8, main - monsters - 1))
    cols = {"monster": _fill(pools["monster"], monsters, 18, rng, taken),
            "spell": _fill(pools["spell"], spells, 18, rng, taken),
            "trap": _fill(pools["trap"], main - monsters - spells, 18, rng, taken),
            "extra": _fill(pools["extra"], int(rng.choice([0, 8, 12, 15, 15, 15])), 15, rng, taken)}
    side_pool = pools["monster"] + pools["spell"] + pools["trap"] + pools["extra"]
    cols["side"] = _fill(side_pool, int(rng.choice([0, 5, 10, 15, 15])), 15, rng, taken)
    deck = SampleDeck(columns={c: [(card.name, n) for card, n in v] for c, v in cols.items()},
                      **random_player(rng))
    ids = {card.name: card.card_id for v in cols.values() for card, _ in v}
    return Sheet(deck, random_style(rng, thin=thin), ids, {"index": index, "id": f"random:seed={seed}"})


# ---------------------------------------------------------------- geometry of draw_db_sheet

@dataclass
class ColumnGeom:
    """One column as draw_db_sheet lays it out (points, top-left origin)."""

    x0: float
    width: float
    top: float
    rows: int
    row_h: float
    name_x: float

    def row_box(self, row: int) -> tuple[float, float, float, float]:
        y0 = self.top + self.row_h * row
        return self.x0, y0, self.x0 + self.width, y0 + self.row_h

    @property
    def count_x(self) -> float:
        """Centre of the count cell."""
        return self.x0 + self.width - 12


def sheet_geometry(deck: SampleDeck, style: DbStyle) -> dict[str, ColumnGeom]:
    """Mirrors draw_db_sheet's arithmetic (keep the two in step)."""
    W, _ = A4
    left, top = 30 + style.dx, 36 + style.dy
    grid_top = top + 34 + 19 + (19 if getattr(style, "entry_field", False) else 0) + 24
    col_w = (W - 60) / 3
    main_rows = max(getattr(style, "min_rows", 20), *(len(deck.columns[k]) for k in MAIN_COLUMNS))
    rh = style.row_h  # (random decks keep ≤ 20 rows of ≤ 15.8 pt: no squeezed columns)
    pad = 12 if style.entry_no and not style.glue_row_numbers else 4
    geom = {k: ColumnGeom(left + i * col_w, col_w - 6, grid_top, main_rows, rh, left + i * col_w + pad)
            for i, k in enumerate(MAIN_COLUMNS)}
    lower = grid_top + rh * (main_rows + 2) + (32 if style.ruled else 24)
    half = (W - 60) / 2
    geom["extra"] = ColumnGeom(left, half - 8, lower, 15, rh, left + pad)
    geom["side"] = ColumnGeom(left + half, half - 8, lower, 15, rh, left + half + pad)
    return geom


# ---------------------------------------------------------------- rendering

def render_sheet(sheet: Sheet, dpi: int, work: Path) -> np.ndarray:
    """The sheet PDF rendered to an RGB array."""
    import pypdfium2 as pdfium

    pdf = work / "sheet.pdf"
    draw_db_sheet(pdf, sheet.deck, sheet.style)
    doc = pdfium.PdfDocument(str(pdf))
    try:
        img = doc[0].render(scale=dpi / 72).to_pil().convert("RGB")
    finally:
        doc.close()
    return np.asarray(img).copy()


# ---------------------------------------------------------------- pen corrections

class Pen:
    def __init__(self, rng: np.random.Generator, px_per_pt: float):
        self.rng = rng
        self.k = px_per_pt
        self.colour_name = str(rng.choice(list(PEN_COLOURS)))
        self.colour = PEN_COLOURS[self.colour_name]
        self.width = float(rng.uniform(2.0, 4.0))
        self.font_name = str(rng.choice(list(PEN_FONTS)))

    def info(self) -> dict:
        return {"colour": self.colour_name, "width_px": round(self.width, 2), "font": self.font_name}

    def stroke(self, draw: ImageDraw.ImageDraw, x0: float, y0: float, x1: float, y1: float,
               wave: float = 1.2) -> None:
        """A slightly wavy line between two points (pixels)."""
        n = max(8, int(abs(x1 - x0) / 12))
        phase, freq = self.rng.uniform(0, 6.3), self.rng.uniform(1.5, 3.5)
        pts = []
        for i in range(n + 1):
            t = i / n
            wob = wave * math.sin(phase + freq * math.pi * t) + self.rng.normal(0, wave * 0.25)
            pts.append((x0 + (x1 - x0) * t, y0 + (y1 - y0) * t + wob))
        draw.line(pts, fill=self.colour, width=max(2, round(self.width)), joint="curve")

    def write(self, page: Image.Image, text: str, x: float, y_mid: float, height: float) -> None:
        """Hand-written text, left edge at x, centred on y_mid, about `height` px tall."""
        size = int(height * (1.25 if self.font_name == "NanumPen" else 1.1))
        font = ImageFont.truetype(str(FONT_DIR / PEN_FONTS[self.font_name]), size)
        l, t, r, b = font.getbbox(text)
        layer = Image.new("L", (r - l + 20, b - t + 20), 0)
        ImageDraw.Draw(layer).text((10 - l, 10 - t), text, font=font, fill=255)
        layer = layer.rotate(float(self.rng.uniform(-3, 3)), resample=Image.BICUBIC, expand=True)
        ink = Image.new("RGB", layer.size, self.colour)
        page.paste(ink, (int(x - 10), int(y_mid - layer.size[1] / 2)), layer)


def add_corrections(page: np.ndarray, sheet: Sheet, db: CardDatabase, pools: dict[str, list[Card]],
                    rng: np.random.Generator, dpi: int) -> np.ndarray:
    """Draw 1–3 pen corrections on the page; record them on the sheet and update its deck."""
    k = dpi / 72
    img = Image.fromarray(page)
    draw = ImageDraw.Draw(img)
    pen = Pen(rng, k)
    geom = sheet_geometry(sheet.deck, sheet.style)
    cols = {c: list(v) for c, v in sheet.deck.columns.items()}
    used_rows: set[tuple[str, int]] = set()
    in_deck = set(sheet.ids.values())
    for _ in range(int(rng.integers(1, 4))):
        if rng.random() < 0.55:
            options = [c for c in MAIN_COLUMNS if cols[c] and len(cols[c]) < geom[c].rows
                       and any((c, r) not in used_rows for r in range(1, len(cols[c]) + 1))]
            if not options:
                continue
            col = str(rng.choice(options))
            g = geom[col]
            free = [r for r in range(1, len(cols[col]) + 1) if (col, r) not in used_rows]
            row = int(rng.choice(free))
            name, count = cols[col][row - 1]
            pool = [c for c in pools[col] if c.card_id not in in_deck and len(c.name) <= 14]
            new = pool[int(rng.integers(len(pool)))]
            in_deck.add(new.card_id)
            new_count = count if rng.random() < 0.7 else int(rng.integers(1, 4))
            written_row = len(cols[col]) + 1
            x0, y0, x1, y1 = (v * k for v in g.row_box(row))
            ym = (y0 + y1) / 2 + rng.uniform(-0.12, 0.12) * (y1 - y0)
            pen.stroke(draw, g.name_x * k - rng.uniform(0, 6), ym,
                       x1 - rng.uniform(2, 8), ym + rng.uniform(-0.15, 0.15) * (y1 - y0))
            wx0, wy0, wx1, wy1 = (v * k for v in g.row_box(written_row))
            pen.write(img, new.name, g.name_x * k + rng.uniform(0, 8), (wy0 + wy1) / 2, (wy1 - wy0) * 0.8)
            pen.write(img, str(new_count), g.count_x * k - 0.25 * (wy1 - wy0), (wy0 + wy1) / 2,
                      (wy1 - wy0) * 0.8)
            cols[col].append((new.name, new_count))  # the hand-written row
            sheet.ids[new.name] = new.card_id
            used_rows.update({(col, row), (col, written_row)})
            sheet.corrections.append({
                "type": "replace-row", "section": "main", "column": col, "row": row,
                "struck": {"card_id": sheet.ids[name], "name": name, "count": count},
                "written": {"row": written_row, "card_id": new.card_id, "name": new.name,
                            "count": new_count},
                "pen": pen.info()})
            cols[col][row - 1] = (name, 0)
        else:
            options = [(c, r) for c in ("monster", "spell", "trap", "extra", "side")
                       for r in range(1, len(sheet.deck.columns[c]) + 1)
                       if (c, r) not in used_rows and cols[c][r - 1][1] > 0]
            if not options:
                continue
            col, row = options[int(rng.integers(len(options)))]
            g = geom[col]
            name, old = cols[col][row - 1]
            new = int(rng.choice([n for n in (1, 2, 3) if n != old]))
            x0, y0, x1, y1 = (v * k for v in g.row_box(row))
            h = y1 - y0
            cx, cy = g.count_x * k, (y0 + y1) / 2
            style = str(rng.choice(["slash", "dash", "double-dash"]))
            if style == "slash":
                pen.stroke(draw, cx - 0.3 * h, cy + 0.35 * h, cx + 0.3 * h, cy - 0.35 * h, wave=0.4)
            elif style == "dash":
                pen.stroke(draw, cx - 0.35 * h, cy, cx + 0.35 * h, cy - 0.05 * h, wave=0.4)
            else:
                for dy in (-0.12 * h, 0.12 * h):
                    pen.stroke(draw, cx - 0.35 * h, cy + dy, cx + 0.35 * h, cy + dy, wave=0.4)
            where = str(rng.choice(["right", "left"]))
            wx = cx + 0.35 * h if where == "right" else (g.x0 + g.width - 24) * k - 0.75 * h
            pen.write(img, str(new), wx, cy, h * 0.8)
            used_rows.add((col, row))
            cols[col][row - 1] = (name, new)
            sheet.corrections.append({
                "type": "count", "section": SECTION_OF[col], "column": col, "row": row,
                "card_id": sheet.ids[name], "name": name, "old": old, "new": new,
                "written_at": where, "strike": style, "pen": pen.info()})
    sheet.final = deck_counts(cols, sheet.ids)
    return np.asarray(img).copy()


def deck_counts(cols: dict[str, list[tuple[str, int]]], ids: dict[str, int]) -> dict[str, dict[int, int]]:
    out: dict[str, dict[int, int]] = {"main": {}, "extra": {}, "side": {}}
    for col, lines in cols.items():
        for name, n in lines:
            if n > 0:
                sec = out[SECTION_OF[col]]
                sec[ids[name]] = sec.get(ids[name], 0) + n
    return out


# ---------------------------------------------------------------- scan and photo steps

def _noise(shape: tuple[int, ...], sigma: float, rng: np.random.Generator) -> np.ndarray:
    return rng.normal(0, sigma, size=shape).astype(np.float32)


def page_to_scan(page: np.ndarray, rng: np.random.Generator, dpi: int) -> tuple[Image.Image, dict]:
    """A flatbed scan: paper level, small rotation and shift, light blur and noise."""
    h, w = page.shape[:2]
    grey = bool(rng.random() < 0.5)
    paper = float(rng.uniform(238, 252))
    angle = float(rng.uniform(-1.5, 1.5))
    shift = (float(rng.uniform(-15, 15)), float(rng.uniform(-15, 15)))
    blur, noise = float(rng.uniform(0.2, 0.7)), float(rng.uniform(1.0, 3.0))
    img = page.astype(np.float32) * (paper / 255.0)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[:, 2] += shift
    img = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=(paper,) * 3)
    img = cv2.GaussianBlur(img, (0, 0), blur)
    img = np.clip(img + _noise(img.shape[:2] + (1,), noise, rng), 0, 255).astype(np.uint8)
    out = Image.fromarray(img)
    if grey:
        out = out.convert("L")
    quality = int(rng.integers(70, 88))
    return out, {"dpi": dpi, "grayscale": grey, "rotation_deg": round(angle, 3),
                 "shift_px": [round(shift[0], 1), round(shift[1], 1)], "noise_sigma": round(noise, 2),
                 "blur_sigma": round(blur, 2), "jpeg_quality": quality, "paper_level": round(paper, 1),
                 "pixels": [w, h]}


def background(h: int, w: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    """A procedural surface behind the page (float32 RGB 0–255)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = np.array(rng.choice([[120, 78, 45], [150, 100, 60], [95, 60, 38]]), np.float32)
        warp = smooth_noise(h, w, 6, rng) * 40
        grain = np.sin((xx if rng.random() < 0.5 else yy) / rng.uniform(9, 20) + warp)
        shade = 0.85 + 0.12 * grain + 0.08 * smooth_noise(h, w, 30, rng)
    elif kind == "fabric":
        base = np.array(rng.choice([[70, 80, 110], [120, 50, 50], [60, 90, 70], [90, 90, 95]]), np.float32)
        p = rng.uniform(3, 6)
        shade = 0.85 + 0.08 * np.sin(xx / p) * np.sin(yy / p) + 0.06 * smooth_noise(h, w, 12, rng)
    elif kind == "desk":
        base = np.array(rng.choice([[200, 195, 185], [170, 170, 175], [60, 60, 65]]), np.float32)
        shade = 0.9 + 0.1 * smooth_noise(h, w, 8, rng)
    else:  # gradient
        a = np.array(rng.uniform(40, 200, 3), np.float32)
        b = np.array(rng.uniform(40, 200, 3), np.float32)
        t = (xx / w * rng.uniform(-1, 1) + yy / h * rng.uniform(0.3, 1))
        t = (t - t.min()) / max(1e-6, float(t.max() - t.min()))
        return a + (b - a) * t[..., None]
    return base * shade[..., None]


def page_to_photo(page: np.ndarray, rng: np.random.Generator, limits: dict,
                  pose: str = "normal") -> tuple[bytes, dict]:
    """A phone photo of the printed page. The "strong" pose (photo-sparse) shoots it at more
    of a slant: the far edge 10–22 % shorter, one side edge 3–8 % shorter (a lean), rotated
    2.5–7° either way, corners moved up to 4 % (the fixtures' photo-sparse: far edge 13–22 %,
    side 3.5–8 % shorter)."""
    ph, pw = page.shape[:2]
    long_side = int(rng.integers(limits["long_side"][0], limits["long_side"][1] + 1))
    landscape = bool(rng.random() < limits["landscape"])
    fw, fh = (long_side, int(long_side * 0.75)) if landscape else (int(long_side * 0.75), long_side)
    cover = float(rng.uniform(0.82, 0.93)) if landscape else float(rng.uniform(0.74, 0.9))
    scale = cover * fh / ph
    lean, lean_side = 0.0, 1
    if pose == "strong":
        angle = float(rng.choice([-1, 1]) * rng.uniform(2.5, 7))
        jitter = float(rng.uniform(0.01, 0.04))
        tilt, lean = float(rng.uniform(0.10, 0.22)), float(rng.uniform(0.03, 0.08))
        lean_side = 1 if rng.random() < 0.5 else -1
    else:  # (the draws of the normal pose keep their order: generated sets stay the same)
        angle = float(rng.uniform(-5, 5))
        jitter = float(rng.uniform(0.01, 0.08))
        tilt = float(rng.uniform(0, 0.05))  # top edge narrower than the bottom (camera leaning)
    dw, dh = pw * scale, ph * scale
    base = np.array([[-dw / 2 * (1 - tilt), -dh / 2 * (1 - lean * (lean_side < 0))],
                     [dw / 2 * (1 - tilt), -dh / 2 * (1 - lean * (lean_side > 0))],
                     [dw / 2, dh / 2], [-dw / 2, dh / 2]], np.float32)
    base += rng.uniform(-jitter, jitter, size=(4, 2)).astype(np.float32) * np.float32([dw, dh])
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    corners = base @ rot.T
    span = corners.max(axis=0) - corners.min(axis=0)
    fit = min(1.0, 0.97 * fw / span[0], 0.97 * fh / span[1])
    corners = corners * fit
    centre = np.float32([fw / 2, fh / 2]) + rng.uniform(-1, 1, 2).astype(np.float32) * np.maximum(
        0, (np.float32([fw, fh]) - (corners.max(axis=0) - corners.min(axis=0))) / 2 - 4)
    corners = corners + centre
    src = np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]])
    m = cv2.getPerspectiveTransform(src, corners)
    paper_tint = np.array([rng.uniform(0.93, 0.99), rng.uniform(0.92, 0.98), rng.uniform(0.86, 0.95)],
                          np.float32)
    paper = page.astype(np.float32) * paper_tint
    warped = cv2.warpPerspective(paper, m, (fw, fh), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.ones((ph, pw), np.float32), m, (fw, fh), flags=cv2.INTER_LINEAR)
    bg_kind = str(rng.choice(["wood", "desk", "fabric", "gradient"]))
    img = background(fh, fw, bg_kind, rng) * (1 - mask[..., None]) + warped * mask[..., None]
    # Light: a gradient across the frame, a vignette and one soft shadow band.
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    g0, g1 = float(rng.uniform(0.72, 0.92)), float(rng.uniform(0.98, 1.06))
    ga = rng.uniform(0, 2 * math.pi)
    t = (xx * math.cos(ga) + yy * math.sin(ga))
    t = (t - t.min()) / max(1e-6, float(t.max() - t.min()))
    light = g0 + (g1 - g0) * t
    vig = float(rng.uniform(0.1, 0.3))
    r2 = ((xx - fw / 2) / (fw / 2)) ** 2 + ((yy - fh / 2) / (fh / 2)) ** 2
    light *= 1 - vig * r2 / 2
    sa, pos = float(rng.uniform(0, math.pi)), float(rng.uniform(0.2, 0.8))
    width, dark = float(rng.uniform(0.08, 0.25)), float(rng.uniform(0.1, 0.3))
    d = ((xx / fw - 0.5) * math.cos(sa) + (yy / fh - 0.5) * math.sin(sa)) - (pos - 0.5)
    light *= 1 - dark * np.exp(-(d / width) ** 2)
    img = img * light[..., None]
    blur = float(rng.uniform(0, 1.2))
    if blur > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    noise = float(rng.uniform(1.5, 5))
    img = np.clip(img + _noise(img.shape, noise, rng), 0, 255).astype(np.uint8)
    quality = int(rng.integers(limits["quality"][0], limits["quality"][1] + 1))
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR),
                           [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return buf.tobytes(), {
        "render_dpi": PHOTO_DPI, "frame": [fw, fh],
        "page_corners": [[round(float(x), 1), round(float(y), 1)] for x, y in corners],
        "rotation_deg": round(angle, 3), "tilt": round(tilt, 4), "max_corner_jitter_frac": round(jitter, 4),
        **({"pose": "strong", "lean": round(lean * lean_side, 4)} if pose == "strong" else {}),
        "background": bg_kind,
        "light": {"gradient": [round(g0, 3), round(g1, 3)], "vignette": round(vig, 3),
                  "shadow_band": {"angle_rad": round(sa, 3), "pos": round(pos, 3),
                                  "width": round(width, 3), "darkness": round(dark, 3)}},
        "blur_sigma": round(blur, 3), "noise_sigma": round(noise, 2), "jpeg_quality": quality}


def _jpeg(img: np.ndarray, dist: dict, rng: np.random.Generator, limits: dict) -> tuple[bytes, dict]:
    quality = int(rng.integers(limits["quality"][0], limits["quality"][1] + 1))
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return buf.tobytes(), {**dist, "jpeg_quality": quality}


# ---------------------------------------------------------------- truth and driver

def truth_json(sheet: Sheet, kind: str, file: str, distortions: dict) -> dict:
    deck, style = sheet.deck, sheet.style
    final = sheet.final or deck_counts(deck.columns, sheet.ids)
    lines = [{"column": col, "row": r, "card_id": sheet.ids[name], "name": name, "count": n}
             for col in ("monster", "spell", "trap", "extra", "side")
             for r, (name, n) in enumerate(deck.columns[col], start=1)]
    st = {k: v for k, v in asdict(style).items() if k not in ("misalign", "compress")}
    totals = {s: sum(final[s].values()) for s in ("main", "extra", "side")}
    return {
        "schema": 1, "kind": kind, "file": file, "deck_source": sheet.source,
        **{s: {str(cid): n for cid, n in final[s].items()} for s in ("main", "extra", "side")},
        "totals": totals,
        "player": {"name": deck.player_family + deck.player_given, "konami_id": deck.konami_id},
        "event": {"name": deck.event, "year": deck.date[0], "month": deck.date[1], "day": deck.date[2]},
        "printed_totals": {"main": deck.total(*MAIN_COLUMNS), "extra": deck.total("extra"),
                           "side": deck.total("side"),
                           "columns": {c: deck.total(c) for c in MAIN_COLUMNS}},
        "layout": {"template": "db-ko", "page": "A4 portrait", "font": style.family, "size": style.size,
                   "offset_pt": [style.dx, style.dy],
                   "rows": {"main_columns": sheet_geometry(deck, style)["monster"].rows,
                            "extra": 15, "side": 15},
                   "count_side": "right", "style": st, "lines": lines},
        "distortions": distortions, "corrections": sheet.corrections,
    }


PDF_DATE = time.strptime("2026-01-01", "%Y-%m-%d")
"""PIL stamps a PDF with the current time: a fixed date keeps the same arguments → the same bytes."""


def scan_pdf(img: Image.Image, dpi: int, quality: int) -> bytes:
    """A scan as one JPEG in an image-only PDF."""
    buf = io.BytesIO()
    img.save(buf, "PDF", resolution=dpi, quality=quality, creationDate=PDF_DATE, modDate=PDF_DATE)
    return buf.getvalue()


SPARSE_DROPS = (("extra",), ("side",), ("extra", "side"))


def drop_sections(sheet: Sheet, rng: np.random.Generator) -> tuple[Sheet, list[str]]:
    """The sheet printed with sections left empty, as photo-sparse: the extra deck, the side
    deck or both (their blocks keep their empty rows and 합계 0), and a third of the time no
    trap either (many decks play none: an empty main column)."""
    dropped = list(SPARSE_DROPS[int(rng.integers(len(SPARSE_DROPS)))])
    if rng.random() < 0.33:
        dropped.append("trap")
    columns = {c: ([] if c in dropped else lines) for c, lines in sheet.deck.columns.items()}
    return replace(sheet, deck=replace(sheet.deck, columns=columns)), dropped


def make_one(sheet: Sheet, kind: str, stem: str, out: Path, rng: np.random.Generator,
             db: CardDatabase, pools: dict[str, list[Card]], limits: dict, work: Path) -> Path:
    dropped: list[str] = []
    if kind == "photo-sparse":
        sheet, dropped = drop_sections(sheet, rng)
    if kind == "scan":
        dpi = int(rng.choice(limits["scan_dpi"]))
        img, dist = page_to_scan(render_sheet(sheet, dpi, work), rng, dpi)
        path = out / f"{stem}.pdf"
        path.write_bytes(scan_pdf(img, dpi, dist["jpeg_quality"]))
    else:
        page = render_sheet(sheet, PHOTO_DPI, work)
        if kind == "photo-corrected":
            page = add_corrections(page, sheet, db, pools, rng, PHOTO_DPI)
        if kind == "photo-cluttered":
            data, dist = _jpeg(*cluttered_photo(page, rng, limits), rng, limits)
        else:
            data, dist = page_to_photo(page, rng, limits, "strong" if kind == "photo-sparse" else "normal")
        path = out / f"{stem}.jpg"
        path.write_bytes(data)
    if dropped:
        dist["dropped"] = dropped
    truth = truth_json(sheet, kind, path.name, dist)
    (out / f"{stem}.truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n",
                                            encoding="utf-8")
    return path


def make_kde(sheet: Sheet, kind: str, stem: str, out: Path, rng: np.random.Generator, limits: dict,
             work: Path, template: Path = KDE_FORM, faces: tuple[str, ...] | None = None,
             varied: bool = False, hand_mode: str | None = None) -> Path:
    """A Konami form on paper (kde_paper): typed (kde-scan, kde-photo) or hand-filled (kde-hand,
    scanned or photographed), in the sheet's random font family and size; `faces`, `varied`:
    the hand (`kde_paper.Hand`), `hand_mode`: one of `HAND_MODES` instead of a random one."""
    capture = kind.split("-")[1]
    mode = None
    if kind == "kde-hand":
        capture = "scan" if rng.random() < 0.4 else "photo"
        mode = str(rng.choice(HAND_MODES, p=[0.4, 0.4, 0.2]))
        if hand_mode is not None:
            mode = hand_mode
        if mode == "typed-main" and not (sheet.deck.columns["extra"] or sheet.deck.columns["side"]):
            mode = "typed-header"
    dpi = int(rng.choice(limits["scan_dpi"])) if capture == "scan" else PHOTO_DPI
    page, info = kde_page(sheet.deck, sheet.style.family, sheet.style.size, dpi, rng, work,
                          template, mode, faces, varied)
    if capture == "scan":
        img, dist = page_to_scan(page, rng, dpi)
        path = out / f"{stem}.pdf"
        path.write_bytes(scan_pdf(img, dpi, dist["jpeg_quality"]))
    else:
        data, dist = page_to_photo(page, rng, limits)
        path = out / f"{stem}.jpg"
        path.write_bytes(data)
    dist["capture"] = capture
    truth = truth_json(sheet, kind, path.name, dist)
    layout = info.layout()
    deck = sheet.deck
    layout["player_fields"] = {"Last Names": deck.player_family, "First  Middle Names": deck.player_given}
    layout["lines"] = [{**ln, "written": line_written_by(info, ln["column"], ln["row"])}
                       if info.hand_fields else ln for ln in truth["layout"]["lines"]]
    truth["layout"] = layout
    (out / f"{stem}.truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n",
                                            encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="folder for a generated set (default: the committed "
                    "set in samples/photos/)")
    ap.add_argument("--count", type=int, default=10, help="sheets of each kind (with --out)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--card-db", type=Path, help="draw random decks from this cards.cdb (default: "
                    "the sample decks and the demo database)")
    ap.add_argument("--kinds", default=",".join(DB_KINDS), help=f"any of {','.join((*KINDS, *EXTRA_KINDS))}")
    ap.add_argument("--kde-form", type=Path, default=KDE_FORM,
                    help="Konami's blank KDE_DeckList.pdf (for the kde-* kinds)")
    ap.add_argument("--thin-rules", action="store_true", help="hairline row rules (0.3–0.45 pt)")
    ap.add_argument("--hand-faces", help="kde-hand: comma-separated faces of kde_paper.HAND_FACES "
                    "(default: Nanum Pen / Brush), e.g. the held-out ones: "
                    + ",".join(HELD_OUT_FACES))
    ap.add_argument("--hand-varied", action="store_true",
                    help="kde-hand: vary pen pressure, bend strokes, more inks (kde_paper.Hand)")
    ap.add_argument("--hand-mode", choices=HAND_MODES, help="kde-hand: what is written (default: random)")
    args = ap.parse_args(argv)
    faces = tuple(args.hand_faces.split(",")) if args.hand_faces else None
    if faces and not set(faces) <= set(HAND_FACES):
        ap.error(f"--hand-faces: unknown {sorted(set(faces) - set(HAND_FACES))}; known: {', '.join(HAND_FACES)}")
    import tempfile

    db = load_card_db(args.card_db or demo_db_path())
    pools = card_pools(db)
    kinds = [k for k in (*KINDS, *EXTRA_KINDS) if k in args.kinds.split(",")]
    if args.out is None:
        out, limits = HERE / "photos", SMALL
        jobs = [(kind, seed, deck) for kind, deck, seed in COMMITTED if kind in kinds]
    else:
        out, limits = args.out, FULL
        jobs = [(kind, args.seed * 1000 + i, None) for kind in kinds for i in range(args.count)]
    out.mkdir(parents=True, exist_ok=True)
    decks = ("blue-eyes", "sky-striker", "hero")
    counters: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind, seed, deck_name in jobs:
            counters[kind] = counters.get(kind, 0) + 1
            rng = np.random.default_rng([seed, EXTRA_KINDS.get(kind) or KINDS.index(kind)])
            if deck_name is not None:
                sheet = sample_sheet(deck_name, db, rng)
            elif args.card_db:
                sheet = random_sheet(db, pools, rng, seed, seed, thin=args.thin_rules)
            else:
                sheet = sample_sheet(decks[seed % 3], db, rng)
            stem = f"{kind}-{counters[kind]:02d}"
            if kind.startswith("kde-"):
                path = make_kde(sheet, kind, stem, out, rng, limits, Path(tmp), args.kde_form,
                                faces, args.hand_varied, args.hand_mode)
            else:
                path = make_one(sheet, kind, stem, out, rng, db, pools, limits, Path(tmp))
            print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
