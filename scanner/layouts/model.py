"""A form's description: its deck tables and boxes, in the form's own units (PDF points from the
top-left corner), and for fillable forms how its fields are named and where they sit."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

Box = tuple[float, float, float, float]
"""x0, top, x1, bottom in the form's points, top-left origin."""
MAIN_COLUMNS = ("monster", "spell", "trap")
SECTION_OF = {"monster": "main", "spell": "main", "trap": "main", "extra": "extra", "side": "side"}


@dataclass(frozen=True)
class Cells:
    """Where a fillable form's fields of one table sit (measured on the blank form; the fields
    lie a little inside the printed rules, and their tops are not exactly evenly spaced)."""

    count_x: tuple[float, float]
    name_x: tuple[float, float]
    tops: tuple[float, ...]
    """Top of each row's fields, row 1 first."""
    height: float


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
    cells: Cells | None = None
    """A fillable form's field boxes for this table (PDF readers); None for printed-only forms."""

    @property
    def section(self) -> str:
        return SECTION_OF[self.kind]

    def row_rules(self) -> list[float]:
        """Title top, every row rule (rows + 1 of them), the total row's bottom."""
        return ([self.title_top] + [self.first_row + i * self.pitch for i in range(self.rows + 1)]
                + [self.total_bottom])

    def line_box(self, row: int) -> Box:
        """Count and name fields of one row together (the printed cells when no fields)."""
        if self.cells is None:
            top = self.first_row + (row - 1) * self.pitch
            return (self.left, top, self.right, top + self.pitch)
        c = self.cells
        top = c.tops[row - 1]
        return (min(c.count_x[0], c.name_x[0]), top, max(c.count_x[1], c.name_x[1]), top + c.height)


@dataclass(frozen=True)
class FormFields:
    """How a fillable form names its fields, as data: which field holds each line's count and
    name, each printed total, and each header value; and where the fields outside the deck
    tables sit (for a page whose values were drawn flat)."""

    recognise: tuple[frozenset[str], ...]
    """The form is recognised by its fields when one of these sets is among their names."""
    cells: Mapping[str, tuple[str, str, int]]
    """Field name → (role "count" | "name", table kind, row). A form may name one cell two
    ways (Konami's form names some count fields `Monster Card N Count`, others `Monster N Count`)."""
    totals: Mapping[str, tuple[str, ...]]
    """Table kind, or "main", → the fields that print its total (the first with a value counts)."""
    header: Mapping[str, tuple[str, ...]]
    """given_name, surname, name (one box for the whole name), event → the fields holding it
    (the first with a value counts); konami_id → its fields, their digits joined in order."""
    date: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] = ((), (), ())
    """The fields of the event date's year, month and day (each part's digits joined)."""
    boxes: Mapping[str, Box] = field(default_factory=dict)
    """Where every field outside the deck tables sits (header values, totals)."""
    id_label: str = "Konami ID"
    """How the form labels the Konami ID (in a review item about it)."""

    def cell_field(self, role: str, kind: str, row: int) -> str:
        """The first name the form gives a cell (what a filler writes to)."""
        return next(name for name, cell in self.cells.items() if cell == (role, kind, row))

    def is_filled_in(self, names: set[str]) -> bool:
        return any(req <= names for req in self.recognise)

    def header_boxes(self, **measured: Box) -> dict[str, Box]:
        """The image reader's header boxes (`Layout.boxes`): `measured` ones (the main total
        under its printed label, …), and where the form's own fields of the Konami ID, given
        name and surname sit (the first field naming each) unless measured."""
        out = dict(measured)
        for key in ("konami_id", "given_name", "surname"):
            out.setdefault(key, self.boxes[self.header[key][0]])
        return out


@dataclass(frozen=True)
class Layout:
    """One form: its deck tables, where values are written on it, the words that identify it,
    and for a fillable form how its fields are named (`FormFields`)."""

    name: str
    width: float
    height: float
    tables: tuple[TableSpec, ...]
    count_side: str
    """Where the count cell is: "left" or "right" of the name."""
    row_numbers: bool
    """Rows carry a printed number in (or beside) the name cell."""
    boxes: dict[str, Box]
    """Named header boxes (x0, y0, x1, y1) as printed: where a value is written on paper
    (given_name, surname, name, konami_id, main_total), for the image reader."""
    title: str = ""
    """What a judge calls the form (in the reader's notes)."""
    page_words: tuple[str, ...] = ()
    """Words printed on the blank form (`pdf.words.label_key` forms) that identify its page."""
    anchor: tuple[str, float, float] | None = None
    """A word printed once on the form and its x0 and top on the blank form: a flattened page
    drawn shifted is aligned on it before values are assigned to field boxes."""
    min_rows: dict[str, int] | None = None
    """Rows every table of a kind has at least (layouts whose tables are found by their rules):
    a table that ends sooner was cut off by the photo's edge or an object on the sheet."""
    fill: str | None = "title"
    """What the form fills grey in each table, which tells a fit from one shifted by a row:
    "title" (the title row, right of the count column), "total-count" (the total row's count
    cell), or None."""
    form: FormFields | None = None
    """A fillable form's fields (None for printed-only sheets)."""
    printed_labels: tuple[str, ...] = ()
    """What the form prints in its tables' title and total rows and just above the tables (the
    image reader: a row that reads as one of them was fitted rows off, `ocr.fit_check`)."""
    open_boxes: tuple[tuple[str, ...], ...] = ()
    """A form whose deck tables are open boxes with no row rules (one box per column, lines of
    `N Name` typed inside): the table kinds of each band of boxes, top band first, left to right.
    The image reader finds the boxes by their rules and the lines by their ink (`ocr.boxed`)."""

    @property
    def fitted(self) -> bool:
        """A fixed form whose tables are placed by fitting it (not found by their rules): a
        name on it may be written by hand, and its totals are framed cells."""
        return bool(self.tables)

    def table(self, kind: str) -> TableSpec:
        return next(t for t in self.tables if t.kind == kind)


