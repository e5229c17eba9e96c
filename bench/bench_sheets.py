"""Benchmark the sheet readers on the shared fixtures and the shipped samples.

Every sheet goes through the same entry point as `decksheet scan` (`load_decklist`) and is
scored like the held-out run (fixtures/sheets/README.md): each truth line is correct, flagged,
a silent error or missing; unflagged output lines not in the truth are silent errors too; a
sheet is exact when all sections equal the truth and nothing is flagged. Seconds per sheet are
the median over --repeat runs of one sheet, then the median over sheets.

    python bench/bench_sheets.py [--all] [--repeat 3] [--card-db PATH]

Text and form PDFs only by default; --all adds the scan and photo kinds (OCR, slow).
Prints a table and writes bench/results/bench_sheets.json.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the shared scoring (tests/scoring.py)

from card_db.cdb import CardDatabase, load_card_db  # noqa: E402
from scanner.errors import DecksheetError  # noqa: E402
from scanner.model import SECTIONS, Decklist  # noqa: E402
from scanner.read import ReadOptions, load_decklist  # noqa: E402
from scoring import score_scan  # noqa: E402

SHARED = Path(os.environ.get("DECKSHEET_SHARED", REPO.parent / "shared"))
RESULTS = REPO / "bench" / "results"
TEXT_KINDS = ("db-ko", "kde-form", "kde-flat")
OCR_KINDS = ("scan", "photo", "photo-corrected")


@dataclass
class SheetScore:
    file: str
    kind: str
    truth_lines: int = 0
    correct: int = 0
    flagged: int = 0
    silent: int = 0
    missing: int = 0
    exact: bool = False
    seconds: float = 0.0
    error: str | None = None
    notes: list[str] = field(default_factory=list)


def kind_of(name: str) -> str:
    for k in ("photo-corrected", "photo", "scan", "kde-form", "kde-flat", "db-ko", "db", "kde"):
        if name.startswith(k + "-"):
            return "sample-" + k if k in ("db", "kde") else k
    return "other"


def score(deck: Decklist | None, truth: dict[str, dict[int, int]], s: SheetScore) -> None:
    """Score one read against the truth (section → card_id → count) with the shared scoring."""
    s.truth_lines = sum(len(v) for v in truth.values())
    if deck is None:
        s.missing = s.truth_lines
        return
    r = score_scan(deck.to_json(), truth)
    s.correct, s.flagged, s.silent, s.missing, s.exact = (r["correct"], r["flagged"], r["silent"],
                                                          r["missing"], r["exact"])
    s.notes.extend(r["errors"] + r["missed"])


def fixture_cases(kinds: tuple[str, ...]) -> list[tuple[Path, dict[str, dict[int, int]]]]:
    d = SHARED / "fixtures" / "sheets"
    cases = []
    for truth_path in sorted(d.glob("*.truth.json")):
        t = json.loads(truth_path.read_text(encoding="utf-8"))
        if t["kind"] not in kinds:
            continue
        truth = {sec: {int(k): v for k, v in t[sec].items()} for sec in SECTIONS}
        cases.append((d / t["file"], truth))
    return cases


def sample_cases(db: CardDatabase) -> list[tuple[Path, dict[str, dict[int, int]]]]:
    sys.path.insert(0, str(REPO / "samples"))
    import make_samples  # the sheet list and the deck each sheet shows

    cases = []
    for file, deck_name, *_ in make_samples.SHEETS:
        truth: dict[str, dict[int, int]] = {sec: {} for sec in SECTIONS}
        section = "main"
        for ln in (REPO / "samples" / "decks_src" / f"{deck_name}.ydk").read_text(
                encoding="utf-8").splitlines():
            ln = ln.strip()
            if ln in ("#main", "#extra", "!side"):
                section = ln.strip("#!")
            elif ln.isdigit():
                cid = db.original_id(int(ln)) or int(ln)
                truth[section][cid] = truth[section].get(cid, 0) + 1
        cases.append((REPO / "samples" / "sheets" / file, truth))
    return cases


def run(cases, db: CardDatabase, repeat: int) -> list[SheetScore]:
    out = []
    for path, truth in cases:
        s = SheetScore(file=path.name, kind=kind_of(path.name))
        deck = None
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            try:
                deck = load_decklist(path, db, ReadOptions())
            except DecksheetError as exc:
                s.error = str(exc)
                deck = None
            times.append(time.perf_counter() - t0)
        s.seconds = statistics.median(times)
        score(deck, truth, s)
        out.append(s)
    return out


def _p90(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, int(0.9 * len(values)))]


def summary(scores: list[SheetScore]) -> dict:
    lines = sum(s.truth_lines for s in scores)
    return {"sheets": len(scores), "exact": sum(s.exact for s in scores),
            "lines": lines, "correct": sum(s.correct for s in scores),
            "flagged": sum(s.flagged for s in scores), "silent": sum(s.silent for s in scores),
            "missing": sum(s.missing for s in scores),
            "line_accuracy": round(sum(s.correct for s in scores) / lines, 4) if lines else None,
            "median_ms": round(1000 * statistics.median(s.seconds for s in scores), 1) if scores else None,
            "p90_ms": round(1000 * _p90([s.seconds for s in scores]), 1) if scores else None,
            "errors": sum(1 for s in scores if s.error)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="also the scan/photo kinds (OCR)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--card-db", default=str(SHARED / "carddb" / "ko-KR.cdb"))
    args = ap.parse_args()

    groups: dict[str, list[SheetScore]] = {}
    if (SHARED / "fixtures" / "sheets").is_dir():
        db = load_card_db(args.card_db)
        kinds = TEXT_KINDS + (OCR_KINDS if args.all else ())
        for s in run(fixture_cases(kinds), db, args.repeat if not args.all else 1):
            groups.setdefault(s.kind, []).append(s)
    else:
        print(f"no fixtures at {SHARED}; samples only", file=sys.stderr)
    demo = load_card_db(REPO / "card_db" / "data" / "demo.cdb")
    groups["samples"] = run(sample_cases(demo), demo, args.repeat)

    print(f"{'kind':<16}{'sheets':>7}{'exact':>7}{'lines':>7}{'correct':>9}{'flagged':>9}"
          f"{'silent':>8}{'missing':>9}{'ms/sheet':>10}{'p90 ms':>8}")
    table = {}
    for kind, scores in groups.items():
        sm = summary(scores)
        table[kind] = sm
        print(f"{kind:<16}{sm['sheets']:>7}{sm['exact']:>7}{sm['lines']:>7}{sm['correct']:>9}"
              f"{sm['flagged']:>9}{sm['silent']:>8}{sm['missing']:>9}{sm['median_ms']:>10}{sm['p90_ms']:>8}")
    text_scores = [s for k in TEXT_KINDS for s in groups.get(k, [])]
    if text_scores:
        table["text-layer (all)"] = summary(text_scores)
        sm = table["text-layer (all)"]
        print(f"{'text-layer all':<16}{sm['sheets']:>7}{sm['exact']:>7}{sm['lines']:>7}{sm['correct']:>9}"
              f"{sm['flagged']:>9}{sm['silent']:>8}{sm['missing']:>9}{sm['median_ms']:>10}{sm['p90_ms']:>8}")
    for scores in groups.values():
        for s in scores:
            if not s.exact:
                print(f"  not exact: {s.file}: correct {s.correct}, flagged {s.flagged}, "
                      f"silent {s.silent}, missing {s.missing}{' — ' + s.error if s.error else ''}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "bench_sheets.json"
    out.write_text(json.dumps({"summary": table,
                               "sheets": [asdict(s) for g in groups.values() for s in g]},
                              ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
