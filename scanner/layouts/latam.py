"""Konami's Latin-American fillable deck list (`KDE_DeckList_LatAm.pdf`, US Letter 612 × 792 pt).

Spanish labels with English beneath (`Cartas Monstruo (Monster Cards)`); 18 rows per main
column and 15 for Side Deck (LEFT) and Extra Deck (middle), the count box LEFT of the name; a
`<<< Total` row under each table, its count cell grey; the judge box right of the lower tables
is no deck table; the Konami ID in ten one-digit boxes (one field), the date as DD / MM / YYYY.
The main and lower tables are two frames (a gap between them, unlike the current form). Fields
`Card Monster N` / `Number Monster N`, `Card SD N`, `Card ED N`, …; title rows are grey. Rules
and field boxes measured on the blank form.
"""
from __future__ import annotations

from scanner.layouts.kde import TABLE_TOTALS
from scanner.layouts.model import Band, FormFields, Layout, numbered_cells, three_over_two

_X = (18.5, 37.5, 208.1, 227.0, 397.8, 416.7, 587.4)
"""The form's column rules, left to right: count | name per column."""
_MAIN = Band(129.0, 146.5, (459.7 - 146.5) / 18, 18, 477.0,
             tuple(round(147.5 + 17.4 * i, 1) for i in range(18)), 15.7)
_LOWER = Band(482.8, 500.3, (761.3 - 500.3) / 15, 15, 778.8,
              tuple(round(501.4 + 17.4 * i, 1) for i in range(15)), 15.7)
"""Rules, field tops (evenly spaced on this form) and height of the main columns and of the
side/extra frame (a frame of its own, 5.8 pt under the main one)."""
_COUNT_X = {"monster": (20.0, 36.5), "spell": (209.8, 226.1), "trap": (399.4, 415.7),
            "side": (20.0, 36.0), "extra": (209.6, 226.1)}
_NAME_X = {"monster": (38.5, 206.6), "spell": (228.3, 396.0), "trap": (419.0, 586.8),
           "side": (39.0, 206.6), "extra": (228.1, 396.4)}

_TABLES = three_over_two(_X, _MAIN, _LOWER, ("side", "extra"), _COUNT_X, _NAME_X)

FIELD_BOXES = {
    "First Name": (86.0, 45.5, 282.8, 66.2), "Last.Names": (86.0, 73.7, 282.8, 94.6),
    "KONAMI ID": (94.4, 101.4, 283.9, 122.8), "Date DD": (331.7, 45.5, 369.1, 66.2),
    "Date MM": (388.6, 45.4, 425.9, 66.2), "Date YYYY": (444.7, 45.4, 520.7, 66.2),
    "Country of Residence": (389.5, 73.7, 520.0, 94.6), "Event": (332.6, 102.0, 520.0, 122.8),
    "Last.Initial": (531.8, 58.8, 586.2, 82.9), "Total Main Deck": (531.8, 97.9, 586.2, 122.8),
    "Total Monster Cards": (20.0, 461.3, 36.0, 476.2), "Total Spell Cards": (209.6, 461.3, 225.6, 476.2),
    "Total Trap Cards": (399.4, 461.3, 415.3, 476.2), "Total Side Deck": (20.0, 762.8, 36.0, 777.7),
    "Total Extra Deck": (209.6, 762.8, 225.6, 777.7),
}
"""Every field outside the deck tables, by full name (`Last.Names` is the family-name box and
`Last.Initial` the last initial judges use: two kids of one field `Last`)."""

FIELDS = FormFields(
    recognise=(frozenset({"Card Monster 1", "Number Monster 1"}),),
    cells=numbered_cells({
        "monster": (("Card Monster {n}",), ("Number Monster {n}",)),
        "spell": (("Card Spell {n}",), ("Number Spell {n}",)),
        "trap": (("Card Trap {n}",), ("Number Trap {n}",)),
        "side": (("Card SD {n}",), ("Number SD {n}",)),
        "extra": (("Card ED {n}",), ("Number ED {n}",)),
    }, _TABLES),
    totals={**TABLE_TOTALS, "main": ("Total Main Deck",)},
    header={"given_name": ("First Name",), "surname": ("Last.Names", "Names"), "konami_id": ("KONAMI ID",),
            "event": ("Event",)},
    date=(("Date YYYY",), ("Date MM",), ("Date DD",)),
    boxes=FIELD_BOXES,
    id_label="Konami Player ID",
)

LATAM = Layout(
    name="kde-latam", width=612.0, height=792.0, count_side="left", row_numbers=False,
    title="Konami deck list form, Latin-American edition",
    tables=_TABLES,
    # the main total under its printed label; the ten ID digits' boxes as printed (the field
    # lies a little inside them)
    boxes=FIELDS.header_boxes(main_total=(531.8, 101.0, 586.2, 122.8),
                              konami_id=(94.1, 100.7, 283.9, 122.8)),
    page_words=("cartas", "monstruo", "trampa"),
    anchor=("monstruo", 75.3, 133.2),  # the Monstruo of `Cartas Monstruo (Monster Cards)`
    form=FIELDS,
)
