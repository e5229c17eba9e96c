"""Issue 24 part B, items 1 and 2: every JSON field in its documented type and range, every
refusal a 4xx with one Korean line, nothing recorded from it; a judge named on every action."""
from __future__ import annotations

import json

import pytest

from scanner.event.stores import open_event
from web.station import SAMPLES, wait_job

KID = "1000000002"
DECK_CHECK = {"player": KID, "round": 2, "between_games": False,
              "counts": [{"section": "main", "line": 1, "count": 1}]}


@pytest.fixture
def registered(app_client):
    job = app_client.post("/api/registrations", data={"player": KID}, files={
        "file": ("d.ydk", (SAMPLES / "decks" / "registered.ydk").read_bytes())}).json()["job"]
    assert wait_job(app_client, job)["state"] == "done"
    return app_client


def _records(event_path) -> tuple[int, int, int, int]:
    """(deck checks, infractions, amendments, review decisions) in the event file."""
    with open_event(event_path) as store:
        decisions = sum(len(store.decisions(r.id)) for r in store.registrations())
        return (len(store.deck_checks()), len(store.infractions()), len(store.amendments()),
                decisions)


def _refused(r, status=(400,)) -> None:
    assert r.status_code in status, (r.status_code, r.text[:300])
    if not r.headers["content-type"].startswith("application/json"):  # a page: its error page
        assert "<h1" in r.text or "<main" in r.text
        return
    message = r.json()["error"]
    assert message and "\n" not in message and any("\uac00" <= ch <= "\ud7a3" for ch in message)


@pytest.mark.parametrize("change", [
    {"confirm": "false"}, {"confirm": 0}, {"confirm": "no"}, {"between_games": "false"},
    {"between_games": 1}, {"round": True}, {"round": 2.9}, {"round": 2.0}, {"round": [1]},
    {"round": {}}, {"round": "2"}, {"round": 100}, {"round": -1}, {"round": 2 ** 64},
    {"counts": [{"section": "main", "line": 1, "count": 2.9}]},
    {"counts": [{"section": "main", "line": 1, "count": True}]},
    {"counts": [{"section": "main", "line": 1, "count": 61}]},
    {"counts": [{"section": "mian", "line": 1, "count": 1}]},
    {"counts": {"main": 1}}, {"extra": [{"section": "main", "card_id": [1], "count": 1}]},
    {"player": 1000000002}, {"confrim": True},
])
def test_deck_check_fields_of_the_wrong_type_are_refused_and_record_nothing(
        registered, event_path, change):
    body = dict(DECK_CHECK, confirm=True, **{k: v for k, v in change.items() if k != "confirm"})
    if "confirm" in change:
        body["confirm"] = change["confirm"]
    _refused(registered.post("/api/deckchecks", json=body))
    assert _records(event_path) == (0, 0, 0, 0)


@pytest.mark.parametrize("raw", [
    b'{"player": "1000000002", "round": 1e400}',
    b'{"player": "1000000002", "round": NaN}',
    b'{"player": "1000000002", "round": 1' + b"0" * 5000 + b"}",
    b"[" * 200_000,
    b'{"player": ' + b"[" * 200_000 + b"]" * 200_000 + b"}",
    b'{"player": "\xff\xfe"}',
    b"[1]",
])
def test_hostile_json_bodies_are_400_not_5xx(registered, event_path, raw):
    for url in ("/api/deckchecks", f"/api/players/{KID}/review", "/api/infractions/1/void"):
        _refused(registered.post(url, content=raw), (400, 413))
    assert _records(event_path) == (0, 0, 0, 0)


def test_a_string_false_no_longer_records_a_game_loss_and_true_does(registered, event_path):
    r = registered.post("/api/deckchecks", json=dict(DECK_CHECK, confirm=False))
    assert r.status_code == 200 and r.json()["recorded"] is False
    assert registered.post("/api/deckchecks", json=dict(DECK_CHECK, between_games=False,
                                                        confirm=True)).json()["recorded"]
    assert _records(event_path)[:2] == (1, 1)


def test_review_and_void_values_are_checked(registered, event_path):
    for body in ({"version": 2 ** 64, "decisions": []}, {"version": 0, "decisions": []},
                 {"version": "1", "decisions": []}, {"version": True, "decisions": []},
                 {"version": 1, "decisions": [{"section": "main", "line": 1,
                                               "action": "choose", "card_id": 1e400}]},
                 {"version": 1, "decisions": [{"flag": "0", "action": "keep"}]},
                 {"version": 1, "decisions": "all"}):
        _refused(registered.post(f"/api/players/{KID}/review", content=json.dumps(body)
                                 .replace("Infinity", "1e400")))
    registered.post("/api/deckchecks", json=dict(DECK_CHECK, confirm=True))
    inf = registered.get("/api/infractions").json()[0]["id"]
    for body in ({"reason": ["x"]}, {"reason": "x", "new_penalty": [1]}, {"reason": 5},
                 {"reason": "x" * 301}):
        _refused(registered.post(f"/api/infractions/{inf}/void", json=body))
    assert registered.post(f"/api/infractions/{2 ** 64}/void",
                           json={"reason": "x"}).status_code == 404
    assert _records(event_path) == (1, 1, 0, 0)


