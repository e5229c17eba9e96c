"""A card name written by hand → the card, from several reads of the cell taken together.

Tesseract's `kor` model reads handwriting poorly and differently at each scale and slant: one
read of a hand-written name names the right card about two times in three, yet the right card
is among the candidates of some read nine times in ten. So a written name is read a few ways
(`HAND_READS`), every candidate any read proposes is scored against every read (the root mean
square jamo similarity) and against the ink's length, and the card the reads agree on best is
the line's answer. On generated forms in four pen faces (bench/bench_hand.py, tuning faces):
one read 254 of 392 names right, the three reads below 303, with the length 314.

The print-font rendering check (`verify`) is not run on a written name: no font draws a hand,
and it costs most of a row's time. The line is flagged `handwritten` whatever is read; the
reads' agreement says how sure the answer is (`HandName.certainty`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
from PIL import ImageFont
from rapidfuzz import fuzz

from card_db.names import jamo, name_key
from scanner.ocr.engine import Tesseract
from scanner.ocr.fonts import find_font
from scanner.ocr.hand_latin import HAND_LATIN, eng_ink, latin_card, prefix_card, put_first
from scanner.ocr.hand_namesakes import RunDrawings, by_namesake_run
from scanner.ocr.names import NameMatch, NameRead, Vocabulary, tesseract_image
from scanner.ocr.order_stats import median
from scanner.ocr.thresholds import NAME_ACCEPT, NAME_MARGIN
from scanner.ocr.verify import (CellWindows, available_families, cell_name_ink, cell_windows,
                                compare, ink_level, render_name)
from scanner.vocab import Reason

if TYPE_CHECKING:
    from scanner.ocr.hand_candidates import Searched


@dataclass(frozen=True)
class HandRead:
    """One way of reading a written name: the cell scaled, sheared upright, in one model."""

    scale: float
    """Of the size names are sent to Tesseract at (`names.tesseract_image`)."""
    shear: float
    """Horizontal shear (top moved left by shear × height / 2: a right-leaning hand stood up)."""
    lang: str


HAND_READS = (HandRead(1.0, 0.0, "kor"), HandRead(0.6, 0.0, "kor"), HandRead(1.0, 0.15, "kor+eng"))
"""The reads of a written name (chosen on the tuning faces' 392 written names among scales
0.5-1.35, binarised, thickened, blurred, sheared ±0.15, `kor` and `kor+eng`: three reads
together named the most cards right; a smaller scale reads handwriting better than the size
print is read at)."""
HAND_GUESS = 0.2
"""A written name's fused best candidate is the line's card from this score on (below it: no
card). Lower than `NAME_GUESS`: the fused score averages in reads that went astray (a Hangul
name read in Latin letters by `kor+eng`), and the line is for the judge to confirm anyway."""
CANDIDATES_PER_READ = 10
"""Candidates each read brings (the right card is among all reads' candidates 96 % of the time)."""


@dataclass
class HandName:
    """A written name read several ways."""

    read: NameRead
    """As `names.read_name` gives it: the text of the first read, the fused match, flags."""
    texts: list[str] = field(default_factory=list)
    agree: int = 0
    """How many reads have the chosen card as their own best candidate."""
    certainty: float = 0.0
    """How likely the chosen card is right (`name_certainty`)."""
    parts: "FuseParts | None" = None
    """What `fuse` weighed (the page's second pass, `page_hand`, weighs it again)."""


@dataclass
class FuseParts:
    """What `fuse` weighed for one written name, kept for the page's second pass (`page_hand`):
    the page's sure lines teach how its hand writes syllables, and a doubtful name's candidates
    are weighed again by them."""

    ink: np.ndarray | None = None
    """The name's ink (`verify.cell_name_ink`: grey, cropped)."""
    tops: list[int | None] = field(default_factory=list)
    """Each read's own best card."""
    before_syllables: list[tuple[float, int]] | None = None
    """The candidates' scores (score, card) before their syllables were weighed (None: the
    syllables were not weighed, the reads' best led clearly)."""
    proposed: frozenset[int] = frozenset()
    """Cards only the ink proposed (`ink_proposals`)."""
    keys: list[str] = field(default_factory=list)
    """The reads' jamo (`reads_score`)."""
    aspect: float | None = None
    offset: float = 0.0
    """The ink's width / height and the page's hand's log width ratio then (`reads_score`)."""
    column: str = ""
    searched: Searched | None = None
    """Every card of the column's pool as like the ink as the search found it (None: not searched),
    until the page's second pass is done with it."""
    pieces: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    """The ink's pieces (column ranges) measured by the ink search (`hand_candidates.measured_pieces`),
    until the page's second pass is done with them."""
    eng_first: bool = False
    """`eng`'s read put the line's card first (`hand_latin`): the page's second pass, which weighs
    the drawings of syllables and is blind to Latin letters, leaves it so."""


def _sheared(img: np.ndarray, k: float) -> np.ndarray:
    if not k:
        return img
    h, w = img.shape[:2]
    m = np.float32([[1, k, -k * h / 2], [0, 1, 0]])
    return cv2.warpAffine(img, m, (w + int(abs(k) * h), h), borderValue=255)


SETTLED_AFTER = 2
"""Reads after which a written name is read no further when they settle it (`settled`): the
third, `kor+eng` read costs as much as the first two together."""
SETTLED_SCORE = 0.7
"""…each of them naming the same card as its best at least this well. Below it, or with Latin
letters or digits in a read or in the card's name (`kor` writes digits and junk where Latin
letters stand; `kor+eng` reads them), the third read still changed the answer on the held-out
forms (bench/README.md, issue 35 speed, second round)."""
_LATIN = re.compile(r"[A-Za-z0-9]")


def settled(texts: list[str], column: str, vocab: Vocabulary) -> bool:
    """The reads so far (`SETTLED_AFTER` of them) each have one and the same all-Hangul card as
    their best, at least `SETTLED_SCORE` alike, and none of them holds a Latin letter or digit."""
    if len(texts) < SETTLED_AFTER or any(_LATIN.search(t) or not name_key(t) for t in texts):
        return False
    matches = [vocab.match(t, column, limit=CANDIDATES_PER_READ) for t in texts]
    card = matches[0].card_id
    return (card is not None and all(m.card_id == card and m.score >= SETTLED_SCORE for m in matches)
            and not _LATIN.search(vocab.names[card]))


def _reads(cell: np.ndarray, scale: float, tess: Tesseract, known: dict[HandRead, str],
           done=None) -> list[str]:
    """The cell read each of `HAND_READS`' ways (`known` texts taken as given), stopping as soon
    as `done(texts)` says the reads so far settle the name."""
    base = tesseract_image(cell, scale)
    if base is None:
        return []
    texts: list[str] = []
    for how in HAND_READS:
        if done is not None and done(texts):
            break
        if how in known:
            texts.append(known[how])
            continue
        img = base if how.scale == 1.0 else cv2.resize(base, None, fx=how.scale, fy=how.scale,
                                                        interpolation=cv2.INTER_AREA)
        texts.append(tess.read(_sheared(img, how.shear), lang=how.lang, psm=7).text)
    return texts


WIDTH_FONT = "NanumGothic"
"""The font whose advance widths measure how long a name is (its Hangul is one square each)."""
WIDTH_OFFSET = -0.22
"""log(ink width / height ÷ the name's width in WIDTH_FONT per pixel size) of a written name, until
the page shows its own (`HandPage`): hands write narrower than print is wide (tuning faces: the
right card at a median -0.22, 10th-90th percentile -0.38 to 0.04)."""
WIDTH_WEIGHT = 0.12
"""Score a candidate loses per unit of log width ratio off the page's (a name of twice or half
the written length loses 0.08): tuning faces 303 → 314 of 392 names right."""
WIDTH_SURE = 0.6
"""Reads fused at least this well teach the page its hand's width (`HandPage.observe`)."""
WIDTH_SAMPLES = 3
"""…from this many on (fewer: `WIDTH_OFFSET`)."""


@lru_cache(maxsize=1)
def _width_font() -> ImageFont.FreeTypeFont | None:
    path = available_families().get(WIDTH_FONT)
    return ImageFont.truetype(str(path), 32) if path is not None else None


@lru_cache(maxsize=4096)
def name_width(name: str) -> float | None:
    """A name's printed width per pixel of font size (None without the font); kept per name
    (a page's rows share many candidates)."""
    font = _width_font()
    return font.getlength(name) / 32 if font is not None else None


@dataclass
class HandPage:
    """What one page's hand teaches: how wide it writes a name (log ratio to print), and how
    much of the form it wrote."""

    offsets: list[float] = field(default_factory=list)
    written_rows: int = 0
    typed_rows: int = 0
    """Rows of the page's form read so far as written by hand / as typed (`rows.read_row`)."""

    def offset(self) -> float:
        return median(np.array(self.offsets)) if len(self.offsets) >= WIDTH_SAMPLES else WIDTH_OFFSET

    def observe(self, offset: float) -> None:
        self.offsets.append(offset)


def _log_width(aspect: float, name: str) -> float | None:
    w = name_width(name)
    return float(np.log(aspect / max(w, 0.3))) if w is not None and aspect > 0 else None


def reads_score(name: str, keys: list[str], aspect: float | None, offset: float) -> float:
    """A candidate's score by the reads (`keys`: their jamo) and the ink's width (`fuse`)."""
    jk = jamo(name_key(name))
    score = float(np.sqrt(np.mean([(fuzz.ratio(k, jk) / 100.0) ** 2 for k in keys])))
    lw = _log_width(aspect, name) if aspect else None
    return score - WIDTH_WEIGHT * abs(lw - offset) if lw is not None else score


def fuse(texts: list[str], column: str, vocab: Vocabulary, aspect: float | None = None,
         page: HandPage | None = None, ink: np.ndarray | None = None,
         tuning: "InkTuning | None" = None, parts: FuseParts | None = None) -> tuple[NameMatch, int]:
    """The match the reads agree on: each candidate any read proposes, scored by the root mean
    square of its jamo similarity to all reads (one read far off costs less than in a mean),
    less WIDTH_WEIGHT per unit its printed length is off the ink's (`aspect`: the written
    name's width / height, against the page's hand, `page`), and, while the first candidates
    are close, more or less by how like the written `ink` each looks drawn in a hand
    (`ink_likeness`); and how many reads have it as their own best. `parts`: filled with what
    was weighed (`FuseParts`)."""
    reads = [t for t in texts if name_key(t)]
    if not reads:
        return NameMatch(None, "", 0.0, 0.0), 0
    tops: list[int | None] = []
    pool: dict[int, None] = {}
    for t in reads:
        m = vocab.match(t, column, limit=CANDIDATES_PER_READ)
        tops.append(m.card_id)
        for cid, _, _ in m.candidates:
            pool[cid] = None
    if not pool:
        return NameMatch(None, "", 0.0, 0.0), 0
    keys = [jamo(name_key(t)) for t in reads]
    offset = (page or HandPage()).offset()

    def read_score(cid: int) -> float:
        return reads_score(vocab.names[cid], keys, aspect, offset)

    scored = sorted(((read_score(cid), cid) for cid in pool), key=lambda x: (-x[0], x[1]))
    tuning = tuning or INK
    proposed: frozenset[int] = frozenset()
    searched = None
    if ink is not None and tuning.search and (len(scored) < 2 or scored[0][0] - scored[1][0] < tuning.search_lead):
        memo = parts.pieces if parts is not None else None
        found: list = []
        proposed = frozenset(c for c in ink_proposals(ink, column, vocab, offset, memo, found) if c not in pool)
        searched = found[0] if found else None
        scored = sorted(scored + [(read_score(c), c) for c in proposed], key=lambda x: (-x[0], x[1]))
    if ink is not None and len(scored) > 1 and scored[0][0] - scored[1][0] < tuning.doubt_lead:
        scored = by_ink_likeness(scored, ink, vocab, tuning, proposed)
    if parts is not None:
        parts.ink, parts.tops, parts.proposed = ink, tops, proposed
        parts.keys, parts.aspect, parts.offset, parts.column = keys, aspect, offset, column
        parts.searched = searched
    if ink is not None and len(scored) > 1 and scored[0][0] - scored[1][0] < tuning.doubt_lead:
        if parts is not None:
            parts.before_syllables = list(scored)
        scored = by_syllable_likeness(scored, ink, vocab, tuning, proposed, searched=searched)
    scored = by_namesake_run(scored, ink, vocab, run_drawings(tuning))
    return fused_match(scored, vocab), sum(t == scored[0][1] for t in tops)


def fused_match(scored: list[tuple[float, int]], vocab: Vocabulary) -> NameMatch:
    """The match of candidates scored (score, card), the first the match (its lead: over the best
    score of the others, none when one scores above it)."""
    cands = [(cid, vocab.names[cid], s) for s, cid in scored[:CANDIDATES_PER_READ]]
    best = cands[0]
    margin = max(0.0, best[2] - max(c[2] for c in cands[1:])) if len(cands) > 1 else 1.0
    # (0: a card put first by what its score does not hold, `by_syllable_likeness`'s search)
    return NameMatch(best[0], best[1], best[2], margin, cands)


@dataclass(frozen=True)
class InkTuning:
    """How the written ink's likeness to each close candidate, drawn in a hand, reorders them.

    Tesseract reads a hand as a near-miss of several cards; the ink itself tells them apart by
    its shape (word gaps, where tall and wide syllables fall, Latin letters among Hangul). On
    the tuning faces' 907 written names, the best of the candidates drawn in a pen font other
    than the writer's own (normalised cross-correlation, `verify.compare`) raised the right
    first answers from 670 to 707 (the right card is among the first five 754 times)."""

    fonts: tuple[str, ...] = ("NanumPen.ttf", "NanumBarunpenR.ttf")
    """Hand-like fonts the candidates are drawn in (fonts-nanum-extra; those missing are
    skipped): a brush or the print font added nothing over these two."""
    candidates: int = 5
    """The first candidates compared with the ink."""
    weight: float = 0.3
    """Score a candidate gains per unit of its likeness above the compared candidates' mean."""
    blur: float = 2.4
    """Blur both images are compared at (a hand's strokes never sit where a font's do)."""
    doubt_lead: float = 0.08
    """Only when the reads' best leads the next by less than this (a wider lead was never
    overturned on the tuning faces, and the comparison costs ≈ 10 ms a line)."""
    syllable_weight: float = 1.0
    """Then, while the best still leads by less than `doubt_lead`: score a candidate gains per
    unit of its syllables' likeness to the ink (`hand_syllables.name_likeness`) above the
    compared candidates' mean. Offline on the reads of the tuning faces (sets 3502, 3504; 902
    written names, the right card among the first five 730 times): right first answers 683 →
    709 (weights 0.5-2: 703-709); held-out 3501 377 → 378 of 385, 3503 260 of 263 unchanged
    (bench/README.md)."""
    search: bool = True
    """While the reads' best leads by less than `search_lead`, the column's pool is searched by
    the ink (`ink_proposals`, `hand_candidates`): the cards it proposes join the first
    candidates and are scored as they are (reads, width, ink and syllable likeness). Offline
    on the tuning faces' reads (sets 3502, 3504; 902 written names): right first answers 708 →
    751 (47 put right, 4 put wrong); a card only the ink proposes is no read's own best, so
    `evidence.py` (two reads at least) never accepts it unflagged."""
    search_lead: float = 0.08
    """…the lead below which the pool is searched (measured before the width term: 0.05, 0.08,
    0.12 → 735, 737, 737 of 902; the wider gate dearer)."""
    proposed_weight: float = 2.0
    """Score a card only the ink proposed gains per unit of its syllables' likeness above the
    compared candidates' mean (the reads' candidates gain `syllable_weight`): its reads' score
    is low by construction (before the width term: 1.5, 2, 3 → 735, 737, 735)."""
    search_weight: float = 1.0
    """Then too, score a candidate gains per unit of its likeness in the pool's ink search
    (`hand_candidates.Searched`: the mean drawings' cosine with the card-syllable network's term,
    `InkSearchTuning.net_weight`, and the width) above the compared candidates' mean, when the
    pool was searched: the search ranks the written card first on 10 of the tuning sets' 34 wrong
    lines, the reads and the nearest drawings put a rival sharing its words ahead. It orders the
    candidates only: their scores (the line's lead and certainty) stay the reads' and drawings'.
    Offline on the tuning sets' reads (3502, 3504 first 8: 517 written names;
    `InkSearchTuning.net_proposals` 5): 0, 0.5, 1, 1.5 → 484, 485, 485, 485 right (main 483)."""


INK = InkTuning()


def ink_proposals(ink: np.ndarray, column: str, vocab: Vocabulary, offset: float | None = None,
                  memo: dict | None = None, searched: list | None = None) -> list[int]:
    """Cards of the column's pool the written ink itself proposes (`hand_candidates.propose`;
    `offset`: the page's hand's log width ratio; `memo`: its pieces measured, kept; `searched`:
    every pool card's likeness appended), whatever the reads say."""
    from scanner.ocr.hand_candidates import propose
    mask = ink < ink_level(ink)
    ids, _ = vocab.by_column.get(column) or vocab.by_column["side"]
    return [cid for cid, _ in propose(mask, ids, vocab.names, offset, memo=memo, searched=searched)]


@lru_cache(maxsize=4)
def _hand_fonts(fonts: tuple[str, ...]) -> tuple[Path, ...]:
    return tuple(p for p in (find_font(f) for f in fonts) if p is not None)


@lru_cache(maxsize=2048)
def _drawn(name: str, font: Path) -> np.ndarray | None:
    return render_name(name, font)


def run_drawings(tuning: InkTuning = INK) -> RunDrawings:
    """The printed widths and hand-font drawings `hand_namesakes` weighs a namesake's run with."""
    return RunDrawings(name_width, lambda text: [d for f in _hand_fonts(tuning.fonts)
                                                 if (d := _drawn(text, f)) is not None], tuning.blur)


def ink_likeness(ink: np.ndarray, name: str, tuning: InkTuning = INK,
                 windows: CellWindows | None = None) -> float | None:
    """How like the written ink the name looks drawn in any of the hand fonts (the best
    normalised cross-correlation over the whole name, -1..1); None with no font."""
    best = None
    for font in _hand_fonts(tuning.fonts):
        drawn = _drawn(name, font)
        if drawn is None:
            continue
        lk = compare(ink, drawn, blur=tuning.blur, cell=windows, overall_only=True).overall
        best = lk if best is None else max(best, lk)
    return best


def _head(scored: list[tuple[float, int]], n: int, extra: frozenset[int]) -> tuple[list, list]:
    """The first `n` candidates and those of `extra` (the ink's proposals) further down; the rest."""
    head = [x for k, x in enumerate(scored) if k < n or x[1] in extra]
    return head, [x for k, x in enumerate(scored) if not (k < n or x[1] in extra)]


def by_ink_likeness(scored: list[tuple[float, int]], ink: np.ndarray, vocab: Vocabulary,
                    tuning: InkTuning = INK, extra: frozenset[int] = frozenset()) -> list[tuple[float, int]]:
    """The first `candidates` (and the ink's proposals, `extra`) rescored by their ink
    likeness (above or below their mean), and the list sorted again."""
    head, tail = _head(scored, tuning.candidates, extra)
    windows = cell_windows(ink)
    likes = [ink_likeness(ink, vocab.names[cid], tuning, windows) for _, cid in head]
    if any(lk is None for lk in likes):
        return scored
    mean = float(np.mean(likes))
    head = [(s + tuning.weight * (lk - mean), cid) for (s, cid), lk in zip(head, likes)]
    return sorted(head + tail, key=lambda x: (-x[0], x[1]))


def by_syllable_likeness(scored: list[tuple[float, int]], ink: np.ndarray, vocab: Vocabulary,
                         tuning: InkTuning = INK, extra: frozenset[int] = frozenset(),
                         likeness=None, searched: Searched | None = None) -> list[tuple[float, int]]:
    """The first `candidates` (and the ink's proposals, `extra`) rescored by how like the ink
    their syllables are, drawn in many fonts (`hand_syllables.name_likeness`, or `likeness`
    (mask, name): the page's own hand's, `page_hand`; above or below their mean; a candidate
    with no Hangul syllable counts as the mean), and by their likeness in the pool's search
    (`searched`, `InkTuning.search_weight`), and the list sorted again."""
    from scanner.ocr.hand_syllables import name_likeness
    likeness = likeness or name_likeness
    head, tail = _head(scored, tuning.candidates, extra)
    mask = ink < ink_level(ink)
    if not mask.any():
        return scored
    likes = [likeness(mask, vocab.names[cid]) for _, cid in head]
    known = [lk for lk in likes if lk is not None]
    if len(known) < 2:
        return scored
    mean = float(np.mean(known))
    head = [(s + (tuning.proposed_weight if cid in extra else tuning.syllable_weight)
             * ((mean if lk is None else lk) - mean), cid) for (s, cid), lk in zip(head, likes)]
    scored = sorted(head + tail, key=lambda x: (-x[0], x[1]))
    if searched is None or not tuning.search_weight:
        return scored
    found = [searched.of(cid) for _, cid in head]
    known = [lk for lk in found if lk is not None]
    if len(known) < 2:
        return scored
    # the search's likeness orders the candidates, but their scores stay the reads' and drawings'
    # (what the line's certainty and lead are measured on: a card the search alone put first
    # leads by nothing, and is flagged and doubted as such)
    mean = float(np.mean(known))
    order = {cid: s + tuning.search_weight * ((mean if lk is None else lk) - mean) for (s, cid), lk in zip(head, found)}
    return sorted(scored, key=lambda x: (-order.get(x[1], x[0]), x[1]))


CERTAINTY_BIAS = -5.7
CERTAINTY_SCORE = 10.3
CERTAINTY_LEAD = 38.0
"""How likely a written name's card is right: a logistic of its fused score and its lead over
the next card (capped at CERTAINTY_LEAD_CAP), fitted on the tuning faces' 907 written names
with the ink likeness (lines it puts at ≥ 0.95 were right 99 % of the time, 0.8-0.95: 86 %,
0.5-0.8: 67 %, below: 26 %). The reads' agreement added nothing once these two are known."""
CERTAINTY_LEAD_CAP = 0.15


def name_certainty(match: NameMatch, agree: int, reads: int) -> float:
    """How likely the chosen card is the written one (`CERTAINTY_*`); 0 with no card."""
    if match.card_id is None or not reads:
        return 0.0
    z = CERTAINTY_BIAS + CERTAINTY_SCORE * match.score + CERTAINTY_LEAD * min(match.margin, CERTAINTY_LEAD_CAP)
    return round(float(1.0 / (1.0 + np.exp(-z))), 3)


def read_hand_name(cell: np.ndarray, column: str, tess: Tesseract, vocab: Vocabulary, scale: float,
                   first: NameRead | None = None, page: HandPage | None = None) -> HandName:
    """A name cell written by hand, read `HAND_READS` ways and fused (`fuse`); `first`: the
    cell's read so far (its text stands for the first, plain read); `page`: the page's hand."""
    known = {HAND_READS[0]: first.text} if first is not None else {}
    texts = _reads(cell, scale, tess, known, done=lambda ts: settled(ts, column, vocab))
    ink = cell_name_ink(cell)
    aspect = ink.shape[1] / ink.shape[0] if ink is not None and ink.shape[0] else None
    parts = FuseParts()
    match, agree = fuse(texts, column, vocab, aspect, page, ink=ink, parts=parts)
    eng = None
    if ink is not None and match.card_id is not None and match.margin < HAND_LATIN.doubt_lead:
        # a name in Latin letters alone: `eng` reads them where `kor`'s reads only near them
        eng = tess.read(eng_ink(ink), lang="eng", psm=7).text
        card = latin_card(eng, column, vocab)
        if card is None:  # a name in Latin letters then Hangul: `eng` tells the prefix, `kor` the rest
            card = prefix_card(eng, parts.keys, match.card_id, column, vocab)
        if card is not None and card != match.card_id:
            # its score: the reads', `eng`'s among them (`kor`'s alone are near nothing of its letters)
            keys = parts.keys + [jamo(name_key(eng))]
            match = put_first(match, card, reads_score(vocab.names[card], keys, aspect, parts.offset), vocab)
            parts.eng_first = True
            agree = sum(t == card for t in parts.tops)
    if page is not None and aspect and match.card_id is not None and match.score >= WIDTH_SURE:
        lw = _log_width(aspect, match.name)
        if lw is not None:
            page.observe(lw)
    match, flags = flagged(match)
    text = texts[0] if texts else (first.text if first is not None else "")
    conf = first.confidence if first is not None else 0.0
    detail = (f"written by hand, read {len(texts)} ways: " + " | ".join(repr(t) for t in texts)
              + (f"; eng read {eng!r}" if eng is not None else "")
              + f"; fused {match.score:.2f}, lead {match.margin:.2f}, {agree} reads agree")
    read = NameRead(text, conf, match, flags, None, detail)
    return HandName(read, texts, agree, name_certainty(match, agree, len(texts)), parts)


def flagged(match: NameMatch) -> tuple[NameMatch, list[str]]:
    """A fused match as the line's (no card below `HAND_GUESS`) and the name's flags."""
    flags: list[str] = []
    if match.card_id is not None and match.score < HAND_GUESS:
        match = NameMatch(None, "", match.score, match.margin, match.candidates)
    if match.card_id is None:
        flags.append(Reason.UNRESOLVED_NAME)
    elif match.score < NAME_ACCEPT:
        flags.append(Reason.UNCERTAIN_NAME)
    elif match.margin < NAME_MARGIN:
        flags.append(Reason.AMBIGUOUS_NAME)
    return match, flags
