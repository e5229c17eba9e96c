"""Problem 1 of issue 26: two audit exports at once killed the station for every desk (a
Tesseract crash in the server's own process). Audits now re-read sheets in reader processes,
one audit at a time; the server answers throughout."""
from __future__ import annotations

import threading

from web.station import SAMPLES, wait_job


def test_two_audit_exports_at_once_and_the_station_keeps_answering(server):
    with server.client() as c:
        for kid, deck in (("1000000011", "registered.ydk"), ("1000000012", "illegal.txt")):
            r = c.post("/api/registrations", data={"player": kid},
                       files={"file": (deck, (SAMPLES / "decks" / deck).read_bytes())})
            assert wait_job(c, r.json()["job"])["state"] == "done"
    answers: dict[str, int] = {}

    def fetch(what: str) -> None:
        with server.client() as c:
            r = c.get(f"/exports/{what}")
            answers[what] = r.status_code
            assert "1000000011" not in r.text or what.endswith(".csv")

    threads = [threading.Thread(target=fetch, args=(w,)) for w in ("audit.html", "audit.csv")]
    for t in threads:
        t.start()
    with server.client() as c:  # meanwhile, a desk
        assert c.get("/api/players").status_code == 200
    for t in threads:
        t.join(120)
    assert answers == {"audit.html": 200, "audit.csv": 200}
    assert server.proc.poll() is None
    with server.client() as c:
        assert len(c.get("/api/players").json()) == 2
