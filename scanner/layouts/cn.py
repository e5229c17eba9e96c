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

from scanner.layouts.model import FormFields, konami_form, measurements, three_over_two

_M = measurements(__file__)
"""Rules, field tops and field boxes as measured on the blank form (`cn.toml`)."""
_TABLES = three_over_two(_M)
_ROWS = {t.kind: t.rows for t in _TABLES}


def _numbered() -> dict[str, tuple[str, str, int]]:
    """fill_N → (count|name, table, row), by the form's numbering."""
    out: dict[str, tuple[str, str, int]] = {}
    for r in range(1, _ROWS["monster"] + 1):
        for i, kind in enumerate(("monster", "spell", "trap")):
            n = 2 + 6 * (r - 1) + 2 * i
            out[f"fill_{n}"] = ("count", kind, r)
            out[f"fill_{n + 1}"] = ("name", kind, r)
    for r in range(1, _ROWS["extra"] + 1):
        for i, kind in enumerate(("extra", "side")):
            n = 125 + 4 * (r - 1) + 2 * i
            out[f"fill_{n}"] = ("count", kind, r)
            out[f"fill_{n + 1}"] = ("name", kind, r)
    return out


def _digit_boxes() -> dict[str, tuple[float, float, float, float]]:
    """`ID1`…`ID10` and `Date1`…`Date6`: one box a digit."""
    return {f"{field}{i + 1}": (x0, d["top"], x0 + d["width"], d["bottom"])
            for field, d in _M["digit_boxes"].items() for i, x0 in enumerate(d["x0"])}


FIELD_BOXES = {**_M["field_boxes"], **_digit_boxes()}
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

CN = konami_form(
    _M, _TABLES, FIELDS, name="kde-cn", title="Chinese official deck list form",
    boxes={"konami_id": (FIELD_BOXES["ID1"][0], *FIELD_BOXES["ID10"][1:]), "name": FIELD_BOXES["Name"]},
    page_words=("monsters", "spells", "traps", "decklistform"),
    fill="total-count",
)
