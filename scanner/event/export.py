"""Every player's current list out of the event: ydk / text / JSON files, one CSV of lines and
an .xlsx workbook for judges (Korean sheets and headers: 등록, 줄, 덱 체크, 위반, 확인 결정).

This is the organiser's own data (file names and columns carry the real Konami IDs, to match the
official records); the audit report is the one to share (IDs masked). Spreadsheet cells are safe
against formula injection. Reads only: works on a read-only event."""
from __future__ import annotations

from pathlib import Path

from card_db.cdb import CardDatabase
from card_db.paths import atomic_write
from scanner.event.flows import effective_decklist
from scanner.event.sheets import (decisions_table, deck_checks_table, identity,
                                  infractions_table, lines_table)
from scanner.event.record import EventRecord
from scanner.inputs.formats import format_json, format_text, format_ydk
from scanner.report.headers_ko import in_korean
from scanner.report.tables import Table, csv_bytes, xlsx_bytes

WRITERS = {"ydk": (".ydk", format_ydk), "text": (".txt", format_text), "json": (".json", format_json)}


def export_event(store: EventRecord, db: CardDatabase, out_dir: Path, formats: set[str]
                 ) -> tuple[int, int]:
    """Write the lists (review decisions applied). Returns (files written, lists still flagged).

    Files are named `KONAMIID-vN.ext`; unresolved lines stay visible (ydk: as comments)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = flagged = 0
    current = []
    for reg in store.registrations(latest_only=True):
        deck = effective_decklist(store, reg, db)
        flagged += bool(deck.needs_review)
        stem = f"{reg.konami_id}-v{reg.version}"
        for fmt in sorted(formats & set(WRITERS)):
            suffix, writer = WRITERS[fmt]
            text = writer(deck)
            atomic_write(out_dir / (stem + suffix), text if text.endswith("\n") else text + "\n")
            written += 1
        current.append((reg.konami_id, reg.player_name, reg.version, deck.to_json()))
    lines = lines_table(current, identity)
    if "csv" in formats:
        atomic_write(out_dir / "decklists.csv", csv_bytes(lines))
        written += 1
    if "xlsx" in formats:
        atomic_write(out_dir / "decklists.xlsx", xlsx_bytes([in_korean(t) for t in event_tables(store, lines)]))
        written += 1
    return written, flagged


def event_tables(store: EventRecord, lines: Table) -> list[Table]:
    """The workbook of the export: every registration version, the current lines, deck
    checks, infractions (with voids) and review decisions."""
    regs = store.registrations()
    names = {r.konami_id: r.player_name for r in regs}
    reg_table = Table("registrations", ["player", "name", "version", "time", "file", "sha256",
                                        "reader", "legal", "needs_review", "codes", "list",
                                        "judge", "withdrawn", "withdrawn_reason",
                                        "withdrawn_by", "withdrawn_at"])
    for r in regs:
        w = r.withdrawal
        reg_table.rows.append([r.konami_id, r.player_name, r.version, r.created_at, r.file_name,
                               r.file_sha256, r.reader, r.legal, r.needs_review,
                               " ".join(sorted({i.get("code", "") for i in r.infractions})),
                               r.list_name, r.judge, w is not None, w.reason if w else None,
                               w.judge if w else None, w.created_at if w else None])
    return [reg_table, lines, deck_checks_table(store.deck_checks(), names, identity),
            infractions_table(store.infractions(), names, identity),
            decisions_table(store.decisions(), {r.id: r for r in regs}, identity)]
