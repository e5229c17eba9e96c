"""Tables for spreadsheets: CSV (csv module) and an .xlsx workbook (openpyxl), both safe to open.

A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to Excel and
LibreOffice (`=HYPERLINK(…)` in a player name, `+cmd|…` in a sheet line): such text gets a
leading `'`, so it shows as text and never runs. Numbers and booleans stay numbers. Konami IDs in
reports that are shared are masked (`mask_id`, `mask_ids_in`), file names included.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Any

FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")
_SURROGATES = re.compile("[\ud800-\udfff]")
_ID_RUN = re.compile(r"(?<!\d)(\d{2})(\d{6})(\d{2})(?!\d)")


def safe_cell(value: Any) -> Any:
    """A value as a spreadsheet cell: text that a spreadsheet would run as a formula is
    prefixed with `'`; None → empty."""
    if value is None:
        return ""
    if isinstance(value, (bool, int, float)):
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_LEADS) else text


def mask_id(konami_id: str | None) -> str:
    """`0123456789` → `01******89`: enough for a judge to match a player, not to reuse the ID."""
    if not konami_id:
        return ""
    if len(konami_id) <= 4:
        return "*" * len(konami_id)
    return konami_id[:2] + "*" * (len(konami_id) - 4) + konami_id[-2:]


def mask_ids_in(text: str | None) -> str:
    """Every 10-digit run in `text` masked (file names like `0555555555.ydk`)."""
    if not text:
        return ""
    return _ID_RUN.sub(lambda m: m[1] + "*" * 6 + m[3], text)


@dataclass
class Table:
    """One sheet of a workbook (and one CSV file): a title, headers and rows."""

    name: str
    headers: list[str]
    rows: list[list[Any]] = field(default_factory=list)


def csv_text(table: Table) -> str:
    """The table as CSV text (cells made safe)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([safe_cell(h) for h in table.headers])
    for row in table.rows:
        w.writerow([safe_cell(c) for c in row])
    return buf.getvalue()


def csv_bytes(table: Table) -> bytes:
    """CSV as UTF-8 with a BOM, so Excel shows Korean."""
    return csv_text(table).encode("utf-8-sig", errors="replace")  # a lone surrogate → '?'


def _xlsx_cell(value: Any) -> Any:
    """`safe_cell`, and characters XML 1.0 cannot hold (C0 controls but tab and line ends, lone
    surrogates) shown as U+FFFD: a workbook of the record is written whatever text the record
    holds (one control character in a void reason made every later audit fail)."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    cell = safe_cell(value)
    if isinstance(cell, str):
        cell = _SURROGATES.sub("\ufffd", ILLEGAL_CHARACTERS_RE.sub("\ufffd", cell))
    return cell


def xlsx_bytes(tables: list[Table]) -> bytes:
    """An .xlsx workbook with one sheet per table (cells made safe, text cells as text)."""
    from openpyxl import Workbook  # late: only the exports need it
    from openpyxl.styles import Font

    wb = Workbook()
    wb.remove(wb.active)
    for t in tables:
        ws = wb.create_sheet(title=t.name[:31])
        ws.append([_xlsx_cell(h) for h in t.headers])
        for row in t.rows:
            ws.append([_xlsx_cell(c) for c in row])
        for cell in ws[1]:
            cell.font = Font(bold=True)
        ws.freeze_panes = "A2"
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str):
                    cell.data_type = "s"  # never a formula, whatever it starts with
        for col, h in enumerate(t.headers, 1):
            width = max([len(str(h))] + [len(str(r[col - 1])) for r in t.rows[:200]
                                         if col - 1 < len(r)])
            ws.column_dimensions[ws.cell(1, col).column_letter].width = min(60, max(8, width + 2))
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()
