"""Several machines on one PostgreSQL event: the leased job queue, one registration per job,
and a run of real `serve` front-ends and `worker` processes with one of each SIGKILLed."""
from __future__ import annotations

import datetime as dt
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from scanner.event.stores import create_event, open_event
from scanner.web.station_store_pg import MAX_ATTEMPTS, PgStationStore

from web.station import KEY, REPO, SAMPLES, child_env, start_server


@pytest.fixture
def pg_event(pg_db) -> str:
    url = pg_db + "?event=queue-test"
    create_event(url, "큐 대회", dt.date(2026, 7, 12)).close()
    return url


def test_claim_skips_locked_jobs_keeps_a_players_order_and_retakes_after_the_lease(pg_event):
    with PgStationStore(pg_event) as st:
        a1 = st.add_job("a" * 64, "a1.pdf", "0000000001", None, "J")
        a2 = st.add_job("b" * 64, "a2.pdf", "0000000001", None, "J")
        b1 = st.add_job("c" * 64, "b1.pdf", None, None, "J")
        assert [j.seq for j in (a1, a2, b1)] == [1, 2, 3]
        # Two machines at once: different jobs; player 1's second upload waits for the first.
        with PgStationStore(pg_event) as other:
            got = [st.claim("m1", 1.0), other.claim("m2", 30)]
            assert [j.id for j in got] == [a1.id, b1.id]
            assert other.claim("m2", 30) is None
            assert other.renew(a1.id, "m2", 30) is False  # not its job
        # m1 dies: nobody renews; after the lease the job is taken again (attempt 2).
        time.sleep(1.3)
        again = st.claim("m3", 30)
        assert (again.id, again.attempts, again.state) == (a1.id, 2, "running")
        st.finish(a1.id, {"ok": 1}, None)
        st.finish(a1.id, None, "late answer of the dead reader")  # ignored: done stays done
        assert (st.job(a1.id).state, st.job(a1.id).result) == ("done", {"ok": 1})
        assert st.claim("m3", 30).id == a2.id  # now the player's next upload
        assert [j.id for j in st.jobs()] == [a2.id, b1.id]


def test_a_job_that_kills_every_reader_fails(pg_event):
    with PgStationStore(pg_event) as st:
        job = st.add_job("d" * 64, "bomb.pdf", None, None, None)
        for n in range(MAX_ATTEMPTS):
            assert st.claim(f"m{n}", 0.2).id == job.id
            time.sleep(0.3)
        assert st.claim("last", 30) is None
        done = st.job(job.id)
        assert done.state == "failed" and "중단" in done.error and done.attempts == MAX_ATTEMPTS


