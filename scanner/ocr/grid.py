"""Page image → tables, rows and cells of the db-ko sheet, and a copy with the rules removed.

Rules are found by morphology (long thin runs of ink), tables as connected groups of rules,
rows and columns by projecting each table's rules. Tesseract must never see the rules (with
them its output is garbage), so `clean` has the detected rules painted white; pen strokes that
are not on a rule position (strike-throughs, handwriting) stay.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from scanner.ocr.layouts import DB_KO
from scanner.ocr.ink import true_runs
from scanner.ocr.order_stats import percentile
from scanner.ocr.thresholds import INK_RULE, MASK_ON, PAPER
from scanner.vocab import COLUMNS as DECK_KINDS



@dataclass
class Box:
    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def w(self) -> int:
        return self.x1 - self.x0

    @property
    def h(self) -> int:
        return self.y1 - self.y0

    def crop(self, img: np.ndarray, inset: int = 0) -> np.ndarray:
        """The box's pixels (less `inset` on every side) that lie on the image: a box reaching
        past an edge (a form fitted partly off the page) gives its part on the page, never
        pixels from the other side (a negative index counts from the far edge), and a box
        wholly off it an empty array (`Box.fits` tells)."""
        h, w = img.shape[:2]
        y0, y1 = max(0, min(h, self.y0 + inset)), max(0, min(h, self.y1 - inset))
        x0, x1 = max(0, min(w, self.x0 + inset)), max(0, min(w, self.x1 - inset))
        return img[y0:max(y0, y1), x0:max(x0, x1)]

    def fits(self, img: np.ndarray, inset: int = 0, least: int = 2) -> bool:
        """The box, less `inset`, holds at least `least` pixels each way on the image."""
        part = self.crop(img, inset)
        return part.shape[0] >= least and part.shape[1] >= least

    def within(self, img: np.ndarray) -> bool:
        """The whole box lies on the image."""
        h, w = img.shape[:2]
        return 0 <= self.x0 < self.x1 <= w and 0 <= self.y0 < self.y1 <= h


@dataclass
class RowCells:
    """One table row: its 1-based number and the three cells (row no. | name | count)."""

    row: int
    box: Box
    name: Box
    count: Box


@dataclass
class Table:
    box: Box
    xs: list[int]
    """Vertical rule positions, left to right."""
    ys: list[int]
    """Horizontal rule positions, top to bottom."""
    kind: str = "unknown"
    """monster / spell / trap / extra / side / header / total / unknown."""
    rows: list[RowCells] = field(default_factory=list)
    title: Box | None = None
    """The header cell that names the column (몬스터 카드 ...)."""
    total: Box | None = None
    """The count cell of the 합계 row."""
    lean: float = 0.0
    """Sideways shift per pixel down of the vertical rules (0: upright); xs are at mid-height."""
    count_ruled: bool = True
    """The count column has its own rule (False: found by the gap the text leaves, a sheet
    ruled by rows only; such a sheet may print its 합계 under the table, unruled)."""
    number_column: bool = False
    """The row numbers have a column of their own (a rule between them and the names), so a
    name cell holds no number: ink at its left end is the name's first letter."""
    off_page: list[int] = field(default_factory=list)
    """Rows of a fitted form that fall outside the page (the photo's edge cut the form): not
    read, and said so."""


@dataclass
class Grid:
    tables: list[Table]
    clean: np.ndarray
    """The page with detected rules painted white."""
    rule_mask: np.ndarray
    notes: list[str] = field(default_factory=list)
    faint_masks: tuple[np.ndarray, np.ndarray] | None = None
    """The horizontal- and vertical-rule masks of `line_masks(gray, faint_rules=True)` when the
    grid made them (a page that is not the db-ko sheet): `form_fit` places the form on them."""

    def by_kind(self, kind: str) -> Table | None:
        return next((t for t in self.tables if t.kind == kind), None)


