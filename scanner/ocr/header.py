"""The header block: the player's name (이름) and Konami ID (10 digits, one per box).
Only confident reads are kept: a guessed ID is worse than none."""
from __future__ import annotations

import re
from dataclasses import dataclass

import cv2
import numpy as np

from scanner.model import ReviewFlag, SheetRead
from scanner.ocr.engine import Tesseract
from scanner.ocr.form_fit import Fit
from scanner.ocr.grid import Box, Grid, Table
from scanner.ocr.hand_digits import sheared
from scanner.ocr.layouts import Layout
from scanner.ocr.ink import trim_to_ink
from scanner.ocr.thresholds import INK_RULE, PAPER
from scanner.ocr.counts import (H_NORM, K_NEIGHBOURS, MIN_GLYPH_H, binarize_cell, classify_glyph,
                                drop_rule_remnants, glyph_features, group_components, load_templates,
                                normalise)
from scanner.ocr.rows import TYPED_LIKENESS
from scanner.ocr.verify import NameRenderer, cell_name_ink
from scanner.vocab import Reason

HANGUL_NAME = re.compile(r"^[가-힣]{2,5}$")
NAME_CONFIDENCE = 0.85
"""A player name read below this Tesseract confidence is left out."""
ID_DIGIT_CONFIDENCE = 0.6
"""Every ID digit must be read at least this confidently, else no ID is reported."""


def read_header(grid: Grid, tess: Tesseract, sheet: SheetRead) -> None:
    """Player name (이름) and Konami ID (10 digits, one per box) from the header block."""
    headers = sorted((t for t in grid.tables if t.kind == "header"), key=lambda t: t.box.x0)
    if not headers:
        return
    t = headers[0]
    ys = t.ys
    if len(ys) < HEADER.min_rules or len(t.xs) < 2:
        return
    label_x = label_divider(t)
    name_box = Box(label_x, ys[0], t.box.x1, ys[1])
    img = name_box.crop(grid.clean, inset=5)
    trimmed = trim_to_ink(img)
    if trimmed is not None:
        sheet.player_name = _sure_name(trimmed, tess)
    digits = read_id_boxes(grid, t, ys[1], ys[2], tess)
    if digits is not None:
        sheet.konami_id = digits


def _sure_name(img: np.ndarray, tess: Tesseract) -> str | None:
    """The name in the box when two scales read it alike, each confidently (as the form's
    header): one syllable misread confidently at one scale (홍재 → 홍개, after a ±1 grey-level
    change of the page) is a wrong player name, worse than none."""
    name = None
    for f in (1.5, 2.0):
        got = tess.read(cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC), lang="kor", psm=7)
        text = got.text.replace(" ", "")
        if not HANGUL_NAME.match(text) or got.confidence <= NAME_CONFIDENCE or name not in (None, text):
            return None
        name = text
    return name


ID_DIGITS = 10
"""A Konami ID is ten digits, one a box (eleven evenly spaced rules)."""


@dataclass(frozen=True)
class HeaderTuning:
    """The numbers of the header stage's boxes and rules, one home each (issue 32: per-stage
    tuning; its confidences are the documented module constants)."""

    min_rules: int = 3
    """A header block with fewer row rules holds no name row."""
    id_spacing: float = 0.25
    """The ID boxes' rules are evenly spaced: each gap within this share of the first…"""
    id_min_gap_px: int = 20
    """…and no gap narrower than this (px: a doubled rule)."""
    id_inset: int = 4
    """An ID box is read this far inside its rules (db-ko)…"""
    form_id_inset: int = 2
    """…and inside its fitted outline (a form)."""
    frame_run: tuple[int, float, float] = (8, 0.7, 0.7)
    """A box's own frame: ink runs at least (pixels, share of the width across, share of the
    height down) long, the longer; a name cell's box rules run half its width."""
    edge_px: int = 3
    """Ink within this of an ID box's edge…"""
    frame_bit_px: int = 4
    """…in a stroke at most this thick along that edge is a bit of the box's frame."""
    line_run_across: float = 0.5
    label_margin_px: int = 20
    """The label divider is an inner rule this far from the block's sides…"""
    label_part: int = 3
    """…else it is taken at 1/(this) of the block's width."""
    snapped_surname: float = 0.5
    """A written surname (or given name) snapped to the nearest known one (name syllables) keeps
    this share of its confidence."""


HEADER = HeaderTuning()


MIN_CELL_PX = 4
"""A header cell smaller than this (pixels, either way) holds nothing to read."""


def read_id_boxes(grid: Grid, t: Table, y0: int, y1: int, tess: Tesseract) -> str | None:
    """The 10 one-digit boxes of the Konami ID: 11 evenly spaced short rules; one digit each.
    Only a full, confident read is returned (never a guessed ID)."""
    best = id_rules(t.xs)
    if len(best) != ID_DIGITS + 1:
        return None
    out = []
    for a, b in zip(best, best[1:]):
        d = read_id_digit(Box(a, y0, b, y1).crop(grid.clean, inset=HEADER.id_inset).copy(), tess)
        if d is None:
            return None
        out.append(d)
    return "".join(out)


