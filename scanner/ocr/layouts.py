"""The printed sheet layouts the OCR reader knows, as data.

Two layouts reach a judge's desk:
- `DB_KO`: the Korean card database's 「PDF로 인쇄」 sheet. Its tables are found by their rules
  (`grid`): a table's row count varies (20 rows, more when a column needs it), each row is
  `[row no.] name | count`, the count on the RIGHT, a 합계 row under each table.
- `KDE`: Konami's official deck-list form (`KDE_DeckList.pdf`, 644.21 × 833.68 pt), filled in
  the PDF or by hand, printed (often "fit to page") and photographed or scanned. One frame
  holds every table; rows are `count | name`, the count on the LEFT, 18 rows per main column
  and 15 for side (left) and extra (middle), a `<<< TOTAL` row under each. Its tables are
  placed by fitting this description to the rules found on the page (`form_fit`).

Coordinates are in the layout's own units (PDF points, measured from the top-left corner).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TableSpec:
    """One deck table of a layout."""

    kind: str
    """monster / spell / trap / extra / side."""
    left: float
    divider: float
    """The rule between the count and the name cells."""
    right: float
    title_top: float
    """Top rule of the title row (MONSTER CARDS, …; the middle of a thick rule). The title row
    is filled grey: that tells the fit from one shifted by a row."""
    first_row: float
    """Top rule of row 1 (= bottom of the title row)."""
    pitch: float
    rows: int
    total_bottom: float
    """Bottom rule of the total row, which follows the last row."""
    count_side: str = "left"

    def row_rules(self) -> list[float]:
        """Title top, every row rule (rows + 1 of them), the total row's bottom."""
        return ([self.title_top] + [self.first_row + i * self.pitch for i in range(self.rows + 1)]
                + [self.total_bottom])


@dataclass(frozen=True)
class Layout:
    name: str
    width: float
    height: float
    tables: tuple[TableSpec, ...]
    count_side: str
    """Where the count cell is: "left" or "right" of the name."""
    row_numbers: bool
    """Rows carry a printed number in (or beside) the name cell."""
    boxes: dict[str, tuple[float, float, float, float]]
    """Named header boxes (x0, y0, x1, y1): where a value is written."""
    labels: dict[str, str]
    """Printed words that identify the layout, by the box they are printed in."""
    min_rows: dict[str, int] | None = None
    """Rows every table of a kind has at least (layouts whose tables are found by their rules):
    a table that ends sooner was cut off by the photo's edge or an object on the sheet."""


DB_KO = Layout(
    name="db-ko", width=595.28, height=841.89, tables=(), count_side="right", row_numbers=True,
    boxes={}, labels={"monster": "몬스터 카드", "spell": "마법 카드", "trap": "함정 카드",
                      "extra": "엑스트라 덱", "side": "사이드 덱"},
    min_rows={"monster": 20, "spell": 20, "trap": 20, "extra": 15, "side": 15})
"""Column order monster, spell, trap side by side; extra (left) and side (right) below; tables
found by their rules (`grid.classify_tables`, `grid.build_rows`); 20 rows per main column (more
when a column needs them), 15 for extra and side."""

_MAIN_ROW1, _MAIN_PITCH = 160.5, (474.5 - 160.5) / 18
_LOW_ROW1, _LOW_PITCH = 507.5, (769.0 - 507.5) / 15
_X = (37.5, 56.5, 227.0, 246.0, 416.5, 435.5, 606.0)
"""The form's column rules, left to right: count | name per column."""

KDE = Layout(
    name="kde", width=644.21, height=833.68, count_side="left", row_numbers=False,
    tables=(
        TableSpec("monster", _X[0], _X[1], _X[2], 146.0, _MAIN_ROW1, _MAIN_PITCH, 18, 493.0),
        TableSpec("spell", _X[2], _X[3], _X[4], 146.0, _MAIN_ROW1, _MAIN_PITCH, 18, 493.0),
        TableSpec("trap", _X[4], _X[5], _X[6], 146.0, _MAIN_ROW1, _MAIN_PITCH, 18, 493.0),
        TableSpec("side", _X[0], _X[1], _X[2], 493.0, _LOW_ROW1, _LOW_PITCH, 15, 786.5),
        TableSpec("extra", _X[2], _X[3], _X[4], 493.0, _LOW_ROW1, _LOW_PITCH, 15, 786.5),
    ),
    boxes={"main_total": (551.0, 120.0, 605.0, 144.0), "konami_id": (113.4, 123.0, 303.2, 144.3),
           "given_name": (105.4, 72.7, 302.2, 93.5), "surname": (105.4, 96.8, 302.2, 119.0)},
    labels={"total": "TOTAL"},
)
