"""Konami's official fillable deck list (`KDE_DeckList.pdf`, 644.21 × 833.68 pt).

Filled in the PDF, or by hand, printed (often "fit to page") and photographed or scanned. One
frame holds every table; rows are `count | name`, the count on the LEFT, 18 rows per main column
and 15 for side (left) and extra (middle), a `<<< TOTAL` row under each. The Genesys variant adds
QTY/PTS columns and is described by the PDF reader's label layout.
"""
from __future__ import annotations

from scanner.layouts.model import Layout, TableSpec

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
