"""Bounded load on loopback: concurrent uploaders against a real server; every sheet is
registered exactly once and no upload fails. Figures: bench/bench_station.py."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))


def test_eight_desks_at_once_quick(tmp_path, clean_env):
    from bench_station import run_load

    result = run_load(tmp_path, uploaders=8, sheets_each=3, workers=2, kinds={"pdf", "ydk"})
    figures = result.figures()
    assert figures["failed"] == 0 and result.registered_once, figures
    assert figures["sheets"] == 24


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_eight_uploaders_times_25_sheets_pdfs_and_photos(tmp_path, clean_env):
    from bench_station import run_load

    result = run_load(tmp_path, uploaders=8, sheets_each=25, kinds={"pdf", "scan", "photo"})
    figures = result.figures()
    print(figures)
    assert figures["sheets"] == 200 and figures["failed"] == 0, figures
    assert result.registered_once and result.registered == 200


def _pdf_bomb(spaces: int) -> bytes:
    """A one-page PDF whose content stream inflates `spaces` bytes from a few KB."""
    import zlib

    packed = zlib.compress(b" " * spaces, 9)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
               b"/Resources << >> >>",
               b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed
               + b"\nendstream"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1,
                                                                            xref)
    return bytes(out)


def _worker_peaks_mb(server_pid: int) -> list[float]:
    """Peak resident memory (VmHWM) of every process below the server: its reading workers."""
    from pathlib import Path

    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(stat.parent.name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    below, frontier = set(), {server_pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - below
        below |= frontier
    peaks = []
    for pid in below:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        kb = next((int(ln.split()[1]) for ln in status.splitlines() if ln.startswith("VmHWM:")), 0)
        peaks.append(kb / 1024)
    return peaks


WORKER_PEAK_MB = 1024
"""What the bombs here may cost a worker at most (the per-worker bound itself is `regpath`'s)."""


def test_eight_desks_with_hostile_clients_mixed_in(tmp_path, clean_env):
    """Issue 24 part B, item 8: bombs, malformed JSON and oversize names from a ninth client
    while eight desks check in; every honest check-in registered once, no 5xx anywhere. (The
    worker memory bound is the registration path's; here: the bomb's job ends, no 5xx.)"""
    import time

    from bench_station import run_load

    from web.station import wait_job

    statuses: list[int] = []
    bomb_jobs: list[str] = []
    peaks: list[float] = []
    hostile = [
        ("post", "/api/deckchecks", {"content": b"[" * 200_000}),
        ("post", "/api/deckchecks", {"content": b'{"player": "1", "round": 1e400}'}),
        ("post", "/api/deckchecks", {"json": {"player": "1", "round": 1, "confirm": "false"}}),
        ("post", "/api/players/5000000000/review", {"content": b"{" * 50_000}),
        ("post", "/api/infractions/1/void", {"json": {"reason": ["x"]}}),
        ("post", "/api/roster", {"content": b"player,name\r0000000001," + b"x" * 131_072}),
        ("post", "/api/roster", {"content": "player,name\n0000000001,김하늘\n0000000001,김\u200b하늘\n"
                                 .encode()}),
        ("post", "/api/registrations", {"data": {"player": "0000000001", "name": "㈜" * 40},
                                        "files": {"file": ("d.ydk", b"#main\n14558127\n")}}),
        ("post", "/api/registrations", {"data": {"name": "x" * 10_000},
                                        "files": {"file": ("d.ydk", b"#main\n14558127\n")}}),
        ("bomb", "/api/registrations", {"files": {"file": ("bomb.pdf", _pdf_bomb(20_000_000))}}),
    ]

    def attack(server) -> None:
        with server.client() as c:
            for _ in range(3):
                for method, url, kw in hostile:
                    r = c.post(url, **kw)
                    statuses.append(r.status_code)
                    if method == "bomb" and r.status_code == 202:
                        bomb_jobs.append(r.json()["job"])
                    time.sleep(0.05)
            for job in bomb_jobs:  # the bomb's read ends (failed or refused), it never hangs
                assert wait_job(c, job, timeout=300)["state"] in ("done", "failed")
        peaks.extend(_worker_peaks_mb(server.proc.pid))

    result = run_load(tmp_path, uploaders=8, sheets_each=3, workers=2, kinds={"pdf", "ydk"},
                      alongside=attack)
    figures = result.figures()
    assert figures["sheets"] == 24 and figures["failed"] == 0, figures
    assert result.registered_once, figures  # also: no hostile upload made a player
    print("hostile statuses", statuses, "worker peaks MB", [round(p) for p in peaks])
    assert statuses and max(statuses) < 500, statuses
    assert peaks and max(peaks) < WORKER_PEAK_MB, peaks
    assert sum(s in (400, 413, 415) for s in statuses) >= 3 * (len(hostile) - 1), statuses
