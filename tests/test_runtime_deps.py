"""A plain install (no extras) reads sheets exactly as the test environment does.

The reader runs in a subprocess in which every module of the optional extras (reportlab,
playwright, httpx, pytest, …) fails to import, and must give the same result as here: a
runtime import of an extra (once reportlab read the fallback font's character map, and its
ImportError was swallowed) would change or break the read.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "photos" / "scan-01.pdf"
FALLBACK_NAME = "ϝ 용사 토큰"
"""ϝ is in no Nanum font: it is drawn in the fallback font, found by the font's character map."""

PROBE = r"""
import hashlib, importlib.abc, json, sys
BLOCKED = set(sys.argv[1].split(","))

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is an optional extra, not installed")
        return None

sys.meta_path.insert(0, Blocker())
from card_db.cdb import demo_db_path, load_card_db
from scanner.read import ReadOptions, load_decklist
from scanner.ocr.verify import available_families, render_name
fams = available_families()
img = render_name(sys.argv[3], next(iter(fams.values()))) if fams else None
out = load_decklist(sys.argv[2], load_card_db(demo_db_path()), ReadOptions()).to_json()
print(json.dumps({"read": out, "render": hashlib.sha256(img.tobytes()).hexdigest() if img is not None else None,
                  "extras_loaded": sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)}))
"""


def extra_modules() -> list[str]:
    """Top-level module names of every optional-dependency distribution in pyproject.toml."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = set()
    for reqs in project.get("optional-dependencies", {}).values():
        for req in reqs:
            dist = req.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip()
            names.add(dist.lower().replace("-", "_"))
    return sorted(names)


def _probe(blocked: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_THREAD_LIMIT="1")
    got = subprocess.run([sys.executable, "-c", PROBE, ",".join(blocked), str(SAMPLE), FALLBACK_NAME],
                         capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert got.returncode == 0, got.stderr[-2000:]
    return json.loads(got.stdout.splitlines()[-1])


def test_extras_are_the_test_and_sample_tools():
    assert {"reportlab", "pytest"} <= set(extra_modules())


@pytest.mark.slow
def test_ocr_reader_without_extras_gives_the_same_result():
    pytest.importorskip("tesserocr")
    without = _probe(extra_modules())
    with_extras = _probe([])
    assert without["extras_loaded"] == []
    assert without["read"] == with_extras["read"]
    assert without["render"] == with_extras["render"]
    assert without["read"]["sections"]["main"], "the sample scan must give lines"


def test_fallback_glyph_found_without_reportlab(monkeypatch):
    """The character map comes from fontTools: ϝ (missing in Nanum) goes to the fallback font
    even when reportlab cannot be imported."""
    from scanner.ocr import verify
    monkeypatch.setitem(sys.modules, "reportlab", None)  # import reportlab → ImportError
    fams = verify.available_families()
    if not fams:
        pytest.skip("no Nanum font installed")
    from scanner.ocr.fonts import read_cmap
    path = str(next(iter(fams.values())))
    cmap = read_cmap(path)  # the font itself, not the map cached on disk
    assert ord("가") in cmap and ord("ϝ") not in cmap
