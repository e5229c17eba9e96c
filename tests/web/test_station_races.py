"""Issue 37: races the station refused one at a time but accepted at once — two decisions on
one held sheet, an upload sent twice — and a write while another program holds the event file."""
from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from web.station import SAMPLES, wait_job

YDK = (SAMPLES / "decks" / "legal.ydk").read_bytes()


def _service(client):
    app = client.app
    while not hasattr(app, "state"):
        app = app.app
    return app.state.service


def _post(client, data: bytes, player: str | None, **form):
    return client.post("/api/registrations", files={"file": ("d.ydk", data)},
                       data=dict({"player": player} if player else {}, **form))


def _held_job(client) -> str:
    assert wait_job(client, _post(client, YDK, "1000000001").json()["job"])["state"] == "done"
    held = wait_job(client, _post(client, YDK, "1000000002").json()["job"])
    assert held["state"] == "needs-decision"
    return held["job"]


def _versions(client) -> dict[str, int | None]:
    return {p["player"]: p["version"] for p in client.get("/api/players").json()}


def test_two_decisions_on_one_held_sheet_one_wins_the_other_is_409(app_client, monkeypatch):
    """「그래도 저장」 and 「저장하지 않음」 at once: both were 200, the second judge told
    "not stored" while the sheet was registered."""
    job = _held_job(app_client)
    service = _service(app_client)
    carry_out = service._carry_out

    def slow(*a, **k):  # the first decision is still being carried out when the second comes
        time.sleep(0.5)
        return carry_out(*a, **k)

    monkeypatch.setattr(service, "_carry_out", slow)
    answers: dict[str, tuple[int, dict]] = {}

    def decide(choice: str) -> None:
        r = app_client.post(f"/api/jobs/{job}/decide", json={"choice": choice})
        answers[choice] = (r.status_code, r.json())

    threads = [threading.Thread(target=decide, args=(c,)) for c in ("store", "discard")]
    for t in threads:
        t.start()
        time.sleep(0.1)
    for t in threads:
        t.join(60)
    codes = sorted(code for code, _ in answers.values())
    assert codes == [200, 409], answers
    winner = next(c for c, (code, _) in answers.items() if code == 200)
    final = app_client.get(f"/api/jobs/{job}").json()
    if winner == "store":
        assert final["state"] == "done" and _versions(app_client).get("1000000002") == 1
    else:
        assert final["state"] == "failed" and _versions(app_client).get("1000000002") is None


def test_an_upload_sent_again_is_one_job_and_one_version(app_client):
    """A phone whose connection dropped after the upload sends it again: one version."""
    first = _post(app_client, YDK, "1000000003", upload_key="k-0123456789ab")
    again = _post(app_client, YDK, "1000000003", upload_key="k-0123456789ab")
    assert first.status_code == again.status_code == 202
    assert first.json()["job"] == again.json()["job"]
    assert wait_job(app_client, first.json()["job"])["state"] == "done"
    # after it is done too, and with the key in the header as API clients send it
    third = app_client.post("/api/registrations", files={"file": ("d.ydk", YDK)},
                            data={"player": "1000000003"},
                            headers={"Idempotency-Key": "k-0123456789ab"})
    assert third.json()["job"] == first.json()["job"]
    assert _versions(app_client)["1000000003"] == 1
    # a key that names another file's upload is refused, nothing queued
    other = _post(app_client, (SAMPLES / "decks" / "registered.ydk").read_bytes(), "1000000003",
                  upload_key="k-0123456789ab")
    assert other.status_code == 422
    bad = _post(app_client, YDK, "1000000003", upload_key="<script>")
    assert bad.status_code == 400


def test_without_a_key_the_same_original_for_the_same_player_just_now_is_the_same_job(app_client):
    jobs = []

    def send() -> None:
        jobs.append(_post(app_client, YDK, "1000000004").json()["job"])

    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(set(jobs)) == 1, jobs
    assert wait_job(app_client, jobs[0])["state"] == "done"
    assert _versions(app_client)["1000000004"] == 1
    # another player's upload of the same file is its own job (then a guard asks)
    assert _post(app_client, YDK, "1000000005").json()["job"] != jobs[0]


@pytest.fixture
def quick_client(event_path):
    import warnings

    from starlette.testclient import TestClient

    from scanner.web.app import build_app
    from scanner.web.config import StationConfig
    from web.station import JUDGE, KEY

    config = StationConfig(event_path=event_path, key=KEY, workers=1, busy_timeout_s=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with TestClient(build_app(config), base_url="http://127.0.0.1",
                        headers={"Authorization": f"Bearer {KEY}", "X-Judge": JUDGE}) as client:
            yield client


def test_a_write_while_another_program_holds_the_file_is_a_quick_503(quick_client, event_path):
    """It hung 63 s, then 500."""
    holder = sqlite3.connect(str(event_path), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        r = quick_client.post("/api/roster", content="player,name\n1000000006,김\n".encode(),
                              headers={"content-type": "text/csv"})
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert r.status_code == 503, r.text
    assert "다른 프로그램" in r.json()["error"] and waited < 15
    ok = quick_client.post("/api/roster", content="player,name\n1000000006,김\n".encode(),
                           headers={"content-type": "text/csv"})
    assert ok.status_code == 200
