"""Card names in Latin script on images (English sheets): Tesseract `eng`, the column's names in
the loaded Latin-script database, candidates drawn in Latin print fonts.

The Korean reader (`names`) is built around `kor`, which writes no Latin letter: an English
sheet read with it is junk matched against Korean names. When a Latin-script database is loaded
(`--card-db en-US.cdb`, alone or beside the Korean one), a page whose names `eng` reads as that
database's names is read here instead: `eng` reads the name, the closed vocabulary of the
column (its English names, `card_db.printed`) gives the candidates, and the rendering check of
`verify` (the same `decide`) draws them in the fonts English sheets are printed in (Helvetica
and Arial → Liberation Sans, Calibri → Carlito, Times → Liberation Serif, DejaVu Sans as
poppler's fallback) to confirm, veto or pick. A page of the Korean database only is never
looked at here: the Korean reader's answers do not change.
"""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import cv2
import numpy as np

from card_db.cdb import CardDatabase
from card_db.names import name_script
from card_db.printed import printed_names
from scanner.ocr.engine import OcrText, Tesseract
from scanner.ocr.fonts import find_font
from scanner.ocr.names import (NAMES, NameAttempt, NameCell, NameMatch, NameRead, Vocabulary, _columns_from,
                               _Columns, empty_read, looser_number_cut, name_flags, only_row_number,
                               read_by_attempts, tesseract_image, unresolved, unresolved_numbered,
                               verify_match, without_number_rule, without_row_number)
from scanner.ocr.thresholds import DECIMAL, INK_GLYPH, NAME_ACCEPT, NAME_GUESS
from scanner.ocr.verify import (FAR_GAP, R_FLOOR, R_MARGIN, NameRenderer, Verdict, cell_name_ink, compare,
                                ink_crop, ink_level, strip_rule_remnants)
from scanner.vocab import Reason

LATIN = "latin"
"""`card_db.names.name_script` of an English (or other Latin-script) name."""

LATIN_FAMILIES = {"Liberation Sans": "LiberationSans-Regular.ttf", "Carlito": "Carlito-Regular.ttf",
                  "DejaVu Sans": "DejaVuSans.ttf", "Liberation Serif": "LiberationSerif-Regular.ttf"}
"""The print fonts English sheets come in, as Debian ships them (fonts-liberation2,
fonts-crosextra-carlito, fonts-dejavu-core): metric twins of Helvetica/Arial (what reportlab,
pdf-lib and form fields print; pdfium draws Helvetica with its own look-alike), Calibri (Konami's
form, Word and Excel), DejaVu Sans (what poppler draws Helvetica in without Liberation) and
Times."""
LATIN_SPARES = {"NanumGothic": "NanumGothic.ttf", "NanumBarunGothic": "NanumBarunGothic.ttf",
                "NanumMyeongjo": "NanumMyeongjo.ttf", "NanumSquare": "NanumSquareR.ttf",
                "DejaVu Serif": "DejaVuSerif.ttf"}
"""Tried only on a page none of `LATIN_FAMILIES` fits (`NameRenderer.estimate_family`): the
Korean apps' fonts, whose Latin letters an English name printed from a Korean tool is set in."""

SCRIPT_SAMPLE = 12
"""Name cells read at most to tell whether a page's names are Latin script, when the loaded
databases hold names in Latin script and in another."""
SCRIPT_SURE = 6
"""Cells read as one script's names after which the sampling stops."""
LEADING_NUMBER = re.compile(r"^\s*\d{1,2}[\s.)]+(?=\S)")
"""A row number `eng` read before the name (`12 Dark Hole`; the sheets that print it inside
the name cell): the name is matched with and without it (`7 Colored Fish` keeps its 7)."""


@dataclass
class _LatinColumns:
    columns: _Columns
    printed: dict[int, str]


_BUILT: dict[int, tuple["weakref.ref[CardDatabase]", _LatinColumns]] = {}
"""Per-database Latin tables by id(db) (a cache, as `names._BUILT`)."""


