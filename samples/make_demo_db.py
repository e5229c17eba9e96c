"""Build the shipped DEMO card database and limit list from samples/demo_cards.csv.

    python samples/make_demo_db.py

Writes card_db/data/demo.cdb (ygopro `cards.cdb` schema: `datas` + `texts`) and
card_db/data/demo-lflist.conf (one `!2026.7` list with the real statuses of the demo cards).
The CSV is small and hand-picked: the cards of the sample decks and sheets, the event's five
extra bans, a few forbidden/limited cards and alternate artworks for demonstrations.
"""
from __future__ import annotations

import csv
import os
import sqlite3
from pathlib import Path

HERE = Path(__file__).resolve().parent
CSV_PATH = HERE / "demo_cards.csv"
DATA = HERE.parent / "card_db" / "data"
LIST_NAME = "2026.7"

DATAS = ("CREATE TABLE datas(id integer primary key, ot integer, alias integer, setcode integer, "
         "type integer, atk integer, def integer, level integer, race integer, attribute integer, "
         "category integer)")
TEXTS = ("CREATE TABLE texts(id integer primary key, name text, desc text, "
         + ", ".join(f"str{i} text" for i in range(1, 17)) + ")")


def read_cards(path: Path = CSV_PATH) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return [{"id": int(r["passcode"]), "name": r["name"].strip(), "type": int(r["type"], 0),
                 "ot": int(r["ot"]), "alias": int(r["alias"] or 0),
                 "limit": int(r["limit_2026_7"]) if r.get("limit_2026_7", "").strip() else None}
                for r in csv.DictReader(f)]


def write_cdb(cards: list[dict], out: Path) -> None:
    tmp = out.with_name(out.name + ".tmp")
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp)
    try:
        con.execute(DATAS)
        con.execute(TEXTS)
        con.executemany("INSERT INTO datas VALUES (?, ?, ?, 0, ?, 0, 0, 0, 0, 0, 0)",
                        [(c["id"], c["ot"], c["alias"], c["type"]) for c in cards])
        con.executemany("INSERT INTO texts (id, name, desc) VALUES (?, ?, '')",
                        [(c["id"], c["name"]) for c in cards])
        con.commit()
    finally:
        con.close()
    os.replace(tmp, out)  # never leave half a database behind


def write_lflist(cards: list[dict], out: Path) -> None:
    lines = ["#[2026.7 demo]", f"!{LIST_NAME}"]
    for title, status in (("#forbidden", 0), ("#limit", 1), ("#semi limit", 2)):
        lines.append(title)
        lines += [f"{c['id']} {status} --{c['name']}" for c in cards
                  if c["limit"] == status and not c["alias"]]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    cards = read_cards()
    DATA.mkdir(parents=True, exist_ok=True)
    write_cdb(cards, DATA / "demo.cdb")
    write_lflist(cards, DATA / "demo-lflist.conf")
    print(f"wrote {DATA / 'demo.cdb'} ({len(cards)} rows) and {DATA / 'demo-lflist.conf'}")


if __name__ == "__main__":
    main()
