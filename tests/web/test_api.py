"""The station's JSON API (contract "Check-in station") and its refusals, in-process."""
from __future__ import annotations

import io
from urllib.parse import quote

import pytest

from web.station import KEY, SAMPLES, wait_job

ROSTER = ("player,name,table\n1098765432,이서준,3\n0412345678,김하늘,1\n"
          "1000000002,<script>alert(1)</script>,2\n")


def upload(client, path, player=None, name="sheet", data=None):
    files = {"file": (name if data is not None else path.name,
                      data if data is not None else path.read_bytes())}
    return client.post("/api/registrations", files=files,
                       data={"player": player} if player else {})


def test_every_route_needs_the_key(app_client):
    bare = {"Authorization": ""}
    for path in ("/", "/api/players", "/api/jobs/0123456789abcdef", "/roster", "/exports/players.csv"):
        r = app_client.get(path, headers=bare)
        assert r.status_code == 401, path
    assert app_client.get("/api/players", headers={"Authorization": "Bearer wrong-key"}).status_code == 401
    r = app_client.post("/api/roster", content=ROSTER, headers=bare)
    assert r.status_code == 401 and "error" in r.json()


def test_sign_in_url_sets_a_cookie_and_asks_the_judge_name(app_client):
    app_client.headers.pop("Authorization")
    r = app_client.get(f"/?key={KEY}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert KEY not in r.headers["set-cookie"]  # the cookie holds a MAC, not the key
    app_client.post("/api/roster", content=ROSTER, headers={"Authorization": f"Bearer {KEY}"})
    r = app_client.get("/")  # the dashboard names every player right after sign-in
    assert r.status_code == 200 and "김하늘" in r.text and 'id="need-judge"' in r.text
    r = app_client.get("/checkin", follow_redirects=False)  # recording pages need a judge name
    assert r.status_code == 303 and r.headers["location"].startswith("/judge")
    page = app_client.get("/judge").text
    token = page.split('name="csrf" value="')[1].split('"')[0]
    # A cookie-signed form without the CSRF token is refused.
    assert app_client.post("/judge", data={"name": "박저지"}).status_code == 403
    r = app_client.post("/judge", data={"name": "박저지", "csrf": token, "next": "/"},
                        follow_redirects=False)
    assert r.status_code == 303
    assert "박저지" in app_client.get("/").text
    # JSON calls with the cookie need the token in a header.
    assert app_client.post("/api/roster", content=ROSTER).status_code == 403
    assert app_client.post("/api/roster", content=ROSTER,
                           headers={"X-CSRF-Token": token}).json()["imported"] == 0


def test_roster_import_update_and_search(app_client):
    r = app_client.post("/api/roster", content=ROSTER.encode(), headers={"Content-Type": "text/csv"})
    assert r.json() == {"imported": 3, "updated": 0,
                        "columns": {"player": "player", "name": "name", "table": "table"}}
    r = app_client.post("/api/roster", content="player,name\n0412345678,김하늘\n0000000009,최민수\n")
    assert r.json()["imported"] == 1 and r.json()["updated"] == 1  # 김하늘 lost her table
    players = app_client.get("/api/players").json()
    assert {p["player"] for p in players} == {"1098765432", "0412345678", "1000000002", "0000000009"}
    assert all(p["status"] == "not-registered" and p["version"] is None for p in players)
    assert [p["name"] for p in app_client.get("/api/players", params={"q": "ㄱㅎㄴ"}).json()] == ["김하늘"]
    assert [p["name"] for p in app_client.get("/api/players", params={"q": "김ㅎ"}).json()] == ["김하늘"]
    assert [p["player"] for p in app_client.get("/api/players", params={"q": "3"}).json()] == ["1098765432"]
    assert [p["name"] for p in app_client.get("/api/players", params={"q": "2345"}).json()] == ["김하늘"]


@pytest.mark.parametrize("body,fragment", [
    ("name,player\n", None), ("foo,bar\n1,2\n", "player,name"),
    ("player,name\nabc,김하늘\n", "2번째 줄"), ("player,name\n0123456789,\n", "이름"),
])
def test_bad_roster_is_a_400_with_one_line(app_client, body, fragment):
    r = app_client.post("/api/roster", content=body)
    if fragment is None:
        assert r.status_code == 200  # header order does not matter; no rows
        return
    assert r.status_code == 400 and fragment in r.json()["error"] and "\n" not in r.json()["error"]


def test_ydk_check_in_registers_and_reports(app_client):
    app_client.post("/api/roster", content=ROSTER)
    r = upload(app_client, SAMPLES / "decks" / "registered.ydk", player="1000000002")
    assert r.status_code == 202 and set(r.json()) == {"job"}
    job = wait_job(app_client, r.json()["job"])
    assert job["state"] == "done" and job["error"] is None
    res = job["result"]
    assert {"player", "version", "legal", "needs_review", "infractions"} <= set(res)
    assert res["player"] == "1000000002" and res["version"] == 1 and res["needs_review"] == 0
    # A fixed sheet is a new version; the old one stays.
    job2 = wait_job(app_client, upload(app_client, SAMPLES / "decks" / "legal.ydk",
                                       player="1000000002").json()["job"])
    assert job2["result"]["version"] == 2
    row = next(p for p in app_client.get("/api/players").json() if p["player"] == "1000000002")
    assert row["version"] == 2 and row["status"] in ("legal", "illegal")


def test_photo_check_in_takes_the_sheet_id_and_review_resolves_the_flags(app_client):
    app_client.post("/api/roster", content=ROSTER)
    job = wait_job(app_client, upload(app_client, SAMPLES / "photos" / "photo-corrected-02.jpg").json()["job"])
    assert job["state"] == "done", job
    assert job["result"]["player"] == "1098765432" and job["result"]["player_source"] == "sheet"
    view = app_client.get("/api/players/1098765432").json()
    assert view["status"] in ("needs-review", "illegal") and view["needs_review"] >= 2
    flagged = view["flagged"]
    assert flagged and all(f["crop"] and f["crop"].startswith("/crops/") for f in flagged)
    crop = app_client.get(flagged[0]["crop"])
    assert crop.status_code == 200 and crop.content.startswith(b"\x89PNG")
    answers = [{"section": f["section"], "line": f["line"], "action": "choose",
                "card_id": f["candidates"][0]["card_id"], "count": f["count"]} for f in flagged]
    answers += [{"flag": s["flag"], "action": "keep"} for s in view["sheet_flags"]]
    r = app_client.post("/api/players/1098765432/review",
                        json={"version": view["version"], "decisions": answers},
                        headers={"X-Judge": quote("박저지")})
    assert r.status_code == 200 and r.json()["stored"] == len(answers)
    assert r.json()["needs_review"] == 0
    log = app_client.get("/api/decisions").json()
    assert len(log) == len(answers) and {d["judge"] for d in log} == {"박저지"}
    assert any("→" not in d["before"] and d["after"] for d in log)


def test_a_struck_row_is_restored_from_the_review(app_client):
    job = wait_job(app_client, upload(app_client, SAMPLES / "photos" / "photo-corrected-02.jpg",
                                      player="1098765432").json()["job"])
    assert job["state"] == "done", job
    view = app_client.get("/api/players/1098765432").json()
    struck = [s for s in view["sheet_flags"] if s["restore"]]
    assert struck, view["sheet_flags"]
    section = struck[0]["section"]
    before = view["totals"][section]
    r = app_client.post("/api/players/1098765432/review",
                        json={"version": view["version"],
                              "decisions": [{"flag": struck[0]["flag"], "action": "restore"}]},
                        headers={"X-Judge": quote("박저지")})
    assert r.status_code == 200, r.text
    after = app_client.get("/api/players/1098765432").json()
    assert struck[0]["detail"] not in {s["detail"] for s in after["sheet_flags"]}
    log = app_client.get("/api/decisions").json()
    assert log[-1]["after"].startswith("줄 되살림: " + struck[0]["restore"]["name"])
    assert after["totals"][section] == before + struck[0]["restore"]["count"]


def test_bad_review_answers_store_nothing(app_client):
    wait_job(app_client, upload(app_client, SAMPLES / "decks" / "registered.ydk", player="0000000007").json()["job"])
    for bad in ({"section": "main", "line": 99, "action": "keep"},
                {"section": "main", "line": 1, "action": "choose", "card_id": 1, "count": 2},
                {"section": "main", "line": 1, "action": "choose", "card_id": 14558127, "count": 9},
                {"section": "main", "line": 1, "action": "drop"}):
        r = app_client.post("/api/players/0000000007/review", json={"version": 1, "decisions": [bad]})
        assert r.status_code == 400, bad
    assert app_client.post("/api/players/0000000007/review", content=b"{").status_code == 400
    assert app_client.get("/api/decisions").json() == []


def _png(width: int, height: int) -> bytes:
    from PIL import Image
    buf = io.BytesIO()
    Image.new("1", (width, height)).save(buf, "PNG")
    return buf.getvalue()


def _pdf(pages: int) -> bytes:
    from pypdf import PdfWriter
    w = PdfWriter()
    for _ in range(pages):
        w.add_blank_page(595, 842)
    buf = io.BytesIO()
    w.write(buf)
    return buf.getvalue()


@pytest.mark.parametrize("name,data,status", [
    ("empty.pdf", b"", 415),
    ("renamed.pdf", bytes(range(256)) * 40, 415),             # binary junk named .pdf
])
def test_bad_uploads_are_4xx_with_one_line(app_client, name, data, status):
    r = upload(app_client, None, player="0000000001", name=name, data=data)
    assert r.status_code == status, r.text
    assert r.json()["error"] and "\n" not in r.json()["error"]


@pytest.mark.parametrize("name,why", [
    ("bomb.png", "해상도가 너무 큽니다"),                       # 30000×30000 1-bit PNG, ~100 KB
    ("book.pdf", "500쪽입니다"),                               # 500 pages
    ("broken.pdf", "PDF가 손상되었거나"),
    ("tiny.png", "너무 작아"),
])
def test_bad_files_fail_their_job_with_one_line(app_client, name, why):
    """A PDF or image is opened only by its reader (issue 37: never in the server process):
    the upload is taken (202) and its job fails with the reader's reason, in Korean."""
    data = {"bomb.png": lambda: _png(30000, 30000), "book.pdf": lambda: _pdf(500),
            "broken.pdf": lambda: b"%PDF-1.7\n" + b"garbage" * 100,
            "tiny.png": lambda: _png(40, 40)}[name]()
    r = upload(app_client, None, player="0000000001", name=name, data=data)
    assert r.status_code == 202, r.text
    job = wait_job(app_client, r.json()["job"])
    assert job["state"] == "failed" and why in job["error"] and "\n" not in job["error"], job


def test_too_large_upload_is_413(event_path):
    from starlette.testclient import TestClient

    from scanner.web.app import build_app
    from scanner.web.config import StationConfig

    config = StationConfig(event_path=event_path, key=KEY, workers=1, max_upload_bytes=100_000)
    with TestClient(build_app(config, start_runner=False),
                    headers={"Authorization": f"Bearer {KEY}", "X-Judge": "j"}) as client:
        r = client.post("/api/registrations", files={"file": ("big.txt", b"3 x\n" * 100_000)})
        assert r.status_code == 413 and "MB" in r.json()["error"]


@pytest.mark.parametrize("name,data,fragment", [
    ("cat.jpg", None, "시트"),           # a photo of something else
    ("notes.txt", "오늘 점심은 김밥\n내일은 라면\n".encode(), "카드"),
])
def test_unreadable_sheets_fail_their_job(app_client, name, data, fragment):
    if data is None:
        import numpy as np
        from PIL import Image
        rng = np.random.default_rng(7)
        img = (rng.random((900, 1200, 3)) * 255).astype("uint8")   # no page, no grid
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, "JPEG")
        data = buf.getvalue()
    r = upload(app_client, None, player="0000000001", name=name, data=data)
    assert r.status_code == 202
    job = wait_job(app_client, r.json()["job"])
    assert job["state"] == "failed" and fragment in job["error"], job
    assert app_client.get("/api/players").json() == []  # nothing registered