def id_rules(xs: list[int], tuning: HeaderTuning = HEADER) -> list[int]:
    """The longest run of evenly spaced rules among a header's column rules. A rule that
    breaks the spacing is passed over when the next one keeps it: the table's rules include
    the name row's (a name's stroke, a cell rule above) falling between two ID boxes, and one
    of them cost the whole ID (a sheet of 1098765432 in clear print read as no ID). Of runs
    as long, the most even."""
    best: list[int] = []
    for i, first in enumerate(xs):
        for j in range(i + 1, len(xs)):
            step = xs[j] - first
            if step < tuning.id_min_gap_px:
                continue
            run = [first, xs[j]]
            for x in xs[j + 1:]:
                gap = x - run[-1]
                if abs(gap - step) <= tuning.id_spacing * step:
                    run.append(x)
                elif gap > step * (1 + tuning.id_spacing):
                    break  # past the next box: the run ends here
            if (len(run), -_spread(run)) > (len(best), -_spread(best)):
                best = run
    return best


def _spread(run: list[int]) -> int:
    """How uneven a run of rules is: its widest gap less its narrowest (of two runs as long,
    the even one is the ID's; the other starts at a doubled rule or takes a stray one)."""
    gaps = [b - a for a, b in zip(run, run[1:])]
    return max(gaps) - min(gaps) if gaps else 0


def read_id_digit(cell: np.ndarray, tess: Tesseract) -> str | None:
    """One ID box's digit (its own frame painted out), or None when not read confidently."""
    if min(cell.shape[:2]) < MIN_CELL_PX:
        return None  # (a box off the page or squeezed to nothing: no digit to read)
    ink = (cell < INK_RULE).astype(np.uint8)
    # The digit box has its own frame, off the table's rule positions: paint it out.
    frame = _lines(ink, HEADER.frame_run[1])
    cell[cv2.dilate(frame, np.ones((3, 3), np.uint8)) > 0] = PAPER
    _paint_frame_bits(cell)
    trimmed = trim_to_ink(cell, pad=10)
    if trimmed is None:
        return None
    first, sure = _digit_read(trimmed, tess, 1.0, 10)
    if first is not None and sure >= ID_DIGIT_SURE:
        return first
    # unsure or unread: four more reads; two or more of them agreeing (and more than on any
    # other digit) outvote the first
    others = [d for d, c in (_digit_read(trimmed, tess, f, psm) for f, psm in ID_DIGIT_RECHECK)
              if d is not None and c >= ID_DIGIT_RECHECK_CONFIDENCE]
    for d in set(others):
        if others.count(d) >= 2 and d != first and all(others.count(o) < others.count(d)
                                                         for o in set(others) - {d}):
            return d
    return first if first is not None and sure >= ID_DIGIT_CONFIDENCE else None


ID_DIGIT_SURE = 0.9
"""An ID digit read this sure as one character at its size is taken as read (most are)."""
ID_DIGIT_RECHECK = ((1.0, 13), (1.5, 13), (1.5, 10), (2.0, 10))
"""(scale, page mode) of the reads that check a digit read less sure or not at all: Tesseract
named a clear printed `1` a `4` (0.75 sure: a wrong ID) and a clear `9` nothing (the whole ID
lost), where these reads, as a line or larger, named them right (a `3` between two bars of
its box's frame: nothing as one character, `3` as a line). On the pen and photo sheets
of make_photos seeds 3535, 7101, 8202 (170 boxes): 10 boxes rechecked, IDs right 13 → 16 of 17,
wrong 1 → 0; the fixtures' 17 photos and scans: 11 → 12 right, none wrong."""
ID_DIGIT_RECHECK_CONFIDENCE = 0.5


def _digit_read(img: np.ndarray, tess: Tesseract, scale: float, psm: int) -> tuple[str | None, float]:
    x = img if scale == 1.0 else cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    got = tess.read(x, lang="eng", psm=psm, whitelist="0123456789")
    d = got.text.strip()
    return (d, got.confidence) if re.fullmatch(r"[0-9]", d) else (None, 0.0)


