"""Check an OCR name match by rendering the candidate names in the sheet's font.

Tesseract's `kor` model cannot read Latin letters, digits next to them are shaky (LV3/LV5) and
it spells no Σ, ★ or Ⅱ; a closed-vocabulary match then rests on the Hangul alone. The sheets
are printed from the card names in a few known fonts, so each candidate can be drawn the way
the sheet would print it and compared with the cell's pixels: the true name lines up glyph for
glyph, a namesake differs exactly where the names differ.

Comparison: both images are cropped to their ink, brought to one height and the cell's width
(a long name is squeezed on the sheet, so widths are matched and the width ratio is judged
apart), blurred a little and compared by normalised cross-correlation, over the whole name and
over glyph-sized windows (the worst window catches a single different character).
"""
from __future__ import annotations

import re

import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from card_db.names import hangul_skeleton, has_letters_kor_cannot_read, name_key
from scanner.ocr.fonts import FAMILIES, find_font, font_cmap
from scanner.ocr.order_stats import percentile
from scanner.ocr.thresholds import INK_ANY, INK_GLYPH, NAME_ACCEPT, PAPER
from scanner.vocab import Reason

log = logging.getLogger("decksheet.ocr")

FALLBACKS = ("DejaVuSans.ttf", "NanumGothic.ttf")
"""Glyphs a Nanum font lacks (ϝ, some symbols) are printed in the first of these that has them:
DejaVu Sans, else Nanum Gothic (DejaVu has no `・` U+30FB, which Nanum Myeongjo and Barun Gothic
lack too: drawn from the sheet's font it was a blank box, and a typed `X・Y・Z 컴바인` fit its
rendering at 0.4)."""
NORM_H = 32
"""Height (px) both images are brought to before comparing."""
RENDER_PX = 32
"""Pixel size names are drawn at (the result is rescaled to the cell anyway)."""


@lru_cache(maxsize=16)
def _cmap(path: str) -> frozenset[int]:
    """Code points a TrueType font has a glyph for (kept on disk: `fonts.font_cmap`)."""
    return font_cmap(path)


@lru_cache(maxsize=64)
def _font(path: str, px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, px, layout_engine=ImageFont.Layout.BASIC)


OTHER_PRINT_FAMILIES = ("UnDotum", "UnBatang", "UnGraphic", "Baekmuk Gulim", "Baekmuk Dotum",
                        "Baekmuk Batang", "Noto Sans KR", "Noto Serif KR", "Malgun Gothic", "Gulim",
                        "Dotum", "Batang", "Pretendard", "Spoqa Han Sans Neo", "IBM Plex Sans KR")
"""Korean print fonts a sheet may be printed in, used when installed (`fc-list`): the rendering
then fits a sheet printed in one of them instead of leaving most of its lines flagged (generated
sheets in UnDotum/UnBatang/Baekmuk Gulim: 50–79 % right with the Nanum fonts alone). Only
upright print faces: a handwriting or brush face (Nanum Pen, UnPilgi, UnGungseo) would let a
hand-written name fit "a font" and pass as typed. TrueType/OpenType files only."""