def test_unknown_things_are_404_not_500(app_client):
    assert app_client.get("/api/jobs/nope").status_code == 404
    assert app_client.get("/api/players/12345").status_code == 404
    assert app_client.get("/api/players/abc").status_code == 404
    assert app_client.get("/crops/../../etc/passwd").status_code == 404
    assert app_client.get("/crops/" + "0" * 64 + "/x.png").status_code == 404
    assert app_client.get("/exports/secrets.txt").status_code == 404
    assert app_client.post("/api/infractions/999/void", json={"reason": "x"}).status_code == 404
    assert app_client.post("/api/registrations", content=b"x").status_code == 400


def test_deck_check_preview_record_and_void(app_client):
    wait_job(app_client, upload(app_client, SAMPLES / "decks" / "registered.ydk", player="1000000002").json()["job"])
    view = app_client.get("/api/players/1000000002").json()
    body = {"player": "1000000002", "round": 2, "between_games": False,
            "counts": [{"section": "main", "line": 1, "count": 1}]}
    preview = app_client.post("/api/deckchecks", json=body).json()
    assert preview["recorded"] is False and preview["match"] is False
    assert preview["infractions"][0]["code"] == "DECKLIST_MISMATCH"
    assert app_client.get("/api/infractions").json() == []  # nothing stored before confirm
    done = app_client.post("/api/deckchecks", json=dict(body, confirm=True),
                           headers={"X-Judge": quote("이저지")}).json()
    assert done["recorded"] is True and done["deck_check_id"]
    infs = app_client.get("/api/infractions").json()
    assert "DECKLIST_MISMATCH" in {i["code"] for i in infs}
    inf = next(i for i in infs if i["code"] == "DECKLIST_MISMATCH")
    assert inf["penalty"] == "GAME_LOSS" and inf["judge"] == "이저지" and not inf["voided"]
    assert app_client.post(f"/api/infractions/{inf['id']}/void", json={"reason": ""}).status_code == 400
    r = app_client.post(f"/api/infractions/{inf['id']}/void",
                        json={"reason": "카드가 슬리브 뒤에 있었음", "new_penalty": "WARNING"})
    assert r.json() == {"id": inf["id"], "voided": False, "status": "amended",
                        "penalty_now": "WARNING"}
    r = app_client.post(f"/api/infractions/{inf['id']}/void", json={"reason": "재확인 결과 문제 없음"})
    inf2 = next(i for i in app_client.get("/api/infractions").json() if i["id"] == inf["id"])
    assert inf2["voided"] and inf2["penalty"] == "GAME_LOSS" and len(inf2["voids"]) == 2
    assert view["status"] != "not-registered"


