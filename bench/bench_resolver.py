"""Benchmark the name resolver on names as Tesseract really reads them.

Real card names (a seeded random sample plus every name of the fixture decks) are rendered as
sheet cells (NanumGothic / NanumBarunGothic, ~9 pt at 200–300 dpi, a little blur), read with
tesserocr (`kor`, and `kor+eng`), then looked up with `CardDatabase.search` and judged with the
review policy of `scanner.inputs.resolve` (OCR_POLICY). Reports top-1 accuracy, wrong answers that were
NOT flagged (goal 0), and ms per lookup (goal < 1 ms).

OCR output is cached in bench/results/ocr-cache.json, so a re-run only redoes the lookups.

    python bench/bench_resolver.py [--n 800] [--seed 7] [--card-db PATH] [--refresh]
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # tesseract's OpenMP is 8x slower on 2 cores

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from card_db.cdb import CardDatabase, load_card_db  # noqa: E402
from scanner.model import ReadLine  # noqa: E402
from scanner.inputs.resolve import OCR_POLICY, resolve_line  # noqa: E402

SHARED = Path(os.environ.get("DECKSHEET_SHARED", REPO.parent / "shared"))
RESULTS = REPO / "bench" / "results"
FONT_DIR = Path("/usr/share/fonts/truetype/nanum")
FONTS = ("NanumGothic.ttf", "NanumBarunGothic.ttf")
TESSDATA = "/usr/share/tesseract-ocr/5/tessdata"
LANGS = ("kor", "kor+eng")


@dataclass(frozen=True)
class Cell:
    """One rendered name cell: what was printed and how."""

    card_id: int
    name: str
    font: str
    dpi: int
    blur: float

    @property
    def key(self) -> str:
        raw = f"{self.name}|{self.font}|{self.dpi}|{self.blur:.2f}"
        return hashlib.sha1(raw.encode()).hexdigest()[:16]


def deck_card_ids(fixtures: Path) -> list[int]:
    """Every passcode of the fixture decks (ydk and sheet truth files)."""
    ids: set[int] = set()
    for p in glob.glob(str(fixtures / "legality" / "*.ydk")) + \
            glob.glob(str(fixtures / "compare" / "*" / "*.ydk")):
        for line in Path(p).read_text().splitlines():
            if line.strip().isdigit():
                ids.add(int(line.strip()))
    for p in glob.glob(str(fixtures / "sheets" / "*.truth.json")):
        d = json.loads(Path(p).read_text())
        for s in ("main", "extra", "side"):
            ids.update(int(k) for k in (d.get(s) or {}))
    return sorted(ids)


def choose_cells(db: CardDatabase, n: int, seed: int) -> list[Cell]:
    rng = random.Random(seed)
    usable = sorted(c.card_id for c in db.cards.values() if c.ocg_usable)
    ids = rng.sample(usable, min(n, len(usable)))
    fixtures = SHARED / "fixtures"
    if fixtures.is_dir():
        ids += [i for i in deck_card_ids(fixtures) if db.get(i) is not None]
    seen: set[int] = set()
    cells = []
    for cid in ids:
        card = db.get(cid)
        if card is None or card.card_id in seen:
            continue
        seen.add(card.card_id)
        cells.append(Cell(card.card_id, card.name, rng.choice(FONTS), rng.choice((200, 250, 300)),
                          rng.choice((0.0, 0.3, 0.6))))
    return cells


def render(cell: Cell):
    """A sheet name cell: ~62 mm wide, 9 pt text (shrunk to fit, as sheets do)."""
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    px_per_pt = cell.dpi / 72.0
    width, height = int(62 / 25.4 * cell.dpi), int(7 / 25.4 * cell.dpi)
    size = 9.0
    while True:
        font = ImageFont.truetype(str(FONT_DIR / cell.font), int(round(size * px_per_pt)))
        w = font.getlength(cell.name)
        if w <= width * 0.94 or size <= 5.5:
            break
        size -= 0.5
    img = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(img)
    draw.text((int(width * 0.03), height // 2), cell.name, font=font, fill=0, anchor="lm")
    if cell.blur:
        img = img.filter(ImageFilter.GaussianBlur(cell.blur * cell.dpi / 200))
    return img


def ocr_cells(cells: list[Cell], cache: dict[str, dict[str, str]]) -> int:
    """Fill `cache[cell.key][lang]` for every cell; returns how many cells were OCR'd."""
    import tesserocr

    todo = [c for c in cells if any(lang not in cache.get(c.key, {}) for lang in LANGS)]
    if not todo:
        return 0
    for lang in LANGS:
        with tesserocr.PyTessBaseAPI(path=TESSDATA, lang=lang, psm=tesserocr.PSM.SINGLE_LINE) as api:
            for i, cell in enumerate(todo):
                if lang in cache.get(cell.key, {}):
                    continue
                api.SetImage(render(cell))
                cache.setdefault(cell.key, {})[lang] = api.GetUTF8Text().strip()
                if i % 200 == 0:
                    print(f"  ocr {lang}: {i}/{len(todo)}", file=sys.stderr)
    return len(todo)


