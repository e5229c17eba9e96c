"""Clean renderings of text-layer sheets, read by OCR and scored against their own text layer.

Every text-layer sheet (the shared fixtures' db-ko, kde-flat and kde-form sheets, the shipped
samples, and any PDF given) is drawn by poppler and by pdfium at 150, 200 and 300 dpi, written as
PNG and JPEG (poppler only where the form values carry their appearance: it draws no Hangul
value without one), and read as a scan would be (`decksheet scan IMAGE` in a fresh process, so the
seconds are what a judge waits). The text layer's read is the truth: lines right and unflagged,
flagged, silent (stated and wrong, or stated and not on the page), missing, refused renderings.

    python bench/bench_renderings.py [--sheets GLOB ...] [--dpi 150 200 300] [--renderer poppler pdfium]
                                     [--format png jpg] [--limit N] [-v]

Prints a line per rendering (with -v) and a table per renderer × dpi × format; writes
bench/results/bench_renderings.json.
"""
from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from benchenv import REPO, RESULTS, SHARED  # first: paths, one OCR thread

from card_db.cdb import load_card_db  # noqa: E402
from renderings import DPIS, FORMATS, RENDERERS, agreement, render, values_drawn, write_image  # noqa: E402
from scanner.model import Decklist, Entry, ReviewFlag  # noqa: E402
from scanner.read import load_decklist  # noqa: E402


def default_sheets() -> list[Path]:
    fixtures = SHARED / "fixtures" / "sheets"
    out = sorted(p for kind in ("db-ko", "kde-flat", "kde-form") for p in fixtures.glob(f"{kind}-*.pdf"))
    return out + sorted((REPO / "samples" / "sheets").glob("*.pdf"))


def read_as_process(image: Path, card_db: list[str]) -> tuple[Decklist | None, str | None, float]:
    """`decksheet scan IMAGE --json` in its own process: (decklist, refusal, seconds)."""
    args = [str(Path(sys.executable).with_name("decksheet")), "scan", str(image), "--json"]
    for db in card_db:
        args += ["--card-db", db]
    start = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - start
    if proc.returncode == 2 or not proc.stdout.strip():
        return None, (proc.stderr.strip().splitlines() or ["refused"])[-1], seconds
    out = json.loads(proc.stdout)
    deck = Decklist()
    for section, entries in out.get("sections", {}).items():
        deck.sections[section] = [Entry.from_json(e) for e in entries]
    deck.review = [ReviewFlag(section=r.get("section"), reason=r.get("reason", ""),
                              detail=r.get("detail", ""), card_id=r.get("card_id"),
                              line=r.get("line")) for r in out.get("review") or []]
    return deck, None, seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", nargs="*", type=Path)
    ap.add_argument("--dpi", nargs="*", type=int, default=list(DPIS))
    ap.add_argument("--renderer", nargs="*", default=list(RENDERERS))
    ap.add_argument("--format", nargs="*", default=list(FORMATS))
    ap.add_argument("--card-db", action="append", default=None)
    ap.add_argument("--limit", type=int, default=0, help="first N sheets only")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    card_db = args.card_db or [str(SHARED / "carddb" / "ko-KR.cdb")]
    db = load_card_db([Path(p) for p in card_db])
    sheets = args.sheets or default_sheets()
    if args.limit:
        sheets = sheets[:args.limit]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for pdf in sheets:
            truth = load_decklist(pdf, db)
            drawn = values_drawn(pdf)
            for renderer, dpi, fmt in itertools.product(args.renderer, args.dpi, args.format):
                if renderer == "poppler" and not drawn:
                    continue  # form values without appearance: poppler draws an empty form
                image = write_image(render(pdf, renderer, dpi), Path(tmp) / f"{pdf.stem}-{renderer}-{dpi}", fmt)
                read, refused, seconds = read_as_process(image, card_db)
                got = agreement(truth, read, refused)
                rows.append({"sheet": pdf.name, "renderer": renderer, "dpi": dpi, "format": fmt,
                             "seconds": round(seconds, 2), **asdict(got)})
                if args.verbose:
                    print(f"{pdf.name:30} {renderer:7} {dpi:3} {fmt:3} {got.right:3}/{got.lines:3} right "
                          f"{got.flagged:2} flagged {got.silent} silent {got.missing:2} missing "
                          f"{seconds:4.1f}s {got.refused or ''} {'; '.join(got.diffs[:3])}", flush=True)
                image.unlink()
    print(f"{'renderer':8} {'dpi':>3} {'fmt':3} {'sheets':>6} {'lines':>6} {'right':>7} {'flagged':>7} "
          f"{'silent':>6} {'missing':>7} {'refused':>7} {'s median':>8}")
    groups = sorted({(r["renderer"], r["dpi"], r["format"]) for r in rows})
    for key in groups + [("all", 0, "")]:
        sel = [r for r in rows if key[0] == "all" or (r["renderer"], r["dpi"], r["format"]) == key]
        lines = sum(r["lines"] for r in sel)
        print(f"{key[0]:8} {key[1] or '':>3} {key[2]:3} {len(sel):6} {lines:6} "
              f"{100 * sum(r['right'] for r in sel) / max(lines, 1):6.1f}% "
              f"{sum(r['flagged'] for r in sel):7} {sum(r['silent'] for r in sel):6} "
              f"{sum(r['missing'] for r in sel):7} {sum(1 for r in sel if r['refused']):7} "
              f"{statistics.median(r['seconds'] for r in sel):8.2f}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_renderings.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