def test_pages_escape_names_and_exports_are_safe(app_client):
    app_client.post("/api/roster", content=ROSTER + "0000000055,=HYPERLINK(\"http://x\"),4\n")
    app_client.cookies.set("ds_judge", "tester")
    page = app_client.get("/", headers={"Authorization": f"Bearer {KEY}"}).text
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    csv_text = app_client.get("/exports/players.csv").content.decode("utf-8-sig")
    assert "'=HYPERLINK" in csv_text and ",=HYPERLINK" not in csv_text
    shared = app_client.get("/exports/players-shared.csv").content.decode("utf-8-sig")
    assert "1098765432" not in shared and "10******32" in shared
    x = app_client.get("/exports/players.xlsx")
    assert x.status_code == 200 and x.content.startswith(b"PK")
    audit = app_client.get("/exports/audit.html")
    assert audit.status_code == 200 and "default-src 'none'" in audit.headers["content-security-policy"]


@pytest.mark.parametrize("codec", ["utf-16", "cp949"])
def test_text_lists_in_korean_windows_encodings_are_checked_in(app_client, codec):
    text = (SAMPLES / "decks" / "illegal.txt").read_text(encoding="utf-8")
    r = upload(app_client, None, player="1000000011", name="list.txt", data=text.encode(codec))
    assert r.status_code == 202, r.text
    job = wait_job(app_client, r.json()["job"])
    assert job["state"] == "done", job


