"""A Genesys-structured deck list drawn by reportlab: Konami's Genesys structure (not its
artwork) — `QTY | TITLE | PTS` per column, three main columns, side | extra below with titles
only, a judge box right of the extra deck, the Konami ID as spaced big digits, the name labels
over two lines, `<<< TOTAL …` rows.

A column longer than the form is printed on down the page at the same pitch, over its total row,
the next table's title and its rows, as public fillers of the form do (`overflow=True`);
otherwise it is cut at the form's rows. Tests and benchmarks draw other decks with it.
"""
from __future__ import annotations

from pathlib import Path

TITLES = {"monster": "MONSTER CARDS", "spell": "SPELL CARDS", "trap": "TRAP CARDS",
          "side": "SIDE DECK", "extra": "EXTRA DECK"}
XS = {"monster": 37.0, "spell": 222.0, "trap": 407.0, "side": 37.0, "extra": 222.0}
TOPS = {"main": 150.0, "lower": 490.0}
PITCH = 17.0
ROWS = {"main": 18, "lower": 15}


QTY_W, NAME_W, PTS_W = 18.5, 148.2, 18.5
"""The form's column widths (pt): a table is `QTY | name | PTS`, 185.2 pt from one to the next."""
TITLE_H = 14.2
"""Height of a table's grey title row (its rules: the title's top, then one per row)."""


def draw_genesys_rules(c, H: float, low: float = 4.0) -> None:
    """The form's printed structure: every table's column rules, its grey title row, a rule under
    every row and its `<<< TOTAL` row (`low`: pt from a row's text baseline down to its rule —
    Konami's fillers set names low, their descenders reaching the rule)."""
    for col, x in XS.items():
        band = "main" if col in ("monster", "spell", "trap") else "lower"
        top, rows = TOPS[band] + low, ROWS[band]
        title = top - TITLE_H
        bottom = top + PITCH * (rows + 1)
        c.setFillGray(0.75)
        c.rect(x, H - top, QTY_W + NAME_W + PTS_W, TITLE_H, stroke=0, fill=1)
        c.setFillGray(0)
        c.setLineWidth(1.0)
        for k in range(rows + 2):
            c.line(x, H - (top + PITCH * k), x + QTY_W + NAME_W + PTS_W, H - (top + PITCH * k))
        c.line(x, H - title, x + QTY_W + NAME_W + PTS_W, H - title)
        for dx in (0, QTY_W, QTY_W + NAME_W, QTY_W + NAME_W + PTS_W):
            c.line(x + dx, H - title, x + dx, H - bottom)


def draw_genesys_like(path: Path, columns: dict[str, list[tuple[str, int]]], konami_id: str,
                      given: str, surname: str, points: dict[str, int], overflow: bool = False,
                      totals: dict[str, int] | None = None, ruled: bool = False, low: float = 4.0) -> None:
    """`totals`: printed totals that differ from the lines' sums (a filler's mistake); `ruled`:
    with the form's rules (`draw_genesys_rules`; else the text alone, as a filler's overlay)."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    W, H = letter
    c = canvas.Canvas(str(path), pagesize=letter)
    y = lambda top: H - top  # noqa: E731  (top-left coordinates, as the readers use)
    if ruled:
        draw_genesys_rules(c, H, low)
    c.setFont("Helvetica", 7)
    c.drawString(38, y(70), "First & Middle")
    c.drawString(38, y(78), "Name(s):")
    c.drawString(38, y(100), "Last Name(s):")
    c.drawString(300, y(70), "Event")
    c.drawString(300, y(78), "Date:")
    c.drawString(300, y(112), "Event")
    c.drawString(300, y(120), "Name:")
    c.drawString(520, y(70), "Last Name Initial")
    c.drawString(38, y(124), "CARD GAME ID:")
    c.setFont("Helvetica", 11)
    c.drawString(102, y(77), given)
    c.drawString(102, y(100), surname)
    c.drawString(345, y(119), "Store Championship")
    c.setFont("Helvetica", 22)
    for i, d in enumerate(konami_id):
        c.drawString(104 + 18.6 * i, y(128), d)
    pts = QTY_W + NAME_W + 3 if ruled else 165  # (the points column's digit)
    for col, x in XS.items():
        band = "main" if col in ("monster", "spell", "trap") else "lower"
        top, rows = TOPS[band], ROWS[band]
        c.setFont("Helvetica-Bold", 9 if not ruled else 7)
        if band == "main":
            c.drawString(x + (0 if not ruled else 2), y(top), "QTY")
            c.drawString(x + pts - 5 + (0 if not ruled else 3), y(top), "PTS")
        c.drawCentredString(x + 90, y(top), TITLES[col])
        lines = columns.get(col, [])
        for r, (name, n) in enumerate(lines if overflow else lines[:rows]):
            ry = top + PITCH * (r + 1)
            c.setFont("Helvetica", 10)
            c.drawString(x + 3, y(ry), str(n))
            size = 9.0
            while size > 5 and c.stringWidth(name, "Helvetica", size) > 135:
                size -= 0.5  # long names are set smaller, as the form's fillers do
            c.setFont("Helvetica", size)
            c.drawString(x + 25, y(ry), name)
            c.setFont("Helvetica", 8)
            c.drawString(x + pts, y(ry), str(points.get(name, 0)))
        ty = top + PITCH * (rows + 1)
        c.setFont("Helvetica-Bold", 8)
        c.drawString(x + 3, y(ty), str((totals or {}).get(col, sum(n for _, n in lines))))
        c.drawString(x + 25, y(ty), f"<<< TOTAL {TITLES[col]}")
        c.drawString(x + pts, y(ty), "0")
    c.setFont("Helvetica", 6)
    for k, label in enumerate(("Deck List Checked?", "Judge Initials", "Infraction:",
                               "Description:", "Deck Check Round:", "Judge Initials",
                               "Description:")):
        c.drawString(420, y(505 + 16 * k), label)
    c.save()


def overflow_deck(db, en_names: dict[int, str], rng, spells: int,
                  side: int = 0) -> tuple[dict[str, list[tuple[str, int]]], dict[str, dict[str, int]]]:
    """A deck of our own longer than the form in spells: 12 monsters, `spells` spells (the form
    has 18 rows), 5 traps, `side` side-deck traps, no extra deck; its lines by column (English
    names, `en_names`: passcode → name) and its truth (section → passcode → count)."""
    pools: dict[str, list[int]] = {}
    for cid, card in sorted(db.cards.items()):
        name = en_names.get(cid)
        if name and name.isascii() and db.original_id(cid) in (None, cid) and not card.is_extra_deck:
            pools.setdefault(card.kind.value, []).append(cid)
    traps = rng.sample(pools["trap"], 5 + side)
    picks = {"monster": rng.sample(pools["monster"], 12), "spell": rng.sample(pools["spell"], spells),
             "trap": traps[:5], "side": traps[5:]}
    columns = {k: [(en_names[c], rng.randint(1, 3)) for c in v] for k, v in picks.items()}
    columns["extra"] = []
    truth: dict[str, dict[str, int]] = {"main": {}, "extra": {}, "side": {}}
    for k, v in picks.items():
        for c, (_, n) in zip(v, columns[k]):
            truth["side" if k == "side" else "main"][str(c)] = n
    return columns, truth
