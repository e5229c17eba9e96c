"""Place a fixed-layout form (`layouts.KDE`) on a page by its rules.

The form may be printed at any scale ("fit to page" shrinks it to 0.86-0.89) and anywhere on
the paper. The column rules fix the scale and the x offset (every pair of long vertical rules
proposes a scale and offset; the proposal that lands most of the layout's rules on rules of the
page wins), then the row rules fix the y offset (votes of every rule for an offset). Each rule
of the layout then snaps to the page's rule next to it (a photo's residual bend), or stays where
the fit puts it. A page where the layout's rules are not there is not this form: None.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scanner.ocr.grid import Box, Grid, RowCells, Table, profile_peaks, line_masks, remove_rules
from scanner.ocr.layouts import Layout, TableSpec
from scanner.ocr.perspective import PAPERS
from scanner.ocr.thresholds import PAPER


@dataclass(frozen=True)
class FormFitTuning:
    """The numbers of the form-fit stage, one home each (issue 32: per-stage tuning). Layout
    units are the form's PDF points."""

    min_x_match: float = 6 / 7
    """Share of the layout's column rules (six of the form's seven) that must land on the page's vertical rules."""
    min_y_match: float = 0.8
    """Share of the layout's row rules that must land on the page's horizontal rules."""
    scale_range: tuple[float, float] = (0.55, 1.15)
    """Layout units → page pixels, relative to the page width / the layout width (printed at
    100 % on A4, the KDE form is a little wider than the paper's printable width)."""
    x_tol: tuple[float, float] = (4.0, 0.004)
    """A column rule lands on a page rule within (pixels, share of the page width), the larger."""
    y_tol: tuple[float, float, float] = (3.0, 0.2, 17.4)
    """A row rule lands on a page rule within (pixels, share of a row pitch), the larger; the
    pitch in layout units (the KDE form's 17.4 pt rows) at the x scale."""
    y_scale: tuple[float, float, float] = (0.96, 1.04, 0.005)
    """The y scale is looked for from 0.96 to 1.04 times the x scale, in steps of 0.005: the
    page stage keeps the paper's aspect (`perspective.paper_aspect`, within ~1 %), so the range
    need not be wider; a wider one only gives a false fit more scales to land on."""
    paper_swap: float = 0.03
    """The y scale is also looked for within this share around the ratios of two known papers'
    aspects (`perspective.PAPERS`: A4 over Letter, 1.09, and back): the page stage takes the
    paper's aspect from the corners, and a photo's strong perspective can take an A4 sheet for
    Letter; the form on it is then squeezed by 0.915 down, its rows no longer those of the form
    the x scale says, and a fit one or two rows off of another form with a smaller pitch wins.
    (Searched after the range above: only a fit matching more rules takes a swapped scale.)"""
    swapped_papers: tuple[str, ...] = ("A4", "Letter")
    """The papers taken for one another (Letter's aspect is also the form's own page's)."""
    swap_max_strays: int = 2
    """A fit at a swapped paper's scale stands only when it leaves at most this many of the
    page's long vertical rules unexplained (`Fit.strays`: the form's own judge box gives one or
    two); else the fit is made at the paper's own aspect as before. A small, soft db-ko photo
    turned upside down fitted the Latin-American form at 1.12 with ten columns unexplained."""
    y_offsets: tuple[float, float] = (-0.5, 3.0)
    """Row offsets voted for: from this share of the page's height above it, in bins this many
    pixels wide (the winning bin's middle is the offset)."""
    column_peaks: tuple[float, int] = (0.15, 6)
    """Column rules: profile peaks at least this share of the page high, this far apart (px)…"""
    column_count: tuple[int, int] = (4, 40)
    """…of which a form's page has at least this many and at most that many."""
    strip_shares: tuple[float, float] = (0.3, 0.5)
    """Row rules run at least this share of the whole form's width, and that of one table's."""
    strip_min_px: int = 8
    """A strip narrower than this (px) on the page is not measured."""
    row_peak_gap_px: int = 6
    """Row-rule peaks of one strip closer than this are one."""
    strip_merge: tuple[float, float] = (3.0, 0.15)
    """Peaks of one rule seen in different strips lie within (pixels, share of a row pitch),
    the larger."""
    snap: float = 0.3
    """A rule snaps to a page rule within this share of the row pitch…"""
    snap_min_px: float = 4.0
    """…and at least this many pixels across."""
    table_rule_share: float = 0.5
    """A table's own row rule covers at least this share of its width…"""
    table_rule_gap_px: int = 4
    """…and its peaks closer than this are one."""
    cell_margin: int = 3
    """Pixels each cell keeps clear of its column rules (beyond the readers' own inset)."""
    min_row_px: int = 8
    """A row whose name or count cell holds fewer pixels than this down (or across) on the page
    is no row to read (a fit squeezed to nothing); a row not wholly on the page is off it."""
    # ---- faint print ---------------------------------------------------------------------
    cell_inset: int = 3
    """The name cells' print is measured this far inside their rules."""
    faint_ink: float = 120
    """Darkest print of the name cells (their `faint_percentile`) paler than this: a small,
    blurred page (a portrait sheet far off in a landscape photo) whose text never reaches the
    ink cut-offs…"""
    faint_percentile: float = 0.2
    faint_contrast: float = 40
    """…and at least this much darker than their paper (else there is no print to darken)…"""
    dark_ink: float = 40
    """…is stretched to this grey level."""
    # ---- grey title rows -----------------------------------------------------------------
    fill_inset_px: int = 4
    """The grey fills are measured this far inside their rules."""
    row_shifts: int = 3
    """Fits shifted by up to this many rows are weighed against the found one (a photo's
    residual perspective can leave the row votes two rows off)…"""
    fill_gain: float = 3.0
    """…and one wins when its title rows are grey by this many grey levels more."""
    # ---- leaning columns -----------------------------------------------------------------
    lean_third: tuple[int, float] = (10, 0.3)
    """A column rule's lean is measured in the top and bottom thirds of the rows (at least this
    many pixels high), where its mask covers at least that share of the third…"""
    lean_peak: float = 0.8
    """…at the middle of its profile's columns at least this share of its peak."""
    lean_window_px: int = 3
    """…in a window at least this wide around the fitted rule…"""
    max_lean: float = 0.035
    """Largest lean (x shift per pixel down, about 2°) taken for a table's column rules."""
    min_drift: float = 3.0
    """A lean that moves a rule by fewer pixels than this over the table's rows is not taken."""


