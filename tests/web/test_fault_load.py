"""Issue 37, done when: a load test with kills and faults — the event's disk full, the event file
locked by another program, the medium read-only, a reader killed, the database restarted —
ends with every honest upload registered exactly once and the station reading again without a
restart. Desks retry what the station answers 503/507 (or a dropped connection) with the same
upload key, as the check-in page does."""
from __future__ import annotations

import contextlib
import datetime as dt
import os
import signal
import sqlite3
import subprocess
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from web.station import JUDGE, KEY, SAMPLES, make_event, spawned_readers, start_server

LEGAL = (SAMPLES / "decks" / "legal.ydk").read_bytes()
RETRY_S = 120


def _sheet(n: int) -> bytes:
    """An honest decklist, its own original (a comment line makes each file distinct)."""
    return LEGAL + f"\n# upload {n}\n".encode()


def _send(url: str, data: bytes, player: str, deadline: float) -> str:
    """Upload until the station takes it (202), retrying faults with the same key."""
    key = uuid.uuid4().hex
    headers = {"Authorization": f"Bearer {KEY}", "X-Judge": JUDGE}
    last = None
    while True:
        try:
            r = httpx.post(url + "/api/registrations", headers=headers, timeout=30,
                           files={"file": (f"{player}.ydk", data)},
                           data={"player": player, "upload_key": key})
            if r.status_code == 202:
                return r.json()["job"]
            assert r.status_code in (503, 507), (r.status_code, r.text)
            assert any("가" <= ch <= "힣" for ch in r.json()["error"])  # one Korean line
            last = (r.status_code, r.json()["error"])
        except httpx.TransportError as exc:
            last = repr(exc)  # the connection dropped: send again, same key
        assert time.monotonic() < deadline, f"upload for {player} never taken: {last}"
        time.sleep(0.3)


def _wait_all(url: str, jobs: dict[str, str], seconds: float) -> dict[str, dict]:
    headers = {"Authorization": f"Bearer {KEY}"}
    deadline = time.monotonic() + seconds
    out: dict[str, dict] = {}
    with httpx.Client(base_url=url, headers=headers, timeout=30) as c:
        while time.monotonic() < deadline:
            for job in jobs:
                if job in out:
                    continue
                try:
                    r = c.get(f"/api/jobs/{job}")
                except httpx.TransportError:
                    continue
                if r.status_code == 200 and r.json()["state"] in ("done", "failed",
                                                                  "needs-decision"):
                    out[job] = r.json()
            if len(out) == len(jobs):
                break
            time.sleep(0.5)
    return out