def has_latin_names(db: CardDatabase) -> bool:
    """The loaded databases name enough cards in Latin script to read an English sheet."""
    return LATIN in db.names.scripts()


def latin_families() -> dict[str, Path]:
    return {fam: p for fam, fn in LATIN_FAMILIES.items() if (p := find_font(fn)) is not None}


def latin_spares() -> dict[str, Path]:
    core = latin_families()
    return {fam: p for fam, fn in LATIN_SPARES.items()
            if fam not in core and (p := find_font(fn)) is not None}


def _entries(db: CardDatabase, printed: dict[int, str]) -> Iterable[tuple[int, str, str]]:
    for cid, name in printed.items():
        card = db.cards.get(cid)
        if card is not None and not card.is_token:
            yield cid, name, "extra" if card.is_extra_deck else card.kind.value


def latin_vocabulary(db: CardDatabase) -> Vocabulary:
    """The columns' names in Latin script, with a renderer of Latin print fonts (one per page:
    it learns the page's font)."""
    ref, built = _BUILT.get(id(db), (None, None))
    if built is None or ref is None or ref() is not db:
        printed = printed_names(db, LATIN)
        built = _LatinColumns(_columns_from(_entries(db, printed)), printed)
        for k in [k for k, (r, _) in _BUILT.items() if r() is None]:
            del _BUILT[k]
        _BUILT[id(db)] = (weakref.ref(db), built)
    cols = built.columns
    return Vocabulary(by_column=cols.by_column, names=cols.names, namesakes=cols.namesakes,
                      renderer=NameRenderer(latin_families(), latin_spares(), latin=True),
                      cut_leftovers=cols.cut_leftovers, script=LATIN)


def page_vocabulary(db: CardDatabase, tess: Tesseract,
                    cells: Iterable[tuple[str, np.ndarray, float]]) -> Vocabulary:
    """The vocabulary (and so the name reader) for one page: the Korean one unless a Latin-script
    database is loaded and the page's names read as its names. `cells`: (column, name cell,
    scale) of the page's non-empty name cells, taken lazily (only a page that may be Latin
    script is sampled)."""
    if not has_latin_names(db):
        return Vocabulary.build(db)
    if db.names.scripts() == {LATIN}:
        return latin_vocabulary(db)
    latin, korean = latin_vocabulary(db), Vocabulary.build(db)
    sampled = latin_hits = korean_hits = 0
    for column, cell, scale in cells:
        img = tesseract_image(without_row_number(cell), scale)
        if img is None:
            continue
        sampled += 1
        # Each cell read both ways: a cell whose script is the other one reads as junk that
        # matches no name of the vocabulary at NAME_ACCEPT, in either direction.
        text = tess.read(img, lang="eng", psm=7).text
        latin_hits += bool(text) and _match(latin, text, column).score >= NAME_ACCEPT
        text = tess.read(img, lang="kor", psm=7).text
        korean_hits += bool(text) and korean.match(text, column).score >= NAME_ACCEPT
        if sampled >= SCRIPT_SAMPLE or max(latin_hits, korean_hits) >= SCRIPT_SURE:
            break
    # More cells read as English names than as Korean ones (a form fitted a row off gives
    # its printed headings and half rows first: few cells read as either).
    return latin if latin_hits > korean_hits else korean


def _match(vocab: Vocabulary, text: str, column: str, limit: int = NAMES.unsure_candidates) -> NameMatch:
    """The column's names nearest the read, with and without a leading row number."""
    best = vocab.match(text, column, limit=limit)
    bare = LEADING_NUMBER.sub("", text)
    if bare != text:
        other = vocab.match(bare, column, limit=limit)
        if other.score > best.score:
            best = other
    return best


def _as_cut(cell: NameCell, first: NameRead | None) -> NameRead:
    return _read_once(cell.image, cell.column, cell.tess, cell.vocab, cell.scale, cell.numbers_in_cell,
                      cell.row_numbers)


