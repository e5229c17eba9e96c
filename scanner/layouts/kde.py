"""Konami's official fillable deck list (`KDE_DeckList.pdf`, 644.21 × 833.68 pt).

Filled in the PDF (AcroForm fields `Monster 3`, `Monster Card 3 Count`, `Total Side Deck`, …),
flattened (the same values as page text in the field boxes), or by hand, printed (often "fit to
page") and photographed or scanned. One frame holds every table; rows are `count | name`, the
count on the LEFT, 18 rows per main column and 15 for side (left) and extra (middle), a
`<<< TOTAL` row under each. The Genesys variant adds QTY/PTS columns and is read by its labels
(`pdf.layout_dbko`). Rules and field boxes measured on the blank form.
"""
from __future__ import annotations

from scanner.layouts.model import FormFields, konami_form, measurements, numbered_cells, three_over_two

_M = measurements(__file__)
"""Rules, field tops and field boxes as measured on the blank form (`kde.toml`)."""
_TABLES = three_over_two(_M)

TABLE_TOTALS = {"monster": ("Total Monster Cards",), "spell": ("Total Spell Cards",),
                "trap": ("Total Trap Cards",), "side": ("Total Side Deck",),
                "extra": ("Total Extra Deck",)}
"""The fields that print each table's total (the Latin-American edition names them alike)."""

FIELDS = FormFields(
    recognise=(frozenset({"Monster 1", "Monster Card 1 Count"}), frozenset({"Monster 1", "Monster 1 Count"})),
    cells=numbered_cells({
        "monster": (("Monster {n}",), ("Monster Card {n} Count", "Monster {n} Count")),
        "spell": (("Spell {n}",), ("Spell Card {n} Count", "Spell {n} Count")),
        "trap": (("Trap {n}",), ("Trap Card {n} Count", "Trap {n} Count")),
        "side": (("Side Deck {n}",), ("Side Deck {n} Count",)),
        "extra": (("Extra Deck {n}",), ("Extra Deck {n} Count",)),
    }, _TABLES),
    totals={**TABLE_TOTALS, "main": ("Main Deck Total",)},
    header={"given_name": ("First  Middle Names", "First Middle Names"), "surname": ("Last Names",),
            "konami_id": ("CARD GAME ID",), "event": ("Event Name",)},
    date=(("Event Date - Year",), ("Event Date - Month",), ("Event Date - Day",)),
    boxes=_M["field_boxes"],
    id_label="CARD GAME ID",
)

KDE = konami_form(
    _M, _TABLES, FIELDS, name="kde", title="Konami deck list form",
    page_words=("monster", "spell", "trap", "cards"),
    printed_labels=("MONSTER CARDS", "SPELL CARDS", "TRAP CARDS", "SIDE DECK", "EXTRA DECK", "CARD GAME ID",
                    "<<< TOTAL MONSTER CARDS", "<<< TOTAL SPELL CARDS", "<<< TOTAL TRAP CARDS",
                    "<<< TOTAL SIDE DECK", "<<< TOTAL EXTRA DECK"),
)
