"""Issue 24 part B, item 3: the roster is cleaned like registration names and refused, not
mangled, when it cannot be read as it is."""
from __future__ import annotations

import unicodedata

import pytest


LOOKALIKES = ["김하늘", unicodedata.normalize("NFD", "김하늘"), "김\u200b하늘", "\u202e김하늘\u202c",
              "김하늘\u0000", "김\u2060하늘\u00ad", "\ufeff김하늘"]


def test_names_that_look_alike_are_stored_as_one_text_and_all_found(app_client):
    rows = "".join(f"{1000000010 + n},{name}\n" for n, name in enumerate(LOOKALIKES))
    r = app_client.post("/api/roster", content=("player,name\n" + rows).encode())
    assert r.status_code == 200 and r.json()["imported"] == len(LOOKALIKES)
    players = app_client.get("/api/players").json()
    assert {p["name"] for p in players} == {"김하늘"}
    for query in LOOKALIKES + ["ㄱㅎㄴ", "김ㅎ"]:  # whichever way the judge's phone typed it
        found = app_client.get("/api/players", params={"q": query.replace("\x00", "")}).json()
        assert len(found) == len(LOOKALIKES), query


def test_the_same_player_written_invisibly_twice_is_a_duplicate_not_two_players(app_client):
    body = "player,name\n0412345678,김하늘\n0000000001,이서준\n０４１２-３４５-６７８,김\u200b하늘\n"
    r = app_client.post("/api/roster", content=body.encode())
    assert r.status_code == 400
    assert "0412345678" in r.json()["error"] and "2, 4" in r.json()["error"]
    assert app_client.get("/api/players").json() == []


@pytest.mark.parametrize("body", [
    "코나미 ID,이름,테이블\n0412345678,김하늘,3\n",
    "\ufeff코나미 ID,이름,테이블\r\n0412345678,김하늘,3\r\n",
    "\ufeffplayer,name,table\r0412345678,김하늘,3\r",
    "이름,코나미ID\n김하늘,0412345678\n",
])
def test_korean_header_bom_and_any_line_end(app_client, body):
    r = app_client.post("/api/roster", content=body.encode())
    assert r.status_code == 200, r.text
    assert r.json()["imported"] == 1
    columns = r.json()["columns"]
    assert columns["player"] in ("코나미 ID", "코나미ID", "player") and columns["name"]
    assert [(p["player"], p["name"]) for p in app_client.get("/api/players").json()] == [
        ("0412345678", "김하늘")]


def test_cp949_from_korean_excel_is_read(app_client):
    r = app_client.post("/api/roster", content="코나미 ID,이름\n0412345678,김하늘\n".encode("cp949"))
    assert r.status_code == 200 and r.json()["columns"]["name"] == "이름"


@pytest.mark.parametrize("body,status,fragment", [
    (b"player,name\n0412345678," + b"x" * 128 * 1024 + b"\n", 400, "2번째 줄"),
    (b'player,name\n0412345678,"' + b"x" * 128 * 1024 + b"\n", 400, "줄"),
    (b"player,name\n0412345678,\xff\xfe\xfa\n", 415, "UTF-8"),
    (b"player,name\n0412345678,\x00\x00\n", 400, "이름"),
    (b"player,name\n0412345678,\xe2\x80\x8b\n", 400, "이름"),
    (b"player,name\n0412345678," + "가".encode() * 101 + b"\n", 400, "2번째 줄"),
    (b"player,name,table\n0412345678,a," + b"9" * 21 + b"\n", 400, "2번째 줄"),
    (b"\xef\xbb\xbfname\n", 400, "코나미 ID"),
    (b"", 400, "player,name"),
])
def test_unreadable_rosters_are_4xx_with_one_line_and_store_nothing(app_client, body, status,
                                                                      fragment):
    r = app_client.post("/api/roster", content=body)
    assert r.status_code == status, r.text[:200]
    assert fragment in r.json()["error"] and "\n" not in r.json()["error"]
    assert app_client.get("/api/players").json() == []


def test_the_page_form_refuses_instead_of_replacing_characters(app_client):
    r = app_client.post("/roster", files={"file": ("r.csv", b"player,name\n0412345678,\xff\xfe\xfa\n")})
    assert r.status_code == 415 and "UTF-8" in r.text
    assert app_client.get("/api/players").json() == []


def test_parse_is_all_or_nothing_and_names_the_columns():
    from scanner.web.roster_csv import RosterRefused, parse_roster

    roster = parse_roster("player,이름,table\n0000000001,  이 서준 ,\n".encode())
    assert [(e.konami_id, e.name, e.table_no) for e in roster.entries] == [
        ("0000000001", "이 서준", None)]
    assert roster.columns == {"player": "player", "name": "이름", "table": "table"}
    with pytest.raises(RosterRefused):
        parse_roster(b"player,name\n0000000001,a\nnot-an-id,b\n")