FORM_FIT = FormFitTuning()


@dataclass
class Fit:
    sx: float
    ox: float
    sy: float
    oy: float
    x_match: float
    y_match: float
    strays: int = 0
    """The page's long vertical rules between the layout's outer rules that none of its rules
    explains: a form that divides its columns further (Genesys's PTS column inside what would be
    the current form's name cell) is another form."""

    def x(self, u: float) -> float:
        return self.ox + self.sx * u

    def y(self, u: float) -> float:
        return self.oy + self.sy * u


def _rule_xs(layout: Layout) -> list[float]:
    return sorted({v for t in layout.tables for v in (t.left, t.divider, t.right)})


def _rule_ys(layout: Layout) -> list[float]:
    return sorted({round(v, 2) for t in layout.tables for v in t.row_rules()})


def _matched(pred: np.ndarray, peaks: np.ndarray, tol: float) -> np.ndarray:
    """Per predicted position: distance to the nearest peak."""
    if peaks.size == 0:
        return np.full(pred.shape, np.inf)
    return np.abs(pred[:, None] - peaks[None, :]).min(axis=1)


def fit_x(peaks: np.ndarray, rules: list[float], width: int, layout_w: float,
          tuning: FormFitTuning = FORM_FIT) -> tuple[float, float, float]:
    """(scale, offset, share matched) of the best pair-wise proposal."""
    tol = max(tuning.x_tol[0], tuning.x_tol[1] * width)
    lo, hi = tuning.scale_range
    t = np.array(rules)
    best = (0.0, 0.0, 0.0, np.inf)
    base = width / layout_w
    for a in range(len(peaks)):
        for b in range(a + 1, len(peaks)):
            for i in range(len(t)):
                for j in range(i + 1, len(t)):
                    s = (peaks[b] - peaks[a]) / (t[j] - t[i])
                    if not lo * base <= s <= hi * base:
                        continue
                    o = peaks[a] - s * t[i]
                    d = _matched(o + s * t, peaks, tol)
                    n = int((d <= tol).sum())
                    err = float(d[d <= tol].sum())
                    if n > best[2] * len(t) or (n == round(best[2] * len(t)) and err < best[3]):
                        best = (s, o, n / len(t), err)
    return best[0], best[1], best[2]


