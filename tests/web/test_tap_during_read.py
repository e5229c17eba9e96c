"""Whose sheet it is, tapped while the sheet is still read (issue 35: a photo's header is read
before its rows). The desk-flow job shows its whose-sheet choices as soon as the reader wrote the
header (`preview.write_header_preview`); the judge's tap is kept in the job's row and carried out
when the read ends — only if the finished read gives the header the judge was shown and the
choice still holds (identity rules of issue 35 item 4 unchanged); a read that fails stores
nothing and says so; a read taken again keeps the tap. On the SQLite file and on PostgreSQL."""
from __future__ import annotations

import datetime as dt
import json

import pytest

from scanner.event.flows import prepare_registration
from scanner.event.stores import create_event, open_event
from scanner.inputs.options import ReadOptions
from scanner.web.config import StationConfig
from scanner.web.reader import ReadOutcome
from scanner.web.service import StationService
from scanner.web.service.core import StationError
from scanner.web.uploads import check_upload

from web.station import SAMPLES

SHEET = SAMPLES / "sheets" / "db-blue-eyes-gothic.pdf"  # 김하늘 · 0412345678 printed
KID, NAME = "0412345678", "김하늘"


@pytest.fixture(params=["sqlite", "postgresql"])
def service(request, tmp_path, clean_env):
    if request.param == "sqlite":
        event = str(tmp_path / "event.sqlite")
    else:
        event = request.getfixturevalue("pg_db") + "?event=tap-test"
    create_event(event, "탭 대회", dt.date(2026, 7, 12)).close()
    yield StationService(StationConfig(event_path=event, key="k" * 16,
                                       workers=1 if request.param == "sqlite" else 0))


def _read(service):
    return prepare_registration(str(SHEET), service.db, service.limits,
                                ReadOptions(verify=False), keep_bytes=False)


def _roster(service, rows: list[tuple[str, str, str | None]]) -> None:
    from scanner.web.station_store import RosterEntry

    with service.station() as st:
        st.upsert_roster([RosterEntry(k, n, t) for k, n, t in rows])


def _reading(service, header: dict | None = None) -> str:
    """A desk-flow upload whose reader has begun and written the sheet's header (not its rows)."""
    job = service.submit(check_upload(SHEET.read_bytes(), SHEET.name), None, None, "J",
                         ask_player=True)
    with service.station() as st:
        st.mark_running(job.id)
    path = service.preview_file(job)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"player": header or {"name": NAME, "konami_id": KID,
                                                      "id_sure": True},
                                "stage": "header"}, ensure_ascii=False), encoding="utf-8")
    return job.id


def _stored(service) -> list[str]:
    with open_event(service.config.event_path) as store:
        return [r.konami_id for r in store.registrations()]


def _end(service, job_id: str, outcome: ReadOutcome | None = None) -> dict:
    service.complete(service.job(job_id), outcome or ReadOutcome(prepared=_read(service),
                                                                   seconds=1.0))
    return service.job(job_id).to_json()


def test_the_choices_come_with_the_header_and_the_tap_is_stored_when_the_read_ends(service):
    _roster(service, [(KID, NAME, "7"), ("1098765432", "이서준", "8")])
    job = _reading(service)
    shown = service.job(job).to_json()
    assert shown["state"] == "running" and shown["decision"] == "player"
    assert shown["match"]["player"] == KID and shown["sheet"]["id_sure"] is True
    tapped = service.decide(job, "store", "박저지", player=KID).to_json()
    assert tapped["state"] == "running" and tapped["tapped"]["player"] == KID
    assert "decision" not in tapped and "match" not in tapped  # the buttons go
    assert _stored(service) == []  # nothing stored before the read ends
    # The same tap sent again (a phone's retry) is the same tap; another player is refused.
    assert service.decide(job, "store", "박저지", player=KID).to_json()["tapped"]["player"] == KID
    with pytest.raises(StationError) as other:
        service.decide(job, "store", "다른저지", player="1098765432", confirm="8")
    assert other.value.status == 409 and KID in str(other.value)
    done = _end(service, job)
    assert done["state"] == "done" and done["result"]["player"] == KID
    assert done["result"]["player_source"] == "confirmed"
    assert _stored(service) == [KID]
    with open_event(service.config.event_path) as store:
        reg = store.registrations()[0]
        assert reg.confirmation is not None and reg.confirmation.judge == "박저지"
        logged = [(actor, detail) for _, actor, action, detail in store.audit_log()
                  if action == "checkin-decided"]
    assert logged == [("박저지", {"job": job, "decision": "player", "choice": "store",
                                 "player": KID, "how": "desk", "during_read": True})]