@lru_cache(maxsize=1)
def _installed_print_fonts() -> dict[str, Path]:
    """family → regular-face file of the OTHER_PRINT_FAMILIES fontconfig knows (none without
    fontconfig)."""
    import shutil
    import subprocess
    if shutil.which("fc-list") is None:
        return {}
    try:
        listing = subprocess.run(["fc-list", ":lang=ko", "family", "style", "file"], capture_output=True,
                                 text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    found: dict[str, Path] = {}
    for line in sorted(listing.splitlines()):
        file, _, rest = line.partition(": ")
        families, _, style = rest.partition(":style=")
        regular = {s.strip().lower() for s in style.split(",")} & {"regular", "book", "medium", "normal"}
        if not regular or not file.lower().endswith((".ttf", ".otf")):
            continue
        for fam in families.split(","):
            if fam.strip() in OTHER_PRINT_FAMILIES and fam.strip() not in found and _opens(file):
                found[fam.strip()] = Path(file)
    return found


def _opens(path: str) -> bool:
    """The font file loads (a broken or unreadable one fontconfig still lists is left out, not
    met later in the middle of reading a sheet)."""
    try:
        _font(path, RENDER_PX)
    except OSError as exc:
        log.warning("font %s left out of the rendering check: %s", path, exc)
        return False
    return True


def available_families() -> dict[str, Path]:
    """The renderer's fonts: the Nanum families the sheets are printed in."""
    out = {}
    for fam, fn in FAMILIES.items():
        p = find_font(fn)
        if p is not None:
            out[fam] = p
    return out


def spare_families() -> dict[str, Path]:
    """Other Korean print fonts installed (`OTHER_PRINT_FAMILIES`), tried on a page none of
    the Nanum families fits (`NameRenderer.estimate_family`)."""
    core = available_families()
    return {f: p for f, p in _installed_print_fonts().items() if f not in core}


@dataclass(frozen=True)
class VerifyTuning:
    """The numbers of the rendering check's ink measures and likeness, one home each (issue 32:
    per-stage tuning; its decision thresholds are the `R_*` constants below, each documented)."""

    min_ink_px: int = 8
    """An image with fewer ink pixels holds no glyph to measure."""
    core_percentile: float = 5
    """The image's darkest ink: this percentile of its pixels darker than `INK_ANY`…"""
    ink_share: float = 0.4
    """…and a pixel is ink when it is at least this share of the way from paper to that core
    (never paler than `INK_GLYPH`)."""
    rule_run: tuple[int, float] = (24, 1.5)
    """A horizontal ink run longer than (pixels, image heights), the longer, is a rule's remnant."""
    worst_weight: float = 0.5
    """A likeness is the whole name's NCC and its worst glyph window's, this much the latter."""
    wide_aspect: float = 1.12
    """Ink wider than the rendering by more than this: letters are missing…"""
    narrow_aspect: float = 0.55
    """…narrower than this: squeezed far beyond what the sheets do…"""
    aspect_penalty: float = 1.5
    """…each costs the likeness this much per unit of aspect beyond it."""
    flat_sd: float = 1.0
    """A window whose grey levels' standard deviation is below this has no contrast…"""
    flat_margin: float = 0.01
    """…decided by numpy's float32 arithmetic within this share of it (OpenCV's elsewhere)."""
    ncc_eps: float = 1e-6
    """A normalised cross-correlation of images with less energy than this is 0."""


VERIFY = VerifyTuning()


def ink_level(gray: np.ndarray, tuning: VerifyTuning = VERIFY) -> float:
    """Gray level under which a pixel is ink, relative to the darkest ink of the image: thin
    serif strokes of a blurred photo are pale, and a fixed cut would drop their tops."""
    dark = gray[gray < INK_ANY]
    if dark.size < tuning.min_ink_px:
        return float(INK_GLYPH)
    core = percentile(dark, tuning.core_percentile)
    white = float(PAPER)
    return max(float(INK_GLYPH), white - tuning.ink_share * (white - core))


def strip_rule_remnants(ink: np.ndarray, tuning: VerifyTuning = VERIFY) -> np.ndarray:
    """The ink mask without horizontal runs longer than 1.5 × the image height: bits of a table
    rule the grid stage left at a cell's edge (no glyph stroke is that long)."""
    k = max(tuning.rule_run[0], int(tuning.rule_run[1] * ink.shape[0]))
    if ink.shape[1] <= k:
        return ink
    runs = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, k), np.uint8))
    return np.where(runs > 0, 0, ink).astype(ink.dtype)


GLYPH_BIT_NEAR = 0.15
"""A speck within this many ink heights of a glyph is part of it (the dark end of a pale stroke
that a soft photo broke off, a Myeongjo serif), not noise: cutting it off shortens the name and
makes print look unlike its rendering."""


def ink_crop(gray: np.ndarray, min_area: int = 4) -> np.ndarray | None:
    """The image cut to its ink (specks of fewer than `min_area` pixels ignored unless they
    touch a glyph's box within `GLYPH_BIT_NEAR` ink heights)."""
    ink = strip_rule_remnants((gray < ink_level(gray)).astype(np.uint8))
    if ink.sum() < VERIFY.min_ink_px:
        return None
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    area = stats[1:, cv2.CC_STAT_AREA]
    if not (area >= min_area).any():
        return None
    x0s, y0s = stats[1:, cv2.CC_STAT_LEFT], stats[1:, cv2.CC_STAT_TOP]
    x1s, y1s = x0s + stats[1:, cv2.CC_STAT_WIDTH], y0s + stats[1:, cv2.CC_STAT_HEIGHT]
    big = area >= min_area
    x0, y0, x1, y1 = x0s[big].min(), y0s[big].min(), x1s[big].max(), y1s[big].max()
    near = GLYPH_BIT_NEAR * (y1 - y0)
    for i in np.flatnonzero(~big):
        # the gap between the speck's box and the nearest glyph box, on each axis
        gx = np.maximum(0, np.maximum(x0s[big] - x1s[i], x0s[i] - x1s[big]))
        gy = np.maximum(0, np.maximum(y0s[big] - y1s[i], y0s[i] - y1s[big]))
        if (np.maximum(gx, gy) <= near).any():
            x0, y0 = min(x0, x0s[i]), min(y0, y0s[i])
            x1, y1 = max(x1, x1s[i]), max(y1, y1s[i])
    return gray[y0:y1, x0:x1]


