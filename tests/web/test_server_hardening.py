"""Issue 24 part B, items 5 and 6: read and idle timeouts, a full disk, exports that write
nothing, and one running station per event file."""
from __future__ import annotations

import errno
import socket
import sqlite3
import subprocess
import sys
import time

import pytest

from scanner.event.stores import open_event
from scanner.web.station_store import RUNNING, StationStore
from web.station import KEY, REPO, SAMPLES, Server, child_env, start_server, wait_job


def _serve_with_timeouts(event_path, data_dir, read_timeout_s: float) -> Server:
    code = ("import sys; from scanner.web.config import StationConfig; "
            "from scanner.web.server import serve; "
            f"serve(StationConfig(event_path=sys.argv[1], port=0, key={KEY!r}, workers=1, "
            f"read_timeout_s={read_timeout_s}, idle_timeout_s=1))")
    proc = subprocess.Popen([sys.executable, "-c", code, str(event_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=child_env(data_dir), cwd=REPO)
    line = proc.stdout.readline()
    assert line.startswith("decksheet serve: "), proc.stderr.read()[-2000:]
    sign_in = line.split(": ", 1)[1].strip()
    return Server(proc=proc, url=sign_in.split("/?key=")[0], sign_in=sign_in)


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True
    except (TimeoutError, BlockingIOError):
        return False


def test_idle_and_trickling_connections_are_closed_and_honest_requests_served(event_path, tmp_path):
    srv = _serve_with_timeouts(event_path, tmp_path / "nd", read_timeout_s=1.0)
    host, port = srv.url.split("//")[1].split(":")
    socks = []
    try:
        for n in range(200):
            s = socket.create_connection((host, int(port)), timeout=5)
            if n % 2:  # half of them start a request and never finish its headers
                s.sendall(b"GET /api/players HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline:  # trickle: a byte now and then must not keep them
            for s in socks[1::2]:
                try:
                    s.sendall(b"X")
                except OSError:
                    pass
            time.sleep(0.3)
        for s in socks:
            s.settimeout(3)
        assert sum(_closed(s) for s in socks) == 200
        with srv.client() as c:
            assert c.get("/api/players").status_code == 200
    finally:
        for s in socks:
            s.close()
        srv.stop()


def test_a_body_that_stops_coming_is_a_408_and_records_nothing(event_path, tmp_path):
    srv = _serve_with_timeouts(event_path, tmp_path / "nd", read_timeout_s=1.0)
    host, port = srv.url.split("//")[1].split(":")
    try:
        s = socket.create_connection((host, int(port)), timeout=10)
        s.sendall(b"POST /api/roster HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY.encode()
                  + b"\r\nX-Judge: j\r\nContent-Length: 1000\r\n\r\nplayer,name\n")
        started = time.monotonic()
        answer = s.recv(4096)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert time.monotonic() - started < 5
        s.close()
        with srv.client() as c:
            assert c.get("/api/players").json() == []
    finally:
        srv.stop()


def test_a_full_disk_while_storing_an_upload_is_507_and_nothing_half_written(
        app_client, event_path, monkeypatch):
    import card_db.paths

    def no_space(tmp, target):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(card_db.paths, "replace_durably", no_space)
    r = app_client.post("/api/registrations", data={"player": "0000000001"}, files={
        "file": ("d.ydk", (SAMPLES / "decks" / "registered.ydk").read_bytes())})
    assert r.status_code == 507 and "저장 공간" in r.json()["error"]
    assert not [p for p in event_path.parent.rglob("*") if p.suffix == ".tmp"]
    with StationStore(event_path) as st:
        assert st.jobs(("queued", "running", "done", "failed")) == []


def test_sqlite_full_is_507_too(app_client, tmp_path, monkeypatch):
    con = sqlite3.connect(tmp_path / "tiny.sqlite")
    con.execute("CREATE TABLE t (x BLOB)")
    con.execute("PRAGMA max_page_count = 2")
    with pytest.raises(sqlite3.OperationalError) as full:  # a real SQLITE_FULL
        con.execute("INSERT INTO t VALUES (?)", (b"x" * 100_000,))
    monkeypatch.setattr(StationStore, "add_job", lambda *a, **k: (_ for _ in ()).throw(full.value))
    r = app_client.post("/api/registrations", data={"player": "0000000001"}, files={
        "file": ("d.ydk", (SAMPLES / "decks" / "registered.ydk").read_bytes())})
    assert r.status_code == 507 and "저장 공간" in r.json()["error"]


def test_export_downloads_write_nothing(app_client, event_path):
    job = app_client.post("/api/registrations", data={"player": "0000000001"}, files={
        "file": ("d.ydk", (SAMPLES / "decks" / "registered.ydk").read_bytes())}).json()["job"]
    assert wait_job(app_client, job)["state"] == "done"

    def snapshot():
        with open_event(event_path) as store:
            return len(store.audit_log()), len(store.registrations())

    before = snapshot()
    for what in ("audit.html", "audit.csv", "decklists.csv", "players.csv", "players.xlsx"):
        assert app_client.get(f"/exports/{what}").status_code == 200
    assert snapshot() == before


def test_a_second_station_on_the_same_event_is_refused_and_requeues_nothing(event_path, tmp_path):
    srv = start_server(event_path, tmp_path / "nd", workers=1)
    try:
        with StationStore(event_path) as st:  # a read the first station is running
            with open_event(event_path) as store:
                sha = store.store_file(b"#main\n14558127\n")
            # Written as running in one transaction: the first station's reader never sees it
            # queued (add_job then mark_running left it a moment to take the job and finish it).
            with st.transaction() as con:
                con.execute("INSERT INTO station_jobs (id, seq, state, file_sha256, file_name, "
                            "konami_id, name, judge, created_at, attempts) VALUES "
                            "('held-by-first', 1000, ?, ?, 'x.ydk', '0000000001', NULL, 'j', "
                            "'2026-07-12T00:00:00+00:00', 1)", (RUNNING, sha))
            job = st.job("held-by-first")
        r = subprocess.run([sys.executable, "-c", "from scanner.cli import main; main()", "serve",
                            "--event", str(event_path), "--port", "0", "--key", KEY],
                           capture_output=True, text=True, timeout=60,
                           env=child_env(tmp_path / "nd"), cwd=REPO)
        assert r.returncode == 2 and r.stdout == ""
        last = r.stderr.strip().splitlines()[-1]
        assert "already running" in last and str(srv.proc.pid) in last, r.stderr
        with StationStore(event_path) as st:
            assert st.job(job.id).state == RUNNING
    finally:
        srv.stop()
    again = start_server(event_path, tmp_path / "nd", workers=1)  # the lock went with it
    again.stop()


def test_an_oversized_header_is_refused_and_the_server_lives_on(event_path, tmp_path):
    srv = _serve_with_timeouts(event_path, tmp_path / "nd", read_timeout_s=5.0)
    host, port = srv.url.split("//")[1].split(":")
    try:
        s = socket.create_connection((host, int(port)), timeout=10)
        s.sendall(b"GET /api/players HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 200_000 + b"\r\n\r\n")
        try:
            answer = s.recv(4096)
        except ConnectionResetError:
            answer = b""
        assert answer == b"" or answer.split(b" ")[1].startswith(b"4"), answer[:100]
        s.close()
        with srv.client() as c:
            assert c.get("/api/players").status_code == 200
    finally:
        srv.stop()
