"""Check-in from the sheet: whose sheet is it? The Konami ID and name read off the sheet,
matched against the roster, for the judge to confirm with one tap (never a silent guess)."""
from __future__ import annotations

from scanner.event import flows
from scanner.model import Decklist
from scanner.web.hangul import one_syllable_apart
from scanner.web.station_store import PLAYER, RosterEntry

PLAYER_DECISION = PLAYER
"""The decision a desk-flow job waits for: the judge names (confirms) the sheet's player."""
MAX_CANDIDATES = 5


def _squash(text: str) -> str:
    return "".join((text or "").split())


def _digits_apart(a: str, b: str) -> int:
    """How many digits differ between two IDs of one length (another length: far apart)."""
    if len(a) != len(b):
        return 99
    return sum(1 for x, y in zip(a, b) if x != y)


def _entry(e: RosterEntry, why: str, twins: int = 0) -> dict:
    """A roster entry as a choice; `same_name`: how many other players share its name (the
    page then shows what tells them apart: table and ID)."""
    return {"player": e.konami_id, "name": e.name, "table": e.table_no, "why": why,
            "same_name": twins}


def player_choices(roster: list[RosterEntry], deck: Decklist) -> dict:
    """`match`: the roster entry of the sheet's ID read with confidence (the one-tap button),
    or None; `candidates`: other roster entries the sheet may name (its name, an ID a digit or
    two off, an ID read without confidence), best first; `sheet`: what was read."""
    sheet_id = "".join(ch for ch in str(deck.konami_id or "") if ch.isdigit())
    sheet_name = " ".join((deck.player_name or "").split())[:100]
    sure = flows.sheet_konami_id(deck)
    by_id = {e.konami_id: e for e in roster}
    names: dict[str, int] = {}
    for e in roster:
        names[_squash(e.name)] = names.get(_squash(e.name), 0) + 1

    def entry(e: RosterEntry, why: str) -> dict:
        return _entry(e, why, names.get(_squash(e.name), 1) - 1)

    match = entry(by_id[sure], "id") if sure and sure in by_id else None
    if sure and not roster:  # an event without a roster: the sheet's own ID (the CLI's rule)
        match = {"player": sure, "name": sheet_name or None, "table": None, "why": "id"}
    found: list[tuple[int, dict]] = []
    for e in roster:
        if match and e.konami_id == match["player"]:
            continue
        if sheet_id and e.konami_id == sheet_id:
            found.append((0, entry(e, "id-unsure")))
        elif sheet_name and _squash(e.name) == _squash(sheet_name):
            found.append((1, entry(e, "name")))
        elif sheet_id and _digits_apart(sheet_id, e.konami_id) <= 2:
            found.append((2, entry(e, "id-near")))
        elif sheet_name and one_syllable_apart(sheet_name, e.name):
            found.append((3, entry(e, "name-near")))
    found.sort(key=lambda x: x[0])
    return {"match": match, "candidates": [c for _, c in found[:MAX_CANDIDATES]],
            "sheet": {"konami_id": sheet_id or None, "name": sheet_name or None,
                      "id_sure": sure is not None,
                      # the sheet's own player, addable to the roster in one tap
                      "addable": bool(len(sheet_id) == 10 and roster and sheet_id not in by_id)}}
