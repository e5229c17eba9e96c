"""The page's own hand: a form's sure written lines teach how its writer draws syllables, and its
doubtful lines are weighed again by them (issue 35 part 1).

A written name's syllables are compared with drawings of the card-name syllables in four tuning
hands (`hand_syllables.name_likeness`); a writer unlike those four is the largest cause of the
wrong lines left. But a form holds 30-40 names by one writer, and most are read surely (several
reads name the card, by a wide lead). After the form's rows are read, each sure line's ink is cut
into its card's syllables (`hand_syllables.name_cuts`, as for any candidate) and each piece kept
as the page's own drawing of that syllable, unless it is unlike the drawn hands' (a sure line
read wrong, or cut wrong, must not teach a wrong syllable: `drawn_floor`).

Few of a doubtful name's syllables are on the page (of the tuning sets' right cards left behind,
14 of 223), so what the page teaches is how its writer differs from the drawn hands as a whole:
the mean of its drawings against the mean of the same syllables' drawings. A piece of ink and a
syllable's mean drawing are compared less those means (what sets this syllable apart, not how
this writer writes every syllable), and that likeness is mixed with the drawn hands' own
(`mix`). A doubtful line (one whose syllables `hand_names.fuse` weighed, its lead still under
`doubt_lead`) has its candidates weighed again so, with the cards the column's pool, searched
by its ink compared the same way (`hand_candidates.propose`'s `centre`), adds. The page's own
drawing of a syllable it holds may be mixed in too (`own_mix`; it did worse on the tuning sets).

The second pass only re-ranks. A line whose card it changes is marked (`RowRead.page_hand`),
keeps its flags, is never accepted on evidence (`evidence.py`; a card only the ink proposed is
no read's best either), and its certainty is no higher than before (the doubtful stay first).
Offline on the tuning sets' reads (3502, 3504: 902 written names) 751 → 757 right; ≈ 0.03-0.07 s
a form (bench/README.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from scanner.ocr.hand_candidates import INK_SEARCH, mean_drawing, measured_pieces, propose
from scanner.ocr.hand_namesakes import by_namesake_run
from scanner.ocr.hand_names import (INK, FuseParts, by_syllable_likeness, flagged, fused_match, name_certainty,
                                    reads_score, run_drawings)
from scanner.ocr.hand_syllables import (CARD_NET, CardNetTuning, _is_syllable, card_net_outputs, card_net_terms,
                                        name_cuts, nearest_likeness, syllable_drawings)
from scanner.ocr.names import Vocabulary
from scanner.ocr.rows import NAME_FLAGS, RowRead
from scanner.ocr.verify import ink_level


@dataclass(frozen=True)
class PageHandTuning:
    """Which lines teach the page's hand, and how much its drawings weigh."""

    sure_agree: int = 2
    """A line teaches when at least this many of its reads name its card as their own best…"""
    sure_certainty: float = 0.9
    """…its name's certainty (`hand_names.name_certainty`) is at least this…"""
    sure_lead: float = 0.1
    """…and its card leads the next by at least this."""
    drawn_floor: float = 0.5
    """A sure line's syllable less like that syllable's drawings (mean of the nearest, as
    `name_likeness`) than this teaches nothing (cut wrong, or the line's card wrong; 0.45, 0.5,
    0.55 → +3, +4, +2 right on the tuning sets)."""
    least_lines: int = 4
    """Fewer teaching lines than this: the page teaches nothing (too little of its hand)."""
    mix: float = 0.4
    """A syllable's likeness: this share is its likeness to the syllable's mean drawing, both
    measured from the page's own hand (the piece less the mean of the page's drawings, the mean
    drawing less the mean of the drawn hands' same syllables: what sets a syllable apart, not
    how this writer writes every syllable), the rest its likeness to the drawn hands as
    `name_likeness` measures it. Offline on the tuning sets' reads (3502, 3504, 902 written
    names; `drawn_floor` 0.5, no page proposals): 0.3, 0.4, 1.0 → +1, +4, 0 right; with
    them 0.4, 0.6, 0.8 → +6, +2, +3."""
    own_mix: float = 0.0
    """A syllable the page itself holds: this share of its likeness is its nearest page drawing
    (0.2, 0.3, 0.5 → −1 to −4 on the tuning sets: a candidate of syllables the page holds wins
    by that alone, and few right candidates' syllables are on the page: 14 of 223)."""
    proposals: int = 2
    """Cards the column's pool, searched by the ink compared in the page's hand (pieces less the
    page's mean drawing, drawings less the drawn hands' mean: `hand_candidates.propose`'s
    `centre`), adds to a doubtful line's candidates (0: none). Of the tuning sets' 120 wrong
    doubtful lines whose card was among no candidate, the search puts it in its first two 6
    times as the drawn hands are compared, 14 centred. Offline (3502 + 3504 reads replayed):
    0, 1, 2, 3 → +4, +5, +6, +5 right (one lost: 플레임벨 매지컬 → 볼캐닉 에지, flagged)."""
    change_lead: float = 0.0
    """The page's best card replaces the line's only when it leads the next by at least this
    (tuning sets: 0, 0.01, 0.02, 0.04 → +6, +4, +4, +2 right; a wrong line changed to another
    wrong card, flagged as before, 20, 14, 10, 4 times)."""
    doubt_lead: float = 0.03
    """Lines whose card leads by less than this (of those whose syllables were weighed) are
    weighed again (tuning sets, before page proposals: 0.02, 0.03, 0.05, any → +2, +4, +4, +4
    right, the second pass 0.034, 0.047, 0.056, 0.090 s a form at the median; with them 0.03,
    0.05, 0.08 → +6, +5, +6)."""