def fit_y(peaks: np.ndarray, rules: list[float], sx: float, height: int,
          tuning: FormFitTuning = FORM_FIT, swaps: bool = True,
          unknown_aspect: float | None = None) -> tuple[float, float, float]:
    """(scale, offset, share matched): the paper keeps its aspect, so the y scale is the x
    scale within `y_scale` (a photo's residual perspective), or that of a paper swap
    (`paper_swap`), or of a known paper on a page warped to an `unknown_aspect` (not with
    `swaps` False)."""
    t = np.array(rules)
    px, share, pitch = tuning.y_tol
    tol = max(px, share * sx * pitch)
    best = (sx, 0.0, 0.0, np.inf)
    if peaks.size == 0:
        return best[:3]
    above, bin_px = tuning.y_offsets
    lo, hi, _ = tuning.y_scale
    for k in y_scales(tuning, unknown_aspect):
        if not swaps and not lo <= k <= hi + 1e-9:
            continue
        s = sx * k
        offs = (peaks[:, None] - s * t[None, :]).ravel()
        offs = offs[(offs > above * height) & (offs < height)]
        if offs.size == 0:
            continue
        hist, edges = np.histogram(offs, bins=np.arange(offs.min(), offs.max() + bin_px + 1, bin_px))
        o = float(edges[int(np.argmax(hist))] + bin_px / 2)
        d = _matched(o + s * t, peaks, tol)
        ok = d <= tol
        if ok.any():  # refine the offset on the matched rules
            o += float(np.median((peaks[np.abs(peaks[:, None] - (o + s * t)[None, :]).argmin(axis=0)] - (o + s * t))[ok]))
            d = _matched(o + s * t, peaks, tol)
            ok = d <= tol
        n, err = int(ok.sum()), float(d[ok].sum())
        if n > round(best[2] * len(t)) or (n == round(best[2] * len(t)) and err < best[3]):
            best = (s, o, n / len(t), err)
    return best[0], best[1], best[2]


def y_scales(tuning: FormFitTuning = FORM_FIT, unknown_aspect: float | None = None) -> list[float]:
    """The y scales over the x scale `fit_y` tries: the paper's own aspect kept (`y_scale`),
    then the aspect of another known paper taken for it (`paper_swap`), then — on a page whose
    corners named no known paper, warped to `unknown_aspect` (`PageImage.unknown_aspect`) —
    the squeeze each known paper's print would have on it (its aspect over the paper's)."""
    lo, hi, step = tuning.y_scale
    out = [float(k) for k in np.arange(lo, hi + step / 2, step)]
    aspects = [PAPERS[name] for name in tuning.swapped_papers]
    ratios = {a / b for a in aspects for b in aspects}
    if unknown_aspect is not None:
        ratios |= {unknown_aspect / a for a in PAPERS.values()}
    for r in sorted(r for r in ratios if not lo <= r <= hi):
        out.extend(float(k) for k in np.arange(r * (1 - tuning.paper_swap), r * (1 + tuning.paper_swap) + step / 2, step))
    return out


def _strays(peaks: np.ndarray, sx: float, ox: float, layout: Layout, width: int,
            tuning: FormFitTuning = FORM_FIT) -> int:
    """Vertical rules of the page strictly between the fitted layout's outer column rules that
    lie on none of its rules (`Fit.strays`)."""
    tol = max(tuning.x_tol[0], tuning.x_tol[1] * width)
    xs = ox + sx * np.array(_rule_xs(layout))
    inside = peaks[(peaks > xs.min() + tol) & (peaks < xs.max() - tol)]
    return int((_matched(inside, xs, tol) > tol).sum())


def row_rule_peaks(horiz: np.ndarray, sx: float, ox: float, layout: Layout,
                   tuning: FormFitTuning = FORM_FIT) -> np.ndarray:
    """Row rules across the whole form and across each table alone. A photo's residual keystone
    tilts a long rule: across the whole width its profile smears below the threshold, while
    across one column it stays sharp. Peaks of one rule in several strips are merged."""
    w = horiz.shape[1]
    xs = _rule_xs(layout)
    whole, one = tuning.strip_shares
    spans = [(min(xs), max(xs), whole)] + sorted({(t.left, t.right, one) for t in layout.tables})
    found: list[float] = []
    for a, b, share in spans:
        x0, x1 = max(0, int(ox + sx * a)), min(w, int(ox + sx * b))
        if x1 - x0 < tuning.strip_min_px:
            continue
        prof = (horiz[:, x0:x1] > 0).sum(axis=1).astype(np.float32)
        found.extend(p for p, _ in profile_peaks(prof, share * (x1 - x0), tuning.row_peak_gap_px))
    pitch = sx * float(np.median([t.pitch for t in layout.tables]))
    merged: list[list[float]] = []
    for p in sorted(found):
        if merged and p - merged[-1][-1] <= max(tuning.strip_merge[0], tuning.strip_merge[1] * pitch):
            merged[-1].append(p)
        else:
            merged.append([p])
    return np.array([float(np.median(m)) for m in merged], float)