def _paint_frame_bits(cell: np.ndarray, tuning: HeaderTuning = HEADER) -> None:
    """Paint out what is left of a box's frame the long-run test missed (a frame broken into
    dashes on a photo): thin strokes lying along the cell's edge. The digit stands inside its
    box; a `1` is thin too, but not at an edge (cut to its ink with such a dash under it, a
    clear `1` read at too little confidence and the whole ID was lost)."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats((cell < INK_RULE).astype(np.uint8), connectivity=8)
    h, w = cell.shape[:2]
    e = tuning.edge_px
    for i in range(1, n):
        x, y, bw, bh = stats[i, :4]
        along_top_or_bottom = bh <= tuning.frame_bit_px and (y <= e or y + bh >= h - e)
        along_a_side = bw <= tuning.frame_bit_px and (x <= e or x + bw >= w - e)
        if along_top_or_bottom or along_a_side:
            cell[labels == i] = PAPER


def _lines(ink: np.ndarray, across: float, tuning: HeaderTuning = HEADER) -> np.ndarray:
    """The ink of long straight runs: across the cell at least `across` of its width, down it
    at least `frame_run`'s share of its height (and `frame_run`'s pixels either way)."""
    px, _, down = tuning.frame_run
    return (cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, max(px, int(ink.shape[1] * across))), np.uint8))
            | cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((max(px, int(ink.shape[0] * down)), 1), np.uint8)))


def label_divider(t: Table, tuning: HeaderTuning = HEADER) -> int:
    """x of the rule between the labels (이름 / 코나미 카드 게임 ID) and the values."""
    m = tuning.label_margin_px
    inner = [x for x in t.xs if t.box.x0 + m < x < t.box.x1 - m]
    return inner[0] if inner else t.box.x0 + t.box.w // tuning.label_part


HANGUL_PART = re.compile(r"^[가-힣]{1,4}$")


def _box(fit: Fit, rect: tuple[float, float, float, float]) -> Box:
    x0, y0, x1, y1 = rect
    return Box(int(fit.x(x0)), int(fit.y(y0)), int(fit.x(x1)), int(fit.y(y1)))


def without_lines(cell: np.ndarray) -> np.ndarray:
    """The cell with its frame and box rules painted white (long thin runs of ink)."""
    out = cell.copy()
    if min(out.shape[:2]) < MIN_CELL_PX:
        return out  # (nothing in it can be a rule; OpenCV refuses an empty image)
    ink = (out < INK_RULE).astype(np.uint8)
    lines = _lines(ink, HEADER.line_run_across)
    out[cv2.dilate(lines, np.ones((3, 3), np.uint8)) > 0] = PAPER
    return out


def read_form_header(gray: np.ndarray, fit: Fit, layout: Layout, tess: Tesseract, sheet: SheetRead,
                     written: bool = False) -> None:
    """A fixed-layout form's player name (surname + given name, two boxes) and Konami ID
    (10 digits in boxes): each kept only when read whole and confidently as print; `written`
    (the form's lines are written by hand): one not read as print is read as handwriting, with
    its confidence and a review item (`read_written_id`, `read_written_name`)."""
    boxes = layout.boxes
    if "konami_id" in boxes:
        # Ten evenly spaced boxes: one digit each, read alone (a whole-strip read stumbles on
        # the box rules' remnants); every digit must be sure.
        x0, y0, x1, y1 = boxes["konami_id"]
        step = (x1 - x0) / ID_DIGITS
        digits, glyphs, cells = [], [], []
        for i in range(ID_DIGITS):
            cell = _box(fit, (x0 + i * step, y0, x0 + (i + 1) * step, y1)).crop(gray, inset=HEADER.form_id_inset).copy()
            d = read_id_digit(cell, tess) if cell.size else None  # (paints the box out of cell)
            cells.append(cell)
            digits.append(d)
            glyphs.append(id_glyph(cell) if d is not None else (None, 1.0))
        if None not in digits and printed_id(digits, glyphs):
            sheet.konami_id = "".join(digits)  # type: ignore[arg-type]
        elif written and len(cells) == ID_DIGITS:
            read_written_id(gray, _box(fit, boxes["konami_id"]), cells, digits, sheet)
    written_name = False
    parts = []
    # Konami's form asks for the surname and the given name apart; others have one name box.
    keys = ("surname", "given_name") if "surname" in boxes else ("name",)
    for key in keys:
        if key not in boxes:
            return
        img = trim_to_ink(without_lines(_box(fit, boxes[key]).crop(gray, inset=2)))
        if img is None:
            if not written:
                return
            # no ink at the print's level: on a form filled by hand, a pale pen (light pressure)
            # is read as handwriting (`written_name_ink` looks again with the ink darkened); it
            # was the one cause of a written name left unread on the tuning sets
            written_name = True
            break
        # Two scales must agree: one Hangul syllable misread at high confidence (성예 → 성메)
        # is a wrong player name, worse than none.
        reads = [tess.read(cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC), lang="kor", psm=7)
                 for f in (1.5, 2.0)]
        texts = {r.text.replace(" ", "") for r in reads}
        part = texts.pop() if len(texts) == 1 else ""
        if (not HANGUL_PART.match(part) or min(r.confidence for r in reads) <= NAME_CONFIDENCE
                or not looks_printed(img, part)):
            # written by hand (or unsure): Tesseract's confident guess at handwriting is no
            # printed name; it is read as handwriting instead, for the judge to confirm
            written_name = True
            break
        parts.append(part)
    if not written_name and HANGUL_NAME.match("".join(parts)):
        sheet.player_name = "".join(parts)
    elif written_name and written:
        read_written_name([written_name_ink(gray, _box(fit, boxes[k])) for k in keys], keys, tess, sheet)


HAND_SHARE = 0.5
"""An ID whose digits' nearest digit templates are this much pen-font on average is hand-written
(per digit, a printed 1 in a plain font looks like a pen 1: the ID as a whole decides)."""


def id_glyph(cell: np.ndarray) -> tuple[str | None, float]:
    """What the count reader's digit templates (printed and pen fonts) see in one ID box: the
    digit (None unless one glyph) and the share of pen-font templates among its nearest."""
    t = load_templates()
    ink = drop_rule_remnants(binarize_cell(normalise(cell)))
    glyphs = group_components(ink, MIN_GLYPH_H * H_NORM)
    if len(glyphs) != 1:
        return None, 1.0
    mask = glyphs[0].mask
    near = np.argsort(np.linalg.norm(t.features - glyph_features(mask), axis=1))[:K_NEIGHBOURS]
    return str(classify_glyph(mask, t).digit), float(np.mean(t.hand[near]))


def printed_id(digits: list[str], glyphs: list[tuple[str | None, float]]) -> bool:
    """The templates agree with Tesseract on every ID digit and place the ID among printed
    digits: a form's ID boxes are often filled by hand, and Tesseract reads a hand digit
    confidently wrong (7 → 1), so a hand-written ID is never reported."""
    if len(digits) != len(glyphs) or not digits:
        return False
    if any(g != d for (g, _), d in zip(glyphs, digits)):
        return False
    return float(np.mean([h for _, h in glyphs])) < HAND_SHARE


def looks_printed(img: np.ndarray, text: str) -> bool:
    """The text, rendered in a known font, fits the box's ink: typed, not written by hand."""
    renderer = NameRenderer()
    ink = cell_name_ink(img)
    if ink is None or not renderer.usable:
        return False
    lk = renderer.likeness(ink, text)
    return lk is not None and lk.score >= TYPED_LIKENESS


# ------------------------------------------------------------------ written by hand

@dataclass(frozen=True)
class WrittenIdTuning:
    """How a Konami ID written by hand, one digit per box, is cut out and read.

    The ID boxes' rules run through a written digit that strays over its box's edge; painting
    them out (as for a typed ID) cuts the digit in two and the larger half is read (1 digit in 5
    wrong on the tuning faces). The strip of ten boxes is taken whole with a margin, only
    straight runs at least a box high at the rules' places (and the strip's long top and foot)
    are taken out, the gaps they leave across strokes bridged, and each box's digit is the
    glyph whose middle lies in it."""

    margin: float = 0.35
    """Of the boxes' height, taken around the strip."""
    rule_long: float = 0.8
    """A rule between boxes is a straight vertical run at least this share of the box high…"""
    rule_near: float = 0.15
    """…within this share of a box's width of where the layout puts it."""
    rule_row: float = 0.4
    """A pixel row near the strip's top or foot inked over this share of its width is rule."""
    bridge: int = 5
    """Pixels (at H_NORM) of a rule's gap bridged across a stroke."""
    speck: float = 0.15
    """Ink shorter than this share of the box's height (both ways) is no part of a digit."""
    sliver_px: int = 3
    """Ink at most this many pixels high (at H_NORM) is a rule's remnant, no part of a digit…"""
    widest: float = 1.6
    """…and so is ink wider than this many boxes (a rule joining the digits it touches)."""
    digit_h: float = 0.3
    """A digit is at least this share of the box's height."""
    unsure_digit: float = 0.6
    """A digit read less likely than this is named in the review item."""
    most_slant: float = 0.3
    """A hand whose digits lean more than this (median `slant`) is read sheared upright: the
    digit reader learnt from hands up to about this (the tuning faces lean 0-0.18 on the median,
    their digits at most about 0.4), and misreads a heavier italic (a 4 as 9, a 9 as 1)."""
    tesseract_weight: float = 0.3
    """Weight of Tesseract's own read of a box (at its confidence) beside the hand-digit
    reader's odds."""
    leans: tuple[float, ...] = (0.15,)
    """Each digit is read as written and sheared by ± each of these, by the four digit networks
    (`hand_digits.id_digit_probs`, the odds averaged): about the lean of the hands the networks
    learnt from. On the tuning faces' sets (seeds 3502, 3504: 270 digits) 260 → 264 digits
    right, IDs 21 → 23 of 27, the likeliest wrong ID 0.51 → 0.27 sure; the counts, read by the
    first network alone, are not read so (their totals settle them)."""
    least_h: int = 6
    """Pixels the strip (and a lone box's crop) must be high to be read."""
    least_box_w: int = 4
    """Pixels each box of the strip must be wide to be read."""


WRITTEN_ID = WrittenIdTuning()


def written_id_glyphs(gray: np.ndarray, strip: Box, boxes: int = ID_DIGITS,
                      tuning: WrittenIdTuning = WRITTEN_ID) -> list[np.ndarray | None]:
    """Each box's written digit (an ink mask, cropped; None for a box with none)."""
    if strip.h < tuning.least_h or strip.w < boxes * tuning.least_box_w:
        return [None] * boxes
    m = int(round(tuning.margin * strip.h))
    y0, y1 = max(0, strip.y0 - m), min(gray.shape[0], strip.y1 + m)
    x0, x1 = max(0, strip.x0 - m), min(gray.shape[1], strip.x1 + m)
    k = H_NORM / strip.h
    region = cv2.resize(gray[y0:y1, x0:x1], None, fx=k, fy=k,
                        interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_CUBIC)
    bx0, bx1 = (strip.x0 - x0) * k, (strip.x1 - x0) * k
    by0, by1 = (strip.y0 - y0) * k, (strip.y1 - y0) * k
    step = (bx1 - bx0) / boxes
    # the rules first found as straight runs of ink and painted paper-white, then the ink found
    # again: left in, their black sets the ink level and a pale written digit falls under it
    dark = binarize_cell(region).astype(np.uint8)
    upright = cv2.morphologyEx(dark, cv2.MORPH_OPEN, np.ones((max(3, int(tuning.rule_long * H_NORM)), 1), np.uint8))
    xs = np.arange(dark.shape[1])
    near = np.min(np.abs(xs[:, None] - (bx0 + step * np.arange(boxes + 1))[None, :]), axis=1) <= tuning.rule_near * step
    upright[:, ~near] = 0
    flat = cv2.morphologyEx(dark, cv2.MORPH_OPEN, np.ones((1, max(3, int(2 * step))), np.uint8))
    # (a photo's soft or dashed strip rule breaks into runs shorter than the opening: the rows
    # near the strip's top and foot that are ink most of the strip's width are rule too)
    inside = dark[:, max(0, int(bx0)):int(bx1)]
    rows = np.flatnonzero(inside.mean(axis=1) >= tuning.rule_row)
    rows = rows[np.minimum(np.abs(rows - by0), np.abs(rows - by1)) <= tuning.rule_near * (by1 - by0)]
    flat[rows, max(0, int(bx0) - 2):int(bx1) + 2] = 1
    rules = cv2.dilate(upright | flat, np.ones((3, 3), np.uint8))
    paper = region.copy()
    paper[rules > 0] = 255
    rest = binarize_cell(paper).astype(np.uint8) & ~rules
    bridged = cv2.morphologyEx(rest, cv2.MORPH_CLOSE, np.ones((1, tuning.bridge), np.uint8)) & rules
    bridged |= cv2.morphologyEx(rest, cv2.MORPH_CLOSE, np.ones((tuning.bridge, 1), np.uint8)) & rules
    rest = rest | bridged
    n, lab, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
    big = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) >= tuning.speck * H_NORM
    # (the parts of the strip's own row: the form's printed labels above and below it would join
    # a digit over them into one glyph)
    mid = stats[:, cv2.CC_STAT_TOP] + stats[:, cv2.CC_STAT_HEIGHT] / 2
    big &= (mid >= by0) & (mid <= by1)
    # (a rule's remnant the openings missed, on a photo's soft or dashed rule: a flat sliver,
    # or a run across boxes; joined to a digit it skews its shape: a small 0 read as 6)
    w, h = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    big &= (h > tuning.sliver_px) & (w <= tuning.widest * step)
    big[0] = False
    glyphs = [g for g in group_components(big[lab], tuning.digit_h * H_NORM)
              if g.height >= tuning.digit_h * H_NORM and by0 - 0.2 * H_NORM <= (g.y0 + g.y1) / 2 <= by1 + 0.2 * H_NORM]
    out: list[np.ndarray | None] = []
    for i in range(boxes):
        lo, hi = bx0 + i * step, bx0 + (i + 1) * step
        mine = [g for g in glyphs if lo <= (g.x0 + g.x1) / 2 < hi]
        out.append(max(mine, key=lambda g: int(g.mask.sum())).mask if mine else None)
    return out


