"""Judge actions per check-in: a scripted desk in a real browser (issue 26).

A real `decksheet serve` (demo card database) on a fresh event with an N-player roster; N sheets
drawn from the project's own sample decks (`samples/make_samples.py`, the card database's
layout) with each player's name and Konami ID printed on them. Chromium (Playwright) does what
a judge at the desk does, from the check-in tab, no player typed: pick the sheet file, wait for
the read, tap whose sheet it is. Every click/tap and every keystroke the script does is
counted, with the reader's seconds (the worker's read) and the wait the judge sees.

Sheets of three kinds:
- `clean`: a PDF whose Konami ID is on the roster (the one-tap button);
- `id-off`: the sheet's ID has a digit wrong (not on the roster): the judge taps the roster
  candidate the station offers by the sheet's name (counted separately: needs review);
- `photo` (with `--photos`): a phone photo (OCR); its read lines may need review.

    python bench/bench_checkin_taps.py [--players 30] [--id-off 3] [--photos 1]

Prints per-player and median figures; writes bench/results/bench_checkin_taps.json.
The slow browser test (tests/web/test_checkin_taps.py) runs a smaller version.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
REPO = Path(__file__).resolve().parent.parent
for extra in (REPO, REPO / "tests", REPO / "samples"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

CHROMIUM = os.environ.get("DECKSHEET_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
FAMILY = "김이박최정강조윤장임한오서신권황안송류홍"
GIVEN = ("하늘", "서준", "지우", "민서", "도윤", "서연", "하준", "지민", "예은", "시우",
         "수아", "주원", "지호", "채원", "건우", "다은", "우진", "소율", "현우", "유나")
DECKS = ("blue-eyes", "sky-striker", "hero")
PHOTO = ("photos/photo-corrected-02.jpg", "1098765432", "이서준")
"""A sample phone photo (its printed ID and name: samples/README)."""


@dataclass
class Case:
    player: str
    """The roster's Konami ID (the sheet is this player's)."""
    name: str
    path: Path
    kind: str
    """clean / id-off / photo."""


@dataclass
class Figures:
    player: str
    kind: str
    taps: int = 0
    keystrokes: int = 0
    reader_seconds: float = 0.0
    """The worker's read (the job's `seconds`)."""
    wait_seconds: float = 0.0
    """File picked → the judge's button shown (queue + read + page)."""
    needs_review: int = 0
    """Lines of the stored registration that need a judge (answered later, not counted)."""
    legal: bool | None = None
    ok: bool = False


@dataclass
class Judge:
    """The page, with every action the script takes counted."""

    page: object
    figures: Figures = field(default_factory=lambda: Figures("", ""))

    def tap(self, selector: str) -> None:
        self.page.click(selector)
        self.figures.taps += 1

    def type(self, selector: str, text: str) -> None:
        self.page.fill(selector, text)
        self.figures.keystrokes += len(text)

    def pick_file(self, selector: str, path: Path) -> None:
        """Tapping the file button and then the file in the phone's chooser: two taps."""
        self.page.set_input_files(selector, str(path))
        self.figures.taps += 2