def _snap(v: float, peaks: np.ndarray, tol: float) -> int:
    if peaks.size:
        i = int(np.argmin(np.abs(peaks - v)))
        if abs(peaks[i] - v) <= tol:
            return int(peaks[i])
    return int(round(v))


def fit_form(gray: np.ndarray, layout: Layout,
             masks: tuple[np.ndarray, np.ndarray] | None = None,
             tuning: FormFitTuning = FORM_FIT, unknown_aspect: float | None = None) -> tuple[Grid, Fit] | None:
    """The layout's tables placed on the page, with the rules painted out; None when the
    page's rules do not fit the layout. `masks`: the page's faint-rule masks (horizontal,
    vertical) when the db-ko grid already made them (`Grid.faint_masks`); `unknown_aspect`:
    the aspect the page was warped to when its paper was not recognised
    (`PageImage.unknown_aspect`)."""
    placed = place_form(gray, layout, masks, tuning, unknown_aspect)
    return None if placed is None else (finish_form(placed, tuning), placed.fit)


@dataclass
class PlacedForm:
    """A layout's tables placed on the page (`place_form`), its rules not yet painted out."""

    gray: np.ndarray
    fit: Fit
    tables: list[Table]
    masks: tuple[np.ndarray, np.ndarray]
    """The page's faint-rule masks (horizontal, vertical) the tables were placed on."""
    notes: list[str]


def place_form(gray: np.ndarray, layout: Layout, masks: tuple[np.ndarray, np.ndarray] | None = None,
               tuning: FormFitTuning = FORM_FIT, unknown_aspect: float | None = None) -> PlacedForm | None:
    """`fit_form` up to the tables' places (what tells forms apart), without the page-sized
    work of painting the rules out (`finish_form`): only the form chosen needs it."""
    h, w = gray.shape
    horiz, vert = masks if masks is not None else line_masks(gray, faint_rules=True)[1:]
    vprof = (vert > 0).sum(axis=0).astype(np.float32)
    share, gap = tuning.column_peaks
    vpk = np.array([p for p, _ in profile_peaks(vprof, share * h, gap)], float)
    fewest, most = tuning.column_count
    if len(vpk) < fewest or len(vpk) > most:
        return None
    sx, ox, xm = fit_x(vpk, _rule_xs(layout), w, layout.width, tuning)
    if xm < tuning.min_x_match:
        return None
    hpk = row_rule_peaks(horiz, sx, ox, layout, tuning)
    sy, oy, ym = fit_y(hpk, _rule_ys(layout), sx, h, tuning, unknown_aspect=unknown_aspect)
    strays = _strays(vpk, sx, ox, layout, w, tuning)
    lo, hi, _ = tuning.y_scale
    if not lo <= sy / sx <= hi + 1e-9 and strays > tuning.swap_max_strays:
        sy, oy, ym = fit_y(hpk, _rule_ys(layout), sx, h, tuning, swaps=False)
    if ym < tuning.min_y_match:
        return None
    fit = Fit(sx, ox, sy, oy, xm, ym, strays)
    if layout.fill:
        fit = _by_title_fill(gray, fit, layout, hpk, tuning)
    tables = [_table(spec, fit, vpk, horiz, vert, tuning) for spec in layout.tables]
    least = tuning.min_row_px
    for t in tables:  # rows the fit puts past the page's edge are not cells to read
        t.off_page = [r.row for r in t.rows if not (r.box.within(gray) and r.name.fits(gray, least=least)
                                                    and r.count.fits(gray, least=least))]
        t.rows = [r for r in t.rows if r.row not in t.off_page]
    notes = [f"layout {layout.name}: scale {sx:.3f} px/unit, column rules {xm:.0%}, row rules {ym:.0%}"]
    return PlacedForm(gray, fit, tables, (horiz, vert), notes)