def numbered_cells(names: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]],
                   tables: tuple[TableSpec, ...]) -> dict[str, tuple[str, str, int]]:
    """Cells of a form that names its fields by row number: kind → (name field patterns,
    count field patterns), each pattern with `{n}` for the row, for every row of the form's
    table of that kind."""
    rows = {t.kind: t.rows for t in tables}
    out: dict[str, tuple[str, str, int]] = {}
    for kind, (name_patterns, count_patterns) in names.items():
        for n in range(1, rows[kind] + 1):
            for pattern in name_patterns:
                out[pattern.format(n=n)] = ("name", kind, n)
            for pattern in count_patterns:
                out[pattern.format(n=n)] = ("count", kind, n)
    return out


def measurements(description: str) -> dict[str, Any]:
    """A fixed form's geometry as measured on the blank form, from the TOML file beside its
    description (`measurements(__file__)` in `kde.py` reads `kde.toml`): every array a tuple."""
    def frozen(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: frozen(v) for k, v in value.items()}
        return tuple(frozen(v) for v in value) if isinstance(value, list) else value
    with Path(description).with_suffix(".toml").open("rb") as f:
        return frozen(tomllib.load(f))


@dataclass(frozen=True)
class Band:
    """Tables side by side that share their rows (a form's main columns, or its lower tables):
    the printed rules, and the measured tops and height of their fields."""

    title_top: float
    first_row: float
    pitch: float
    rows: int
    total_bottom: float
    field_tops: tuple[float, ...] = ()
    field_height: float = 0.0

    @classmethod
    def measured(cls, band: Mapping[str, Any]) -> Band:
        """A band of a form's measurements (`title_top`, `first_row`, `last_rule`, `rows`,
        `total_bottom`, `field_tops`, `field_height`): the rows evenly spaced between the first
        and the last rule."""
        pitch = (band["last_rule"] - band["first_row"]) / band["rows"]
        return cls(band["title_top"], band["first_row"], pitch, band["rows"], band["total_bottom"],
                   band["field_tops"], band["field_height"])


def three_over_two(measured: Mapping[str, Any]) -> tuple[TableSpec, ...]:
    """Konami's deck tables, from a fillable form's measurements: monster | spell | trap (the
    `main` band) over the two `lower_tables` (left to right: which deck each prints), every table
    `count | name` between the `column_rules` (7 of them), its fields where `cells_x` says (count
    x0, x1, name x0, x1)."""
    main, lower = Band.measured(measured["main"]), Band.measured(measured["lower"])
    xs, left, middle = measured["column_rules"], *measured["lower_tables"]
    out = []
    for kind, band, i in (("monster", main, 0), ("spell", main, 2), ("trap", main, 4),
                          (left, lower, 0), (middle, lower, 2)):
        count_x0, count_x1, name_x0, name_x1 = measured["cells_x"][kind]
        cells = Cells((count_x0, count_x1), (name_x0, name_x1), band.field_tops, band.field_height)
        out.append(TableSpec(kind, xs[i], xs[i + 1], xs[i + 2], band.title_top, band.first_row,
                             band.pitch, band.rows, band.total_bottom, cells=cells))
    return tuple(out)


def konami_form(measured: Mapping[str, Any], tables: tuple[TableSpec, ...], fields: FormFields,
                boxes: dict[str, Box] | None = None, **described: Any) -> Layout:
    """One of Konami's fillable forms (`count | name` tables, no row numbers): its size, tables
    and anchor from its measurements; its header boxes, unless given, where its fields sit or
    where `written_boxes` says a value is written; `described`: the rest (name, title, …)."""
    width, height = measured["size"]
    if boxes is None:
        boxes = fields.header_boxes(**measured.get("written_boxes", {}))
    return Layout(width=width, height=height, tables=tables, count_side="left", row_numbers=False,
                  boxes=boxes, anchor=measured["anchor"], form=fields, **described)
