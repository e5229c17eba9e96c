"""Undo at the desk (issue 26): a registration version is withdrawn through the API or the
player page, in the judge's name, with a reason; the version stays in the record (철회됨), and
the same original can then be registered for the right player. Strict input: a refused request
records nothing."""
from __future__ import annotations

import json

import pytest

from web.station import SAMPLES, wait_job

YDK = (SAMPLES / "decks" / "registered.ydk").read_bytes()


def _upload(client, data: bytes, player: str | None, fname: str = "d.ydk"):
    r = client.post("/api/registrations", files={"file": (fname, data)},
                    data={"player": player} if player else {})
    assert r.status_code == 202, r.text
    return wait_job(client, r.json()["job"])


def _players(client) -> dict[str, dict]:
    return {p["player"]: p for p in client.get("/api/players").json()}


def _records(event_path) -> tuple[int, int]:
    from scanner.event.stores import open_event

    with open_event(str(event_path), readonly=True) as store:
        return len(store.withdrawals()), len(store.audit_log())


def test_withdraw_frees_the_original_for_the_right_player(app_client, event_path):
    assert _upload(app_client, YDK, "1000000001")["state"] == "done"
    url = "/api/players/1000000001/versions/1/withdraw"
    r = app_client.post(url, json={"reason": "다른 선수의 시트"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["player"], body["version"], body["reason"], body["current_version"]) == \
        ("1000000001", 1, "다른 선수의 시트", None)
    assert body["judge"] == "test-judge" and body["time"]
    row = _players(app_client)["1000000001"]
    assert (row["status"], row["version"]) == ("not-registered", None)
    again = app_client.post(url, json={"reason": "또"})
    assert again.status_code == 409 and "이미 철회" in again.json()["error"]
    job = _upload(app_client, YDK, "1000000002")  # no duplicate-original decision now
    assert job["state"] == "done" and job["result"]["player"] == "1000000002"
    page = app_client.get("/players/1000000001").text
    assert "철회됨" in page and "다른 선수의 시트" in page and "test-judge" in page
    page = app_client.get("/players/1000000001/v/1").text
    assert 'id="withdrawn"' in page and "이 버전 철회" not in page
    dash = app_client.get("/").text
    assert 'id="withdrawal-log"' in dash and "다른 선수의 시트" in dash
    assert app_client.get("/api/players/1000000002").json()["withdrawn_versions"] == []
    (logged,) = app_client.get("/api/withdrawals").json()
    assert (logged["player"], logged["version"], logged["reason"], logged["judge"]) == \
        ("1000000001", 1, "다른 선수의 시트", "test-judge")


def test_the_current_version_falls_back_to_the_newest_not_withdrawn(app_client):
    assert _upload(app_client, YDK, "1000000003")["state"] == "done"
    assert _upload(app_client, YDK + b"\n", "1000000003", "e.ydk")["state"] == "done"
    r = app_client.post("/api/players/1000000003/versions/2/withdraw", json={"reason": "잘못"})
    assert r.status_code == 200 and r.json()["current_version"] == 1
    assert _players(app_client)["1000000003"]["version"] == 1
    detail = app_client.get("/api/players/1000000003").json()
    assert (detail["version"], detail["withdrawn_versions"]) == (1, [2])


@pytest.mark.parametrize("path,body,headers,status", [
    ("1000000004/versions/1", {}, {}, 400),                              # no reason
    ("1000000004/versions/1", {"reason": "   "}, {}, 400),               # blank reason
    ("1000000004/versions/1", {"reason": "가" * 201}, {}, 400),           # too long
    ("1000000004/versions/1", {"reason": 5}, {}, 400),                   # not a string
    ("1000000004/versions/1", {"reason": None}, {}, 400),
    ("1000000004/versions/1", {"reason": "x", "judge": "y"}, {}, 400),   # unknown key
    ("1000000004/versions/1", ["x"], {}, 400),
    ("1000000004/versions/1", {"reason": "x"}, {"X-Judge": ""}, 400),    # no judge
    ("1000000004/versions/2", {"reason": "x"}, {}, 404),                 # no such version
    ("1000000004/versions/0", {"reason": "x"}, {}, 404),
    ("1000000004/versions/true", {"reason": "x"}, {}, 404),
    ("1000000004/versions/99999999999999999999", {"reason": "x"}, {}, 404),
    ("9999999999/versions/1", {"reason": "x"}, {}, 404),                 # no such player
    ("abc/versions/1", {"reason": "x"}, {}, 404),
])
def test_strict_input_refusals_record_nothing(app_client, event_path, path, body, headers,
                                              status):
    assert _upload(app_client, YDK, "1000000004")["state"] == "done"
    before = _records(event_path)
    r = app_client.post(f"/api/players/{path}/withdraw", content=json.dumps(body),
                        headers={"Content-Type": "application/json", **headers})
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert list(r.json()) == ["error"] and error and "\n" not in error
    assert any("\uac00" <= ch <= "\ud7a3" for ch in error), error  # one Korean line
    assert _records(event_path) == before
    assert _players(app_client)["1000000004"]["version"] == 1


def test_the_player_page_form_withdraws_with_a_reason(app_client, event_path):
    assert _upload(app_client, YDK, "1000000006")["state"] == "done"
    page = app_client.get("/players/1000000006").text
    assert "이 버전 철회" in page
    token = page.split('name="csrf" value="')[1].split('"')[0]
    r = app_client.post("/players/1000000006/v/1/withdraw", data={"csrf": token, "reason": ""},
                        follow_redirects=False)
    assert r.status_code == 400 and _records(event_path)[0] == 0
    r = app_client.post("/players/1000000006/v/1/withdraw",
                        data={"csrf": token, "reason": "선수가 다른 덱으로 다시 제출"},
                        follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/players/1000000006")
    assert _records(event_path)[0] == 1
    assert _players(app_client)["1000000006"]["status"] == "not-registered"


def test_the_mismatch_button_withdraws_and_returns_to_check_in(app_client, event_path, tmp_path):
    from card_db.cdb import load_card_db
    from scanner.read import load_decklist

    path = tmp_path / "d.ydk"
    path.write_bytes(YDK)
    deck = load_decklist(str(path), load_card_db(None)).to_json()
    deck["player"] = {"name": "김하늘", "konami_id": "0412345678"}
    sheet = json.dumps(deck, ensure_ascii=False).encode()
    app_client.post("/api/roster", content="player,name\n0412345678,김하늘\n1098765432,이서준\n")
    assert _upload(app_client, sheet, "1098765432", "d.json")["state"] == "done"
    page = app_client.get("/players/1098765432/v/1").text
    # another player's ID on the sheet: no plain 「예」, only 「아니오」 or the separate
    # confirmation naming the ID the sheet carries (issue 36)
    assert "예, 이 선수의 시트입니다" not in page and "아니오, 다른 선수의 시트" in page
    assert 'id="confirm-other-id"' in page and "시트의 ID는 0412345678이지만" in page
    token = page.split('name="csrf" value="')[1].split('"')[0]
    r = app_client.post("/players/1098765432/v/1/withdraw", data={"csrf": token, "mismatch": "1"},
                        follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == "/checkin?player=1098765432&withdrawn=1"
    checkin = app_client.get(r.headers["location"]).text
    assert 'id="withdrawn-notice"' in checkin and 'id="owner-checkin"' in checkin
    assert 'name="owner" value="0412345678"' in checkin
    from scanner.event.stores import open_event
    with open_event(str(event_path), readonly=True) as store:
        (w,) = store.withdrawals()
        assert (w.konami_id, w.version, w.reason, w.judge) == \
            ("1098765432", 1, "다른 선수의 시트", "test-judge")
    job = _upload(app_client, sheet, "0412345678", "d.json")
    assert job["state"] == "done" and job["result"]["player"] == "0412345678"


def test_nothing_more_is_recorded_on_a_withdrawn_version(app_client, event_path):
    assert _upload(app_client, YDK, "1000000010")["state"] == "done"
    assert app_client.post("/api/players/1000000010/versions/1/withdraw",
                           json={"reason": "잘못 올림"}).status_code == 200
    before = _records(event_path)
    r = app_client.post("/api/players/1000000010/review",
                        json={"version": 1, "decisions": []})
    assert r.status_code == 409 and "철회" in r.json()["error"]
    page = app_client.get("/judge").text
    token = page.split('name="csrf" value="')[1].split('"')[0]
    r = app_client.post("/players/1000000010/v/1/review",
                        data={"csrf": token, "confirm_checkin": "1"}, follow_redirects=False)
    assert r.status_code == 409
    assert _records(event_path) == before
