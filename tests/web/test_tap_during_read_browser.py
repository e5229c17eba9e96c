"""Issue 35 at the check-in desk, in Chromium at 390 and 1280 px: a photo's whose-sheet buttons
come as soon as its header is read, while its rows are still read (made 5 s slower here); the
judge's tap is said and kept, and the player's page comes when the read ends. A read that fails
after the tap says that nothing was stored for the player chosen."""
from __future__ import annotations

from pathlib import Path

import pytest

from web.station import SAMPLES, start_server
from web.test_browser import DESKTOP, PHONE, browser, judge_page, no_sideways_scroll, shot  # noqa: F401

PHOTO = SAMPLES / "photos" / "photo-corrected-02.jpg"  # 이서준 · 1098765432 printed
KID = "1098765432"
SLOW = Path(__file__).resolve().parent / "slow_rows"
"""sitecustomize that makes every reader read a photo's rows later (after its header)."""
ROSTER = f"player,name,table\n{KID},이서준,3\n0412345678,김하늘,1\n"


def _slow_server(event_path, tmp_path, fail: bool):
    env = {"PYTHONPATH": str(SLOW), "SLOW_ROWS_S": "5"}
    if fail:
        env["SLOW_ROWS_FAIL"] = "1"
    srv = start_server(event_path, tmp_path / "no-fetched-data", workers=1, env=env)
    with srv.client() as c:
        c.post("/api/roster", content=ROSTER.encode(),
               headers={"Content-Type": "text/csv"}).raise_for_status()
    return srv


@pytest.fixture
def slow_server(event_path, tmp_path):
    srv = _slow_server(event_path, tmp_path, fail=False)
    yield srv
    srv.stop()


@pytest.fixture
def failing_server(event_path, tmp_path):
    srv = _slow_server(event_path, tmp_path, fail=True)
    yield srv
    srv.stop()


def _job_state(server) -> str:
    with server.client() as c:
        jobs = [j for j in c.get("/api/players").json()]  # (nothing stored yet: versions None)
        assert all(p["version"] is None for p in jobs), jobs
    return "not stored"


def _tap_while_read(page, server, width: int) -> None:
    page.set_input_files("#photo", str(PHOTO))
    match = page.locator("#whose-match")
    match.wait_for(state="visible", timeout=120_000)
    # The rows are still being read: nothing stored, the status says the tap is kept.
    assert _job_state(server) == "not stored"
    assert "줄을 읽는 중" in page.inner_text("#status")
    assert "1098765432" in match.inner_text() and "이서준" in match.inner_text()
    assert no_sideways_scroll(page)
    shot(page, f"tap-during-read-{width}-1-buttons")
    match.click()
    # The tap is said (and the buttons go) while the read goes on.
    page.wait_for_function(
        "document.getElementById('whose').classList.contains('hide') && "
        "document.getElementById('status').textContent.includes('이서준 (1098765432) — 읽기가 끝나면 저장됩니다')",
        timeout=10_000)
    assert "/players/" not in page.url
    shot(page, f"tap-during-read-{width}-2-tapped")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_the_tap_during_the_read_is_stored_when_it_ends(browser, slow_server, viewport):  # noqa: F811
    ctx, page, errors = judge_page(browser, slow_server, viewport, "/checkin")
    _tap_while_read(page, slow_server, viewport["width"])
    page.wait_for_url(f"**/players/{KID}/v/1", timeout=120_000)
    assert "선수 확인됨" in page.inner_text("main")
    assert no_sideways_scroll(page)
    shot(page, f"tap-during-read-{viewport['width']}-3-player")
    assert errors == []
    ctx.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_a_read_failing_after_the_tap_says_nothing_was_stored(browser, failing_server,  # noqa: F811
                                                             viewport):
    ctx, page, errors = judge_page(browser, failing_server, viewport, "/checkin")
    _tap_while_read(page, failing_server, viewport["width"])
    page.wait_for_function("document.getElementById('status').classList.contains('err')",
                           timeout=120_000)
    said = page.inner_text("#status")
    assert KID in said and "아무것도 저장되지 않았습니다" in said, said
    assert not page.is_visible("#whose") and "/players/" not in page.url
    with failing_server.client() as c:
        assert all(p["version"] is None for p in c.get("/api/players").json())
    assert no_sideways_scroll(page)
    shot(page, f"tap-during-read-{viewport['width']}-4-failed")
    assert errors == []
    ctx.close()


@pytest.fixture
def namesake_server(event_path, tmp_path):
    """The sheet's ID is not on the roster; a player of its name is (table 3)."""
    srv = start_server(event_path, tmp_path / "no-fetched-data", workers=1,
                       env={"PYTHONPATH": str(SLOW), "SLOW_ROWS_S": "5"})
    with srv.client() as c:
        c.post("/api/roster", content="player,name,table\n1000000003,이서준,3\n".encode(),
               headers={"Content-Type": "text/csv"}).raise_for_status()
    yield srv
    srv.stop()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_a_confirmation_being_typed_when_the_read_ends_stays(browser, namesake_server,  # noqa: F811
                                                            viewport):
    server = namesake_server
    ctx, page, errors = judge_page(browser, server, viewport, "/checkin")
    page.set_input_files("#photo", str(PHOTO))
    cand = page.locator("#whose-cands button[data-player='1000000003']")
    cand.wait_for(state="visible", timeout=120_000)
    assert page.locator("#whose-match").is_hidden()  # not the sheet's ID: no one-tap button
    cand.click()
    page.locator("#whose-confirm-text").fill("3")
    # The read ends meanwhile (no tap was stored: the confirmation is not typed yet) …
    page.wait_for_function("!document.getElementById('whose').classList.contains('reading')",
                           timeout=120_000)
    # … and the box being typed in stays, with what was typed.
    assert page.is_visible("#whose-confirm")
    assert page.input_value("#whose-confirm-text") == "3"
    assert "누구의 시트인지 확인하세요" in page.inner_text("#status")
    shot(page, f"tap-during-read-{viewport['width']}-5-typing")
    page.click("#whose-confirm-store")
    page.wait_for_url("**/players/1000000003/v/1", timeout=60_000)
    assert errors == []
    ctx.close()