def finish_form(placed: PlacedForm, tuning: FormFitTuning = FORM_FIT) -> Grid:
    """The placed form's grid: the page with its rules painted out (faint print darkened first)."""
    gray, tables, (horiz, vert) = placed.gray, placed.tables, placed.masks
    notes = list(placed.notes)
    clean, rules = remove_rules(gray, horiz, vert, tables)
    ink = darken_faint_ink(gray, clean, tables, tuning)
    if ink is not gray:
        notes.append("faint print: ink darkened")
        clean, rules = remove_rules(ink, horiz, vert, tables)
    return Grid(tables=tables, clean=clean, rule_mask=rules, notes=notes)


def darken_faint_ink(gray: np.ndarray, clean: np.ndarray, tables: list[Table],
                     tuning: FormFitTuning = FORM_FIT) -> np.ndarray:
    """The page with its grey levels stretched so the darkest print in the name cells (rules
    painted out) is dark again, paper staying paper; the page itself when its print is dark
    enough (the rules and the grey fills are always dark: only the cells tell)."""
    cells = [c.name.crop(clean, inset=tuning.cell_inset).ravel() for t in tables for c in t.rows]
    region = np.concatenate(cells) if cells else np.zeros(0, np.uint8)
    if region.size == 0:
        return gray
    lo, paper = float(np.percentile(region, tuning.faint_percentile)), float(np.median(region))
    if lo < tuning.faint_ink or paper - lo < tuning.faint_contrast:
        return gray
    dark = tuning.dark_ink
    v = np.arange(PAPER + 1, dtype=np.float32)
    lut = np.where(v < paper, dark + (v - lo) * (paper - dark) / (paper - lo), v)
    return np.clip(lut, 0, PAPER).astype(np.uint8)[gray]


def _title_contrast(gray: np.ndarray, fit: Fit, layout: Layout, tuning: FormFitTuning = FORM_FIT) -> float:
    """How much darker the cells the form fills grey (`Layout.fill`: the title rows, or the
    total rows' count cells) are than the row next to them."""
    h, w = gray.shape
    m = tuning.fill_inset_px
    out = []
    for spec in layout.tables:
        if layout.fill == "total-count":
            last = spec.first_row + spec.rows * spec.pitch
            x0, x1 = int(fit.x(spec.left)) + m, int(fit.x(spec.divider)) - m
            pairs = ((last, spec.total_bottom), (last - spec.pitch, last))
        else:
            x0, x1 = int(fit.x(spec.divider)) + m, int(fit.x(spec.right)) - m
            pairs = ((spec.title_top, spec.first_row), (spec.first_row, spec.first_row + spec.pitch))
        bands = []
        for a, b in pairs:
            y0, y1 = int(fit.y(a)) + m, int(fit.y(b)) - m
            if not (0 <= y0 < y1 <= h and 0 <= x0 < x1 <= w):
                return -float(PAPER)
            bands.append(float(np.median(gray[y0:y1, x0:x1])))
        out.append(bands[1] - bands[0])
    return float(np.median(out))


def _by_title_fill(gray: np.ndarray, fit: Fit, layout: Layout, hpk: np.ndarray,
                   tuning: FormFitTuning = FORM_FIT) -> Fit:
    """Rows are evenly spaced, so a fit shifted by a row matches almost every rule too: of the
    fit and the fits up to `row_shifts` rows up and down, the one whose title rows are grey wins."""
    pitch = float(np.median([t.pitch for t in layout.tables]))
    best, best_c = fit, _title_contrast(gray, fit, layout, tuning)
    for m in range(-tuning.row_shifts, tuning.row_shifts + 1):
        if m == 0:
            continue
        f = Fit(fit.sx, fit.ox, fit.sy, fit.oy + m * fit.sy * pitch, fit.x_match, fit.y_match, fit.strays)
        c = _title_contrast(gray, f, layout, tuning)
        if c > best_c + tuning.fill_gain:
            best, best_c = f, c
    return best


