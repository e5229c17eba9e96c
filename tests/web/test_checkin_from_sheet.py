"""Check-in from the sheet (issue 26): an upload with no player typed and `ask_player=1` (the
desk flow) waits for the judge's tap on whose sheet it is. The sheet's ID read with confidence
and on the roster is the one-tap `match`; an ID not on the roster gives roster candidates (by
the sheet's name, an ID a digit off) and no match; nothing is stored before the tap, and the
tap is recorded as the check-in confirmation. Without `ask_player` the contract's rule holds."""
from __future__ import annotations

from web.station import SAMPLES, wait_job

SHEET = SAMPLES / "sheets" / "db-blue-eyes-gothic.pdf"  # 김하늘 · 0412345678 printed


def _roster(client, csv: str) -> None:
    r = client.post("/api/roster", content=csv.encode(), headers={"Content-Type": "text/csv"})
    assert r.status_code == 200, r.text


def _desk_upload(client) -> str:
    r = client.post("/api/registrations", files={"file": (SHEET.name, SHEET.read_bytes())},
                    data={"ask_player": "1"})
    assert r.status_code == 202, r.text
    return r.json()["job"]


def _held(client, job: str) -> dict:
    state = wait_job(client, job)
    assert state["state"] == "needs-decision", state
    return state


def test_the_sheet_id_on_the_roster_is_one_tap(app_client):
    _roster(app_client, "player,name\n0412345678,김하늘\n1098765432,이서준\n")
    held = _held(app_client, _desk_upload(app_client))
    assert held["decision"] == "player"
    assert held["match"]["player"] == "0412345678" and held["match"]["name"] == "김하늘"
    assert held["sheet"] == {"konami_id": "0412345678", "name": "김하늘", "id_sure": True,
                             "addable": False}
    assert {p["player"]: p["version"] for p in app_client.get("/api/players").json()} == {
        "0412345678": None, "1098765432": None}  # nothing stored before the tap
    done = app_client.post(f"/api/jobs/{held['job']}/decide",
                           json={"choice": "store", "player": "0412345678"}).json()
    assert done["state"] == "done" and done["result"]["player"] == "0412345678", done
    assert done["result"]["player_source"] == "confirmed"
    page = app_client.get("/players/0412345678")
    assert "선수 확인됨" in page.text


def test_an_id_not_on_the_roster_offers_candidates_never_a_guess(app_client):
    _roster(app_client, "player,name\n0412345679,김하늘\n0412345000,박지우\n2000000000,최민서\n")
    held = _held(app_client, _desk_upload(app_client))
    assert held["match"] is None
    cands = [(c["player"], c["why"]) for c in held["candidates"]]
    assert cands[0] == ("0412345679", "name") and ("2000000000", "id-near") not in cands
    # Storing needs the judge to name the player.
    refused = app_client.post(f"/api/jobs/{held['job']}/decide", json={"choice": "store"})
    assert refused.status_code == 422 and "선수" in refused.json()["error"]
    assert app_client.get(f"/api/jobs/{held['job']}").json()["state"] == "needs-decision"
    # Not the sheet's own ID: stored only once the judge typed the player's table or the last
    # digits of their ID (issue 35, identity).
    unsure = app_client.post(f"/api/jobs/{held['job']}/decide",
                             json={"choice": "store", "player": "0412345679"})
    assert unsure.status_code == 422 and "끝 4자리" in unsure.json()["error"]
    done = app_client.post(f"/api/jobs/{held['job']}/decide",
                           json={"choice": "store", "player": "0412345679",
                                 "confirm": "5679"}).json()
    assert done["state"] == "done" and done["result"]["player"] == "0412345679"
    assert done["result"]["warnings"] and "0412345678" in done["result"]["warnings"][0]


def test_discard_stores_nothing_and_a_bad_flag_is_refused(app_client):
    _roster(app_client, "player,name\n0412345678,김하늘\n")
    held = _held(app_client, _desk_upload(app_client))
    gone = app_client.post(f"/api/jobs/{held['job']}/decide", json={"choice": "discard"}).json()
    assert gone["state"] == "failed"
    assert app_client.get("/api/players").json()[0]["version"] is None
    r = app_client.post("/api/registrations", files={"file": (SHEET.name, SHEET.read_bytes())},
                        data={"ask_player": "yes"})
    assert r.status_code == 400 and "ask_player" in r.json()["error"]


def test_without_the_flag_the_contract_rule_holds(app_client):
    _roster(app_client, "player,name\n0412345678,김하늘\n")
    r = app_client.post("/api/registrations", files={"file": (SHEET.name, SHEET.read_bytes())})
    done = wait_job(app_client, r.json()["job"])
    assert done["state"] == "done" and done["result"]["player"] == "0412345678"


