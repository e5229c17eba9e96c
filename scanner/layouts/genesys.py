"""Konami's Genesys deck list (627.7 × 798.7 pt), as printed: the image reader's description.

The current form's frame with every table `QTY | name | PTS`: the name cell ends at the points
column, whose digit (a card's Genesys points, 0 for most) is neither a name nor a count. 18 rows
per main column and 15 for side (left) and extra (middle), a `<<< TOTAL` row under each, the
title rows grey; the Konami ID in ten boxes; the judge box right of the lower tables holds no deck
table. Filled as page text, it is read from its words by `pdf.layout_dbko` (its labels); this
description places it on an image (a scan, a photo, the second reading of its PDF). A table's
`right` is the rule between the name and the points column (the points column is not read).
Rules measured on the form as Konami prints it.
"""
from __future__ import annotations

from scanner.layouts.model import Band, Layout, TableSpec

_TABLES = {  # kind: (QTY's left rule, QTY | name, name | PTS)
    "monster": (35.9, 54.4, 202.6), "spell": (221.1, 239.6, 387.9), "trap": (406.4, 424.9, 573.1),
    "side": (35.9, 54.4, 202.6), "extra": (221.1, 239.6, 387.9),
}
_MAIN = Band(134.25, 148.4, (456.1 - 148.4) / 18, 18, 474.75)
_LOWER = Band(474.75, 489.0, (745.5 - 489.0) / 15, 15, 762.6)
"""Title top (the middle of the doubled rule over it), row 1's top, pitch, rows, the total row's
bottom: the main columns, then the side | extra block (one frame)."""

GENESYS = Layout(
    name="genesys", width=627.73, height=798.75, count_side="left", row_numbers=False,
    title="Konami Genesys deck list",
    tables=tuple(TableSpec(kind, *_TABLES[kind], band.title_top, band.first_row, band.pitch,
                           band.rows, band.total_bottom)
                 for kind, band in (("monster", _MAIN), ("spell", _MAIN), ("trap", _MAIN),
                                    ("side", _LOWER), ("extra", _LOWER))),
    boxes={"main_total": (536.1, 110.0, 563.9, 132.9),  # under its printed label, left of Point Total
           "konami_id": (109.9, 110.6, 295.1, 132.9), "given_name": (100.6, 60.9, 295.1, 82.9),
           "surname": (100.6, 85.6, 295.1, 107.9)},
)
