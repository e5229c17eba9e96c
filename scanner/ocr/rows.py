"""One table row → `RowRead`: strike and pen signs, the name (OCR + closed vocabulary), the count.

Every doubt becomes a flag on the row; the column-level checks (corrections, totals) add more.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from card_db.names import is_syllable
from scanner.ocr.corrections import row_pen_coloured, row_struck
from scanner.ocr.counts import isolate_row, read_count_cell, read_hand_count
from scanner.ocr.edge_bits import clear_border_lines, clear_count_bits, clear_edge_bits
from scanner.ocr.engine import Tesseract
from scanner.ocr.grid import Box, Grid, RowCells, Table
from scanner.ocr.hand_names import FuseParts, HandName, HandPage, read_hand_name
from scanner.ocr.ink import ink_share
from scanner.ocr.latin import LATIN, count_by_rendering, read_latin_name, small_count_by_two_readers
from scanner.ocr.marks import row_marks
from scanner.ocr.names import NameMatch, NameRead, Vocabulary, read_name, tesseract_image
from scanner.ocr.pen_names import needs_pen_reading
from scanner.ocr.page import PageImage
from scanner.ocr.thresholds import COUNT_ACCEPT, EMPTY_INK, SURE_COUNT
from scanner.ocr.verify import BLURS, NameRenderer, cell_name_ink, compare
from scanner.vocab import Reason

UPSCALE_TO = 48
"""Name cells are scaled so the row is about this many pixels high for Tesseract."""
TYPED_LIKENESS = 0.6
"""Likeness of a name's rendering and its cell above which the name is typed, not written
(the fixture pages fit their font at 0.74–0.95, as `verify.TRUSTED_FIT`)."""
LATIN_BLUR = 1.6
"""A name with no Hangul is compared with renderings blurred at most this much. A soft
photo's small Hangul needs the heaviest blur of `verify.BLURS` to fit; a few Latin letters,
simple strokes, blurred that much look like any hand's: a brush-written `Light Bringer Lucifer`
fit Barun Gothic blurred 2.4 at 0.64 (≤ 0.53 at 1.6) and, read exactly, stood unflagged on a
hand-filled form (seed 701), while typed Latin names fit their font at ≥ 0.70 at 1.6 (31 on
seeds 701, 1212, 9303; 0.64-0.70 written Latin names at most 0.53)."""


def _has_hangul(name: str) -> bool:
    return any(is_syllable(c) for c in name)


ROW_BAND_PAD = 0.5
"""Count cells are read from a band this many row heights taller above and below."""
BESIDE = (8, 5)
"""The end of the name cell a count may be written into: (pixels, name width ÷ this), the wider."""


@dataclass
class RowRead:
    """What one table row holds, before it becomes a `ReadLine`."""

    column: str
    row: int
    text: str
    text_conf: float
    match: NameMatch
    count: int | None
    count_conf: float
    count_detail: str
    struck_row: bool
    count_struck: bool
    handwritten: bool
    flags: list[str]
    count_height: float = 0.0
    """Ink height of the count glyph / row height (pen digits are taller than print)."""
    count_old: int | None = None
    """The struck old count, when the count was corrected."""
    pen_like: bool = False
    """The row's ink looks hand-written to `ocr_marks` (alone too weak a sign to flag it)."""
    count_odds: dict[int, float] = field(default_factory=dict)
    """A count written by hand: how likely each line count is (`counts.read_hand_count`);
    the column's written total may choose among them (`totals`)."""
    count_shape: np.ndarray | None = None
    """A count written by hand: its digit's `glyph_features` (`count_hand.page_odds`)."""
    name_certainty: float | None = None
    """A name written by hand: how likely its card is right (`hand_names.name_certainty`)."""
    name_agree: int = 0
    """A name written by hand: how many of its reads name its card as their own best."""
    name_reads: int = 0
    """A name written by hand: how many ways it was read (`hand_names.HAND_READS`)."""
    accepted: str = ""
    """A written line accepted without review, and on what evidence (`evidence.accept_on_evidence`)."""
    name_detail: str = ""
    """What the judge may want to know of the name's reading (a written name: its reads)."""
    name_attempt: str = ""
    """Which attempt decided the name (`NameRead.attempt`; `hand` for a name read as written by
    hand, `hand_names`)."""
    hand_parts: FuseParts | None = None
    """A name written by hand: what its reads' fusion weighed (`hand_names.FuseParts`)."""
    page_hand: str = ""
    """A written name whose card the page's own hand changed (`page_hand`): what it was."""
    pen_cell: tuple[np.ndarray, float] | None = None
    """A printed sheet's name cell whose card the printed reader doubted, and the scale it was
    read at: if the column shows it written by pen, it is read as a hand (`pen_names`), then dropped."""


