"""A season in one PostgreSQL database: 20 events × 100 players (registrations, a second version
for some, deck checks, infractions, voids), then `Circuit.history` for players picked at random
and `Circuit.players` for everyone, timed. The goal: one player's history in ≤ 100 ms.

python bench/bench_circuit.py                      # a throw-away server (initdb in /tmp)
python bench/bench_circuit.py --db postgresql://me@localhost/bench   # an existing database
Figures go to bench/results/circuit.json.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from scanner.event.circuit import Circuit  # noqa: E402
from scanner.event.records import NewInfraction  # noqa: E402
from scanner.event.stores import create_event  # noqa: E402


def generate(db: str, events: int, players: int, seed: int) -> dict:
    rnd = random.Random(seed)
    pool = [f"{n:010d}" for n in range(1, players * 3)]  # a season's players come and go
    counts = {"registrations": 0, "deck_checks": 0, "infractions": 0}
    deck = {"sections": {"main": [{"card_id": 1000 + i, "count": 3} for i in range(13)]}}
    for e in range(events):
        day = dt.date(2026, 1, 4) + dt.timedelta(days=7 * e)
        with create_event(f"{db}?event=week-{e:02d}", f"주간 대회 {e + 1}", day) as s:
            for kid in rnd.sample(pool, players):
                sha = s.store_file(f"{e}:{kid}".encode())
                reg = s.add_registration(kid, f"선수{kid[-4:]}", deck, sha, "sheet.pdf", True,
                                         [], None)
                counts["registrations"] += 1
                if rnd.random() < 0.1:
                    sha2 = s.store_file(f"{e}:{kid}:2".encode())
                    reg = s.add_registration(kid, None, deck, sha2, "v2.pdf", True, [], None)
                    counts["registrations"] += 1
                if rnd.random() < 0.15:
                    bad = rnd.random() < 0.3
                    _, issued = s.add_deck_check(
                        kid, rnd.randint(1, 6), reg.id, "full", not bad, None, {}, {},
                        [NewInfraction("DECKLIST_MISMATCH", "GAME_LOSS", "fix")] if bad else [],
                        "저지")
                    counts["deck_checks"] += 1
                    counts["infractions"] += len(issued)
                    if issued and rnd.random() < 0.2:
                        s.add_amendment(issued[0].id, "void", "오기", "헤드")
    return counts


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", help="an empty database URL (default: a throw-away server)")
    ap.add_argument("--events", type=int, default=20)
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--lookups", type=int, default=200)
    ap.add_argument("--seed", type=int, default=27)
    args = ap.parse_args()
    server = None
    db = args.db
    if not db:
        from pg_server import PgServer, wait_ready
        server = PgServer.start()
        wait_ready(server)
        db = server.url(db=server.createdb("bench"))
    try:
        t0 = time.perf_counter()
        counts = generate(db, args.events, args.players, args.seed)
        gen_s = time.perf_counter() - t0
        with Circuit(db) as c:
            c.con.execute("ANALYZE")
            ids = [p.konami_id for p in c.players()]
            rnd = random.Random(args.seed)
            times = []
            for kid in rnd.choices(ids, k=args.lookups):
                t = time.perf_counter()
                c.history(kid)
                times.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            everyone = c.players()
            players_ms = (time.perf_counter() - t) * 1000
        times.sort()
        out = {"events": args.events, "players_per_event": args.players,
               "distinct_players": len(everyone), **counts,
               "generate_s": round(gen_s, 1), "history_lookups": len(times),
               "history_ms_median": round(statistics.median(times), 2),
               "history_ms_p95": round(times[int(0.95 * (len(times) - 1))], 2),
               "history_ms_max": round(times[-1], 2), "players_ms": round(players_ms, 1)}
        (REPO / "bench" / "results").mkdir(exist_ok=True)
        (REPO / "bench" / "results" / "circuit.json").write_text(json.dumps(out, indent=1))
        print(json.dumps(out, indent=1))
        return 0 if out["history_ms_max"] <= 100 else 1
    finally:
        if server:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
