"""The Simplified-Chinese official deck list (`CN_decklist_template_blank.pdf`, A4).

Bilingual labels; 20 rows per main column, the count box LEFT of the name; Extra Deck (left) and
Side Deck (middle) below with 15 rows each, a `<<< Total` row under each table; the Konami ID in
ten one-digit boxes; the judge box right of the lower tables is no deck table. Title rows are
not filled; the total rows' count cells are grey. Rules measured on the blank form.
"""
from __future__ import annotations

from scanner.layouts.model import Layout, TableSpec

_MAIN_ROW1, _MAIN_PITCH = 160.1, (451.4 - 160.1) / 20
_LOW_ROW1, _LOW_PITCH = 497.4, (721.9 - 497.4) / 15
_X = (22.6, 42.4, 206.7, 226.6, 390.1, 411.1, 574.1)
"""The form's column rules, left to right: count | name per column."""

CN = Layout(
    name="kde-cn", width=595.28, height=841.89, count_side="left", row_numbers=False,
    tables=(
        TableSpec("monster", _X[0], _X[1], _X[2], 143.6, _MAIN_ROW1, _MAIN_PITCH, 20, 466.6),
        TableSpec("spell", _X[2], _X[3], _X[4], 143.6, _MAIN_ROW1, _MAIN_PITCH, 20, 466.6),
        TableSpec("trap", _X[4], _X[5], _X[6], 143.6, _MAIN_ROW1, _MAIN_PITCH, 20, 466.6),
        TableSpec("extra", _X[0], _X[1], _X[2], 477.4, _LOW_ROW1, _LOW_PITCH, 15, 737.8),
        TableSpec("side", _X[2], _X[3], _X[4], 477.4, _LOW_ROW1, _LOW_PITCH, 15, 737.8),
    ),
    boxes={"konami_id": (121.8, 100.7, 324.9, 126.4), "name": (115.0, 57.9, 323.9, 80.7)},
    labels={"monster": "Monsters", "total": "Total"},
    fill="total-count",
)
