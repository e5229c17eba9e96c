"""Korean pages say it in Korean (issue 26): after a decision on a struck row the decision log
shows the Korean label and the card (no server path, no English, no sideways scroll at 390 px);
no code word of the code tables (rule codes, penalties, review reasons, verdicts, message
codes) is in the visible text of any station page; the audit buttons start a job and show
its progress, then the file link."""
from __future__ import annotations

import re

from web.station import SAMPLES, wait_job
from web.test_browser import PHONE, browser, no_sideways_scroll, shot, sign_in  # noqa: F401 - fixture

ROSTER = "player,name,table\n1098765432,이서준,3\n1000000001,김철수,1\n1000000002,이영희,2\n"
PHOTO = SAMPLES / "photos" / "photo-corrected-02.jpg"


def code_words() -> set[str]:
    from card_db import messages
    from scanner.model import READERS
    from scanner.rules.codes import CODE_KO, PENALTY_KO, RULES, VERDICT_CODES
    from scanner.vocab import Reason

    # Every reason a reader can give (the enum), not only those with a label: an unlabelled
    # reason is exactly the one that would reach a page as its English code.
    words = set(RULES) | set(CODE_KO) | set(PENALTY_KO) | {r.value for r in Reason}
    words |= set(VERDICT_CODES.values()) | {"not-registered", "needs-decision"}
    # Reader codes with a hyphen (`ydk`, `ocr` are also the names of file kinds judges know)
    words |= set(messages.TABLES["en"]) | {r for r in READERS if "-" in r}
    return words


def english_codes_in(text: str, words: set[str]) -> list[str]:
    return sorted(w for w in words if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text))


def _register(server, path, player: str, name: str | None = None) -> None:
    with server.client() as c:
        r = c.post("/api/registrations", data={"player": player},
                   files={"file": (name or path.name, path.read_bytes())})
        assert r.status_code == 202, r.text
        assert wait_job(c, r.json()["job"], timeout=180)["state"] == "done"


def _phone(browser, server):  # noqa: F811
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True,
                              has_touch=True, locale="ko-KR")
    page = ctx.new_page()
    sign_in(page, server)
    return ctx, page


def _answer_every_item(page, struck: str = "keep") -> None:
    """Each flagged line: 「다름」, then its first candidate; each sheet item: keep (a struck
    row: `struck`)."""
    for row in page.locator("#glance li.gs").all():  # a struck row, a line of the list
        if struck != "keep":
            row.locator("summary.gdiff").click()
            row.locator(f"input[value='{struck}']").check()
    for card in page.locator("#glance li.gl[data-line]").all():
        card.locator("summary.gdiff").click()
        radios = card.locator("input[value^='card:']")
        if radios.count():
            radios.first.check()
        else:
            card.locator("input[value='skip']").check()
    for flag in page.locator("[data-flag]").all():
        pick = flag.locator(f"input[value='{struck}']")
        (pick if pick.count() else flag.locator("input[value='keep']")).check()


def test_the_decision_on_a_struck_row_is_logged_in_korean_on_a_phone(browser, server):  # noqa: F811
    with server.client() as c:
        c.post("/api/roster", content=ROSTER)
    _register(server, PHOTO, "1098765432")
    ctx, page = _phone(browser, server)
    page.goto(server.url + "/players/1098765432")
    struck = page.locator("#glance li.gs", has=page.locator("input[value='restore']"))
    assert struck.count() >= 1
    assert "printed line" not in page.inner_text("#review-form")  # the reader's English detail
    _answer_every_item(page, struck="restore")
    page.click("#confirm-review")
    assert "저장했습니다" in page.inner_text("#message")
    log = page.inner_text("#decisions")
    assert "줄 되살림" in log and "줄이 그어져 있음" in log
    assert "/" not in log.replace(" / ", "")  # no server path (crops live under /…/crops/)
    assert not re.search(r"[A-Za-z]{3,}", log), log  # no English (the judge's name is Korean)
    assert no_sideways_scroll(page), page.evaluate("document.documentElement.scrollWidth")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot(page, "phone-struck-decision")
    page.goto(server.url + "/")
    dash = page.inner_text("#decision-log")
    assert "줄 되살림" in dash and not re.search(r"[A-Za-z]{3,}", dash.replace("v1", ""))
    assert no_sideways_scroll(page)
    ctx.close()