@pytest.mark.slow
def test_a_photo_too_small_to_read_asks_the_desk_for_a_retake(app_client):
    """A sheet small and soft in its photo: registered with its lines flagged, and the result
    page puts the retake advice first, with a button back to this player's check-in."""
    import cv2
    import numpy as np
    img = cv2.imread(str(SAMPLES / "photos" / "photo-01.jpg"))
    small = cv2.GaussianBlur(cv2.resize(img, None, fx=0.35, fy=0.35, interpolation=cv2.INTER_AREA), (0, 0), 1.2)
    frame = np.full_like(img, 40)
    frame[:small.shape[0], :small.shape[1]] = small
    data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()
    app_client.post("/api/roster", content=ROSTER)
    job = wait_job(app_client, upload(app_client, None, player="1098765432", name="far.jpg", data=data).json()["job"])
    assert job["state"] == "done", job
    page = app_client.get("/players/1098765432/v/1").text
    assert 'id="retake"' in page and 'href="/checkin?player=1098765432"' in page
    assert page.index('id="retake"') < page.index("확인할 줄")  # before the lines to review


@pytest.mark.slow
def test_a_name_one_syllable_off_on_a_scan_says_it_may_be_an_ocr_misread(app_client):
    """The sheet's name, read by OCR from a scanned sheet, one syllable from the roster's: the warning stays
    (it may be another player's sheet) and says an OCR misread is possible, check the ID card."""
    app_client.post("/api/roster", content="player,name\n0412345678,김하란\n1098765432,이서준\n")
    job = wait_job(app_client, upload(app_client, SAMPLES / "photos" / "scan-01.pdf", player="0412345678").json()["job"])
    assert job["state"] == "done", job
    (warning,) = [w for w in job["result"]["warnings"] if "명단의 이름" in w]
    assert "김하란" in warning and "OCR" in warning
    page = app_client.get("/players/0412345678/v/1").text
    assert 'id="name-differs"' in page and "잘못 읽었을 수" in page
    # Two syllables off: the plain warning, no hint of a misread.
    job = wait_job(app_client, upload(app_client, SAMPLES / "photos" / "scan-01.pdf", player="1098765432").json()["job"])
    # The same original for a second player is held for the judge (the CLI's --allow-duplicate).
    assert (job["state"], job["decision"]) == ("needs-decision", "duplicate-original"), job
    job = app_client.post(f"/api/jobs/{job['job']}/decide", json={"choice": "store"}).json()
    (warning,) = [w for w in job["result"]["warnings"] if "명단의 이름" in w]
    assert "OCR" not in warning