@dataclass
class TableContext:
    """What every row of one table is read with."""

    grid: Grid
    page: PageImage
    table: Table
    column: str
    tess: Tesseract
    vocab: Vocabulary
    chroma: tuple[float, float]
    """Lab (a, b) of the page's printed ink (`corrections.ink_chroma`)."""
    hand_filled: bool = False
    """The layout is a form players may fill by hand: a name stands only when its rendering
    in a known font fits the cell (typed), else it is flagged 'handwritten'."""
    row_numbers: bool = True
    """The layout prints row numbers (`Layout.row_numbers`)."""
    hand_page: HandPage = field(default_factory=HandPage)
    """The page's hand (shared by its tables: how wide it writes, how many rows are written)."""
    open_box: bool = False
    """The table is an open box of an open-box form (`Layout.open_boxes`): its rows are lines
    found by their ink, their counts small print."""

    @property
    def presumed_hand(self) -> bool:
        """The form is being filled by hand: its first rows were all written (a form is typed or
        written as a whole, or typed in its first columns), so a row is taken for handwriting
        unless its first read, drawn in print, fits the cell (`typed_at_a_glance`)."""
        return (self.hand_filled and self.hand_page.written_rows >= PRESUME_HAND
                and self.hand_page.typed_rows == 0)


PRESUME_HAND = 2
"""Written rows, and no typed one, after which a form is presumed written by hand."""


def name_cells(grid: Grid, columns: list[str]) -> Iterator[tuple[str, np.ndarray, float]]:
    """(column, name cell as `read_row` crops it, its scale for Tesseract) of every row with ink
    in its name cell, the columns' first rows first (a sample of a few then spans the page, not
    one column a bad grid may have cut wrong), lazily: a caller may stop after a few."""
    tables = [(c, t.rows) for c in columns if (t := grid.by_kind(c)) is not None]
    for i in range(max((len(rows) for _, rows in tables), default=0)):
        for column, rows in tables:
            if i < len(rows):
                img = clear_edge_bits(rows[i].name.crop(grid.clean, inset=3))
                if ink_share(img) >= EMPTY_INK:
                    yield column, img, UPSCALE_TO / max(rows[i].name.h, 1)


CELL_EDGE = 0.15
"""The band along a cell's edges (share of its height, and of a count cell's width) where
the rules' bits lie: a name or a digit always has ink inside it (`inner_ink`)."""


def inner_ink(cell: np.ndarray, across: bool = True) -> float:
    """`ink_share` of the cell without its top and bottom `CELL_EDGE` (and its sides too,
    `across`: a name may start at its cell's left end, a count digit stands in the middle)."""
    h, w = cell.shape[:2]
    dy = max(1, int(round(CELL_EDGE * h)))
    dx = max(1, int(round(CELL_EDGE * w))) if across else 0
    return ink_share(cell[dy:h - dy, dx:w - dx])


def reads_own_number(text: str, row: int) -> bool:
    """The name cell read is this row's printed number and nothing else (`24`, `24.`)."""
    return "".join(text.split()).rstrip(".") == str(row)