def test_no_code_word_on_the_stations_pages(browser, server):  # noqa: F811
    words = code_words()
    with server.client() as c:
        c.post("/api/roster", content=ROSTER)
    _register(server, PHOTO, "1098765432")
    _register(server, SAMPLES / "decks" / "registered.ydk", "1000000001")
    # (uploaded under another name: the page shows the file's name, and `illegal` is a code)
    _register(server, SAMPLES / "decks" / "illegal.txt", "1000000002", "deck.txt")
    ctx, page = _phone(browser, server)
    seen: dict[str, list[str]] = {}

    def look(name: str) -> None:
        text = page.evaluate("document.body.innerText")
        found = english_codes_in(text, words)
        if found:
            seen[name] = found

    for path in ("/", "/?status=illegal", "/roster", "/checkin", "/checkin?player=1000000001",
                 "/players/1098765432", "/players/1000000002", "/players/1000000001",
                 "/deckcheck", "/deckcheck/1000000001", "/audits"):
        page.goto(server.url + path)
        look(path)
    # The review: answer every item of the photo, then the page after it.
    page.goto(server.url + "/players/1098765432")
    _answer_every_item(page)
    page.click("#confirm-review")
    page.wait_for_selector("#message")
    look("review done")
    # A deck check with one copy missing: the mismatch verdict, then recorded.
    page.goto(server.url + "/deckcheck/1000000001")
    page.fill("#round", "2")
    page.check("input[name=mode][value=start-of-match]")  # no default 시점 (issue 36)
    page.locator("#checklist tr[data-card] input[name^='c-main-']").first.fill("1")
    page.click("#preview")
    page.wait_for_selector("#deckcheck-result")
    assert "불일치" in page.inner_text("#deckcheck-result")
    look("deck check mismatch")
    page.click("#confirm")
    page.wait_for_selector("#recorded")
    look("deck check recorded")
    look("deck check recorded")
    page.goto(server.url + "/players/1000000001")
    look("player page with its deck check and infraction")
    page.goto(server.url + "/decisions")
    look("/decisions")
    page.goto(server.url + "/")
    look("dashboard after")
    # The audit: a tile starts a job; its progress, then the file link.
    page.click("a[data-audit='xlsx']")
    box = page.locator("#audit-status .audit-job").first
    box.wait_for()
    page.wait_for_function(
        "() => document.querySelector('#audit-status .audit-job')?.dataset.state === 'done'",
        timeout=180_000)
    link = box.locator(".audit-files a")
    assert link.count() == 1 and link.first.inner_text() == "감사 엑셀 (한국어 머리글)"
    assert re.fullmatch(r"/api/audits/[0-9a-f]{16}/files/report\.xlsx", link.first.get_attribute("href"))
    look("dashboard audit done")
    assert no_sideways_scroll(page)
    shot(page, "phone-dashboard-audit")
    page.goto(server.url + "/audits")
    look("/audits")
    assert no_sideways_scroll(page)
    shot(page, "phone-audits")
    job_page = page.locator(".audit-job").first.get_attribute("data-audit-job")
    page.goto(server.url + f"/audits/{job_page}")
    assert "완료" in page.inner_text(".audit-state")
    look("/audits/ID")
    ctx.close()
    assert not seen, seen