PAGE_HAND = PageHandTuning()


@dataclass
class PageDrawings:
    """The page's own drawings of syllables (unit `syllable_features` rows per syllable)."""

    rows: dict[str, list[np.ndarray]] = field(default_factory=dict)
    lines: int = 0
    """Sure lines that taught them."""
    page_mean: np.ndarray | None = None
    """The mean of the page's drawings…"""
    drawn_mean: np.ndarray | None = None
    """…and of their syllables' mean drawings in the drawn hands."""

    def likeness(self, mask: np.ndarray, name: str, tuning: PageHandTuning = PAGE_HAND,
                 seen: dict[tuple[int, int], np.ndarray] | None = None, net: CardNetTuning = CARD_NET) -> float | None:
        """`hand_syllables.name_likeness` (the drawn hands' likeness, the card-syllable network's
        term mixed in as there) with the page's hand mixed in (`PageHandTuning.mix`); `seen`: the
        pieces of this ink measured so far (the candidates of a line share cuts)."""
        seen = {} if seen is None else seen
        laid = _laid(mask, name, seen)
        if laid is None:
            return None
        inked = [(ch, seen[(a, b)]) for ch, a, b, _ in laid if seen[(a, b)].any()]
        terms = iter(card_net_terms(np.array([f for _, f in inked], np.float32),
                                    card_net_outputs("".join(ch for ch, _ in inked)), net)
                     if net.weight and inked else [])
        likes = []
        for ch, a, b, drawn in laid:
            f = seen[(a, b)]
            if not f.any():
                likes.append(0.0)
                continue
            d = nearest_likeness(drawn, f)
            t = next(terms, None)
            if t is not None and np.isfinite(t):
                d = (1 - net.weight) * d + net.weight * float(t)
            m, g = mean_drawing(ch) - self.drawn_mean, f - self.page_mean
            centred = float(m @ g) / max(1e-6, float(np.linalg.norm(m) * np.linalg.norm(g)))
            like = (1 - tuning.mix) * d + tuning.mix * centred
            own = self.rows.get(ch)
            if own and tuning.own_mix:
                like = (1 - tuning.own_mix) * like + tuning.own_mix * max(float(r @ f) for r in own)
            likes.append(like)
        return float(np.mean(likes)) if likes else None


def _laid(mask: np.ndarray, name: str, seen: dict[tuple[int, int], np.ndarray]
          ) -> list[tuple[str, int, int, np.ndarray]] | None:
    """`name`'s drawn syllables laid along the ink (`name_cuts`): (syllable, cut, cut, its
    drawings), each piece's features measured into `seen` (`hand_candidates.measured_pieces`);
    None: the name does not lie along it."""
    cuts = name_cuts(mask, name)
    if cuts is None:
        return None
    laid = [(ch, a, b, syllable_drawings(ch)) for ch, a, b in zip(name, cuts, cuts[1:]) if _is_syllable(ch)]
    laid = [x for x in laid if x[3] is not None]
    if laid:
        measured_pieces(mask, np.array([(a, b) for _, a, b, _ in laid], np.int64), seen)
    return laid


def sure(r: RowRead, tuning: PageHandTuning = PAGE_HAND) -> bool:
    """The written line is read surely enough to teach the page's hand."""
    return (r.handwritten and r.hand_parts is not None and r.hand_parts.ink is not None
            and r.match.card_id is not None and not r.struck_row and r.name_certainty is not None
            and r.name_agree >= tuning.sure_agree and r.name_certainty >= tuning.sure_certainty
            and r.match.margin >= tuning.sure_lead)