def test_one_registration_per_job_in_the_database(pg_event):
    """Two readers finishing the same job (a lease ran out during a slow read): one version."""
    results = []

    def finish() -> None:
        with open_event(pg_event) as s:
            sha = s.store_file(b"sheet")
            results.append(s.add_registration("0000000001", "A", {"station_job": "j1"}, sha,
                                              "a.pdf", True, [], None))

    threads = [threading.Thread(target=finish) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len({(r.id, r.version) for r in results}) == 1 and len(results) == 4
    with open_event(pg_event) as s:
        assert len(s.registrations()) == 1
        import psycopg
        with pytest.raises(psycopg.errors.UniqueViolation):
            s.backend.con.execute("INSERT INTO registrations SELECT event, 99, konami_id, 2, file_sha256, "
                          "file_name, reader, decklist_json, legal, needs_review, "
                          "infractions_json, list_name, judge, created_at, job_id "
                          "FROM registrations")


def test_station_roles_cannot_rewrite_records(pg_server, pg_event):
    """Least privilege: a desk's login role (member of decksheet_station) inserts records and
    runs the queue, but UPDATE/DELETE/TRUNCATE of a record is refused by privilege."""
    import psycopg
    with psycopg.connect(pg_event.split("?")[0], autocommit=True) as su:
        su.execute("DROP ROLE IF EXISTS desk1")
        su.execute("CREATE ROLE desk1 LOGIN IN ROLE decksheet_station")
    desk = pg_event.replace("decksheet@", "desk1@")
    with open_event(desk) as store:
        reg = store.add_registration("0000000001", "A", {}, store.store_file(b"x"), "x", True,
                                     [], None)
        assert reg.version == 1
        for sql in ("UPDATE registrations SET legal = 0", "DELETE FROM audit_log",
                    "TRUNCATE infractions", "INSERT INTO events VALUES ('x', 'x', 'x', NULL, 'x')",
                    "DROP TABLE registrations"):
            with pytest.raises(psycopg.Error, match="permission denied|must be owner"):
                store.backend.con.execute(sql)
    with PgStationStore(desk) as st:
        job = st.add_job("e" * 64, None, None, None, None)
        assert st.claim("desk1", 30).id == job.id


def _upload(server, path: Path, kid: str) -> str:
    with server.client() as c:
        r = c.post("/api/registrations", files={"file": (path.name, path.read_bytes())},
                   data={"player": kid})
        assert r.status_code == 202, r.text
        return r.json()["job"]


def _another_copy(path: Path, folder: Path) -> Path:
    """The same sheet as another original: a line past the end (a PDF's reader ignores what
    follows %%EOF; a .ydk its comment)."""
    copy = folder / f"v2-{path.name}"
    copy.write_bytes(path.read_bytes() + (b"\n% v2\n" if path.suffix == ".pdf" else b"\n# v2\n"))
    return copy


def _job_held_by(url: str, pid: int, seconds: float) -> str | None:
    """The id of a job a worker process (by pid) is reading, once it has one."""
    end = time.monotonic() + seconds
    with PgStationStore(url) as st:
        while time.monotonic() < end:
            row = st.con.execute("SELECT id FROM station_jobs WHERE state = 'running' AND "
                                 "worker LIKE %s", (f"%:{pid}:%",)).fetchone()
            if row:
                return row["id"]
            time.sleep(0.05)
    return None


def _start_worker(url: str, data_dir: Path, readers: int, lease: float,
                  card_db: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", "from scanner.cli import main; main()", "worker", "--event", url,
         "-j", str(readers), "--lease", str(lease), "--card-db", str(card_db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env(data_dir),
        cwd=REPO)
    line = proc.stdout.readline()
    assert line.startswith("decksheet worker: "), (line, proc.stderr.read()[-2000:]
                                                   if proc.poll() is not None else "")
    return proc


@pytest.mark.timeout(600)
def test_two_front_ends_and_workers_one_of_each_killed(pg_event, tmp_path, demo_db,
                                                        monkeypatch):
    """2 `serve` + 2 `worker` processes on one event; uploads through both front-ends; a
    worker is SIGKILLed while it holds a job and a front-end is SIGKILLed half-way; a dead
    reader's lease is left behind too. Every upload is registered exactly once, versions in
    upload order."""
    monkeypatch.setenv("DECKSHEET_CARD_DB", str(demo_db.path))
    data = tmp_path / "data"
    sheets = sorted((SAMPLES / "sheets").glob("*.pdf")) + sorted((SAMPLES / "decks").glob("*.ydk"))
    fronts = [start_server(pg_event, data, workers=1,
                           extra=("--card-db", str(demo_db.path))) for _ in range(2)]
    workers = [_start_worker(pg_event, data, 1, 3, demo_db.path) for _ in range(2)]
    try:
        jobs: list[tuple[str, str]] = []  # (job, player) in upload order
        dead = held = None
        slow = sorted((SAMPLES / "photos").glob("scan-*.pdf"))  # OCR: seconds per sheet
        for n in range(12):
            kid = f"{7000000000 + n % 8}"  # players 0-3 upload twice
            front = fronts[n % 2] if n <= 5 else fronts[1]  # front 0 is dead after upload 5
            sheet = slow[n % len(slow)] if n in (4, 5) else sheets[n % len(sheets)]
            if n >= 8:  # a player's second version: the sheet again, as another file (the
                # same file again at once is the same upload sent twice: one version)
                sheet = _another_copy(sheet, tmp_path)
            jobs.append((_upload(front, sheet, kid), kid))
            if n == 3:
                # A reader that took a job and died (its machine lost power): lease 2 s.
                with PgStationStore(pg_event) as st:
                    dead = st.claim("dead-machine", 2)
            if n == 5:
                # Kill worker 0 while it reads: more slow sheets until it holds one.
                for extra in range(8):
                    held = _job_held_by(pg_event, workers[0].pid, seconds=8)
                    if held is not None:
                        break
                    kid = f"{7000000100 + extra}"
                    jobs.append((_upload(fronts[1], slow[extra % len(slow)], kid), kid))
                workers[0].send_signal(signal.SIGKILL)
                fronts[0].proc.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 400
        with PgStationStore(pg_event) as st:
            while time.monotonic() < deadline and st.jobs():
                time.sleep(0.5)
            states = {j: st.job(j).state for j, _ in jobs}
            if dead is not None:
                assert st.job(dead.id).attempts >= 2
            assert held is not None, "the killed worker never held a job"
            assert st.job(held).attempts >= 2  # read again by another reader
        assert set(states.values()) == {"done"}, states
        with open_event(pg_event, readonly=True) as store:
            regs = store.registrations()
            marks = [r.decklist_json.get("station_job") for r in regs]
            assert sorted(marks) == sorted(j for j, _ in jobs)  # each job once, none lost
            for kid in {k for _, k in jobs}:
                mine = [j for j, k in jobs if k == kid]
                versions = {r.decklist_json["station_job"]: r.version
                            for r in regs if r.konami_id == kid}
                assert [versions[j] for j in mine] == list(range(1, len(mine) + 1))
        with fronts[1].client() as c:  # the surviving front-end shows every player
            assert len(c.get("/api/players").json()) == len({k for _, k in jobs})
        workers[1].send_signal(signal.SIGTERM)  # an idle worker stops cleanly
        assert workers[1].wait(60) == 0
    finally:
        for w in workers:
            if w.poll() is None:
                w.send_signal(signal.SIGTERM)
                try:
                    w.wait(30)
                except subprocess.TimeoutExpired:
                    w.kill()
        for f in fronts:
            f.stop()


def test_the_head_judges_season_page(pg_db, demo_db, clean_env):
    """On a database event the station shows a player's season: every event of the database."""
    import warnings

    from scanner.event.records import NewInfraction
    from scanner.web.app import build_app
    from scanner.web.config import StationConfig
    from scanner.web.service import StationService
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from starlette.testclient import TestClient

    for n, name in enumerate(("봄 대회", "여름 대회")):
        with create_event(f"{pg_db}?event=s{n}", name, dt.date(2026, 4 + 3 * n, 12)) as s:
            reg = s.add_registration("0000000001", "김결투", {}, s.store_file(b"x"), "x", True,
                                     [], None)
            s.add_deck_check("0000000001", 2, reg.id, "full", False, None, {}, {},
                             [NewInfraction("DECKLIST_MISMATCH", "GAME_LOSS", "fix")], "J")
    config = StationConfig(event_path=f"{pg_db}?event=s1", key=KEY, workers=0,
                           card_db=(str(demo_db.path),))
    app = build_app(config, StationService(config, demo_db))
    with TestClient(app, base_url="http://127.0.0.1",
                    headers={"Authorization": f"Bearer {KEY}"}) as client:
        page = client.get("/circuit/0000000001")
        assert page.status_code == 200
        assert "봄 대회" in page.text and "여름 대회" in page.text and "2개 이벤트" in page.text
        data = client.get("/api/circuit/0000000001").json()
        assert data["penalty_counts"] == {"GAME_LOSS": 2}
        assert client.get("/api/circuit/0000000009").status_code == 404
        page = client.get("/players/0000000001", headers={"X-Judge": "head"})
        assert 'href="/circuit/0000000001"' in page.text


def test_no_season_page_on_an_event_file(app_client):
    r = app_client.get("/api/circuit/0000000001")
    assert r.status_code == 404 and "PostgreSQL" in r.json()["error"]


def test_crops_of_a_read_on_another_machine_are_served(pg_event, demo_db, tmp_path,
                                                        monkeypatch):
    """A reader elsewhere keeps its line crops in the database; a front-end whose own crops
    folder is empty serves them by name (and nothing outside its folder)."""
    from scanner.web.config import StationConfig
    from scanner.web.service import StationService

    sha = "a" * 64
    made = tmp_path / "reader-machine" / sha
    made.mkdir(parents=True)
    (made / "main-03.png").write_bytes(b"\x89PNG crop")
    (made / "notes.txt").write_text("not a crop")
    with PgStationStore(pg_event) as st:
        assert st.put_crops(sha, made) == 1
        assert st.put_crops(sha, made) == 1  # again (a retried job): kept once
        assert st.con.execute("SELECT COUNT(*) AS n FROM station_crops").fetchone()["n"] == 1
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "front-end-cache"))
    config = StationConfig(event_path=pg_event, key=KEY, workers=0)
    service = StationService(config, demo_db)
    assert str(service.crops_root).startswith(str(tmp_path / "front-end-cache"))
    served = service.crop_file(sha, "main-03.png")
    assert served is not None and served.read_bytes() == b"\x89PNG crop"
    assert service.crop_file(sha, "missing.png") is None
    assert service.crop_file(sha, "../main-03.png") is None
    assert service._crop_url(str(made / "main-03.png")) == f"/crops/{sha}/main-03.png"


