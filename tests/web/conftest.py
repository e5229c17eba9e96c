"""Fixtures of the station tests (demo card database: no ../shared needed)."""
from __future__ import annotations

import pytest

from web.station import JUDGE, KEY, make_event, start_server


@pytest.fixture
def event_path(tmp_path, clean_env):
    return make_event(tmp_path / "event.sqlite")


@pytest.fixture
def app_client(event_path):
    """The app in-process (Starlette TestClient), its reading pool running (1 worker)."""
    import warnings

    with warnings.catch_warnings():  # starlette 1.x nudges towards httpx2; httpx works
        warnings.simplefilter("ignore", DeprecationWarning)
        from starlette.testclient import TestClient

    from scanner.web.app import build_app
    from scanner.web.config import StationConfig

    config = StationConfig(event_path=event_path, key=KEY, workers=1)
    with TestClient(build_app(config), base_url="http://127.0.0.1",
                    headers={"Authorization": f"Bearer {KEY}", "X-Judge": JUDGE}) as client:
        yield client


@pytest.fixture
def server(event_path, tmp_path):
    srv = start_server(event_path, tmp_path / "no-fetched-data")
    yield srv
    srv.stop()
