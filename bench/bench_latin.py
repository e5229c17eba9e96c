"""English-name sheets on images: pictures of text-layer sheets read by OCR with a Latin-script
card database, scored against their own text layer.

Sheets: real decks (the shared `.ydk` files) and decks composed at random from the database,
drawn in the project's sheet styles in English print fonts (`tests/latin_sheets.py`), plus any
text-layer PDF given with `--pdf` (the peers' English sheets). Each is pictured clean (poppler or
pdfium, 150–300 dpi, PNG or JPEG) and scanned-looking (turned ≤ 1.5°, soft, noisy, JPEG). A line
is right when its card and count are right, unflagged or flagged with that card proposed first;
silent when it is stated unflagged and wrong; a refused picture loses all its lines.

    python bench/bench_latin.py [--sheets 12] [--seed 3400] [--pdf PDF ...] [--pictures clean scan]
                                [--card-db PATH ...] [-v]

The sheets are drawn with the English database's names; they are read (and their text layer is
read for the truth) with `--card-db` (default: the English database alone; give the Korean one
and then the English one to read as a Korean event with English sheets does).

Seconds are per picture, read in this process with the database loaded (a `decksheet scan`
process adds ≈ 1 s of start-up). Writes bench/results/bench_latin.json.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from benchenv import RESULTS, SHARED, make_samples  # first: paths, one OCR thread

from card_db.cdb import load_card_db  # noqa: E402
from latin_sheets import (KINDS, PICTURES, composed_deck, deck_from_ydk, make_english_sheet,  # noqa: E402
                          picture_of, real_decks, score)
from renderings import ROWS, fits_form  # noqa: E402
from scanner.errors import DecksheetError  # noqa: E402
from scanner.read import load_decklist  # noqa: E402


def generated_sheets(ms, db, count: int, seed: int, out: Path) -> list[tuple[Path, str]]:
    """`count` sheets, kinds in turn, decks alternately real and composed."""
    decks = [d for d in (deck_from_ydk(ms, p, db) for p in real_decks(SHARED)) if d is not None]
    made = []
    for i in range(count):
        rng = random.Random(seed + i)
        kind = KINDS[i % len(KINDS)]
        rows = ROWS["db" if kind == "db" else "kde"]
        deck = decks[(i // 2) % len(decks)] if i % 2 == 0 and decks else composed_deck(ms, db, rng, rows)
        if kind != "db" and not fits_form(deck, kind):
            kind = "db"
        made.append((make_english_sheet(ms, kind, deck, rng, out / f"en-{kind}-{i:03d}.pdf"), kind))
    return made


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=12)
    ap.add_argument("--seed", type=int, default=3400)
    ap.add_argument("--pdf", type=Path, nargs="*", default=[])
    ap.add_argument("--pictures", nargs="+", default=list(PICTURES), choices=PICTURES)
    ap.add_argument("--card-db", type=Path, action="append")
    ap.add_argument("--out", type=Path, default=RESULTS / "bench_latin.json")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    english = load_card_db(SHARED / "carddb" / "en-US.cdb")  # the names the sheets are drawn with
    db = load_card_db(args.card_db) if args.card_db else english
    ms = make_samples()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        sheets = generated_sheets(ms, english, args.sheets, args.seed, tmp_path)
        sheets += [(p, "peer-" + p.stem.rsplit("-", 1)[0]) for p in args.pdf]
        for n, (pdf, kind) in enumerate(sheets):
            truth = load_decklist(pdf, db)
            for picture in args.pictures:
                rng = random.Random(args.seed * 7 + n * 2 + PICTURES.index(picture))
                pic = picture_of(pdf, kind, picture, rng, tmp_path)
                start = time.perf_counter()
                try:
                    read, refused = load_decklist(pic.image, db), None
                except DecksheetError as exc:
                    read, refused = None, str(exc)
                got = score(truth, read, refused)
                got.seconds = time.perf_counter() - start
                reasons = Counter(r for s in (read.sections.values() if read else []) for e in s
                                  for r in dict.fromkeys(e.reasons))
                rows.append({"label": pic.label, "kind": kind, "picture": picture, **asdict(got),
                             "reasons": dict(reasons)})
                if args.verbose:
                    print(f"{pic.label:48s} {got.right:3d}/{got.lines:3d} right "
                          f"({got.unflagged_right} unflagged) {got.silent} silent "
                          f"{'REFUSED ' + refused if refused else ''} {got.seconds:.1f} s", flush=True)
                    for d in got.diffs:
                        print("    " + d)
    print(f"{'kind':24s} {'picture':8s} {'sheets':>6s} {'lines':>6s} {'right':>8s} {'unflagged':>9s} "
          f"{'silent':>6s} {'refused':>7s} {'s/sheet':>7s}")
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["kind"], r["picture"]), []).append(r)
        groups.setdefault(("all", r["picture"]), []).append(r)
    for (kind, picture), rs in sorted(groups.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        lines = sum(r["lines"] for r in rs)
        right = sum(r["right"] for r in rs)
        print(f"{kind:24s} {picture:8s} {len(rs):6d} {lines:6d} {100 * right / max(lines, 1):7.1f}% "
              f"{100 * sum(r['unflagged_right'] for r in rs) / max(lines, 1):8.1f}% "
              f"{sum(r['silent'] for r in rs):6d} {sum(1 for r in rs if r['refused']):7d} "
              f"{statistics.mean(r['seconds'] for r in rs):7.1f}")
    reasons = Counter()
    for r in rows:
        reasons.update(r["reasons"])
    print("flags on lines: " + ", ".join(f"{k} {v}" for k, v in reasons.most_common()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