def test_a_tap_whose_sheet_the_finished_read_contradicts_is_asked_again(service):
    # The header read early named 0412345679 (on the roster: one tap); the finished read says
    # 0412345678: the tap is not applied to a sheet the judge was not shown.
    _roster(service, [(KID, NAME, "7"), ("0412345679", "김하늘", "9")])
    job = _reading(service, {"name": NAME, "konami_id": "0412345679", "id_sure": True})
    service.decide(job, "store", "J", player="0412345679")
    held = _end(service, job)
    assert held["state"] == "needs-decision" and held["decision"] == "player" and held["again"]
    assert "0412345679" in held["detail"] and "다시 고르세요" in held["detail"]
    assert _stored(service) == []
    assert held["match"]["player"] == KID  # the finished read's own choices
    done = service.decide(job, "store", "J", player=KID).to_json()
    assert done["state"] == "done" and done["result"]["player"] == KID


def test_a_read_that_fails_after_the_tap_stores_nothing_and_says_so(service):
    _roster(service, [(KID, NAME, "7")])
    job = _reading(service)
    service.decide(job, "store", "J", player=KID)
    failed = _end(service, job, ReadOutcome(error="사진을 읽지 못했습니다"))
    assert failed["state"] == "failed" and KID in failed["error"]
    assert "아무것도 저장되지 않았습니다" in failed["error"]
    assert _stored(service) == []
    with pytest.raises(StationError):  # nothing to decide on a failed read
        service.decide(job, "store", "J", player=KID)


def test_a_read_taken_again_keeps_the_tap(service):
    _roster(service, [(KID, NAME, "7")])
    job = _reading(service)
    service.decide(job, "store", "J", player=KID)
    with service.station() as st:  # the reader stopped (a restart, a dead reader): read again
        st.requeue(job)
        assert st.job(job).state == "queued"
        st.mark_running(job)
    assert service.job(job).to_json()["tapped"]["player"] == KID
    assert _end(service, job)["result"]["player"] == KID


def test_with_no_tap_the_sheet_waits_and_a_late_tap_is_a_held_sheets(service):
    _roster(service, [(KID, NAME, "7")])
    job = _reading(service)
    held = _end(service, job)
    assert held["state"] == "needs-decision" and not held["again"]
    done = service.decide(job, "store", "J", player=KID).to_json()
    assert done["state"] == "done" and done["result"]["player"] == KID


def test_before_the_header_is_read_there_is_nothing_to_tap(service):
    _roster(service, [(KID, NAME, "7")])
    job = service.submit(check_upload(SHEET.read_bytes(), SHEET.name), None, None, "J",
                         ask_player=True)
    assert "decision" not in service.job(job.id).to_json()
    with pytest.raises(StationError) as early:
        service.decide(job.id, "store", "J", player=KID)
    assert early.value.status == 409


def test_namesakes_during_the_read_need_the_table_or_digits(service):
    # The sheet's ID is not on the roster; two players share its name: both offered, told apart,
    # and neither stored by a bare tap.
    _roster(service, [("1000000001", NAME, "3"), ("1000000002", NAME, "4")])
    job = _reading(service)
    shown = service.job(job).to_json()
    assert shown["match"] is None
    assert {(c["player"], c["same_name"]) for c in shown["candidates"]} == {
        ("1000000001", 1), ("1000000002", 1)}
    with pytest.raises(StationError) as bare:
        service.decide(job, "store", "J", player="1000000002")
    assert bare.value.status == 422
    assert service.decide(job, "store", "J", player="1000000002",
                          confirm="4").to_json()["tapped"]["player"] == "1000000002"
    done = _end(service, job)
    assert done["state"] == "done" and done["result"]["player"] == "1000000002"


def test_a_player_not_on_the_roster_is_added_from_the_header_when_the_read_ends(service):
    _roster(service, [("1098765432", "이서준", "8")])
    job = _reading(service)
    shown = service.job(job).to_json()
    assert shown["sheet"]["addable"] is True
    service.decide(job, "store", "J", add=True)
    with service.station() as st:
        assert st.roster_entry(KID) is None  # added only with the finished read
    done = _end(service, job)
    assert done["state"] == "done" and done["result"]["player"] == KID
    with service.station() as st:
        assert st.roster_entry(KID).name == NAME


def test_an_unsure_id_during_the_read_needs_its_last_digits(service):
    _roster(service, [(KID, NAME, "7")])
    job = _reading(service, {"name": NAME, "konami_id": KID, "id_sure": False})
    shown = service.job(job).to_json()
    assert shown["match"] is None and shown["candidates"][0]["player"] == KID
    with pytest.raises(StationError):
        service.decide(job, "store", "J", player=KID)
    service.decide(job, "store", "J", player=KID, confirm="5678")
    # The finished read gives the ID read with confidence: not the header the judge was shown
    # (an unsure one) — asked again, never stored on a changed basis.
    held = _end(service, job)
    assert held["state"] == "needs-decision" and held["again"]
