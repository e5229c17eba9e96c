"""Konami's official fillable deck list (`KDE_DeckList.pdf`, 644.21 × 833.68 pt).

Filled in the PDF (AcroForm fields `Monster 3`, `Monster Card 3 Count`, `Total Side Deck`, …),
flattened (the same values as page text in the field boxes), or by hand, printed (often "fit to
page") and photographed or scanned. One frame holds every table; rows are `count | name`, the
count on the LEFT, 18 rows per main column and 15 for side (left) and extra (middle), a
`<<< TOTAL` row under each. The Genesys variant adds QTY/PTS columns and is read by its labels
(`pdf.layout_dbko`). Rules and field boxes measured on the blank form.
"""
from __future__ import annotations

from scanner.layouts.model import Band, FormFields, Layout, numbered_cells, three_over_two

_X = (37.5, 56.5, 227.0, 246.0, 416.5, 435.5, 606.0)
"""The form's column rules, left to right: count | name per column."""
_MAIN = Band(146.0, 160.5, (474.5 - 160.5) / 18, 18, 493.0,
             (160.9, 178.9, 196.4, 213.0, 230.4, 248.1, 265.4, 283.2, 300.5, 317.8, 335.5, 352.8,
              370.6, 387.9, 404.9, 422.8, 439.7, 457.8), 16.8)
_LOWER = Band(493.0, 507.5, (769.0 - 507.5) / 15, 15, 786.5,
              (508.2, 525.7, 543.0, 560.8, 577.6, 595.4, 612.2, 630.4, 647.7, 665.5, 682.4, 700.5,
               717.0, 735.1, 752.2), 16.8)
"""Rules, field tops and height of the main columns and of the side/extra block (one frame:
the main total row's bottom is the lower titles' top)."""
_COUNT_X = {"monster": (38.7, 56.9), "spell": (227.4, 245.6), "trap": (417.3, 435.5),
            "side": (38.6, 56.8), "extra": (227.9, 246.1)}
_NAME_X = {"monster": (57.2, 226.0), "spell": (246.8, 416.1), "trap": (436.1, 605.4),
           "side": (57.4, 226.7), "extra": (246.8, 416.1)}

_TABLES = three_over_two(_X, _MAIN, _LOWER, ("side", "extra"), _COUNT_X, _NAME_X)

FIELD_BOXES = {  # (x0, top, x1, bottom)
    "First  Middle Names": (105.4, 72.7, 302.2, 93.5), "Last Names": (105.4, 96.8, 302.2, 119.0),
    "CARD GAME ID": (113.4, 123.0, 303.2, 144.3), "Event Date - Month": (350.1, 71.4, 388.1, 94.2),
    "Event Date - Day": (407.0, 71.9, 444.8, 93.1), "Event Date - Year": (464.9, 71.9, 539.3, 93.8),
    "Country of Residency": (408.5, 98.1, 539.0, 119.0), "Event Name": (351.4, 122.5, 539.0, 144.3),
    "Main Deck Total": (550.9, 115.5, 605.0, 144.3),
    "Total Monster Cards": (38.7, 475.4, 56.5, 492.3), "Total Spell Cards": (227.4, 475.4, 246.2, 491.9),
    "Total Trap Cards": (417.3, 475.4, 434.8, 491.9), "Total Side Deck": (38.6, 770.4, 56.6, 785.4),
    "Total Extra Deck": (227.9, 770.4, 245.3, 785.4),
}
"""Every field outside the deck tables (the field names are the form's own; two spaces in
`First  Middle Names`)."""

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
    boxes=FIELD_BOXES,
    id_label="CARD GAME ID",
)

KDE = Layout(
    name="kde", width=644.21, height=833.68, count_side="left", row_numbers=False,
    title="Konami deck list form",
    tables=_TABLES,
    boxes=FIELDS.header_boxes(main_total=(551.0, 120.0, 605.0, 144.0)),  # under its printed label
    page_words=("monster", "spell", "trap", "cards"),
    anchor=("monster", 93.1, 149.2),  # the MONSTER of the MONSTER CARDS title
    form=FIELDS,
    printed_labels=("MONSTER CARDS", "SPELL CARDS", "TRAP CARDS", "SIDE DECK", "EXTRA DECK", "CARD GAME ID",
                    "<<< TOTAL MONSTER CARDS", "<<< TOTAL SPELL CARDS", "<<< TOTAL TRAP CARDS",
                    "<<< TOTAL SIDE DECK", "<<< TOTAL EXTRA DECK"),
)
