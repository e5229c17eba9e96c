"""A Hangul syllable written by hand in a player-name box → how likely it is each syllable names
are made of.

Tesseract's `kor` reads written Hangul poorly (a third of a name's parts right on the bench's
hand-filled forms), but a player's name is made of a small closed set: a surname among about a
hundred (`header.SURNAMES`) and given-name syllables among a few hundred
(`header.GIVEN_SYLLABLES`). Each written syllable is compared with those syllables drawn in
handwriting and print fonts (`tools/make_name_syllables.py` builds the shipped drawings'
features, `data/name_syllables.npz`): the likeness to the nearest drawings of each syllable
becomes odds, taken together with Tesseract's reads by the header reader.

No font of the faces `bench/bench_hand.py` measures on (`samples/kde_paper.py` HELD_OUT_FACES,
HELD_OUT_LATER) is drawn.

A written card name's first candidates are a closed set too (`name_likeness`): the ink is cut
into the candidate's own characters (at its printed advances, each cut moved to the column of
least ink nearby) and each Hangul syllable compared with that syllable drawn in four of those
hands (`NAME_FONTS`; every card-name syllable of the Korean database drawn once and shipped,
`data/card_syllables.npz` by `tools/make_card_syllables.py`; one a later database adds is drawn
when first asked for, kept). `hand_candidates` compares the same drawings with the ink of every
card of a column's pool.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scanner.ocr.small_net import SmallNet, load_small_net
from scanner.ocr.tools import shipped_data

MODEL_PATH = Path(__file__).resolve().parent / "data" / "name_syllables.npz"
NET_PATH = Path(__file__).resolve().parent / "data" / "name_net.npz"
"""A network over the same features that tells the name syllables apart (`net_odds`), trained by
`tools/make_name_net.py` on them drawn in more fonts, each slanted, turned, bent, thickened and
written small."""
FONTS = Path("/usr/share/fonts/truetype")
DRAWN_FONTS = ("nanum/NanumPen.ttf", "nanum/NanumBrush.ttf", "nanum/NanumBarunpenR.ttf",
               "nanum/NanumBarunpenB.ttf", "woowa-bm/BMYEONSUNG_ttf.ttf", "unfonts-extra/UnPenheulim.ttf",
               "woowa-bm/BMEuljirooraeorae.ttf", "nanum/NanumGothic.ttf", "nanum/NanumMyeongjo.ttf",
               "nanum/NanumSquareRoundR.ttf", "unfonts-core/UnDotum.ttf", "woowa-bm/BMJUA_ttf.ttf",
               "woowa-bm/BMHANNAAir_ttf.ttf", "unfonts-core/UnGungseo.ttf")
"""Handwriting faces the reader may be tuned on (kde_paper.TUNING_FACES) and others, and print
(those missing are skipped); none of the faces the bench measures on."""
DRAW_SIZE = 56
"""Pixel size syllables are drawn at…"""
DRAW_LEVEL = 127
"""…and the grey level (of 255) their ink is cut at."""
ADVANCE_FONT = "nanum/NanumGothic.ttf"
"""The font whose advances say where a card name's characters fall along its ink."""
HANGUL_FIRST, HANGUL_LAST = 0xAC00, 0xD7A3
"""The precomposed Hangul syllables (the only characters compared with drawings)."""
GRID = 32
"""A syllable's ink is stretched to GRID² (a hand's syllable is as wide as it pleases)."""
CELLS = 6
"""Orientation histograms are taken in CELLS × CELLS parts of the grid…"""
BINS = 8
"""…of this many stroke directions."""


@dataclass(frozen=True)
class SyllableTuning:
    """How a written syllable's likeness to the drawn ones becomes odds."""

    blur: float = 1.0
    """Sigma (grid px) the ink is blurred by before its direction is taken (stroke widths differ)."""
    nearest: int = 3
    """A syllable's likeness: the mean of its this many nearest drawings' likeness."""
    sharpness: float = 50.0
    """Likeness differences are multiplied by this before the softmax (with the header's
    `tesseract_weight`: the most names right on the tuning faces and the held-out sets 3501 and
    3503, every wrong one below 0.3 sure)."""
    net_weight: float = 0.5
    """The name-syllable network's odds (`net_odds`) weigh this much beside the nearest
    drawings' (a weighted geometric mean; 0: the drawings alone). The drawings hold the tuning
    faces themselves, the network has seen many hands warped: each errs where the other does not."""