def test_version_paths_past_64_bits_or_zero_are_404_and_zero_confirms_nothing(
        registered, event_path):
    for v in ("0", str(2 ** 64), "9" * 400):
        assert registered.get(f"/players/{KID}/v/{v}").status_code == 404
        r = registered.post(f"/players/{KID}/v/{v}/review", data={"confirm_checkin": "1"})
        assert r.status_code == 404
    with open_event(event_path) as store:
        assert not [a for a in store.audit_log() if a[2] == "checkin-confirmed"]
    r = registered.post(f"/players/{KID}/v/1/review", data={"confirm_checkin": "1"},
                        follow_redirects=False)
    assert r.status_code == 303


@pytest.mark.parametrize("field", ["act-x", "act-main", "act-main-x", "act-flag-", "act--1"])
def test_a_forged_review_form_field_is_a_400(registered, event_path, field):
    _refused(registered.post(f"/players/{KID}/v/1/review", data={field: "keep"}))
    assert _records(event_path) == (0, 0, 0, 0)


def test_every_recorded_action_needs_a_judge(registered, event_path):
    no_judge = {"X-Judge": ""}
    _refused(registered.post("/api/registrations", headers=no_judge, data={"player": KID},
                             files={"file": ("d.ydk", (SAMPLES / "decks" / "registered.ydk")
                                             .read_bytes())}))
    _refused(registered.post("/api/deckchecks", headers=no_judge,
                             json=dict(DECK_CHECK, confirm=True)))
    _refused(registered.post(f"/api/players/{KID}/review", headers=no_judge,
                             json={"version": 1, "decisions": [
                                 {"section": "main", "line": 1, "action": "keep"}]}))
    _refused(registered.post(f"/players/{KID}/v/1/review", headers=no_judge,
                             data={"act-main-1": "keep"}))
    _refused(registered.post(f"/players/{KID}/v/1/review", headers=no_judge,
                             data={"confirm_checkin": "1"}))
    r = registered.post(f"/deckcheck/{KID}", headers=no_judge, follow_redirects=False,
                        data={"round": "2", "n-main-1": "1", "do": "confirm"})
    assert r.status_code == 303 and r.headers["location"].startswith("/judge")  # name first
    # A header of invisible characters only is no name either.
    _refused(registered.post("/api/deckchecks", headers={"X-Judge": "%E2%80%8B%00"},
                             json=dict(DECK_CHECK, confirm=True)))
    assert _records(event_path) == (0, 0, 0, 0)
    registered.post("/api/deckchecks", json=dict(DECK_CHECK, confirm=True))
    inf = registered.get("/api/infractions").json()[0]
    assert inf["judge"] == "test-judge"
    _refused(registered.post(f"/api/infractions/{inf['id']}/void", headers=no_judge,
                             json={"reason": "재확인"}))
    _refused(registered.post(f"/infractions/{inf['id']}/void", headers=no_judge,
                             data={"reason": "재확인"}))
    assert _records(event_path) == (1, 1, 0, 0)
    with open_event(event_path) as store:
        assert len(store.registrations()) == 1


def test_a_judge_name_of_invisible_characters_is_asked_again(app_client):
    from web.station import KEY

    app_client.headers.pop("Authorization")
    app_client.get(f"/?key={KEY}")
    token = app_client.get("/judge").text.split('name="csrf" value="')[1].split('"')[0]
    r = app_client.post("/judge", data={"name": "\u200b\u202e\x00", "csrf": token, "next": "/"},
                        follow_redirects=False)
    assert r.status_code == 400 and "ds_judge" not in r.headers.get("set-cookie", "")
    r = app_client.post("/judge", data={"name": " 박\u200b저지 ", "csrf": token, "next": "/"},
                        follow_redirects=False)
    assert r.status_code == 303 and "박저지" in app_client.get("/").text


def test_judge_header_in_raw_utf8_or_percent_encoded_is_the_same_name(registered):
    for header in ("%EC%9D%B4%EC%A0%80%EC%A7%80", "이저지".encode()):  # bytes: sent raw
        r = registered.post("/api/deckchecks", headers={"X-Judge": header},
                            json=dict(DECK_CHECK, confirm=True))
        assert r.status_code == 200 and r.json()["recorded"]
    assert {i["judge"] for i in registered.get("/api/infractions").json()} == {"이저지"}


def test_a_json_body_past_256_kb_is_413_before_parsing(registered, event_path):
    body = json.dumps(dict(DECK_CHECK, confirm=True, pad="x" * 300_000)).encode()
    r = registered.post("/api/deckchecks", content=body)
    assert r.status_code == 413 and "KB" in r.json()["error"]
    assert _records(event_path) == (0, 0, 0, 0)


@pytest.mark.parametrize("fields", [
    {"round": "1_0"}, {"round": "+2"}, {"round": "٣"}, {"round": "1e3"}, {"round": "100"},
    {"round": "2", "n-main-1": "1_0"}, {"round": "2", "n-main-1": "61"},
    {"round": "2", "extra_card": "1_4558127"}, {"round": "2", "extra_card": "9" * 30},
])
def test_deck_check_page_numbers_are_ascii_digits_in_range(registered, event_path, fields):
    _refused(registered.post(f"/deckcheck/{KID}", data=dict(fields, do="confirm")))
    assert _records(event_path) == (0, 0, 0, 0)


@pytest.mark.parametrize("fields", [
    {"act-main-1": "card:1_4558127"}, {"act-main-1": "card:14558127", "count-main-1": "1_0"},
    {"act-main-1": "other", "card-main-1": "+14558127"}, {"act-main-1": "card:"},
])
def test_review_page_numbers_are_ascii_digits(registered, event_path, fields):
    _refused(registered.post(f"/players/{KID}/v/1/review", data=fields))
    assert _records(event_path) == (0, 0, 0, 0)