def test_a_held_sheet_is_stored_only_on_a_player_shown_for_it(app_client, event_path):
    """Issue 37: `decide` stored a held sheet on any 10-digit ID. Now only on a player the
    judge was shown (the sheet's own ID on the roster, a roster candidate or search result
    confirmed by table or ID digits, or the sheet's player added from it), checked again
    inside the registration's write transaction; a refusal stores nothing."""
    import scanner.web.service.checkin as checkin
    from scanner.event.stores import open_event

    _roster(app_client, "player,name,table\n0412345679,김하늘,7\n")
    held = _held(app_client, _desk_upload(app_client))
    job = held["job"]
    for body in ({"choice": "store", "player": "1234567890"},           # never shown
                 {"choice": "store", "player": "0412345679", "confirm": "9"},  # wrong table
                 {"choice": "store", "player": "0412345679", "confirm": "1234"}):  # digits
        r = app_client.post(f"/api/jobs/{job}/decide", json=body)
        assert r.status_code == 422, (body, r.text)
    assert app_client.get(f"/api/jobs/{job}").json()["state"] == "needs-decision"
    # The check runs again under the write lock: a roster that no longer shows the player
    # by then (here the second check sees another roster) refuses, and nothing is stored.
    calls = []
    real = checkin.shown_player

    def once_then_gone(roster, deck, kid, confirm, added=False):
        calls.append(kid)
        return real(roster if len(calls) == 1 else [], deck, kid, confirm, added)

    checkin.shown_player = once_then_gone
    try:
        r = app_client.post(f"/api/jobs/{job}/decide",
                            json={"choice": "store", "player": "0412345679", "confirm": "7"})
    finally:
        checkin.shown_player = real
    assert r.status_code == 422 and len(calls) == 2, r.text
    with open_event(str(event_path), readonly=True) as store:
        assert store.registrations() == []
    done = app_client.post(f"/api/jobs/{job}/decide",
                           json={"choice": "store", "player": "0412345679", "confirm": "7"})
    assert done.json()["state"] == "done" and done.json()["result"]["player"] == "0412345679"


def test_the_sheets_own_player_is_added_from_the_sheet(app_client):
    """Issue 35: a player not on the roster, added from the ID and name read off the sheet in
    one tap; the held sheet goes to them."""
    _roster(app_client, "player,name\n1098765432,이서준\n")
    held = _held(app_client, _desk_upload(app_client))
    assert held["match"] is None and held["sheet"]["addable"] is True
    done = app_client.post(f"/api/jobs/{held['job']}/decide",
                           json={"choice": "store", "add": True}).json()
    assert done["state"] == "done" and done["result"]["player"] == "0412345678"
    row = next(p for p in app_client.get("/api/players").json() if p["player"] == "0412345678")
    assert (row["name"], row["version"]) == ("김하늘", 1)


def test_a_player_added_to_the_roster_later_is_offered_for_a_held_sheet(app_client):
    """Issue 35: the held sheet offered no button after the player was added on 명단."""
    _roster(app_client, "player,name\n1098765432,이서준\n")
    held = _held(app_client, _desk_upload(app_client))
    assert held["match"] is None
    _roster(app_client, "player,name\n0412345678,김하늘\n")
    again = app_client.get(f"/api/jobs/{held['job']}").json()
    assert again["match"]["player"] == "0412345678"


def test_a_second_tap_naming_another_player_is_refused(app_client, event_path):
    """Issue 37: two taps naming two players on one held sheet. The second (here: arriving
    after the first stored it, as a tap racing it does) is told so, 409, nothing more."""
    import scanner.web.service.checkin as checkin
    from scanner.event.stores import open_event

    _roster(app_client, "player,name,table\n0412345678,김하늘,1\n0412345679,김하늘,2\n")
    held = _held(app_client, _desk_upload(app_client))
    job = held["job"]
    from scanner.web.stations import open_station
    with open_station(event_path) as st:
        waiting = st.job(job)  # the job as the second request saw it: still waiting
    first = app_client.post(f"/api/jobs/{job}/decide",
                            json={"choice": "store", "player": "0412345678"})
    assert first.json()["state"] == "done"
    real_job = checkin.CheckinService.job

    def still_held(self, job_id):
        return waiting if job_id == job else real_job(self, job_id)

    with open_event(str(event_path), readonly=True) as store:
        before = len(store.audit_log())
    checkin.CheckinService.job = still_held
    try:
        second = app_client.post(f"/api/jobs/{job}/decide",
                                 json={"choice": "store", "player": "0412345679",
                                       "confirm": "2"})
    finally:
        checkin.CheckinService.job = real_job
    assert second.status_code == 409 and "0412345678" in second.json()["error"], second.text
    with open_event(str(event_path), readonly=True) as store:
        assert [r.konami_id for r in store.registrations()] == ["0412345678"]
        assert len(store.audit_log()) == before
