"""Konami's forms as other tools fill them, read and scored against the decks they were made from.

Sets (made here, into bench/results/forms/, from the public blank forms in ../shared/forms and the
English names of ../shared/carddb/en-US.cdb):
- `latam`: the Latin-American form filled by pypdf (samples/make_samples.fill_template) with the
  real decks of ../shared/fixtures/world/decks that fit it and decks of our own, left as AcroForm
  values, flattened, in widgets with no /AcroForm, with an empty /Fields, or only drawn by widgets;
- `latam-image`: flattened LatAm sheets rendered by poppler at 200 dpi, read as images;
- `widgets`: Konami's form and the Chinese template with their values in widgets only
  (no /AcroForm, an empty /Fields, or only drawn);
- `genesys`: Genesys-structured sheets (samples/genesys.py) of our own decks whose spells overflow
  into an empty extra deck, and the five Genesys sheets of ../shared/fixtures/world/peers.

Each sheet is read by `decksheet scan --out` in one process per set (`--decksheet CMD` to read
with another build, e.g. the code before a change) and scored (tests/scoring.py): lines right and
unflagged, flagged, silent (wrong and unflagged), missing, sheets refused.

    python bench/bench_forms.py [--own N] [--sets latam widgets genesys latam-image] [--decksheet CMD]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "samples")]

import make_samples as ms  # noqa: E402
from card_db.cdb import load_card_db  # noqa: E402
from genesys import draw_genesys_like, overflow_deck  # noqa: E402
from scanner.layouts import CN, KDE, LATAM  # noqa: E402
from scoring import score_scan  # noqa: E402

SHARED = Path(os.environ.get("DECKSHEET_SHARED", REPO.parent / "shared"))
RESULTS = REPO / "bench" / "results"
BLANKS = {LATAM.name: "KDE_DeckList_LatAm.pdf", KDE.name: "KDE_DeckList.pdf", CN.name: "CN_decklist_template_blank.pdf"}
PLAYER = dict(player_family="Martin", player_given="Zoe", konami_id="0412345678", event="Regional",
              date=(2026, 7, 12))
SETS = ("latam", "widgets", "genesys", "latam-image")


def decks_for(layout, db, en_names, own: int, seed: int) -> list[tuple[str, object, dict]]:
    out = []
    for ydk in sorted((SHARED / "fixtures" / "world" / "decks").glob("*.ydk")):
        deck, truth = ms.english_deck(ydk, db, en_names, **PLAYER)
        if all(len(deck.columns.get(t.kind, [])) <= t.rows for t in layout.tables):
            out.append((ydk.stem, deck, truth))
    rng = random.Random(seed)
    for i in range(own):
        deck, truth = ms.random_english_deck(db, en_names, rng, {t.kind: t.rows for t in layout.tables}, **PLAYER)
        out.append((f"own-{i:02d}", deck, truth))
    return out


def make_sets(out: Path, sets: list[str], own: int, db, en_names) -> dict[str, list[tuple[Path, dict]]]:
    made: dict[str, list[tuple[Path, dict]]] = {s: [] for s in sets}
    forms = SHARED / "forms"
    if "latam" in sets or "latam-image" in sets:
        for stem, deck, truth in decks_for(LATAM, db, en_names, own, 3401):
            for mode in ms.FILL_MODES:
                path = out / "latam" / f"{stem}-{mode}.pdf"
                path.parent.mkdir(parents=True, exist_ok=True)
                ms.fill_template(forms / BLANKS[LATAM.name], path, LATAM, deck, mode)
                if "latam" in sets:
                    made["latam"].append((path, truth))
                if mode == "flat" and "latam-image" in sets and shutil.which("pdftoppm"):
                    img = out / "latam-image" / stem
                    img.parent.mkdir(parents=True, exist_ok=True)
                    subprocess.run(["pdftoppm", "-r", "200", "-png", "-singlefile", str(path), str(img)], check=True)
                    made["latam-image"].append((img.with_suffix(".png"), truth))
    if "widgets" in sets:
        for layout in (KDE, CN):
            for stem, deck, truth in decks_for(layout, db, en_names, own // 2, 3402):
                for mode in ("widgets", "no-fields", "appearances"):
                    path = out / "widgets" / f"{layout.name}-{stem}-{mode}.pdf"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    ms.fill_template(forms / BLANKS[layout.name], path, layout, deck, mode)
                    made["widgets"].append((path, truth))
    if "genesys" in sets:
        rng = random.Random(3403)
        (out / "genesys").mkdir(parents=True, exist_ok=True)
        for i in range(own):
            columns, truth = overflow_deck(db, en_names, rng, rng.randint(21, 26))
            path = out / "genesys" / f"overflow-{i:02d}.pdf"
            draw_genesys_like(path, columns, "0123456789", "Zoe", "Martin", {}, overflow=True)
            made["genesys"].append((path, truth))
        for peer in sorted((SHARED / "fixtures" / "world" / "peers").glob("konami-fixer-genesys-*.pdf")):
            made["genesys"].append((peer, json.loads(peer.with_suffix(".truth.json").read_text())))
    return made


def read_set(items: list[tuple[Path, dict]], decksheet: list[str], card_dbs: list[str]) -> dict:
    totals = {"sheets": len(items), "refused": 0, "lines": 0, "correct": 0, "flagged": 0, "silent": 0,
              "missing": 0}
    with tempfile.TemporaryDirectory() as tmp:
        args = decksheet + ["scan", "-j", "1", "--out", tmp] + [a for db in card_dbs for a in ("--card-db", db)]
        subprocess.run(args + [str(p) for p, _ in items], capture_output=True, text=True)
        names: dict[str, int] = {}
        for path, truth in items:
            n = names[path.stem] = names.get(path.stem, 0) + 1
            out = Path(tmp) / (f"{path.stem}.json" if n == 1 else f"{path.stem}-{n}.json")
            if not out.is_file():
                totals["refused"] += 1
                totals["lines"] += sum(len(v) for v in truth.values())
                totals["missing"] += sum(len(v) for v in truth.values())
                continue
            got = score_scan(json.loads(out.read_text()), truth)
            for k in ("lines", "correct", "flagged", "silent", "missing"):
                totals[k] += got[k]
    return totals


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--own", type=int, default=6, help="decks of our own per form (default 6)")
    ap.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS[:3]))
    ap.add_argument("--decksheet", default=str(Path(sys.executable).with_name("decksheet")),
                    help="the command that reads (default: this checkout's)")
    ap.add_argument("--label", default="after")
    args = ap.parse_args(argv)
    db = load_card_db([SHARED / "carddb" / "ko-KR.cdb", SHARED / "carddb" / "en-US.cdb"])
    con = sqlite3.connect(SHARED / "carddb" / "en-US.cdb")
    en_names = {int(i): n for i, n in con.execute("select id, name from texts")}
    con.close()
    out = RESULTS / "forms"
    made = make_sets(out, args.sets, args.own, db, en_names)
    card_dbs = [str(SHARED / "carddb" / "ko-KR.cdb"), str(SHARED / "carddb" / "en-US.cdb")]
    report = {}
    print(f"| set ({args.label}) | sheets | refused | lines | right | flagged | silent | missing |")
    print("|---|---|---|---|---|---|---|---|")
    for name, items in made.items():
        t = report[name] = read_set(items, shlex.split(args.decksheet), card_dbs)
        right = 100 * t["correct"] / max(t["lines"], 1)
        print(f"| {name} | {t['sheets']} | {t['refused']} | {t['lines']} | {t['correct']} ({right:.1f} %) | "
              f"{t['flagged']} | {t['silent']} | {t['missing']} |")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"bench_forms-{args.label}.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
