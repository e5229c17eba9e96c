"""The Simplified-Chinese official deck list (`CN_decklist_template_blank.pdf`, A4).

Bilingual labels; 20 rows per main column, the count box LEFT of the name; Extra Deck (left) and
Side Deck (middle) below with 15 rows each, a `<<< Total` row under each table; the Konami ID in
ten one-digit boxes `ID1`…`ID10`, the date in six (YY MM DD); the judge box right of the lower
tables is no deck table. Title rows are not filled; the total rows' count cells are grey. Its
fields are generic (`fill_2` … `fill_186`), named by the form's own numbering: six a main row
(count, name for monster, spell, trap), four a lower row (extra, side). Rules and field boxes
measured on the blank form.
"""
from __future__ import annotations

from scanner.layouts.model import Band, FormFields, Layout, three_over_two

_X = (22.6, 42.4, 206.7, 226.6, 390.1, 411.1, 574.1)
"""The form's column rules, left to right: count | name per column."""
_MAIN = Band(143.6, 160.1, (451.4 - 160.1) / 20, 20, 466.6,
             (161.0, 175.6, 190.3, 204.7, 219.3, 234.0, 248.4, 263.0, 277.6, 292.3, 306.7, 321.3,
              336.0, 350.4, 365.0, 379.6, 394.1, 408.7, 423.3, 438.0), 13.4)
_LOWER = Band(477.4, 497.4, (721.9 - 497.4) / 15, 15, 737.8,
              (498.2, 512.6, 527.2, 542.8, 558.5, 573.1, 587.5, 603.1, 618.7, 633.3, 647.7, 663.3,
               678.9, 693.6, 708.2), 13.4)
"""Rules, field tops and height of the main columns and of the extra/side tables."""
_COUNT_X = {"monster": (23.9, 41.8), "spell": (207.7, 226.1), "trap": (391.3, 410.4),
            "extra": (23.9, 41.8), "side": (207.4, 226.1)}
_NAME_X = {"monster": (43.1, 205.4), "spell": (227.4, 389.0), "trap": (411.7, 572.9),
           "extra": (43.2, 205.9), "side": (227.4, 389.0)}


def _numbered() -> dict[str, tuple[str, str, int]]:
    """fill_N → (count|name, table, row), by the form's numbering."""
    out: dict[str, tuple[str, str, int]] = {}
    for r in range(1, _MAIN.rows + 1):
        for i, kind in enumerate(("monster", "spell", "trap")):
            n = 2 + 6 * (r - 1) + 2 * i
            out[f"fill_{n}"] = ("count", kind, r)
            out[f"fill_{n + 1}"] = ("name", kind, r)
    for r in range(1, _LOWER.rows + 1):
        for i, kind in enumerate(("extra", "side")):
            n = 125 + 4 * (r - 1) + 2 * i
            out[f"fill_{n}"] = ("count", kind, r)
            out[f"fill_{n + 1}"] = ("name", kind, r)
    return out


_ID_X0 = (121.8, 142.9, 161.8, 182.6, 203.2, 223.2, 244.8, 264.4, 284.4, 304.4)
_ID_TOP, _ID_BOTTOM, _ID_W = 100.7, 126.4, 20.5
_DATE_X0 = (416.9, 435.7, 475.1, 495.3, 533.8, 554.1)
_DATE_TOP, _DATE_BOTTOM, _DATE_W = 101.1, 126.8, 22.4
FIELD_BOXES = {
    "fill_122": (23.9, 452.4, 41.8, 465.9), "fill_123": (207.7, 452.4, 226.1, 465.9),
    "fill_124": (391.3, 452.4, 410.4, 465.9), "fill_185": (23.9, 723.6, 41.8, 737.1),
    "fill_186": (207.4, 723.6, 226.1, 737.1), "Text1": (409.6, 495.9, 466.0, 512.2),
    "Text2": (464.2, 496.8, 521.3, 512.2), "Text3": (520.4, 495.9, 575.1, 511.4),
    "Name": (115.0, 57.9, 323.9, 80.7), "Event Name": (427.0, 57.9, 572.0, 80.7),
    **{f"ID{i + 1}": (x0, _ID_TOP, x0 + _ID_W, _ID_BOTTOM) for i, x0 in enumerate(_ID_X0)},
    **{f"Date{i + 1}": (x0, _DATE_TOP, x0 + _DATE_W, _DATE_BOTTOM) for i, x0 in enumerate(_DATE_X0)},
}
"""Every field outside the deck tables: totals under the tables and in the box right of them
(`Text1` main, `Text2` extra, `Text3` side), the name, the event, ten ID and six date digits."""

FIELDS = FormFields(
    recognise=(frozenset({"ID1", "ID10", "fill_2", "fill_3", "fill_186", "Text1"}),),
    cells=_numbered(),
    totals={"monster": ("fill_122",), "spell": ("fill_123",), "trap": ("fill_124",),
            "extra": ("fill_185", "Text2"), "side": ("fill_186", "Text3"), "main": ("Text1",)},
    header={"name": ("Name",), "event": ("Event Name",),
            "konami_id": tuple(f"ID{i}" for i in range(1, 11))},
    date=(("Date1", "Date2"), ("Date3", "Date4"), ("Date5", "Date6")),
    boxes=FIELD_BOXES,
    id_label="CARD GAME ID",
)

CN = Layout(
    name="kde-cn", width=595.28, height=841.89, count_side="left", row_numbers=False,
    title="Chinese official deck list form",
    tables=three_over_two(_X, _MAIN, _LOWER, ("extra", "side"), _COUNT_X, _NAME_X),
    boxes={"konami_id": (_ID_X0[0], _ID_TOP, _ID_X0[-1] + _ID_W, _ID_BOTTOM),
           "name": FIELD_BOXES["Name"]},
    page_words=("monsters", "spells", "traps", "decklistform"),
    anchor=("monsters", 28.0, 145.0),  # the 'Monsters / ' title
    fill="total-count",
    form=FIELDS,
)
