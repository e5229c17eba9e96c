"""Fixed fillable forms (`layouts.FORMS`: Konami's deck list, its Latin-American edition, the
Chinese template), read from their field values or from their flattened page, by one reader
driven by each form's description.

Filled: values are the form's fields (named as `FormFields` says). Flattened: the same values
are page text drawn inside the field boxes; the page is aligned on one printed word of the form
(`Layout.anchor`) before each word is given to the box holding its centre.
"""
from __future__ import annotations

import re

from scanner.layouts import FORMS, Box, Layout
from scanner.model import ReadLine, SheetRead
from scanner.pdf.words import Token, full_name, join_words, name_text, parse_count, parse_date, parse_total
from scanner.vocab import Reason

LINE_ORDER = ("monster", "spell", "trap", "side", "extra")
"""The order lines are listed in (the order Konami's form numbers its fields)."""
SIZE_TOLERANCE = 3.0
"""A page within this many points of a form's size may be that form."""
MIN_SHIFT = 4.0
"""A page shifted by less than this (pt) is read with the boxes where the form has them."""


def form_of_fields(names: set[str]) -> Layout | None:
    """The fillable form whose fields these are, if any."""
    return next((f for f in FORMS if f.form is not None and f.form.is_filled_in(names)), None)


def form_of_page(tokens: list[Token], width: float, height: float) -> Layout | None:
    """The form a flattened page is, by its size and the words printed on it."""
    keys = {_key(t.text) for t in tokens}
    for layout in FORMS:
        if layout.form is None:
            continue
        if abs(width - layout.width) > SIZE_TOLERANCE or abs(height - layout.height) > SIZE_TOLERANCE:
            continue
        if all(w in keys or any(w in k for k in keys) for w in layout.page_words):
            return layout
    return None


def _tables(layout: Layout):
    return sorted(layout.tables, key=lambda t: LINE_ORDER.index(t.kind))


def deck_fields(layout: Layout) -> list[str]:
    """The fields of the form's deck tables (a form with none of them filled is blank)."""
    assert layout.form is not None
    return list(layout.form.cells)


def sheet_from_fields(layout: Layout, fields: dict[str, str], reader: str) -> SheetRead:
    """Form values (field name → text) → lines, player, totals, as the form names them."""
    form = layout.form
    assert form is not None
    cell: dict[tuple[str, str, int], str] = {}
    for name, where in form.cells.items():  # the first name of a cell with a value wins
        value = (fields.get(name) or "").strip()
        if value and not cell.get(where):
            cell[where] = value
    sheet = SheetRead(reader=reader)
    for table in _tables(layout):
        for n in range(1, table.rows + 1):
            name = cell.get(("name", table.kind, n), "")
            count_text = cell.get(("count", table.kind, n), "")
            if not name and not count_text:
                continue
            count = parse_count(count_text) if count_text else None
            flags = []
            if not name:
                flags.append(Reason.NAME_MISSING)
            if count is None:
                flags.append(Reason.COUNT_MISSING if not count_text else Reason.COUNT_UNCLEAR)
            sheet.lines.append(ReadLine(section=table.section, text=name, count=count,
                                        column=table.kind, row=n, count_text=count_text, flags=flags))

    def first(names: tuple[str, ...]) -> str | None:
        return next((fields[n] for n in names if (fields.get(n) or "").strip()), None)

    for table in _tables(layout):
        value = parse_total(first(form.totals.get(table.kind, ())))
        if table.section == "main":
            sheet.column_totals[table.kind] = value
        else:
            sheet.printed_totals[table.section] = value
    sheet.settle_main_total(parse_total(first(form.totals.get("main", ()))))
    sheet.check_column_totals()
    header = form.header
    if "name" in header:
        sheet.player_name = name_text(first(header["name"]))
    else:
        sheet.player_name = full_name(first(header.get("given_name", ())), first(header.get("surname", ())))
    sheet.take_konami_id("".join(fields.get(n) or "" for n in header.get("konami_id", ())), form.id_label)
    sheet.event_name = (first(header.get("event", ())) or "").strip() or None
    parts = [[(fields.get(n) or "").strip() for n in names] for names in form.date]
    if all(parts) and all(all(p) for p in parts):
        sheet.event_date = parse_date(" ".join("".join(p) for p in parts))
    return sheet