def _largest_glyph(cell: np.ndarray, tuning: WrittenIdTuning = WRITTEN_ID) -> np.ndarray | None:
    if cell is None or cell.size == 0 or min(cell.shape[:2]) < tuning.least_h:
        return None
    ink = drop_rule_remnants(binarize_cell(normalise(cell)))
    glyphs = [g for g in group_components(ink, MIN_GLYPH_H * H_NORM) if g.height >= MIN_GLYPH_H * H_NORM]
    return max(glyphs, key=lambda g: int(g.mask.sum())).mask if glyphs else None


def slant(mask: np.ndarray) -> float:
    """A glyph's slant: its second moments' skew (x shift per row down; 0 upright)."""
    mo = cv2.moments(mask.astype(np.float32))
    # A pixel mask's mu02 is 0 (one row of ink) or at least 0.5: nothing to divide by, or a slant.
    return 0.0 if mo["mu02"] <= 0 or mo["m00"] < 1 else float(mo["mu11"] / mo["mu02"])


def deslanted(mask: np.ndarray) -> np.ndarray:
    """The glyph sheared upright (`slant` taken out), cropped to its ink."""
    skew = slant(mask)
    return mask if skew == 0.0 else sheared(mask, skew)


def upright_hand(masks: list[np.ndarray], tuning: "WrittenIdTuning") -> bool:
    """The ID's digits lean further than any hand the digit reader learnt from: read upright.
    (One hand writes all ten: their median slant says it, not one digit's shape, a 7 or a 4
    leaning by its build.)"""
    return bool(masks) and abs(float(np.median([slant(m) for m in masks]))) > tuning.most_slant


