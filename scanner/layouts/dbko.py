"""The Korean card database's 「PDF로 인쇄」 sheet (and the 유희왕 뉴런 app's, printed alike)."""
from __future__ import annotations

from scanner.layouts.model import Layout

DB_KO = Layout(
    name="db-ko", width=595.28, height=841.89, tables=(), count_side="right", row_numbers=True,
    boxes={}, title="card-database sheet",
    page_words=("몬스터카드", "마법카드", "함정카드", "엑스트라덱", "사이드덱"),
    min_rows={"monster": 20, "spell": 20, "trap": 20, "extra": 15, "side": 15})
"""Column order monster, spell, trap side by side; extra (left) and side (right) below; tables
found by their rules (`grid.classify_tables`, `grid.build_rows`); 20 rows per main column (more
when a column needs them), 15 for extra and side. Its text layer is read by its column labels
(`layouts.labels`, `pdf.layout_dbko`), never by fixed coordinates."""
