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
from scanner.layouts.model import FormFields, konami_form, measurements, numbered_cells, three_over_two

_M = measurements(__file__)
"""Rules, field tops and field boxes as measured on the blank form (`latam.toml`)."""
_TABLES = three_over_two(_M)

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
    boxes=_M["field_boxes"],
    id_label="Konami Player ID",
)

LATAM = konami_form(
    _M, _TABLES, FIELDS, name="kde-latam", title="Konami deck list form, Latin-American edition",
    page_words=("cartas", "monstruo", "trampa"),
)
