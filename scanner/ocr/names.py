"""OCR text of a name cell → a card, by closed-vocabulary matching checked by rendering.

The Debian `kor` model knows ~1,076 Hangul syllables and no Latin letters, so many names can
never be read exactly: the OCR text is evidence, matched against the names the column can hold
(monster column → main-deck monsters, extra → fusion/synchro/xyz/link, side → any card) with
the jamo (NFD) ratio, so one wrong jamo costs less than a wrong syllable. A match stands
unflagged only with a high score AND a clear lead over the runner-up, and only when the
rendering of the candidates in the sheet's font (ocr_verify) does not contradict it. Names OCR
cannot tell apart (same Hangul, other Latin letters, digits or symbols: `암드 드래곤 LV3/LV5`,
`바렐로드 F 드래곤` read as `바렐로드 드래곤`) are decided by the rendering or flagged; namesakes
differing in one run of digits/letters the rendering cannot tell apart on a soft photo
(`LV6`/`LV8`) may be settled by reading that run again (`namesake_part`).
"""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Sequence

import cv2
import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from card_db.cdb import CardDatabase
from card_db.names import hangul_skeleton, is_syllable, jamo, jamo_likeness, name_key
from scanner.ocr.verify import (R_AGREE, NameRenderer, Verdict, cell_name_ink, decide, ink_level,
                                strip_rule_remnants)
from scanner.ocr.engine import Tesseract
from scanner.ocr.namesake_part import glyph_run_doubt, settle_by_run
from scanner.ocr.thresholds import INK_GLYPH, NAME_ACCEPT, NAME_GUESS, NAME_MARGIN
from scanner.vocab import COLUMNS, Reason


PERCENT = 100.0
"""rapidfuzz scores run 0..100; a match's score is kept as 0..1."""


@dataclass(frozen=True)
class RowNumberCut:
    """How a row number printed against a name's start (`₂마운틴 워리어`) is told from the
    name's first letter (`without_row_number`), in shares of the line's height."""

    number_top: float
    """The number's top lies at least this far below the name's top."""
    valley: float
    """The number ends at a valley of the outline's top at least this far below the name's top
    (a digit meeting a letter that starts low)."""
    base: float
    """The number stands on the baseline: its ink reaches down to within this of the line's
    lowest ink."""
    min_width: float = 0.1
    """A cut narrower than this is no digit (a speck, a serif)…"""
    max_width: float = 1.6
    """…and one wider than this is more than two digits (a 6 pt `12` is ≈ 1.0 line heights)."""
    min_height: float = 0.35
    """The number is at least this high (a dot or a dash is no number)."""


@dataclass(frozen=True)
class NameTuning:
    """The numbers of the name reader, one home each (issue 32: per-stage tuning)."""

    prefix_cut: int = 3
    """Most characters a row-number cut can take from a name's start (it is at most 1.6 line
    heights wide: three lowercase letters)."""
    row_number_height: float = 0.45
    """Digits less than this share of the cell high are a row number, not a name (names are set
    at 8–10 pt in a ~15 pt row, row numbers at ~6 pt)."""
    row_number_left: float = 0.12
    """A row number printed in the name cell starts within this share of the cell's width."""
    row_number_width: float = 1.6
    """…and is at most this many cell heights wide (two 6 pt digits)."""
    plausible: float = 0.25
    """OCR candidates this close to the best one are rendered too."""
    unsure_candidates: int = 10
    """Candidates an unsure read brings to the rendering check."""
    neighbour: float = 0.80
    """Names at least this similar to an exact read are rendered against it."""
    neighbour_edits: int = 2
    """…and so are names at most this many jamo edits from it, however short: in a short name
    two jamo weigh much (`실드 웜` / `실드 윙`, 0.75 alike), and OCR misreads one syllable for
    the other."""
    second_scale: float = 1.35
    """A cell read again for a tie is scaled this much more: Tesseract's slips at one scale are
    mostly not made at another (`실드 웜` read `실드 윙` at one scale, `실드 원`/`웹` at four
    others; `마지 개구리` the same at all five)."""
    latin_read: float = 0.5
    """A `kor` read with less than this share of Hangul syllables may be a name of Latin letters
    only (F·G·D): `eng` alone reads it too."""
    min_ink_px: int = 8
    """A cell with fewer ink pixels holds nothing to read."""
    tesseract_pad: int = 6
    """White margin (px, before scaling) around a cell cut to its ink for Tesseract…"""
    upscale_from: float = 1.05
    """…which scales it only above this (a smaller change is not worth the interpolation)."""
    first_cut: RowNumberCut = RowNumberCut(number_top=0.3, valley=0.45, base=0.25)
    """The first look: 6 pt digits beside 8–10 pt names start ≥ 0.4 below the name's top;
    Hangul starts higher (ㅁ of a serif 매: ≈ 0.23), so a letter whose top is only a little low
    is not taken into the number; ㅅ's diagonal (a valley above 0.45) is kept whole."""
    looser_cut: RowNumberCut = RowNumberCut(number_top=0.15, valley=0.45, base=0.4)
    """The second look at a line read as a number glued to a name (`1클러스터`) that did not
    resolve: blur (a far corner of a tilted photo) can lift a 6 pt digit's top to ≈ 0.26; a
    line's lowest ink is mostly Hangul, which reaches below the Latin baseline the digits stand
    on, and on a small, soft photo a pixel of blur is a large share of the line
    (`1F.A. 라이트닝마스터`, 26 px high: the 1 ends 0.27 of the line above 닝's ㅇ)."""
    shallow_cut: RowNumberCut = RowNumberCut(number_top=0.15, valley=0.25, base=0.4)
    """The second look when the looser cut finds no valley deep enough: a digit glued to a round
    Latin capital (`3C`, `3G`) or to a Hangul letter (`2플`) leaves a valley only a little below
    the digit's own top (≈ 0.3-0.42)."""
    number_gap: float = 0.3
    """A row number printed apart from the name (`1  레프티레스 스큐러`, read `1 레프티레스…`)
    ends at a blank run at least this many line heights wide: a 6.5 pt `1` beside an 8 pt name
    reaches nearly the name's top, so the height tests above keep it; Hangul syllables of one
    word stand ≤ 0.15 apart."""
    number_rest: float = 0.9
    """A cut at such a gap stands only when the card it reads is what the first read said after
    its number, at least this alike (jamo by jamo): the gap was the number's, not a word's."""
    mark_edge: float = 0.2
    """Ink lying wholly within this share of the cell's height from its top or bottom edge is a
    bit of a row rule, not a mark of the row (a row number stands in the middle)."""
    speck_area: int = 5
    """Ink blobs smaller than this many pixels are paper grain or JPEG noise."""
    prefix_width_share: float = 0.6
    """The ink a row-number cut took is not a longer card's missing start when it is narrower
    than this share of that start drawn at the line's height (a 6 pt `1` is ≈ 0.3 line heights
    wide; `Ai－` ≈ 1.7)."""
    number_rule_height: float = 0.6
    """A row-number rule left in a name cell spans at least this share of the cell's height
    (names fill ≈ 0.55 of it)."""
    number_rule_run: float = 0.6
    """The rule and a number touching it are at most this share of the cell's height wide."""
    rule_bits_edge: float = 0.1
    """Bits of dashed row rules hug the cell's top and bottom within this share of its height:
    not the name's height."""


