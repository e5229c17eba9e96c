"""Issue 36: the dashboard, the player page, `event status` and the audit show one effective
record — the sheet's identity (confirmed, carrying another player's ID with or without the
judge's confirmation), withdrawn versions, voided deck checks, voided infractions and one
amended back from the command line — computed once (`scanner.event.effective`). Built through
the station's own API (and the CLI for the amendment), on SQLite and on a real PostgreSQL."""
from __future__ import annotations

import datetime as dt
import json
import re
import warnings
from html import unescape

import pytest

from web.station import JUDGE, KEY, SAMPLES, make_event, wait_job

YDK = SAMPLES / "decks" / "registered.ydk"
ASH = 14558127  # 2 copies in the main of registered.ydk
STATES = {
    "1000000001": "confirmed",            # the sheet's own ID, confirmed by a judge
    "1000000002": "other-id",             # carries another player's ID, not decided yet
    "1000000003": "other-id-confirmed",   # carries another ID, confirmed as this player's
    "1000000004": "withdrawn",            # every version withdrawn: not registered
    "1000000005": "voided",               # a deck check's game loss voided
    "1000000006": "amended-back",         # voided at the station, amended back by the CLI
    "1000000007": "check-voided",         # a recorded deck check (no infraction) voided
}


def _sheet(sheet_id: str) -> bytes:
    from card_db.cdb import load_card_db
    from scanner.read import load_decklist

    deck = load_decklist(str(YDK), load_card_db(None)).to_json()
    deck["player"] = {"name": "시트 이름", "konami_id": sheet_id}
    return json.dumps(deck, ensure_ascii=False).encode()


