"""Issue 24: a check-in job never stays `running` for ever — a registration that raises fails
its job with a reason, and a job restarted too often fails instead of running at every start."""
from __future__ import annotations

from scanner.event.stores import open_event
from scanner.web.station_store import FAILED, MAX_ATTEMPTS, QUEUED, StationStore
from web.station import SAMPLES, wait_job


def test_a_registration_that_raises_fails_its_job_with_a_reason(app_client, monkeypatch):
    from scanner.web.service import StationService

    def broken(self, job, outcome):
        raise OverflowError("name too long after NFKC")

    monkeypatch.setattr(StationService, "complete", broken)
    r = app_client.post("/api/registrations", data={"player": "0000000001"}, files={
        "file": ("d.ydk", (SAMPLES / "decks" / "registered.ydk").read_bytes())})
    job = wait_job(app_client, r.json()["job"], timeout=60)
    assert job["state"] == "failed" and "OverflowError" in job["error"]
    assert "헤드 저지" in job["error"]


def test_a_job_started_too_often_fails_at_the_next_start(event_path):
    with open_event(event_path) as store:
        sha = store.store_file(b"#main\n14558127\n")
    StationStore(event_path, create=True).close()
    with StationStore(event_path) as st:
        stuck = st.add_job(sha, "x.ydk", "0000000001", None, "j")
        fresh = st.add_job(sha, "y.ydk", "0000000002", None, "j")
        for _ in range(MAX_ATTEMPTS):
            st.mark_running(stuck.id)
        st.mark_running(fresh.id)
        assert st.requeue_running() == 1
        assert st.job(stuck.id).state == FAILED and str(MAX_ATTEMPTS) in st.job(stuck.id).error
        assert st.job(fresh.id).state == QUEUED


def test_a_sheet_name_that_nfkc_grows_past_the_limit_ends_its_job(app_client):
    import json

    deck = {"schema": 1, "player": {"name": "㈜" * 40},
            "sections": {"main": [{"card_id": 14558127, "name": "하루 우라라", "count": 3}],
                         "extra": [], "side": []}}
    r = app_client.post("/api/registrations", data={"player": "0000000001"}, files={
        "file": ("deck.json", json.dumps(deck, ensure_ascii=False).encode())})
    assert r.status_code == 202, r.text
    job = wait_job(app_client, r.json()["job"], timeout=60)
    assert job["state"] in ("done", "failed"), job  # never left running
