"""Speed of a text PDF's read plus its appearance check (issue 25), in-process on one core.

For every text-layer and form PDF of ../shared/fixtures/sheets, ../shared/fixtures/world/peers
and samples/sheets: read the sheet
(`scanner.pdf.reader.read_pdf`) and compare it with the rendered page
(`scanner.appearance.check_appearance`), `--repeat` times after one warm-up (fonts and pdfium
loaded once per process, as in a batch or the station); report the median per sheet and over
all sheets (goal: read + check ≤ 0.4 s), and the lines each check flagged (honest sheets: 0).
Figures go to bench/results/appearance.json.

    OMP_THREAD_LIMIT=1 taskset -c 0 python bench/bench_appearance.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from scanner.appearance import check_appearance
from scanner.inputs.options import ReadOptions
from scanner.pdf.reader import read_pdf

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "fixtures" / "sheets"


def sheets() -> list[Path]:
    found = sorted(p for p in SHARED.glob("*.pdf") if "scan" not in p.name)
    peers = sorted((SHARED.parent / "world" / "peers").glob("*.pdf"))
    return found + peers + sorted((REPO / "samples" / "sheets").glob("*.pdf"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = []
    for path in sheets():
        times, checks, flagged = [], [], 0
        for i in range(args.repeat + 1):
            start = time.perf_counter()
            sheet = read_pdf(path, None, ReadOptions())
            if sheet is None:
                break
            report = check_appearance(path, sheet)
            if i:  # the first run loads fonts and pdfium: a process does that once
                times.append(time.perf_counter() - start)
                checks.append(report.seconds)
            flagged = report.flagged + sum(1 for r in sheet.review if r.reason == "appearance-differs")
        if not times:
            continue
        rows.append({"sheet": path.name, "reader": sheet.reader, "lines": len(sheet.lines),
                     "median_s": statistics.median(times), "check_s": statistics.median(checks),
                     "flagged": flagged})
        print(f"{path.name:32s} {sheet.reader:9s} {len(sheet.lines):3d} lines  read+check "
              f"{rows[-1]['median_s']:.3f} s (check {rows[-1]['check_s']:.3f} s)  flagged {flagged}")
    all_s = [r["median_s"] for r in rows]
    summary = {"sheets": len(rows), "median_s": statistics.median(all_s), "max_s": max(all_s),
               "check_median_s": statistics.median(r["check_s"] for r in rows),
               "flagged": sum(r["flagged"] for r in rows)}
    print(f"-- {summary['sheets']} sheets: median {summary['median_s']:.3f} s, max "
          f"{summary['max_s']:.3f} s, check median {summary['check_median_s']:.3f} s, "
          f"flagged {summary['flagged']}")
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "appearance.json").write_text(json.dumps({"summary": summary, "sheets": rows}, indent=1))


if __name__ == "__main__":
    main()