TUNING = SyllableTuning()


def syllable_features(mask: np.ndarray, tuning: SyllableTuning = TUNING) -> np.ndarray:
    """A syllable's ink (bool mask, cropped) as unit-length stroke-direction histograms: its ink
    stretched to GRID², blurred, gradient directions binned per part of the grid."""
    m = mask.astype(np.float32)
    if m.size == 0 or m.max() <= 0:
        return np.zeros(CELLS * CELLS * BINS + CELLS * CELLS, np.float32)
    ys, xs = np.nonzero(m)
    m = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    small = cv2.resize(m, (GRID - 4, GRID - 4), interpolation=cv2.INTER_AREA)
    box = np.zeros((GRID, GRID), np.float32)
    box[2:-2, 2:-2] = small
    box = cv2.GaussianBlur(box, (0, 0), tuning.blur)
    gx = cv2.Sobel(box, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(box, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)
    ang = np.mod(np.arctan2(gy, gx), np.pi)  # (a stroke's two sides: one direction)
    b = np.minimum((ang / np.pi * BINS).astype(int), BINS - 1)
    c = GRID // CELLS
    hist = np.zeros((CELLS, CELLS, BINS), np.float32)
    for i in range(CELLS):
        for j in range(CELLS):
            sl = (slice(i * c, (i + 1) * c), slice(j * c, (j + 1) * c))
            hist[i, j] = np.bincount(b[sl].ravel(), weights=mag[sl].ravel(), minlength=BINS)
    dens = cv2.resize(box, (CELLS, CELLS), interpolation=cv2.INTER_AREA).ravel()
    h = hist.ravel()
    h = h / max(1e-6, float(np.linalg.norm(h)))
    dens = dens / max(1e-6, float(np.linalg.norm(dens)))
    return np.concatenate([h, 0.5 * dens]).astype(np.float32)


def _unit_features(mask: np.ndarray, tuning: SyllableTuning = TUNING) -> np.ndarray:
    """`syllable_features` scaled to unit length (compared by cosine with the drawings')."""
    f = syllable_features(mask, tuning)
    return f / max(1e-6, float(np.linalg.norm(f)))


@dataclass(frozen=True)
class SyllableModel:
    syllables: str
    """The syllables drawn, one per label."""
    labels: np.ndarray
    """Each drawing's syllable (index into `syllables`)."""
    features: np.ndarray
    """Each drawing's `syllable_features`, unit length."""


@lru_cache(maxsize=2)
def load_model(path: Path = MODEL_PATH) -> SyllableModel:
    """The shipped drawings (built by `python -m tools.make_name_syllables`)."""
    with np.load(shipped_data(path, "tools.make_name_syllables")) as z:
        feats = z["features"].astype(np.float32)
        feats /= np.maximum(1e-6, np.linalg.norm(feats, axis=1, keepdims=True))
        return SyllableModel(str(z["syllables"]), z["labels"].astype(np.int32), feats)


def syllable_odds(mask: np.ndarray, among: str, tuning: SyllableTuning = TUNING,
                  model: SyllableModel | None = None) -> dict[str, float]:
    """How likely the written syllable (bool ink mask) is each of `among` (sums to 1; syllables
    not drawn in the model are left out)."""
    scores = drawing_likeness(mask, among, tuning, model)
    if not scores:
        return {}
    top = max(scores.values())
    w = {s: float(np.exp(tuning.sharpness * (v - top))) for s, v in scores.items()}
    if tuning.net_weight > 0:
        total = sum(w.values())
        net = net_odds(mask, "".join(w))
        w = {s: (v / total) ** (1 - tuning.net_weight) * max(net.get(s, 0.0), 1e-12) ** tuning.net_weight
             for s, v in w.items()}
    total = sum(w.values())
    return {s: v / total for s, v in w.items()}


def drawing_likeness(mask: np.ndarray, among: str, tuning: SyllableTuning = TUNING,
                     model: SyllableModel | None = None) -> dict[str, float]:
    """Each of `among` drawn in the model: the written piece's (bool ink mask) likeness to it, the
    mean cosine of its `nearest` drawings."""
    model = model or load_model()
    sims = model.features @ _unit_features(mask, tuning)
    scores: dict[str, float] = {}
    for s in among:
        k = model.syllables.find(s)
        if k < 0:
            continue
        mine = np.sort(sims[model.labels == k])[::-1][:tuning.nearest]
        if len(mine):
            scores[s] = float(np.mean(mine))
    return scores


def best_likeness(mask: np.ndarray, among: str, tuning: SyllableTuning = TUNING,
                  model: SyllableModel | None = None) -> float:
    """How well the written piece (bool ink mask) looks like any one of `among`: the likeness of
    the syllable it is likest (`drawing_likeness`; 0: no ink, none drawn)."""
    if not mask.any():
        return 0.0
    return max(0.0, *drawing_likeness(mask, among, tuning, model).values())


@lru_cache(maxsize=2)
def load_net(path: Path = NET_PATH) -> tuple[SmallNet, str]:
    """The shipped name-syllable network and the syllables its outputs stand for (built by
    `python -m tools.make_name_net`)."""
    net, rest = load_small_net(path, "tools.make_name_net")
    return net, str(rest["syllables"])


def net_odds(mask: np.ndarray, among: str, net: tuple[SmallNet, str] | None = None) -> dict[str, float]:
    """How likely the written syllable (bool ink mask) is each of `among` by the network (sums to
    1 over those it knows; the others are left out)."""
    model, syllables = net or load_net()
    z = model.logits(syllable_features(mask)[None])[0]
    known = [(s, syllables.find(s)) for s in among if syllables.find(s) >= 0]
    if not known:
        return {}
    z = np.array([z[k] for _, k in known])
    p = np.exp(z - z.max())
    p /= p.sum()
    return {s: float(v) for (s, _), v in zip(known, p)}


def draw_syllable(ch: str, font: ImageFont.FreeTypeFont, shear: float = 0.0) -> np.ndarray | None:
    """`ch` drawn in `font` at DRAW_SIZE, sheared (a right-leaning hand: negative), as a bool
    mask (None: the font draws nothing for it)."""
    img = Image.new("L", (DRAW_SIZE * 3, DRAW_SIZE * 2), 0)
    ImageDraw.Draw(img).text((DRAW_SIZE, DRAW_SIZE // 3), ch, font=font, fill=255)
    a = np.asarray(img)
    if shear:
        a = cv2.warpAffine(a, np.float32([[1, -shear, shear * a.shape[0] / 2], [0, 1, 0]]), a.shape[::-1])
    m = a > DRAW_LEVEL
    return m if m.any() else None


NAME_FONTS = ("nanum/NanumPen.ttf", "nanum/NanumBarunpenR.ttf", "woowa-bm/BMYEONSUNG_ttf.ttf",
              "unfonts-extra/UnPenheulim.ttf")
"""The `DRAWN_FONTS` a card name's syllables are drawn in (`name_likeness`): these four hands
put as many right names first on the tuning faces as all fourteen (offline, sets 3502 and 3504:
709 and 706 of 902; seven hands 706) at under a third of the cost (a syllable drawn: ≈ 1.6 ms)."""


@lru_cache(maxsize=4)
def drawn_fonts(fonts: tuple[str, ...] = NAME_FONTS) -> tuple[ImageFont.FreeTypeFont, ...]:
    """Those of `fonts` installed, loaded at DRAW_SIZE."""
    return tuple(ImageFont.truetype(str(FONTS / rel), DRAW_SIZE) for rel in fonts if (FONTS / rel).is_file())


CARD_SYLLABLES_PATH = Path(__file__).resolve().parent / "data" / "card_syllables.npz"
"""Every card-name syllable of the Korean database drawn in the `NAME_FONTS` (float16 rows of
`syllable_features`; `python -m tools.make_card_syllables`): drawing them costs a process
≈ 6 ms a syllable."""


@lru_cache(maxsize=1)
def _shipped(path: Path = CARD_SYLLABLES_PATH) -> tuple[str, np.ndarray, np.ndarray]:
    """The shipped syllables, their drawings' unit rows grouped by syllable, and each group's
    bounds (a missing file: `MissingToolError`, as every shipped file's)."""
    with np.load(shipped_data(path, "tools.make_card_syllables")) as z:
        feats = z["features"].astype(np.float32)
        labels, syllables = z["labels"], str(z["syllables"])
    feats /= np.maximum(1e-6, np.linalg.norm(feats, axis=1, keepdims=True))
    order = np.argsort(labels, kind="stable")
    return syllables, feats[order], np.searchsorted(labels[order], np.arange(len(syllables) + 1))


@lru_cache(maxsize=1)
def shipped_drawings(path: Path = CARD_SYLLABLES_PATH) -> dict[str, np.ndarray]:
    """The shipped card-name syllable drawings: syllable → its unit-length rows (one per font)."""
    syllables, feats, bounds = _shipped(path)
    return {ch: feats[bounds[k]:bounds[k + 1]] for k, ch in enumerate(syllables)}


@lru_cache(maxsize=1)
def shipped_means(path: Path = CARD_SYLLABLES_PATH) -> tuple[str, np.ndarray]:
    """The shipped card-name syllables and the mean of each one's drawings (rows, unit length)."""
    syllables, feats, bounds = _shipped(path)
    means = np.add.reduceat(feats, bounds[:-1], axis=0) / np.diff(bounds)[:, None]
    return syllables, (means / np.maximum(1e-6, np.linalg.norm(means, axis=1, keepdims=True))).astype(np.float32)


@lru_cache(maxsize=4096)
def syllable_drawings(ch: str) -> np.ndarray | None:
    """`ch` drawn upright in every `NAME_FONTS` face, as unit-length `syllable_features` rows
    (None: no font draws it): shipped (`shipped_drawings`), else drawn now; kept (a page's rows
    share many candidates' syllables)."""
    got = shipped_drawings().get(ch)
    if got is not None:
        return got
    return draw_syllable_rows(ch)


def draw_syllable_rows(ch: str) -> np.ndarray | None:
    """`ch` drawn in every installed `NAME_FONTS` face now (`syllable_drawings`' rows)."""
    feats = [syllable_features(m) for m in (draw_syllable(ch, f) for f in drawn_fonts()) if m is not None]
    if not feats:
        return None
    a = np.array(feats, np.float32)
    return a / np.maximum(1e-6, np.linalg.norm(a, axis=1, keepdims=True))


@lru_cache(maxsize=1)
def _advance_font() -> ImageFont.FreeTypeFont | None:
    path = FONTS / ADVANCE_FONT
    return ImageFont.truetype(str(path), DRAW_SIZE) if path.is_file() else None


def _is_syllable(ch: str) -> bool:
    return HANGUL_FIRST <= ord(ch) <= HANGUL_LAST


@dataclass(frozen=True)
class NameShapeTuning:
    """How a written card name's ink is cut into a candidate's characters."""

    cut_window: float = 0.35
    """A cut between two characters is the column of least ink within this share of their mean
    advance around where the printed advances put it (0.2 and 0.5 did no better on the tuning
    faces)."""


NAME_SHAPE = NameShapeTuning()


def name_cuts(mask: np.ndarray, name: str, tuning: NameShapeTuning = NAME_SHAPE) -> list[int] | None:
    """Columns cutting the written name's ink (bool mask, cropped) into `name`'s characters, one
    more than it has (None without the advance font)."""
    font = _advance_font()
    if font is None or not name:
        return None
    adv = np.maximum(np.array([font.getlength(c) for c in name], np.float32), 1.0)
    pos = np.concatenate([[0.0], np.cumsum(adv)]) / float(adv.sum()) * mask.shape[1]
    return least_ink_cuts(mask, [(pos[k], tuning.cut_window * (pos[k + 1] - pos[k - 1]) / 2)
                                 for k in range(1, len(name))])


def least_ink_cuts(mask: np.ndarray, places: list[tuple[float, float]]) -> list[int]:
    """Columns cutting written ink (bool mask) into parts: 0, then for each (place, half) the
    column of least ink (smoothed over three) within `half` of `place` and after the cut before,
    then the mask's width."""
    w = mask.shape[1]
    col = np.convolve(mask.sum(axis=0).astype(np.float32), np.ones(3, np.float32) / 3, mode="same")
    cuts = [0]
    for place, half in places:
        lo, hi = max(cuts[-1] + 1, int(place - half)), min(w - 1, int(place + half) + 1)
        cuts.append(lo + int(np.argmin(col[lo:hi])) if hi > lo else int(place))
    cuts.append(w)
    return cuts


CARD_NET_PATH = CARD_SYLLABLES_PATH.with_name("card_net.npz")
"""A network over `syllable_features` that tells the card-name syllables apart (`card_net_terms`),
trained by `tools/make_card_net.py` on them drawn in the fonts of `tools.make_name_net` (none a
measured face), each slanted, turned, bent, thickened and written small."""
FEATURE_NORM = float(np.sqrt(1.0 + 0.5 ** 2))
"""The length of a `syllable_features` row with ink (its two unit parts, the second halved): a
unit row times this is the network's input."""


@dataclass(frozen=True)
class CardNetTuning:
    """How the card-syllable network's word weighs beside the drawings' in a written card name's
    likeness (`name_likeness`, `hand_candidates.pool_likeness`, `page_hand`)."""

    weight: float = 0.1
    """A syllable's likeness is (1 − weight) × its drawings' cosine + weight × the network's term
    (0: the drawings alone). Offline on the tuning sets' reads (3502, 3504, replayed with
    `bench/replay_hand_names.py`, the ink search's `net_weight` 0.2): 0, 0.1, 0.4 → 765, 766, 764
    of 907 right; without the search's: 0, 0.1, 0.2, 0.3, 0.5 → 757, 758, 756, 755, 755."""
    floor: float = 8.0
    """The network's term: 1 + max(log p, −floor) / floor (p: its probability that the piece is the
    candidate's syllable, over every card-name syllable), 0..1 as the cosine is."""


CARD_NET = CardNetTuning()


@lru_cache(maxsize=2)
def load_card_net(path: Path = CARD_NET_PATH) -> tuple[SmallNet, dict[str, int]]:
    """The shipped card-syllable network and each syllable's output (built by
    `python -m tools.make_card_net`)."""
    net, rest = load_small_net(path, "tools.make_card_net")
    return net, {ch: k for k, ch in enumerate(str(rest["syllables"]))}


def card_net_logp(units: np.ndarray, model: SmallNet) -> np.ndarray:
    """The network's log-probabilities (rows: pieces, columns: its syllables) of pieces given as
    unit `syllable_features` rows."""
    logits = model.logits(np.asarray(units, np.float32) * FEATURE_NORM)
    top = logits.max(axis=1, keepdims=True)
    return logits - top - np.log(np.exp(logits - top).sum(axis=1, keepdims=True))


def card_net_outputs(syllables: str, net: tuple[SmallNet, dict[str, int]] | None = None) -> np.ndarray:
    """The card-syllable network's output for each of `syllables` (−1: one it does not know)."""
    _, index = net or load_card_net()
    return np.array([index.get(ch, -1) for ch in syllables], np.int64)


def card_net_terms(units: np.ndarray, outputs: np.ndarray, tuning: CardNetTuning = CARD_NET,
                   net: tuple[SmallNet, dict[str, int]] | None = None,
                   rows: np.ndarray | None = None) -> np.ndarray:
    """Each entry's network term (`CardNetTuning.floor`) for its syllable: `units` are pieces'
    unit `syllable_features` rows, `outputs` each entry's syllable (`card_net_outputs`; −1: NaN),
    `rows` each entry's piece (None: one entry per piece, in order). The network is run once per
    piece over every syllable."""
    model, _ = net or load_card_net()
    if not len(units):
        return np.zeros(0, np.float32)
    logp = card_net_logp(units, model)
    got = logp[np.arange(len(outputs)) if rows is None else rows, np.maximum(outputs, 0)]
    return np.where(outputs >= 0, 1.0 + np.maximum(got, -tuning.floor) / tuning.floor, np.nan).astype(np.float32)


def nearest_likeness(drawn: np.ndarray, unit: np.ndarray, tuning: SyllableTuning = TUNING) -> float:
    """A piece's likeness to a syllable: the mean cosine of its `nearest` drawings (`drawn`: unit
    rows) to the piece's unit features."""
    return float(np.mean(np.sort(drawn @ unit)[::-1][:tuning.nearest]))


def pieces_features(mask: np.ndarray, pieces: np.ndarray, tuning: SyllableTuning = TUNING) -> np.ndarray:
    """`syllable_features` of each column range (a, b) of the ink, unit length,
    taken together (one histogram pass for all)."""
    n = len(pieces)
    gx = np.zeros((n, GRID, GRID), np.float32)
    gy = np.zeros_like(gx)
    dens = np.zeros((n, CELLS * CELLS), np.float32)
    colink = mask.any(axis=0)
    m32 = mask.astype(np.float32)
    box = np.zeros((GRID, GRID), np.float32)
    for i, (a, b) in enumerate(pieces):
        xs = np.flatnonzero(colink[a:b])
        if not len(xs):
            continue
        part = m32[:, a + xs[0]:a + xs[-1] + 1]
        ys = np.flatnonzero(part.any(axis=1))
        box[2:-2, 2:-2] = cv2.resize(part[ys[0]:ys[-1] + 1], (GRID - 4, GRID - 4), interpolation=cv2.INTER_AREA)
        blurred = cv2.GaussianBlur(box, (0, 0), tuning.blur)
        gx[i] = cv2.Sobel(blurred, cv2.CV_32F, 1, 0, ksize=3)
        gy[i] = cv2.Sobel(blurred, cv2.CV_32F, 0, 1, ksize=3)
        dens[i] = cv2.resize(blurred, (CELLS, CELLS), interpolation=cv2.INTER_AREA).ravel()
    mag = np.hypot(gx, gy)
    b = np.minimum((np.mod(np.arctan2(gy, gx), np.pi) / np.pi * BINS).astype(np.int64), BINS - 1)
    c = GRID // CELLS
    cell_of = np.full(GRID, CELLS, np.int64)  # pixels past CELLS × c (GRID not a multiple) count nowhere
    cell_of[:CELLS * c] = np.arange(CELLS * c) // c
    cy, cx = cell_of[:, None], cell_of[None, :]
    inside = (cy < CELLS) & (cx < CELLS)
    slot = ((np.arange(n)[:, None, None] * CELLS + cy) * CELLS + cx) * BINS + b
    hist = np.bincount(slot[:, inside].ravel(), weights=mag[:, inside].ravel(),
                       minlength=n * CELLS * CELLS * BINS).reshape(n, -1).astype(np.float32)
    hist /= np.maximum(1e-6, np.linalg.norm(hist, axis=1, keepdims=True))
    dens /= np.maximum(1e-6, np.linalg.norm(dens, axis=1, keepdims=True))
    f = np.concatenate([hist, 0.5 * dens], axis=1)
    return f / np.maximum(1e-6, np.linalg.norm(f, axis=1, keepdims=True))


def name_likeness(mask: np.ndarray, name: str, tuning: SyllableTuning = TUNING,
                  shape: NameShapeTuning = NAME_SHAPE, net: CardNetTuning = CARD_NET) -> float | None:
    """How like the written card name's ink (bool mask, cropped) `name` is, syllable by syllable:
    the mean over its Hangul syllables of each part's likeness to that syllable's nearest
    drawings (cosine, 0..1), mixed with the card-syllable network's term (`CardNetTuning`);
    other characters (spaces, Latin letters, digits, marks) only take their place. None: no
    syllable to compare."""
    cuts = name_cuts(mask, name, shape)
    if cuts is None:
        return None
    laid = [(ch, a, b) for ch, a, b in zip(name, cuts, cuts[1:]) if _is_syllable(ch)]
    drawings = [syllable_drawings(ch) for ch, _, _ in laid]
    laid = [(ch, a, b, d) for (ch, a, b), d in zip(laid, drawings) if d is not None]
    if not laid:
        return None
    # (the pieces' features in one pass: `pieces_features` is `_unit_features` of each)
    feats = pieces_features(mask, np.array([(a, b) for _, a, b, _ in laid], np.int64).reshape(-1, 2), tuning)
    likes, units, chars, at = [], [], [], []
    for (ch, a, b, drawn), f in zip(laid, feats):
        if not f.any():
            likes.append(0.0)
            continue
        likes.append(nearest_likeness(drawn, f, tuning))
        units.append(f)
        chars.append(ch)
        at.append(len(likes) - 1)
    if net.weight and units:
        terms = card_net_terms(np.array(units, np.float32), card_net_outputs("".join(chars)), net)
        for k, t in zip(at, terms):
            if np.isfinite(t):
                likes[k] = (1 - net.weight) * likes[k] + net.weight * float(t)
    return float(np.mean(likes)) if likes else None
