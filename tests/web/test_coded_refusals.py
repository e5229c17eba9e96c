"""What the event record refuses reaches the judge as its own Korean line, on an event file and
on a PostgreSQL event alike (never the fallback 「대회 기록이 요청을 거절했습니다」)."""
from __future__ import annotations

import dataclasses
import datetime as dt
import warnings

import pytest

from card_db.messages import ko
from scanner.event.records import NewInfraction
from scanner.event.stores import create_event, open_event

from web.station import KEY, SAMPLES

FALLBACK = ko.MESSAGES["event.refused"]


@pytest.fixture(params=["sqlite", "postgresql"])
def event_target(request, tmp_path, clean_env) -> str:
    if request.param == "sqlite":
        target = str(tmp_path / "event.sqlite")
    else:
        target = request.getfixturevalue("pg_db") + "?event=refusals"
    create_event(target, "거절 대회", dt.date(2026, 7, 12)).close()
    return target


def test_a_read_whose_original_is_gone_fails_its_job_with_the_korean_line(event_target,
                                                                         demo_db):
    """A finished read names an original the record does not hold: the job fails with the
    record's own reason (`event.file-missing`), and nothing is registered."""
    from scanner.event.flows import prepare_registration
    from scanner.web.config import StationConfig
    from scanner.web.reader import ReadOutcome
    from scanner.web.service import StationService
    from scanner.web.uploads import check_upload

    ydk = SAMPLES / "decks" / "registered.ydk"
    service = StationService(StationConfig(event_path=event_target, key=KEY, workers=1), demo_db)
    job = service.submit(check_upload(ydk.read_bytes(), "d.ydk"), "1000000001", None, "J")
    prepared = prepare_registration(str(ydk), service.db, service.limits, keep_bytes=False)
    gone = dataclasses.replace(prepared, sha256="e" * 64)
    service.complete(service.job(job.id), ReadOutcome(prepared=gone))
    failed = service.job(job.id)
    assert failed.state == "failed"
    assert failed.error == ko.MESSAGES["event.file-missing"].format(sha="e" * 12) != FALLBACK
    with open_event(event_target) as store:
        assert store.registrations() == []


def test_a_write_the_database_refuses_is_shown_in_korean(pg_db, demo_db, clean_env):
    """A station signed in with a reading machine's role (no INSERT on amendments): voiding an
    infraction is refused by the database, and the judge reads why in Korean."""
    import psycopg

    from scanner.web.app import build_app
    from scanner.web.config import StationConfig
    from scanner.web.service import StationService
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from starlette.testclient import TestClient

    url = pg_db + "?event=refused"
    with create_event(url, "거절 대회", dt.date(2026, 7, 12)) as store:
        reg = store.add_registration("0000000001", "김결투", {}, store.store_file(b"x"), "x",
                                     True, [], None)
        _, (issued,) = store.add_deck_check("0000000001", 1, reg.id, "full", False, None, {}, {},
                                            [NewInfraction("DECKLIST_MISMATCH", "GAME_LOSS",
                                                           "fix")], "J")
    with psycopg.connect(pg_db, autocommit=True) as su:
        su.execute("DROP ROLE IF EXISTS reader1")
        su.execute("CREATE ROLE reader1 LOGIN IN ROLE decksheet_worker")
    config = StationConfig(event_path=url.replace("decksheet@", "reader1@"), key=KEY, workers=0,
                           card_db=(str(demo_db.path),))
    app = build_app(config, StationService(config, demo_db), start_runner=False)
    with TestClient(app, base_url="http://127.0.0.1",
                    headers={"Authorization": f"Bearer {KEY}", "X-Judge": "head"}) as client:
        r = client.post(f"/api/infractions/{issued.id}/void", json={"reason": "착오"})
    error = r.json()["error"]
    assert r.status_code == 400 and error != FALLBACK
    assert error.startswith("대회 기록이 저장되지 않았습니다") and "permission denied" in error
    with open_event(url) as store:
        assert store.infraction(issued.id).status == "active"


def test_a_decided_job_may_be_held_again_by_the_next_guard(event_target, demo_db, tmp_path):
    """Both guards on one upload: the judge lifts the first (the same original as another
    player's), the second (not like the player's previous deck) holds the job again — on both
    stores, one queue's rules — and the judge's second decision stores it."""
    from scanner.event.flows import prepare_registration
    from scanner.web.config import StationConfig
    from scanner.web.reader import ReadOutcome
    from scanner.web.service import StationService
    from scanner.web.uploads import check_upload

    service = StationService(StationConfig(event_path=event_target, key=KEY, workers=1), demo_db)
    main_ids = {int(x) for x in (SAMPLES / "decks" / "registered.ydk").read_text().split()
                if x.isdigit()}
    other = sorted(c for c in demo_db.cards if c not in main_ids)[:14]
    first = tmp_path / "other.ydk"
    first.write_text("#main\n" + "".join(f"{c}\n" * 3 for c in other) + "#extra\n!side\n")

    def upload(path, kid: str):
        job = service.submit(check_upload(path.read_bytes(), path.name), kid, None, "J")
        prepared = prepare_registration(str(path), service.db, service.limits, keep_bytes=False)
        service.complete(service.job(job.id), ReadOutcome(prepared=prepared))
        return service.job(job.id)

    ydk = SAMPLES / "decks" / "registered.ydk"
    assert upload(ydk, "1000000001").state == "done"
    assert upload(first, "1000000002").state == "done"
    held = upload(ydk, "1000000002")  # 1000000001's original, and nothing like v1
    assert (held.state, held.to_json()["decision"]) == ("needs-decision", "duplicate-original")
    again = service.decide(held.id, "store", "J")
    assert (again.state, again.to_json()["decision"]) == ("needs-decision",
                                                          "implausible-version")
    done = service.decide(held.id, "store", "J")
    assert (done.state, done.result["player"], done.result["version"]) == \
        ("done", "1000000002", 2)