def _client(event: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from starlette.testclient import TestClient
    from scanner.web.app import build_app
    from scanner.web.config import StationConfig

    return TestClient(build_app(StationConfig(event_path=event, key=KEY, workers=1)),
                      base_url="http://127.0.0.1",
                      headers={"Authorization": f"Bearer {KEY}", "X-Judge": JUDGE})


def _csrf(client) -> str:
    return client.get("/judge").text.split('name="csrf" value="')[1].split('"')[0]


def _register(client, kid: str, sheet_id: str) -> None:
    r = client.post("/api/registrations", files={"file": (f"{kid}.json", _sheet(sheet_id))},
                    data={"player": kid})
    assert r.status_code == 202, r.text
    assert wait_job(client, r.json()["job"])["state"] == "done"


def _deck_check(client, kid: str, missing: bool) -> dict:
    body = {"player": kid, "round": 1, "between_games": False,
            "cards": [{"section": "main", "card_id": ASH, "count": 1 if missing else 2}]}
    preview = client.post("/api/deckchecks", json=body).json()
    done = client.post("/api/deckchecks", json=dict(body, confirm=True,
                                                    preview=preview["preview"])).json()
    assert done["recorded"] is True, done
    return done


def _build(client, event: str) -> None:
    from click.testing import CliRunner
    from scanner.cli.common import main

    for kid in STATES:
        _register(client, kid, {"1000000002": "1000000009",
                                "1000000003": "1000000008"}.get(kid, kid))
    token = _csrf(client)
    for kid, other in (("1000000001", None), ("1000000003", "1000000008")):
        r = client.post(f"/players/{kid}/v/1/review", follow_redirects=False,
                        data={"csrf": token, "confirm_checkin": "1", **(
                            {"other_id": other} if other else {})})
        assert r.status_code == 303, r.text
    # the plain 「예」 on a sheet carrying another ID is refused (nothing recorded)
    r = client.post("/players/1000000002/v/1/review", data={"csrf": token,
                                                            "confirm_checkin": "1"})
    assert r.status_code == 409 and "1000000009" in r.text
    assert client.post("/api/players/1000000004/versions/1/withdraw",
                       json={"reason": "잘못 올림"}).status_code == 200
    for kid in ("1000000005", "1000000006"):
        _deck_check(client, kid, missing=True)
    infs = {i["player"]: i for i in client.get("/api/infractions").json()}
    for kid in ("1000000005", "1000000006"):
        r = client.post(f"/api/infractions/{infs[kid]['id']}/void",
                        json={"reason": "카드가 슬리브 뒤에 있었음"})
        assert r.status_code == 200 and r.json()["voided"] is True
    # Amended back from the command line: the penalty stands again.
    out = CliRunner().invoke(main, ["event", "void", str(infs["1000000006"]["id"]),
                                    "--reason", "다시 보니 위반", "--penalty", "GAME_LOSS",
                                    "--event", event, "--judge", "헤드저지"])
    assert out.exit_code == 0, out.output
    check = _deck_check(client, "1000000007", missing=False)
    r = client.post(f"/api/deckchecks/{check['deck_check_id']}/void",
                    json={"reason": "다른 선수의 덱을 봄"})
    assert r.status_code == 200, r.text


def _records(client, event: str) -> dict[str, dict[str, dict]]:
    """Each view's effective record of each player (and its status)."""
    from click.testing import CliRunner
    from scanner.cli.common import main
    from scanner.event.audit import run_audit
    from scanner.event.context import EventContext
    from scanner.event.flows import event_limits
    from scanner.event.stores import open_event
    from card_db.cdb import load_card_db

    views: dict[str, dict[str, dict]] = {"dashboard": {}, "player page": {},
                                         "event status": {}, "audit": {}}
    dash = client.get("/").text
    for m in re.finditer(r'<li data-player="(\d+)" data-record="([^"]*)" data-status="([^"]+)"',
                         dash):
        views["dashboard"][m.group(1)] = dict(json.loads(unescape(m.group(2))),
                                              status=m.group(3))
    players = {p["player"]: p for p in client.get("/api/players").json()}
    for kid in STATES:
        page = client.get(f"/players/{kid}").text
        found = re.search(r'id="identity" data-sheet="[^"]*" data-record="([^"]*)"', page)
        assert found, kid
        views["player page"][kid] = dict(json.loads(unescape(found.group(1))),
                                         status=players[kid]["status"])
        out = CliRunner().invoke(main, ["event", "status", kid, "--event", event, "--json"])
        data = json.loads(out.stdout)
        views["event status"][kid] = dict(data["record"], status=data["status"])
    db = load_card_db(None)
    with open_event(event, readonly=True) as store:
        result = run_audit(EventContext(store, db, event_limits(store.event(), db)), workers=1)
    audit = result.to_json()
    for kid in STATES:
        views["audit"][kid] = dict(audit["records"][kid], status=audit["statuses"][kid])
    return views


def _agree(client, event: str) -> dict[str, dict]:
    _build(client, event)
    views = _records(client, event)
    first = views["audit"]
    for name, view in views.items():
        assert view == {k: first[k] for k in view}, name
    assert set(views["dashboard"]) == set(STATES)
    return first


def _check_states(rec: dict[str, dict]) -> None:
    r = rec
    assert (r["1000000001"]["sheet"], r["1000000001"]["status"]) == ("confirmed", "legal")
    assert (r["1000000002"]["sheet"], r["1000000002"]["sheet_id"]) == ("other-id", "1000000009")
    assert r["1000000003"]["sheet"] == "other-id-confirmed"
    assert r["1000000004"]["version"] is None and r["1000000004"]["withdrawn_versions"] == [1]
    assert r["1000000004"]["status"] == "not-registered"
    (inf5,) = r["1000000005"]["infractions"]
    assert inf5[1:] == ["voided", None]
    (inf6,) = r["1000000006"]["infractions"]
    assert inf6[1:] == ["amended", "GAME_LOSS"]  # in force again everywhere
    (check7,) = r["1000000007"]["deck_checks"]
    assert check7[1] is True


def test_every_view_gives_the_same_effective_record_on_sqlite(tmp_path, clean_env):
    event = str(make_event(tmp_path / "event.sqlite"))
    with _client(event) as client:
        rec = _agree(client, event)
        _check_states(rec)
        # What the dashboard shows matches: the amended-back penalty is in force, not struck.
        dash = client.get("/").text
        item = dash.split(f'data-infraction="')[1:]
        shown = {i.split('"')[0]: i for i in item}
        amended = next(v for v in shown.values() if 'data-status="amended"' in v.split(">")[0])
        assert 'data-penalty-now="GAME_LOSS"' in amended.split(">")[0]
        assert "시트 ID 다름 (1000000009)" in dash and "다른 ID의 시트 (1000000008)" in dash


def test_every_view_gives_the_same_effective_record_on_postgresql(pg_db, clean_env):
    from scanner.event.stores import create_event

    event = pg_db + "?event=records36"
    create_event(event, "테스트 대회", dt.date(2026, 7, 12)).close()
    with _client(event) as client:
        _check_states(_agree(client, event))