@dataclass(frozen=True)
class GridTuning:
    """The numbers of the grid stage, one home each (issue 32: per-stage tuning). Pixels are of
    the flattened page (`page.PAGE_W` wide); shares of a row pitch, a table or the page say
    which."""

    # ---- rule masks ----------------------------------------------------------------------
    rule_contrast: int = 24
    """A rule pixel is at least this much darker than the paper beside it (across the rule)."""
    rule_span: int = 6
    """Half-width in pixels of the window across a rule that gives the paper beside it."""
    h_rule_min: tuple[int, int] = (40, 40)
    """A horizontal rule is at least this long: (pixels, page width ÷ this), the longer (a
    table's row rule spans ≥ 15 % of the page; a word's bar far less)."""
    v_rule_min: tuple[int, int] = (30, 60)
    """A vertical rule is at least this long: (pixels, page width ÷ this), the longer (a row is
    ~2.7 % of the width: a column rule is cut at every row rule in a faint mask)."""
    rule_gap_px: int = 5
    """Gaps in a rule up to this long (blur, noise, JPEG) are bridged before the rule is
    measured."""
    # ---- tables --------------------------------------------------------------------------
    table_min: tuple[float, float] = (0.08, 0.02)
    """A group of rules is a table when wider and taller than these shares of the page."""
    rule_end_trim_px: int = 9
    """Rules are shortened by this at both ends when tables are told apart (a blurred rule end
    reaches into the narrow gap between two tables)."""
    page_edge: float = 0.015
    """The page's edge band (a share of its width: its outline, a sliver of background after
    the warp) is no table's rule."""
    blank_coverage: float = 0.25
    """A line across a group of rules is blank (between two tables) where the rules cover less
    than this share of their usual coverage (`blank_percentile`), and at most one pixel."""
    blank_percentile: int = 75
    """…the usual coverage: this percentile of the line's."""
    split_depth: int = 4
    """Tables glued together are split at most this deep (2⁴ tables: more than a sheet has)."""
    split_gap_px: tuple[int, int] = (4, 12)
    """The blank strip between two tables is at least this wide side by side, and this high one
    above the other (pixels)."""
    swap_pitch: float = 0.8
    """A table of the other rule mode replaces its namesake only at least at this share of its
    row pitch."""
    twin_rules: tuple[float, float] = (0.6, 0.5)
    """Two tables side by side whose gap the rules' blur closed: two vertical rules running at
    least this share of the group's height (each table's border), closer than this share of a
    row pitch — no table has two columns that narrow."""
    across_share: float = 0.5
    """A row rule crosses a box when its coverage is more than this share of the box's width."""
    across_inset_px: int = 3
    """A rule crossing a gap is looked for this far inside the gap's ends (its own blur)."""
    near_rule_px: int = 5
    """A gap in the column rules starts at a row rule when one lies within this of it."""
    row_pitch_share: float = 0.0225
    """The smallest deck-table row pitch, as a share of the page width (~14 pt on A4)…"""
    row_pitch_min_px: int = 20
    """…and in pixels."""
    break_at_rule: float = 0.8
    """A gap in the column rules shorter than this many row pitches that starts at a row rule
    is a break in the rules, not the space between two tables (stacked tables leave at least a
    row and a half of blank paper under the upper one's last rule)."""
    deck_rules: int = 8
    """A table with at least this many row rules is a deck table (the header block and notes
    have fewer)."""
    band_spread: float = 0.1
    """Tables of one band (the main columns; extra | side) start within this share of the
    page's height of each other."""
    lower_band_top: float = 0.45
    """Tables that start this far down the page are the extra | side band (the main columns
    start in the upper third, under the header)."""
    header_slack_px: int = 5
    """A table ending within this below the main columns' top is the header block."""
    overlap_share: float = 0.25
    """Two tables overlap when they share more than this share of the smaller one."""
    # ---- row rules -----------------------------------------------------------------------
    rule_band_px: int = 3
    """Rule profiles are summed over a band this many pixels across (a rule tilted by a pixel or
    two still adds up)."""
    h_peak_share: float = 0.55
    """A row rule's profile peak covers at least this share of the table's width…"""
    v_peak_share: float = 0.4
    """…a column rule's at least this share of its height…"""
    v_peak_gap_px: int = 8
    """…and column rules closer than this are one (the stronger)."""
    peak_gap: tuple[int, int] = (6, 5)
    """Row-rule peaks closer than (pixels, row pitch ÷ this), the larger, are one in a deck
    table (`_regular` then picks by the pitch)…"""
    small_peak_gap_div: int = 2
    """…and closer than half a row pitch in a small table (no pitch to go by: the stronger
    wins)."""
    rule_share: float = 0.45
    """A row rule's profile peak at this share of the table's strongest ones is a rule for sure."""
    strong_percentile: int = 90
    """The table's strongest rules' level: this percentile of its peaks."""
    min_strong: int = 4
    """Strong rules needed to set a row pitch (fewer: every peak is kept)."""
    too_close: float = 0.7
    """Two rules closer than this share of the row pitch cannot both be row rules."""
    on_pitch: float = 0.15
    """A rule lies on the row pitch when it is within this share of a pitch of a whole number of
    pitches from the strong rules (a text row sits half a pitch off), and a table's faint border
    is a rule when it lies a pitch, within this share, from the next rule."""
    fill_tolerance: float = 0.2
    """A gap within this share of a pitch of k ≥ 2 row pitches is k rows whose rules a photo lost."""
    # ---- leaning rules -------------------------------------------------------------------
    table_lean_deg: float = 2.0
    """Rules of one table may still lean after the page's shear (perspective: columns converge)…"""
    lean_step_deg: float = 0.25
    """…tried at this step…"""
    upright_bias: float = 0.98
    """…a lean winning only when its profile is sharper than upright's by more than 1 ÷ this
    (no lean wins near-ties)."""
    upright_lean: float = 1e-6
    """A lean below this is upright (rules are painted out as straight columns)."""
    # ---- columns -------------------------------------------------------------------------
    border: tuple[int, int] = (8, 60)
    """A rule within (pixels, table width ÷ this), the larger, of the table box's edge is its
    border (plus the lean's sideways shift at the box's ends)."""
    count_zone: float = 0.3
    """The count rule is the last rule within this share of the table's width from its right."""
    row_no_width: float = 0.10
    """The row-number column is narrower than this share of the table (≈ 4–6 % printed); a rule
    further in is glyph strokes stacked row on row, not the row-number rule."""
    row_no_crossing: float = 0.4
    """A row-number rule runs on through the row rules: its mask is there just above and below
    at least this share of them. Glyph strokes stacked row on row (names that all start at one
    x, on a blurred photo of a sheet without row numbers) stop short of every rule (≤ 0.13
    measured; a broken real rule ≥ 0.57)."""
    crossing_px: int = 2
    """A rule runs through a row rule when its mask holds ink within this of its line…"""
    crossing_rows: int = 3
    """…on this many pixel rows…"""
    crossing_at: tuple[int, int] = (5, 3)
    """…starting this far above the row rule and this far below it (clear of its own ink)."""
    min_rules: int = 4
    """A table with fewer rules has no rows to build (title, one row, 합계)."""
    gutter_zone: float = 0.65
    """The count column's gutter (a table ruled by rows only) is looked for in the table's
    width past this share…"""
    gutter_edge: tuple[int, int] = (4, 60)
    """…short of its right edge by (pixels, width ÷ this), the larger…"""
    gutter_min_span_px: int = 10
    """…in a span at least this wide."""
    gutter_pad: tuple[int, float] = (3, 0.15)
    """Rows are read for the gutter less (pixels, share of a row pitch), the larger, at top and
    bottom (the rules' halo)."""
    gutter_min: float = 0.025
    """Narrowest blank strip (share of the table width) taken for the gap before the count
    column…"""
    gutter_min_px: int = 6
    """…and in pixels."""
    gutter_crossing: float = 0.1
    """Share of a table's inked rows whose text may cross that strip."""
    # ---- row kinds -----------------------------------------------------------------------
    row_ink_contrast: int = 35
    """Grey levels below the row's paper that count as print in `numbered_row`."""
    row_inset_div: tuple[int, int] = (5, 100)
    """`numbered_row` looks inside a row less (height ÷, width ÷) these at its edges…"""
    row_inset_px: tuple[int, int] = (2, 3)
    """…and at least these pixels."""
    number_zone: tuple[int, float] = (8, 0.06)
    """The row number's place at a row's left end: (pixels, share of the row's width), the larger."""
    rule_halo_px: int = 5
    """A vertical rule's mask is widened to this many pixels where its ink is no ink of a row
    (its blurred halo)."""
    number_ink_px: int = 6
    """Ink pixels that make a printed number (or a name's start) at a row's left; a row with
    fewer in all is empty."""
    # ---- painting rules out --------------------------------------------------------------
    rule_paint_px: int = 5
    """Rule pixels within this of a detected rule position are painted out."""
    rule_trace: int = 4
    """How far (px) a column rule may stray from its fitted line within one row (a bent page)."""
    rule_half: int = 3
    """Half-width (px) of a blurred column rule's core."""
    rule_paper: int = 215
    """Grey level under which a pixel of a rule's core is rule, not paper."""
    trace_inset: tuple[int, int] = (3, 2)
    """A column rule is traced in a row less these pixels at its top and bottom (the row rules)…"""
    trace_min_px: int = 4
    """…in rows at least this high."""
    # ---- the two rule modes --------------------------------------------------------------
    next_rule: tuple[float, float] = (0.6, 1.4)
    """A lost end rule, taken from the tables beside it, lies between these many row pitches
    beyond the table's last rule…"""
    ends_agree: float = 0.2
    """…where those tables' end rules agree within this share of a pitch (tables side by side
    share their first and last rules within it)…"""
    end_trace: tuple[int, float] = (4, 0.25)
    """…and the table shows a trace of it: faint-rule ink within (pixels) of it along at least
    (share) of its width."""
    row_height_range: tuple[float, float] = (0.6, 1.4)
    """Rows outside these shares of the table's usual row height are faults (a lost or a false
    rule)."""
    min_fault_rows: int = 3
    """A table with fewer rows has no usual row height to judge."""


GRID = GridTuning()


