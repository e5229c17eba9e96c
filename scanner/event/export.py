"""Every player's current list out of the event: ydk / text / JSON files and one CSV of lines."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from card_db.cdb import CardDatabase
from scanner.event.store import EventStore
from scanner.event.flows import effective_decklist
from scanner.model import SECTIONS
from scanner.inputs.formats import format_json, format_text, format_ydk

WRITERS = {"ydk": (".ydk", format_ydk), "text": (".txt", format_text), "json": (".json", format_json)}


def export_event(store: EventStore, db: CardDatabase, out_dir: Path, formats: set[str]
                 ) -> tuple[int, int]:
    """Write the lists (review decisions applied). Returns (files written, lists still flagged).

    Files are named `KONAMIID-vN.ext`; unresolved lines stay visible (ydk: as comments)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = flagged = 0
    rows: list[dict] = []
    for reg in store.registrations(latest_only=True):
        deck = effective_decklist(store, reg, db)
        flagged += bool(deck.needs_review)
        stem = f"{reg.konami_id}-v{reg.version}"
        for fmt in sorted(formats & set(WRITERS)):
            suffix, writer = WRITERS[fmt]
            text = writer(deck)
            _write(out_dir / (stem + suffix), text if text.endswith("\n") else text + "\n")
            written += 1
        for s in SECTIONS:
            for n, e in enumerate(deck.sections[s], 1):
                rows.append({"konami_id": reg.konami_id, "name": reg.player_name,
                             "version": reg.version, "section": s, "line": n,
                             "card_id": e.card_id, "card_name": e.name, "count": e.count,
                             "needs_review": e.needs_review, "read": e.read})
    if "csv" in formats:
        tmp = out_dir / ".decklists.csv.tmp"
        pd.DataFrame(rows, columns=["konami_id", "name", "version", "section", "line", "card_id",
                                    "card_name", "count", "needs_review", "read"]
                     ).astype({"card_id": "Int64"}).to_csv(tmp, index=False, encoding="utf-8-sig")
        tmp.replace(out_dir / "decklists.csv")
        written += 1
    return written, flagged


def _write(path: Path, text: str) -> None:
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
