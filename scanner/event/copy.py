"""Moving a whole event between stores (a laptop's SQLite file ⇄ the circuit's PostgreSQL),
then proving the copy: the same rows (ids kept) in every record table, compared by count and by
a digest of their canonical JSON, and every original file with its digest."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field

from scanner.errors import EventError
from scanner.event.files import sha256_bytes
from scanner.event.backend import RECORD_COLUMNS
from scanner.event.record import EventRecord
from scanner.event.stores import create_event, open_event

COPIED = "event-copied"
"""Audit-log action written in the copy (after it was verified)."""


def rows_digest(rows: list[dict]) -> str:
    h = hashlib.sha256()
    for r in rows:
        h.update(json.dumps(r, ensure_ascii=False, sort_keys=True, default=str).encode())
        h.update(b"\n")
    return h.hexdigest()


@dataclass
class TableCheck:
    table: str
    rows: int
    digest: str
    copied_rows: int
    copied_digest: str

    @property
    def ok(self) -> bool:
        return (self.rows, self.digest) == (self.copied_rows, self.copied_digest)

    def to_json(self) -> dict:
        return {"table": self.table, "rows": self.rows, "sha256": self.digest,
                "copied_rows": self.copied_rows, "copied_sha256": self.copied_digest,
                "ok": self.ok}


@dataclass
class CopyReport:
    source: str
    target: str
    tables: list[TableCheck] = field(default_factory=list)
    files: int = 0
    file_problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(t.ok for t in self.tables) and not self.file_problems

    def to_json(self) -> dict:
        return {"from": self.source, "to": self.target, "ok": self.ok, "files": self.files,
                "file_problems": self.file_problems,
                "tables": [t.to_json() for t in self.tables]}


def fingerprint(store: EventRecord) -> dict[str, tuple[int, str]]:
    """Row count and digest of every record table, and of the event header."""
    ev = store.event()
    out = {"event": (1, rows_digest([{"name": ev.name, "date": ev.date.isoformat(),
                                      "list_name": ev.list_name,
                                      "created_at": ev.created_at}]))}
    for table in RECORD_COLUMNS:
        rows = store.record_rows(table)
        out[table] = (len(rows), rows_digest(rows))
    return out


def copy_event(source: str | os.PathLike, target: str | os.PathLike,
               actor: str | None = None) -> CopyReport:
    """Copy the event at `source` into a new event at `target` (a new file, or a new event name
    in a database), verify it, and log the copy in the target. The source is only read."""
    with open_event(source, readonly=True) as src:
        ev = src.event()
        digests = sorted(set(src.file_digests()))
        # The source is proved whole before anything is created.
        damaged = [p for p in src.integrity()]
        damaged += [sha for sha in digests
                    if sha256_bytes(src.file_bytes(sha) or b"") != sha]
        if damaged:
            raise EventError("copy.damaged-source", location=src.location,
                             detail="; ".join(damaged[:3]))
        with create_event(target, ev.name, ev.date, ev.list_name, copied_at=ev.created_at) as dst:
            report = CopyReport(source=src.location, target=dst.location)
            for sha in digests:
                dst.store_file(src.file_bytes(sha) or b"")
            for table in RECORD_COLUMNS:
                rows = src.record_rows(table)
                if rows:
                    dst.load_records(table, rows)
            before, after = fingerprint(src), fingerprint(dst)
            for table, (n, digest) in before.items():
                m, copied = after[table]
                report.tables.append(TableCheck(table, n, digest, m, copied))
            for sha in digests:
                data = dst.file_bytes(sha)
                if data is None or sha256_bytes(data) != sha:
                    report.file_problems.append(f"original {sha} did not arrive intact")
            report.files = len(digests) - len(report.file_problems)
            if not report.ok:
                bad = [t.table for t in report.tables if not t.ok] + report.file_problems
                raise EventError("copy.mismatch", location=dst.location, detail=", ".join(bad))
            dst.log(COPIED, {"from": src.location, "tables": {t.table: t.rows
                                                              for t in report.tables},
                             "files": report.files}, actor)
    return report
