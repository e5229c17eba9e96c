"""Font independence of the rendering check (issue 14): a sheet printed in a font decksheet
does not render with is read right or flagged, never decided by a mismatching font."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scoring import score_scan

pytest.importorskip("tesserocr")

REPO = Path(__file__).resolve().parent.parent
FONT_DIR = Path("/usr/share/fonts/truetype/nanum")
UNKNOWN = {"NanumSquareRound": ("NanumSquareRoundR.ttf", "NanumSquareRoundB.ttf"),
           "NanumGothicCoding": ("NanumGothicCoding.ttf", "NanumGothicCodingBold.ttf")}
"""Korean fonts the sheets could be printed in that are not among verify.FAMILIES."""

MAKE = r"""
import sys, json
sys.path.insert(0, sys.argv[1] + "/samples"); sys.path.insert(0, sys.argv[1])
import make_samples
make_samples.FONTS.clear(); make_samples.FONTS.update(json.loads(sys.argv[2]))
import make_photos
sys.exit(make_photos.main(sys.argv[3:]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["scan", "photo"])
def test_a_sheet_in_a_font_decksheet_lacks_has_no_silent_error(tmp_path, demo_db, kind):
    pytest.importorskip("reportlab")
    from scanner.ocr.verify import FAMILIES
    fonts = {k: v for k, v in UNKNOWN.items() if (FONT_DIR / v[0]).is_file() and k not in FAMILIES}
    if not fonts:
        pytest.skip("no Korean font outside the renderer's families is installed")
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    got = subprocess.run([sys.executable, "-c", MAKE, str(REPO), json.dumps(fonts), "--out", str(tmp_path),
                          "--count", "2", "--seed", "31", "--kinds", kind],
                         capture_output=True, text=True, env=env, timeout=600)
    assert got.returncode == 0, got.stderr[-2000:]
    from scanner.read import ReadOptions, load_decklist
    sheets = sorted(tmp_path.glob(f"{kind}-*.truth.json"))
    assert sheets
    for truth_path in sheets:
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        assert truth["layout"]["font"] in fonts
        out = load_decklist(tmp_path / truth["file"], demo_db, ReadOptions()).to_json()
        s = score_scan(out, truth)
        assert s["silent"] == 0, (truth["file"], s["errors"])
