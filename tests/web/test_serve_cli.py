"""`decksheet serve` on the command line: the URL line, and one-line refusals (exit 2)."""
from __future__ import annotations

import re
import subprocess
import sys

from web.station import KEY, REPO, child_env, make_event, start_server


def _serve(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from scanner.cli import main; main()", "serve",
                           *args], check=False, capture_output=True, text=True, timeout=60,
                          env=child_env(tmp_path / "nd"), cwd=REPO)


def test_refusals_are_one_line_and_exit_2(tmp_path, event_path):
    for args in ((), ("--event", str(tmp_path / "missing.sqlite")),
                 ("--event", str(event_path), "--key", "short")):
        r = _serve(tmp_path, *args)
        assert r.returncode == 2, (args, r.stderr)
        last = r.stderr.splitlines()[-1]   # (a demo-database notice may come first)
        assert last.startswith("decksheet: error: ") and "Traceback" not in r.stderr, r.stderr
        assert r.stdout == ""


def test_url_line_and_a_busy_port(tmp_path, event_path):
    srv = start_server(event_path, tmp_path / "nd")
    try:
        assert re.fullmatch(rf"http://127\.0\.0\.1:\d+/\?key={KEY}", srv.sign_in)
        port = srv.url.rsplit(":", 1)[1]
        other = make_event(tmp_path / "other.sqlite")  # the same event would meet its lock first
        r = _serve(tmp_path, "--event", str(other), "--port", port, "--key", KEY)
        assert r.returncode == 2 and "could not listen" in r.stderr
    finally:
        srv.stop()