def _desks(url: str, players: list[str], desks: int, pause: float = 0.2) -> dict[str, str]:
    """`desks` threads upload one sheet per player, `pause` s apart; returns job → player."""
    jobs: dict[str, str] = {}
    lock = threading.Lock()
    deadline = time.monotonic() + 600

    def desk(mine: list[str]) -> None:
        for player in mine:
            job = _send(url, _sheet(int(player)), player, deadline)
            with lock:
                jobs[job] = player
            time.sleep(pause)

    threads = [threading.Thread(target=desk, args=(players[d::desks],)) for d in range(desks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(900)
    return jobs


def _check_once(url: str, jobs: dict[str, str], players: list[str]) -> None:
    ends = _wait_all(url, jobs, 600)
    assert len(ends) == len(jobs), "jobs never ended"
    assert {e["state"] for e in ends.values()} == {"done"}, \
        [(e["state"], e.get("error")) for e in ends.values() if e["state"] != "done"]
    assert sorted(jobs.values()) == sorted(players)  # one job per upload, however often sent
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {KEY}"}) as c:
        listed = {p["player"]: p["version"] for p in c.get("/api/players").json()}
    assert all(listed.get(p) == 1 for p in players), {p: listed.get(p) for p in players}


@contextlib.contextmanager
def _small_volume(path: Path, size_mb: int):
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(path)],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"needs a volume that can fill up (mount tmpfs as root): {r.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-R", "-i", str(path)], capture_output=True)
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_uploads_through_disk_full_lock_read_only_and_killed_readers(tmp_path):
    with _small_volume(tmp_path / "vol", 48) as vol:
        event = make_event(vol / "event.sqlite")
        srv = start_server(event, tmp_path / "nd", workers=2)
        players = [f"{2000000000 + n}" for n in range(24)]
        jobs: dict[str, str] = {}
        faults_done = threading.Event()

        def faults() -> None:
            time.sleep(2)
            filler = vol / "filler"  # the disk full for 3 s
            try:
                with open(filler, "wb") as f:
                    with contextlib.suppress(OSError):
                        while True:
                            f.write(b"\0" * 1024 * 1024)
                time.sleep(3)
            finally:
                filler.unlink()
            time.sleep(1.5)
            holder = sqlite3.connect(str(event), isolation_level=None, timeout=30)
            try:
                holder.execute("BEGIN EXCLUSIVE")  # another program holds the file for 3 s
                time.sleep(3)
                holder.execute("ROLLBACK")
            finally:
                holder.close()
            time.sleep(1.5)
            # read-only for 3 s (a remount would wait for the open files: every file and
            # folder of the event made immutable instead, which refuses writes as a
            # write-protected medium does)
            frozen = [str(p) for p in vol.iterdir() if p.name != "filler"]
            try:  # (a file may come and go meanwhile: chattr's complaint about it is no matter)
                subprocess.run(["chattr", "+i", *frozen], capture_output=True)
                time.sleep(3)
            finally:
                subprocess.run(["chattr", "-R", "-i", str(vol)], capture_output=True)
            for _ in range(2):  # a reader killed (its machine's OOM killer, a judge's laptop)
                time.sleep(1.5)
                readers = spawned_readers(srv.proc.pid)
                if readers:
                    os.kill(readers[0], signal.SIGKILL)
            faults_done.set()

        injector = threading.Thread(target=faults)
        injector.start()
        try:
            jobs = _desks(srv.url, players, desks=3)
            injector.join(120)
            assert faults_done.is_set()
            _check_once(srv.url, jobs, players)
            # the station reads on, no restart
            later = _send(srv.url, _sheet(2000009999), "2000009999", time.monotonic() + 120)
            assert _wait_all(srv.url, {later: "2000009999"}, 120)[later]["state"] == "done"
            assert srv.proc.poll() is None
        finally:
            injector.join(120)
            srv.stop()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_uploads_through_a_database_restart(pg_server, pg_db, tmp_path, demo_db, monkeypatch):
    from scanner.event.stores import create_event

    monkeypatch.setenv("DECKSHEET_CARD_DB", str(demo_db.path))
    url = pg_db + "?event=restart"
    create_event(url, "재시작 대회", dt.date(2026, 7, 12)).close()
    srv = start_server(url, tmp_path / "nd", workers=1, extra=("--card-db", str(demo_db.path)))
    players = [f"{3000000000 + n}" for n in range(12)]

    restarted: list[str] = []

    def restart() -> None:
        time.sleep(1)
        # -l: the server's output to its log (a pipe it inherited would hold pg_ctl's run open)
        r = pg_server.run([str(pg_server.bindir / "pg_ctl"), "-D", str(pg_server.root / "data"),
                           "-l", str(pg_server.root / "log"), "-m", "fast", "-w", "-t", "60",
                           "restart"])
        restarted.append(f"{r.returncode} {r.stderr.strip()[-300:]}")

    restarter = threading.Thread(target=restart)
    restarter.start()
    try:
        jobs = _desks(srv.url, players, desks=2, pause=0.6)  # uploads before, during and after
        restarter.join(120)
        assert restarted and restarted[0].startswith("0 "), restarted  # the database restarted
        _check_once(srv.url, jobs, players)
        later = _send(srv.url, _sheet(3000009999), "3000009999", time.monotonic() + 120)
        assert _wait_all(srv.url, {later: "3000009999"}, 120)[later]["state"] == "done"
    finally:
        restarter.join(120)
        srv.stop()
