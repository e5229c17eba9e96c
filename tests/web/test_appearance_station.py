"""The station shows a PDF line whose page differs from its text like any review item: the
Korean label, and the rendered crop of the cell (issue 25)."""
from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from web.station import wait_job

pytest.importorskip("reportlab")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import forgery  # noqa: E402

from scanner.vocab import REASON_KO  # noqa: E402


def test_a_forged_pdf_shows_the_appearance_flag_in_korean_with_its_crop(app_client, tmp_path):
    app_client.post("/api/roster", content="player,name\n5566778899,박지우\n")
    pdf = forgery.make("white-box", tmp_path / "sheet.pdf")
    r = app_client.post("/api/registrations", files={"file": ("sheet.pdf", pdf.read_bytes())})
    job = wait_job(app_client, r.json()["job"])
    assert job["state"] == "done", job
    view = app_client.get("/api/players/5566778899").json()
    assert view["status"] == "needs-review"
    flagged = view["flagged"]
    assert [f["place"] for f in flagged] == ["몬스터 1"]
    assert flagged[0]["crop"].startswith("/crops/") and "appearance" in flagged[0]["crop"]
    crop = app_client.get(flagged[0]["crop"])
    assert crop.status_code == 200 and crop.content.startswith(b"\x89PNG")
    page = app_client.get("/players/5566778899", headers={"X-Judge": quote("박저지")})
    assert page.status_code == 200, page.text[:300]
    assert REASON_KO["appearance-differs"] in page.text


@pytest.mark.parametrize("kind, player, place", [("form-name-widgets-swapped", "1098765432", "몬스터 1"),
                                                 ("print-only-annotation", "5566778899", None)])
def test_a_two_reading_forgery_is_shown_in_korean_and_never_legal(kind, player, place, app_client,
                                                                  tmp_path):
    """Issue 33: the image reader's reading of the pages disagrees with the text; the station
    shows the flag with its Korean label (and the line's place), and the sheet needs review."""
    app_client.post("/api/roster", content="player,name\n5566778899,박지우\n1098765432,이서준\n")
    pdf = forgery.make(kind, tmp_path / "sheet.pdf")
    r = app_client.post("/api/registrations", files={"file": ("sheet.pdf", pdf.read_bytes())})
    job = wait_job(app_client, r.json()["job"])
    assert job["state"] == "done", job
    view = app_client.get(f"/api/players/{player}").json()
    assert view["status"] == "needs-review"
    if place is not None:
        assert place in [f["place"] for f in view["flagged"]]
    page = app_client.get(f"/players/{player}", headers={"X-Judge": quote("박저지")})
    assert page.status_code == 200, page.text[:300]
    assert REASON_KO["appearance-differs"] in page.text
