"""Issue 24 part B, item 7: the station's JSON APIs and roster import under generated hostile
input. Whatever arrives: never a 5xx, every refusal `{"error": one line}`, and nothing in the
event file changes from a refused request."""
from __future__ import annotations

import json
import sqlite3
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from web.station import JUDGE, KEY, SAMPLES, make_event, wait_job

KID = "1000000002"
FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2 ** 70), max_value=2 ** 70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30)
    | st.sampled_from(["main", "extra", "side", "keep", "choose", "skip", "restore", "true",
                       "false", "1", "WARNING", KID, "", "\u200b", "\x00"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                max_size=4),
    max_leaves=12)

VALID = {
    "/api/deckchecks": {"player": KID, "round": 1, "between_games": False, "confirm": False,
                        "counts": [{"section": "main", "line": 1, "count": 1}], "extra": []},
    f"/api/players/{KID}/review": {"version": 1, "decisions": [
        {"section": "main", "line": 1, "action": "keep"}]},
    "/api/infractions/1/void": {"reason": "재확인", "new_penalty": "WARNING"},
}


@pytest.fixture(scope="module")
def station(tmp_path_factory):
    from starlette.testclient import TestClient

    from scanner.web.app import build_app
    from scanner.web.config import StationConfig

    tmp = tmp_path_factory.mktemp("fuzz")
    with pytest.MonkeyPatch.context() as mp:
        for var in ("DECKSHEET_CARD_DB", "DECKSHEET_ALIASES", "DECKSHEET_LFLIST",
                    "DECKSHEET_LIST", "DECKSHEET_EVENT", "DECKSHEET_JUDGE"):
            mp.delenv(var, raising=False)
        mp.setenv("DECKSHEET_DATA_DIR", str(tmp / "no-fetched-data"))
        event = make_event(tmp / "event.sqlite")
        config = StationConfig(event_path=event, key=KEY, workers=1)
        with TestClient(build_app(config), base_url="http://127.0.0.1",
                        headers={"Authorization": f"Bearer {KEY}", "X-Judge": JUDGE}) as client:
            job = client.post("/api/registrations", data={"player": KID}, files={
                "file": ("d.ydk", (SAMPLES / "decks" / "registered.ydk").read_bytes())})
            assert wait_job(client, job.json()["job"])["state"] == "done"
            yield client, event


def records(event) -> dict[str, int]:
    """Rows per table of the event file (event and station tables alike)."""
    con = sqlite3.connect(event)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        con.close()


def roster(event) -> list[tuple]:
    con = sqlite3.connect(event)
    try:
        return con.execute("SELECT konami_id, name, table_no FROM station_roster "
                           "ORDER BY konami_id").fetchall()
    finally:
        con.close()


def check_answer(r, before: dict, after: dict) -> None:
    assert r.status_code < 500, (r.status_code, r.text[:300])
    if r.status_code >= 400:
        error = r.json()["error"]
        assert isinstance(error, str) and error and "\n" not in error
        assert after == before, "a refused request changed the event file"


def _send(client, url: str, body: bytes, judge: str | None = None):
    headers = {"Content-Type": "application/json"}
    if judge is not None:
        headers["X-Judge"] = judge
    return client.post(url, content=body, headers=headers)


@FUZZ
@given(url=st.sampled_from(sorted(VALID)), value=json_values)
def test_any_json_value_as_a_body(station, url, value):
    client, event = station
    before = records(event)
    r = _send(client, url, json.dumps(value).encode())
    check_answer(r, before, records(event))


@FUZZ
@given(url=st.sampled_from(sorted(VALID)), data=st.data())
def test_valid_bodies_with_one_field_changed_or_added(station, url, data):
    client, event = station
    body = json.loads(json.dumps(VALID[url]))
    key = data.draw(st.sampled_from(sorted(body) + ["extra_key", "confrim"]))
    target = body
    if isinstance(body.get(key), list) and body[key] and data.draw(st.booleans()):
        target, key = body[key][0], data.draw(st.sampled_from(sorted(body[key][0]) + ["x"]))
    target[key] = data.draw(json_values)
    if url == "/api/deckchecks":  # a confirmed check records: only the refusals matter here
        body["confirm"] = body.get("confirm") if body.get("confirm") is not True else False
    before = records(event)
    r = _send(client, url, json.dumps(body).encode())
    check_answer(r, before, records(event))
    if r.status_code == 200 and url == "/api/deckchecks":
        assert r.json()["recorded"] is False


@FUZZ
@given(url=st.sampled_from(sorted(VALID)), raw=st.binary(max_size=300)
       | st.sampled_from([b"[" * 200_000, b"{" * 50_000, b'{"round": 1e400}', b"\xff{}",
                          b'{"player": "' + b"\\u0000" * 1000 + b'"}', b"1" * 5000]))
def test_raw_bytes_as_a_body(station, url, raw):
    client, event = station
    before = records(event)
    check_answer(_send(client, url, raw), before, records(event))


@FUZZ
@given(judge=st.text(max_size=60), confirm=st.booleans())
def test_any_judge_header_records_only_with_a_real_name(station, judge, confirm):
    client, event = station
    body = dict(VALID["/api/deckchecks"], confirm=False)
    before = records(event)
    r = _send(client, "/api/deckchecks", json.dumps(body).encode(), judge=quote(judge))
    check_answer(r, before, records(event))


