"""Helpers of the station tests: an event file, a real server in a child process, a poller."""
from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"
KEY = "test-event-key-123"
JUDGE = "test-judge"
CHROMIUM = os.environ.get("DECKSHEET_CHROMIUM", "/usr/bin/chromium")
"""Debian's Chromium, driven by Playwright (no browser download)."""
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
"""Every recorded action names a judge: API clients send `X-Judge`."""


def make_event(path: Path) -> Path:
    from scanner.event.stores import create_event

    create_event(path, "테스트 대회", dt.date(2026, 7, 12)).close()
    return path


def spawned_readers(pid: int) -> list[int]:
    """The reader processes (multiprocessing `spawn` children) process `pid` started."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"spawn_main" in cmd:
            out.append(int(entry.name))
    return out


def child_env(data_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DECKSHEET_")}
    env.update(PYTHONPATH=str(REPO), DECKSHEET_DATA_DIR=str(data_dir), OMP_THREAD_LIMIT="1",
               PYTHONUNBUFFERED="1")
    return env


@dataclass
class Server:
    proc: subprocess.Popen
    url: str
    """Base URL, no key."""
    sign_in: str

    def client(self, **kw) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {KEY}", "X-Judge": JUDGE},
                            timeout=60, **kw)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def start_server(event: Path, data_dir: Path, workers: int = 2, port: int = 0,
                 extra: tuple[str, ...] = (), env: dict | None = None) -> Server:
    """`decksheet serve` in a child process; returns once it printed its URL line. `env`:
    variables added to its environment (PYTHONPATH is put before the repository's)."""
    environ = child_env(data_dir)
    for k, v in (env or {}).items():
        environ[k] = v + os.pathsep + environ[k] if k == "PYTHONPATH" else v
    argv = [sys.executable, "-c", "from scanner.cli import main; main()", "serve",
            "--event", str(event), "--port", str(port), "--key", KEY, "--workers", str(workers),
            *extra]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=environ, cwd=REPO)
    deadline = time.monotonic() + 60
    line = ""
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.startswith("decksheet serve: ") or proc.poll() is not None:
            break
    if not line.startswith("decksheet serve: "):
        proc.kill()
        raise RuntimeError(f"server did not start: {line!r} {proc.stderr.read()[-2000:]}")
    sign_in = line.split(": ", 1)[1].strip()
    return Server(proc=proc, url=sign_in.split("/?key=")[0], sign_in=sign_in)


def wait_job(client, job_id: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = client.get(f"/api/jobs/{job_id}")
        assert r.status_code == 200, r.text
        data = r.json()
        if data["state"] in ("done", "failed", "needs-decision"):
            return data
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} not finished in {timeout}s: {data}")


def sign_in(page, server, judge: str = "박저지") -> None:
    """Sign in with the printed URL and name the judge, as at a desk (lands on the dashboard)."""
    page.goto(server.sign_in)
    page.goto(server.url + "/judge")
    page.fill("#name", judge)
    page.click("button[type=submit]")
    page.wait_for_url(server.url + "/")