def _cut_attempt(cut_of: Callable[[NameCell], np.ndarray | None]
                 ) -> Callable[[NameCell, NameRead | None], NameRead | None]:
    """Read the cell again as `cut_of` cuts it: it decides when the cut leaves only a row number
    (an empty row), or when the read then resolves on its own to a card no other card's name
    cut short could be (`Vocabulary.may_be_cut_off`)."""
    def attempt(cell: NameCell, first: NameRead | None) -> NameRead | None:
        cut = cut_of(cell)
        if cut is None:
            return None
        if only_row_number(cut, cell.tuning) or tesseract_image(cut, cell.scale, cell.tuning) is None:
            return empty_read(row_number_only=True)
        again = _read_once(cut, cell.column, cell.tess, cell.vocab, cell.scale, numbers_in_cell=False,
                           row_numbers=cell.row_numbers)
        if (not again.flags and again.match.card_id is not None
                and not cell.vocab.may_be_cut_off(again.match.card_id, cell.column)):
            return again
        return None
    return attempt


LATIN_ATTEMPTS: tuple[NameAttempt, ...] = (
    NameAttempt("as-cut", _as_cut),
    NameAttempt("glued-number", _cut_attempt(lambda c: looser_number_cut(c.image, c.tuning)), unresolved_numbered),
    NameAttempt("number-rule", _cut_attempt(lambda c: without_number_rule(c.image, c.tuning)), unresolved),
)
"""The Latin reader's attempts (as `names.NAME_ATTEMPTS`): the cell as cut, then a read that
did not resolve again without a row number glued to it, then without a row-number rule the grid
missed; a later one decides only when it resolves on its own."""


def read_latin_name(cell: np.ndarray, column: str, tess: Tesseract, vocab: Vocabulary,
                    scale: float = 1.0, numbers_in_cell: bool = True, row_numbers: bool = True) -> NameRead:
    """Read one name cell of a Latin-script page by `LATIN_ATTEMPTS` (the arguments as
    `names.read_name`)."""
    return read_by_attempts(NameCell(cell, column, tess, vocab, scale, numbers_in_cell, row_numbers),
                            LATIN_ATTEMPTS)


def _read_once(cell: np.ndarray, column: str, tess: Tesseract, vocab: Vocabulary, scale: float,
               numbers_in_cell: bool, row_numbers: bool) -> NameRead:
    if numbers_in_cell:
        if only_row_number(cell):
            return empty_read(row_number_only=True)
        cell = without_row_number(cell)
    cell = without_far_marks(cell)
    upscaled = tesseract_image(cell, scale)
    if upscaled is None:
        return empty_read()
    got = tess.read(upscaled, lang="eng", psm=7, words=True)
    if not got.text.strip():
        got = tess.read(upscaled, lang="eng", psm=13)  # the raw-line mode has no layout to lose it in
    text, conf = got.text.strip(), got.confidence
    if row_numbers:  # (a number column the grid found may still leave the number in the cell)
        cell = without_number_word(cell, got, scale, lambda t: vocab.match(t, column).score)
    cell_ink = cell_name_ink(cell)
    if (row_numbers and re.fullmatch(r"[0-9]{1,2}", text.replace(" ", "")) and cell_ink is not None
            and cell_ink.shape[0] < NAMES.row_number_height * cell.shape[0]):
        return empty_read(row_number_only=True, text=text, confidence=conf)
    if not text or name_script(text) != LATIN:
        return NameRead(text, conf, NameMatch(None, "", 0.0, 0.0), [Reason.UNRESOLVED_NAME], attempt="eng")
    match = _match(vocab, text, column)
    # A rendering tie with a near name stays flagged: unlike `kor`'s, `eng`'s slips between
    # near names (`Kuribon` for `Kuriboh`, h/n at 15 px) repeat at other scales, so a second
    # read is no second opinion.
    verdict = verify_match(match, cell_ink, column, vocab, read=text) if match.card_id is not None else None
    match, flags, detail = name_flags(match, verdict, text, cell_ink, column, vocab, learn_beside_rivals=True)
    if flags and verdict is not None:
        match = rendering_proposal(match, verdict, vocab)
    return NameRead(text, conf, match, flags, verdict, detail, attempt="eng")


