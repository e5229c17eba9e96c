"""Part 7 of issue 26: the dashboard (and `GET /api/players`) and the audit give each player
one status, from one function. Players in every state: legal, illegal, needs review, review
decided, withdrawn (back to not registered), and a version withdrawn over an older one."""
from __future__ import annotations

from web.station import KEY, SAMPLES, wait_job

LEGAL = (SAMPLES / "decks" / "registered.ydk").read_bytes()
ILLEGAL = (SAMPLES / "decks" / "illegal.txt").read_bytes()
OTHER = (SAMPLES / "decks" / "legal.ydk").read_bytes() + b"\n# v1\n"


def _upload(client, data: bytes, player: str, fname: str):
    r = client.post("/api/registrations", files={"file": (fname, data)}, data={"player": player})
    assert r.status_code == 202, r.text
    job = wait_job(client, r.json()["job"])
    assert job["state"] == "done", job
    return job["result"]


def test_dashboard_status_is_the_audit_status_for_every_state(app_client, event_path, tmp_path):
    client = app_client
    _upload(client, LEGAL, "1000000001", "legal.ydk")
    _upload(client, ILLEGAL, "1000000002", "illegal.txt")
    from click.testing import CliRunner
    from scanner.cli import main

    text = CliRunner().invoke(main, ["convert", str(SAMPLES / "decks" / "registered.ydk"),
                                     "--to", "text"]).stdout
    assert "2 하루 우라라" in text
    unsure = text.replace("2 하루 우라라", "2 하루", 1)  # a line the reader is not sure of
    res = _upload(client, unsure.encode(), "1000000003", "unsure.txt")
    assert res["needs_review"] > 0, res
    _upload(client, unsure.encode() + b"\n", "1000000004", "unsure2.txt")
    flagged = client.get("/api/players/1000000004").json()["flagged"]
    decisions = [{"section": f["section"], "line": f["line"], "action": "choose",
                  "card_id": next(c["card_id"] for c in f["candidates"]
                                  if c["name"] == "하루 우라라"), "count": 2} for f in flagged]
    r = client.post("/api/players/1000000004/review", json={"version": 1, "decisions": decisions})
    assert r.status_code == 200, r.text
    _upload(client, LEGAL + b"\n# w\n", "1000000005", "w.ydk")
    assert client.post("/api/players/1000000005/versions/1/withdraw",
                       json={"reason": "다른 선수의 시트"}).status_code == 200
    _upload(client, OTHER, "1000000006", "v1.ydk")
    _upload(client, LEGAL + b"\n# v2\n", "1000000006", "v2.ydk")
    assert client.post("/api/players/1000000006/versions/2/withdraw",
                       json={"reason": "잘못 올림"}).status_code == 200

    dashboard = {p["player"]: p["status"] for p in client.get("/api/players").json()}
    from scanner.web.config import StationConfig
    from scanner.web.service import StationService

    service = StationService(StationConfig(event_path=event_path, key=KEY, workers=1))
    audit = service.run_audit(tmp_path / "audit", log=False)
    assert audit["statuses"] == dashboard, (audit["statuses"], dashboard)
    assert dashboard["1000000001"] == "legal" and dashboard["1000000002"] == "illegal"
    assert dashboard["1000000005"] == "not-registered"
    assert dashboard["1000000006"] == "legal"
    assert (dashboard["1000000003"], dashboard["1000000004"]) == ("needs-review", "legal")
    # the audit counts no withdrawn version as a player's registration
    withdrawn = [{k: v for k, v in w.items() if k != "id"} for w in audit["withdrawn"]]
    assert "1000000005" not in audit["verdicts"] and withdrawn == [
        {"player": "1000000005", "version": 1, "reason": "다른 선수의 시트",
         "judge": "test-judge", "time": audit["withdrawn"][0]["time"]},
        {"player": "1000000006", "version": 2, "reason": "잘못 올림",
         "judge": "test-judge", "time": audit["withdrawn"][1]["time"]}]
    assert audit["registrations"] == 5
    html = (tmp_path / "audit" / "report.html").read_text(encoding="utf-8")
    assert "철회됨" in html and "잘못 올림" in html


def test_a_re_read_that_reads_otherwise_keeps_the_judges_decision(app_client, event_path,
                                                                  tmp_path):
    """What part 7 saw: the audit re-read a sheet, the re-read spelt a decided line otherwise,
    the decision (which answers one reading) no longer applied, and the audit called a player
    확인 필요 whom the dashboard showed as done. The audit checks the confirmed list and
    reports the differing re-read as an integrity problem."""
    from click.testing import CliRunner
    from scanner.cli import main
    from scanner.event.records import ReviewDecision
    from scanner.event.stores import open_event
    from scanner.web.config import StationConfig
    from scanner.web.service import StationService

    text = CliRunner().invoke(main, ["convert", str(SAMPLES / "decks" / "registered.ydk"),
                                     "--to", "text"]).stdout
    _upload(app_client, text.replace("2 하루 우라라", "2 하루", 1).encode(), "1000000007",
            "a.txt")
    with open_event(str(event_path)) as store:
        reg = store.latest_registration("1000000007")
        line = next(n for n, e in enumerate(reg.decklist_json["sections"]["main"], 1)
                    if e["needs_review"])
        read = reg.decklist_json["sections"]["main"][line - 1]["read"]
        # the same stored read, but an original that now reads the line otherwise
        sha = store.store_file(text.replace("2 하루 우라라", "2 하루 우라", 1).encode())
        stored = {k: v for k, v in reg.decklist_json.items() if k != "station_job"}
        other = store.add_registration("1000000008", None, stored, sha, "b.txt",
                                       False, reg.infractions, reg.list_name, judge="j")
        card = next(c["card_id"] for c in reg.decklist_json["sections"]["main"][line - 1]
                    ["candidates"] if c["name"] == "하루 우라라")
        store.add_decisions([ReviewDecision(other.id, "main", line, read, "choose", card, 2)],
                            "j")
    dashboard = {p["player"]: p["status"] for p in app_client.get("/api/players").json()}
    assert dashboard["1000000008"] == "legal"
    service = StationService(StationConfig(event_path=event_path, key=KEY, workers=1))
    audit = service.run_audit(tmp_path / "audit", log=False)
    assert audit["statuses"] == dashboard
    assert "1000000008" not in audit["needs_review"]
    assert "1000000008" in audit["problems"], audit
    assert any(p.startswith("reads-differently") for p in audit["problems"]["1000000008"]), audit
