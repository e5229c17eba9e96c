"""Konami's current form remade as "craft your list" sheets: the same frame (title bars, totals
rows, judge box), but each deck table is ONE open box with no row rules, holding lines
`3 Shaddoll Beast` typed (~7 pt, ~8.1 pt apart) as multi-line form fields or page text.

Monster, spell and trap boxes side by side on top; side deck (left) and extra deck (right) below,
as on the current form. Its PDFs are read from their text and widgets by the PDF readers; this
description lets the image reader read a picture of one (`ocr.boxed`): the boxes are found by
their rules, their lines by the ink.
"""
from __future__ import annotations

from scanner.layouts.kde import KDE
from scanner.layouts.model import Layout

BOXED_LIST = Layout(
    name="kde-boxed-list", width=KDE.width, height=KDE.height, tables=(), count_side="left",
    row_numbers=False, boxes={}, title="Konami's form remade with one open box per column",
    fill=None, open_boxes=(("monster", "spell", "trap"), ("side", "extra")),
)
