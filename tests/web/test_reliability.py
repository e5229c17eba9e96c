"""Jobs answered 202 survive a killed server and are registered once; SIGTERM requeues."""
from __future__ import annotations

import signal
import threading

from web.station import SAMPLES, start_server, wait_job


def _submit(client, n: int, first_id: int = 2000000000) -> list[tuple[str, str]]:
    data = (SAMPLES / "sheets" / "db-blue-eyes-gothic.pdf").read_bytes()
    jobs = []
    for i in range(n):
        kid = str(first_id + i)
        r = client.post("/api/registrations", files={"file": ("s.pdf", data)}, data={"player": kid})
        assert r.status_code == 202
        jobs.append((r.json()["job"], kid))
    return jobs


def test_a_killed_server_runs_its_jobs_after_restart_and_registers_each_once(event_path, tmp_path):
    srv = start_server(event_path, tmp_path / "nd", workers=1)
    with srv.client() as c:
        jobs = _submit(c, 6)
    srv.stop(signal.SIGKILL)          # mid-queue: some done, some running, some queued
    srv = start_server(event_path, tmp_path / "nd", workers=2)
    try:
        with srv.client() as c:
            for job_id, kid in jobs:
                job = wait_job(c, job_id)
                assert job["state"] == "done" and job["result"]["player"] == kid
            players = {p["player"]: p for p in c.get("/api/players").json()}
        assert all(players[kid]["version"] == 1 for _, kid in jobs)  # never registered twice
    finally:
        srv.stop()


def test_sigterm_finishes_or_requeues_and_closes(event_path, tmp_path):
    srv = start_server(event_path, tmp_path / "nd", workers=1)
    with srv.client() as c:
        jobs = _submit(c, 4, first_id=3000000000)
    code = srv.stop(signal.SIGTERM, timeout=60)
    assert code is not None                      # it exited by itself, within the grace time
    srv = start_server(event_path, tmp_path / "nd", workers=1)
    try:
        with srv.client() as c:
            states = [wait_job(c, j)["state"] for j, _ in jobs]
            versions = {p["player"]: p["version"] for p in c.get("/api/players").json()}
        assert states == ["done"] * 4 and all(versions[k] == 1 for _, k in jobs)
    finally:
        srv.stop()


def test_two_desks_one_player_make_two_versions_in_order(server):
    ydk = (SAMPLES / "decks" / "registered.ydk").read_bytes()
    pdf = (SAMPLES / "sheets" / "db-blue-eyes-gothic.pdf").read_bytes()
    results: dict[str, str] = {}

    def desk(name: str, payload: bytes, fname: str) -> None:
        with server.client() as c:
            r = c.post("/api/registrations", files={"file": (fname, payload)},
                       data={"player": "0412345678"})
            results[name] = r.json()["job"]

    # The slower read (PDF) is uploaded first; it must still be version 1.
    desk("a", pdf, "a.pdf")
    t = threading.Thread(target=desk, args=("b", ydk, "b.ydk"))
    t.start()
    t.join()
    with server.client() as c:
        a, b = wait_job(c, results["a"]), wait_job(c, results["b"])
    assert (a["result"]["version"], b["result"]["version"]) == (1, 2)


def test_registration_of_a_rerun_job_is_found_not_repeated(event_path):
    """The window between 'registration stored' and 'job done': a rerun finds the first."""
    from scanner.web.config import StationConfig
    from scanner.web.reader import ReadOutcome
    from scanner.web.service import StationService
    from scanner.web.uploads import check_upload

    service = StationService(StationConfig(event_path=event_path, key="k" * 16, workers=1))
    data = (SAMPLES / "decks" / "registered.ydk").read_bytes()
    job = service.submit(check_upload(data, "r.ydk"), "0412345678", None, "j")
    from scanner.read import load_decklist
    deck = load_decklist(SAMPLES / "decks" / "registered.ydk", service.db)
    outcome = ReadOutcome(deck_json=deck.to_json(), legal=True)
    with service.station() as st:
        st.mark_running(job.id)
    service.complete(service.job(job.id), outcome)
    with service.station() as st:       # as if killed before 'done' was written
        st.con.execute("UPDATE station_jobs SET state='running' WHERE id=?", (job.id,))
        st.mark_running(job.id)
    service.complete(service.job(job.id), outcome)
    assert [p.version for p in service.players()] == [1]
    assert service.job(job.id).result["version"] == 1


def test_a_read_over_the_time_limit_fails_its_job_and_the_pool_recovers(event_path):
    """No hung worker: a read past `job_timeout_s` fails with a message; the next job runs."""
    from starlette.testclient import TestClient

    from scanner.web.app import build_app
    from scanner.web.config import StationConfig
    from web.station import KEY

    config = StationConfig(event_path=event_path, key=KEY, workers=1, job_timeout_s=0.3)
    with TestClient(build_app(config), headers={"Authorization": f"Bearer {KEY}",
                                                  "X-Judge": "test-judge"}) as c:
        slow = c.post("/api/registrations", data={"player": "0000000001"}, files={
            "file": ("p.jpg", (SAMPLES / "photos" / "photo-01.jpg").read_bytes())}).json()["job"]
        job = wait_job(c, slow)
        assert job["state"] == "failed" and "오래" in job["error"]
        config.job_timeout_s = 120
        quick = c.post("/api/registrations", data={"player": "0000000002"}, files={
            "file": ("d.ydk", (SAMPLES / "decks" / "registered.ydk").read_bytes())}).json()["job"]
        assert wait_job(c, quick)["state"] == "done"