def read_written_id(gray: np.ndarray, strip: Box, cells: list[np.ndarray], tess_digits: list[str | None],
                    sheet: SheetRead, tuning: WrittenIdTuning = WRITTEN_ID) -> None:
    """A Konami ID written by hand, one digit per box (`written_id_glyphs`; a box where none is
    found: the largest glyph of its own crop, `cells`, rules painted out): each box's digit the
    likeliest by the hand-digit reader and Tesseract together, reported with its confidence
    (the product of the digits') and always as a review item (`konami-id-unclear`), so no
    station takes it for a read it can trust: the judge confirms it against the player's card."""
    from scanner.ocr.hand_digits import id_digit_probs
    masks = []
    for mask, cell in zip(written_id_glyphs(gray, strip, len(tess_digits), tuning), cells):
        if mask is None:
            mask = _largest_glyph(cell)
        if mask is None:
            return  # an empty box: no ID to propose
        masks.append(mask)
    if upright_hand(masks, tuning):
        masks = [deslanted(m) for m in masks]
    out, probs = [], []
    for mask, td in zip(masks, tess_digits):
        p = id_digit_probs(mask, tuning.leans)
        if td is not None:
            p = (1 - tuning.tesseract_weight) * p
            p[int(td)] += tuning.tesseract_weight
        best = int(np.argmax(p))
        out.append(str(best))
        probs.append(float(p[best]))
    kid = "".join(out)
    confidence = float(np.prod(probs))
    sheet.konami_id = kid
    sheet.konami_id_confidence = round(confidence, 3)
    doubtful = [i + 1 for i, p in enumerate(probs) if p < tuning.unsure_digit]
    sheet.review.append(ReviewFlag(
        section=None, reason=Reason.KONAMI_ID_UNCLEAR,
        detail=f"손으로 쓴 코나미 ID를 {kid}로 읽음 (확신도 {confidence:.2f}"
               + (f", 불확실한 칸: {', '.join(map(str, doubtful))}번째" if doubtful else "")
               + ") — 선수의 카드와 대조해 확인"))