def test_deck_check_by_card_between_games_and_at_the_start(app_client):
    """`cards`: copies of a registered card seen in a section, sided in or out. Both 하루 우라라
    sided out for two copies of a side card: 일치 between games, a mismatch at the start. Cards
    not on the list are taken too, each resolved against the database (any number of them); a
    passcode the database does not hold is refused, nothing recorded."""
    wait_job(app_client, upload(app_client, SAMPLES / "decks" / "registered.ydk",
                                player="1000000005").json()["job"])
    swap = [{"section": "main", "card_id": 14558127, "count": 0},
            {"section": "side", "card_id": 14558127, "count": 2},
            {"section": "side", "card_id": 54693926, "count": 1},
            {"section": "main", "card_id": 54693926, "count": 2}]
    body = {"player": "1000000005", "round": 3, "cards": swap, "between_games": False}
    between = app_client.post("/api/deckchecks", json=dict(body, between_games=True)).json()
    assert between["match"] is True and between["mode"] == "between-games", between
    start = app_client.post("/api/deckchecks", json=body).json()
    assert start["match"] is False
    assert start["infractions"][0]["code"] == "SIDE_SWAP_BEFORE_FIRST_DUEL"  # a DECKLIST_MISMATCH
    odd = app_client.post("/api/deckchecks", json=dict(body, cards=[
        {"section": "main", "card_id": 4280258, "count": 1}]))
    assert odd.status_code == 400 and app_client.get("/api/infractions").json() == []
    two = app_client.post("/api/deckchecks", json=dict(body, between_games=True, cards=swap + [
        {"section": "main", "card_id": 55144522, "count": 1},
        {"section": "side", "card_id": 83764718, "count": 1}])).json()
    assert two["match"] is False, two
    assert {(d["card_id"], d["registered"], d["observed"]) for d in two["differences"]} >= {
        (55144522, 0, 1), (83764718, 0, 1)}, two["differences"]