NAMES = NameTuning()


@dataclass
class NameMatch:
    card_id: int | None
    name: str
    score: float
    """Best candidate's similarity, 0..1."""
    margin: float
    """Lead of the best candidate over the runner-up (1.0 when there is none)."""
    candidates: list[tuple[int, str, float]] = field(default_factory=list)


@dataclass
class _Columns:
    """The per-database part of a Vocabulary (built once per database, shared between pages)."""

    by_column: dict[str, tuple[list[int], list[str]]]
    names: dict[int, str]
    namesakes: dict[str, dict[int, list[int]]]
    """column → card → other cards of the column with the same Hangul skeleton."""
    cut_leftovers: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    """column → card whose name is another card's of the column without its first 1-3
    characters, none of them Hangul (`보옥수 코발트 이글` of `A 보옥수 코발트 이글`) → those starts
    as the longer cards print them (`A `)."""


_BUILT: dict[int, tuple["weakref.ref[CardDatabase]", _Columns]] = {}
"""Per-database tables by id(db), with a weak reference to tell a reused id from the same
database (a cache only: the result is the same either way)."""


def _build_columns(db: CardDatabase) -> _Columns:
    def entries():
        for cid, card in db.cards.items():
            if not card.is_token:
                yield cid, card.name, "extra" if card.is_extra_deck else card.kind.value
    return _columns_from(entries())


def _columns_from(entries: Iterable[tuple[int, str, str]], tuning: NameTuning = NAMES) -> _Columns:
    """Tables from (card_id, name, column kind: monster/spell/trap/extra)."""
    cols: dict[str, tuple[list[int], list[str]]] = {c: ([], []) for c in COLUMNS}
    names: dict[int, str] = {}
    keys: dict[int, str] = {}  # each name's key computed once (NFKC of 14k names: half the build)
    skeletons: dict[str, dict[str, list[int]]] = {c: {} for c in COLUMNS}
    for cid, name, column in entries:
        key = name_key(name)
        if not key:
            continue
        names[cid] = name
        keys[cid] = key
        jk = jamo(key)
        skel = hangul_skeleton(key)
        for c in (column, "side"):
            cols[c][0].append(cid)
            cols[c][1].append(jk)
            if skel:
                skeletons[c].setdefault(skel, []).append(cid)
    namesakes: dict[str, dict[int, list[int]]] = {}
    cut_leftovers: dict[str, dict[int, list[str]]] = {}
    for c, (ids, _) in cols.items():
        by_key: dict[str, list[int]] = {}
        for cid in ids:
            by_key.setdefault(keys[cid], []).append(cid)
        starts: dict[int, list[str]] = {}
        for key, longer in by_key.items():
            if is_syllable(key[0]):
                continue  # (most names: no start to cut, and the loop below would break at once)
            for n in range(1, tuning.prefix_cut + 1):
                if len(key) <= n or is_syllable(key[n - 1]):
                    break  # so for every longer start too
                for short in by_key.get(key[n:], []):
                    for long_id in longer:
                        name, tail = names[long_id], names[short]
                        starts.setdefault(short, []).append(
                            name[:len(name) - len(tail)] if name.endswith(tail) else key[:n])
        cut_leftovers[c] = starts
    for c, groups in skeletons.items():
        out: dict[int, list[int]] = {}
        for members in groups.values():
            if len(members) > 1:
                for m in members:
                    out[m] = [o for o in members if o != m]
        namesakes[c] = out
    return _Columns(by_column=cols, names=names, namesakes=namesakes, cut_leftovers=cut_leftovers)


MATCH_HITS = 20
"""Best choices kept per (read, column) by `Vocabulary.match`: what `hand_names.fuse` asks
(10 candidates, twice as many choices for namesakes); a cell's plain read asks for fewer."""
MATCH_KEPT = 4096
"""Reads kept per page (one page reads at most a few hundred)."""


