"""A form's description: its deck tables and boxes, in the form's own units (PDF points from the
top-left corner)."""
from __future__ import annotations

from dataclasses import dataclass, field


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
    fill: str | None = "title"
    """What the form fills grey in each table, which tells a fit from one shifted by a row:
    "title" (the title row, right of the count column), "total-count" (the total row's count
    cell), or None."""
    fields: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    """Fillable forms: where named fields sit (x0, top, x1, bottom), for values drawn flat."""

    @property
    def fitted(self) -> bool:
        """A fixed form whose tables are placed by fitting it (not found by their rules): a
        name on it may be written by hand, and its totals are framed cells."""
        return bool(self.tables)

