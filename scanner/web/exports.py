"""Files a head judge downloads from the dashboard: the audit (HTML with masked IDs, CSV), every
list's lines (CSV), and the player status list (CSV; XLSX under Korean headers; a masked CSV to post at the venue).

Every CSV/XLSX cell that a spreadsheet would run as a formula (=, +, -, @, tab, CR at its start)
is prefixed with an apostrophe (`scanner.report.tables.safe_cell`, the one guard): a player named
`=HYPERLINK(...)` stays text.
"""
from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path
from typing import Any

from scanner.event.audit_report import mask_id
from scanner.report.headers_ko import in_korean
from scanner.report.tables import Table, safe_cell, xlsx_bytes
from scanner.rules.codes import CODE_KO, PENALTY_KO
from scanner.web.present import local_time
from scanner.web.service import StationService
from scanner.web.views import STATUS_KO

EXPORTS = {
    "audit.html": "감사 보고서 (HTML, ID 가림)",
    "audit.csv": "감사 표 (CSV)",
    "decklists.csv": "모든 덱 리스트 줄 (CSV)",
    "players.csv": "선수 상태 (CSV)",
    "players.xlsx": "선수·위반·결정 (엑셀)",
    "players-shared.csv": "게시용 선수 상태 (CSV, ID 가림)",
}


def _csv(rows: list[list[Any]]) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf)
    for row in rows:
        w.writerow([safe_cell(c) for c in row])
    return buf.getvalue().encode("utf-8-sig")  # utf-8-sig: Excel shows Korean


def _resanitise(path: Path) -> bytes:
    """A CSV written by the event layer, with formula cells made safe."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        return _csv(list(csv.reader(f)))


def _player_rows(service: StationService, masked: bool) -> list[list[Any]]:
    rows: list[list[Any]] = [["konami_id", "name", "table", "version", "status", "상태",
                              "needs_review", "infractions", "deck_checks"]]
    for p in service.players():
        rows.append([mask_id(p.konami_id) if masked else p.konami_id, p.name, p.table_no,
                     p.version, p.status, STATUS_KO[p.status], p.verdict.needs_review,
                     p.verdict.breaches, p.deck_checks])
    return rows


def _xlsx(service: StationService) -> bytes:
    """The judges' workbook: players, infractions, review decisions, under Korean headers."""
    tz = service.config.timezone
    rows = _player_rows(service, masked=False)
    drop = rows[0].index("status")  # the Korean 상태 column says it for judges
    rows = [[c for n, c in enumerate(r) if n != drop] for r in rows]
    players = Table("players", rows[0], rows[1:])
    infractions = Table("infractions", ["id", "konami_id", "name", "round", "code", "penalty",
                                        "penalty_now", "voided", "judge", "time"])
    for i in service.infractions():
        infractions.rows.append([i.id, i.konami_id, i.name, i.round, CODE_KO.get(i.code, i.code),
                                 PENALTY_KO.get(i.penalty, i.penalty),
                                 PENALTY_KO.get(i.penalty_now, i.penalty_now or ""), i.voided,
                                 i.judge, local_time(i.at, tz)])
    decisions = Table("review decisions", ["konami_id", "name", "version", "place", "before",
                                           "after", "judge", "time"])
    for d in service.decision_log():
        decisions.rows.append([d.konami_id, d.name, d.version, d.place, d.before, d.after,
                               d.judge, local_time(d.at, tz)])
    return xlsx_bytes([in_korean(t) for t in (players, infractions, decisions)])


def make(service: StationService, what: str) -> tuple[bytes, str, str]:
    """(bytes, media type, file name) of one export."""
    if what in ("audit.html", "audit.csv"):
        with tempfile.TemporaryDirectory() as tmp:
            service.run_audit(Path(tmp), log=False)  # a GET: no audit-log row
            if what == "audit.html":
                return ((Path(tmp) / "report.html").read_bytes(), "text/html; charset=utf-8",
                        "report.html")
            return _resanitise(Path(tmp) / "report.csv"), "text/csv; charset=utf-8", "report.csv"
    if what == "decklists.csv":
        with tempfile.TemporaryDirectory() as tmp:
            service.export_lists(Path(tmp))
            return (_resanitise(Path(tmp) / "decklists.csv"), "text/csv; charset=utf-8",
                    "decklists.csv")
    if what == "players.xlsx":
        return (_xlsx(service),
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                "players.xlsx")
    masked = what == "players-shared.csv"
    return _csv(_player_rows(service, masked)), "text/csv; charset=utf-8", what
