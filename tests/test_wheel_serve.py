"""A plain (non-editable) install works: the wheel built from this checkout, installed in a fresh
venv, starts `decksheet serve` and answers `/` (templates and static files are shipped)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import time
import venv
import zipfile
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parent.parent
KEY = "wheel-test-key-0123456789"


def _build_wheel(out: Path) -> Path:
    # From a clean copy (a stale build/ or *.egg-info of an earlier build would list files the
    # configuration no longer ships), built as `pip install .` builds it.
    src = out.parent / "src"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "*.egg-info", "__pycache__", "tests", "bench", "out"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                    "-q", "-w", str(out), str(src)], check=True, capture_output=True,
                   timeout=600)
    (wheel,) = out.glob("decksheet-*.whl")
    return wheel


@pytest.mark.slow
def test_wheel_ships_station_files_and_serves(tmp_path):
    wheel = _build_wheel(tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    for shipped in ("scanner/web/templates/base.html", "scanner/web/static/station.css",
                    "scanner/web/static/station.js", "scanner/ocr/data/digit_templates.npz",
                    "scanner/ocr/data/hand_digits.npz", "scanner/ocr/data/name_syllables.npz",
                    "scanner/ocr/data/name_net.npz", "scanner/ocr/data/card_net.npz",
                    "scanner/layouts/kde.toml", "scanner/layouts/latam.toml",
                    "scanner/layouts/cn.toml", "card_db/data/demo.cdb"):
        assert shipped in names, shipped

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # Dependencies come from this test's environment (a path line, so its editable finder .pth
    # files are not run and the checkout is not importable); decksheet only from the wheel.
    Path(site, "deps-from-test-env.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True, timeout=300)

    where = subprocess.run([str(py), "-c", "import scanner; print(scanner.__file__)"],
                           check=True, capture_output=True, text=True, cwd=tmp_path).stdout
    assert where.startswith(site), where
    # The forms' measured geometry is read from the installed package's TOML files.
    forms = subprocess.run([str(py), "-c", "from scanner.layouts import FORMS; print(len(FORMS))"],
                           check=True, capture_output=True, text=True, cwd=tmp_path).stdout
    assert int(forms) >= 3, forms

    from scanner.event.stores import create_event
    import datetime as dt
    event = tmp_path / "event.sqlite"
    create_event(event, "휠 대회", dt.date(2026, 7, 12)).close()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "OMP_THREAD_LIMIT": "1",
           "DECKSHEET_DATA_DIR": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([str(env_dir / "bin" / "decksheet"), "serve", "--event", str(event),
                             "--port", "0", "--key", KEY, "--workers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=tmp_path)
    try:
        line = ""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not line.startswith("decksheet serve: "):
            line = proc.stdout.readline()
            if proc.poll() is not None:
                break
        assert line.startswith("decksheet serve: "), proc.stderr.read()[-2000:]
        base = line.split(": ", 1)[1].strip().split("/?key=")[0]
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {KEY}"},
                          timeout=30) as client:
            page = client.get("/")
            assert page.status_code == 200 and "<html" in page.text.lower(), page.text[:300]
            assert client.get("/static/station.css").status_code == 200
    finally:
        proc.terminate()
        proc.wait(60)