def test_a_held_registration_waits_and_is_settled_on_postgresql(pg_event):
    """The one registration path's guards on a database event: the same original for a second
    player ends the job `needs-decision` (nothing stored), and `decide` stores it."""
    from scanner.event.flows import prepare_registration
    from scanner.web.config import StationConfig
    from scanner.web.reader import ReadOutcome
    from scanner.web.service import StationService
    from scanner.web.uploads import check_upload

    ydk = SAMPLES / "decks" / "registered.ydk"
    service = StationService(StationConfig(event_path=pg_event, key="k" * 16, workers=0))
    prepared = prepare_registration(str(ydk), service.db, service.limits, keep_bytes=False)
    jobs = [service.submit(check_upload(ydk.read_bytes(), "d.ydk"), kid, None, "J")
            for kid in ("1000000001", "1000000002")]
    for job in jobs:
        service.complete(service.job(job.id), ReadOutcome(prepared=prepared))
    first, second = (service.job(j.id) for j in jobs)
    assert first.state == "done"
    assert second.state == "needs-decision"
    assert second.to_json()["decision"] == "duplicate-original"
    with open_event(pg_event) as store:
        assert [r.konami_id for r in store.registrations()] == ["1000000001"]
    settled = service.decide(second.id, "store", "J")
    assert settled.state == "done" and settled.result["player"] == "1000000002"
    with open_event(pg_event) as store:
        assert sorted(r.konami_id for r in store.registrations()) == ["1000000001", "1000000002"]


def test_a_database_event_refuses_audit_jobs_with_one_korean_line(pg_event, demo_db, clean_env):
    """Audit jobs queue in the SQLite event file: a PostgreSQL station refuses them cleanly
    (501, one line), records nothing, and knows no audit job ID."""
    import warnings

    from scanner.web.app import build_app
    from scanner.web.config import StationConfig
    from scanner.web.service import StationService
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from starlette.testclient import TestClient

    config = StationConfig(event_path=pg_event, key=KEY, workers=0,
                           card_db=(str(demo_db.path),))
    app = build_app(config, StationService(config, demo_db))
    with TestClient(app, base_url="http://127.0.0.1",
                    headers={"Authorization": f"Bearer {KEY}", "X-Judge": "head"}) as client:
        r = client.post("/api/audits", json={"formats": ["html"]})
        assert r.status_code == 501 and "감사" in r.json()["error"], r.text
        assert client.get("/api/jobs/0123456789abcdef").status_code == 404
        assert client.get("/api/audits/0123456789abcdef/files/report.html").status_code == 404
    with open_event(pg_event) as store:
        assert not [a for _, _, a, _ in store.audit_log() if a == "audit"]