def read_row(ctx: TableContext, cells: RowCells) -> RowRead | None:
    """The row's line, or None for an empty row."""
    grid, page = ctx.grid, ctx.page
    name_img = cells.name.crop(grid.clean, inset=3)
    # Bent, blurred row rules (a photographed form, a warped or small soft photo) leave dashes
    # at the cell's edges: kept, they stretch the name's ink box (rendering check, row number cut).
    name_img = clear_edge_bits(name_img)
    count_img = cells.count.crop(grid.clean, inset=3)
    name_ink, count_ink = ink_share(name_img), ink_share(count_img)
    if name_ink < EMPTY_INK and count_ink < EMPTY_INK:
        return None
    if inner_ink(name_img, across=False) < EMPTY_INK and inner_ink(count_img) < EMPTY_INK:
        # Ink only along the cells' edges: bits of the rules round an empty row (a small, soft
        # photo whose faint print was darkened keeps a dashed pixel row of each), no writing.
        return None
    flags: list[str] = []
    row_clean = cells.box.crop(grid.clean, inset=3)
    marks = row_marks(row_clean, cells.box.crop(page.color, inset=3))
    # Two strike detectors (Hough in ocr_marks, a long morphological run here): both → the
    # line is struck and dropped; only one → kept and flagged, never silently dropped.
    simple_strike = row_struck(row_clean)
    struck = marks.struck and simple_strike
    if marks.struck != simple_strike:
        flags.append(Reason.POSSIBLE_STRIKE)
    handwritten = row_pen_coloured(cells.box.crop(page.color, inset=3), row_clean, ctx.chroma)
    # Name: OCR, closed-vocabulary match, checked by rendering the candidates (ocr_names);
    # Latin script: `eng` and Latin print fonts (latin); written by hand: read several ways and
    # fused (hand_names).
    scale = UPSCALE_TO / max(cells.name.h, 1)
    hand: HandName | None = None
    reader = read_latin_name if ctx.vocab.script == LATIN else read_name
    first = glance(name_img, ctx, scale) if ctx.presumed_hand else None
    if first is not None and not typed_at_a_glance(name_img, first.match, ctx.vocab):
        hand = read_hand_name(name_img, ctx.column, ctx.tess, ctx.vocab, scale, first=first, page=ctx.hand_page)
        name_read = hand.read
    else:
        name_read = reader(name_img, ctx.column, ctx.tess, ctx.vocab, scale=scale,
                           numbers_in_cell=not ctx.table.number_column, row_numbers=ctx.row_numbers)
    if count_ink < EMPTY_INK and (name_read.row_number_only
                                  or (ctx.row_numbers and reads_own_number(name_read.text, cells.row))):
        # An empty row that only carries its printed number (by its shape, or read as this
        # row's number: 6.5 pt digits beside 8 pt names are nearly as high as the names).
        return None
    text, conf, match = name_read.text, name_read.confidence, name_read.match
    flags.extend(name_read.flags)
    if marks.struck and not simple_strike and not name_read.flags and print_fits(name_img, match, ctx.vocab):
        # Only the Hough detector saw a strike, and the name, drawn in the page's font, fits
        # the cell as it is: a pen line would be ink the rendering lacks. What Hough chained
        # was the print's own aligned bars (bold dense Hangul: the ㅡ of 크, 트, 프).
        flags.remove(Reason.POSSIBLE_STRIKE)
    # On a form filled by hand, a name that does not fit a font is written: flagged as such even
    # when the name read has flags of its own (the judge must know it is handwriting).
    handwritten_name = ctx.hand_filled and (hand is not None or not looks_typed(name_img, match, ctx.vocab))
    if handwritten_name and hand is None:
        hand = read_hand_name(name_img, ctx.column, ctx.tess, ctx.vocab, scale, first=name_read,
                              page=ctx.hand_page)
        name_read = hand.read
        text, conf, match = name_read.text, name_read.confidence, name_read.match
        flags = [f for f in flags if f not in NAME_FLAGS] + name_read.flags
    if ctx.hand_filled:
        if handwritten_name:
            ctx.hand_page.written_rows += 1
        else:
            ctx.hand_page.typed_rows += 1
    # Count: read from a band taller than the row, so a pen digit poking out stays whole.
    count_band = row_band(grid.clean, cells.count, cells.box, rules=grid.rule_mask, stacked=ctx.hand_filled)
    if ctx.hand_filled:
        count_band = RowBand(clear_count_bits(count_band.image), count_band.row_h)
    beside_box = Box(max(cells.name.x0, cells.name.x1 - max(BESIDE[0], cells.name.w // BESIDE[1])), cells.name.y0,
                     cells.name.x1, cells.name.y1)
    beside_band = row_band(grid.clean, beside_box, cells.box, rules=grid.rule_mask)
    odds: dict[int, float] = {}
    shape = None
    if ctx.hand_filled and (handwritten or handwritten_name):
        # A form filled by hand: its counts are written too, and read as line counts (1-3).
        written = read_hand_count(count_band.image, beside_band.image)
        count, count_conf, detail, count_struck, odds = (written.value, written.confidence, written.detail,
                                                         written.struck, written.odds)
        shape = written.shape
        count_h = written.height * count_band.image.shape[0] / max(count_band.row_h, 1)
    else:
        count, count_conf, detail, count_struck, count_h = read_count(count_band, beside_band,
                                                                      whole=ctx.hand_filled)
    if not ctx.hand_filled and (count is None or count_conf < COUNT_ACCEPT):
        count, count_conf, detail, count_struck, count_h = recount_without_rule_bits(
            count_band, beside_band, (count, count_conf, detail, count_struck, count_h))
    if ctx.vocab.script == LATIN and count is not None and count_conf < SURE_COUNT and not count_struck:
        confirmed = count_by_rendering(count_band.image, count, detail, ctx.vocab)
        if confirmed:
            count_conf, detail = SURE_COUNT, f"{detail}, {confirmed}"  # it stands without a total
        elif ctx.open_box and detail.startswith("digit "):
            # 7 pt counts of an open-box form: two readers together (`small_count_by_two_readers`)
            confirmed = small_count_by_two_readers(count_band.image, count, detail, ctx.tess, ctx.vocab)
            if confirmed:
                count_conf, detail = SURE_COUNT, f"{detail}, {confirmed}"
    if (detail == "empty" and (name_read.row_number_only or (not text.strip() and name_ink < EMPTY_INK))
            and not (struck or handwritten or marks.struck or simple_strike)):
        # A blank row whose cells kept slivers of bent rules: both readers see nothing (but
        # the printed row number).
        return None
    if count is None or count_conf < COUNT_ACCEPT:
        flags.append(Reason.COUNT_UNCLEAR)
    if count_struck:
        flags.append(Reason.COUNT_CORRECTED)
    if struck:
        flags.append(Reason.STRUCK_THROUGH)
    if handwritten or handwritten_name:
        flags.append(Reason.HANDWRITTEN)
        handwritten = True
    # a name that may be written by pen on a printed sheet (whether it is, the column tells:
    # `corrections.mark_handwritten_after_strike`): kept for its reading as a hand (`pen_names`)
    pen_cell = (name_img, scale) if (hand is None and not ctx.hand_filled and not struck
                                     and needs_pen_reading(name_read)) else None
    return RowRead(column=ctx.column, row=cells.row, text=text, text_conf=conf, match=match, count=count,
                   count_conf=count_conf, count_detail=detail, struck_row=struck,
                   count_struck=count_struck, handwritten=handwritten, flags=flags,
                   count_height=count_h, count_old=count_old_digit(detail),
                   pen_like=marks.handwriting, count_odds=odds, count_shape=shape,
                   name_certainty=hand.certainty if hand is not None else None,
                   name_agree=hand.agree if hand is not None else 0,
                   name_reads=len(hand.texts) if hand is not None else 0,
                   name_detail=hand.read.detail if hand is not None else "",
                   name_attempt=HAND_ATTEMPT if hand is not None else name_read.attempt,
                   hand_parts=hand.parts if hand is not None else None, pen_cell=pen_cell)


HAND_ATTEMPT = "hand"
"""`RowRead.name_attempt` of a name read as written by hand (`hand_names.read_hand_name`)."""


NAME_FLAGS = frozenset({Reason.UNRESOLVED_NAME, Reason.UNCERTAIN_NAME, Reason.AMBIGUOUS_NAME})
"""The name reader's own flags (replaced when a written name is read again, `hand_names`)."""


def glance(name_img: np.ndarray, ctx: TableContext, scale: float) -> NameRead | None:
    """One plain read of a name cell and its best card (no rendering check); None when the cell
    has no ink to read."""
    img = tesseract_image(name_img, scale)
    if img is None:
        return None
    got = ctx.tess.read(img, lang="kor", psm=7)
    match = ctx.vocab.match(got.text, ctx.column) if got.text.strip() else NameMatch(None, "", 0.0, 0.0)
    return NameRead(got.text, got.confidence, match, [])


def typed_at_a_glance(name_img: np.ndarray, match: NameMatch, vocab: Vocabulary) -> bool:
    """The card a plain read names, drawn in the page's font (any known font before it is
    known), fits the cell as print does (`TYPED_LIKENESS`): a typed row in a column presumed
    written goes the typed way (read and checked in full)."""
    if match.card_id is None or not vocab.renderer.usable:
        return False
    ink = cell_name_ink(name_img)
    if ink is None:
        return False
    return vocab.renderer.fits(ink, match.name, TYPED_LIKENESS)


STRIKE_FREE_FIT = 0.75
"""A name whose rendering fits its cell this well (R_CONFIRM) carries no pen line: on the
generated and fixture corrected photos every struck name fitted below 0 (it was read with a
flag, too), while the printed rows Hough took for struck were read exactly."""


def print_fits(name_img: np.ndarray, match: NameMatch, vocab: Vocabulary) -> bool:
    """The matched name, drawn in the page's font (any known font before the page's is known)
    at the best of `verify.BLURS` (the page's blur estimate may lag a soft photo), fits the
    name cell's ink: a pen line across it fits no blur of any font (−0.4 against ≥ 0.84)."""
    r = vocab.renderer
    if match.card_id is None or not r.usable or not r.trusted:
        return False
    ink = cell_name_ink(name_img)
    if ink is None:
        return False
    for fam in [r.family] if r.family is not None else list(r.families):
        rendered = r.rendered(match.name, fam)
        if rendered is not None and any(compare(ink, r.as_printed(rendered, ink), blur=b, cell=r.windows(ink),
                                                at_least=STRIKE_FREE_FIT).score >= STRIKE_FREE_FIT
                                        for b in BLURS):
            return True
    return False


@dataclass
class RowBand:
    """A cell cut from a band taller than its row, with the row's own ink only."""

    image: np.ndarray
    row_h: int
    """Height of the row itself (the image may be taller: ink poking out)."""


def row_band(clean: np.ndarray, cell: Box, row: Box, inset: int = 3, rules: np.ndarray | None = None,
             stacked: bool = False) -> RowBand:
    """`rules`: the page's rule mask (what `clean` has painted out), for strokes crossing a rule;
    `stacked`: a form filled by hand (`counts.isolate_row`)."""
    pad = int(ROW_BAND_PAD * row.h)
    y0, y1 = max(0, row.y0 - pad), min(clean.shape[0], row.y1 + pad)
    xs = slice(cell.x0 + inset, cell.x1 - inset)
    band = clean[y0:y1, xs]
    painted = rules[y0:y1, xs] > 0 if rules is not None and rules.shape == clean.shape else None
    return RowBand(isolate_row(band, row.y0 + inset - y0, row.y1 - inset - y0, painted, stacked),
                   row.h - 2 * inset)


TYPED_CANDIDATES = 3
"""A name read with doubts is typed when one of its first candidates fits the cell this well."""


def looks_typed(name_img: np.ndarray, match: NameMatch, vocab: Vocabulary) -> bool:
    """The matched name (or one of the first candidates, when the read was unsure), drawn in
    the page's font (or any known font), fits the cell's ink: typed text. Handwriting never
    fits a font this well, and neither does a font decksheet does not have (that line is flagged
    too, never decided by a mismatching font)."""
    if not vocab.renderer.usable:
        return False
    names = list(dict.fromkeys(([match.name] if match.card_id is not None else [])
                               + [n for _, n, _ in match.candidates[:TYPED_CANDIDATES]]))
    if not names:
        return False
    ink = cell_name_ink(name_img)
    if ink is None:
        return False
    for name in names:
        if not _has_hangul(name) and vocab.renderer.blur > LATIN_BLUR:
            continue
        if vocab.renderer.fits(ink, name, TYPED_LIKENESS):
            return True
    return any(_fits_any_font(vocab.renderer, ink, name) for name in names)


def _fits_any_font(renderer: NameRenderer, ink: np.ndarray, name: str) -> bool:
    """The name drawn in any known family at any of `verify.BLURS` fits the cell. Whether a
    name is typed does not hang on the page's font and blur, which the renderer guesses from
    the Hangul of a few exact reads: before it knows them (the first rows) a small, soft photo
    needs a blurred rendering (`웜 카르타로스` fit 0.54 sharp); after, Nanum Square and Barun
    Gothic, alike in Hangul, are taken for each other, and a name in Latin letters then fits
    only its true font (`The Fallen & The Virtuous`: 0.82 Square, < 0.6 Barun Gothic).
    Handwriting fits no font at any blur (a name with no Hangul: at most `LATIN_BLUR`)."""
    blurs = BLURS if _has_hangul(name) else tuple(b for b in BLURS if b <= LATIN_BLUR)
    for fam in renderer.families:
        rendered = renderer.rendered(name, fam)
        if rendered is None:
            continue
        for blur in blurs:
            if blur == renderer.blur and renderer.family in (None, fam):
                continue  # `NameRenderer.likeness` compared it already
            if compare(ink, renderer.as_printed(rendered, ink), blur=blur, cell=renderer.windows(ink),
                       at_least=TYPED_LIKENESS).score >= TYPED_LIKENESS:
                return True
    return False


def read_count(count: RowBand, beside: RowBand,
               whole: bool = False) -> tuple[int | None, float, str, bool, float]:
    """(value, confidence, detail, struck, glyph height / row height) of a count cell; `whole`:
    a strike must run out past the whole digit (`counts.find_struck_glyphs`; the Konami form,
    whose serif 2 on a soft, blocky photo has a straight diagonal)."""
    got = read_count_cell(count.image, beside.image, whole=whole)
    height = got.height * count.image.shape[0] / max(count.row_h, 1)
    return got.value, got.confidence, got.detail, got.struck, height


def recount_without_rule_bits(count: RowBand, beside: RowBand, first: tuple[int | None, float, str, bool, float]
                              ) -> tuple[int | None, float, str, bool, float]:
    """A second look at an unsure count cell, with the rule bits at its edges cleared (as on the
    form: a border a warped photo leaves a few pixels inside the cell joins a digit, or reads
    as a strike). It stands only when it reads one clean digit surely; else the first read
    stays, with its doubt."""
    value, conf, detail, struck, height = read_count(
        RowBand(clear_count_bits(clear_border_lines(count.image)), count.row_h), beside)
    if value is None or struck or conf < SURE_COUNT or not detail.startswith("digit "):
        return first
    return value, conf, f"{detail}, rule bits cleared", struck, height


def count_old_digit(detail: str) -> int | None:
    """The struck digit named in a count read's detail ('struck [2] → new 3')."""
    m = re.match(r"struck \[(\d)\]", detail)
    return int(m.group(1)) if m else None
