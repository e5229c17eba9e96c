"""Audit time for an event of N text-PDF registrations (default 500) on all cores.

    python bench/bench_audit.py [--n 500] [--workers 2] [--card-db …] [--lflist …]

Two runs: 'distinct' (every player's file differs by a trailing PDF comment, so every one is
re-read: the honest worst case) and 'repeated' (the fixture PDFs handed in again and again, so
each distinct file is read once). Setup reads each fixture once and stores its list for every
player directly (setup is not what is measured). Prints one JSON object.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DECKSHEET_SHARED", REPO.parent / "shared"))


def build_event(path: Path, pdfs: list[Path], n: int, distinct: bool, db, limits) -> None:
    from scanner.event.stores import create_event, open_event
    from scanner.event.context import EventContext
    from scanner.event.flows import register_input

    store = create_event(path, "벤치마크", dt.date(2026, 7, 12))
    first: dict[Path, object] = {}
    for pdf in pdfs:  # one real registration per fixture: its list is what every copy holds
        first[pdf] = register_input(EventContext(store, db, limits), str(pdf), "9" * 10)
    for i in range(n):
        pdf = pdfs[i % len(pdfs)]
        res = first[pdf]
        data = pdf.read_bytes()
        if distinct:
            data += f"\n% registration {i}\n".encode()
        sha = store.store_file(data)
        store.add_registration(f"{i:010d}", None, res.decklist.to_json(), sha, pdf.name,
                               res.legal, res.infractions, limits.name)
    store.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--card-db", default=os.environ.get("DECKSHEET_CARD_DB",
                                                       SHARED / "carddb" / "ko-KR.cdb"))
    ap.add_argument("--lflist", default=os.environ.get("DECKSHEET_LFLIST",
                                                      SHARED / "carddb" / "lflist.conf"))
    ap.add_argument("--fixtures", default=SHARED / "fixtures" / "sheets", type=Path)
    args = ap.parse_args()
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")

    from card_db.cdb import load_card_db
    from scanner.event.audit import run_audit
    from scanner.event.context import EventContext
    from scanner.event.stores import create_event, open_event
    from scanner.event.flows import event_limits

    pdfs = sorted(p for pat in ("db-ko-*.pdf", "kde-form-*.pdf", "kde-flat-*.pdf")
                  for p in args.fixtures.glob(pat))
    if not pdfs:
        print(f"no fixture PDFs in {args.fixtures}", file=sys.stderr)
        return 2
    db = load_card_db(args.card_db)
    out: dict = {"registrations": args.n, "workers": args.workers, "fixture_pdfs": len(pdfs),
                 "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("distinct", "repeated"):
            path = Path(tmp) / f"{mode}.db"
            probe = create_event(Path(tmp) / f"probe-{mode}.db", "p", dt.date(2026, 7, 12))
            limits = event_limits(probe.event(), db, args.lflist)
            probe.close()
            t0 = time.perf_counter()
            build_event(path, pdfs, args.n, mode == "distinct", db, limits)
            setup = time.perf_counter() - t0
            with open_event(path) as store:
                result = run_audit(EventContext(store, db, limits), workers=args.workers)
            out[mode] = {"audit_seconds": round(result.seconds, 2),
                         "files_read": result.files_read,
                         "per_registration_ms": round(1000 * result.seconds / args.n, 1),
                         "setup_seconds": round(setup, 1),
                         "illegal": len(result.illegal), "needs_review": len(result.needs_review),
                         "reads_differently": len(result.changed)}
    print(json.dumps(out, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
