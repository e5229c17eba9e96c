"""The station starts its readers, warmed, before the desk's first sheet (issue 35: the judge
waits for the read of every photo; the first read of a cold reader also loaded the Tesseract
models, the name fonts and OpenCV — ≈ 0.4 s of processor time more, plus the process start)."""
from __future__ import annotations

import os

from web.reader_probe import loaded_engines
from web.station import SAMPLES, spawned_readers, wait_job


def _runner(app_client):
    app = app_client.app
    while not hasattr(app, "state"):
        app = app.app
    return app.state.runner


def test_readers_are_started_and_warmed_before_any_sheet(app_client):
    runner = _runner(app_client)
    answers = [f.result(timeout=120) for f in runner.ready]
    assert len(answers) == runner.workers == 1
    pid, warmed = answers[0]
    assert warmed is not None and warmed > 0  # init_worker ran the warming
    assert pid in spawned_readers(os.getpid())  # started with the station, no sheet sent
    before = runner._pool.submit(loaded_engines).result(timeout=60)
    assert before, "no Tesseract engine loaded by the warming"

    # A pen-corrected photo read in that reader loads no engine the warming did not.
    photo = SAMPLES / "photos" / "photo-corrected-02.jpg"
    with open(photo, "rb") as f:
        r = app_client.post("/api/registrations", files={"file": (photo.name, f)},
                            data={"player": "1098765432"})
    assert r.status_code == 202, r.text
    assert wait_job(app_client, r.json()["job"], timeout=300)["state"] == "done"
    assert spawned_readers(os.getpid()) == [pid]  # the same reader read it
    after = runner._pool.submit(loaded_engines).result(timeout=60)
    assert after == before, f"the read loaded engines the warming does not: {set(after) - set(before)}"
