"""Record what the OCR reader answers for every sheet of a set, and compare a later run with it
(speed work must not change a single line, flag or error unless the change is shown better).

    python bench/ocr_regress.py record DIR OUT [--card-db PATH] [--kinds scan,photo]
    python bench/ocr_regress.py compare DIR OUT [--card-db PATH] [--kinds ...]

DIR holds sheets with `*.truth.json` (the fixtures, samples/photos, a samples/make_photos.py
set); OUT gets one `<sheet>.json` per sheet: `load_decklist(...).to_json()` (or the error).
`compare` re-reads every recorded sheet and prints a unified diff for each that changed.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from card_db.cdb import load_card_db  # noqa: E402
from scanner.errors import DecksheetError  # noqa: E402
from scanner.read import ReadOptions, load_decklist  # noqa: E402

KINDS = ("scan", "photo-corrected", "photo-sparse", "photo", "kde-scan", "kde-photo")


def sheets_of(folder: Path, kinds: set[str]) -> list[Path]:
    out = []
    for truth_path in sorted(folder.glob("*.truth.json")):
        src = folder / json.loads(truth_path.read_text(encoding="utf-8"))["file"]
        if src.exists() and any(src.name.startswith(k + "-") for k in kinds):
            out.append(src)
    return out


def answer(src: Path, db) -> str:
    """The reader's whole answer as stable text (the source path left out: sets move)."""
    try:
        out = load_decklist(src, db, ReadOptions()).to_json()
        out.pop("source_path", None)
    except DecksheetError as exc:
        out = {"error": f"{type(exc).__name__}: {exc}"}
    return json.dumps(out, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("record", "compare"))
    ap.add_argument("sheets", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--card-db", type=Path, default=REPO.parent / "shared" / "carddb" / "ko-KR.cdb")
    ap.add_argument("--kinds", default=",".join(KINDS))
    args = ap.parse_args(argv)
    db = load_card_db(args.card_db)
    args.out.mkdir(parents=True, exist_ok=True)
    changed = 0
    for src in sheets_of(args.sheets, set(args.kinds.split(","))):
        t0 = time.process_time()
        text = answer(src, db)
        cpu = time.process_time() - t0
        ref = args.out / (src.name + ".json")
        if args.mode == "record":
            ref.write_text(text, encoding="utf-8")
            print(f"{src.name:28s} recorded   {cpu:5.2f} s CPU")
            continue
        old = ref.read_text(encoding="utf-8") if ref.exists() else ""
        same = old == text
        changed += not same
        print(f"{src.name:28s} {'same' if same else 'CHANGED':10s} {cpu:5.2f} s CPU")
        if not same:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), "recorded", "now", n=2))
    if args.mode == "compare":
        print(f"{changed} sheet(s) changed")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