@dataclass
class Figures:
    cells: int = 0
    top1: int = 0
    accepted: int = 0
    accepted_wrong: int = 0
    flagged: int = 0
    flagged_right: int = 0
    no_card: int = 0
    exact_read: int = 0


def evaluate(db: CardDatabase, cells: list[Cell], cache: dict, lang: str,
             show_wrong: bool) -> tuple[Figures, list[float]]:
    fig = Figures()
    times: list[float] = []
    for cell in cells:
        read = cache[cell.key][lang]
        fig.cells += 1
        truth_name = cell.name
        t = time.perf_counter()
        found = db.search(read, limit=5)
        times.append((time.perf_counter() - t) * 1000)
        if db.names.exact_all(read) and cell.card_id in db.names.exact_all(read):
            fig.exact_read += 1
        # Twins (one card under two passcodes) count as right when the name is the same.
        if found and found[0].card.name == truth_name:
            fig.top1 += 1
        entry = resolve_line(ReadLine(section="main", text=read, count=1), db, OCR_POLICY, True)
        right = entry.card_id is not None and db.cards[entry.card_id].name == truth_name
        if entry.card_id is None:
            fig.no_card += 1
        if entry.needs_review:
            fig.flagged += 1
            fig.flagged_right += right
        else:
            fig.accepted += 1
            if not right:
                fig.accepted_wrong += 1
                if show_wrong:
                    print(f"  WRONG UNFLAGGED [{lang}] {truth_name!r} read {read!r} → "
                          f"{entry.name!r} {[(c.card.name, c.score) for c in found[:3]]}")
    return fig, times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=800, help="random names to sample")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--card-db", default=str(SHARED / "carddb" / "ko-KR.cdb"))
    ap.add_argument("--refresh", action="store_true", help="ignore the OCR cache")
    ap.add_argument("--show-wrong", action="store_true", help="print wrong unflagged answers")
    ap.add_argument("--show-flagged", type=int, default=0, help="print N flagged lines")
    args = ap.parse_args(argv)

    db = load_card_db(args.card_db)
    cells = choose_cells(db, args.n, args.seed)
    RESULTS.mkdir(parents=True, exist_ok=True)
    cache_path = RESULTS / "ocr-cache.json"
    cache = {} if args.refresh or not cache_path.is_file() else json.loads(cache_path.read_text())
    t = time.perf_counter()
    done = ocr_cells(cells, cache)
    if done:
        cache_path.write_text(json.dumps(cache, ensure_ascii=False))
        print(f"OCR'd {done} cells in {time.perf_counter() - t:.1f} s", file=sys.stderr)

    out = {"cells": len(cells), "seed": args.seed, "card_db": args.card_db, "policy": vars(OCR_POLICY)}
    for lang in LANGS:
        fig, times = evaluate(db, cells, cache, lang, args.show_wrong)
        row = dict(vars(fig))
        row["top1_accuracy"] = round(fig.top1 / fig.cells, 4)
        row["exact_read_rate"] = round(fig.exact_read / fig.cells, 4)
        row["ms_per_lookup_mean"] = round(statistics.mean(times), 3)
        row["ms_per_lookup_p95"] = round(sorted(times)[int(len(times) * 0.95)], 3)
        out[lang] = row
        print(f"[{lang}] cells {fig.cells}: read exactly {fig.exact_read}, top-1 {fig.top1} "
              f"({row['top1_accuracy']:.1%}); accepted {fig.accepted} of which WRONG "
              f"{fig.accepted_wrong}; flagged {fig.flagged} (top pick right in "
              f"{fig.flagged_right}); no card {fig.no_card}; "
              f"{row['ms_per_lookup_mean']:.3f} ms/lookup (p95 {row['ms_per_lookup_p95']:.3f})")
    if args.show_flagged:
        shown = 0
        for cell in cells:
            read = cache[cell.key]["kor"]
            e = resolve_line(ReadLine(section="main", text=read, count=1), db, OCR_POLICY, True)
            if e.needs_review and shown < args.show_flagged:
                shown += 1
                print(f"  flagged {cell.name!r} read {read!r}: {e.reasons} "
                      f"{[(n, s) for _, n, s in e.candidates[:3]]}")
    (RESULTS / "resolver.json").write_text(json.dumps(out, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