csv_cells = st.text(max_size=20) | st.sampled_from(
    ["0412345678", "１２３４５６７８９０", "김하늘", "김\u200b하늘", "\u202e김하늘", "x" * 2000,
     '"', '"\n"', "\r", "\x00", "=HYPERLINK(1)", "코나미 ID", "이름"])


@FUZZ
@given(header=st.sampled_from(["player,name", "player,name,table", "코나미 ID,이름,테이블",
                               "\ufeffplayer,name", "name", ""]) | st.text(max_size=30),
       rows=st.lists(st.lists(csv_cells, min_size=1, max_size=4), max_size=6),
       newline=st.sampled_from(["\n", "\r\n", "\r"]),
       codec=st.sampled_from(["utf-8", "utf-8-sig", "cp949", "utf-16"]))
def test_roster_import(station, header, rows, newline, codec):
    client, event = station
    text = newline.join([header] + [",".join(r) for r in rows]) + newline
    try:
        body = text.encode(codec)
    except UnicodeEncodeError:
        body = text.encode("utf-8", "surrogatepass")
    before, names = records(event), roster(event)
    r = client.post("/api/roster", content=body)
    assert r.status_code in (200, 400, 413, 415), (r.status_code, r.text[:300])
    if r.status_code != 200:
        assert "\n" not in r.json()["error"] and roster(event) == names
        assert records(event) == before
        return
    for kid, name, table in roster(event):  # whatever was stored is clean
        assert kid.isascii() and name and name == name.strip()
        assert not any(ch in name for ch in "\x00\u200b\u202e\ufeff\r\n")


@FUZZ
@given(raw=st.binary(max_size=400))
def test_roster_raw_bytes(station, raw):
    client, event = station
    before, names = records(event), roster(event)
    r = client.post("/api/roster", content=raw)
    assert r.status_code in (200, 400, 413, 415), (r.status_code, r.text[:300])
    if r.status_code != 200:
        assert records(event) == before and roster(event) == names


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(player=st.text(max_size=40), name=st.text(max_size=120) | st.just("㈜" * 40))
def test_upload_fields(station, player, name):
    client, event = station
    before = records(event)
    r = client.post("/api/registrations", data={"player": player, "name": name}, files={
        "file": ("x.txt", b"not a sheet at all")})
    assert r.status_code < 500, (r.status_code, r.text[:300])
    if r.status_code == 202:
        assert wait_job(client, r.json()["job"])["state"] in ("done", "failed")
    else:
        assert "\n" not in r.json()["error"]
        assert records(event) == before


form_values = st.text(max_size=30) | st.sampled_from(
    ["keep", "choose", "skip", "restore", "other", "card:14558127", "card:x", "card:" + "9" * 30,
     "1", "0", "-1", "3", "99999999999999999999999", "1e400", "main", "flag", "between-games",
     "confirm", "WARNING", "\x00", "\u200b"])
form_keys = st.text(max_size=20) | st.sampled_from(
    ["act-main-1", "act-flag-0", "act-x", "act-main-99999", "card-main-1", "count-main-1",
     "confirm_checkin", "n-main-1", "round", "mode", "do", "extra_card", "extra_count",
     "extra_section", "reason", "new_penalty", "action", "player", "name", "table", "csv", "next"])

PAGES = [f"/players/{KID}/v/1/review", f"/deckcheck/{KID}", "/roster", "/infractions/1/void",
         "/judge"]


@FUZZ
@given(url=st.sampled_from(PAGES), fields=st.dictionaries(form_keys, form_values, max_size=6))
def test_page_forms(station, url, fields):
    client, event = station
    if url.startswith("/deckcheck") and fields.get("do") == "confirm":
        fields["do"] = "preview"  # a confirmed check records: only the refusals matter here
    before = records(event)
    r = client.post(url, data=fields, follow_redirects=False)
    assert r.status_code < 500, (r.status_code, r.text[:300])
    if r.status_code >= 400:
        assert records(event) == before, "a refused form changed the event file"


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.binary(max_size=2000) | st.sampled_from([
    b"%PDF-1.4\n" + b"\x00" * 100, b"\x89PNG\r\n\x1a\n" + b"\xff" * 64, b"\xff\xd8\xff\xe0" + b"0" * 64,
    b"PK\x03\x04" + b"\x00" * 64, b"GIF89a" + b"\xff" * 20, b"#main\n" + b"9" * 5000]),
       filename=st.text(max_size=40) | st.sampled_from(["a.pdf", "../../x.ydk", "a.jpg", ""]))
def test_upload_any_bytes(station, data, filename):
    client, event = station
    before = records(event)
    r = client.post("/api/registrations", data={"player": "0000000009"},
                    files={"file": (filename, data)})
    assert r.status_code in (202, 400, 413, 415, 422), (r.status_code, r.text[:300])
    if r.status_code == 202:  # its read ends (the next example's snapshot must not race it)
        assert wait_job(client, r.json()["job"])["state"] in ("done", "failed")
    else:
        assert "\n" not in r.json()["error"] and records(event) == before
