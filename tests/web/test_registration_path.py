"""One registration path: the station commits through `flows.commit_registration`, the CLI's,
so the CLI's guards hold at the station too; a guard that asks for a decision ends the job in
`needs-decision` (nothing stored) and `POST /api/jobs/ID/decide` settles it. A job whose commit
is refused fails with its reason (it never stays running)."""
from __future__ import annotations

import json

from web.station import SAMPLES, wait_job

YDK = (SAMPLES / "decks" / "registered.ydk").read_bytes()
PASSCODE = next(ln for ln in YDK.decode().splitlines() if ln.strip().isdigit())


def _upload(client, data: bytes, player: str | None, fname: str = "d.ydk", **form):
    r = client.post("/api/registrations", files={"file": (fname, data)},
                    data=dict({"player": player} if player else {}, **form))
    assert r.status_code == 202, r.text
    return wait_job(client, r.json()["job"])


def _players(client) -> dict[str, dict]:
    return {p["player"]: p for p in client.get("/api/players").json()}


def test_one_original_for_a_second_player_waits_for_a_decision(app_client):
    first = _upload(app_client, YDK, "1000000001")
    assert first["state"] == "done"
    second = _upload(app_client, YDK, "1000000002")
    assert second["state"] == "needs-decision" and second["decision"] == "duplicate-original"
    assert "1000000001" in second["detail"] and "--" not in second["detail"]  # no CLI flag
    assert set(_players(app_client)) == {"1000000001"}  # nothing stored while it waits
    job = app_client.post(f"/api/jobs/{second['job']}/decide", json={"choice": "store"}).json()
    assert job["state"] == "done" and job["result"]["player"] == "1000000002"
    assert set(_players(app_client)) == {"1000000001", "1000000002"}
    # Settled once: a second decision is refused.
    again = app_client.post(f"/api/jobs/{second['job']}/decide", json={"choice": "store"})
    assert again.status_code == 409


def test_an_implausible_new_version_is_held_and_can_be_discarded(app_client):
    assert _upload(app_client, YDK, "1000000003")["state"] == "done"
    one_card = f"#main\n{PASSCODE}\n#extra\n!side\n".encode()
    held = _upload(app_client, one_card, "1000000003", "one.ydk")
    assert held["state"] == "needs-decision" and held["decision"] == "implausible-version"
    assert "메인 덱이 1장" in held["detail"] and "--replace" not in held["detail"]
    assert _players(app_client)["1000000003"]["version"] == 1
    bad = app_client.post(f"/api/jobs/{held['job']}/decide", json={"choice": "false"})
    assert bad.status_code in (400, 422) and "store" in bad.json()["error"]
    job = app_client.post(f"/api/jobs/{held['job']}/decide", json={"choice": "discard"}).json()
    assert job["state"] == "failed" and "저장하지 않" in job["error"]
    assert _players(app_client)["1000000003"]["version"] == 1


def test_a_name_that_grows_past_the_limit_fails_its_job_with_a_reason(event_path):
    """The commit refuses a name NFKC grows past 100 characters: `complete` fails the job with
    the Korean reason (it raised inside `complete` and the job stayed running)."""
    from scanner.event.flows import prepare_registration
    from scanner.web.config import StationConfig
    from scanner.web.reader import ReadOutcome
    from scanner.web.service import StationService
    from scanner.web.station_store import StationStore
    from scanner.web.uploads import check_upload

    service = StationService(StationConfig(event_path=event_path, key="k" * 16, workers=1))
    job = service.submit(check_upload(YDK, "d.ydk"), "1000000004", None, "j")
    with StationStore(event_path) as st:   # a name as an older upload form let through
        st.con.execute("UPDATE station_jobs SET name = ? WHERE id = ?", ("㈜" * 40, job.id))
        st.mark_running(job.id)
    prepared = prepare_registration(str(SAMPLES / "decks" / "registered.ydk"), service.db,
                                    service.limits, keep_bytes=False)
    service.complete(service.job(job.id), ReadOutcome(prepared=prepared))
    done = service.job(job.id)
    assert done.state == "failed" and "100자" in done.error, done
    assert service.players() == []
    with StationStore(event_path) as st:
        assert st.requeue_running() == 0 and st.job(job.id).state == "failed"


def test_a_150_character_name_on_the_sheet_is_cut_not_fatal(app_client, tmp_path):
    from card_db.cdb import load_card_db
    from scanner.read import load_decklist

    path = tmp_path / "d.ydk"
    path.write_bytes(YDK)
    deck = load_decklist(str(path), load_card_db(None)).to_json()
    deck["player"] = {"name": "가" * 150, "konami_id": None}
    job = _upload(app_client, json.dumps(deck, ensure_ascii=False).encode(), "1000000005",
                  "d.json")
    assert job["state"] == "done", job
    assert _players(app_client)["1000000005"]["name"] == "가" * 100


def test_event_errors_reach_the_station_in_korean_without_cli_flags(app_client):
    """A refusal of the event layer (voiding an infraction already void) reaches the judge
    rendered by its code in Korean (not the library's English, naming no CLI flag)."""
    assert _upload(app_client, YDK, "1000000009")["state"] == "done"
    check = app_client.post("/api/deckchecks", json={
        "player": "1000000009", "round": 1, "between_games": False, "confirm": True,
        "counts": [{"section": "main", "line": 1, "count": 0}]}, headers={"X-Judge": "judge-a"})
    assert check.status_code == 200 and check.json()["recorded"], check.text
    (inf,) = app_client.get("/api/infractions").json()
    first = app_client.post(f"/api/infractions/{inf['id']}/void", json={"reason": "잘못 기록"},
                            headers={"X-Judge": "judge-a"})
    assert first.status_code == 200, first.text
    again = app_client.post(f"/api/infractions/{inf['id']}/void", json={"reason": "또"},
                            headers={"X-Judge": "judge-a"})
    assert again.status_code == 409  # the record moved on: a conflict, as HTTP says
    text = again.json()["error"]
    assert "이미 취소" in text and "--" not in text and "already" not in text, text
