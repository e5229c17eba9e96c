"""Two phases at the check-in desk (issue 33): upload → the text reading shown → the verdict.

A real `decksheet serve` (demo card database, one reader) on a fresh event whose roster holds
each sample sheet's player; Chromium (Playwright) picks the player on the check-in page, picks
the sheet file and times what the judge sees: the text layer's reading under 「화면의 그림과
대조 중…」 (`#first-read` visible), then the registration page with its verdict. The page polls
the job every 0.3 s while it runs, so each figure includes up to that wait. Also, in this process,
the cost the preview adds to every read (resolve the text's lines + write the JSON file).

    python bench/bench_first_read.py [--runs 2] [samples/sheets/*.pdf]   (--runs 0: the reader only)

Prints per-sheet and median figures; writes bench/results/bench_first_read.json.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
REPO = Path(__file__).resolve().parent.parent
for extra in (REPO, REPO / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))



def sheet_players(pdfs: list[Path], db) -> dict[Path, tuple[str, str]]:
    """Each sheet's (Konami ID, name) as its text says (the roster the bench's event gets)."""
    from scanner.read import ReadOptions, read_input

    out = {}
    for pdf in pdfs:
        sheet, _ = read_input(pdf, db, ReadOptions(verify=False))
        out[pdf] = (sheet.konami_id, sheet.player_name or pdf.stem)
    return out


def reader_phases(pdfs: list[Path], db, work: Path) -> dict[str, dict[str, float]]:
    """Per sheet, in this process (the reader's own clock, no server, no polling): seconds
    from the start of the read to the preview written (text read + resolved + written), the
    hook's own cost (resolve + atomic write), and the whole verified read."""
    import functools

    from scanner.read import ReadOptions, read_input
    from scanner.web.preview import write_preview

    out = {}
    for pdf in pdfs:
        marks: dict[str, float] = {}

        def hook(sheet, pdf=pdf, marks=marks):
            t = time.perf_counter()
            functools.partial(write_preview, work / f"preview-{pdf.stem}.json", db)(sheet)
            marks["hook"] = time.perf_counter() - t
            marks["written"] = time.perf_counter() - marks["start"]

        marks["start"] = time.perf_counter()
        read_input(pdf, db, ReadOptions(on_text_read=hook))
        out[pdf.name] = {"preview_s": round(marks["written"], 3),
                         "hook_s": round(marks["hook"], 3),
                         "verified_s": round(time.perf_counter() - marks["start"], 3)}
        print(f"{pdf.name:32s} reader: preview written {out[pdf.name]['preview_s']} s "
              f"(hook {out[pdf.name]['hook_s']} s), verified {out[pdf.name]['verified_s']} s",
              flush=True)
    return out


def run(pdfs: list[Path], runs: int, work: Path) -> list[dict]:
    from card_db.cdb import load_card_db
    from playwright.sync_api import sync_playwright

    from web.station import ARGS, CHROMIUM, make_event, sign_in, start_server

    db = load_card_db(None)
    players = sheet_players(pdfs, db)
    rows: list[dict] = []
    for n in range(runs):
        event = make_event(work / f"event-{n}.sqlite")
        server = start_server(event, work / "data", workers=1)
        try:
            with server.client() as c:
                # (two samples share a player: the second is that player's next version)
                csv = "player,name\n" + "".join(f"{k},{name}\n"
                                                 for k, name in dict(players.values()).items())
                c.post("/api/roster", content=csv.encode(),
                       headers={"Content-Type": "text/csv"}).raise_for_status()
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                sign_in(page, server, "벤치")
                for pdf in pdfs:
                    kid, _ = players[pdf]
                    page.goto(server.url + f"/checkin?player={kid}")
                    page.evaluate("""() => { window.__firstRead = null;
                      new MutationObserver(() => { const el = document.getElementById('first-read');
                        if (el && !el.classList.contains('hide') && window.__firstRead === null)
                          window.__firstRead = performance.now(); })
                      .observe(document.body, {subtree: true, attributes: true, childList: true}); }""")
                    t0 = page.evaluate("performance.now()")
                    start = time.perf_counter()
                    page.set_input_files("#file", str(pdf))
                    shown = page.evaluate("""() => new Promise(done => { const t0 = performance.now();
                      const look = () => window.__firstRead !== null ? done(window.__firstRead)
                        : location.pathname.startsWith('/players/') || performance.now() - t0 > 180000
                        ? done(null) : setTimeout(look, 20); look(); })""")
                    page.wait_for_url(f"**/players/{kid}/v/*", timeout=180_000)
                    page.wait_for_selector("#verdict")
                    final = time.perf_counter() - start
                    verdict = page.inner_text("#verdict").strip().splitlines()[0]
                    rows.append({"sheet": pdf.name, "run": n,
                                 "preview_s": round((shown - t0) / 1000, 2) if shown else None,
                                 "verdict_s": round(final, 2), "verdict": verdict})
                    print(f"{pdf.name:32s} preview {rows[-1]['preview_s']} s   "
                          f"verdict {rows[-1]['verdict_s']} s  ({verdict})", flush=True)
                browser.close()
        finally:
            server.stop()
    return rows


def read_input_warm(pdf: Path, db) -> None:
    """One read first, not timed: the libraries loaded, as in a station's reader after its first."""
    from scanner.read import read_input
    read_input(pdf, db)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    pdfs = args.pdfs or sorted((REPO / "samples" / "sheets").glob("*.pdf"))
    with tempfile.TemporaryDirectory(prefix="bench-first-read-") as tmp:
        from card_db.cdb import load_card_db

        db = load_card_db(None)
        read_input_warm(pdfs[0], db)
        phases = reader_phases(pdfs, db, Path(tmp))
        rows = run(pdfs, args.runs, Path(tmp)) if args.runs else []
    shown = [r["preview_s"] for r in rows if r["preview_s"] is not None]
    med = lambda xs: round(statistics.median(xs), 2) if xs else None  # noqa: E731
    summary = {"sheets": len(pdfs), "load_average": os.getloadavg()[0],
               "reader_preview_median_s": med([p["preview_s"] for p in phases.values()]),
               "reader_verified_median_s": med([p["verified_s"] for p in phases.values()]),
               "hook_median_ms": round(statistics.median(p["hook_s"] for p in phases.values())
                                       * 1000, 1),
               "page_reads": len(rows), "page_previews_shown": len(shown),
               "page_preview_median_s": med(shown),
               "page_verdict_median_s": med([r["verdict_s"] for r in rows]),
               "page_gain_median_s": med([r["verdict_s"] - r["preview_s"] for r in rows
                                          if r["preview_s"] is not None])}
    print(json.dumps(summary, indent=1))
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "bench_first_read.json").write_text(json.dumps(
        {"summary": summary, "page": rows, "reader": phases}, ensure_ascii=False, indent=1),
        encoding="utf-8")


if __name__ == "__main__":
    main()