FAR_GAP = 1.2
"""A blank run wider than this many ink heights ends the printed name (names have no gap
wider than a space); ink beyond it is a pen mark, e.g. a corrected count written before the
count cell."""


def cell_name_ink(gray: np.ndarray) -> np.ndarray | None:
    """The printed name of a name cell cut to its ink, without far-off marks to its right."""
    ink = ink_crop(gray)
    if ink is None:
        return None
    h = ink.shape[0]
    cols = (ink < ink_level(ink)).sum(axis=0) > 0
    gap, x = 0, 0
    for x, on in enumerate(cols):
        if on:
            if gap > FAR_GAP * h and x > h:
                return ink_crop(ink[:, :x - gap])
            gap = 0
        else:
            gap += 1
    return ink


def _fallback_for(code: int) -> str | None:
    """The first of `FALLBACKS` that has a glyph for `code` (a font whose cmap cannot be read is
    taken on trust); when none has it, the first one installed (None: none is)."""
    found = [str(p) for p in (find_font(f) for f in FALLBACKS) if p is not None]
    for path in found:
        cmap = _cmap(path)
        if not cmap or code in cmap:
            return path
    return found[0] if found else None


def render_name(name: str, family_path: Path, px: int = RENDER_PX) -> np.ndarray | None:
    """`name` drawn black on white as the sheet prints it (fallback font per missing glyph),
    cut to its ink."""
    main = str(family_path)
    cmap = _cmap(main)
    runs: list[tuple[str, str]] = []
    for ch in name:
        use = main
        if cmap and not ch.isspace() and ord(ch) not in cmap:
            use = _fallback_for(ord(ch)) or main
        if runs and runs[-1][1] == use:
            runs[-1] = (runs[-1][0] + ch, use)
        else:
            runs.append((ch, use))
    width = int(sum(_font(f, px).getlength(t) for t, f in runs)) + 2 * px
    img = Image.new("L", (max(width, 1), px * 2), 255)
    draw = ImageDraw.Draw(img)
    x = float(px // 2)
    for text, f in runs:
        font = _font(f, px)
        draw.text((x, px // 2), text, font=font, fill=0)
        x += font.getlength(text)
    return _bbox_crop(np.asarray(img), INK_GLYPH)


def _bbox_crop(gray: np.ndarray, level: float) -> np.ndarray | None:
    """Cut to the bounding box of the pixels darker than `level` (a clean rendering has no specks)."""
    ink = gray < level
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if rows.size == 0:
        return None
    return gray[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]


def _norm(img: np.ndarray, w: int, h: int, blur: float) -> np.ndarray:
    out = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    out = float(PAPER) - out
    if blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    return out


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a = a - a.mean()
    b = b - b.mean()
    d = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / d) if d > VERIFY.ncc_eps else 0.0


@dataclass
class Likeness:
    """How well a rendered name matches a cell."""

    overall: float
    """NCC over the whole name, -1..1."""
    worst: float
    """Lowest NCC over glyph-sized windows (one wrong character shows here)."""
    aspect: float
    """Cell width / rendered width at equal height (< 1: squeezed on the sheet, > 1: too short)."""

    @property
    def score(self) -> float:
        t = VERIFY
        s = (1 - t.worst_weight) * self.overall + t.worst_weight * self.worst
        if self.aspect > t.wide_aspect:  # the ink is wider than the name: letters are missing
            s -= (self.aspect - t.wide_aspect) * t.aspect_penalty
        if self.aspect < t.narrow_aspect:  # squeezed far beyond what the sheets do
            s -= (t.narrow_aspect - self.aspect) * t.aspect_penalty
        return s


BLURS = (1.0, 1.6, 2.4)
"""Blurs (px at NORM_H) tried on the renderings: a soft photo's strokes are thicker and
fainter than a crisp rendering's; the page's blur is chosen with its font."""


def _flat(img: np.ndarray) -> bool:
    """`float(img.std()) < 1.0` (no contrast in a window), decided by OpenCV's standard
    deviation (a fraction of numpy's call overhead) unless it lies within 1 % of the limit,
    where numpy's own float32 arithmetic decides, as it always did."""
    sd, t = float(cv2.meanStdDev(img)[1][0, 0]), VERIFY
    if abs(sd - t.flat_sd) > t.flat_margin:
        return sd < t.flat_sd
    return float(img.std()) < t.flat_sd


@dataclass
class CellWindows:
    """The cell's side of `compare`, the same for every name it is compared with: its ink
    normalised to NORM_H, and the glyph-sized windows of it that hold ink."""

    shape: tuple[int, int]
    """(height, width) of the cell's ink."""
    norm: np.ndarray
    windows: list[tuple[int, np.ndarray]]
    """(x, window) for each window with contrast, left to right."""


def cell_windows(cell_ink: np.ndarray) -> CellWindows:
    ch, cw = cell_ink.shape
    w = max(8, int(round(cw * NORM_H / ch)))
    a = _norm(cell_ink, w, NORM_H, 1.0)
    win, step = NORM_H, NORM_H // 2
    windows = []
    for x in range(0, max(1, w - win // 2), step):
        aw = a[:, x:x + win]
        if aw.shape[1] < win // 2 or _flat(aw):
            continue
        windows.append((x, aw))
    return CellWindows((ch, cw), a, windows)


def compare(cell_ink: np.ndarray, rendered_ink: np.ndarray, shift: int = 2,
            blur: float = BLURS[0], cell: CellWindows | None = None,
            at_least: float | None = None, overall_only: bool = False) -> Likeness:
    """Likeness of a cell (cut to its ink) and a rendered name (cut to its ink); `cell`:
    `cell_windows(cell_ink)` when the caller has it (one cell is compared with many names).

    For a caller that only asks whether the score reaches `at_least`, the glyph windows stop as
    soon as it cannot (the score only falls with each window's likeness: the `worst` returned
    is then an upper bound, the score already below `at_least`). `overall_only`: the caller
    reads `Likeness.overall` alone (`worst` is left at 1.0, the windows not compared)."""
    cell = cell or cell_windows(cell_ink)
    ch, cw = cell.shape
    rh, rw = rendered_ink.shape
    a = cell.norm
    w = a.shape[1]
    aspect = (cw / ch) / max(rw / rh, 1e-6)
    b = _norm(rendered_ink, w, NORM_H, blur)
    overall = _ncc(a, b)
    worst = 1.0
    if overall_only or (at_least is not None and Likeness(overall, worst, aspect).score < at_least):
        return Likeness(overall=overall, worst=worst, aspect=aspect)
    pad_b = cv2.copyMakeBorder(b, 0, 0, shift, shift, cv2.BORDER_CONSTANT, value=0)
    for x, aw in cell.windows:
        if at_least is not None and Likeness(overall, worst, aspect).score < at_least:
            break  # no later window can raise the score again
        region = pad_b[:, x:x + aw.shape[1] + 2 * shift]
        if _flat(region):
            worst = min(worst, 0.0)  # ink in the cell where the name has none
            continue
        # The best of small shifts: spacing differs by a pixel between printers.
        got = cv2.matchTemplate(region, aw, cv2.TM_CCOEFF_NORMED)
        best = float(got.max())
        if not math.isfinite(best):  # a flat window: NaN counts as no likeness
            best = float(np.nan_to_num(got, nan=0.0).max())
        worst = min(worst, best)
    return Likeness(overall=overall, worst=worst, aspect=aspect)


@dataclass
class FontEstimate:
    family: str | None
    """Best family for the page, None when no row was good enough to tell."""
    blur: float = BLURS[0]
    """Blur of the renderings that fits the page best."""
    scores: dict[str, float] = field(default_factory=dict)


_DASHES = re.compile(r"\s*[－‐‑‒–—―-]\s*")


def print_variants(name: str) -> list[str]:
    """The card name as the database spells it, and as sheets print its dash: the database's
    full-width `－` comes out as ` - ` or ` – ` with spaces on generated sheets (`드래그니티 -
    둑스`), which drawn as `－` fits the cell at 0.6 instead of 0.9 and leaves the line flagged."""
    if not _DASHES.search(name):
        return [name]
    return [name] + [_DASHES.sub(dash, name) for dash in (" - ", " – ")]


BASELINE_SHARE = 0.45
"""Rows of a Latin name's ink with at least this share of its fullest row's ink pixels are its
body (x-height and capitals): the last of them is the baseline; under it, descenders alone
(g j p q y, a Q's tail, a comma) fill a row at most a third as much."""


def baseline(ink_gray: np.ndarray) -> int | None:
    """The baseline row of a Latin name cut to its ink (`BASELINE_SHARE`), None when none stands out."""
    rows = (ink_gray < ink_level(ink_gray)).sum(axis=1)
    if rows.size == 0 or rows.max() <= 0:
        return None
    return int(np.flatnonzero(rows >= BASELINE_SHARE * rows.max())[-1])


def descenders_as_cut(rendered: np.ndarray, cell_ink: np.ndarray) -> np.ndarray:
    """The rendering cut under its baseline no deeper, relative to the body, than the cell's ink
    goes under its own: a name printed low in its row has its descenders merged into the row's
    rule, and painting the rule out cut them (`Shekhinaga` read exactly, its g's stumps). A cell
    with whole descenders leaves the rendering as it is."""
    cb, rb = baseline(cell_ink), baseline(rendered)
    if cb is None or rb is None or cb < 1 or rb < 1:
        return rendered
    depth = (cell_ink.shape[0] - 1 - cb) / (cb + 1)  # the cell's ink under its baseline, per body row
    keep = rb + 1 + int(math.ceil(depth * (rb + 1)))
    return rendered if keep >= rendered.shape[0] else rendered[:keep]


class NameRenderer:
    """Renders candidate names in the sheet's font and scores them against name cells.
    One per page: it learns the page's font from names OCR read exactly."""

    SAMPLES = 6
    """Exact reads used to tell the page's font."""

    def __init__(self, families: dict[str, Path] | None = None,
                 spares: dict[str, Path] | None = None, latin: bool = False) -> None:
        """`families`/`spares`: the fonts to draw in (default: the Korean print fonts,
        `available_families` and `spare_families`; a Latin-script page passes its own);
        `latin`: names in Latin script, whose renderings are cut as the cell's descenders
        are (`descenders_as_cut`)."""
        self.latin = latin
        self.families = available_families() if families is None else dict(families)
        self.spares = spare_families() if spares is None else dict(spares)
        """Fonts tried only when the page fits none of `families` well (SPARE_BELOW): a page in
        a Nanum font pays nothing for them."""
        self.family: str | None = None
        self.blur = BLURS[0]
        self.samples: list[tuple[np.ndarray, str]] = []
        self.estimate: FontEstimate | None = None
        self._cache: dict[tuple[str, str], np.ndarray | None] = {}
        self._cells: dict[int, tuple[np.ndarray, CellWindows]] = {}
        """id → (cell ink, its windows): the cell is held, so its id cannot be reused."""
        self._scores: dict[tuple[int, str, str, float], tuple[np.ndarray, float]] = {}
        """(id of an exact read's cell, name, family, blur) → (the cell, likeness score)."""

    @property
    def usable(self) -> bool:
        return bool(self.families)

    @property
    def trusted(self) -> bool:
        """The page's print fits one of the known fonts: renderings may pick a card, not only
        doubt one (a sheet in another font gets no picks, so its unsure lines stay flagged)."""
        return self.estimate is None or max(self.estimate.scores.values(), default=0.0) >= TRUSTED_FIT

    def rendered(self, name: str, family: str) -> np.ndarray | None:
        key = (name, family)
        if key not in self._cache:
            self._cache[key] = render_name(name, self.families[family])
        return self._cache[key]

    def as_printed(self, rendered: np.ndarray, cell_ink: np.ndarray) -> np.ndarray:
        """A rendering as the cell can show it (Latin names: descenders cut as the cell's are)."""
        return descenders_as_cut(rendered, cell_ink) if self.latin else rendered

    def observe(self, cell_ink: np.ndarray, name: str) -> None:
        """A name OCR read exactly: evidence of the page's font (a first guess from
        FIRST_GUESS reads, settled at SAMPLES)."""
        if len(self.samples) < self.SAMPLES:
            self.samples.append((cell_ink, name))
            if len(self.samples) in (self.FIRST_GUESS, self.SAMPLES):
                self.estimate_family(self.samples)

    FIRST_GUESS = 3
    CELLS_KEPT = 16

    def windows(self, cell_ink: np.ndarray) -> CellWindows:
        """`cell_windows(cell_ink)`, computed once for the cell (it is compared with every
        candidate name, in every family and blur)."""
        got = self._cells.get(id(cell_ink))
        if got is None or got[0] is not cell_ink:
            if len(self._cells) >= self.CELLS_KEPT:
                self._cells.clear()
            got = self._cells[id(cell_ink)] = (cell_ink, cell_windows(cell_ink))
        return got[1]

    def _drawings(self, cell_ink: np.ndarray, name: str) -> Iterator[np.ndarray]:
        """`name` drawn as the cell prints it: in the page's family (before it is known, in
        each), and a name with a dash also the ways sheets print it (`print_variants`)."""
        for fam in [self.family] if self.family else list(self.families):
            for variant in print_variants(name):
                r = self.rendered(variant, fam)
                if r is not None:
                    yield self.as_printed(r, cell_ink)

    def likeness(self, cell_ink: np.ndarray, name: str) -> Likeness | None:
        """Likeness in the page's family; before the family is known, the best over families
        (and over a dashed name's printed variants)."""
        best: Likeness | None = None
        for drawn in self._drawings(cell_ink, name):
            lk = compare(cell_ink, drawn, blur=self.blur, cell=self.windows(cell_ink))
            if best is None or lk.score > best.score:
                best = lk
        return best

    def fits(self, cell_ink: np.ndarray, name: str, at_least: float) -> bool:
        """`likeness(cell_ink, name).score >= at_least`, comparing no more glyph windows than
        the answer needs (`compare(at_least=…)`): a yes or no, the same as the full scores'."""
        return any(compare(cell_ink, drawn, blur=self.blur, cell=self.windows(cell_ink),
                           at_least=at_least).score >= at_least
                   for drawn in self._drawings(cell_ink, name))

    def estimate_family(self, samples: list[tuple[np.ndarray, str]]) -> FontEstimate:
        """The family whose renderings of well-read names fit their cells best."""
        if not samples or not self.families:
            return FontEstimate(None)
        totals = {}
        for fam in self.families:
            totals[fam] = float(np.mean([self._sample_score(cell, name, fam, BLURS[0])
                                         for cell, name in samples]))
        if self.spares and max(totals.values()) < SPARE_BELOW:
            # Printed in another font: the installed spares join the page's families for good.
            self.families = {**self.families, **self.spares}
            self.spares = {}
            return self.estimate_family(samples)
        fam = max(totals, key=totals.get)
        by_blur = {BLURS[0]: totals[fam]}
        for blur in BLURS[1:]:
            by_blur[blur] = float(np.mean([self._sample_score(cell, name, fam, blur) for cell, name in samples
                                           if self.rendered(name, fam) is not None] or [-1.0]))
        self.family, self.blur = fam, max(by_blur, key=by_blur.get)
        self.estimate = FontEstimate(fam, self.blur, totals)
        return self.estimate

    def _sample_score(self, cell: np.ndarray, name: str, fam: str, blur: float) -> float:
        """Likeness score of one exact read in one family and blur (-1 when the family cannot
        draw it); kept, since the first guess's samples are scored again when the font is
        settled."""
        key = (id(cell), name, fam, blur)
        got = self._scores.get(key)
        if got is None or got[0] is not cell:
            r = self.rendered(name, fam)
            score = (compare(cell, self.as_printed(r, cell), blur=blur, cell=self.windows(cell)).score
                     if r is not None else -1.0)
            got = self._scores[key] = (cell, score)
        return got[1]


SPARE_BELOW = 0.8
"""A page whose exact reads fit the best Nanum family below this mean tries the spare fonts
too. Measured on generated sheets: pages in UnDotum fit a Nanum family at 0.73–0.79, UnBatang
0.60–0.73, Baekmuk Gulim 0.25–0.46 (each then fits its own font at 0.75–0.92); Nanum pages fit
their font at 0.68–0.95, and the soft ones under 0.8 try the spares and keep their Nanum font."""
TRUSTED_FIT = 0.6
"""Mean likeness of the page's exact reads in its best font below which renderings only doubt
(fixture pages fit their font at 0.74–0.95)."""
R_CONFIRM = 0.75
"""A rendered name at least this alike confirms a candidate (true names: 5th percentile ≈ 0.8
on the fixture scans and photos, namesakes rarely above 0.75)."""
R_MARGIN = 0.04
"""Lead a read name needs over a namesake OCR cannot tell apart (LV3/LV5, a dropped Latin letter)."""
R_PICK_MARGIN = 0.08
"""Lead the rendering needs to pick one of several OCR candidates."""
R_VETO = 0.08
"""A rival rendered this much more alike than the OCR's card makes the line doubtful."""
R_FLOOR = 0.35
"""A read whose own rendering is this unlike the cell is doubted (the cell holds more or other
ink than the name: a cut read, pen marks); true names score ≥ 0.45 even on soft photos."""
R_STRONG = 0.85
R_STRONG_MARGIN = 0.2
OCR_FLOOR_STRONG = 0.35
"""A rendering this alike, this far ahead of every other candidate, picks a card OCR could
hardly read (names mostly in Latin letters, which `kor` turns into junk: `BOX서` → `680×서`)."""
OCR_FLOOR = 0.6
"""A candidate the rendering picks must have at least this OCR similarity (or be the namesake
of one that has)."""
R_AGREE = 0.6
"""The OCR's own best match, short only of the OCR margin (similarity ≥ NAME_ACCEPT, a close
runner-up), stands when the rendering puts it first by R_PICK_MARGIN and fits it at least
this well: two readings agree (a soft photo's true names fit at 0.6-0.75; among 570 rendered
pools of generated photos no other candidate ever scored above the true name once it was in
the pool)."""
R_CLEAR_LEAD = 0.3
"""Among namesakes OCR cannot tell apart (a closed group: every card with the read's Hangul),
a rendering this far ahead of the others picks at R_AGREE: a name with letters the others lack
or miss (`DD 고스트` / `고스트`) differs in width and shape, not in one glyph (LV3/LV5 lead by
< 0.1)."""


@dataclass
class Verdict:
    """What rendering says about an OCR match."""

    card_id: int | None
    sure: bool
    reason: str = ""
    """Flag for the line when not sure (ambiguous-name / uncertain-name)."""
    detail: str = ""
    scores: dict[int, float] = field(default_factory=dict)
    """card_id → rendered likeness score."""
    tie: int | None = None
    """A name near a sure read (`names.is_near`: a jamo or two, or one syllable, apart) that
    renders as well as it: a second OCR read may still settle the line (`names.read_name_once`)."""


def latin_letters(text: str) -> str:
    """The ASCII letters of a name or read, in order, case-folded (spaces and marks dropped)."""
    return "".join(ch for ch in name_key(text) if ch.isascii() and ch.isalpha())


SPELLED_LETTERS = 2
"""Latin letters a read must spell, all of them in a row, to tell a name from a namesake that
has none (`슈팅 스타 드래곤 TG－EX` / `슈팅 스타 드래곤`): `kor` spells no Latin letter and
kor+eng's junk is a letter or two out of place, never a namesake's exact letters."""


def spelled_out(read: str, name: str, rival: str) -> bool:
    """The read spells `name`'s Latin letters (at least SPELLED_LETTERS, in a row), which the
    rival lacks entirely: OCR did see what tells them apart."""
    own = latin_letters(name)
    return len(own) >= SPELLED_LETTERS and not latin_letters(rival) and own in latin_letters(read)


SKELETON_MIN = 3
"""Hangul syllables a read must spell exactly for `spelled_hangul` (one or two, `건`, are too
little to stand for a name)."""


def spelled_hangul(read: str, names: dict[int, str], pool: list[int], rivals: dict[int, list[int]]) -> set[int]:
    """Candidates holding letters `kor` cannot read whose Hangul the read spells exactly, at least
    SKELETON_MIN syllables, with no namesake (no other card of the column has that Hangul)."""
    sk = hangul_skeleton(name_key(read))
    if len(sk) < SKELETON_MIN:
        return set()
    return {c for c in pool if hangul_skeleton(name_key(names[c])) == sk
            and has_letters_kor_cannot_read(name_key(names[c])) and not [r for r in rivals.get(c, []) if r != c]}


def decide(renderer: NameRenderer, cell_ink: np.ndarray | None, best: int | None, ocr_sure: bool,
           ocr_scores: dict[int, float], rivals: dict[int, list[int]], names: dict[int, str],
           read: str = "", near: frozenset[int] = frozenset(),
           unwritable: frozenset[int] = frozenset()) -> Verdict:
    """Confirm, veto or pick a card for one name cell.

    best: the OCR match; ocr_sure: it stands on OCR alone; ocr_scores: OCR similarity of each
    candidate; rivals: candidate → namesakes OCR cannot tell from it (same Hangul, other
    Latin/digits/symbols; longer names it is the start of); read: the OCR text (it may spell
    the Latin letters that tell a namesake apart); near: candidates a jamo or two, or one
    syllable, from a sure read, which OCR may have misread into it (`실드 웜` read `실드 윙`);
    unwritable: candidates whose name holds a syllable the OCR model cannot write (never read
    exactly, so never sure by OCR: a clear rendering lead may pick one OCR backs)."""
    if best is None:
        return Verdict(None, False, Reason.UNRESOLVED_NAME)
    pool = list(dict.fromkeys([c for c in ocr_scores] + [r for rs in rivals.values() for r in rs]))
    if cell_ink is None or not renderer.usable:
        blind = [r for r in rivals.get(best, []) if r != best]
        if ocr_sure and not blind:
            return Verdict(best, True)
        return Verdict(best, False, Reason.AMBIGUOUS_NAME, "no rendering to check the read against")
    scores: dict[int, float] = {}
    for c in pool:
        lk = renderer.likeness(cell_ink, names[c])
        scores[c] = lk.score if lk is not None else -1.0

    def show(c: int) -> str:
        return f"{names[c]} {scores.get(c, -1):.2f}"

    if ocr_sure:
        # A namesake without the Latin letters the read spells is not blind to OCR: it is out
        # when the rendering agrees by the pick margin (the read's own fit is judged below).
        blind = [r for r in rivals.get(best, []) if r != best
                 and not (spelled_out(read, names[best], names[r])
                          and scores[best] - scores[r] >= R_PICK_MARGIN)]
        top_blind = max(blind, key=scores.get) if blind else None
        if top_blind is not None and (scores[best] < R_CONFIRM
                                      or scores[best] - scores[top_blind] < R_MARGIN):
            # The read spells a namesake's Hangul exactly: the rendering may still tell
            # which of them is printed (`바렐로드 F 드래곤` read with the F dropped).
            group = sorted([best] + blind, key=lambda c: -scores[c])
            lead = scores[group[0]] - scores[group[1]]
            if renderer.trusted and ((scores[group[0]] >= R_CONFIRM and lead >= R_PICK_MARGIN)
                                     or (scores[group[0]] >= R_AGREE and lead >= R_CLEAR_LEAD)):
                return Verdict(group[0], True, detail=f"rendering picked {show(group[0])} over "
                               f"{show(group[1])}", scores=scores)
            return Verdict(best, False, Reason.AMBIGUOUS_NAME,
                           f"OCR cannot tell {names[best]} from {names[top_blind]}; rendered: "
                           f"{show(best)}, {show(top_blind)}", scores)
        others = [c for c in pool if c != best]
        close = [c for c in others if c in near and scores[c] > scores[best] - R_MARGIN]
        if close:
            # A syllable apart and drawn alike: the rendering cannot say which is printed.
            rival = max(close, key=scores.get)
            return Verdict(best, False, Reason.AMBIGUOUS_NAME,
                           f"rendering cannot tell {show(best)} from {show(rival)}", scores, tie=rival)
        top = max(others, key=scores.get) if others else None
        if top is not None and scores[top] >= R_CONFIRM and scores[top] - scores[best] > R_VETO:
            return Verdict(best, False, Reason.AMBIGUOUS_NAME,
                           f"rendering prefers {show(top)} over {show(best)}", scores)
        if scores[best] < R_FLOOR:
            return Verdict(best, False, Reason.UNCERTAIN_NAME,
                           f"the cell does not look like {show(best)} (more or other ink)", scores)
        return Verdict(best, True, scores=scores)
    # OCR is unsure: the rendering may pick among the candidates OCR found plausible.
    backed = {c for c, s in ocr_scores.items() if s >= OCR_FLOOR}
    backed |= {r for c in list(backed) for r in rivals.get(c, [])}
    ranked = sorted(pool, key=lambda c: -scores[c])
    pick = ranked[0]
    second = scores[ranked[1]] if len(ranked) > 1 else -1.0
    strong = (ocr_scores.get(pick, 0.0) >= OCR_FLOOR_STRONG and scores[pick] >= R_STRONG
              and scores[pick] - second >= R_STRONG_MARGIN)
    agree = (pick == best and ocr_scores.get(pick, 0.0) >= NAME_ACCEPT and scores[pick] >= R_AGREE
             and scores[pick] - second >= R_PICK_MARGIN)
    # A name OCR cannot write (`일렉꿩` read `밀렉권`, 0.67): OCR backing it is all OCR can give,
    # so the rendering, fitting it at R_AGREE far ahead of every other candidate, picks it; at
    # R_CONFIRM it needs only the backing of a hardly read name (a serif `챌린지` read `2431]`:
    # the unwritable syllable drags its neighbours' read down with it).
    unread = (pick in unwritable and scores[pick] - second >= R_CLEAR_LEAD
              and ((pick in backed and scores[pick] >= R_AGREE)
                   or (ocr_scores.get(pick, 0.0) >= OCR_FLOOR_STRONG and scores[pick] >= R_CONFIRM)))
    # A name with Latin letters `kor` turned into junk while it read the Hangul exactly
    # (`Sin 크로스` read `510 크로스`): no other card of the column has that Hangul, and the
    # rendering, fitting it at R_AGREE far ahead of every other candidate, picks it.
    hangul_read = (pick in spelled_hangul(read, names, pool, rivals) and scores[pick] >= R_AGREE
                   and scores[pick] - second >= R_CLEAR_LEAD)
    if renderer.trusted and (strong or agree or unread or hangul_read
                             or (pick in backed and scores[pick] >= R_CONFIRM
                                 and scores[pick] - second >= R_PICK_MARGIN)):
        return Verdict(pick, True, detail=f"rendering picked {show(pick)} over "
                       f"{show(ranked[1]) if len(ranked) > 1 else 'nothing'}", scores=scores)
    return Verdict(best, False, "", "rendered: " + ", ".join(show(c) for c in ranked[:3]), scores)
