"""Issue 35 item 5 (one truth on the page), in Chromium at 390 and 1280 px: a section's printed
total that the judge's own decisions on the list put off — struck rows read as lines, taken out
with 「이 줄은 덱에 없음」 — is asked on the same page, recomputed as the decisions change, and
answered with the same confirm (before: it came back as an item after the confirm, one more
pass). The answer is stored only for the sum the page showed."""
from __future__ import annotations

from web.test_browser import browser, judge_page, no_sideways_scroll, shot  # noqa: F401
from web.test_review_glance import (KID, LEGAL_MAIN, WIDTHS, _differs, _line, _names,
                                    _register_json, _rows)


def _struck_as_lines() -> dict:
    """LEGAL_MAIN as read (40) and a struck row read as a doubtful line (×1 read; the sheet
    printed it ×1 in its total 41): the lines add up to the printed total as read."""
    names = _names()
    main = [_line(cid, n, names) for cid, n in LEGAL_MAIN]
    main.append(_line(14558127, 1, names, needs_review=True, confidence=0.6,
                      reasons=["possible-strike"]))
    return {"sections": {"main": main, "extra": [], "side": []},
            "printed_totals": {"main": 41, "extra": 0, "side": 0}}


@WIDTHS
def test_a_total_the_decisions_put_off_is_asked_on_the_same_page(browser, server, viewport):  # noqa: F811
    _register_json(server, _struck_as_lines())
    ctx, page, errors = judge_page(browser, server, viewport, f"/players/{KID}")
    assert _rows(page) == ["main-18"]
    question = page.locator(".gtotal[data-total-q='main']")
    assert question.count() == 1 and not question.is_visible()  # holds as read: not asked
    assert page.locator("[data-flag]").count() == 0
    row = _differs(page, "main-18")
    row.locator("label.gone").click()
    question.wait_for(state="visible")
    assert "시트에 적힌 메인 합계 41장" in question.inner_text()
    assert question.locator(".gsum").inner_text() == "40"
    assert "답하지 않은 시트 항목 1개" in page.inner_text("#review-left")
    shot(page, f"total-on-page-{viewport['width']}")
    # Put back as read: the sum holds again and the question goes (nothing of it is sent).
    row.locator("input[type=checkbox]").check()
    assert not question.is_visible() and question.locator("input[type=radio]").first.is_disabled()
    row.locator("label.gone").click()  # (its 「다름」 still open) out again: asked again
    question.wait_for(state="visible")
    question.locator("input[value='keep']").check()
    assert "결정 2개 확정" in page.inner_text("#confirm-review")
    page.click("#confirm-review")
    # One pass: the list is the paper's, nothing left to review, no total item after it.
    assert page.inner_text("#verdict") == "적합"
    assert page.locator("[data-flag]").count() == 0 and page.locator(".gtotal:visible").count() == 0
    with server.client() as c:
        player = c.get(f"/api/players/{KID}").json()
    assert player["needs_review"] == 0 and player["totals"]["main"] == 40
    assert no_sideways_scroll(page) and errors == []
    ctx.close()


def test_a_total_answer_for_a_sum_not_shown_is_not_stored(browser, server):  # noqa: F811
    from web.test_browser import PHONE

    _register_json(server, _struck_as_lines())
    ctx, page, errors = judge_page(browser, server, PHONE, f"/players/{KID}")
    _differs(page, "main-18").locator("label.gone").click()
    question = page.locator(".gtotal[data-total-q='main']")
    question.locator("input[value='keep']").check()
    # The page's sum is not the list's (a stale page, a forged form): the line is taken out,
    # the total is not answered — it comes back as an item, from the list as decided.
    page.evaluate("document.querySelector(\"input[name='total-sum-main']\").value = '39'")
    page.click("#confirm-review")
    item = page.locator("[data-flag]", has_text="합계")
    assert item.count() == 1 and "지금 줄의 합 40장" in item.inner_text()
    assert page.inner_text("#verdict").startswith("확인 필요")
    assert errors == []
    ctx.close()