def learn(rows: list[RowRead], tuning: PageHandTuning = PAGE_HAND) -> PageDrawings:
    """The page's drawings from its sure lines (`sure`), each syllable's piece kept only when it is
    like that syllable's drawings (`drawn_floor`)."""
    page = PageDrawings()
    drawn_means: list[np.ndarray] = []
    for r in rows:
        if not sure(r, tuning):
            continue
        ink = r.hand_parts.ink
        mask = ink < ink_level(ink)
        seen: dict[tuple[int, int], np.ndarray] = {}
        laid = _laid(mask, r.match.name, seen) if mask.any() else None
        if laid is None:
            continue
        kept = []
        for ch, a, b, drawn in laid:
            f = seen[(a, b)]
            if f.any() and nearest_likeness(drawn, f) >= tuning.drawn_floor:
                kept.append((ch, f))
        for ch, f in kept:
            page.rows.setdefault(ch, []).append(f)
            drawn_means.append(mean_drawing(ch))
        page.lines += bool(kept)
    if drawn_means:
        page.page_mean = np.mean([f for fs in page.rows.values() for f in fs], axis=0)
        page.drawn_mean = np.mean(drawn_means, axis=0)
    return page


def with_proposals(parts: FuseParts, page: PageDrawings, vocab: Vocabulary,
                   tuning: PageHandTuning = PAGE_HAND) -> tuple[list[tuple[float, int]], frozenset[int]]:
    """The line's candidates and the cards the column's pool, searched by the ink compared in the
    page's hand (`hand_candidates.propose`, centred), adds (scored by the reads as `fuse` scores
    them); and all the cards only the ink proposed."""
    have = {cid for _, cid in parts.before_syllables}
    ids, _ = vocab.by_column.get(parts.column) or vocab.by_column["side"]
    mask = parts.ink < ink_level(parts.ink)
    found = [cid for cid, _ in propose(mask, ids, vocab.names, parts.offset, replace(INK_SEARCH, proposals=tuning.proposals),
                                       centre=(page.page_mean, page.drawn_mean), memo=parts.pieces) if cid not in have]
    scored = sorted(parts.before_syllables + [(reads_score(vocab.names[c], parts.keys, parts.aspect, parts.offset), c)
                                              for c in found], key=lambda x: (-x[0], x[1]))
    return scored, parts.proposed | frozenset(found)


def second_pass(rows: list[RowRead], vocab: Vocabulary, tuning: PageHandTuning = PAGE_HAND) -> int:
    """The doubtful written lines' candidates weighed again by the page's own drawings (`learn`);
    a line whose card changes takes the new card as its answer, flagged as before, its
    certainty no higher, marked `page_hand`. How many changed. The pieces the ink search
    measured and its likenesses (`FuseParts.pieces`, `searched`) are let go."""
    try:
        return _weigh_again(rows, vocab, tuning)
    finally:
        for r in rows:
            if r.hand_parts is not None:
                r.hand_parts.pieces, r.hand_parts.searched = {}, None


def _weigh_again(rows: list[RowRead], vocab: Vocabulary, tuning: PageHandTuning) -> int:
    doubtful = [r for r in rows if r.hand_parts is not None and r.hand_parts.before_syllables
                and r.hand_parts.ink is not None and not r.struck_row and r.match.margin < tuning.doubt_lead
                and not r.hand_parts.eng_first
                and (r.match.card_id is None or any(_is_syllable(c) for c in r.match.name))]
    # (a card of no syllable: nothing of the page's hand to weigh it by; a card `eng` put first for its
    # Latin prefix, `hand_latin`: the page's drawings of syllables are blind to the prefix it was told by)
    if not doubtful:
        return 0
    page = learn(rows, tuning)
    if page.lines < tuning.least_lines or page.page_mean is None:
        return 0
    changed = 0
    for r in doubtful:
        parts = r.hand_parts
        scored, proposed = parts.before_syllables, parts.proposed
        if tuning.proposals:
            scored, proposed = with_proposals(parts, page, vocab, tuning)
        seen = parts.pieces  # (the same ink's pieces: the search's and the candidates' cuts meet)
        scored = by_syllable_likeness(scored, parts.ink, vocab, INK, proposed,
                                      likeness=lambda mask, name: page.likeness(mask, name, tuning, seen),
                                      searched=parts.searched)
        scored = by_namesake_run(scored, parts.ink, vocab, run_drawings(INK))
        match, flags = flagged(fused_match(scored, vocab))
        if match.card_id == r.match.card_id or match.card_id is None or match.margin < tuning.change_lead:
            continue
        was = r.match.name or "no card"
        agree = sum(t == match.card_id for t in parts.tops)
        certainty = min(r.name_certainty or 0.0, name_certainty(match, agree, r.name_reads))
        r.match, r.name_agree, r.name_certainty = match, agree, certainty
        r.flags = [f for f in r.flags if f not in NAME_FLAGS] + flags
        r.page_hand = was
        r.name_detail = "; ".join(filter(None, [r.name_detail, f"the page's own hand: {was} → {match.name}"]))
        changed += 1
    return changed
