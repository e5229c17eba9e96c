"""Load the check-in station on loopback: N concurrent uploaders × M sheets each.

A real `decksheet serve` (child process, demo card database) on a fresh event; each uploader
is a thread with its own HTTP connection that uploads a sheet for a new player and polls the
job until it is done, then the next. Reported: time to verdict per sheet (upload start →
job done, as a desk sees it) p50/p95 overall and for photos/PDFs, worker read time, throughput,
and that every sheet is registered exactly once (version 1 for each of the N×M players).

    python bench/bench_station.py [--uploaders 8] [--sheets 25] [--workers N] [--kinds pdf,photo]
    python bench/bench_station.py --uploaders 4 --sheets 5 --kinds photo   # photo p95, 4 in flight

Writes bench/results/bench_station.json.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from web.station import Server, make_event, start_server

SAMPLES = REPO / "samples"


def sample_files(kinds: set[str]) -> list[Path]:
    files: list[Path] = []
    if "pdf" in kinds:
        files += sorted((SAMPLES / "sheets").glob("*.pdf"))
    if "scan" in kinds:
        files += sorted((SAMPLES / "photos").glob("*.pdf"))
    if "photo" in kinds:
        files += sorted((SAMPLES / "photos").glob("*.jpg"))
    if "ydk" in kinds:
        files += sorted((SAMPLES / "decks").glob("*.ydk"))
    return files


@dataclass
class Sample:
    kind: str
    seconds: float
    """Upload start → job done, as the desk sees it (poll every 0.1 s)."""
    read_seconds: float
    """Worker time reading the sheet."""
    state: str


@dataclass
class LoadResult:
    uploaders: int
    sheets_each: int
    workers: int
    cores: int
    files: list[str]
    wall_seconds: float = 0.0
    samples: list[Sample] = field(default_factory=list)
    registered: int = 0
    registered_once: bool = False
    failed: int = 0

    def figures(self) -> dict:
        def pct(xs: list[float], p: float) -> float | None:
            if not xs:
                return None
            xs = sorted(xs)
            return round(xs[min(len(xs) - 1, round(p * (len(xs) - 1)))], 2)

        out = {"uploaders": self.uploaders, "sheets_each": self.sheets_each,
               "sheets": len(self.samples), "workers": self.workers, "cores": self.cores,
               "wall_seconds": round(self.wall_seconds, 1),
               "throughput_per_min": round(len(self.samples) / self.wall_seconds * 60, 1)
               if self.wall_seconds else None,
               "registered": self.registered, "registered_once": self.registered_once,
               "failed": self.failed}
        for kind in ("all", "photo", "scan", "pdf", "ydk"):
            xs = [s.seconds for s in self.samples if kind == "all" or s.kind == kind]
            rs = [s.read_seconds for s in self.samples if kind == "all" or s.kind == kind]
            if xs:
                out[kind] = {"n": len(xs), "p50": pct(xs, 0.5), "p95": pct(xs, 0.95),
                             "max": round(max(xs), 2), "read_p50": pct(rs, 0.5),
                             "read_p95": pct(rs, 0.95)}
        return out


def run_load(work: Path, uploaders: int = 8, sheets_each: int = 25, workers: int | None = None,
             kinds: set[str] = frozenset({"pdf", "scan", "photo"}),
             alongside: Callable[[Server], None] | None = None) -> LoadResult:
    """`alongside(server)`, if given, runs in a thread of its own while the desks upload (the
    load test's hostile clients)."""
    files = sample_files(set(kinds))
    workers = workers or os.cpu_count() or 1
    event = make_event(work / "load.sqlite")
    server = start_server(event, work / "no-fetched-data", workers=workers)
    result = LoadResult(uploaders, sheets_each, workers, os.cpu_count() or 1,
                        [f.name for f in files])
    lock = threading.Lock()

    def desk(n: int) -> None:
        with server.client() as c:
            for i in range(sheets_each):
                f = files[(n * sheets_each + i) % len(files)]
                kid = str(5000000000 + n * 1000 + i)
                kind = ("photo" if f.suffix == ".jpg" else "ydk" if f.suffix == ".ydk"
                        else "scan" if f.parent.name == "photos" else "pdf")
                t0 = time.perf_counter()
                r = c.post("/api/registrations", files={"file": (f.name, f.read_bytes())},
                           data={"player": kid})
                job = r.json().get("job")
                state, read_s = "failed", 0.0
                while job:
                    j = c.get(f"/api/jobs/{job}").json()
                    if j["state"] in ("done", "failed"):
                        state = j["state"]
                        read_s = (j.get("result") or {}).get("seconds") or 0.0
                        break
                    time.sleep(0.1)
                with lock:
                    result.samples.append(Sample(kind, time.perf_counter() - t0, read_s, state))

    try:
        started = time.perf_counter()
        threads = [threading.Thread(target=desk, args=(n,)) for n in range(uploaders)]
        if alongside is not None:
            threads.append(threading.Thread(target=alongside, args=(server,)))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        result.wall_seconds = time.perf_counter() - started
        with server.client() as c:
            players = c.get("/api/players").json()
    finally:
        server.stop()
    result.failed = sum(1 for s in result.samples if s.state != "done")
    result.registered = len(players)
    result.registered_once = (len(players) == uploaders * sheets_each
                              and all(p["version"] == 1 for p in players))
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uploaders", type=int, default=8)
    ap.add_argument("--sheets", type=int, default=25)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--kinds", default="pdf,scan,photo")
    ap.add_argument("--out", default="bench_station.json", help="file name in bench/results/")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = run_load(Path(tmp), args.uploaders, args.sheets, args.workers,
                          set(args.kinds.split(",")))
    figures = result.figures()
    print(json.dumps(figures, ensure_ascii=False, indent=1))
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / args.out).write_text(json.dumps(
        {"figures": figures, "samples": [asdict(s) for s in result.samples]},
        ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