@dataclass
class Vocabulary:
    """Card names per sheet column, and the page's name renderer (one Vocabulary per page)."""

    by_column: dict[str, tuple[list[int], list[str]]]
    """column → (card_ids, jamo keys) in the same order."""
    names: dict[int, str]
    namesakes: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    """column → card → cards with the same Hangul and other Latin letters/digits/symbols."""
    renderer: NameRenderer = field(default_factory=NameRenderer)
    """Draws candidate names in the page's font (learns the font from the page's exact reads)."""
    cut_leftovers: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    """column → cards a name with its start cut off could be mistaken for → the starts (`_Columns`)."""
    model_syllables: frozenset[str] = frozenset()
    """The Hangul syllables the OCR model can write (`Tesseract.characters`); empty: unknown."""
    script: str = "hangul"
    """Script of the names (`card_db.names.name_script`): a `latin` vocabulary's cells are read
    by `latin.read_latin_name`."""
    latin_only: dict[str, dict[int, str]] = field(default_factory=dict)
    """column → its cards whose name holds no Hangul, as `hand_latin.latin_key` (filled there on
    first use: kept with the vocabulary it was taken from, never beside it)."""
    latin_prefixed: dict[str, dict[str, list[tuple[int, str]]]] = field(default_factory=dict)
    """column → the Latin prefixes of its cards' names that go on in Hangul (`EM`, `RUM`, `NO39`, as
    `hand_latin.latin_key`) → those cards, each with the jamo of its Hangul rest (filled by
    `hand_latin.prefixed_names` on first use, like `latin_only`)."""

    def unwritable(self, card_id: int) -> bool:
        """The card's name holds a Hangul syllable the OCR model cannot write: no read of it is
        ever exact (`일렉꿩` is read `밀렉권`), so an unsure read is all OCR can give it."""
        return bool(self.model_syllables) and any(
            is_syllable(ch) and ch not in self.model_syllables for ch in self.names.get(card_id, ""))

    @classmethod
    def build(cls, db: CardDatabase) -> "Vocabulary":
        ref, cols = _BUILT.get(id(db), (None, None))
        if cols is None or ref is None or ref() is not db:
            cols = _build_columns(db)
            for k in [k for k, (r, _) in _BUILT.items() if r() is None]:
                del _BUILT[k]
            _BUILT[id(db)] = (weakref.ref(db), cols)
        return cls(by_column=cols.by_column, names=cols.names, namesakes=cols.namesakes,
                   cut_leftovers=cols.cut_leftovers)

    @classmethod
    def from_names(cls, entries: Iterable[tuple[int, str, str]]) -> "Vocabulary":
        """A vocabulary of (card_id, name, column kind) without a card database (tests, tools)."""
        cols = _columns_from(entries)
        return cls(by_column=cols.by_column, names=cols.names, namesakes=cols.namesakes,
                   cut_leftovers=cols.cut_leftovers)

    _hits: dict[tuple[str, str], tuple[list[str], list[int], list]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    """(jamo key, column) → (its choices, ids, the column's MATCH_HITS best) (`match`): one cell's text is matched
    again (a written name's plain read by `rows.glance`, then among its reads by `hand_names.fuse`)."""

    def match(self, text: str, column: str, limit: int = 5) -> NameMatch:
        key = name_key(text)
        if not key:
            return NameMatch(None, "", 0.0, 0.0)
        ids, choices = self.by_column.get(column) or self.by_column["side"]
        hits = self._best(jamo(key), column, ids, choices, limit * 2)
        cands: list[tuple[int, str, float]] = []
        seen: set[int] = set()
        for _, score, idx in hits:
            cid = ids[idx]
            if cid in seen:
                continue
            seen.add(cid)
            cands.append((cid, self.names[cid], score / PERCENT))
            if len(cands) >= limit:
                break
        if not cands:
            return NameMatch(None, "", 0.0, 0.0)
        best = cands[0]
        margin = best[2] - cands[1][2] if len(cands) > 1 else 1.0
        return NameMatch(best[0], best[1], best[2], margin, cands)

    def _best(self, jkey: str, column: str, ids: list[int], choices: list[str], count: int) -> list:
        """`process.extract`'s `count` best of the column for a jamo key. Its answer is sorted by
        score, then by choice index (rapidfuzz's order), so the first `count` of the
        MATCH_HITS best are its `count` best: those are computed once per key and column."""
        if count > MATCH_HITS:
            return process.extract(jkey, choices, scorer=fuzz.ratio, limit=count)
        got = self._hits.get((jkey, column))
        if got is None or got[0] is not choices or got[1] is not ids:
            if len(self._hits) >= MATCH_KEPT:
                self._hits.clear()
            got = self._hits[(jkey, column)] = (choices, ids, process.extract(jkey, choices, scorer=fuzz.ratio,
                                                                               limit=MATCH_HITS))
        return got[2][:count]

    def rivals(self, card_ids: list[int], column: str) -> dict[int, list[int]]:
        """card → the namesakes OCR cannot tell from it, for each of `card_ids`."""
        table = self.namesakes.get(column) or self.namesakes.get("side", {})
        return {c: table.get(c, []) for c in card_ids}

    def may_be_cut_off(self, card_id: int, column: str) -> bool:
        """Another card of the column is this card's name with 1-3 non-Hangul characters
        before it: a read of a cell whose start was cut as a row number cannot tell them apart."""
        return card_id in self._starts(column)

    def cut_prefixes(self, card_id: int, column: str) -> list[str]:
        """What a cut could have taken from the start of a longer card of the column that ends in
        this card's name (`Ai－` of `Ai－콘택트` for `콘택트`); empty when no card does."""
        return self._starts(column).get(card_id, [])

    def _starts(self, column: str) -> dict[int, list[str]]:
        return self.cut_leftovers.get(column, self.cut_leftovers.get("side", {}))


def ocr_sure(m: NameMatch) -> bool:
    """The OCR match alone would stand (before any rendering check)."""
    return m.card_id is not None and (m.score >= 1.0 or (m.score >= NAME_ACCEPT and m.margin >= NAME_MARGIN))


@dataclass
class NameRead:
    """One name cell read: OCR text, the card chosen, and why it is or is not sure."""

    text: str
    confidence: float
    match: NameMatch
    flags: list[str]
    verdict: Verdict | None = None
    detail: str = ""
    row_number_only: bool = False
    """The cell holds nothing but a small printed row number (an empty row of a sheet that
    prints the numbers against the names)."""
    attempt: str = ""
    """Which attempt decided the read (`NameAttempt.name`, then the reading of the cell that
    gave the match: `as-cut: kor+eng`, `glued-number: kor, read-again`); see `read_by_attempts`."""


def jamo_edits(a: str, b: str) -> int:
    """Jamo edits (Levenshtein) between two names' exact keys."""
    return Levenshtein.distance(jamo(name_key(a)), jamo(name_key(b)))


def is_near(a: str, b: str, tuning: NameTuning = NAMES) -> bool:
    """Two names OCR may misread one for the other: at most `neighbour_edits` jamo apart, or
    alike but for one syllable (`스톰 슈터` / `스쿱 슈터`: three jamo in one syllable)."""
    ka, kb = name_key(a), name_key(b)
    if len(ka) == len(kb) and sum(x != y for x, y in zip(ka, kb)) == 1:
        return True
    return jamo_edits(a, b) <= tuning.neighbour_edits


def verify_match(m: NameMatch, cell_ink: np.ndarray | None, column: str, vocab: Vocabulary,
                 every_candidate: bool = False, read: str = "", tuning: NameTuning = NAMES) -> Verdict:
    """Render the match and its plausible rivals; confirm, veto or pick (ocr_verify.decide;
    `read`: the OCR text the match came from).
    `every_candidate`: render all of them, even after an exact read (a read of a less
    trusted model: one Latin letter misread is another card's exact name)."""
    sure = ocr_sure(m)
    near: frozenset[int] = frozenset()
    plausible = [c for c, _, s in m.candidates if s >= m.score - tuning.plausible]
    if every_candidate:
        plausible = [c for c, _, _ in m.candidates]
    elif sure and m.score >= 1.0:
        # An exact read: rivals are the namesakes OCR cannot see, and names a jamo or two away
        # (미지/마지 개구리, 신의 경고/충고) or one word longer, which OCR noise can spell.
        near = frozenset(c for c, n, s in m.candidates
                         if c != m.card_id and is_near(n, m.name, tuning))
        plausible = [c for c, _, s in m.candidates if s >= tuning.neighbour or c == m.card_id or c in near]
    elif sure:
        # A sure but inexact read (`스콤 슈터` → 스톰 슈터 0.89): a syllable-near runner-up that
        # renders as well is as likely (스쿱 슈터 0.78 by OCR, rendered 0.73 against 0.71).
        near = frozenset(c for c, n, _ in m.candidates
                         if c != m.card_id and c in plausible and is_near(n, m.name, tuning))
    ocr_scores = {c: s for c, _, s in m.candidates if c in plausible}
    rivals = vocab.rivals(plausible, column)
    if sure and m.score >= 1.0 and len(plausible) == 1 and not rivals.get(m.card_id) and not every_candidate:
        return Verdict(m.card_id, True)  # no real name near the read: nothing to tell apart
    unwritable = frozenset(c for c in ocr_scores if vocab.unwritable(c))
    return decide(vocab.renderer, cell_ink, m.card_id, sure, ocr_scores, rivals, vocab.names, read, near,
                  unwritable)


def _read_again(upscaled: np.ndarray, tess: Tesseract, vocab: Vocabulary,
                column: str, tuning: NameTuning = NAMES) -> int | None:
    """The card an exact second read of the cell at another scale names, else None."""
    again = tess.read(cv2.resize(upscaled, None, fx=tuning.second_scale, fy=tuning.second_scale,
                                 interpolation=cv2.INTER_CUBIC), lang="kor", psm=7)
    m = vocab.match(again.text, column) if again.text.strip() else None
    return m.card_id if m is not None and m.score >= 1.0 else None


def _with_pick(m: NameMatch, pick: int, vocab: Vocabulary) -> NameMatch:
    """The match re-pointed at the card the rendering picked (its OCR score kept)."""
    score = next((s for c, _, s in m.candidates if c == pick), m.score)
    others = [s for c, _, s in m.candidates if c != pick]
    return NameMatch(pick, vocab.names[pick], max(score, NAME_ACCEPT),
                     max(score, NAME_ACCEPT) - max(others, default=0.0), m.candidates)


def tesseract_image(cell: np.ndarray, scale: float, tuning: NameTuning = NAMES) -> np.ndarray | None:
    """The cell cut to its ink with a white margin, scaled for Tesseract; None with no ink."""
    ys, xs = np.nonzero(cell < INK_GLYPH)
    if len(xs) < tuning.min_ink_px:
        return None
    pad = tuning.tesseract_pad
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    out = np.full((y1 - y0 + 2 * pad, x1 - x0 + 2 * pad), 255, np.uint8)
    out[pad:pad + y1 - y0, pad:pad + x1 - x0] = cell[y0:y1, x0:x1]
    if scale > tuning.upscale_from:
        out = cv2.resize(out, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    return out


def _leading_ink(cell: np.ndarray) -> np.ndarray:
    """The cell's ink as the row-number cuts see it: rule remnants and lone specks taken out."""
    ink = strip_rule_remnants((cell < ink_level(cell)).astype(np.uint8)).astype(bool)
    ink[:, ink.sum(axis=0) < 2] = False  # lone specks
    return ink


def without_row_number(cell: np.ndarray, how: RowNumberCut = NAMES.first_cut) -> np.ndarray:
    """The cell with a row number printed against the name's start (`₂마운틴 워리어`, as some
    exports print it) painted out: at the left end, a run of columns whose ink is small and sits
    on the baseline, before the first column that reaches the top of the line (the digits may
    touch the first letter). Unchanged when there is none."""
    ink = _leading_ink(cell)
    rows = np.flatnonzero(ink.any(axis=1))
    cols = np.flatnonzero(ink.any(axis=0))
    if rows.size == 0 or cols.size == 0:
        return cell
    top, bottom = rows[0], rows[-1] + 1
    h = bottom - top
    first_top = np.where(ink.any(axis=0), np.argmax(ink, axis=0), bottom + 1)  # blank: below all
    x0 = cols[0]
    x = x0
    while x < ink.shape[1] and first_top[x] > top + how.number_top * h:
        x += 1  # the low start of the line, up to the first glyph that reaches the top
    if x >= ink.shape[1]:
        return cell
    # The number ends at the last valley of the outline's top before that glyph: a blank
    # column, or where the digits meet a letter that starts low.
    run = first_top[x0:x]
    cut = None
    for c in range(len(run) - 1, 0, -1):
        if run[c] >= top + how.valley * h and run[c] >= run[c - 1] and (c + 1 >= len(run) or run[c] >= run[c + 1]):
            cut = x0 + c
            break
    if cut is None:
        return cell
    lead = ink[:, x0:cut]
    lead_rows = np.flatnonzero(lead.any(axis=1))
    if lead_rows.size == 0:
        return cell
    lead_top, lead_bottom = lead_rows[0], lead_rows[-1] + 1
    width = cut - x0
    if (width < how.min_width * h or width > how.max_width * h or lead_top < top + how.number_top * h
            or lead_bottom < bottom - how.base * h or lead_bottom - lead_top < how.min_height * h):
        return cell
    out = cell.copy()
    out[:, :cut] = 255
    return out


def _hangul_share(text: str) -> float:
    """Share of Hangul syllables among the non-space characters of an OCR read."""
    chars = [c for c in text if not c.isspace()]
    return sum(1 for c in chars if "가" <= c <= "힣") / len(chars) if chars else 0.0


def mark_ink(cell: np.ndarray, tuning: NameTuning = NAMES) -> np.ndarray:
    """The cell's ink (darker than INK_GLYPH) without specks and without the rule bits a warped
    or leaning photo leaves along the cell's top and bottom edges (an empty row of a small,
    soft photo kept both, and its ink then ran the cell's whole height: no longer "a small
    mark", so the row was read and its noise became a line to review)."""
    ink = (cell < INK_GLYPH).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    h = cell.shape[0]
    top, bottom = stats[:, cv2.CC_STAT_TOP], stats[:, cv2.CC_STAT_TOP] + stats[:, cv2.CC_STAT_HEIGHT]
    keep = ((stats[:, cv2.CC_STAT_AREA] >= tuning.speck_area)
            & (bottom > tuning.mark_edge * h) & (top < (1 - tuning.mark_edge) * h))
    keep[0] = False  # the background
    return keep[labels]


def only_row_number(cell: np.ndarray, tuning: NameTuning = NAMES) -> bool:
    """The cell's only ink is a small mark at its left end: the printed row number of an empty
    row, by its shape alone (blurred 6 pt digits often read as nothing or as `| |`)."""
    ink = mark_ink(cell, tuning)
    ink[:, ink.sum(axis=0) < 2] = False  # lone specks
    ys, xs = np.nonzero(ink)
    if xs.size < tuning.min_ink_px:
        return False
    h, w = cell.shape[:2]
    return bool(ys.max() - ys.min() + 1 < tuning.row_number_height * h
                and xs.min() < tuning.row_number_left * w
                and xs.max() - xs.min() + 1 < tuning.row_number_width * h)


@dataclass(frozen=True)
class NameCell:
    """One name cell and what every attempt at it reads it with."""

    image: np.ndarray
    """The cell as cropped from the clean page."""
    column: str
    tess: Tesseract
    vocab: Vocabulary
    scale: float = 1.0
    """Brings the cell's text to the height Tesseract reads best."""
    numbers_in_cell: bool = True
    """The sheet may print the row number inside the name cell (False when the grid found a
    row-number column: cutting a "number" would only maim a first letter the cell's edge clipped)."""
    row_numbers: bool = True
    """The layout prints row numbers at all (Konami's form does not: a short line `kor` reads as
    a digit or two is a name in capitals, `EXP` read `6`, never an empty row's number)."""
    tuning: NameTuning = NAMES


@dataclass(frozen=True)
class NameAttempt:
    """One named way of reading a name cell. A reader is an ordered list of them
    (`read_by_attempts`): the first always runs, and its read stands unless a later attempt
    decides; a later one runs only when it `applies` to that first read, and decides when it
    returns a read (None: it does not)."""

    name: str
    read: Callable[[NameCell, NameRead | None], NameRead | None]
    applies: Callable[[NameCell, NameRead], bool] = lambda cell, first: True


def read_by_attempts(cell: NameCell, attempts: Sequence[NameAttempt]) -> NameRead:
    """The read of the first attempt that decides, `NameRead.attempt` naming it."""
    head, *rest = attempts
    first = head.read(cell, None)
    assert first is not None, f"the first attempt ({head.name}) always reads"
    first = decided_by(first, head.name)
    for attempt in rest:
        if attempt.applies(cell, first):
            got = attempt.read(cell, first)
            if got is not None:
                return decided_by(got, attempt.name)
    return first


def decided_by(read: NameRead, attempt: str) -> NameRead:
    """The read, its `attempt` prefixed with the cell attempt that gave it."""
    return replace(read, attempt=f"{attempt}: {read.attempt}" if read.attempt else attempt)


def unresolved(cell: NameCell, first: NameRead) -> bool:
    """The first read did not resolve, on a cell that may hold a row number or its rule."""
    return cell.numbers_in_cell and bool(first.flags) and not first.row_number_only


def unresolved_numbered(cell: NameCell, first: NameRead) -> bool:
    """…and the layout prints row numbers (one that prints none has none to cut: only a first
    letter)."""
    return cell.row_numbers and unresolved(cell, first)


def _as_cut(cell: NameCell, first: NameRead | None) -> NameRead:
    return read_name_once(cell.image, cell.column, cell.tess, cell.vocab, cell.scale, cell.numbers_in_cell,
                          cell.row_numbers, tuning=cell.tuning)


def _glued_number(cell: NameCell, first: NameRead | None) -> NameRead | None:
    # Any unresolved read, not only one that starts with digits: a number glued to a Latin
    # capital (`9Alligator's`, `1No.57`) reads as junk letters or more digits (`1840.57`).
    vocab, column = cell.vocab, cell.column
    retry = glued_number_retry(cell.image, column, cell.tess, vocab, cell.scale, first=first, tuning=cell.tuning)
    if (retry is not None and not retry.flags and retry.match.card_id is not None
            and (not vocab.may_be_cut_off(retry.match.card_id, column)
                 or cut_too_narrow_for_a_prefix(cell.image, retry.match.card_id, column, vocab, cell.tuning))):
        return retry
    return None


def _number_rule(cell: NameCell, first: NameRead | None) -> NameRead | None:
    retry = number_rule_retry(cell.image, cell.column, cell.tess, cell.vocab, cell.scale, cell.tuning)
    return retry if retry is not None and (retry.row_number_only or not retry.flags) else None


NAME_ATTEMPTS: tuple[NameAttempt, ...] = (
    NameAttempt("as-cut", _as_cut),
    NameAttempt("glued-number", _glued_number, unresolved_numbered),
    NameAttempt("number-rule", _number_rule, unresolved),
)
"""The Korean reader's attempts, in order:
- `as-cut`: the cell as the grid cut it, a row number printed against the name cut off by the
  first look's height test (`read_name_once`);
- `glued-number`: a read that did not resolve, read again with a number glued to the name's
  start cut at a looser height (`1클러스터`, `glued_number_retry`); it decides only when the name
  then stands on its own and is no other card's name cut short (`Vocabulary.may_be_cut_off`,
  unless the cut is too narrow for that start);
- `number-rule`: read again without a row-number rule the grid missed (`number_rule_retry`);
  it decides when it resolves, or finds the cell holds only the number (an empty row)."""


def read_name(cell: np.ndarray, column: str, tess: Tesseract, vocab: Vocabulary,
              scale: float = 1.0, numbers_in_cell: bool = True, row_numbers: bool = True,
              tuning: NameTuning = NAMES) -> NameRead:
    """Read one name cell by `NAME_ATTEMPTS` (the arguments as `NameCell`'s)."""
    return read_by_attempts(NameCell(cell, column, tess, vocab, scale, numbers_in_cell, row_numbers, tuning),
                            NAME_ATTEMPTS)


def cut_too_narrow_for_a_prefix(cell: np.ndarray, card_id: int, column: str, vocab: Vocabulary,
                                tuning: NameTuning = NAMES) -> bool:
    """The ink the looser row-number cut took from `cell` is far narrower than what any longer
    card ending in this card's name would have there (`1콘택트`: the `1` cannot be the `Ai－` of
    `Ai－콘택트`), so the cut took a row number, not a name's start."""
    prefixes = vocab.cut_prefixes(card_id, column)
    r = vocab.renderer
    if not prefixes or not r.usable:
        return False
    cut = looser_number_cut(cell, tuning)  # the cut `glued_number_retry` read
    if cut is None:
        return False
    taken = (cell < ink_level(cell)) & ~(cut < ink_level(cell))
    name_ink = cell_name_ink(cut)
    if not taken.any() or name_ink is None:
        return False
    xs = np.flatnonzero(taken.any(axis=0))
    taken_w = xs.max() + 1 - xs.min()
    h = name_ink.shape[0]
    short = vocab.names[card_id]
    for fam in [r.family] if r.family else list(r.families):
        for prefix in prefixes:
            full, alone = r.rendered(prefix + short, fam), r.rendered(short, fam)
            if full is None or alone is None:
                return False
            # the start's width at the line's height (both drawn at the same size)
            start_w = (full.shape[1] - alone.shape[1]) * h / full.shape[0]
            if taken_w >= tuning.prefix_width_share * start_w:
                return False
    return True


def without_number_rule(cell: np.ndarray, tuning: NameTuning = NAMES) -> np.ndarray | None:
    """The cell with a row-number column's rule the grid missed (dashed, blurred) painted out,
    with the number left of it: near the cell's left end, a run of ink columns holding a stroke
    taller than the ink right of the run and than `number_rule_height` of the cell (no first
    letter is: `I`, `l` and `1` are shorter than Hangul). None when there is no such stroke."""
    cut: int | None
    ink = _leading_ink(cell)
    on = ink.any(axis=0)
    h, w = ink.shape
    top = np.argmax(ink, axis=0)
    bottom = h - np.argmax(ink[::-1], axis=0)
    edge = int(tuning.rule_bits_edge * h)
    x, cut = 0, None
    while x < int(tuning.row_number_left * w):
        if not on[x]:
            x += 1
            continue
        end = x
        while end < w and on[end]:
            end += 1  # one run of ink columns: [x, end)
        # (bits of dashed row rules hug the cell's top and bottom: not the name's height)
        rest_rows = np.flatnonzero(ink[edge:h - edge, end:].any(axis=1))
        rest_h = rest_rows[-1] + 1 - rest_rows[0] if rest_rows.size else 0
        tallest = int((bottom[x:end] - top[x:end]).max())
        if end - x <= tuning.number_rule_run * h and tallest >= max(tuning.number_rule_height * h, rest_h + 2):
            cut = end  # the rightmost such run (a sliver of the table's own left rule may come first)
        x = end
    if cut is None:
        return None
    out = cell.copy()
    out[:, :cut] = 255
    return out


def number_rule_retry(cell: np.ndarray, column: str, tess: Tesseract, vocab: Vocabulary,
                      scale: float, tuning: NameTuning = NAMES) -> NameRead | None:
    """The cell read again without a row-number rule (and number) the grid missed; a cell
    holding nothing else is an empty row. None when there is no such rule."""
    cut = without_number_rule(cell, tuning)
    if cut is None:
        return None
    if only_row_number(cut, tuning) or tesseract_image(cut, scale, tuning) is None:
        return empty_read(row_number_only=True)
    return read_name_once(cut, column, tess, vocab, scale, numbers_in_cell=True, tuning=tuning)


def empty_read(row_number_only: bool = False, text: str = "", confidence: float = 0.0) -> NameRead:
    """A cell that names no card (nothing read, or only a row number)."""
    return NameRead(text, confidence, NameMatch(None, "", 0.0, 0.0), [Reason.UNRESOLVED_NAME],
                    row_number_only=row_number_only, attempt="row-number" if row_number_only else "no-ink")


SPACED_NUMBER = re.compile(r"\s*[0-9]{1,2}\.?\s+\S")
"""A read that starts with a number standing apart from the name (`12 DDD…`, `3. 천년 골렘`)."""


def spaced_number_cuts(cell: np.ndarray, tuning: NameTuning = NAMES) -> list[np.ndarray]:
    """The cell with its leading ink painted out up to a blank run at least `number_gap` line
    heights wide that ends no further than a row number is wide (`row_number_width`), when the
    ink starts within `row_number_left` of the cell: the two widest such runs, widest first
    (the digits of `12` stand apart too, and so may a name's first word). Only for a read that
    saw a separate number there (`SPACED_NUMBER`): the gap, not the digits' height, tells it."""
    ink = _leading_ink(cell)
    rows = np.flatnonzero(ink.any(axis=1))
    cols = np.flatnonzero(ink.any(axis=0))
    if rows.size == 0 or cols.size < 2 or cols[0] > tuning.row_number_left * cell.shape[1]:
        return []
    h = rows[-1] + 1 - rows[0]
    steps = np.diff(cols)
    gaps = [g for g in np.flatnonzero(steps > tuning.number_gap * h)
            if cols[g] + 1 - cols[0] <= tuning.row_number_width * cell.shape[0]]
    cuts = []
    for g in sorted(gaps, key=lambda g: -steps[g])[:2]:
        out = cell.copy()
        out[:, :cols[g] + 1] = 255
        cuts.append(out)
    return cuts


def looser_number_cut(cell: np.ndarray, tuning: NameTuning = NAMES) -> np.ndarray | None:
    """The cell with its leading small digits cut by the looser height test (and, when that
    finds no valley deep enough, by the shallower one); None when that cuts nothing more than
    the first look's cut."""
    first_cut = without_row_number(cell, tuning.first_cut)
    cut = without_row_number(cell, tuning.looser_cut)
    if np.array_equal(cut, first_cut):
        # (Only now: a shallow valley may lie inside a letter that starts low, ㅅ's diagonal.)
        cut = without_row_number(cell, tuning.shallow_cut)
    return None if np.array_equal(cut, first_cut) else cut


def glued_number_retry(cell: np.ndarray, column: str, tess: Tesseract, vocab: Vocabulary,
                       scale: float, first: NameRead | None = None, tuning: NameTuning = NAMES
                       ) -> NameRead | None:
    """The cell read again with its leading small digits cut by the looser height test (and,
    when that finds no valley deep enough, by the shallower one); None when that cuts nothing
    more than the first read did. Kept by the caller only when the name then stands on its own
    (sure match and rendering check) and no card of the column is that name with a few letters
    before it (`Vocabulary.may_be_cut_off`): a real first letter wrongly cut then leaves ink
    that fits no card, and the line stays flagged. When the cut cell does not resolve, `first`
    (the first look's read) may still: its sure match, checked against the cut cell's ink."""
    cut = looser_number_cut(cell, tuning)
    if cut is not None:
        return _read_cut(cut, column, tess, vocab, scale, first, tuning)
    number = SPACED_NUMBER.match(first.text) if first is not None else None
    if number is None:
        return None
    rest = first.text[number.end() - 1:]
    for cut in spaced_number_cuts(cell, tuning):
        again = _read_cut(cut, column, tess, vocab, scale, first, tuning)
        # The cut took only the number OCR saw: what is left reads as the rest of the first read
        # (a gap after a name's first word is no row number's: `17 툰 드래곤 에그`).
        if (not again.flags and again.match.card_id is not None
                and jamo_likeness(rest, again.match.name) >= tuning.number_rest):
            return again
    return None


def _read_cut(cut: np.ndarray, column: str, tess: Tesseract, vocab: Vocabulary, scale: float,
              first: NameRead | None, tuning: NameTuning) -> NameRead:
    again = read_name_once(cut, column, tess, vocab, scale, numbers_in_cell=False, tuning=tuning)
    if again.flags and first is not None and ocr_sure(first.match):
        # The cut cell reads worse (a soft photo's Latin letters are read once right, once as
        # junk: `2Ga - PUNK.` then `Ga -ㅁ401.`): the first read's sure match, its text holding
        # the number, is checked by rendering against the cut cell's ink. It stands only when
        # the rendering confirms that card, fitting it at least at R_AGREE (not merely not
        # contradicting it): a real first letter cut leaves ink that is not the name, and a
        # rival the cut ink fits better vetoes it.
        ink = cell_name_ink(cut)
        verdict = verify_match(first.match, ink, column, vocab, read=first.text, tuning=tuning)
        card = first.match.card_id
        if verdict.sure and verdict.card_id == card and verdict.scores.get(card, 0.0) >= R_AGREE:
            return NameRead(first.text, first.confidence, first.match, [], verdict,
                            "read with its row number, rendering checked without it",
                            attempt="first-read-checked")
    return again


@dataclass(frozen=True)
class OcrRead:
    """One more Tesseract reading of a name cell the reads before it left unsure: its match
    replaces theirs when it scores higher, and is checked by rendering again."""

    name: str
    lang: str
    when: Callable[[str, Verdict | None, NameTuning], bool]
    """(the first `kor` text, the verdict so far, the tuning) → whether to read."""
    every_candidate: bool = False
    """Render every candidate, even after an exact read (`verify_match`)."""


def _unsure(first_text: str, verdict: Verdict | None, tuning: NameTuning) -> bool:
    return verdict is None or not verdict.sure


def _unsure_and_not_hangul(first_text: str, verdict: Verdict | None, tuning: NameTuning) -> bool:
    return _unsure(first_text, verdict, tuning) and _hangul_share(first_text) < tuning.latin_read


FALLBACK_READS: tuple[OcrRead, ...] = (
    OcrRead("kor+eng", "kor+eng", _unsure),
    OcrRead("eng", "eng", _unsure_and_not_hangul, every_candidate=True),
)
"""After `kor` (psm 7, then the raw-line psm 13 when it returns nothing): `kor+eng` when the
name is unsure (Latin letters, ☆, ・ are beyond `kor`); `eng` when it is still unsure and `kor`
read mostly no Hangul (a name of Latin letters only, F·G·D: at some scales kor+eng still answers
with the Korean model's junk, while eng alone reads the letters; one Latin letter misread is
another card's exact name, so every candidate is rendered)."""


def read_name_once(cell: np.ndarray, column: str, tess: Tesseract, vocab: Vocabulary,
                   scale: float = 1.0, numbers_in_cell: bool = True, row_numbers: bool = True,
                   tuning: NameTuning = NAMES) -> NameRead:
    """Read one name cell (the arguments as `NameCell`'s): `kor`, then `FALLBACK_READS`, each
    match checked by rendering; a tie the rendering leaves may be settled by a second read at
    another scale (`read-again`) or by reading the run of digits or letters namesakes differ in
    (`namesake-run`). `NameRead.attempt` names the reading that gave the match and what settled it."""
    if numbers_in_cell:
        if only_row_number(cell, tuning):
            return empty_read(row_number_only=True)
        cell = without_row_number(cell, tuning.first_cut)
    upscaled = tesseract_image(cell, scale, tuning)
    if upscaled is None:
        return empty_read()
    cell_ink = cell_name_ink(cell)
    got = tess.read(upscaled, lang="kor", psm=7)
    if not got.text.strip():
        # psm 7 sometimes returns nothing for a plain, legible line (seen with serif fonts on
        # grey paper); the raw-line mode has no layout step to lose it in.
        got = tess.read(upscaled, lang="kor", psm=13)
    text, conf, by = got.text, got.confidence, "kor"
    if (row_numbers and re.fullmatch(r"[0-9]{1,2}", text.replace(" ", "")) and cell_ink is not None
            and cell_ink.shape[0] < tuning.row_number_height * cell.shape[0]):
        return empty_read(row_number_only=True, text=text, confidence=conf)
    match = vocab.match(text, column) if text else NameMatch(None, "", 0.0, 0.0)
    if match.card_id is not None and not ocr_sure(match):
        match = vocab.match(text, column, limit=tuning.unsure_candidates)  # more for the rendering
    verdict = (verify_match(match, cell_ink, column, vocab, read=text, tuning=tuning)
               if match.card_id is not None else None)
    for step in FALLBACK_READS:
        if not step.when(got.text, verdict, tuning):
            continue
        alt = tess.read(upscaled, lang=step.lang, psm=7)
        alt_match = vocab.match(alt.text, column, limit=tuning.unsure_candidates) if alt.text else match
        if alt_match.score > match.score:
            text, conf, match, by = alt.text, alt.confidence, alt_match, step.name
            verdict = verify_match(match, cell_ink, column, vocab, every_candidate=step.every_candidate,
                                   read=text, tuning=tuning)
    if (verdict is not None and verdict.tie is not None
            and _read_again(upscaled, tess, vocab, column, tuning) == match.card_id):
        # The rendering could not tell the read from a near name; a second read agreeing settles it.
        verdict = Verdict(match.card_id, True, detail=f"read again as {match.name}", scores=verdict.scores)
        by += ", read-again"
    if verdict is not None and not verdict.sure and verdict.scores:
        # Left between namesakes that differ in a run of digits/letters (`LV6`/`LV8`): that run,
        # read again on its own, may settle it (`namesake_part`).
        top = max(verdict.scores, key=verdict.scores.get)
        settled = settle_by_run(cell_ink, verdict, match.card_id, vocab.names,
                                vocab.rivals([top], column)[top], vocab.renderer, tess)
        if settled is not None:
            verdict = settled
            by += ", namesake-run"
    if verdict is not None and verdict.sure and verdict.card_id is not None:
        pick = verdict.card_id
        doubt = glyph_run_doubt(cell_ink, pick, vocab.names, vocab.rivals([pick], column)[pick], vocab.renderer)
        if doubt is not None:
            verdict = Verdict(pick, False, Reason.AMBIGUOUS_NAME, f"{vocab.names[pick]}: {doubt}", verdict.scores)
    match, flags, detail = name_flags(match, verdict, text, cell_ink, column, vocab)
    return NameRead(text, conf, match, flags, verdict, detail, attempt=by)


def name_flags(match: NameMatch, verdict: Verdict | None, text: str, cell_ink: np.ndarray | None,
               column: str, vocab: Vocabulary, learn_beside_rivals: bool = False
               ) -> tuple[NameMatch, list[str], str]:
    """(match, flags, detail) of a read whose rendering check gave `verdict`: a sure verdict
    re-points the match at its card (the rendering vouches for it) and, for an exact read, teaches
    the renderer the page's font (`learn_beside_rivals`: even when namesakes OCR cannot tell
    apart exist); else the read is flagged by its score (`thresholds.NAME_GUESS`, `NAME_ACCEPT`)."""
    flags: list[str] = []
    detail = ""
    if verdict is not None and verdict.sure and verdict.card_id is not None:
        if verdict.card_id != match.card_id or match.score < NAME_ACCEPT:
            match = _with_pick(match, verdict.card_id, vocab)  # the rendering vouches for it
        if (match.score >= 1.0 and cell_ink is not None
                and (learn_beside_rivals or not vocab.rivals([match.card_id], column)[match.card_id])):
            vocab.renderer.observe(cell_ink, match.name)
        detail = verdict.detail
    elif not text or match.score < NAME_GUESS:
        flags.append(Reason.UNRESOLVED_NAME)
    elif match.score < NAME_ACCEPT:
        flags.append(Reason.UNCERTAIN_NAME)
    else:
        flags.append(verdict.reason if verdict is not None and verdict.reason else Reason.AMBIGUOUS_NAME)
    if flags and verdict is not None:
        detail = verdict.detail
    return match, flags, detail