def rendering_proposal(match: NameMatch, verdict: Verdict, vocab: Vocabulary) -> NameMatch:
    """The card a flagged line proposes: the OCR's best match, or the candidate whose rendering
    fits the cell better by `verify.R_MARGIN` (at least `verify.R_FLOOR`): when `eng` garbles a
    small or soft name (`Gogoge Gotem`), the drawing of the printed name still fits best. The
    line stays flagged; only the judge's first suggestion changes."""
    scores = verdict.scores
    if not scores or match.card_id is None:
        return match
    top = max(scores, key=scores.get)
    if top == match.card_id or scores[top] < R_FLOOR or scores[top] < scores.get(match.card_id, -1.0) + R_MARGIN:
        return match
    ocr = {c: s for c, _, s in match.candidates}
    first = [(top, vocab.names[top], ocr.get(top, 0.0))]
    score = max(ocr.get(top, 0.0), NAME_GUESS)  # proposed (`lines.to_read_line` proposes from NAME_GUESS)
    return NameMatch(top, vocab.names[top], score, score - max((s for c, s in ocr.items() if c != top), default=0.0),
                     first + [c for c in match.candidates if c[0] != top])


NUMBER_WORD = re.compile(r"\d{1,2}[.)]?")
"""A first word `eng` read that is a printed row number (`3`, `12.`)."""


def without_number_word(cell: np.ndarray, got: OcrText, scale: float, score) -> np.ndarray:
    """The cell with a row number printed before the name painted out, where `eng` read it as a
    word of its own (`3 Performapal Odd-Eyes Seer`): a 6 pt number beside a 9 pt Latin name
    reaches as high as the name's lowercase letters, so `without_row_number`'s height test
    (made for Hangul) keeps it, and the rendering check would then compare the name with ink
    it does not have. Cut only when the read matches better without that word (`score`:
    the read's best match score) — `7 Colored Fish` keeps its 7."""
    words = got.words
    if len(words) < 2 or not NUMBER_WORD.fullmatch(words[0][0]):
        return cell
    rest = got.text.strip()[len(words[0][0]):].strip()
    if score(rest) <= score(got.text):
        return cell
    ys, xs = np.nonzero(cell < INK_GLYPH)  # where `names.tesseract_image` cut the cell
    if xs.size == 0:
        return cell
    s = scale if scale > NAMES.upscale_from else 1.0  # as `names.tesseract_image` cut and scaled it
    cut = int(xs.min() + words[1][2][0] / s - NAMES.tesseract_pad) - 1
    if cut <= xs.min():
        return cell
    out = cell.copy()
    out[:, :cut] = 255
    return out


def without_far_marks(cell: np.ndarray) -> np.ndarray:
    """The cell with the ink past the printed name painted out: past the first blank run wider
    than `verify.FAR_GAP` ink heights (as `verify.cell_name_ink` cuts the name for the rendering
    check), a mark is no part of the name (a points column's `0` the cell reaches into, a pen
    mark), and `eng` would read it into the name (`Shaddoll Beast lo`)."""
    ink = strip_rule_remnants((cell < ink_level(cell)).astype(np.uint8)).astype(bool)
    rows = np.flatnonzero(ink.any(axis=1))
    if rows.size == 0:
        return cell
    h = rows[-1] + 1 - rows[0]
    cols = ink.any(axis=0)
    start = int(np.argmax(cols))
    gap = 0
    for x in range(start, cols.size):
        if cols[x]:
            if gap > FAR_GAP * h and x - start > h:
                out = cell.copy()
                out[:, x - gap:] = 255
                return out
            gap = 0
        else:
            gap += 1
    return cell


COUNT_FIT = 0.8
"""A printed count the digit templates are unsure of (DejaVu Sans's `1`, with its foot, reads
at 0.5) stands when the digit drawn in the page's font fits its ink at least this well…"""
COUNT_LEAD = 0.1
"""…and this much better than any other digit drawn the same way."""


