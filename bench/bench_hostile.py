"""Hostile PDFs of issues 33 and 37: time and peak memory of one `decksheet scan` each.

Each file is built by tests/hostile_pdfs.py at the issues' scale (kilobytes to 2 MB on disk,
gigabytes unpacked). One `decksheet scan FILE` runs as a process; its peak memory is the
largest sum of the resident sets of it and its children (the reader worker), sampled every
20 ms; a run past --kill-gb or --kill-s is stopped and reported as such. The clean sample
sheets (samples/sheets/*.pdf) are timed the same way, for the cost of the guards.

    python bench/bench_hostile.py [--card-db ../shared/carddb/ko-KR.cdb] [--only NAME] [--clean]
                                  [--base DIR]

`--base DIR`: also run the code unpacked in DIR (`git archive COMMIT | tar -x -C DIR`), the
runs of both interleaved so the machine's load falls on both alike.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.hostile_pdfs import BUILDERS  # noqa: E402


def _children(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                out += [int(c) for c in fh.read().split()]
    except OSError:
        pass
    return out


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_kb(pid: int) -> int:
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        total += _rss_kb(p)
        todo += _children(p)
    return total


def run(cmd: list[str], kill_kb: int, kill_s: float, env: dict | None = None) -> dict:
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, env=env)
    peak, stopped = 0, None
    while proc.poll() is None:
        peak = max(peak, tree_rss_kb(proc.pid))
        if peak > kill_kb:
            stopped = "memory"
        elif time.monotonic() - started > kill_s:
            stopped = "time"
        if stopped:
            os.killpg(proc.pid, 9)
            break
        time.sleep(0.02)
    out, err = proc.communicate()
    seconds = time.monotonic() - started
    lines = [ln for ln in err.decode("utf-8", "replace").splitlines()
             if ln.strip() and "DEMO card database" not in ln]
    return {"seconds": seconds, "peak_mb": peak / 1024, "exit": proc.returncode,
            "stopped": stopped, "last": lines[-1][:150] if lines else "",
            "traceback": any("Traceback" in ln for ln in lines)}


def _command(base: Path | None, card_db: str | None) -> tuple[list[str], dict]:
    env = dict(os.environ)
    head = [sys.executable, "-c", "from scanner.cli import main; main()", "scan"]
    if base is not None:
        env["PYTHONPATH"] = str(base)
    else:
        env.pop("PYTHONPATH", None)
        head = [str(Path(sys.executable).with_name("decksheet")), "scan"]
    return head + (["--card-db", card_db] if card_db else []), env


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--card-db", default=None)
    ap.add_argument("--only", action="append")
    ap.add_argument("--clean", action="store_true", help="also time samples/sheets/*.pdf")
    ap.add_argument("--repeat", type=int, default=3, help="runs per clean sheet")
    ap.add_argument("--kill-gb", type=float, default=4.0)
    ap.add_argument("--kill-s", type=float, default=90.0)
    ap.add_argument("--keep", type=Path, help="write the built files here")
    ap.add_argument("--base", type=Path, help="also run the code unpacked here (before)")
    ap.add_argument("--skip-hostile", action="store_true")
    args = ap.parse_args()
    versions = [("after", *_command(None, args.card_db))]
    if args.base:
        versions.insert(0, ("before", *_command(args.base, args.card_db)))
    folder = args.keep or Path(tempfile.mkdtemp(prefix="hostile-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{'file':26} {'':6} {'size':>9} {'time s':>7} {'peak MB':>8}  answer")
    for name, build in BUILDERS.items():
        if args.skip_hostile or (args.only and name not in args.only):
            continue
        path = folder / f"{name}.pdf"
        if not path.exists():
            path.write_bytes(build())
        for label, cmd, env in versions:
            r = run(cmd + [str(path)], int(args.kill_gb * 1024 * 1024), args.kill_s, env)
            answer = f"stopped ({r['stopped']})" if r["stopped"] else \
                f"exit {r['exit']}{' TRACEBACK' if r['traceback'] else ''}: {r['last']}"
            print(f"{name:26} {label:6} {path.stat().st_size:>9} {r['seconds']:>7.1f} "
                  f"{r['peak_mb']:>8.0f}  {answer}", flush=True)
    if args.clean:
        medians: dict[str, list[float]] = {label: [] for label, _, _ in versions}
        for pdf in sorted((REPO / "samples" / "sheets").glob("*.pdf")):
            runs: dict[str, list[dict]] = {label: [] for label, _, _ in versions}
            for _ in range(args.repeat):
                for label, cmd, env in versions:  # interleaved: the load falls on both
                    runs[label].append(run(cmd + [str(pdf)], 8 << 20, 120, env))
            for label, _, _ in versions:
                rs = runs[label]
                medians[label].append(statistics.median(r["seconds"] for r in rs))
                print(f"{pdf.name:26} {label:6} {'':>9} {medians[label][-1]:>7.2f} "
                      f"{max(r['peak_mb'] for r in rs):>8.0f}  median of {len(rs)} "
                      f"(best {min(r['seconds'] for r in rs):.2f}), exit {rs[0]['exit']}",
                      flush=True)
        for label, values in medians.items():
            print(f"clean sheets, {label}: median {statistics.median(values):.2f} s per scan")
    return 0


if __name__ == "__main__":
    sys.exit(main())
