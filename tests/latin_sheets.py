"""English-name sheets made here, and pictures of them, for the Latin-script image reader.

Every sheet is a text-layer PDF whose own text (read by the PDF reader with the English
database) is the truth of its picture, as in `renderings`: real decks (the shared `.ydk` files)
and decks composed at random from the English database, drawn in the project's sheet styles
(`samples/make_samples.py`: the card-database sheet, Konami's form typed flat or filled as form
fields) in the print fonts English sheets come in; and any other text-layer PDF given (the peers'
English sheets). Pictures: clean renderings (poppler or pdfium, 150–300 dpi, PNG or JPEG) and
scanned-looking ones (slight rotation, blur, noise, JPEG). Benchmarks (`bench/bench_latin.py`)
and the slow test (`tests/test_ocr_latin.py`) share this one implementation.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from renderings import DPIS, FORMATS, RENDERERS, render, write_image
from scanner.model import SECTIONS, Decklist

ENGLISH_FONTS = ("LiberationSans", "LiberationSerif", "Carlito", "DejaVuSansLatin")
"""`make_samples.LATIN_FONTS`: Helvetica/Arial, Times, Calibri and DejaVu Sans look-alikes."""
KINDS = ("db", "kde-flat", "kde-form")
PICTURES = ("clean", "scan")


def real_decks(shared: Path) -> list[Path]:
    """The shared fixtures' real decks (public .ydk files)."""
    fx = shared / "fixtures"
    return (sorted((fx / "world" / "decks").glob("*.ydk")) + sorted((fx / "legality").glob("L00[12]-*.ydk"))
            + sorted((fx / "compare").glob("*/registered.ydk")))


def deck_from_ydk(ms, path: Path, db):
    """The .ydk as a sheet deck with the database's names (None when a card is missing from it)."""
    try:
        return ms.deck_from_ydk(path, db, **PLAYER)
    except SystemExit:
        return None


PLAYER = dict(player_family="Martin", player_given="Zoe", konami_id="0412345678",
              event="Regional Qualifier", date=(2026, 7, 12))


def composed_deck(ms, db, rng: random.Random, rows: dict[str, int]):
    """A deck drawn at random from the database's cards (no tokens), up to `rows` lines a column,
    counts 1–3: names of every length and mark a real deck may hold."""
    pools: dict[str, list[str]] = {c: [] for c in ("monster", "spell", "trap", "extra")}
    for card in db.cards.values():
        if card.is_token or not card.name:
            continue
        pools["extra" if card.is_extra_deck else card.kind.value].append(card.name)
    cols: dict[str, list[tuple[str, int]]] = {}
    used: set[str] = set()
    for col, pool in (*pools.items(), ("side", pools["monster"] + pools["spell"] + pools["trap"])):
        n = rng.randint(max(3, rows[col] // 3), rows[col])
        names = [nm for nm in rng.sample(sorted(pool), min(len(pool), 3 * n)) if nm not in used][:n]
        used.update(names)
        cols[col] = [(nm, rng.choice((1, 1, 2, 3))) for nm in names]
    return ms.SampleDeck(columns=cols, **PLAYER)


def make_english_sheet(ms, kind: str, deck, rng: random.Random, out: Path) -> Path:
    """`deck` drawn as a sheet of `kind` (`KINDS`) in an English print font picked by `rng`."""
    family = rng.choice(ENGLISH_FONTS)
    if kind == "db":
        style = ms.DbStyle(
            family=family, size=rng.choice((8.0, 8.5, 9.0, 9.5)),
            dx=round(rng.uniform(-6, 6), 2), dy=round(rng.uniform(-5, 5), 2),
            row_h=round(rng.uniform(13.9, 16.0), 2), entry_no=rng.random() < 0.75,
            glue_row_numbers=rng.random() < 0.2, footer=rng.random() < 0.5,
            grid_gray=rng.choice((0.0, 0.2, 0.35)), rownum_size=rng.choice((6.0, 6.5)))
        ms.draw_db_sheet(out, deck, style)
    else:
        ms.draw_kde_sheet(out, deck, filled=kind == "kde-form", family=family,
                          size=rng.choice((8.0, 8.5, 9.0, 9.5)))
    return out


def scan_like(img: np.ndarray, rng: random.Random) -> np.ndarray:
    """A flatbed scan's look: turned up to 1.5°, a little soft, paper grain and sensor noise."""
    h, w = img.shape[:2]
    angle = rng.uniform(-1.5, 1.5)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    out = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=(255, 255, 255))
    sigma = rng.uniform(0.4, 1.0)
    out = cv2.GaussianBlur(out, (0, 0), sigma)
    noise = np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(3, 8), out.shape)
    tint = np.array([rng.uniform(-12, 0), rng.uniform(-8, 0), rng.uniform(-4, 0)])  # off-white paper
    return np.clip(out.astype(np.float32) + noise + tint, 0, 255).astype(np.uint8)


