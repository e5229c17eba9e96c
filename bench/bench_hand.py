"""Benchmark the reader on Konami's form filled in by hand (issue 35), in handwriting faces
apart from the ones it was tuned on.

    python bench/bench_hand.py                          # held-out faces, 12 sheets, seed 3501
    python bench/bench_hand.py --faces tuning --count 8 --seed 3502
    python bench/bench_hand.py --faces UnPilgia,BMKirang --count 4 -v

Sheets are made by `samples/make_photos.py` (kind kde-hand, `kde_paper.Hand` with `--faces`:
`held-out` = `kde_paper.HELD_OUT_FACES`, `tuning` = `TUNING_FACES`, or names of `HAND_FACES`;
pen pressure, bent strokes and inks varied; the whole form written by hand unless `--mode`)
into `bench/results/hand-sets/` (kept: a re-run reads the same files), then each is read as
`decksheet scan FILE --json` in its own process (what a desk's reading costs: start-up, models,
the card database and the sheet; wall and CPU seconds of the child). Figures, over the lines
written by hand:

- **right**: the line at the row's place carries the true card and count as its answer (the
  reader's first answer, whatever it flags: the judge confirms it at a glance);
- **accepted on evidence**: lines written by hand the reader leaves unflagged (its evidence is
  conclusive: `scanner/ocr/evidence.py`), and of them **accepted wrong** (wrong card or count,
  not flagged): must be 0;
- **silent**: every wrong line not flagged, as the project scores it (`tests/scoring.py`: by card
  over the whole sheet, printed lines too): must be 0;
- **missing / phantom**: a written row with no line; a line where nothing is written;
- **doubt order**: how the reader's `certainty` ranks its lines: wrong lines among those it
  gives ≥ 0.8 (`likely`) and among the others (`check`, the ones the station lists first);
- **ID / name**: the player's Konami ID and name read right (reported with their confidence,
  flagged for the judge), read wrong, or not read.

Results go to `bench/results/hand-<label>-<stamp>.json`.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "samples"))

from sample_makers import make_photos as _make_photos  # noqa: E402
from scoring import score_scan  # noqa: E402

SHARED = REPO.parent / "shared"
DEFAULT_DB = SHARED / "carddb" / "ko-KR.cdb"


def face_names(spec: str) -> tuple[str, ...]:
    import kde_paper
    if spec == "held-out":
        return kde_paper.HELD_OUT_FACES
    if spec == "tuning":
        return kde_paper.TUNING_FACES
    if spec == "held-out-later":
        return kde_paper.HELD_OUT_LATER
    names = tuple(spec.split(","))
    unknown = set(names) - set(kde_paper.HAND_FACES)
    if unknown:
        raise SystemExit(f"unknown faces {sorted(unknown)}; known: {', '.join(kde_paper.HAND_FACES)}")
    return names


def make_set(folder: Path, faces: tuple[str, ...], count: int, seed: int, mode: str, card_db: Path) -> list[Path]:
    """`count` hand-filled forms in `folder` (made once; kept for re-runs)."""
    mp = _make_photos()
    folder.mkdir(parents=True, exist_ok=True)
    have = sorted(folder.glob("kde-hand-*.truth.json"))
    if len(have) >= count:
        return have[:count]
    from card_db.cdb import load_card_db
    import numpy as np
    db = load_card_db(card_db)
    pools = mp.card_pools(db)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            rng = np.random.default_rng([seed, i, 35])
            sheet = mp.random_sheet(db, pools, rng, i, seed)
            # a face per sheet, in turn: every face gets its share of sheets
            face = (faces[i % len(faces)],)
            path = mp.make_kde(sheet, "kde-hand", f"kde-hand-{i + 1:02d}", folder, rng, mp.FULL, Path(tmp),
                               faces=face, varied=True, hand_mode=mode)
            out.append(path.with_name(path.name.rsplit(".", 1)[0] + ".truth.json"))
            print(f"made {path.name} ({face[0]})", flush=True)
    return out


def read_as_process(path: Path, card_db: Path) -> tuple[dict | None, str | None, float, float]:
    """`decksheet scan FILE --json` in its own process: (output, error, wall s, CPU s)."""
    # (this checkout's code, whatever is installed: `python -c` puts the working folder first)
    args = [sys.executable, "-c", "from scanner.cli import main; main()", "scan", str(path), "--json",
            "--card-db", str(card_db)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        return None, proc.stderr.strip().splitlines()[-1:] and proc.stderr.strip().splitlines()[-1], wall, cpu
    return json.loads(proc.stdout), None, wall, cpu


def _flagged_keys(out: dict) -> tuple[set, set]:
    review = out.get("review") or []
    ids = {(r.get("section"), r.get("card_id")) for r in review if r.get("card_id") is not None}
    lines = {(r.get("section"), r.get("line")) for r in review if r.get("line") is not None}
    return ids, lines


LIKELY = 0.8
"""A line the reader gives this `certainty` or more counts as one it calls likely right; below,
as one it asks the judge to check first."""


def score_hand(out: dict, truth: dict) -> dict:
    """Line figures over the rows written by hand, and the player's ID and name."""
    lines = [ln for ln in truth["layout"]["lines"] if ln.get("written", "hand") == "hand"]
    want = {(ln["column"], ln["row"]): ln for ln in lines}
    typed = {(ln["column"], ln["row"]) for ln in truth["layout"]["lines"]} - set(want)
    ids, review_lines = _flagged_keys(out)
    got: dict[tuple, dict] = {}
    unflagged: set[tuple] = set()
    res = {"hand_lines": len(want), "right": 0, "card_right": 0, "count_right": 0, "missing": 0,
           "phantom": 0, "hand_unflagged": 0, "accepted_wrong": 0, "wrong": [], "doubt": {}}
    for s, entries in (out.get("sections") or {}).items():
        for pos, e in enumerate(entries, 1):
            key = (e.get("column"), e.get("row"))
            flagged = bool(e.get("needs_review")) or (s, e.get("card_id")) in ids or (s, pos) in review_lines
            if key in want:
                got[key] = e
                if not flagged:
                    res["hand_unflagged"] += 1
                    unflagged.add(key)
            elif key not in typed:
                res["phantom"] += 1
                res["wrong"].append(f"{key[0]} row {key[1]}: phantom line {e.get('name')} ×{e.get('count')}")
    for key, ln in want.items():
        e = got.get(key)
        if e is None:
            res["missing"] += 1
            res["wrong"].append(f"{key[0]} row {key[1]}: missing ({ln['name']} ×{ln['count']})")
            continue
        card = e.get("card_id") == ln["card_id"]
        count = e.get("count") == ln["count"]
        res["card_right"] += card
        res["count_right"] += count
        res["right"] += card and count
        c = e.get("certainty")
        doubt = "none" if c is None else ("likely" if c >= LIKELY else "check")
        d = res["doubt"].setdefault(doubt, [0, 0])
        d[0] += 1
        d[1] += not (card and count)
        if not (card and count):
            res["accepted_wrong"] += key in unflagged
            res["wrong"].append(f"{key[0]} row {key[1]}: read {e.get('read')!r} → {e.get('name')} ×{e.get('count')} "
                                f"[{doubt}{', ACCEPTED' if key in unflagged else ''}]; true {ln['name']} ×{ln['count']}")
    sc = score_scan(out, truth)
    res["silent"] = sc["silent"]
    res["silent_errors"] = sc["errors"]
    player, true = out.get("player") or {}, truth.get("player") or {}
    for k in ("konami_id", "name"):
        v = player.get(k)
        res[k] = "unread" if v is None else ("right" if v == true.get(k) else "wrong")
        if res[k] == "wrong":
            res["wrong"].append(f"player {k}: read {v!r} ({player.get(k + '_confidence')}), true {true.get(k)!r}")
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--faces", default="held-out", help="held-out, held-out-later, tuning, or names of kde_paper.HAND_FACES")
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--seed", type=int, default=3501)
    ap.add_argument("--mode", default="all", help="kde_paper.HAND_MODES: what is written by hand")
    ap.add_argument("--card-db", type=Path, default=DEFAULT_DB)
    ap.add_argument("--sets", type=Path, default=REPO / "bench" / "results" / "hand-sets")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    if not args.card_db.is_file():
        raise SystemExit(f"{args.card_db}: the Korean card database is needed (--card-db)")
    faces = face_names(args.faces)
    label = f"{args.faces.replace(',', '+')}-{args.mode}-s{args.seed}"
    truths = make_set(args.sets / label, faces, args.count, args.seed, args.mode, args.card_db)
    total = {"sheets": 0, "hand_lines": 0, "right": 0, "card_right": 0, "count_right": 0, "missing": 0,
             "phantom": 0, "hand_unflagged": 0, "accepted_wrong": 0, "silent": 0, "failed": 0, "doubt": {},
             "konami_id": {"right": 0, "wrong": 0, "unread": 0}, "name": {"right": 0, "wrong": 0, "unread": 0}}
    walls, cpus, sheets = [], [], []
    by_face: dict[str, list[int]] = {}
    for truth_path in truths:
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        src = truth_path.parent / truth["file"]
        out, err, wall, cpu = read_as_process(src, args.card_db)
        walls.append(wall)
        cpus.append(cpu)
        total["sheets"] += 1
        if out is None:
            total["failed"] += 1
            print(f"{src.name}: FAILED {err}")
            continue
        sc = score_hand(out, truth)
        (args.out / "hand-answers" / label).mkdir(parents=True, exist_ok=True)
        (args.out / "hand-answers" / label / f"{src.name}.json").write_text(
            json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
        face = truth["layout"]["hand"]["pen"]["font"]
        f = by_face.setdefault(face, [0, 0])
        f[0] += sc["hand_lines"]
        f[1] += sc["right"]
        for k in ("hand_lines", "right", "card_right", "count_right", "missing", "phantom", "hand_unflagged",
                  "accepted_wrong", "silent"):
            total[k] += sc[k]
        for k in ("konami_id", "name"):
            total[k][sc[k]] += 1
        for d, (n, bad) in sc["doubt"].items():
            t = total["doubt"].setdefault(d, [0, 0])
            t[0] += n
            t[1] += bad
        sheets.append({"file": src.name, "face": face, "seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
                       **{k: v for k, v in sc.items()}})
        print(f"{src.name:20s} {face:18s} {sc['right']:2d}/{sc['hand_lines']:2d} right "
              f"(card {sc['card_right']}, count {sc['count_right']}), missing {sc['missing']}, "
              f"phantom {sc['phantom']}, accepted {sc['hand_unflagged']} (wrong {sc['accepted_wrong']}), "
              f"silent {sc['silent']}, "
              f"ID {sc['konami_id']}, name {sc['name']}, {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
        if args.verbose:
            for w in sc["wrong"]:
                print("    ", w)
            for w in sc["silent_errors"]:
                print("     silent:", w)
    n = max(total["hand_lines"], 1)
    summary = {**total, "right_share": round(total["right"] / n, 4),
               "median_seconds": round(statistics.median(walls), 2) if walls else None,
               "median_cpu_seconds": round(statistics.median(cpus), 2) if cpus else None,
               "max_cpu_seconds": round(max(cpus), 2) if cpus else None,
               "by_face": {k: f"{v[1]}/{v[0]}" for k, v in by_face.items()}}
    doubt = ", ".join(f"{d}: {bad} wrong of {k}" for d, (k, bad) in sorted(total["doubt"].items()))
    print(f"\n{label}: {total['sheets']} sheets, {total['right']}/{total['hand_lines']} hand lines right "
          f"({summary['right_share']:.1%}; card {total['card_right']}, count {total['count_right']}), "
          f"missing {total['missing']}, phantom {total['phantom']}, hand lines accepted on evidence "
          f"{total['hand_unflagged']} (wrong {total['accepted_wrong']}), "
          f"silent {total['silent']}, failed {total['failed']}\n"
          f"doubt: {doubt}\n"
          f"ID {total['konami_id']}, name {total['name']}\n"
          f"per face: {summary['by_face']}\n"
          f"seconds per sheet as a process: wall median {summary['median_seconds']}, "
          f"CPU median {summary['median_cpu_seconds']} (max {summary['max_cpu_seconds']})")
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    (args.out / f"hand-{label}-{stamp}.json").write_text(
        json.dumps({"summary": summary, "sheets": sheets}, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
