"""Audits as jobs (CONTRACT.md v3, issue 26): `POST /api/audits` answers 202 at once, the audit
runs in the queue (one at a time, sheets re-read in a reader process), `GET /api/jobs/ID` shows
its progress and then the files it wrote, and only those files are served."""
from __future__ import annotations

import csv
import io
import time
from types import SimpleNamespace

import pytest

from web.station import SAMPLES, wait_job

ROSTER = "player,name\n1000000001,김철수\n1000000002,이영희\n"


def _register(client, player: str, deck: str = "registered.ydk") -> None:
    r = client.post("/api/registrations", data={"player": player},
                    files={"file": (deck, (SAMPLES / "decks" / deck).read_bytes())})
    assert r.status_code == 202, r.text
    assert wait_job(client, r.json()["job"])["state"] == "done"


def test_an_audit_job_lists_its_files_and_serves_them(app_client):
    app_client.post("/api/roster", content=ROSTER)
    _register(app_client, "1000000001")
    _register(app_client, "1000000002", "illegal.txt")
    r = app_client.post("/api/audits", json={"formats": ["html", "csv", "xlsx", "csv-ko"]})
    assert r.status_code == 202, r.text
    job_id = r.json()["job"]
    first = app_client.get(f"/api/jobs/{job_id}").json()
    assert first["state"] in ("queued", "running", "done") and "progress" in first
    job = wait_job(app_client, job_id)
    assert job["state"] == "done", job
    assert job["progress"] == {"done": 2, "total": 2}
    files = {f["name"]: f for f in job["result"]["files"]}
    assert set(files) == {"report.html", "report.csv", "report.xlsx", "report-ko.csv"}
    assert job["result"]["audit"]["registrations"] == 2
    media = {"report.html": "text/html", "report.csv": "text/csv", "report-ko.csv": "text/csv",
             "report.xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}
    for name, f in files.items():
        got = app_client.get(f["url"])
        assert got.status_code == 200, (name, got.text)
        assert got.headers["content-type"].startswith(media[name])
        assert len(got.content) == f["size"] > 0
    english = app_client.get(files["report.csv"]["url"]).content.decode("utf-8-sig")
    assert next(csv.reader(io.StringIO(english)))[:3] == ["player", "name", "version"]
    korean = app_client.get(files["report-ko.csv"]["url"]).content.decode("utf-8-sig")
    assert next(csv.reader(io.StringIO(korean)))[:3] == ["코나미 ID", "이름", "버전"]
    from openpyxl import load_workbook
    wb = load_workbook(io.BytesIO(app_client.get(files["report.xlsx"]["url"]).content))
    assert wb.sheetnames[0] == "등록" and wb["등록"]["A1"].value == "코나미 ID"


def test_only_the_files_an_audit_wrote_are_served(app_client):
    _register(app_client, "1000000001")
    job_id = app_client.post("/api/audits", json={"formats": ["csv"]}).json()["job"]
    job = wait_job(app_client, job_id)
    assert [f["name"] for f in job["result"]["files"]] == ["report.csv"]
    for name in ("report.html", "report.xlsx", "..%2F..%2Fevent.sqlite", "%2Fetc%2Fpasswd",
                 "..", "report.csv%00"):
        r = app_client.get(f"/api/audits/{job_id}/files/{name}")
        assert r.status_code == 404, (name, r.status_code)
        assert "error" in r.json()
    for bad in ("../x", "0" * 16, "zz"):
        assert app_client.get(f"/api/audits/{bad}/files/report.csv").status_code == 404


@pytest.mark.parametrize("body", [{"formats": "html"}, {"formats": ["pdf"]}, {"formats": [1]},
                                  {"format": ["html"]}, {"formats": ["html"] * 5}, []])
def test_an_audit_request_is_strict(app_client, body):
    r = app_client.post("/api/audits", json=body)
    assert r.status_code == 400 and r.json()["error"]
    assert not any(k in r.json()["error"] for k in ("Traceback", "Error"))


def test_an_audit_names_its_judge(app_client):
    r = app_client.post("/api/audits", json={}, headers={"X-Judge": ""})
    assert r.status_code == 400 and r.json()["error"]


def test_several_audits_are_queued_and_run_one_at_a_time(app_client, event_path):
    import sqlite3

    _register(app_client, "1000000001")
    ids = [app_client.post("/api/audits", json={}).json()["job"] for _ in range(3)]
    seen_running = 0
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        # One read of every state (three GETs in a row may see the first still running and the
        # second already running: never at the same time, but a machine under load shows it).
        con = sqlite3.connect(f"file:{event_path}?mode=ro", uri=True, timeout=30)
        try:
            by_id = dict(con.execute("SELECT id, state FROM station_audits").fetchall())
        finally:
            con.close()
        snapshot = [by_id[i] for i in ids]
        assert snapshot.count("running") <= 1, snapshot
        states = [app_client.get(f"/api/jobs/{i}").json()["state"] for i in ids]
        seen_running = max(seen_running, snapshot.count("running"))
        if all(s in ("done", "failed") for s in states):
            break
        time.sleep(0.1)
    assert states == ["done"] * 3, states
    # The dashboard still answers while audits run (nothing on the request path).
    assert app_client.get("/api/players").status_code == 200


def test_a_database_event_refuses_audit_jobs_cleanly():
    from scanner.web.service import StationError
    from scanner.web.service.audits import AuditsService

    fake = AuditsService.__new__(AuditsService)  # only its config is looked at
    fake.config = SimpleNamespace(uses_database=True)
    with pytest.raises(StationError) as exc:
        AuditsService.start_audit(fake, ["html"], "판정")
    assert exc.value.status == 501 and "감사" in str(exc.value)
    assert AuditsService.audit_job(fake, "0123456789abcdef") is None


def test_the_old_export_urls_still_answer(app_client):
    _register(app_client, "1000000001")
    for what in ("audit.html", "audit.csv", "players.xlsx"):
        r = app_client.get(f"/exports/{what}")
        assert r.status_code == 200, (what, r.text[:200])
    from openpyxl import load_workbook
    wb = load_workbook(io.BytesIO(app_client.get("/exports/players.xlsx").content))
    assert wb.sheetnames == ["선수", "위반", "확인 결정"]
    assert [c.value for c in wb["선수"][1]][:4] == ["코나미 ID", "이름", "테이블", "버전"]
    assert "상태" in [c.value for c in wb["선수"][1]]
    assert not any(c.value in ("status", "konami_id", "penalty") for ws in wb for c in ws[1])
    players_csv = app_client.get("/exports/players.csv").content.decode("utf-8-sig")
    assert players_csv.startswith("konami_id,name,table")  # tools read the CSV: unchanged


def test_the_audit_page_starts_a_job_without_javascript(app_client):
    from web.station import KEY
    _register(app_client, "1000000001")
    app_client.cookies.set("ds_judge", "tester")
    page = app_client.get("/audits")
    assert page.status_code == 200 and "아직 감사가 없습니다" in page.text
    import re
    token = re.search(r'name="csrf" content="([^"]+)"', page.text).group(1)
    r = app_client.post("/audits", data={"csrf": token, "format": "xlsx"},
                        headers={"Authorization": f"Bearer {KEY}"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/audits/")
    job_id = r.headers["location"].rsplit("/", 1)[1]
    wait_job(app_client, job_id)
    shown = app_client.get(f"/audits/{job_id}").text
    assert "완료" in shown and f"/api/audits/{job_id}/files/report.xlsx" in shown
    assert "감사 엑셀" in shown
    assert app_client.post("/audits", data={"csrf": token, "format": "pdf"}).status_code == 400
    assert app_client.get("/audits/0123456789abcdef").status_code == 404


def test_a_stopping_server_puts_its_running_audit_back_in_the_queue(event_path):
    """SIGTERM while an audit runs: it stops after the sheet in hand (its reader process ends),
    goes back to the queue as not started (no attempt spent), and runs whole at the next start."""
    from scanner.event.flows import register_input
    from scanner.web.audit_queue import AuditQueue
    from scanner.web.config import StationConfig
    from scanner.web.service import StationService

    service = StationService(StationConfig(event_path=event_path, key="k" * 16, workers=1))
    with service.actions() as ctx:
        for kid in ("1000000001", "1000000002"):
            register_input(ctx, str(SAMPLES / "decks" / "registered.ydk"), kid,
                           allow_duplicate=True)
    job = service.start_audit(["csv"], "판정")
    from scanner.web.service import StationError
    with pytest.raises(StationError) as not_yet:  # no file before the audit is done
        service.audit_file(job.id, "report.csv")
    assert not_yet.value.status == 409
    taken = service.take_audit()
    assert taken is not None and taken.id == job.id and taken.state == "running"
    service.run_audit_job(taken, should_stop=lambda: True)
    back = service.audit_job(job.id)
    assert back.state == "queued" and back.attempts == 0 and back.files == []
    again = service.take_audit()
    service.run_audit_job(again)
    done = service.audit_job(job.id)
    assert done.state == "done" and [f["name"] for f in done.files] == ["report.csv"]
    assert done.done == done.total == 2
    with service.station() as st:  # a server killed while it ran: queued again at the start
        queue = AuditQueue(st)
        dead = queue.add(["html"], "판정")
        queue.take()
        assert queue.requeue_running("x") == 1 and queue.get(dead.id).state == "queued"
        queue.take()
        queue.take()
        assert queue.requeue_running("그만") == 0 and queue.get(dead.id).state == "failed"


@pytest.mark.slow
def test_a_real_server_answers_during_an_audit_and_a_sigterm_requeues_it(event_path, tmp_path):
    """A real `serve`: while an audit re-reads photos the station answers at once; SIGTERM
    mid-audit ends the server within its grace (no hang on the audit's reader process); after
    the next start the same job finishes with its files."""
    from web.station import start_server

    server = start_server(event_path, tmp_path / "data", workers=1)
    try:
        with server.client() as c:
            for n, kid in enumerate(("1098765432", "1000000001", "1000000002")):
                data = (SAMPLES / "photos" / "photo-corrected-02.jpg").read_bytes() + bytes(n)
                r = c.post("/api/registrations", data={"player": kid},
                           files={"file": (f"p{n}.jpg", data)})
                assert r.status_code == 202, r.text
                assert wait_job(c, r.json()["job"], timeout=180)["state"] in ("done", "needs-decision")
            job_id = c.post("/api/audits", json={"formats": ["html"]}).json()["job"]
            deadline = time.monotonic() + 60
            while c.get(f"/api/jobs/{job_id}").json()["state"] == "queued":
                assert time.monotonic() < deadline
                time.sleep(0.05)
            started = time.monotonic()
            assert c.get("/api/players").status_code == 200
            assert c.get("/").status_code == 200
            assert time.monotonic() - started < 3  # nothing waits for the audit
            running = c.get(f"/api/jobs/{job_id}").json()
        assert running["state"] in ("running", "done"), running
        t0 = time.monotonic()
        server.stop()
        assert time.monotonic() - t0 < 45
    finally:
        server.stop()
    server = start_server(event_path, tmp_path / "data", workers=1)
    try:
        with server.client() as c:
            job = wait_job(c, job_id, timeout=240)
            assert job["state"] == "done", job
            assert [f["name"] for f in job["result"]["files"]] == ["report.html"]
            assert job["progress"]["done"] == job["progress"]["total"] >= 1
    finally:
        server.stop()