@dataclass
class Picture:
    pdf: Path
    image: Path
    label: str
    kind: str
    picture: str


def picture_of(pdf: Path, kind: str, picture: str, rng: random.Random, out_dir: Path) -> Picture:
    """A clean or scanned-looking picture of page 1 of `pdf` (a filled form drawn by pdfium:
    poppler draws no form value without an appearance stream)."""
    renderer = "pdfium" if kind.endswith("form") else rng.choice(RENDERERS)
    dpi = rng.choice(DPIS)
    fmt = rng.choice(FORMATS) if picture == "clean" else "jpg"
    img = render(pdf, renderer, dpi)
    if picture == "scan":
        img = scan_like(img, rng)
    label = f"{pdf.stem}-{picture}-{renderer}-{dpi}"
    return Picture(pdf, write_image(img, out_dir / label, fmt), f"{label}.{fmt}", kind, picture)


@dataclass
class Score:
    """One picture's read against its sheet's text layer, line by line (truth lines)."""

    lines: int = 0
    right: int = 0
    """Card and count right: unflagged, or flagged with the right card proposed first."""
    unflagged_right: int = 0
    silent: int = 0
    """Stated unflagged and wrong (another card or count, or a card not on the sheet)."""
    refused: str | None = None
    seconds: float = 0.0
    diffs: list[str] = field(default_factory=list)


def score(truth: Decklist, read: Decklist | None, refused: str | None = None) -> Score:
    res = Score(refused=refused)
    want = {s: truth.counts(s) for s in SECTIONS}
    res.lines = sum(len(v) for v in want.values())
    if read is None:
        return res
    review_ids = {(r.section, r.card_id) for r in read.review if r.card_id is not None}
    for s in SECTIONS:
        entries = read.sections.get(s, [])
        total: dict[int, int] = {}
        unflagged: dict[int, int] = {}
        flagged: set[int] = set()
        for e in entries:
            if e.card_id is None:
                continue
            total[e.card_id] = total.get(e.card_id, 0) + e.count
            if e.needs_review or (s, e.card_id) in review_ids:
                flagged.add(e.card_id)
            else:
                unflagged[e.card_id] = unflagged.get(e.card_id, 0) + e.count
        for cid, n in want[s].items():
            if total.get(cid) == n:
                res.right += 1
                if cid not in flagged:
                    res.unflagged_right += 1
            else:
                res.diffs.append(f"{s} {cid} ×{n}: read ×{total.get(cid, 0)}")
        for cid, n in unflagged.items():
            if cid not in flagged and want[s].get(cid) != n:
                res.silent += 1
                read_as = next((e.read for e in entries if e.card_id == cid), "")
                res.diffs.append(f"SILENT {s} {cid} ×{n} (want ×{want[s].get(cid, 0)}), read {read_as!r}")
    return res
