"""Written card names replayed offline: read a hand-set's forms once, keep what the name fusion
weighed, then weigh it again under other tunings in seconds (issue 35; how the seventh to tenth
rounds tuned `hand_names`, `hand_candidates` and `page_hand`).

    python bench/replay_hand_names.py dump /work/hand-sets/tuning-all-s3502 /tmp/dumps
    python bench/replay_hand_names.py weigh /tmp/dumps --sets 3502,3504 0:0 0.2:0 0.2:0.2

`dump` reads each form of a set in-process (as `decksheet scan` does) and stores, per row, the line
as `hand_names.fuse` left it and its `FuseParts` (ink, reads' jamo, candidates before their
syllables were weighed), before the page's second pass. `weigh` replays the doubtful lines (those
whose syllables `fuse` weighed): the ink search again (`hand_candidates.propose`; the reads'
candidates kept), the whole-name ink likeness, the syllable likeness, the namesakes' run
(`hand_namesakes`), then the page's second pass (`page_hand.second_pass`), each spec
`CANDIDATES:SEARCH[:FLOOR[:NET[:RANK]]]` giving the card-syllable network's weight in the
candidates' syllable likeness (`hand_syllables.CardNetTuning.weight`, the page's hand too) and in
the ink search (`InkSearchTuning.net_weight`), its floor, and the cards the network alone proposes
in that search (`InkSearchTuning.net_proposals`), and the weight of a candidate's likeness in that
search when the candidates are ranked (`InkTuning.search_weight`). It prints the written lines whose
first answer is the paper's card, of all, and the lines changed against the first spec. Lines whose
syllables were not weighed keep the dumped answer.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import pickle
import sys
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
DEFAULT_DB = REPO.parent / "shared" / "carddb" / "ko-KR.cdb"


def dump(setdir: Path, out: Path, db_path: Path, count: int | None) -> None:
    from card_db.cdb import load_card_db
    from scanner.inputs.options import ReadOptions
    import scanner.ocr.pipeline as pl
    out.mkdir(parents=True, exist_ok=True)
    db = load_card_db(str(db_path))
    got: dict = {}

    def capture(rows, vocab, *_a, **_k):  # stands in for the page's second pass
        got["rows"] = [dict(column=r.column, row=r.row, card=r.match.card_id, name=r.match.name, margin=r.match.margin,
                            score=r.match.score, cert=r.name_certainty, agree=r.name_agree, reads=r.name_reads,
                            hw=r.handwritten, struck=r.struck_row, flags=list(r.flags), parts=r.hand_parts) for r in rows]
        return 0

    pl.second_pass = capture
    forms = [f for f in sorted(setdir.iterdir()) if f.suffix in (".jpg", ".pdf", ".png")][:count]
    for f in forms:
        dst = out / f"{setdir.name}-{f.stem}.pkl"
        if dst.exists():
            continue
        got.pop("rows", None)
        (pl.read_pdf_pages if f.suffix == ".pdf" else pl.read_photo)(f, db, ReadOptions())
        truth = json.loads(f.with_name(f.stem + ".truth.json").read_text())["layout"]["lines"]
        for r in got.get("rows", []):
            if r["parts"] is not None:
                r["parts"].pieces, r["parts"].searched = {}, None
        pickle.dump(dict(rows=got.get("rows", []), truth=truth), open(dst, "wb"))
        print(f.name, len(got.get("rows", [])), flush=True)


def weigh(dumps: list[tuple[str, dict]], vocab, w_cand: float, w_search: float, floor: float,
          net_proposals: int = 0, search_weight: float = 0.0) -> dict:
    """The dumped pages' written lines' answers with the network weighed so (see the module)."""
    import scanner.ocr.hand_candidates as hc
    import scanner.ocr.hand_names as hn
    import scanner.ocr.hand_syllables as hs
    import scanner.ocr.page_hand as ph
    from scanner.ocr.names import NameMatch
    from scanner.ocr.rows import NAME_FLAGS, RowRead
    from scanner.ocr.verify import ink_level
    net = hs.CardNetTuning(weight=w_cand, floor=floor)
    ph.PageDrawings.likeness.__defaults__ = (ph.PAGE_HAND, None, net)
    hc.pool_net_terms.__defaults__ = (net,)
    search = replace(hc.INK_SEARCH, net_weight=w_search, net_proposals=net_proposals)
    ink = replace(hn.INK, search_weight=search_weight)
    hn.INK = ph.INK = ink
    answers: dict = {}
    for stem, d in dumps:
        rows = []
        for x in d["rows"]:
            p = x["parts"]
            match, flags, agree, cert = (NameMatch(x["card"], x["name"], x["score"], x["margin"], []), list(x["flags"]),
                                         x["agree"], x["cert"])
            if p is not None and p.before_syllables and p.ink is not None:
                mask = p.ink < ink_level(p.ink)
                kept = [(hn.reads_score(vocab.names[c], p.keys, p.aspect, p.offset), c)
                        for _, c in p.before_syllables if c not in p.proposed]
                have = {c for _, c in kept}
                ids, _ = vocab.by_column.get(p.column) or vocab.by_column["side"]
                found: list = []
                proposed = frozenset(c for c, _ in hc.propose(mask, ids, vocab.names, p.offset, search, searched=found)
                                     if c not in have)
                scored = sorted(kept + [(hn.reads_score(vocab.names[c], p.keys, p.aspect, p.offset), c) for c in proposed],
                                key=lambda s: (-s[0], s[1]))
                if len(scored) > 1 and scored[0][0] - scored[1][0] < hn.INK.doubt_lead:
                    scored = hn.by_ink_likeness(scored, p.ink, vocab, ink, proposed)
                before = list(scored)
                if len(scored) > 1 and scored[0][0] - scored[1][0] < hn.INK.doubt_lead:
                    scored = hn.by_syllable_likeness(scored, p.ink, vocab, ink, proposed,
                                                     likeness=lambda m, n: hs.name_likeness(m, n, net=net),
                                                     searched=found[0] if found else None)
                scored = hn.by_namesake_run(scored, p.ink, vocab, hn.run_drawings())
                match, fl = hn.flagged(hn.fused_match(scored, vocab))
                flags = [f for f in flags if f not in NAME_FLAGS] + fl
                p = copy.copy(p)
                p.before_syllables, p.proposed, p.pieces = before, proposed, {}
                p.searched = found[0] if found else None
                agree = sum(t == match.card_id for t in p.tops)
                cert = hn.name_certainty(match, agree, x["reads"])
            rows.append(RowRead(column=x["column"], row=x["row"], text="", text_conf=0, match=match, count=None,
                                count_conf=0, count_detail="", struck_row=x["struck"], count_struck=False,
                                handwritten=x["hw"], flags=flags, name_certainty=cert, name_agree=agree,
                                name_reads=x["reads"], hand_parts=p))
        ph.second_pass(rows, vocab)
        for r in rows:
            answers[(stem, r.column, r.row)] = r.match.card_id
    return answers


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("setdir", type=Path)
    d.add_argument("out", type=Path)
    d.add_argument("--count", type=int, default=None, help="the set's first forms only (bench_hand.py --count)")
    d.add_argument("--card-db", type=Path, default=DEFAULT_DB)
    w = sub.add_parser("weigh")
    w.add_argument("dumps", type=Path)
    w.add_argument("specs", nargs="+", help="CANDIDATES:SEARCH[:FLOOR[:NET[:RANK]]] network weights, the cards "
                   "the network alone proposes (InkSearchTuning.net_proposals), the search's likeness's weight in the "
                   "ranking (InkTuning.search_weight)")
    w.add_argument("--sets", default="", help="comma-separated parts of dump names to keep (e.g. 3502,3504)")
    w.add_argument("--card-db", type=Path, default=DEFAULT_DB)
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        dump(args.setdir, args.out, args.card_db, args.count)
        return 0
    from card_db.cdb import load_card_db
    from scanner.ocr.names import Vocabulary
    vocab = Vocabulary.build(load_card_db(str(args.card_db)))
    keep = [s for s in args.sets.split(",") if s]
    dumps = [(f.stem, pickle.load(open(f, "rb"))) for f in sorted(args.dumps.glob("*.pkl"))
             if not keep or any(s in f.name for s in keep)]
    dumps = [(stem, dd) for stem, dd in dumps if isinstance(dd, dict) and "truth" in dd]
    truth = {(stem, t["column"], t["row"]): t["card_id"] for stem, dd in dumps for t in dd["truth"]
             if t.get("written") == "hand"}
    first = None
    for spec in args.specs:
        parts = [float(v) for v in spec.split(":")]
        t0 = time.process_time()
        got = weigh(dumps, vocab, parts[0], parts[1], parts[2] if len(parts) > 2 else 8.0,
                    int(parts[3]) if len(parts) > 3 else 0, parts[4] if len(parts) > 4 else 0.0)
        right = {k for k, t in truth.items() if got.get(k) == t}
        line = f"{spec}: {len(right)}/{len(truth)} right ({time.process_time() - t0:.0f} s CPU)"
        if first is not None:
            line += f", +{len(right - first)} −{len(first - right)} against {args.specs[0]}"
        first = right if first is None else first
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
