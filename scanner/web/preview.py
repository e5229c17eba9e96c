"""The text layer's reading of a PDF, shown while its pages are still being verified.

A text or form PDF is read in two phases (issue 33): the text layer and form values at once, then
the image reader on the rendered pages (≈1–2 s more). The reader process writes what the text
says — resolved lines and the player read off the sheet, nothing else — into a small JSON file
beside the job's crops (`write_preview`, from `ReadOptions.on_text_read`); the job's status poll
hands it to the check-in page while the job runs (`load_preview`). It carries no verdict and is
never stored in the event record: the registration is committed from the verified read alone,
and the file is removed when the job ends. A photo's reader writes its header the same way as
soon as it is read, before the rows (`write_header_preview`, `stage: "header"`): the check-in page
asks whose sheet it is while the rows are read (`CheckinService.decide` keeps the tap).
"""
from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from card_db.cdb import CardDatabase
from card_db.paths import atomic_write
from scanner.inputs.resolve import resolve_sheet
from scanner.model import SECTIONS, SheetRead
from scanner.vocab import Reason

log = logging.getLogger("decksheet.web.preview")

MAX_BYTES = 64 * 1024
"""A preview larger than this is not read back (a sheet is ≤ 75 lines: a few KB)."""


def preview_path(crops_dir: Path, job_id: str) -> Path | None:
    """The job's preview file, beside its crops (None for a malformed ID: no path from it)."""
    if not re.fullmatch(r"[0-9a-f]{16}", job_id or ""):
        return None
    return crops_dir / f"preview-{job_id}.json"


def preview_json(sheet: SheetRead, db: CardDatabase) -> dict:
    """What the text says, resolved to cards: per section its lines (card, count, column) and
    total, and the player's name and Konami ID as read. No verdict, no review items."""
    deck = resolve_sheet(sheet, db)
    sections = []
    for s in SECTIONS:
        entries = [e for e in deck.sections[s] if not e.removed]
        sections.append({
            "section": s, "total": sum(e.count for e in entries),
            "lines": [{"card_id": e.card_id, "name": e.name, "count": e.count,
                       "column": e.column, "unsure": e.needs_review} for e in entries]})
    return {"player": {"name": deck.player_name, "konami_id": deck.konami_id},
            "sections": sections}


def header_json(sheet: SheetRead) -> dict:
    """A photo's header as soon as it is read, before its rows (`ReadOptions.on_header_read`):
    the player's name and Konami ID as read, and whether the ID was read with confidence (the
    rule of `flows.sheet_konami_id`, on what is known so far). No lines: `sections` is absent."""
    kid = sheet.konami_id
    sure = bool(kid and len(kid) == 10 and kid.isdigit()
                and not any(r.reason == Reason.KONAMI_ID_UNCLEAR for r in sheet.review))
    return {"player": {"name": sheet.player_name, "konami_id": kid, "id_sure": sure},
            "stage": "header"}


def write_header_preview(path: Path, sheet: SheetRead) -> None:
    """`ReadOptions.on_header_read` of the station's reader (written whole or not at all)."""
    atomic_write(path, json.dumps(header_json(sheet), ensure_ascii=False))


def write_preview(path: Path, db: CardDatabase, sheet: SheetRead) -> None:
    """`ReadOptions.on_text_read` of the station's reader: the preview, written whole or not at
    all (a poll never reads half a file)."""
    data = json.dumps(preview_json(sheet, db), ensure_ascii=False)
    atomic_write(path, data)


def load_preview(path: Path | None) -> dict | None:
    """The preview a reader wrote, or None (none yet, none for this kind of input, unreadable)."""
    if path is None:
        return None
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def remove_preview(path: Path | None) -> None:
    """The job ended: its preview goes (what it showed is replaced by the verified read)."""
    if path is None:
        return
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:  # a read-only or vanished folder: harmless, the poll shows it no more
        log.debug("preview %s not removed: %s", path, exc)