def make_cases(out_dir: Path, players: int, id_off: int, photos: int) -> list[Case]:
    """The sheets (PDFs drawn like samples/sheets/db-*.pdf, one per player) and roster."""
    from card_db.cdb import load_card_db
    from make_samples import DbStyle, deck_from_ydk, draw_db_sheet

    db = load_card_db(REPO / "card_db" / "data" / "demo.cdb")
    out_dir.mkdir(parents=True, exist_ok=True)
    cases: list[Case] = []
    n_pdf = players - photos
    off_every = max(1, n_pdf // id_off) if id_off else 0
    for i in range(n_pdf):
        kid = f"31{i:08d}"
        family, given = FAMILY[i % len(FAMILY)], GIVEN[(i * 7) % len(GIVEN)]
        kind = "id-off" if off_every and i % off_every == off_every - 1 and \
            sum(c.kind == "id-off" for c in cases) < id_off else "clean"
        printed = kid if kind == "clean" else kid[:-1] + str((int(kid[-1]) + 5) % 10)
        deck = deck_from_ydk(REPO / "samples" / "decks_src" / f"{DECKS[i % len(DECKS)]}.ydk",
                             db, player_family=family, player_given=given, konami_id=printed,
                             event="테스트 대회", date=(2026, 7, 12))
        path = out_dir / f"sheet-{i:02d}.pdf"
        draw_db_sheet(path, deck, DbStyle())
        cases.append(Case(kid, family + given, path, kind))
    for _ in range(photos):
        rel, kid, name = PHOTO
        cases.append(Case(kid, name, REPO / "samples" / rel, "photo"))
    return cases


def roster_csv(cases: list[Case]) -> str:
    return "player,name,table\n" + "".join(
        f"{c.player},{c.name},{i + 1}\n" for i, c in enumerate(cases))


def check_in(page, server, client, case: Case, timeout_ms: int = 180_000) -> Figures:
    """One player at the desk, from the 체크인 tab to their registration page."""
    judge = Judge(page, Figures(case.player, case.kind))
    judge.tap("nav.tabs >> text=체크인")
    page.wait_for_selector("#file", state="attached")
    started = time.monotonic()
    with page.expect_response("**/api/registrations") as resp:
        judge.pick_file("#photo" if case.kind == "photo" else "#file", case.path)
    job = resp.value.json()["job"]
    page.wait_for_selector("#whose:not(.hide)", timeout=timeout_ms)
    judge.figures.wait_seconds = round(time.monotonic() - started, 2)
    mine = f"#whose button[data-player='{case.player}']"
    if page.locator(mine).count() == 0:  # not offered: the judge searches by name
        judge.type("#whose-search", case.name)
        page.wait_for_selector("#whose .auto li", timeout=10_000)
        page.locator("#whose .auto li", has_text=case.player).first.click()
        judge.figures.taps += 1
    judge.tap(mine)
    page.wait_for_url(f"**/players/{case.player}/v/*", timeout=timeout_ms)
    result = client.get(f"/api/jobs/{job}").json().get("result") or {}
    judge.figures.reader_seconds = float(result.get("seconds") or 0)
    judge.figures.needs_review = int(result.get("needs_review") or 0)
    judge.figures.legal = result.get("legal")
    judge.figures.ok = result.get("player") == case.player
    return judge.figures


def run(cases: list[Case], work: Path, workers: int = 2, log=print) -> list[Figures]:
    """Start a station on a temp event, import the roster, check every player in."""
    from playwright.sync_api import sync_playwright

    from web.station import make_event, start_server

    event = make_event(work / "event.sqlite")
    server = start_server(event, work / "data", workers=workers)
    out: list[Figures] = []
    try:
        with server.client() as client, sync_playwright() as pw:
            r = client.post("/api/roster", content=roster_csv(cases).encode(),
                            headers={"Content-Type": "text/csv"})
            r.raise_for_status()
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                      has_touch=True, locale="ko-KR")
            page = ctx.new_page()
            page.goto(server.sign_in)
            page.goto(server.url + "/judge")
            page.fill("#name", "벤치저지")
            page.click("button[type=submit]")
            page.wait_for_url(server.url + "/")
            for case in cases:
                fig = check_in(page, server, client, case)
                out.append(fig)
                log(f"{fig.player} {fig.kind:7} taps {fig.taps} keys {fig.keystrokes:2} "
                    f"reader {fig.reader_seconds:5.2f}s wait {fig.wait_seconds:5.2f}s "
                    f"review {fig.needs_review} {'ok' if fig.ok else 'WRONG PLAYER'}")
            browser.close()
    finally:
        server.stop()
    return out


def summary(figs: list[Figures]) -> dict:
    def block(rows: list[Figures]) -> dict:
        if not rows:
            return {"players": 0}
        return {"players": len(rows),
                "median_taps": statistics.median(f.taps for f in rows),
                "median_keystrokes": statistics.median(f.keystrokes for f in rows),
                "median_reader_seconds": round(statistics.median(f.reader_seconds for f in rows), 2),
                "median_wait_seconds": round(statistics.median(f.wait_seconds for f in rows), 2),
                "max_taps": max(f.taps for f in rows),
                "all_right_player": all(f.ok for f in rows)}

    clean = [f for f in figs if f.kind == "clean" and not f.needs_review]
    review = [f for f in figs if f not in clean]
    return {"all": block(figs), "clean_pdf": block(clean), "needs_review": block(review)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=30)
    ap.add_argument("--id-off", type=int, default=3)
    ap.add_argument("--photos", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cases = make_cases(work / "sheets", args.players, args.id_off, args.photos)
        figs = run(cases, work, args.workers)
    report = summary(figs)
    print(json.dumps(report, ensure_ascii=False, indent=1))
    out = REPO / "bench" / "results" / "bench_checkin_taps.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"summary": report, "players": [asdict(f) for f in figs]},
                              ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
