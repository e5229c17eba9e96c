"""Issue 37 at the station: nothing parses an upload in the server process; the readers refuse
hostile PDFs with the guard's reason, and a reader's death fails only the job whose file caused
it (files built by tests/hostile_pdfs.py)."""
from __future__ import annotations

import ast
import time

import pytest

from tests import hostile_pdfs as hp
from web.station import REPO, SAMPLES

WEB_SIDE = ("scanner/web",)
READER_SIDE = {"reader.py"}  # runs in the reader processes
LIBRARIES = ("pypdfium2", "pypdf", "PIL", "cv2", "pillow_heif", "tesserocr", "scanner.pdf",
             "scanner.ocr", "scanner.appearance", "scanner.inputs.image_header",
             "scanner.inputs.pdf_streams")


def test_no_module_of_the_server_process_opens_an_upload_with_a_library():
    offenders = []
    for path in sorted((REPO / "scanner" / "web").rglob("*.py")):
        if path.name in READER_SIDE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            offenders += [f"{path.relative_to(REPO)}: {n}" for n in names
                          if n.split(".")[0] in LIBRARIES or n.startswith(LIBRARIES)]
    assert offenders == []


def _vm_hwm_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


@pytest.mark.slow
def test_hostile_pdfs_uploaded_to_a_live_station_fail_alone(event_path, tmp_path):
    """Issue 37: the double-Flate object stream and the lone-CR bomb, uploaded beside an
    honest photo: each fails its own job with the guard's reason in Korean, the server
    process stays small (it never opens them), and the photo is registered."""
    from web.station import start_server, wait_job

    srv = start_server(event_path, tmp_path / "no-fetched-data", workers=2)
    try:
        with srv.client() as c:
            ids = {}
            for name in ("objstm-double-flate", "lone-cr-stream"):
                data = hp.BUILDERS[name](0.05)
                r = c.post("/api/registrations", files={"file": (f"{name}.pdf", data)},
                           data={"player": "0412345678"})
                assert r.status_code == 202, r.text
                ids[name] = r.json()["job"]
            photo = SAMPLES / "photos" / "photo-corrected-02.jpg"
            r = c.post("/api/registrations", files={"file": (photo.name, photo.read_bytes())})
            ids["photo"] = r.json()["job"]
            got = {name: wait_job(c, job, timeout=240) for name, job in ids.items()}
        for name in ("objstm-double-flate", "lone-cr-stream"):
            assert got[name]["state"] == "failed", got[name]
            assert "압축된 부분이 32 MB 넘게 풀립니다" in got[name]["error"], got[name]
        assert got["photo"]["state"] in ("done", "needs-decision"), got["photo"]
        assert _vm_hwm_mb(srv.proc.pid) < 400, _vm_hwm_mb(srv.proc.pid)
    finally:
        srv.stop()


@pytest.mark.slow
def test_a_reader_death_fails_only_the_job_whose_file_caused_it(event_path):
    """Two readers: a file that kills its reader (tests/web/fault_reader.py) and an honest
    photo in flight beside it. The photo is registered (read on, or lost with the killer's
    reader and read again alone); the killer fails "too large or damaged" once it has died
    alone twice."""
    from scanner.web.config import StationConfig
    from scanner.web.jobs import JobRunner
    from scanner.web.service import StationService
    from scanner.web.uploads import check_upload
    from web.fault_reader import KILLER, read_or_die
    from web.station import KEY

    service = StationService(StationConfig(event_path=event_path, key=KEY, workers=2))
    runner = JobRunner(service, 2, read=read_or_die)
    photo = SAMPLES / "photos" / "photo-corrected-02.jpg"
    killer = service.submit(check_upload(KILLER + b"%%EOF\n", "k.pdf"), "0412345678", None, "j")
    honest = service.submit(check_upload(photo.read_bytes(), photo.name), None, None, "j")
    runner.start()  # both queued: the two readers take them together
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            jobs = {j.id: service.job(j.id) for j in (killer, honest)}
            if all(j.state in ("done", "failed", "needs-decision") for j in jobs.values()):
                break
            time.sleep(0.3)
        k, h = jobs[killer.id], jobs[honest.id]
        assert h.state in ("done", "needs-decision") and not h.error, (h.state, h.error)
        # read beside the killer's death, or lost with it and read again alone: never failed
        assert h.attempts in (1, 2), h.attempts
        assert k.state == "failed" and "너무 크거나 손상" in k.error, (k.state, k.error)
        # A death takes every read of the pool: the photo read twice died beside the killer,
        # whose death there was no proof (then alone twice: 3); a photo read once was not in
        # flight at the first death (on a loaded machine one reader may take the jobs one after
        # the other), and the killer died alone twice (2).
        assert k.attempts == h.attempts + 1, (k.attempts, h.attempts)
    finally:
        runner.stop(5)
