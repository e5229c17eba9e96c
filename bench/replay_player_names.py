"""Written player names replayed offline (issue 35): read a hand-set's forms' name boxes once, keep
each box's ink and Tesseract's reads, then read the names again under other tunings in seconds.

    python bench/replay_player_names.py dump /work/hand-sets/tuning-all-s3502 /tmp/names
    python bench/replay_player_names.py weigh /tmp/names "leans=()" "leans=(0.15,)" "tesseract_weight=0.2"

`dump` locates each form (the page and form stages only, as `decksheet scan` does) and stores the
name boxes' ink (`header.written_name_ink`), Tesseract's reads of each (`header._name_reads`) and
the true name. `weigh` reads the stored names again with `header.WrittenNameTuning` fields replaced
as given (one spec a run; several fields joined by `;`) and prints the names right, and the median
confidence of right and wrong names (a wrong name should be less sure). The drawings and network
are the shipped ones: the tuning faces are among the drawings' fonts, so figures on tuning sets
flatter the drawings.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pickle
import sys
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
DEFAULT_DB = REPO.parent / "shared" / "carddb" / "ko-KR.cdb"


def dump(setdir: Path, out: Path, db_path: Path) -> None:
    from card_db.cdb import load_card_db
    from scanner.inputs.options import ReadOptions
    import scanner.ocr.header as hd
    import scanner.ocr.pipeline as pl
    out.mkdir(parents=True, exist_ok=True)
    db = load_card_db(str(db_path))
    got: dict = {}

    def located(img, db, options, *, is_scan, label):  # the page and form stages, then the name
        ctx = pl.PageContext(image=img, db=db, options=options, is_scan=is_scan, label=label)
        pl.find_tables(ctx)
        tess = pl.Tesseract()
        keys = ("surname", "given_name")
        if ctx.fit is not None and all(k in ctx.layout.boxes for k in keys):
            imgs = [hd.written_name_ink(ctx.page.gray, hd._box(ctx.fit, ctx.layout.boxes[k])) for k in keys]
            got.update(imgs=imgs, keys=keys, reads=[hd._name_reads(i, tess) if i is not None else [] for i in imgs])
        return ctx

    pl.read_page = located
    for f in sorted(p for p in setdir.iterdir() if p.suffix in (".jpg", ".pdf", ".png")):
        got.clear()
        (pl.read_pdf_pages if f.suffix == ".pdf" else pl.read_photo)(f, db, ReadOptions())
        got["truth"] = json.loads(f.with_name(f.stem + ".truth.json").read_text())["player"]["name"]
        pickle.dump(dict(got), open(out / f"{setdir.name}-{f.stem}.pkl", "wb"))
        print(f.name, got["truth"], flush=True)


def weigh(folder: Path, spec: str) -> tuple[int, int, float, float]:
    """Names right of those dumped, and the median confidence of the right and of the wrong."""
    import numpy as np
    import scanner.ocr.header as hd
    fields = dict(kv.split("=", 1) for kv in spec.split(";") if kv)
    tuning = dataclasses.replace(hd.WRITTEN_NAME, **{k: eval(v) for k, v in fields.items()})  # noqa: S307 (a bench's own argument)
    right, wrong, n = [], [], 0
    for p in sorted(folder.glob("*.pkl")):
        d = pickle.load(open(p, "rb"))
        if "imgs" not in d or any(i is None for i in d["imgs"]):
            continue
        n += 1
        surname_w = d["imgs"][0].shape[1]
        parts = [hd._written_part(img, key, reads, tuning, surname_w=surname_w)
                 for img, key, reads in zip(d["imgs"], d["keys"], d["reads"])]
        name, conf = "".join(t for t, _ in parts), float(np.prod([c for _, c in parts]))
        (right if name == d["truth"] else wrong).append(conf)
    med = lambda xs: float(np.median(xs)) if xs else float("nan")  # noqa: E731
    return len(right), n, med(right), med(wrong)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("sets", type=Path, nargs="+")
    d.add_argument("out", type=Path)
    d.add_argument("--card-db", type=Path, default=DEFAULT_DB)
    w = sub.add_parser("weigh")
    w.add_argument("folder", type=Path)
    w.add_argument("specs", nargs="*", default=[""])
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        for s in args.sets:
            dump(s, args.out, args.card_db)
    else:
        for spec in args.specs:
            right, n, r, wr = weigh(args.folder, spec)
            print(f"{spec or 'shipped'}: {right}/{n} names right; median confidence right {r:.2f}, wrong {wr:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
