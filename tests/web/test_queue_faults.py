"""Issue 37: the reading queue and the station under faults — a failed write, a database that is
down, a reader that dies beside other reads — and storage faults answered 507/503 in Korean."""
from __future__ import annotations

import errno
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest

from scanner.errors import EventError
from scanner.web.faults import storage_fault
from web.station import SAMPLES, spawned_readers, wait_job


def _upload(client, path: Path, player: str) -> str:
    with open(path, "rb") as f:
        r = client.post("/api/registrations", files={"file": (path.name, f)},
                        data={"player": player})
    assert r.status_code == 202, r.text
    return r.json()["job"]


def _versions(client, player: str) -> int:
    rows = [p for p in client.get("/api/players").json() if p["player"] == player]
    return rows[0]["version"] if rows and rows[0]["version"] else 0


def _service(app_client):
    """The station service and its reading queue behind the test client's middleware."""
    app = app_client.app
    while not hasattr(app, "state"):
        app = app.app
    return app.state.service, app.state.runner


@contextmanager
def _fails_first(obj, method: str, times: int, exc: BaseException) -> Iterator[list]:
    """`obj.method` raises `exc` on its first `times` calls, then works as before; yields every
    call's arguments (the station's fault as the queue meets it, then the fault passing)."""
    original = getattr(obj, method)
    calls: list = []

    def flaky(*args, **kwargs):
        calls.append(args)
        if len(calls) <= times:
            raise exc
        return original(*args, **kwargs)

    setattr(obj, method, flaky)
    try:
        yield calls
    finally:
        setattr(obj, method, original)


# --- classification ------------------------------------------------------------------------------

@pytest.mark.parametrize("exc, status", [
    (OSError(errno.ENOSPC, "No space left on device"), 507),
    (OSError(errno.EROFS, "Read-only file system"), 503),
    (sqlite3.OperationalError("database is locked"), 503),
    (EventError("event.read-only", path="x"), 503),
    (ValueError("a bug"), None),
    (EventError("event.no-player", who="x"), None),
])
def test_storage_faults_are_told_apart_from_the_requests_own_errors(exc, status):
    fault = storage_fault(exc)
    assert (fault.status if fault else None) == status
    wrapped = RuntimeError("while registering")
    wrapped.__cause__ = exc
    assert (storage_fault(wrapped).status if storage_fault(wrapped) else None) == status


@pytest.mark.parametrize("exc, status", [
    (OSError(errno.ENOSPC, "No space left on device"), 507),
    (sqlite3.OperationalError("database is locked"), 503),
    (EventError("event.read-only", path="/x"), 503),
])
def test_a_storage_fault_is_one_korean_line_with_its_status_every_time(app_client, exc, status):
    service, _ = _service(app_client)

    def refuse(*a, **k):
        raise exc

    original = service.import_roster
    service.import_roster = refuse
    try:
        answers = {(r.status_code, r.json()["error"]) for r in (
            app_client.post("/api/roster", content=b"player,name\n1000000001,A\n",
                            headers={"content-type": "text/csv"}) for _ in range(3))}
    finally:
        service.import_roster = original
    assert len(answers) == 1, answers
    code, text = answers.pop()
    assert code == status and "\n" not in text and any("가" <= ch <= "힣" for ch in text)


# --- the dispatcher ----------------------------------------------------------------------------------

def test_the_dispatcher_outlives_a_full_disk_and_registers_the_read_once(app_client):
    service, runner = _service(app_client)
    with _fails_first(service, "complete", 3, OSError(errno.ENOSPC, "No space left on device")) as calls:
        job = _upload(app_client, SAMPLES / "decks" / "legal.ydk", "1000000001")
        deadline = time.monotonic() + 60
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert runner.state.fault == "OSError"  # the dashboard says why reads wait
        assert "queue-fault" in app_client.get("/").text
        assert wait_job(app_client, job)["state"] == "done"
    deadline = time.monotonic() + 10
    while runner.state.fault is not None and time.monotonic() < deadline:
        time.sleep(0.1)  # the loop's next round clears it
    assert runner._thread.is_alive() and runner.state.fault is None
    assert _versions(app_client, "1000000001") == 1  # registered once
    # and the station reads on: a second upload is registered as version 2
    assert wait_job(app_client, _upload(app_client, SAMPLES / "decks" / "registered.ydk",
                                        "1000000001"))["state"] == "done"
    assert _versions(app_client, "1000000001") == 2


@pytest.mark.parametrize("fault", [OSError(errno.ENOSPC, "No space left on device"),
                                   sqlite3.OperationalError("database is locked")])
def test_a_fault_while_a_read_starts_leaves_its_job_queued_not_running_for_good(app_client, fault):
    """What a read needs from the disk and the record (its original's path, its crops folder)
    failing as the job is taken: the job waits in the queue and is read when the fault passes
    (before, it was marked running first and stayed so, in no reader's hands: the fault load
    test's job that never ended)."""
    service, runner = _service(app_client)
    with _fails_first(service, "original_path", 3, fault) as calls:
        job = _upload(app_client, SAMPLES / "decks" / "legal.ydk", "1000000003")
        assert wait_job(app_client, job)["state"] == "done"
    assert len(calls) > 3 and runner._thread.is_alive()  # three faults, then the read
    assert _versions(app_client, "1000000003") == 1


