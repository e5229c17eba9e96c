"""Several machines on one PostgreSQL event, on loopback: `serve` front-ends (reading nothing:
`--workers 0`) and `decksheet worker` readers, uploaders at every desk; half-way one worker and
one front-end are SIGKILLed. Checks every upload is registered exactly once with versions in
upload order, and times the run (sheets per minute).

python bench/bench_pg_station.py                                   # 2 serve, 3 workers, 8 x 25
python bench/bench_pg_station.py --workers 1 --no-kill             # the same load, one reader
python bench/bench_pg_station.py --kinds pdf,scan                  # with OCR of scans (slow)
Figures go to bench/results/pg-station-*.json.

A desk whose front-end dies mid-upload does what a judge would: it looks the player's upload up
(by the file's sha256 in the queue) before sending it again to the other front-end, so a lost
answer does not become a second upload.
"""
from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from pg_server import PgServer, wait_ready  # noqa: E402
from web.station import SAMPLES, child_env, start_server  # noqa: E402

from scanner.event.stores import create_event, open_event  # noqa: E402
from scanner.web.station_store_pg import PgStationStore  # noqa: E402


def files_of(kinds: set[str]) -> list[Path]:
    out: list[Path] = []
    if "pdf" in kinds:
        out += sorted((SAMPLES / "sheets").glob("*.pdf"))
    if "ydk" in kinds:
        out += sorted((SAMPLES / "decks").glob("*.ydk"))
    if "scan" in kinds:
        out += sorted((SAMPLES / "photos").glob("scan-*.pdf"))
    if "photo" in kinds:
        out += sorted((SAMPLES / "photos").glob("photo-0*.jpg"))
    return out


def start_worker(url: str, data: Path, card_db: str, lease: float) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", "from scanner.cli import main; main()", "worker", "--event", url,
         "-j", "1", "--lease", str(lease), "--card-db", card_db],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=child_env(data),
        cwd=REPO)
    if not proc.stdout.readline().startswith("decksheet worker: "):
        raise RuntimeError("worker did not start")
    return proc


def run(args: argparse.Namespace) -> dict:
    from card_db.cdb import demo_db_path
    card_db = args.card_db or str(demo_db_path())
    server = PgServer.start()
    wait_ready(server)
    work = server.root.parent / f"{server.root.name}-work"
    work.mkdir()
    url = server.url(db=server.createdb("bench"), event="load")
    create_event(url, "부하 시험", dt.date(2026, 7, 12)).close()
    files = files_of(set(args.kinds.split(",")))
    fronts = [start_server(url, work, workers=0, extra=("--card-db", card_db))
              for _ in range(args.serve)]
    workers = [start_worker(url, work, card_db, args.lease) for _ in range(args.workers)]
    total = args.uploaders * args.sheets
    uploaded: list[tuple[int, str, str]] = []  # (order, job, player)
    lock = threading.Lock()
    alive = list(range(len(fronts)))
    retried = 0

    def post(n: int, path: Path, kid: str) -> str:
        nonlocal retried
        data = path.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        for attempt in range(len(fronts) + 1):
            front = fronts[alive[(n + attempt) % len(alive)]]
            try:
                with front.client() as c:
                    r = c.post("/api/registrations", files={"file": (path.name, data)},
                               data={"player": kid})
                r.raise_for_status()
                return r.json()["job"]
            except httpx.HTTPError:
                with lock:
                    retried += 1
                with PgStationStore(url) as st:  # did the dead front-end keep it?
                    row = st.con.execute("SELECT id FROM station_jobs WHERE event = %s AND "
                                         "konami_id = %s AND file_sha256 = %s", (
                                             st.event, kid, sha)).fetchone()
                if row:
                    return row["id"]
        raise RuntimeError("no front-end took the upload")

    def desk(n: int) -> None:
        for i in range(args.sheets):
            # The last 3 uploads of a desk are its first players' second versions.
            kid = f"{6000000000 + n * 100 + i % max(1, args.sheets - 3)}"
            path = files[(n * args.sheets + i) % len(files)]
            job = post(n, path, kid)
            with lock:
                uploaded.append((len(uploaded), job, kid))

    started = time.perf_counter()
    threads = [threading.Thread(target=desk, args=(n,)) for n in range(args.uploaders)]
    for t in threads:
        t.start()
    killed = {}
    if not args.no_kill:
        while len(uploaded) < total // 2:
            time.sleep(0.05)
        workers[0].send_signal(signal.SIGKILL)
        fronts[0].proc.send_signal(signal.SIGKILL)
        alive.remove(0)
        killed = {"worker_pid": workers[0].pid, "front_end": fronts[0].url,
                  "at_upload": len(uploaded)}
    for t in threads:
        t.join()
    deadline = time.monotonic() + args.timeout
    with PgStationStore(url) as st:
        while time.monotonic() < deadline and st.jobs():
            time.sleep(0.2)
        left = len(st.jobs())
        states = [st.job(j).state for _, j, _ in uploaded]
    wall = time.perf_counter() - started
    with open_event(url, readonly=True) as store:
        regs = store.registrations()
    marks = [r.decklist_json.get("station_job") for r in regs]
    order_ok = True
    for kid in {k for _, _, k in uploaded}:
        mine = [j for _, j, k in sorted(uploaded) if k == kid]
        versions = {r.decklist_json.get("station_job"): r.version for r in regs
                    if r.konami_id == kid}
        order_ok &= [versions.get(j) for j in mine] == list(range(1, len(mine) + 1))
    for p in workers:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for f in fronts:
        f.stop()
    for p in workers:
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
    server.stop()
    return {"serve": args.serve, "workers": args.workers, "uploaders": args.uploaders,
            "sheets_each": args.sheets, "kinds": args.kinds, "uploads": len(uploaded),
            "done": states.count("done"), "failed": states.count("failed"), "left": left,
            "registered": len(regs), "each_job_once": sorted(marks) == sorted(
                j for _, j, _ in uploaded), "versions_in_upload_order": order_ok,
            "upload_retries": retried, "killed": killed, "wall_s": round(wall, 1),
            "sheets_per_min": round(60 * len(uploaded) / wall, 1)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve", type=int, default=2)
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--uploaders", type=int, default=8)
    ap.add_argument("--sheets", type=int, default=25)
    ap.add_argument("--kinds", default="pdf,ydk")
    ap.add_argument("--lease", type=float, default=5.0)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--card-db", default=None)
    ap.add_argument("--no-kill", action="store_true")
    args = ap.parse_args()
    out = run(args)
    (REPO / "bench" / "results").mkdir(exist_ok=True)
    name = f"pg-station-{args.serve}s{args.workers}w{'' if args.no_kill else '-kill'}.json"
    (REPO / "bench" / "results" / name).write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    ok = out["each_job_once"] and out["versions_in_upload_order"] and out["left"] == 0 and \
        out["failed"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