def field_boxes(layout: Layout, dx: float = 0.0, dy: float = 0.0) -> dict[str, Box]:
    """Every field's box on the page (shifted by dx, dy), each cell under the first name the
    form gives it: the deck cells, then the other fields."""
    form = layout.form
    assert form is not None
    boxes: dict[str, Box] = {}
    seen: set[tuple[str, str, int]] = set()
    for name, (role, kind, row) in form.cells.items():
        if (role, kind, row) in seen:
            continue
        seen.add((role, kind, row))
        c = layout.table(kind).cells
        assert c is not None
        x0, x1 = c.count_x if role == "count" else c.name_x
        top = c.tops[row - 1]
        boxes[name] = (x0, top, x1, top + c.height)
    boxes.update(form.boxes)
    return {k: (x0 + dx, t + dy, x1 + dx, b + dy) for k, (x0, t, x1, b) in boxes.items()}


def fields_from_flat_text(layout: Layout, tokens: list[Token]) -> dict[str, str]:
    """Assign each page word to the form box holding its centre (form text itself is outside)."""
    dx, dy = anchor_shift(tokens, layout.anchor) if layout.anchor else (0.0, 0.0)
    return assign_to_boxes(tokens, field_boxes(layout, dx, dy))


def anchor_shift(tokens: list[Token], anchor: tuple[str, float, float]) -> tuple[float, float]:
    """How far the page is shifted from the blank form, found from one printed label."""
    found = [t for t in tokens if _key(t.text) == anchor[0]]
    if not found:
        return 0.0, 0.0
    a = min(found, key=lambda t: t.top)
    dx, dy = a.x0 - anchor[1], a.top - anchor[2]
    if abs(dx) < MIN_SHIFT and abs(dy) < MIN_SHIFT:
        return 0.0, 0.0  # header fonts differ a little between printings; boxes are big
    return dx, dy


def assign_to_boxes(tokens: list[Token], boxes: dict[str, Box]) -> dict[str, str]:
    """Field name → the words whose centre lies in its box, joined in reading order."""
    found: dict[str, list[Token]] = {}
    for t in tokens:
        for name, (x0, top, x1, bottom) in boxes.items():
            if x0 - 1 <= t.cx <= x1 + 1 and top - 1 <= t.cy <= bottom + 1:
                found.setdefault(name, []).append(t)
                break
    return {name: join_words(toks) for name, toks in found.items()}


def line_boxes(layout: Layout, sheet: SheetRead) -> list[Box]:
    """Where each read line sits (its count and name fields together)."""
    return [layout.table(ln.column).line_box(ln.row) for ln in sheet.lines]


def empty_cells(layout: Layout, sheet: SheetRead) -> list[Box]:
    """The form's line cells (count and name) that hold no read line."""
    taken = {(ln.column, ln.row) for ln in sheet.lines}
    return [t.line_box(row) for t in _tables(layout) for row in range(1, t.rows + 1)
            if (t.kind, row) not in taken]


def _key(text: str) -> str:
    """Letters and digits only: the CN form's own font maps spaces to '!'."""
    return re.sub(r"[^0-9a-z]", "", text.casefold())


INK_SCALE = 2.0
"""Pixels per point the page is rendered at to look for ink in its cells."""
INK_LEVEL = 160
"""A pixel darker than this (0-255) is ink."""
INK_PIXELS = 12
"""A cell holds ink with at least this many ink pixels inside its rules (a 6 pt digit has ~40)."""
CELL_INSET = 2.0
"""Points each cell is shrunk by, to stay clear of its own rules."""


def cells_with_ink(layout: Layout, page, tokens: list[Token]) -> int:
    """How many of the form's line cells show ink on the page as pdfium draws it (annotations
    and widgets included): a page whose text gave no line is blank only when this is 0."""
    import numpy as np

    dx, dy = anchor_shift(tokens, layout.anchor) if layout.anchor else (0.0, 0.0)
    gray = np.asarray(page.render(scale=INK_SCALE, grayscale=True, draw_annots=True).to_pil().convert("L"))
    h, w = gray.shape
    inked = 0
    for table in layout.tables:
        for row in range(1, table.rows + 1):
            x0, top, x1, bottom = table.line_box(row)
            c = table.cells
            parts = [c.count_x, c.name_x] if c is not None else [(x0, x1)]
            for a, b in parts:
                px0, px1 = int((a + dx + CELL_INSET) * INK_SCALE), int((b + dx - CELL_INSET) * INK_SCALE)
                py0, py1 = int((top + dy + CELL_INSET) * INK_SCALE), int((bottom + dy - CELL_INSET) * INK_SCALE)
                px0, py0, px1, py1 = max(px0, 0), max(py0, 0), min(px1, w), min(py1, h)
                if px1 > px0 and py1 > py0 and int((gray[py0:py1, px0:px1] < INK_LEVEL).sum()) >= INK_PIXELS:
                    inked += 1
    return inked