def test_the_dispatcher_outlives_any_exception(app_client):
    service, runner = _service(app_client)
    with _fails_first(service, "pending_jobs", 2, RuntimeError("a bug in the queue")) as calls:
        job = _upload(app_client, SAMPLES / "decks" / "legal.ydk", "1000000002")
        assert wait_job(app_client, job)["state"] == "done"
    assert len(calls) > 2 and runner._thread.is_alive()


@pytest.mark.slow
def test_a_reader_killed_beside_other_reads_fails_no_honest_job(event_path, clean_env):
    """Two reader deaths of any cause failed every job in flight with 「파일이 너무 크거나 손상됨」:
    now reads that were not alone when their reader died are read again, each alone."""
    import warnings

    from starlette.testclient import TestClient

    from scanner.web.app import build_app
    from scanner.web.config import StationConfig
    from web.station import JUDGE, KEY

    config = StationConfig(event_path=event_path, key=KEY, workers=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        client = TestClient(build_app(config), base_url="http://127.0.0.1",
                            headers={"Authorization": f"Bearer {KEY}", "X-Judge": JUDGE})
    with client:
        photos = sorted((SAMPLES / "photos").glob("photo-0*.jpg"))[:2]
        jobs = [_upload(client, p, f"100000001{n}") for n, p in enumerate(photos)]
        kills, deadline = 0, time.monotonic() + 600
        while time.monotonic() < deadline:
            states = [client.get(f"/api/jobs/{j}").json()["state"] for j in jobs]
            if all(s in ("done", "failed") for s in states):
                break
            if states == ["running", "running"] and kills < 2:
                time.sleep(0.3)
                readers = spawned_readers(os.getpid())
                if readers:
                    os.kill(readers[0], signal.SIGKILL)
                    kills += 1
                    time.sleep(1)
            time.sleep(0.1)
        results = [client.get(f"/api/jobs/{j}").json() for j in jobs]
    assert kills >= 1
    assert [r["state"] for r in results] == ["done", "done"], results


# --- the lease readers (PostgreSQL) ------------------------------------------------------------------

class _FakeQueue:
    def __init__(self, renew_fails: int) -> None:
        self.renew_fails, self.renewed, self.closed = renew_fails, 0, 0

    def renew(self, job_id, worker, lease_s):
        if self.renew_fails:
            self.renew_fails -= 1
            raise ConnectionError("the database is restarting")
        self.renewed += 1
        return True

    def put_crops(self, sha, crops):
        pass

    def requeue(self, job_id):
        pass

    def close(self):
        self.closed += 1


class _SlowFuture(Future):
    """A read that takes `slices` waits, then ends with `outcome`."""

    def __init__(self, slices: int, outcome) -> None:
        super().__init__()
        self.slices, self.outcome = slices, outcome

    def result(self, timeout=None):
        if self.slices:
            self.slices -= 1
            raise FutureTimeout
        return self.outcome


def test_a_lease_reader_outlives_a_database_down_at_a_renewal(monkeypatch, tmp_path):
    from scanner.web import lease_jobs
    from scanner.web.reader import ReadOutcome

    completed = []
    service = SimpleNamespace(
        config=SimpleNamespace(job_timeout_s=600, shutdown_grace_s=5,
                               event_path="postgresql://x@localhost/db?event=e"),
        crops_dir=lambda sha: tmp_path / sha, original_path=lambda job: tmp_path / "f",
        preview_file=lambda job: None,
        complete=lambda job, outcome: completed.append(job.id), db=None, limits=None)
    runner = lease_jobs.LeaseRunner(service, 1, lease_s=0.0)  # renew at every slice
    opened = []

    def reopen(path):
        opened.append(path)
        if len(opened) == 1:
            raise ConnectionError("still down")
        return _FakeQueue(renew_fails=0)

    monkeypatch.setattr(lease_jobs, "open_station", reopen)
    pool = SimpleNamespace(submit=lambda *a: _SlowFuture(6, ReadOutcome(error="x")))
    job = SimpleNamespace(id="j1", file_sha256="abc", file_name="f.jpg")
    monkeypatch.setattr(lease_jobs, "WAIT_SLICE_S", 0.0)
    pool_after, queue = runner._run(job, "w", pool, _FakeQueue(renew_fails=1))
    assert completed == ["j1"] and queue is not None and len(opened) >= 2

    # and an exception out of a read never ends the reader thread
    calls = []

    def run_once(*a):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("anything")
        runner._stopping.set()
        return pool, None

    monkeypatch.setattr(runner, "_run", run_once)
    monkeypatch.setattr(runner, "_new_pool", lambda: pool)
    monkeypatch.setattr(lease_jobs, "_kill", lambda p: None)
    monkeypatch.setattr(lease_jobs, "open_station",
                        lambda path: SimpleNamespace(claim=lambda w, s: job, close=lambda: None))
    runner.lease_s = 60
    t = threading.Thread(target=runner._reader, args=("w",), daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive() and len(calls) == 2  # went on after the exception, then stopped