def _ridge(gray: np.ndarray, across: tuple[int, int], tuning: GridTuning = GRID) -> np.ndarray:
    """Pixels darker than the paper beside them (a window `across` the rule) by `rule_contrast`
    and by at least half the darkest contrast near them: the core of a faint line, but not the
    blurred flanks of a dark one (they would fatten rules and glue neighbouring tables)."""
    contrast = cv2.dilate(gray, np.ones(across, np.uint8)).astype(np.int16) - gray
    peak = cv2.dilate(contrast, np.ones(across, np.uint8))
    return ((contrast >= tuning.rule_contrast) & (2 * contrast >= peak)).astype(np.uint8) * MASK_ON


def line_masks(gray: np.ndarray, faint_rules: bool = False, tuning: GridTuning = GRID
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ink, horizontal-rule and vertical-rule masks (uint8 0/255).

    With `faint_rules`, a rule is also ink by its contrast with the paper right beside it, not by an absolute level: in a
    blurred low-resolution photo a 0.4 pt rule is only a light grey line (gray ≈ 200), far above
    any ink threshold, while the light header fill (flat, no contrast inside) must not count."""
    return _line_masks(gray, faint_rules, tuning)[:3]


def _line_masks(gray: np.ndarray, faint_rules: bool = False, tuning: GridTuning = GRID
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`line_masks`, and the horizontal rules' own ink (the mask before gaps were bridged)."""
    ink = (gray < INK_RULE).astype(np.uint8) * MASK_ON
    ink_v = ink_h = ink
    span = 2 * tuning.rule_span + 1
    if faint_rules:
        ink_v = cv2.bitwise_or(ink, _ridge(gray, (1, span), tuning))
        ink_h = cv2.bitwise_or(ink, _ridge(gray, (span, 1), tuning))
    w = gray.shape[1]
    (h_px, h_div), (v_px, v_div) = tuning.h_rule_min, tuning.v_rule_min
    hk = cv2.getStructuringElement(cv2.MORPH_RECT, (max(h_px, w // h_div), 1))
    vk = cv2.getStructuringElement(cv2.MORPH_RECT, (1, max(v_px, w // v_div)))
    # A close along the rule first bridges small gaps from blur, noise and JPEG.
    gap = tuning.rule_gap_px
    horiz = cv2.morphologyEx(cv2.morphologyEx(ink_h, cv2.MORPH_CLOSE, np.ones((1, gap), np.uint8)),
                             cv2.MORPH_OPEN, hk)
    vert = cv2.morphologyEx(cv2.morphologyEx(ink_v, cv2.MORPH_CLOSE, np.ones((gap, 1), np.uint8)),
                            cv2.MORPH_OPEN, vk)
    return ink, horiz, vert, ink_h


def profile_peaks(profile: np.ndarray, min_value: float, min_gap: int) -> list[tuple[int, float]]:
    """Centres of runs where `profile` ≥ min_value, with each run's peak value; runs closer
    than min_gap keep only the stronger one."""
    runs = [(int(round((i + j - 1) / 2)), float(profile[i:j].max())) for i, j in true_runs(profile >= min_value)]
    out: list[tuple[int, float]] = []
    for pos, val in runs:
        if out and pos - out[-1][0] < min_gap:
            if val > out[-1][1]:
                out[-1] = (pos, val)
            continue
        out.append((pos, val))
    return out


def _gaps(coverage: np.ndarray, min_len: int, tuning: GridTuning = GRID) -> list[tuple[int, int]]:
    """Runs (start, end) of near-zero coverage at least min_len long, inside the span."""
    low = coverage <= max(1.0, tuning.blank_coverage * percentile(coverage, tuning.blank_percentile))
    n = len(coverage)
    return [(i, j) for i, j in true_runs(low) if j - i >= min_len and i > 0 and j < n]


def row_pitch_px(page_w: int, tuning: GridTuning = GRID) -> int:
    """The smallest deck-table row pitch on a page this wide (~14 pt on an A4 page width)."""
    return max(tuning.row_pitch_min_px, int(page_w * tuning.row_pitch_share))


def _split(box: Box, horiz: np.ndarray, vert: np.ndarray, depth: int = 0, tuning: GridTuning = GRID,
           rule_ink: np.ndarray | None = None) -> list[Box]:
    """Split a group of rules that glued several tables together (pen strokes, tight gaps):
    between two tables no horizontal rule crosses (side by side) or no vertical rule runs
    (one above the other). `rule_ink`: the horizontal rules' own ink (`_twin_rule_gap`)."""
    if depth > tuning.split_depth:
        return [box]

    def halves(cut: int, side_by_side: bool) -> list[Box]:
        if side_by_side:
            parts = (Box(box.x0, box.y0, cut, box.y1), Box(cut, box.y0, box.x1, box.y1))
        else:
            parts = (Box(box.x0, box.y0, box.x1, cut), Box(box.x0, cut, box.x1, box.y1))
        return [b for part in parts for b in _split(part, horiz, vert, depth + 1, tuning, rule_ink)]

    side_gap, stack_gap = tuning.split_gap_px
    hcov = box.crop(horiz).sum(axis=0) / MASK_ON
    for a, b in _gaps(hcov, side_gap, tuning):
        return halves(box.x0 + (a + b) // 2, True)
    twin = _twin_rule_gap(box, vert, rule_ink, tuning) if rule_ink is not None else None
    if twin is not None:
        return halves(twin, True)
    vcov = box.crop(vert).sum(axis=1) / MASK_ON
    across = box.crop(horiz).sum(axis=1) / MASK_ON
    pitch = row_pitch_px(horiz.shape[1], tuning)
    crossing = tuning.across_share * box.w
    inset, near = tuning.across_inset_px, tuning.near_rule_px
    for a, b in _gaps(vcov, stack_gap, tuning):
        if (across[a + inset:b - inset] > crossing).any():
            # A row rule across the box inside the gap: rows of one table whose side rules the
            # mask lost (pale at a low resolution), not blank paper between two tables.
            continue
        if b - a < tuning.break_at_rule * pitch and (across[max(0, a - near):a + near + 1] > crossing).any():
            # The side rules broken just under a row rule (a thin blurred rule fades where it
            # meets the row rule's halo): a row of the same table. Stacked tables leave at
            # least a row and a half of blank paper under the upper one's last rule.
            continue
        return halves(box.y0 + (a + b) // 2, False)
    return [_shrink(box, horiz, vert)]


def _twin_rule_gap(box: Box, vert: np.ndarray, rule_ink: np.ndarray, tuning: GridTuning = GRID) -> int | None:
    """Where two tables side by side are glued by their row rules (a gap of a millimetre or so,
    which blur and the rule masks' gap bridging close in a photo of 200 dpi): two vertical
    rules running the group's height, closer than any table's column, with the row rules'
    own ink all but absent between them while it runs on both sides. The x to cut at, or None."""
    height, closer = tuning.twin_rules
    pitch = row_pitch_px(vert.shape[1], tuning)
    vcov = box.crop(vert).sum(axis=0) / MASK_ON
    rules = true_runs(vcov >= height * box.h)
    ink = box.crop(rule_ink).sum(axis=0) / MASK_ON
    for (a1, b1), (a2, b2) in zip(rules, rules[1:]):
        if not 0 < a2 - b1 <= closer * pitch:
            continue
        left, right = ink[max(0, a1 - pitch):a1], ink[b2:b2 + pitch]
        if not left.size or not right.size:
            continue
        flank = min(float(np.median(left)), float(np.median(right)))
        if flank > 0 and float(ink[b1:a2].min()) <= tuning.blank_coverage * flank:
            return box.x0 + (b1 + a2) // 2
    return None


def _shrink(box: Box, horiz: np.ndarray, vert: np.ndarray) -> Box:
    """Tighten a box to its rules."""
    both = cv2.bitwise_or(box.crop(horiz), box.crop(vert))
    ys, xs = np.nonzero(both)
    if len(xs) == 0:
        return box
    return Box(box.x0 + int(xs.min()), box.y0 + int(ys.min()), box.x0 + int(xs.max()) + 1,
               box.y0 + int(ys.max()) + 1)


def _regular(lines: list[tuple[int, float]], tuning: GridTuning = GRID) -> list[int]:
    """Drop lines that break the row pitch: a pen strike-through is long and straight enough to
    pass for a rule, but it falls off the printed rows' even spacing. Of two lines too close
    together, the one that keeps the pitch with its outer neighbour stays (a dark strike can be
    stronger than a faint rule); strength decides only when that cannot tell them apart."""
    lines = list(lines)
    while len(lines) >= tuning.min_strong:
        pos = [p for p, _ in lines]
        diffs = np.diff(pos)
        pitch = float(np.median(diffs))
        i = int(np.argmin(diffs))
        if diffs[i] >= tuning.too_close * pitch:
            break
        miss_a = abs(pos[i] - pos[i - 1] - pitch) if i > 0 else None
        miss_b = abs(pos[i + 2] - pos[i + 1] - pitch) if i + 2 < len(pos) else None
        if miss_a is not None and miss_b is not None and abs(miss_a - miss_b) > tuning.on_pitch * pitch:
            drop = i if miss_a > miss_b else i + 1
        else:
            drop = i if lines[i][1] < lines[i + 1][1] else i + 1
        del lines[drop]
    return [p for p, _ in lines]


def _fill_missing(ys: list[int], tuning: GridTuning = GRID) -> list[int]:
    """Put back data-row rules a photo lost (faint, under a pen stroke): between the header rule
    and the total row, a gap of k row pitches is k rows, not one row holding two names."""
    if len(ys) < tuning.deck_rules:
        return ys
    pitch = float(np.median(np.diff(ys)))
    out = ys[:2]
    for y in ys[2:-1]:
        gap = y - out[-1]
        k = int(round(gap / pitch))
        if k >= 2 and abs(gap - k * pitch) < tuning.fill_tolerance * pitch:
            out.extend(int(round(out[-1] + gap * j / k)) for j in range(1, k))
        out.append(y)
    return out + ys[-1:]


def component_boxes(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """(x, y, w, h) of each 8-connected component of a uint8 mask, as
    `connectedComponentsWithStats` gives them and in its order, from the components' outer
    outlines: on a page-sized mask of rules the outlines cost a sixth of the labelling (whose
    statistics pass visits every pixel). Its Grana labelling numbers the components by their
    first 2 × 2 block in raster order: the pair of rows, then the pair of columns, of the
    leftmost pixel on the component's top row pair."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hierarchy is None:
        return []
    keyed = []
    for outline, (_, _, _, parent) in zip(contours, hierarchy[0]):
        if parent != -1:  # a hole's outline (the top level holds one outline per component)
            continue
        pts = outline.reshape(-1, 2)
        top = int(pts[:, 1].min()) // 2 * 2
        first = int(pts[pts[:, 1] <= top + 1, 0].min())
        keyed.append(((top, first // 2), cv2.boundingRect(outline)))
    keyed.sort(key=lambda kb: kb[0])
    return [box for _, box in keyed]


def find_tables(horiz: np.ndarray, vert: np.ndarray, tuning: GridTuning = GRID,
                rule_ink: np.ndarray | None = None) -> list[Box]:
    """Bounding boxes of rule groups big enough to be a table (`rule_ink`: the horizontal
    rules' own ink, before their gaps were bridged: `_twin_rule_gap`)."""
    h, w = horiz.shape
    both = cv2.dilate(cv2.bitwise_or(horiz, vert), np.ones((3, 3), np.uint8))
    # A blurred rule end reaches into the narrow gap between two tables: the gaps are looked
    # for with every rule shortened a few pixels at both ends.
    trim = tuning.rule_end_trim_px
    h_short = cv2.erode(horiz, np.ones((1, trim), np.uint8))
    v_short = cv2.erode(vert, np.ones((trim, 1), np.uint8))
    min_w, min_h = tuning.table_min
    boxes = []
    for x, y, bw, bh in component_boxes(both):
        if bw > w * min_w and bh > h * min_h:
            boxes.extend(_split(Box(int(x), int(y), int(x + bw), int(y + bh)), h_short, v_short, tuning=tuning,
                                rule_ink=rule_ink))
    boxes = [b for b in boxes if b.w > w * min_w and b.h > h * min_h]

    def inside(a: Box, b: Box) -> bool:
        return a is not b and a.x0 >= b.x0 and a.y0 >= b.y0 and a.x1 <= b.x1 and a.y1 <= b.y1

    # A box that holds other boxes is strokes glued around tables (title, pen), not a table.
    return [b for b in boxes if not any(inside(o, b) for o in boxes)]


def _on_pitch(lines: list[tuple[int, float]], full: float = float("inf"), tuning: GridTuning = GRID
              ) -> list[tuple[int, float]]:
    """Printed rules run the table's width; text rows (seen by contrast) give weaker peaks, but
    so does a rule fading in a shadow. Strong peaks set the row pitch; a weaker peak stays only
    where it continues that pitch (a text row sits half a pitch off it)."""
    if not lines:
        return lines
    # The strong rules' level is a whole rule's (`full`: the table's width) at most: rules a
    # rendering spread over two pixel rows sum to twice that, and the bar they set dropped every
    # rule drawn on one row (a clean poppler rendering lost half its rows).
    typical = min(float(np.percentile([v for _, v in lines], tuning.strong_percentile)), full)
    strong = [p for p, v in lines if v >= tuning.rule_share * typical]
    if len(strong) < tuning.min_strong:
        return lines
    pitch = float(np.median(np.diff(strong)))
    # distance of each line to its nearest strong one (a page has ~40 lines a table)
    nearest = np.abs(np.subtract.outer([p for p, _ in lines], strong)).min(axis=1).tolist()
    out = []
    for (p, v), d in zip(lines, nearest):
        if d == 0 or (d >= tuning.too_close * pitch
                      and abs(d / pitch - round(d / pitch)) * pitch < tuning.on_pitch * pitch):
            out.append((p, v))
    return out


def _row_shifts(h: int, k: float) -> np.ndarray:
    """For each row y of a mask sheared by `k` (x shift per pixel down, about mid-height): the
    source column minus the sheared one, k·(y − h/2) rounded to the nearest column. Computed
    from k and k·h/2 in float32 and rounded half to even, as OpenCV's nearest-neighbour
    `warpAffine` of that shear does, so the profiles are exactly the warped mask's."""
    k32, c32 = float(np.float32(k)), float(np.float32(k * h / 2))
    return np.rint(k32 * np.arange(h) - c32).astype(np.int64)


def _shift_changes(shifts: np.ndarray) -> np.ndarray:
    """The rows where the shift differs from the row above."""
    return np.flatnonzero(np.diff(shifts)) + 1


def _sheared_sums(cum: np.ndarray, at: dict[int, int], shifts: np.ndarray, changes: np.ndarray
                  ) -> np.ndarray:
    """Column sums (float32) of a mask with row y moved left by shifts[y]: each run of rows
    sharing a shift (`changes` start the runs after the first) adds its column sums
    (`cum[at[b]] − cum[at[a]]`, rows a..b−1) once, moved. Pixels moved past either side fall
    off, as in a warp with a blank border."""
    h, w = len(shifts), cum.shape[1]
    change = changes.tolist()
    acc = np.zeros(w, np.int32)
    for a, b in zip([0] + change, change + [h]):
        sh, part = int(shifts[a]), cum[at[b]] - cum[at[a]]
        if 0 <= sh < w:
            acc[:w - sh] += part[sh:]
        elif 0 < -sh < w:
            acc[-sh:] += part[:w + sh]
    return acc.astype(np.float32)


def _upright_profile(vsub: np.ndarray, tuning: GridTuning = GRID) -> tuple[np.ndarray, float]:
    """Column sums of a table's vertical-rule mask (0/1 uint8) at the lean that makes them sharpest, and
    that lean (x shift per pixel down): a rule leaning a degree over a tall table spreads over
    many columns and its sum falls under the rule threshold (the count rule is lost and a
    doubled border taken for it). No lean wins near-ties.

    A lean moves whole rows sideways, so its column sums are sums of row runs moved: the runs'
    column sums come from one integral image (rows cut wherever any lean's shift changes)
    instead of a warp of the mask per lean (a third of the time, the same sums)."""
    h, w = vsub.shape
    lean, step = tuning.table_lean_deg, tuning.lean_step_deg
    leans = [float(np.tan(np.radians(deg))) for deg in np.arange(-lean, lean + step / 2, step)]
    shifts = [_row_shifts(h, k) if k else None for k in leans]
    changes = [_shift_changes(s) if s is not None else None for s in shifts]
    cuts = np.unique(np.concatenate([[0, h]] + [c for c in changes if c is not None]))
    cum = np.diff(cv2.integral(vsub)[cuts], axis=1)  # cum[i]: column sums of rows above cuts[i]
    at = {int(c): i for i, c in enumerate(cuts)}
    upright = cum[-1].astype(np.float32)
    best, best_k, best_score = upright, 0.0, None
    for k, s, c in zip(leans, shifts, changes):
        prof = upright if s is None else _sheared_sums(cum, at, s, c)
        score = float(np.square(prof).sum()) * (1.0 if s is None else tuning.upright_bias)
        if best_score is None or score > best_score:
            best, best_k, best_score = prof, k, score
    return best, best_k


def table_rules(box: Box, horiz: np.ndarray, vert: np.ndarray, row_pitch: int,
                dark_only: bool = False, tuning: GridTuning = GRID) -> tuple[list[int], list[int], float]:
    """Horizontal and vertical rule positions inside one table box, and the vertical rules' lean
    (x shift per pixel down; the xs are where the rules cross the box's mid-height)."""
    hsub = box.crop(horiz).astype(np.float32) / MASK_ON
    vsub = (box.crop(vert) > 0).astype(np.uint8)
    # Sum over a 3-px band: a rule tilted by a pixel or two still adds up.
    band = tuning.rule_band_px
    hprof = cv2.blur(hsub.sum(axis=1).reshape(-1, 1), (1, band)).ravel() * band
    upright, lean = _upright_profile(vsub, tuning)
    vprof = cv2.blur(upright.reshape(1, -1), (band, 1)).ravel() * band
    # In a deck table (many rows) peaks closer than a row are all kept; _regular picks by the
    # row pitch. A small table (the header block) has no pitch to go by: the stronger line wins.
    gap_px, gap_div = tuning.peak_gap
    lines = profile_peaks(hprof, tuning.h_peak_share * box.w, max(gap_px, row_pitch // gap_div))
    # Rules of dark ink only (`dark_only`): no text row passes for a rule there, so a rule is
    # strong at a whole width whatever its thickness (see _on_pitch).
    lines = _on_pitch(lines, full=float(box.w) if dark_only else float("inf"), tuning=tuning)
    if len(lines) >= tuning.deck_rules:
        ys = [box.y0 + p for p in _regular(lines, tuning)]
        # A border too faint to pass as a rule (the top edge of a grey header fill) still
        # bounds the column rules: the box edge is a rule when it lies one row pitch away
        # (not when something glued below the table, the main total box, stretched the box).
        pitch = float(np.median(np.diff(ys)))
        if abs(ys[0] - box.y0 - pitch) < tuning.on_pitch * pitch:
            ys.insert(0, box.y0)
        if abs(box.y1 - 1 - ys[-1] - pitch) < tuning.on_pitch * pitch:
            ys.append(box.y1 - 1)
        ys = _fill_missing(ys, tuning)
    else:
        small_gap = max(gap_px, row_pitch // tuning.small_peak_gap_div)
        ys = [box.y0 + p for p in _regular(profile_peaks(hprof, tuning.h_peak_share * box.w, small_gap), tuning)]
    xs = [box.x0 + p for p, _ in profile_peaks(vprof, tuning.v_peak_share * box.h, tuning.v_peak_gap_px)]
    return ys, xs, lean


def crossing_share(vert: np.ndarray, table: Table, x: int, tuning: GridTuning = GRID) -> float:
    """Share of the table's inner row rules that the vertical mask at x (following the lean)
    runs through: ink on the 3 pixel rows just above and just below the rule."""
    mid = (table.box.y0 + table.box.y1) / 2
    inner = table.ys[2:-2]
    hits = 0
    near, rows = tuning.crossing_px, tuning.crossing_rows
    above, below = tuning.crossing_at
    for y in inner:
        xc = int(round(x + table.lean * (y - mid)))
        cols = slice(max(0, xc - near), xc + near + 1)
        hits += all(vert[y0:y0 + rows, cols].any(axis=1).all() for y0 in (y - above, y + below))
    return hits / len(inner) if inner else 1.0


def column_rules(table: Table, vert: np.ndarray | None = None, gray: np.ndarray | None = None,
                 tuning: GridTuning = GRID) -> tuple[int, int, int, int] | None:
    """(left, row-number, count, right) rule positions of a deck table, by the db-ko geometry
    rather than by counting rules: an outer border the rule masks missed is the table box's edge,
    the row-number rule is the narrow first column (`row_no_width`; absent when the numbers are glued to
    the names: then it is the left edge; with the vertical-rule mask `vert`, also when it does not
    run through the row rules, `row_no_crossing`), the count rule the last rule in the right 30 %.
    With the page `gray`, a table printed without a count rule (rows ruled, columns not) has
    its count column where the printed text leaves it (`count_gutter`). None when neither is
    there (the cells cannot be told apart; never guess them)."""
    xs, box = table.xs, table.box
    # A leaning border reaches the box edge only at its ends.
    edge = max(tuning.border[0], box.w // tuning.border[1]) + int(abs(table.lean) * box.h / 2)
    left = xs[0] if xs and xs[0] - box.x0 <= edge else box.x0
    right = xs[-1] if xs and box.x1 - 1 - xs[-1] <= edge else box.x1 - 1
    width = right - left
    inner = [x for x in xs if left + edge < x < right - edge]
    no_x = inner[0] if inner and inner[0] - left < tuning.row_no_width * width else left
    if no_x != left and vert is not None and crossing_share(vert, table, no_x, tuning) < tuning.row_no_crossing:
        no_x = left  # (a rule that was never printed would cut every name's first letter)
    counts = [x for x in inner if right - x < tuning.count_zone * width and x != no_x]
    if not counts and gray is not None and width > 0:
        gutter = count_gutter(gray, table, left, right, tuning)
        counts = [gutter] if gutter is not None else []
        table.count_ruled = False
    if width <= 0 or not counts:
        return None
    return left, no_x, counts[0], right


def count_gutter(gray: np.ndarray, table: Table, left: int, right: int, tuning: GridTuning = GRID) -> int | None:
    """The count column of a table printed with row rules only, by its printed text: names
    start at the left, counts (and the title row's 매수) sit at the right, and every row leaves
    a blank strip between them. The middle of the rightmost blank strip of the right 35 % that
    has text beyond it in at least two rows (the title's count label counts as one), or None
    (no such strip: a name runs into the counts, or nothing is printed on the right)."""
    ys = table.ys
    if len(ys) < tuning.min_rules:
        return None
    width = right - left
    x0, x1 = left + int(tuning.gutter_zone * width), right - max(tuning.gutter_edge[0], width // tuning.gutter_edge[1])
    if x1 - x0 < tuning.gutter_min_span_px:
        return None
    pad = max(tuning.gutter_pad[0], int(tuning.gutter_pad[1] * float(np.median(np.diff(ys)))))
    bands = [gray[y0 + pad:y1 - pad, x0:x1] for y0, y1 in zip(ys[:-1], ys[1:]) if y1 - y0 > 2 * pad]
    if not bands:
        return None
    ink_rows = [(b < INK_RULE).any(axis=0) for b in bands]
    # A long name may run on into the count column on a row or two: the strip is the one blank
    # in nearly every row (the name's tail then sits in that row's count cell, which reads
    # unclear and is flagged: never a count made up).
    crossing = np.sum(ink_rows, axis=0)
    used = crossing > max(1, int(tuning.gutter_crossing * sum(r.any() for r in ink_rows)))
    right_ink = np.zeros(len(used), dtype=int)
    for r in ink_rows:  # rows with ink at or beyond each x
        right_ink += np.maximum.accumulate(r[::-1])[::-1]
    min_run = max(tuning.gutter_min_px, int(tuning.gutter_min * width))
    best = None
    run_start = None
    for x in range(len(used) + 1):
        blank = x < len(used) and not used[x]
        if blank and run_start is None:
            run_start = x
        elif not blank and run_start is not None:
            if x - run_start >= min_run and x < len(used) and right_ink[x] >= 2:
                best = (run_start + x) // 2
            run_start = None
    return None if best is None else x0 + best


def build_rows(table: Table, vert: np.ndarray | None = None, gray: np.ndarray | None = None,
               tuning: GridTuning = GRID) -> None:
    """Header row, data rows, 합계 row from the table's rules (db-ko layout); `vert`: the
    vertical-rule mask the table was found on, `gray` the page (see column_rules)."""
    ys = table.ys
    cols = column_rules(table, vert, gray, tuning) if len(ys) >= tuning.min_rules else None
    if cols is None:
        return
    left, no_x, count_x, right = cols
    # Other "rules" inside are glyph strokes stacked row on row: never paint them out.
    table.xs = [x for x in table.xs if x in cols]
    table.number_column = no_x != left
    table.title = Box(left, ys[0], count_x, ys[1])
    pitch = float(np.median(np.diff(ys[1:-1]))) if len(ys) >= tuning.min_rules else 0.0
    last = len(ys) - 2
    if (not table.count_ruled and gray is not None and pitch > 0
            and numbered_row(gray, Box(left, ys[-2], count_x, ys[-1]), vert, tuning)):
        # The last ruled row is a card row (its number printed at the left): the sheet prints
        # its 합계 under the table, unruled, below the count column.
        last = len(ys) - 1
        table.total = Box(count_x, ys[-1] + 2, right, min(gray.shape[0], ys[-1] + int(pitch) + 2))
    else:
        table.total = Box(count_x, ys[-2], right, ys[-1])
    # Rows are numbered as printed, by their distance from row 1 in row pitches: a row box
    # that swallowed two lines (a lost rule) must not renumber every row under it.
    for i in range(1, last):
        y0, y1 = ys[i], ys[i + 1]
        number = 1 + int(round((y0 - ys[1]) / pitch)) if pitch > 0 else i
        table.rows.append(RowCells(row=number, box=Box(left, y0, right, y1),
                                   name=Box(no_x, y0, count_x, y1), count=Box(count_x, y0, right, y1)))


def numbered_row(gray: np.ndarray, row: Box, rules: np.ndarray | None = None, tuning: GridTuning = GRID) -> bool:
    """A card row rather than a 합계 row: ink at the very left (its printed number, or a name
    that starts there), or no ink at all (an empty row of a sheet without row numbers). A 합계
    row prints its label at the right of the name cell and nothing at the left. `rules`: the
    vertical-rule mask, whose pixels (the row-number rule) are not ink of the row."""
    pad = max(tuning.row_inset_px[0], row.h // tuning.row_inset_div[0])
    edge = max(tuning.row_inset_px[1], row.w // tuning.row_inset_div[1])
    ys, xs = slice(row.y0 + pad, row.y1 - pad), slice(row.x0 + edge, row.x1 - edge)
    cells = gray[ys, xs]
    if cells.size == 0:
        return False
    # Ink by its contrast with the paper too: faint print (a light grey rendering) is ink here.
    band = cells < max(INK_RULE, float(np.median(cells)) - tuning.row_ink_contrast)
    if rules is not None:
        band &= cv2.dilate(rules[ys, xs], np.ones((1, tuning.rule_halo_px), np.uint8)) == 0
    if band.size == 0:
        return False
    left = band[:, :max(tuning.number_zone[0], int(tuning.number_zone[1] * row.w))]
    return int(left.sum()) >= tuning.number_ink_px or int(band.sum()) < tuning.number_ink_px


MAIN_KINDS = DECK_KINDS[:3]
"""The main columns, printed side by side (monster | spell | trap)."""


def classify_tables(tables: list[Table], page_h: int, page_w: int = 0, tuning: GridTuning = GRID) -> None:
    """Name the tables by position: three main columns side by side, then extra | side below.
    The header block (name / ID / date) sits above them."""
    body = [t for t in tables if len(t.ys) >= tuning.deck_rules]
    body.sort(key=lambda t: t.box.y0)
    if not body:
        return
    top_y = body[0].box.y0
    main = [t for t in body if t.box.y0 < top_y + tuning.band_spread * page_h]
    lower = [t for t in body if t not in main]
    if top_y > tuning.lower_band_top * page_h:  # the main columns were all lost: these are extra | side
        main, lower = [], main
    main.sort(key=lambda t: t.box.x0)
    lower.sort(key=lambda t: t.box.x0)
    if len(main) == len(MAIN_KINDS):
        for t, kind in zip(main, MAIN_KINDS):
            t.kind = kind
    else:
        # A main column the grid lost must not shift its neighbours' names (the spell column
        # read against the monster vocabulary): each table is named by the third of the main
        # block's width its centre lies in, measured from the page body (lower tables too).
        left = min(t.box.x0 for t in body)
        right = max(t.box.x1 for t in body)
        third = max(1.0, (right - left) / len(MAIN_KINDS))
        for t in main:
            i = min(len(MAIN_KINDS) - 1, max(0, int(((t.box.x0 + t.box.x1) / 2 - left) // third)))
            if all(o.kind != DECK_KINDS[i] for o in main):
                t.kind = DECK_KINDS[i]
    lower_top = lower[0].box.y0 if lower else 0
    lower = [t for t in lower if t.box.y0 < lower_top + tuning.band_spread * page_h]
    if len(lower) == 1:  # the other one was not found: extra is printed on the left, side right
        mid = ((min(t.box.x0 for t in main) + max(t.box.x1 for t in main)) / 2 if main
               else page_w / 2)
        lower[0].kind = "extra" if (lower[0].box.x0 + lower[0].box.x1) / 2 < mid else "side"
    else:
        for t, kind in zip(lower, ("extra", "side")):
            t.kind = kind
    for t in tables:
        if t.kind == "unknown" and t.box.y1 <= top_y + tuning.header_slack_px:
            t.kind = "header"


def remove_rules(gray: np.ndarray, horiz: np.ndarray, vert: np.ndarray,
                 tables: list[Table], tuning: GridTuning = GRID) -> tuple[np.ndarray, np.ndarray]:
    """Paint white the rule pixels that lie on a detected rule position (± `rule_paint_px`)."""
    band = np.zeros_like(horiz)
    r = tuning.rule_paint_px
    for t in tables:
        # (clamped: a form fitted partly off the page has rules past its edges)
        x0, y0 = max(0, t.box.x0), max(0, t.box.y0)
        for y in t.ys:
            band[max(0, y - r):max(0, y + r + 1), x0:max(0, t.box.x1)] = MASK_ON
        mid = (t.box.y0 + t.box.y1) / 2
        for x in t.xs:
            if abs(t.lean) < tuning.upright_lean:
                band[y0:max(0, t.box.y1), max(0, x - r):max(0, x + r + 1)] = MASK_ON
                continue
            for y in range(y0, min(band.shape[0], t.box.y1)):  # follow a leaning rule down the table
                xc = int(round(x + t.lean * (y - mid)))
                band[y, max(0, xc - r):xc + r + 1] = MASK_ON
    rules = cv2.bitwise_and(cv2.bitwise_or(horiz, vert), band)
    rules = cv2.dilate(rules, np.ones((3, 3), np.uint8))
    for t in tables:
        if t.rows:
            _trace_column_rules(gray, t, rules, tuning)
    clean = gray.copy()
    clean[rules > 0] = PAPER
    return clean, rules


def _trace_column_rules(gray: np.ndarray, t: Table, rules: np.ndarray, tuning: GridTuning = GRID) -> None:
    """Add to `rules` a deck table's column rules row by row, where the rule masks lost them.

    A rule that is faint in places (a blurred, dashed-looking print, a shadow) drops out of the
    masks there, and its grey flanks stay in the cleaned page: in an empty row's count cell they
    read as a hand-written 1. Within each row the rule is the darkest column near its fitted
    line; its core is painted out where it is darker than the paper."""
    if len(t.ys) < 2:
        return
    mid = (t.box.y0 + t.box.y1) / 2
    h, w = gray.shape[:2]
    top, bottom = tuning.trace_inset
    stray, half = tuning.rule_trace, tuning.rule_half
    for x in t.xs:
        for ya, yb in zip(t.ys[:-1], t.ys[1:]):
            y0, y1 = max(0, ya + top), min(h, yb - bottom)
            if y1 - y0 < tuning.trace_min_px:
                continue
            xc = int(round(x + t.lean * ((y0 + y1) / 2 - mid)))
            a, b = max(0, xc - stray), min(w, xc + stray + 1)
            seg = gray[y0:y1, a:b]
            if seg.size == 0:
                continue
            c = a + int(np.argmin(seg.mean(axis=0)))
            ca, cb = max(0, c - half), min(w, c + half + 1)
            core = gray[y0:y1, ca:cb] < tuning.rule_paper
            rules[y0:y1, ca:cb][core] = MASK_ON


def page_to_grid(gray: np.ndarray, tuning: GridTuning = GRID) -> Grid:
    """The whole grid stage on a flattened, deskewed page.

    Rules are taken as dark ink only, and again by their contrast with the paper beside them
    (faint or hairline rules in a blurred, low-resolution photo pass only the second test): the
    grid with more deck tables, then fewer faults, then more rows wins (ink only on a tie);
    when dark ink alone gives every deck table whole (`_complete`), the second test is not
    run. Only the winner's rules are painted out (`remove_rules` is the costly step of a mode)."""
    ink = _find_rules(gray, faint_rules=False, tuning=tuning)
    if _complete(ink.tables, tuning):
        # Every deck table whole and regular by dark rules alone: the faint-rule mode (the
        # costlier one) could only win with more rows, i.e. a false rule.
        grid = Grid(tables=ink.tables, clean=gray, rule_mask=np.zeros_like(gray), notes=ink.notes)
        grid.clean, grid.rule_mask = remove_rules(gray, ink.horiz, ink.vert, ink.tables, tuning)
        return grid
    faint = _find_rules(gray, faint_rules=True, tuning=tuning)
    mine, other = (faint, ink) if _quality(faint.tables, tuning) > _quality(ink.tables, tuning) else (ink, faint)
    grid = Grid(tables=mine.tables, clean=gray, rule_mask=np.zeros_like(gray), notes=mine.notes,
                faint_masks=(faint.horiz_whole, faint.vert_whole))
    if mine is faint:
        grid.notes.append("grid: faint rules")
    # Each mode may miss a different table's end rule: a table with more rows, all regular,
    # from the other mode replaces its namesake (never a table it would overlap).
    swapped = False
    for kind in DECK_KINDS:
        ours, theirs = grid.by_kind(kind), _by_kind(other.tables, kind)
        if theirs is None or not theirs.rows or _table_faults(theirs, tuning):
            continue
        if ours is not None and (len(theirs.rows) <= len(ours.rows) or not _overlap(ours.box, theirs.box, tuning)):
            continue
        if ours is not None and _pitch(theirs) < tuning.swap_pitch * _pitch(ours):
            # More rows at a fraction of the pitch: the text's lines taken for rules (a table
            # that lost its end rule has more rows at the same pitch).
            continue
        rest = [t for t in grid.tables if t is not ours]
        if any(_overlap(t.box, theirs.box, tuning) for t in rest):
            continue
        grid.tables = rest + [theirs]
        grid.notes.append(f"{kind}: rules of the other mode ({len(theirs.rows)} rows)")
        swapped = True
    if _shared_ends(grid, faint.horiz_whole, faint.vert_whole, gray, tuning) or swapped:
        grid.clean, grid.rule_mask = remove_rules(gray, faint.horiz_whole, faint.vert_whole, grid.tables, tuning)
    else:
        grid.clean, grid.rule_mask = remove_rules(gray, mine.horiz, mine.vert, mine.tables, tuning)
    return grid


SIDE_BY_SIDE = (MAIN_KINDS, DECK_KINDS[3:])
"""Tables printed side by side with the same rows: the main columns; extra and side."""


def _shared_ends(grid: Grid, horiz: np.ndarray, vert: np.ndarray, gray: np.ndarray | None = None,
                 tuning: GridTuning = GRID) -> bool:
    """A table whose first or last rule was lost while its neighbours in the same band have it:
    the neighbours' rule is taken when this table shows some trace of it (a quarter of its width
    in the faint-rule mask). Rows are then rebuilt. True when a table changed."""
    changed = False
    for group in SIDE_BY_SIDE:
        tables = [t for t in (grid.by_kind(k) for k in group) if t is not None and len(t.ys) >= tuning.deck_rules]
        for t in tables:
            others = [o for o in tables if o is not t]
            if not others:
                continue
            pitch = float(np.median(np.diff(t.ys)))
            added = False
            for end in (0, -1):
                ys = [o.ys[end] for o in others]
                y = int(round(float(np.median(ys))))
                beyond = (t.ys[0] - y) if end == 0 else (y - t.ys[-1])
                near, far = tuning.next_rule
                if not (near * pitch < beyond < far * pitch) or max(ys) - min(ys) > tuning.ends_agree * pitch:
                    continue
                trace_px, trace_share = tuning.end_trace
                band = horiz[max(0, y - trace_px):y + trace_px + 1, t.box.x0:t.box.x1]
                if band.size and (band.max(axis=0) > 0).mean() >= trace_share:
                    t.ys = [y] + t.ys if end == 0 else t.ys + [y]
                    t.box = Box(t.box.x0, min(t.box.y0, y), t.box.x1, max(t.box.y1, y + 1))
                    added = True
            if added:
                t.rows, t.title, t.total = [], None, None
                build_rows(t, vert, gray, tuning)
                grid.notes.append(f"{t.kind}: end rule taken from the tables beside it")
                changed = True
    return changed


def _pitch(t: Table) -> float:
    """The median spacing of a table's rules (0 with fewer than two)."""
    return float(np.median(np.diff(t.ys))) if len(t.ys) >= 2 else 0.0


def _complete(tables: list[Table], tuning: GridTuning = GRID) -> bool:
    """All five deck tables, no irregular row, each with at least its printed rows, and the
    tables printed side by side with the same rows from the same first to the same last rule."""
    if _quality(tables, tuning)[:2] != (len(DECK_KINDS), 0):
        return False
    full_rows = DB_KO.min_rows or {}
    for group in SIDE_BY_SIDE:
        found = [_by_kind(tables, k) for k in group]
        if (any(t is None or len(t.rows) < full_rows[t.kind] for t in found)
                or len({len(t.rows) for t in found}) != 1):
            return False
        pitch = float(np.median(np.diff(found[0].ys)))
        for end in (0, -1):
            ends = [t.ys[end] for t in found]
            if max(ends) - min(ends) > tuning.ends_agree * pitch:
                return False
    return True


def _overlap(a: Box, b: Box, tuning: GridTuning = GRID) -> bool:
    """The boxes share more than a quarter of the smaller one."""
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w > 0 and h > 0 and w * h > tuning.overlap_share * min(a.w * a.h, b.w * b.h)


def _table_faults(t: Table, tuning: GridTuning = GRID) -> int:
    """Rows much taller or shorter than the table's usual row (a lost or a false rule)."""
    if len(t.rows) < tuning.min_fault_rows:
        return 0
    usual = float(np.median([r.box.h for r in t.rows]))
    low, high = tuning.row_height_range
    return sum(1 for r in t.rows if not low * usual <= r.box.h <= high * usual)


def _faults(tables: list[Table], tuning: GridTuning = GRID) -> int:
    """Signs of lost or false rules: irregular rows, and main columns (printed with the same
    number of rows) that disagree."""
    faults = sum(_table_faults(t, tuning) for t in tables if t.kind in DECK_KINDS)
    counts = [len(t.rows) for t in tables if t.kind in MAIN_KINDS and t.rows]
    if counts:
        faults += max(counts) - min(counts)
    return faults


def _quality(tables: list[Table], tuning: GridTuning = GRID) -> tuple[int, int, int]:
    """Deck tables with rows, then fewest faults, then rows."""
    deck = [t for t in tables if t.kind in DECK_KINDS and t.rows]
    return len(deck), -_faults(tables, tuning), sum(len(t.rows) for t in deck)


def _by_kind(tables: list[Table], kind: str) -> Table | None:
    return next((t for t in tables if t.kind == kind), None)


@dataclass
class _RuleMode:
    """The tables one rule mode finds, with its rule masks."""

    tables: list[Table]
    horiz: np.ndarray
    vert: np.ndarray
    """The masks with the page's edge band cleared (what the tables were found on)."""
    horiz_whole: np.ndarray
    vert_whole: np.ndarray
    """The masks as `line_masks` gave them."""
    notes: list[str]


def _find_rules(gray: np.ndarray, faint_rules: bool, tuning: GridTuning = GRID) -> _RuleMode:
    _, horiz_whole, vert_whole, ink_h = _line_masks(gray, faint_rules, tuning)
    horiz, vert = horiz_whole.copy(), vert_whole.copy()
    # The page edge (and a sliver of background after the warp) is not a table.
    m = int(gray.shape[1] * tuning.page_edge)
    for mask in (horiz, vert):
        mask[:m] = 0
        mask[-m:] = 0
        mask[:, :m] = 0
        mask[:, -m:] = 0
    boxes = find_tables(horiz, vert, tuning, rule_ink=cv2.bitwise_and(horiz, ink_h))
    row_pitch = row_pitch_px(gray.shape[1], tuning)
    tables = []
    for box in boxes:
        ys, xs, lean = table_rules(box, horiz, vert, row_pitch, dark_only=not faint_rules, tuning=tuning)
        tables.append(Table(box=box, xs=xs, ys=ys, lean=lean))
    classify_tables(tables, gray.shape[0], gray.shape[1], tuning)
    for t in tables:
        if t.kind in DECK_KINDS:
            build_rows(t, vert, gray, tuning)
    notes = [f"{t.kind}: {len(t.rows)} rows, {len(t.xs)} cols" for t in tables if t.rows]
    return _RuleMode(tables, horiz, vert, horiz_whole, vert_whole, notes)
