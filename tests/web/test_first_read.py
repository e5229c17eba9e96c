"""Issue 33 at the station: a text PDF's text-layer reading is shown at once, the verification
follows. The reader's hook fires with the text reading before the pages are verified, the
station's reader writes it beside the job's crops before the job ends, the job's status carries it
only while it runs, and the registration is stored from the verified read alone."""
from __future__ import annotations

import json
import pickle
import threading
import time
from pathlib import Path

import pytest

from web.station import KEY, SAMPLES

SHEET = SAMPLES / "sheets" / "db-blue-eyes-gothic.pdf"  # 김하늘 · 0412345678, 40/15/5


@pytest.fixture(scope="module")
def db():
    from card_db.cdb import load_card_db
    return load_card_db(None)  # the demo database: every sample card


def test_the_hook_fires_with_the_text_reading_before_verification(db, monkeypatch):
    import scanner.agreement as agreement
    from scanner.read import ReadOptions, read_input

    events: list[tuple[str, object]] = []
    real = agreement.verify_readings

    def verify(path, sheet, *args, **kwargs):
        events.append(("verify", len(sheet.lines)))
        return real(path, sheet, *args, **kwargs)

    monkeypatch.setattr(agreement, "verify_readings", verify)

    def hook(sheet):
        events.append(("text", (sheet.reader, len(sheet.lines), sheet.konami_id,
                                sum(ln.count or 0 for ln in sheet.lines))))

    sheet, _ = read_input(SHEET, db, ReadOptions(on_text_read=hook))
    assert [e[0] for e in events] == ["text", "verify"], events
    reader, lines, kid, cards = events[0][1]
    assert reader.startswith("pdf") and lines == len(sheet.lines) and kid == "0412345678"
    assert cards == 60  # 40 + 15 + 5 read off the text, before any picture is read

    # No verification to wait for: nothing to show early (the reading is final at once).
    events.clear()
    read_input(SHEET, db, ReadOptions(verify=False, on_text_read=hook))
    read_input(SAMPLES / "decks" / "legal.ydk", db, ReadOptions(on_text_read=hook))
    assert events == []


def test_a_failing_hook_costs_nothing_and_the_hook_is_never_pickled(db):
    from scanner.read import ReadOptions, read_input

    def broken(sheet):
        raise RuntimeError("a hook bug")

    sheet, _ = read_input(SHEET, db, ReadOptions(on_text_read=broken))
    assert sum(ln.count or 0 for ln in sheet.lines) == 60
    options = ReadOptions(on_text_read=broken, max_pages=3)
    back = pickle.loads(pickle.dumps(options))
    assert back.on_text_read is None and back.max_pages == 3 and back == options


def test_the_preview_file_appears_before_the_job_ends(db, event_path, monkeypatch):
    """The station's own reader (`read_original`), its verification held until the preview is
    looked at: the file holds the text's lines and player while the read is not done, and what
    the verified read then prepares is the same deck."""
    import scanner.agreement as agreement
    from scanner.web.config import StationConfig
    from scanner.web.preview import load_preview
    from scanner.web.reader import init_worker, read_original
    from scanner.web.service import StationService

    service = StationService(StationConfig(event_path=event_path, key=KEY, workers=1))
    init_worker(service.db.spec, service.limits)
    release, verifying = threading.Event(), threading.Event()
    real = agreement.verify_readings

    def held(*args, **kwargs):
        verifying.set()
        assert release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(agreement, "verify_readings", held)
    crops = Path(service.crops_dir("0" * 64))
    crops.mkdir(parents=True)
    preview = crops / "preview-0123456789abcdef.json"
    out: dict = {}
    reading = threading.Thread(target=lambda: out.update(
        outcome=read_original(str(SHEET), SHEET.name, str(crops), str(preview))))
    reading.start()
    try:
        assert verifying.wait(120), "the verification never began"
        shown = load_preview(preview)
        assert shown is not None and reading.is_alive() and "outcome" not in out
    finally:
        release.set()
        reading.join(120)
    assert shown["player"] == {"name": "김하늘", "konami_id": "0412345678"}
    assert {s["section"]: s["total"] for s in shown["sections"]} == {"main": 40, "extra": 15,
                                                                    "side": 5}
    assert "legal" not in json.dumps(shown) and "verdict" not in shown  # no verdict in it
    prepared = out["outcome"].prepared
    assert prepared is not None and prepared.legal
    final = [(s, e.card_id, e.count) for s in ("main", "extra", "side")
             for e in prepared.deck.sections[s]]
    assert final == [(s["section"], ln["card_id"], ln["count"])
                     for s in shown["sections"] for ln in s["lines"]]


def test_the_job_status_shows_the_text_reading_only_while_it_runs(event_path):
    """A real reading queue (one reader process whose verification takes 3 s longer,
    tests/web/slow_reader.py): `GET /api/jobs/ID` carries `preview` while the job runs — lines and
    player, no result — and not once it is done; the preview file is gone then, and one
    registration is stored, from the verified read."""
    from scanner.web.config import StationConfig
    from scanner.web.jobs import JobRunner
    from scanner.web.service import StationService
    from scanner.web.uploads import check_upload
    from web.slow_reader import read_slowly

    service = StationService(StationConfig(event_path=event_path, key=KEY, workers=1))
    service.import_roster("player,name\n0412345678,김하늘\n".encode(), "j")
    runner = JobRunner(service, 1, read=read_slowly)
    job = service.submit(check_upload(SHEET.read_bytes(), SHEET.name), None, None, "j")
    runner.start()
    seen: list[dict] = []
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            state = service.job(job.id).to_json()
            seen.append(state)
            if state["state"] in ("done", "failed", "needs-decision"):
                break
            time.sleep(0.1)
    finally:
        runner.stop(5)
    previews = [s for s in seen if s.get("preview")]
    assert previews, [s["state"] for s in seen]
    assert all(s["state"] == "running" and s["result"] is None for s in previews)
    first = previews[0]["preview"]
    assert first["player"]["konami_id"] == "0412345678"
    assert sum(s["total"] for s in first["sections"]) == 60
    end = seen[-1]
    assert end["state"] == "done" and "preview" not in end, end
    assert end["result"]["legal"] is True and end["result"]["version"] == 1
    assert not service.preview_file(service.job(job.id)).exists()
    assert [p.version for p in service.players() if p.konami_id == "0412345678"] == [1]