def count_by_rendering(cell: np.ndarray, value: int, detail: str, vocab: Vocabulary) -> str:
    """Why an unsure printed count `value` stands (empty: it does not): the count cell holds one
    glyph (`detail` of a single digit read) and, drawn in the page's Latin font (known from its
    names), `value` fits it clearly best among the ten digits. English sheets are typed in fonts
    the digit templates (Korean sheets' fonts and pens) barely know."""
    r = vocab.renderer
    if not detail.startswith("digit ") or not r.usable or not r.trusted or not 0 <= value < DECIMAL:
        return ""
    ink = ink_crop(cell)
    if ink is None:
        return ""
    # The page's font; before it is known (the first rows), the font `value` fits best.
    best_fit: tuple[float, float, str] | None = None
    for fam in [r.family] if r.family else list(r.families):
        scores = {}
        for d in range(DECIMAL):
            drawn = r.rendered(str(d), fam)
            scores[d] = compare(ink, drawn, blur=r.blur).score if drawn is not None else -1.0
        lead = scores[value] - max(v for d, v in scores.items() if d != value)
        if best_fit is None or scores[value] > best_fit[0]:
            best_fit = (scores[value], lead, fam)
    if best_fit is None or best_fit[0] < COUNT_FIT or best_fit[1] < COUNT_LEAD:
        return ""
    fit, lead, fam = best_fit
    return f"drawn in {fam}: {fit:.2f}, next digit {fit - lead:.2f}"


SMALL_COUNT_FIT = 0.75
SMALL_COUNT_LEAD = 0.05
"""A small printed count (7 pt: a digit ≈ 15 px high at 200 dpi) stands by two readers together:
drawn in the page's font it fits at least this well and best of the ten digits by this much, and
Tesseract `eng` reads the same digit alone. (The lines of open-box forms: their 7 pt `2` fits
0.78–0.84 with a lead of 0.09–0.13 over `3`, under `count_by_rendering`'s bar alone.)"""
SMALL_COUNT_TEMPLATE = 0.33
"""…or its digit template at most this far (the 7 pt `1`s of open-box forms: 0.28–0.31; their `2`s,
which the rendering confirms, 0.36–0.41)."""
SMALL_COUNT_SCALE = 4


def small_count_by_two_readers(cell: np.ndarray, value: int, detail: str, tess: Tesseract,
                               vocab: Vocabulary) -> str:
    """Why an unsure small printed count `value` stands (empty: it does not): Tesseract reads the
    same digit alone, and either its rendering in the page's Latin font fits it best of the ten
    digits or the digit templates (`detail`) found it near. (A 7 pt `1` drawn in Liberation
    Sans fits the page's `1` badly — its flag and foot — while its template is near, d ≈ 0.3.)"""
    r = vocab.renderer
    if not r.usable or not r.trusted or not 0 <= value < DECIMAL:
        return ""
    ink = ink_crop(cell)
    if ink is None:
        return ""
    fam = r.family or next(iter(r.families), None)
    if fam is None:
        return ""
    scores = {}
    for d in range(DECIMAL):
        drawn = r.rendered(str(d), fam)
        scores[d] = compare(ink, drawn, blur=r.blur).score if drawn is not None else -1.0
    lead = scores[value] - max(v for d, v in scores.items() if d != value)
    drawn_best = scores[value] >= SMALL_COUNT_FIT and lead >= SMALL_COUNT_LEAD
    templated = re.match(r"digit \d \(d=([0-9.]+)\)", detail)
    near_template = templated is not None and float(templated.group(1)) <= SMALL_COUNT_TEMPLATE
    if not (drawn_best or near_template):
        return ""
    big = cv2.resize(cell, None, fx=SMALL_COUNT_SCALE, fy=SMALL_COUNT_SCALE, interpolation=cv2.INTER_CUBIC)
    pad = 8 * SMALL_COUNT_SCALE
    big = cv2.copyMakeBorder(big, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)
    seen = tess.read(big, lang="eng", psm=10, whitelist="0123456789").text.strip()
    if seen != str(value):
        return ""
    why = (f"drawn in {fam}: {scores[value]:.2f}, next digit {scores[value] - lead:.2f}" if drawn_best
           else "near its template")
    return f"{why}; Tesseract reads {seen}"
