"""Issue 24 part B, item 4: a key long enough, a back-off after wrong keys, and no page (with
its CSRF token) for anyone not signed in."""
from __future__ import annotations

import pytest

from scanner.web.auth import csrf_token
from web.station import KEY


@pytest.mark.parametrize("key", ["short", "x" * 15])
def test_a_key_under_16_characters_is_refused(event_path, key):
    from scanner.web.config import StationConfig

    with pytest.raises(ValueError, match="16"):
        StationConfig(event_path=event_path, key=key)
    assert StationConfig(event_path=event_path, key="x" * 16).key == "x" * 16
    assert len(StationConfig(event_path=event_path).key) >= 16  # the random one


def test_the_cli_refuses_a_short_key_from_the_environment_in_one_line(tmp_path, event_path):
    import subprocess
    import sys

    from web.station import REPO, child_env

    env = dict(child_env(tmp_path / "nd"), DECKSHEET_KEY="fifteen-chars!!")
    r = subprocess.run([sys.executable, "-c", "from scanner.cli import main; main()", "serve",
                        "--event", str(event_path), "--port", "0"], capture_output=True,
                       text=True, timeout=60, env=env, cwd=REPO)
    assert r.returncode == 2 and r.stdout == ""
    assert "16 characters" in r.stderr.splitlines()[-1] and "Traceback" not in r.stderr


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_guard_waits_grow_after_the_free_failures_and_reset():
    from scanner.web.auth import KeyGuard

    clock = Clock()
    guard = KeyGuard(free=3, window_s=600, max_wait_s=60, clock=clock)
    for _ in range(3):
        assert guard.wait_s("a") == 0
        guard.failed("a")
    assert guard.wait_s("a") == 1 and guard.wait_s("b") == 0
    clock.now += 1
    assert guard.wait_s("a") == 0
    guard.failed("a")
    assert guard.wait_s("a") == 2
    for _ in range(10):
        guard.failed("a")
    assert guard.wait_s("a") == 60  # capped
    clock.now += 601
    assert guard.wait_s("a") == 0  # a quiet window forgets
    guard.failed("a")
    guard.succeeded("a")
    assert guard.wait_s("a") == 0


def test_guard_memory_is_bounded():
    from scanner.web.auth import KeyGuard

    guard = KeyGuard(max_addresses=100)
    for n in range(1000):
        guard.failed(f"10.0.{n // 256}.{n % 256}")
    assert len(guard._fails) == 100 and "10.0.3.231" in guard._fails


def test_wrong_keys_get_429_then_even_the_right_key_waits(app_client):
    app_client.headers.pop("Authorization")
    statuses = [app_client.get("/api/players", headers={"Authorization": f"Bearer guess{n}"})
                .status_code for n in range(5)]
    assert statuses == [401] * 5
    r = app_client.get("/api/players", headers={"Authorization": "Bearer guess6"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert "초" in r.json()["error"]
    # The key in the URL and the right key are held back too while the wait runs.
    assert app_client.get(f"/?key=wrong-{KEY}", follow_redirects=False).status_code == 429
    assert app_client.get("/api/players", headers={"Authorization": f"Bearer {KEY}"}).status_code == 429
    # Asking without any key is a plain 401, not counted.
    assert app_client.get("/api/players").status_code == 401


def test_the_right_key_is_not_slowed_by_someone_elses_failures(event_path):
    from starlette.testclient import TestClient

    from scanner.web.app import build_app
    from scanner.web.config import StationConfig

    app = build_app(StationConfig(event_path=event_path, key=KEY, workers=1), start_runner=False)
    with TestClient(app, client=("10.0.0.66", 5000)) as attacker, \
            TestClient(app, client=("10.0.0.7", 5000)) as judge:
        for n in range(10):
            attacker.get("/api/players", headers={"Authorization": f"Bearer guess{n}"})
        assert attacker.get("/api/players", headers={"Authorization": f"Bearer {KEY}"}).status_code == 429
        assert judge.get("/api/players", headers={"Authorization": f"Bearer {KEY}"}).status_code == 200


@pytest.mark.parametrize("path", ["/static/nope", "/static/../app.py", "/favicon.ico",
                                  "/static/station.css/x"])
def test_unauthenticated_errors_render_no_page_and_no_csrf_token(app_client, path):
    app_client.headers.pop("Authorization")
    r = app_client.get(path)
    assert r.status_code in (401, 404)
    assert csrf_token(KEY) not in r.text and "csrf" not in r.text and "<html" not in r.text
    if r.status_code == 404:
        assert r.headers["content-type"].startswith("text/plain")


def test_signed_in_errors_still_show_the_page(app_client):
    r = app_client.get("/no/such/page")
    assert r.status_code == 404 and "<html" in r.text


def test_a_stale_session_cookie_is_401_but_never_locks_the_device_out(app_client):
    app_client.headers.pop("Authorization")
    app_client.cookies.set("ds_session", "0" * 32)  # the cookie of an earlier key
    for _ in range(20):
        assert app_client.get("/api/players").status_code == 401
    r = app_client.get(f"/?key={KEY}", follow_redirects=False)
    assert r.status_code == 303
