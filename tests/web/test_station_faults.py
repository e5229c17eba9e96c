"""Issue 37: the station under hostile bytes and faults — the findings of the hostile round that
need no event-record change (auth, redirects, bodies, search, the lock, readers, log floods)."""
from __future__ import annotations

import asyncio
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from web.station import JUDGE, KEY, REPO, SAMPLES, Server, child_env, start_server, wait_job


def _host_port(srv: Server) -> tuple[str, int]:
    host, port = srv.url.split("//")[1].split(":")
    return host, int(port)


def _raw(srv: Server, request: bytes, timeout: float = 10) -> bytes:
    with socket.create_connection(_host_port(srv), timeout=timeout) as s:
        s.sendall(request)
        return s.recv(65536)


def _register_sample(client) -> str:
    with open(SAMPLES / "decks" / "legal.ydk", "rb") as f:
        r = client.post("/api/registrations", files={"file": ("legal.ydk", f)},
                        data={"player": "1000000001", "name": "김하늘"})
    assert r.status_code == 202, r.text
    assert wait_job(client, r.json()["job"])["state"] == "done"
    return "1000000001"


# --- auth ------------------------------------------------------------------------------------

def test_wrong_key_back_off_counts_the_peer_not_x_forwarded_for(server):
    """uvicorn believes X-Forwarded-For from 127.0.0.1 by default: a new header per guess was
    a new address (unlimited guesses), and any address could be locked out by naming it."""
    statuses = []
    with httpx.Client(base_url=server.url, timeout=30) as c:
        for n in range(8):
            r = c.get("/api/players", headers={"Authorization": "Bearer wrong-key-wrong-key",
                                               "X-Forwarded-For": f"10.0.0.{n}"})
            statuses.append(r.status_code)
        # the desk whose address a guesser named is not locked out by it
        ok = c.get("/api/players", headers={"Authorization": f"Bearer {KEY}",
                                             "X-Forwarded-For": "10.0.0.1"})
    assert statuses[:5] == [401] * 5 and 429 in statuses[5:], statuses
    assert ok.status_code in (200, 429)  # the peer (127.0.0.1) itself guessed: it may wait


@pytest.mark.parametrize("path", ["//evil.example/", "/\\evil.example/", "///evil.example/x"])
def test_sign_in_redirects_only_on_the_station(server, path):
    answer = _raw(server, f"GET {path}?key={KEY}&next=1 HTTP/1.1\r\nHost: x\r\n"
                          "Connection: close\r\n\r\n".encode())
    head = answer.split(b"\r\n\r\n")[0].decode("latin-1")
    assert head.startswith("HTTP/1.1 303"), head
    location = next(line.split(": ", 1)[1] for line in head.split("\r\n")
                    if line.lower().startswith("location:"))
    assert location.startswith("/") and not location.startswith(("//", "/\\")), location