def test_an_audit_shows_its_progress_on_screen(browser, server):  # noqa: F811
    """While an audit runs the tile's box reads 「감사 중… n/N」 (or waits its turn)."""
    with server.client() as c:
        c.post("/api/roster", content=ROSTER)
    _register(server, PHOTO, "1098765432")
    _register(server, SAMPLES / "decks" / "registered.ydk", "1000000001")
    ctx, page = _phone(browser, server)
    page.click("a[data-audit='html']")
    page.click("a[data-audit='csv']")  # a second one waits its turn
    states: set[str] = set()
    page.wait_for_selector("#audit-status .audit-job")
    for _ in range(600):
        texts = page.locator("#audit-status .audit-state").all_inner_texts()
        states.update(texts)
        if len(texts) == 2 and all(t.startswith("완료") for t in texts):
            break
        page.wait_for_timeout(100)
    assert any(re.fullmatch(r"감사 중… \d+/2", s) or s.startswith("대기 중") for s in states), states
    assert all(t.startswith("완료 (2건)") for t in texts), texts
    names = page.locator("#audit-status .audit-files a").all_inner_texts()
    assert sorted(names) == ["감사 보고서 (HTML, ID 가림)", "감사 표 (CSV)"]
    ctx.close()


def test_a_sheet_item_decision_reads_in_korean_even_from_its_stored_key(demo_db):
    """Older decisions kept only the item's key ("reason: detail"): the log still names the
    Korean label, the place and the card, never the English detail or the crop's path."""
    from types import SimpleNamespace

    from scanner.web.service.review import ReviewService

    card = next(iter(demo_db.search("하루 우라라", 1))).card
    detail = (f"spell row 11: printed line struck through, left out of the deck: "
              f"{card.name} [{card.card_id}] ×2; crop /srv/ev.station/crops/ab/x.png")
    fake = ReviewService.__new__(ReviewService)
    fake.db = demo_db
    for before in ({"flag": "struck-through", "detail": detail}, None):
        d = SimpleNamespace(before=before, read=f"struck-through: {detail}", section="main")
        place, what = fake._sheet_item_ko(d)
        assert (place, what) == ("마법 11", f"줄이 그어져 있음 (삭제?): {card.name} ×2")
    d = SimpleNamespace(before=None, read="some-new-reason: text", section=None)
    assert fake._sheet_item_ko(d) == ("시트", "시트 확인 항목")


def test_an_audit_page_follows_its_job_to_the_end(browser, server, event_path):  # noqa: F811
    """The audit's page polls its job: 「감사 중… 1/2」, then 2/2, then 완료 with the file link.
    (The job is written straight into the event file, running, so the runner never takes it.)"""
    import json

    from scanner.web.station_store import StationStore

    job_id = "0123456789abcdef"
    with StationStore(event_path) as st, st.transaction() as con:
        con.execute("INSERT INTO station_audits (id, seq, state, formats, judge, done, total, "
                    "created_at) VALUES (?, 1, 'running', '[\"html\"]', '박저지', 1, 2, "
                    "'2026-07-12T10:00:00+00:00')", (job_id,))
    ctx, page = _phone(browser, server)
    page.goto(server.url + f"/audits/{job_id}")
    assert page.inner_text(".audit-state") == "감사 중… 1/2"
    with StationStore(event_path) as st, st.transaction() as con:
        con.execute("UPDATE station_audits SET done = 2 WHERE id = ?", (job_id,))
    page.wait_for_function("() => document.querySelector('.audit-state').textContent"
                           " === '감사 중… 2/2'", timeout=10_000)
    files = [{"name": "report.html", "size": 2048}]
    with StationStore(event_path) as st, st.transaction() as con:
        con.execute("UPDATE station_audits SET state = 'done', result_json = ? WHERE id = ?",
                    (json.dumps({"files": files, "audit": {}}), job_id))
    page.wait_for_selector(".audit-files a", timeout=10_000)
    assert page.inner_text(".audit-state") == "완료 (2건)"
    link = page.locator(".audit-files a").first
    assert link.inner_text() == "감사 보고서 (HTML, ID 가림)"
    assert link.get_attribute("href") == f"/api/audits/{job_id}/files/report.html"
    assert page.locator(".progress").count() == 0 and no_sideways_scroll(page)
    ctx.close()
