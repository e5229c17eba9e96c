"""Bench: count cells and row marks on synthetic photos (and the corrected fixture photos if present).

python bench/bench_marks.py [--n 200] [--shared ../shared]
Hand digits are read leave-one-font-out (the pen font of the cell is removed from the templates).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from tools.make_digit_templates import real_cases, synth_count_cell, synth_row
from scanner.ocr.counts import load_templates, read_count_cell
from scanner.ocr.marks import row_marks


def bench_synth(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    t = load_templates()
    t0, cells = time.perf_counter(), 0
    ok = sum(read_count_cell(g).value == tr.value for g, _, tr in (synth_count_cell(rng, "printed") for _ in range(n)))
    cells += n
    print(f"printed digits: {ok}/{n}")
    ok = tot = 0
    for font in ("NanumPen", "NanumBrush"):
        held = t.without_font(font)
        for _ in range(n // 2):
            g, _, tr = synth_count_cell(rng, "hand", pen_fonts=[font])
            ok += read_count_cell(g, templates=held).value == tr.value
            tot += 1
    cells += tot
    print(f"hand digits (leave-one-font-out): {ok}/{tot}")
    st = new = 0
    for _ in range(n):
        g, _, tr = synth_count_cell(rng, "struck")
        r = read_count_cell(g)
        st += r.struck
        new += r.value == tr.value
    cells += n
    print(f"corrected counts: struck found {st}/{n}, new value right {new}/{n}")
    print(f"ms per cell: {(time.perf_counter() - t0) / cells * 1000:.1f}")
    for kind in ("struck", "printed", "hand", "count-left", "empty"):
        rows = [synth_row(rng, kind) for _ in range(n // 2)]
        t1 = time.perf_counter()
        marks = [row_marks(g, b if i % 2 else None) for i, (g, b, _) in enumerate(rows)]
        ms = (time.perf_counter() - t1) / len(rows) * 1000
        print(f"rows {kind:10s}: struck {sum(m.struck for m in marks)}/{len(rows)}, "
              f"handwriting {sum(m.handwriting for m in marks)}/{len(rows)}, {ms:.1f} ms/row")


def bench_fixtures(shared: Path) -> None:
    sheets = shared / "fixtures" / "sheets"
    if not sheets.is_dir():
        print(f"(no fixtures at {sheets})")
        return
    c = {"printed": [0, 0], "struck_cells": [0, 0], "rows_tp": 0, "rows_fp": 0, "rows_struck": 0,
         "hand_tp": 0, "hand_n": 0, "hand_fp": 0}
    for _, _, _, kind, bgr, gray, cell, beside, count, _, row_struck, hand in real_cases(sheets):
        m = row_marks(gray, bgr)
        c["rows_struck"] += row_struck
        c["rows_tp"] += row_struck and m.struck
        c["rows_fp"] += (not row_struck) and m.struck
        c["hand_n"] += hand
        c["hand_tp"] += hand and m.handwriting
        c["hand_fp"] += (not hand) and m.handwriting
        if kind == "empty":
            continue
        r = read_count_cell(cell, beside)
        if kind == "printed" and not row_struck:
            c["printed"][0] += r.value == count and not r.struck
            c["printed"][1] += 1
        if kind.startswith("count-") or row_struck:
            c["struck_cells"][0] += r.struck
            c["struck_cells"][1] += 1
    print(f"fixtures: printed counts {c['printed'][0]}/{c['printed'][1]}, struck cells found "
          f"{c['struck_cells'][0]}/{c['struck_cells'][1]}, row strikes TP {c['rows_tp']}/{c['rows_struck']} "
          f"FP {c['rows_fp']}, handwriting TP {c['hand_tp']}/{c['hand_n']} FP {c['hand_fp']}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parent.parent.parent / "shared")
    a = ap.parse_args()
    bench_synth(a.n, a.seed)
    bench_fixtures(a.shared)


if __name__ == "__main__":
    main()