SURNAMES = ("김이박최정강조윤장임한오서신권황안송류전홍고문양손배백허유남심노하곽성차주우구민진지엄채원천방공현함변염"
            "여추도소석선설마길연위표명기반왕금옥육인맹제모탁국어은편용예경봉사부가복태목형피두감호")
"""Korean surnames, the common ones first: a written surname is read as the nearest of these."""
GIVEN_SYLLABLES = ("민서준도윤하지현우수연예주은유성재승정영진혁호채아원시건동태훈경상희혜다나가소리린빈온율찬석환규용철종"
                   "한인선미숙자순옥남기광명병세형범무효근식창길봉덕만국대일이해보의람슬별솔결담새봄빛늘")
"""Syllables Korean given names are mostly made of: a written syllable read as none of these (a
hand's 연 read 얻, 윤 read 옴) is read as the nearest of them."""
NAME_READ_SCALES = (1.5, 1.1, 0.8)
"""Scales a written name box is read at (Tesseract reads each hand differently at each)."""


def _name_reads(img: np.ndarray, tess: Tesseract) -> list[tuple[str, float]]:
    reads = []
    for f in NAME_READ_SCALES:
        got = tess.read(cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC if f > 1 else cv2.INTER_AREA),
                        lang="kor", psm=7)
        text = "".join(ch for ch in got.text if "가" <= ch <= "힣")
        if text:
            reads.append((text, got.confidence))
    return reads


def _vote(reads: list[tuple[str, float]]) -> tuple[str, float]:
    """The text most reads give (ties: the more confident), and the share of reads giving it ×
    their mean confidence."""
    if not reads:
        return "", 0.0
    tally: dict[str, list[float]] = {}
    for text, conf in reads:
        tally.setdefault(text, []).append(conf)
    text = max(tally, key=lambda t: (len(tally[t]), float(np.mean(tally[t]))))
    return text, len(tally[text]) / len(NAME_READ_SCALES) * float(np.mean(tally[text]))


def _surname(reads: list[tuple[str, float]]) -> tuple[str, float]:
    """A written surname: the read's first syllable snapped to the nearest known surname."""
    text, conf = _vote(reads)
    if not text:
        return "", 0.0
    head = text[0]
    if head in SURNAMES:
        return head, conf
    return _nearest(head, SURNAMES), conf * HEADER.snapped_surname


NAME_RISE = 0.4
"""Of a name box's height, taken above it: a written name rises over the box's top rule…"""
NAME_SINK = 0.15
"""…and this much below it."""
NAME_TOUCH = 0.07
"""Ink wholly over the top rule, ending this share of the box's height above it or nearer, and
over ink kept, is a syllable's part cut off by the rule. (0.15 kept the foot of the writing in
the box above, a given name's stroke over the surname, and the print over the given name, its
x-high letters: of 48 names on tuning sets 3502-3508, 24 read right then, 29 at 0.07 or 0.)"""
NAME_SLIVER_PX = 3
"""Ink at most this many pixels high left by the rules (a photo's dashed rule) is no writing."""
NAME_BRIDGE_PX = 7
"""Pixels of a painted rule's gap bridged down a stroke that crosses it."""


NAME_PALE_GAIN = 2.0
"""A name box where no writing is found is looked at again with the ink's darkness over the paper
(its local background) multiplied by this: a pale pen (light blue, little pressure) stays over
the ink level of the rules' black, and the name was lost."""