def column_lean(vert: np.ndarray, xs: list[int], y0: int, y1: int, tol: int,
                tuning: FormFitTuning = FORM_FIT) -> tuple[list[int], float]:
    """The column rules where they cross the middle of rows y0..y1, and their lean (x shift per
    pixel down): a photo's residual perspective tilts them, so a count cell cut straight down
    meets its rule in the lower rows, and the rule's sliver reads as a 1. Each rule is found
    near its fitted x in the top and in the bottom third; rules not found there keep their x."""
    h, w = y1 - y0, vert.shape[1]
    third = h // THIRDS
    least_px, cover = tuning.lean_third
    if third < least_px:
        return xs, 0.0
    ends = []
    for x in xs:
        a, b = max(0, x - tol), min(w, x + tol + 1)
        top = (vert[y0:y0 + third, a:b] > 0).sum(axis=0)
        bot = (vert[y1 - third:y1, a:b] > 0).sum(axis=0)
        if b - a < tuning.lean_window_px or top.max() < cover * third or bot.max() < cover * third:
            ends.append(None)
            continue
        ends.append((a + _centre(top, tuning), a + _centre(bot, tuning)))
    slopes = [(xb - xt) / (h - third) for e in ends if e is not None for xt, xb in [e]]
    if not slopes:
        return xs, 0.0
    lean = float(np.clip(np.median(slopes), -tuning.max_lean, tuning.max_lean))
    if abs(lean) * h < tuning.min_drift:
        return xs, 0.0  # upright enough: the fit's rules stand (cells cut as before)
    out = [x if e is None or abs((e[0] + e[1]) / 2 - x) > tol else int(round((e[0] + e[1]) / 2))
           for x, e in zip(xs, ends)]
    return out, lean


THIRDS = 3
"""A column rule's lean is measured between the top and the bottom third of the rows."""


def _centre(prof: np.ndarray, tuning: FormFitTuning = FORM_FIT) -> float:
    """Middle of the columns where a rule's profile is near its peak (a thick rule is flat-topped)."""
    return float(np.flatnonzero(prof >= tuning.lean_peak * prof.max()).mean())


def _table(spec: TableSpec, fit: Fit, vpk: np.ndarray, horiz: np.ndarray, vert: np.ndarray,
           tuning: FormFitTuning = FORM_FIT) -> Table:
    tol_x = max(tuning.snap_min_px, tuning.snap * fit.sx * spec.pitch)
    left, div, right = (_snap(fit.x(v), vpk, tol_x) for v in (spec.left, spec.divider, spec.right))
    # Row rules snap to the rules found across this table only (other tables have their own).
    prof = (horiz[:, left:right] > 0).sum(axis=1).astype(np.float32)
    hpk = np.array([p for p, _ in profile_peaks(prof, tuning.table_rule_share * (right - left),
                                                tuning.table_rule_gap_px)], float)
    tol_y = tuning.snap * fit.sy * spec.pitch
    ys = [_snap(fit.y(v), hpk, tol_y) for v in spec.row_rules()]
    # Column rules at the table's own mid-height, with their lean (cells follow it row by row).
    mid = (ys[0] + ys[-1] + 1) / 2
    (left, div, right), lean = column_lean(vert, [left, div, right], ys[1], ys[-2], int(tol_x), tuning)
    if lean:  # column_lean measured the rules at the rows' middle; the table's differs a little
        shift = lean * (mid - (ys[1] + ys[-2]) / 2)
        left, div, right = (int(round(v + shift)) for v in (left, div, right))
    count_l, count_r = (left, div) if spec.count_side == "left" else (div, right)
    name_l, name_r = (div, right) if spec.count_side == "left" else (left, div)
    t = Table(box=Box(left, ys[0], right + 1, ys[-1] + 1), xs=[left, div, right], ys=ys, kind=spec.kind,
              number_column=True, lean=lean)  # no row numbers: ink at a name's left end is the name
    t.title = Box(left, ys[0], right, ys[1])
    t.total = Box(count_l, ys[-2], count_r, ys[-1])
    for i in range(1, spec.rows + 1):
        y0, y1 = ys[i], ys[i + 1]
        # The form's rules are thicker than db-ko's: their grey halo stays beside a painted
        # rule, and in a narrow count cell it reads as a second glyph. Cells keep clear of it.
        m = tuning.cell_margin
        d = int(round(lean * ((y0 + y1) / 2 - mid)))
        t.rows.append(RowCells(row=i, box=Box(left + d, y0, right + d, y1),
                               name=Box(name_l + m + d, y0, name_r - m + d, y1),
                               count=Box(count_l + m + d, y0, count_r - m + d, y1)))
    return t