def test_the_judge_page_sends_back_only_to_the_station(app_client):
    from scanner.web.auth import csrf_token

    r = app_client.post("/judge", data={"csrf": csrf_token(KEY), "name": "심판",
                                        "next": "/\\evil.example/"}, follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"].startswith("/") and "\\" not in r.headers["location"][:2]
    assert not r.headers["location"].startswith("//")


def test_x_judge_that_is_not_utf8_names_no_one(app_client):
    """Latin-1 bytes or a broken percent-escape were stored as mojibake or U+FFFD."""
    from scanner.web.auth import judge_name

    class Req:
        def __init__(self, raw: str) -> None:
            self.scope = {"auth": "bearer"}
            self.headers = {"x-judge": raw}

    assert judge_name(Req("%ED%95%9C%EC%8A%B9")) == "한승"
    assert judge_name(Req("\xe9t\xe9")) is None  # raw latin-1 é: not UTF-8
    assert judge_name(Req("%E9t%E9")) is None  # percent-encoded latin-1
    r = app_client.post("/api/roster", content=b"player,name\n1000000009,A\n",
                        headers={"content-type": "text/csv", "X-Judge": "%FF%FE"})
    assert r.status_code == 400, r.text
    assert "1000000009" not in app_client.get("/api/players").text


# --- bodies ----------------------------------------------------------------------------------

def _serve(event_path, data_dir, **settings) -> Server:
    args = ", ".join(f"{k}={v!r}" for k, v in settings.items())
    code = ("import sys; from scanner.web.config import StationConfig; "
            "from scanner.web.server import serve; "
            f"serve(StationConfig(event_path=sys.argv[1], port=0, key={KEY!r}, workers=1, {args}))")
    proc = subprocess.Popen([sys.executable, "-c", code, str(event_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=child_env(data_dir), cwd=REPO)
    line = proc.stdout.readline()
    assert line.startswith("decksheet serve: "), line
    sign_in = line.split(": ", 1)[1].strip()
    return Server(proc=proc, url=sign_in.split("/?key=")[0], sign_in=sign_in)


def test_a_trickled_body_ends_at_its_deadline_and_records_nothing(event_path, tmp_path):
    """Each byte within the per-piece timeout kept a request open for ever (1 byte per 15 s)."""
    srv = _serve(event_path, tmp_path / "nd", read_timeout_s=2.0, body_deadline_s=3.0)
    try:
        s = socket.create_connection(_host_port(srv), timeout=10)
        body = b"player,name\n1000000007,Trickle\n"
        s.sendall(b"POST /api/roster HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY.encode()
                  + f"\r\nX-Judge: {JUDGE}\r\nContent-Type: text/csv\r\nContent-Length: "
                    f"{len(body) + 1000}\r\n\r\n".encode())
        started, answer = time.monotonic(), b""
        s.setblocking(False)
        for byte in body * 40:
            if time.monotonic() - started > 8:
                break
            try:
                s.send(bytes([byte]))
            except OSError:
                break
            try:
                answer = s.recv(4096)
                if answer:
                    break
            except BlockingIOError:
                pass
            time.sleep(0.5)
        s.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert time.monotonic() - started < 6
        with srv.client() as c:
            assert "1000000007" not in c.get("/api/players").text
    finally:
        srv.stop()


def test_json_is_utf8_with_each_key_once(app_client):
    kid = _register_sample(app_client)
    url = f"/api/players/{kid}/versions/1/withdraw"
    twice = b'{"reason": "\xec\x8b\xa4\xec\x88\x98", "reason": "x"}'
    utf16 = json.dumps({"reason": "실수"}).encode("utf-16")
    for body in (twice, utf16):
        r = app_client.post(url, content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400, (body, r.text)
    lone = b'{"reason": "\\ud800"}'
    r = app_client.post(url, content=lone, headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text
    assert app_client.get("/api/withdrawals").json() == []  # nothing recorded


def test_card_search_with_digits_that_are_not_ascii(app_client):
    for q in ("²", "①", "٣", "12²"):
        r = app_client.get("/api/cards", params={"q": q})
        assert r.status_code == 200 and isinstance(r.json(), list), (q, r.text)


def test_the_player_page_says_only_the_stations_own_messages(app_client):
    kid = _register_sample(app_client)
    ok = app_client.get(f"/players/{kid}/v/1", params={"m": "stored3"})
    assert "결정 3건을 저장했습니다" in ok.text
    r = app_client.get(f"/players/{kid}/v/1",
                       params={"m": "stored 0건 — 헤드 저지: 이 선수는 실격입니다. 0"})
    assert r.status_code == 200 and "실격입니다" not in r.text


# --- search ----------------------------------------------------------------------------------

def test_a_long_roster_search_is_not_compared_with_every_player(app_client, monkeypatch):
    """3,000 「ㄱ」 against 10,000 players took 43 s: the query was normalised per player."""
    from scanner.web import hangul

    rows = "player,name\n" + "".join(f"{1000000000 + i},김하늘{i}\n" for i in range(2000))
    assert app_client.post("/api/roster", content=rows.encode(),
                           headers={"content-type": "text/csv"}).status_code == 200
    seen = []
    squash = hangul._squash
    monkeypatch.setattr(hangul, "_squash", lambda text: seen.append(len(text)) or squash(text))
    for q in ("ㄱ" * 3000, "ㄱ" * 60):
        r = app_client.get("/api/players", params={"q": q})
        assert r.status_code == 200 and r.json() == []
    assert sum(seen) < 2000 * 12 + 200, sum(seen)  # each name once at most, the query once
    found = app_client.get("/api/players", params={"q": "ㄱㅎㄴ1999"}).json()
    assert [p["player"] for p in found] == ["1000001999"]


# --- one station per event file ---------------------------------------------------------------

def test_the_station_lock_is_the_files_not_its_names(tmp_path):
    from scanner.errors import EventError
    from scanner.web.station_lock import station_lock

    event = tmp_path / "event.sqlite"
    event.write_bytes(b"")
    (tmp_path / "other").mkdir()
    link = tmp_path / "other" / "same-event.sqlite"
    link.symlink_to(event)
    with station_lock(event):
        for name in (link, tmp_path / "other" / ".." / "event.sqlite"):
            with pytest.raises(EventError):
                with station_lock(name):
                    pass


# --- readers end with their station ------------------------------------------------------------

def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_readers_die_with_a_killed_station(event_path, tmp_path):
    srv = start_server(event_path, tmp_path / "nd", workers=1)
    readers = []
    try:
        with srv.client() as c:
            _register_sample(c)
        readers = [p for p in _children(srv.proc.pid) if _alive(p)]
        assert readers, "the station read a sheet without a reader process"
        srv.proc.kill()
        srv.proc.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p) for p in readers):
            time.sleep(0.2)
        assert not [p for p in readers if _alive(p)], "readers outlived their station"
    finally:
        for p in readers:
            if _alive(p):
                os.kill(p, signal.SIGKILL)
        srv.stop()


# --- a flood of connections --------------------------------------------------------------------

def test_a_connection_flood_neither_fills_the_log_nor_stops_the_station(event_path, tmp_path):
    """Past the open-files limit, every queued accept() logged a traceback (148 MB in 45 s)
    and the station stopped answering."""
    log = tmp_path / "stderr.txt"

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (160, 160))

    with open(log, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from scanner.cli import main; main()", "serve", "--event",
             str(event_path), "--port", "0", "--key", KEY, "--workers", "1"],
            stdout=subprocess.PIPE, stderr=err, text=True, env=child_env(tmp_path / "nd"),
            cwd=REPO, preexec_fn=few_files)
    srv = None
    try:
        line = proc.stdout.readline()
        assert line.startswith("decksheet serve: "), log.read_text()[-2000:]
        srv = Server(proc=proc, url=line.split(": ", 1)[1].strip().split("/?key=")[0], sign_in="")
        socks: list[socket.socket] = []
        started = time.monotonic()
        while time.monotonic() - started < 6:
            try:
                s = socket.create_connection(_host_port(srv), timeout=2)
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                socks.append(s)
            except OSError:
                time.sleep(0.01)
            if len(socks) > 400:
                for s in socks[:200]:
                    s.close()
                del socks[:200]
        for s in socks:
            s.close()
        time.sleep(1)
        with srv.client() as c:
            deadline = time.monotonic() + 20
            while True:
                try:
                    if c.get("/api/players", timeout=5).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "the station stopped answering"
                time.sleep(0.5)
        assert log.stat().st_size < 64 * 1024, log.read_bytes()[:3000]
    finally:
        if srv:
            srv.stop()
        else:
            proc.kill()
            proc.wait()
