"""Score a `decksheet scan --json` result against a sheet's true decklist.

The scoring is the one the fixtures README defines (and the acceptance run uses): every truth
line is correct (card and count right, not flagged), flagged (its line needs review or a review
item names it, by card_id or by position), a silent error (wrong and not flagged) or missing;
an unflagged output line that is not in the truth is a silent error too. Benchmarks and tests
share this one implementation.
"""
from __future__ import annotations

from typing import Callable

from scanner.model import SECTIONS


def score_scan(out: dict, truth: dict, describe: Callable[[dict], str] | None = None) -> dict:
    """Counts for one sheet: lines, correct, flagged, silent (of which extra_silent), missing,
    exact; `errors` and `missed` say which lines, `describe(entry)` adds where they were read."""
    res: dict = {"lines": 0, "correct": 0, "flagged": 0, "silent": 0, "extra_silent": 0,
                 "missing": 0, "errors": [], "missed": []}
    review = out.get("review") or []
    review_ids = {(r.get("section"), r.get("card_id")) for r in review
                  if r.get("card_id") is not None}
    review_lines = {(r.get("section"), r.get("line")) for r in review if r.get("line") is not None}
    where = describe or (lambda e: f"read {e.get('read')!r}")
    exact = not any(r.get("line") is None and r.get("card_id") is None for r in review)
    for s in SECTIONS:
        flagged: set[int] = set()
        unflagged: dict[int, int] = {}
        entry_of: dict[int, dict] = {}
        for pos, e in enumerate(out.get("sections", {}).get(s, []), 1):
            cid = e.get("card_id")
            entry_of.setdefault(cid, e)
            if e.get("needs_review") or (s, cid) in review_ids or (s, pos) in review_lines:
                exact = False
                if cid is not None:
                    flagged.add(cid)
            elif cid is not None:
                unflagged[cid] = unflagged.get(cid, 0) + int(e.get("count") or 0)
        want = {int(k): int(v) for k, v in (truth.get(s) or {}).items()}
        for cid, n in want.items():
            res["lines"] += 1
            if cid in flagged:
                res["flagged"] += 1
            elif unflagged.get(cid) == n:
                res["correct"] += 1
            elif cid in unflagged:
                res["silent"] += 1
                res["errors"].append(f"{s} {cid}: count {unflagged[cid]} ≠ {n}; "
                                     + where(entry_of[cid]))
                exact = False
            else:
                res["missing"] += 1
                res["missed"].append(f"{s} {cid} ×{n}")
                exact = False
        for cid in unflagged:
            if cid not in want:
                res["silent"] += 1
                res["extra_silent"] += 1
                res["errors"].append(f"{s} {cid}: not in the deck; " + where(entry_of[cid]))
                exact = False
    res["exact"] = exact
    return res