def _darkened(src: np.ndarray, gain: float) -> np.ndarray:
    """The crop with every pixel's darkness under its local paper multiplied by `gain`."""
    g = src.astype(np.float32)
    k = max(3, (min(g.shape) // 2) | 1)
    bg = cv2.GaussianBlur(cv2.dilate(g, np.ones((5, 5), np.uint8)), (k, k), 0)
    return (PAPER - np.clip((bg - g) * gain, 0, PAPER)).astype(np.uint8)


@dataclass(frozen=True)
class PaleInkTuning:
    """A name written in a pale pen (light blue, little pressure) is darkened before its ink is cut:
    at the rules' ink level its strokes broke into bits and most of such names were misread."""

    stroke_darkness: float = 20.0
    """Pixels this much darker (grey levels) than their local paper are a stroke's…"""
    core_share: float = 90.0
    """…and this percentile of those strokes' darkness is the pen's core darkness…"""
    wanted: float = 150.0
    """…which is darkened to this (on the tuning sets' photos the dark pens' ≈ 120-150, the light
    blue ones' 60-85; of tuning sets 3502-3504's 20 names, 12 read right at 150, 8 at 100 and
    as before)…"""
    most_gain: float = 3.0
    """…by at most this much (a box holding nothing but paper grain is not made ink; not tuned)."""


PALE_INK = PaleInkTuning()


def _pale_gain(src: np.ndarray, tuning: PaleInkTuning = PALE_INK) -> float:
    """How much the crop's darkness under its paper is multiplied by for its pen's strokes to be
    as dark as a dark pen's (1: dark enough already). The box's rules are painted out first:
    their black would say every pen is dark."""
    if min(src.shape[:2]) < MIN_CELL_PX:
        return 1.0
    region = without_lines(src).astype(np.float32)
    k = max(3, (min(region.shape) // 2) | 1)
    bg = cv2.GaussianBlur(cv2.dilate(region, np.ones((5, 5), np.uint8)), (k, k), 0)
    dark = (bg - region)[region != PAPER]
    strokes = dark[dark > tuning.stroke_darkness]
    if strokes.size == 0:
        return 1.0
    core = float(np.percentile(strokes, tuning.core_share))
    return float(np.clip(tuning.wanted / max(core, 1e-6), 1.0, tuning.most_gain))


def written_name_ink(gray: np.ndarray, box: Box, gain: float = 1.0) -> np.ndarray | None:
    """A name box's writing, cut with a margin over the box (its rules painted out, the strokes
    across them bridged): a syllable that rises over the top rule (a 황's ㅎ, a 류's ㄹ) cut at
    the rule was read as another (황 → 설, 류 → 조). The ink in the box's rows is kept, with the
    parts of its syllables just over the rule; not the field above's writing nor the print below."""
    up, down = int(round(NAME_RISE * box.h)), int(round(NAME_SINK * box.h))
    y0, y1 = max(0, box.y0 - up), min(gray.shape[0], box.y1 + down)
    x0, x1 = max(0, box.x0 + 2), min(gray.shape[1], box.x1 - 2)
    if y1 - y0 < MIN_CELL_PX or x1 - x0 < MIN_CELL_PX:
        return None
    if gain == 1:  # (measured inside the box: over it stands the print of the field above)
        gain = _pale_gain(gray[box.y0:box.y1, x0:x1])
    src = gray[y0:y1, x0:x1] if gain == 1 else _darkened(gray[y0:y1, x0:x1], gain)
    region = without_lines(src)
    painted = (region != src) & (src < INK_RULE)
    ink = (region < INK_RULE).astype(np.uint8)
    bridged = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((NAME_BRIDGE_PX, 1), np.uint8))
    fill = (bridged > 0) & (ink == 0) & cv2.dilate(painted.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    region[fill] = src[fill]
    ink = (region < INK_RULE).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    top, foot = box.y0 - y0, box.y1 - y0
    cy, ch = stats[:, cv2.CC_STAT_TOP], stats[:, cv2.CC_STAT_HEIGHT]
    cx, cw = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_WIDTH]
    writing = ch > NAME_SLIVER_PX
    writing[0] = False
    keep = writing & (cy < foot) & (cy + ch > top)
    for i in np.flatnonzero(writing & ~keep):
        touching = top - NAME_TOUCH * box.h <= cy[i] + ch[i] <= top
        keep[i] = touching and bool(np.any(keep & (cx < cx[i] + cw[i]) & (cx + cw > cx[i])))
    region[~keep[lab]] = PAPER
    got = trim_to_ink(region)
    return written_name_ink(gray, box, NAME_PALE_GAIN) if got is None and gain < NAME_PALE_GAIN else got


def _nearest(ch: str, among: str) -> str:
    from card_db.names import jamo
    from rapidfuzz.distance import Levenshtein
    return min(among, key=lambda s: (Levenshtein.distance(jamo(s), jamo(ch)), among.index(s)))


def _given_name(reads: list[tuple[str, float]]) -> tuple[str, float]:
    """A written given name: each read's syllables snapped to the nearest name syllables
    (`GIVEN_SYLLABLES`), then voted; a name made of snapped syllables keeps
    `HEADER.snapped_surname` of its confidence (it is a guess at the hand, for the judge)."""
    snapped = [("".join(ch if ch in GIVEN_SYLLABLES else _nearest(ch, GIVEN_SYLLABLES) for ch in text), conf)
               for text, conf in reads]
    text, conf = _vote(snapped)
    if text and text not in {t for t, _ in reads}:
        conf *= HEADER.snapped_surname
    return text, conf


@dataclass(frozen=True)
class WrittenNameTuning:
    """How a name box's writing is cut into syllables and each read against the syllables names
    are made of (`hand_syllables`), with Tesseract's reads beside."""

    count_widths: tuple[float, float, float] = (0.9, 1.5, 2.4)
    """A given name of one, two, three syllables is written about this many times as wide as
    high (the tuning faces: one 0.87-1.31, two 0.68-1.85)…"""
    count_surname: float = 0.5
    """…its width over the surname's (one syllable: a hand's own syllable width) counting this
    much beside its aspect (a hand that writes tall or wide writes both boxes so)…"""
    count_shape: float = 0.2
    """…and the width's misfit (log ratio, squared) weighed this much against how like name
    syllables the cut's pieces are (`hand_syllables.best_likeness`, mean over the pieces): by the
    aspect alone, 7 of 48 tuning names were cut into too many or too few syllables; so, 3."""
    cut_window: float = 0.35
    """The cut between two syllables is the column of least ink within this share of a
    syllable's width around its even place."""
    tesseract_weight: float = 0.3
    """Weight of Tesseract's reads of the box (a read of as many syllables gives its syllable at
    its place this much, shared among the scales) beside the drawings' odds."""
    leans: tuple[float, ...] = (0.15,)
    """Each syllable is also read leaned by ± these (x shift per row; `hand_digits.sheared`) and
    its odds averaged (as the ID's digits are): a hand leaning unlike every drawing and the
    network's training is read as it would be a little more upright or italic (tuning sets
    3502-3508, the face itself left out of the drawings: 16 → 18 of 37 names)."""
    prior_power: float = 1.0
    """How much a syllable's commonness weighs (0: not at all; 1 named 23 of 47 names on the
    tuning and older held-out sets instead of 21, 7 of 20 held-out instead of 6)…"""
    prior_rank: float = 20.0
    """…a syllable this far down the list counts 2 ** -prior_power as much as the first."""


WRITTEN_NAME = WrittenNameTuning()


def syllable_count(ink: np.ndarray, surname_w: int | None = None, tuning: WrittenNameTuning = WRITTEN_NAME) -> int:
    """How many syllables (1-3) a given name's ink (bool mask, cropped) holds: the cut whose
    pieces look most like name syllables, less how far the ink's width is from that many
    syllables' (by its aspect and, given the surname's ink width `surname_w`, beside it)."""
    from scanner.ocr.hand_syllables import best_likeness
    x = np.log(ink.shape[1] / max(1, ink.shape[0]))
    centres = np.log(np.array(tuning.count_widths))
    if surname_w:
        x += tuning.count_surname * np.log(ink.shape[1] / surname_w)
        centres = centres * (1 + tuning.count_surname)
    scores = [float(np.mean([best_likeness(p, GIVEN_SYLLABLES) for p in split_syllables(ink, n, tuning)]))
              - tuning.count_shape * float(x - c) ** 2 for n, c in zip((1, 2, 3), centres)]
    return int(np.argmax(scores)) + 1


def split_syllables(ink: np.ndarray, n: int, tuning: WrittenNameTuning = WRITTEN_NAME) -> list[np.ndarray]:
    """The ink cut into `n` syllables at the columns of least ink near their even places, each
    cropped to its ink (an empty part: the whole width's share, for the odds to say little)."""
    from scanner.ocr.hand_syllables import least_ink_cuts
    w = ink.shape[1]
    cuts = least_ink_cuts(ink, [(k * w / n, tuning.cut_window * w / n) for k in range(1, n)])
    parts = []
    for a, b in zip(cuts, cuts[1:]):
        part = ink[:, a:b]
        ys, xs = np.nonzero(part)
        parts.append(part[ys.min():ys.max() + 1, xs.min():xs.max() + 1] if len(xs) else part)
    return parts


def _with_prior(odds: dict[str, float], among: str, tuning: WrittenNameTuning) -> dict[str, float]:
    """The odds weighed by how common each syllable is (`among` lists the common ones first): a
    syllable at rank r counts (1 + r / prior_rank) ** -prior_power as much as the first."""
    if not odds or tuning.prior_power == 0:
        return odds
    w = {s: v * (1 + among.index(s) / tuning.prior_rank) ** -tuning.prior_power for s, v in odds.items()}
    total = sum(w.values())
    return {s: v / total for s, v in w.items()}


def _leaning_odds(part: np.ndarray, among: str, tuning: WrittenNameTuning) -> dict[str, float]:
    """`syllable_odds` of the piece as written and leaned by ± each of `tuning.leans`, averaged."""
    from scanner.ocr.hand_syllables import syllable_odds
    shapes = [part] + [sheared(part, s * sign) for s in tuning.leans for sign in (1, -1)]
    each = [syllable_odds(m, among) for m in shapes]
    return {s: float(np.mean([o.get(s, 0.0) for o in each])) for s in each[0]}


def _written_part(img: np.ndarray, key: str, reads: list[tuple[str, float]],
                  tuning: WrittenNameTuning = WRITTEN_NAME, surname_w: int | None = None) -> tuple[str, float]:
    """A surname or given name box's writing: each syllable the likeliest of the name syllables
    by its likeness to their drawings and Tesseract's reads together; the confidence the product
    of the syllables' odds. `surname_w`: the surname's ink width (a given name's syllable count)."""
    among = SURNAMES if key == "surname" else GIVEN_SYLLABLES
    ink = img < INK_RULE
    if not ink.any():
        return "", 0.0
    n = 1 if key == "surname" else syllable_count(ink, surname_w, tuning)
    text, conf = "", 1.0
    for i, part in enumerate(split_syllables(ink, n, tuning)):
        odds = _leaning_odds(part, among, tuning) if part.any() else {}
        odds = _with_prior(odds, among, tuning)
        p = {s: (1 - tuning.tesseract_weight) * v for s, v in odds.items()}
        for read, _ in reads:
            if len(read) == n:
                ch = read[i] if read[i] in among else _nearest(read[i], among)
                p[ch] = p.get(ch, 0.0) + tuning.tesseract_weight / len(NAME_READ_SCALES)
        if not p:
            return "", 0.0
        best = max(p, key=p.get)
        text += best
        conf *= p[best]
    return text, conf


def read_written_name(imgs: list[np.ndarray | None], keys: tuple[str, ...], tess: Tesseract,
                      sheet: SheetRead) -> None:
    """A player's name written by hand in the form's boxes (surname, given name): each box cut
    into syllables, each read against the syllables names are made of (`_written_part`), with
    Tesseract's reads at several scales; a single name box is read by Tesseract alone (voted).
    Reported with its confidence and always as a review item (`player-name-unclear`): the judge
    confirms it (a name read wrong is a wrong player)."""
    parts, confs = [], []
    surname_w = imgs[0].shape[1] if keys[0] == "surname" and imgs[0] is not None else None
    for img, key in zip(imgs, keys):
        if img is None:
            return
        reads = _name_reads(img, tess)
        part, conf = (_written_part(img, key, reads, surname_w=surname_w) if key in ("surname", "given_name")
                      else _vote(reads))
        if not part:
            return
        parts.append(part)
        confs.append(conf)
    name = "".join(parts)
    if not HANGUL_NAME.match(name):
        return
    confidence = round(float(np.prod(confs)), 3)
    sheet.player_name = name
    sheet.player_name_confidence = confidence
    sheet.review.append(ReviewFlag(section=None, reason=Reason.PLAYER_NAME_UNCLEAR,
                                   detail=f"손으로 쓴 선수 이름을 {name}(으)로 읽음 (확신도 {confidence:.2f}) — 확인 필요"))
