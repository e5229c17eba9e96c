"""Phone photos of printed text-layer sheets, tilted 0–15° about random axes, scored against
their own text layer.

Every text-layer sheet (the shipped samples, the shared fixtures' db-ko, kde-flat and kde-form
sheets, and sheets this script draws from real decks the fixtures hold but never drew: db-ko,
Konami's form flat or filled) is rendered by poppler or pdfium, printed on A4 or Letter ("fit to
page"), laid on a table and photographed by `tests/camera.py`'s pinhole camera: tilted 0–15°
about a random axis in the page, turned up to ±8° in the frame, unevenly lit, shadowed, blurred,
JPEG 70–90. The sheet's text layer is the truth of its photo (`renderings.agreement`): lines
right and unflagged, flagged, silent (stated and wrong), missing, refused photos.

    python bench/bench_tilted.py [--photos 2] [--generated 6] [--max-tilt 15] [--seed 34]
                                 [--kinds kde db] [--tilt DEG --axis DEG] [-v]

Prints a line per photo (with -v) and a table per sheet kind and tilt band; writes
bench/results/bench_tilted.json (and keeps the photos with --keep DIR).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from benchenv import REPO, RESULTS, SHARED, make_samples  # first: paths, one OCR thread

import numpy as np  # noqa: E402

from camera import photograph, print_on, random_pose  # noqa: E402
from card_db.cdb import demo_db_path, load_card_db  # noqa: E402
from renderings import agreement, fits_form, make_sheet, render, values_drawn  # noqa: E402
from scanner.errors import DecksheetError  # noqa: E402
from scanner.read import load_decklist  # noqa: E402

GENERATED_KINDS = ("db", "kde-flat", "kde-form")


def _real_decks() -> list[Path]:
    fx = SHARED / "fixtures"
    return (sorted((fx / "world" / "decks").glob("*.ydk")) + sorted((fx / "compare").glob("*/registered.ydk"))
            + sorted((fx / "legality").glob("L00[12]-*.ydk")))


def sheets(work: Path, generated: int, seed: int) -> list[tuple[Path, str]]:
    """(pdf, database) of every sheet photographed."""
    demo, real = str(demo_db_path()), str(SHARED / "carddb" / "ko-KR.cdb")
    out = [(p, demo) for p in sorted((REPO / "samples" / "sheets").glob("*.pdf"))]
    fixtures = SHARED / "fixtures" / "sheets"
    out += [(p, real) for kind in ("db-ko", "kde-flat", "kde-form") for p in sorted(fixtures.glob(f"{kind}-*.pdf"))]
    if generated:
        ms = make_samples()
        db = load_card_db(Path(real))
        decks = _real_decks()
        for i in range(generated):
            rng = random.Random(seed * 1000 + i)
            kind = GENERATED_KINDS[i % len(GENERATED_KINDS)]
            deck = ms.deck_from_ydk(decks[i % len(decks)], db)
            if not fits_form(deck, kind):
                kind = "db"
            pdf = make_sheet(ms, kind, deck, rng, work / f"gen-{kind}-{i}.pdf", None)
            out.append((pdf, real))
    return out


def kind_of(pdf: Path) -> str:
    return "kde" if "kde" in pdf.name else "db"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=2, help="photos of each sheet")
    ap.add_argument("--generated", type=int, default=6, help="sheets drawn from real decks")
    ap.add_argument("--max-tilt", type=float, default=15.0)
    ap.add_argument("--tilt", type=float, default=None, help="every photo at this tilt")
    ap.add_argument("--axis", type=float, default=None, help="about this axis (0 = horizontal)")
    ap.add_argument("--paper", choices=("A4", "Letter"), default=None)
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--kinds", nargs="*", default=["kde", "db"])
    ap.add_argument("--match", default="", help="only sheets whose file name holds this")
    ap.add_argument("--keep", type=Path, help="keep the photos in this folder")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    rows = []
    dbs: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        keep = args.keep or work
        keep.mkdir(parents=True, exist_ok=True)
        for n, (pdf, db_path) in enumerate(sheets(work, args.generated, args.seed)):
            if kind_of(pdf) not in args.kinds or args.match not in pdf.name:
                continue
            db = dbs.setdefault(db_path, load_card_db(Path(db_path)))
            truth = load_decklist(pdf, db)
            drawn = values_drawn(pdf)
            for k in range(args.photos):
                rng = np.random.default_rng([args.seed, n, k])
                renderer = "pdfium" if not drawn or rng.random() < 0.5 else "poppler"
                dpi = int(rng.choice([200, 250]))
                paper = args.paper or ("Letter" if rng.random() < 0.3 else "A4")
                page = print_on(render(pdf, renderer, dpi), dpi, paper, rng=rng)
                pose = random_pose(rng, args.max_tilt, tilt=args.tilt, axis=args.axis)
                data, info = photograph(page, rng, pose)
                image = keep / f"{pdf.stem}-{k}.jpg"
                image.write_bytes(data)
                start = time.perf_counter()
                try:
                    read, refused = load_decklist(image, db), None
                except DecksheetError as exc:
                    read, refused = None, f"{exc.code}: {exc}"
                except Exception as exc:  # noqa: BLE001  (a bench counts crashes, it does not stop)
                    read, refused = None, f"CRASH {type(exc).__name__}: {exc}"
                seconds = time.perf_counter() - start
                got = agreement(truth, read, refused)
                sheet_items = [r.reason for r in (read.review if read else []) if r.section is None and r.line is None]
                rows.append({"sheet": pdf.name, "kind": kind_of(pdf), "photo": k, "renderer": renderer, "dpi": dpi,
                             "paper": paper, "tilt": round(pose.tilt_deg, 2), "axis": round(pose.axis_deg, 1),
                             "seconds": round(seconds, 2), "sheet_items": sheet_items, **asdict(got),
                             "info": info})
                if args.verbose:
                    print(f"{pdf.name:28} {k} {paper:6} tilt {pose.tilt_deg:4.1f}° axis {pose.axis_deg:5.1f}° "
                          f"{got.right:3}/{got.lines:3} right {got.flagged:2} flagged {got.silent} silent "
                          f"{got.missing:2} missing {seconds:4.1f}s {got.refused or ''} {sheet_items} "
                          f"{'; '.join(got.diffs[:2])}", flush=True)
                if not args.keep:
                    image.unlink()
    print(f"{'group':14} {'photos':>6} {'lines':>6} {'right':>7} {'flagged':>7} {'silent':>6} "
          f"{'missing':>7} {'refused':>7} {'s mean':>7}")
    bands = [("tilt 0-5°", 0, 5), ("tilt 5-10°", 5, 10), ("tilt 10-15°", 10, 99)]
    groups = ([(k, lambda r, k=k: r["kind"] == k) for k in args.kinds]
              + [(b, lambda r, lo=lo, hi=hi: lo <= r["tilt"] < hi) for b, lo, hi in bands]
              + [(p, lambda r, p=p: r["paper"] == p) for p in ("A4", "Letter")]
              + [("all", lambda r: True)])
    for name, sel in groups:
        part = [r for r in rows if sel(r)]
        if not part:
            continue
        lines = sum(r["lines"] for r in part)
        print(f"{name:14} {len(part):6} {lines:6} {100 * sum(r['right'] for r in part) / max(lines, 1):6.1f}% "
              f"{sum(r['flagged'] for r in part):7} {sum(r['silent'] for r in part):6} "
              f"{sum(r['missing'] for r in part):7} {sum(1 for r in part if r['refused']):7} "
              f"{sum(r['seconds'] for r in part) / len(part):7.1f}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_tilted.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
