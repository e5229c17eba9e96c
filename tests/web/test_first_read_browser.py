"""Issue 33 at the check-in desk, in Chromium at 390 and 1280 px: a text PDF's lines and player
show at once under 「화면의 그림과 대조 중…」 — no verdict, no button — and the verified read then
replaces them (its registration page with 적합, or the question whose sheet it is)."""
from __future__ import annotations

from pathlib import Path

import pytest

from web.station import SAMPLES, start_server
from web.test_browser import DESKTOP, PHONE, browser, no_sideways_scroll, shot  # noqa: F401

SHEET = SAMPLES / "sheets" / "db-blue-eyes-gothic.pdf"  # 김하늘 · 0412345678, 40/15/5, legal
KID = "0412345678"
SLOW = Path(__file__).resolve().parent / "slow_verify"
"""sitecustomize that makes every reader's verification 3 s slower: the first phase is seen."""


@pytest.fixture
def slow_server(event_path, tmp_path):
    srv = start_server(event_path, tmp_path / "no-fetched-data", workers=1,
                       env={"PYTHONPATH": str(SLOW), "SLOW_VERIFY_S": "3"})
    with srv.client() as c:
        c.post("/api/roster", content=f"player,name,table\n{KID},김하늘,1\n".encode(),
               headers={"Content-Type": "text/csv"}).raise_for_status()
    yield srv
    srv.stop()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_the_text_reading_shows_at_once_and_the_verdict_after_verification(
        browser, slow_server, viewport):  # noqa: F811
    server = slow_server
    phone = viewport is PHONE
    ctx = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone,
                              locale="ko-KR")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.sign_in)
    page.goto(server.url + "/judge")
    page.fill("#name", "박저지")
    page.click("button[type=submit]")
    page.wait_for_url(server.url + "/")
    # On the phone the desk flow (no player picked: the sheet's ID is confirmed by a tap); on
    # the desktop the player is picked first.
    page.goto(server.url + "/checkin" + ("" if phone else f"?player={KID}"))
    page.set_input_files("#file", str(SHEET))

    first = page.locator("#first-read")
    first.wait_for(state="visible", timeout=120_000)
    text = first.inner_text()
    assert "화면의 그림과 대조 중…" in text
    assert f"김하늘 · {KID}" in page.inner_text("#first-read-player")
    captions = page.eval_on_selector_all("#first-read caption", "els => els.map(e => e.textContent)")
    assert "엑스트라 덱 15장" in captions and "사이드 덱 5장" in captions, captions
    main_cards = sum(int(c.split()[-1][:-1]) for c in captions if c.split()[0] in ("몬스터", "마법", "함정"))
    assert main_cards == 40, captions
    assert page.locator("#first-read tr").count() >= 20  # the lines themselves
    # No verdict and nothing to store it with while it is not verified.
    assert "적합" not in page.inner_text("main")
    assert first.locator("button").count() == 0 and not page.is_visible("#whose")
    assert "/players/" not in page.url
    assert no_sideways_scroll(page)
    shot(page, f"first-read-{viewport['width']}-1-preview")

    if phone:
        page.wait_for_selector("#whose-match", state="visible", timeout=120_000)
        assert not first.is_visible() and page.locator("#first-read tr").count() == 0
        shot(page, f"first-read-{viewport['width']}-2-whose")
        page.click("#whose-match")
    page.wait_for_url(f"**/players/{KID}/v/1", timeout=120_000)
    assert page.locator("#first-read").count() == 0  # another page: nothing of the preview
    verdict = page.inner_text("#verdict")
    assert "적합" in verdict and "부적합" not in verdict and "확인 필요" not in verdict, verdict
    assert no_sideways_scroll(page)
    shot(page, f"first-read-{viewport['width']}-3-verdict")
    assert errors == []
    ctx.close()
