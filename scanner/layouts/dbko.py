"""The Korean card database's 「PDF로 인쇄」 sheet (and the 유희왕 뉴런 app's, printed alike)."""
from __future__ import annotations

from scanner.layouts.model import Layout

DB_KO = Layout(
    name="db-ko", width=595.28, height=841.89, tables=(), count_side="right", row_numbers=True,
    boxes={}, labels={"monster": "몬스터 카드", "spell": "마법 카드", "trap": "함정 카드",
                      "extra": "엑스트라 덱", "side": "사이드 덱"},
    min_rows={"monster": 20, "spell": 20, "trap": 20, "extra": 15, "side": 15})
"""Column order monster, spell, trap side by side; extra (left) and side (right) below; tables
found by their rules (`grid.classify_tables`, `grid.build_rows`); 20 rows per main column (more
when a column needs them), 15 for extra and side."""
