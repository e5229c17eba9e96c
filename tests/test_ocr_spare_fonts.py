"""A sheet printed in a Korean print font other than the Nanum families (UnDotum, Baekmuk
Gulim) is rendered in that font when it is installed (scanner/ocr/verify.py spare fonts), so its
lines are confirmed instead of left flagged; a Nanum page never pays for the spares, and a
handwriting face is never one of them."""
from __future__ import annotations

import subprocess

import cv2
import numpy as np

from needs import require

import scanner.ocr.verify as verify
from scanner.ocr.verify import NameRenderer, ink_crop, render_name

NAMES = ["하루 우라라", "증식의 G", "무덤의 지명자", "말살의 지명자", "이웃집 잔디깎기", "명왕결계파"]


def _printed(name: str, path, seed: int) -> np.ndarray:
    ink = render_name(name, path, px=26)
    cell = np.full((ink.shape[0] + 14, ink.shape[1] + 20), 255, np.uint8)
    cell[7:7 + ink.shape[0], 10:10 + ink.shape[1]] = ink
    cell = cv2.GaussianBlur(cell, (0, 0), 0.7)
    noise = np.random.default_rng(seed).normal(0, 4, cell.shape)
    return ink_crop(np.clip(cell + noise, 0, 255).astype(np.uint8))


def test_only_upright_print_faces_are_spares(monkeypatch, tmp_path):
    broken = tmp_path / "broken-unbatang.ttf"  # (a real font's file name would be found elsewhere)
    broken.write_bytes(b"not a font")
    real_opens = verify._opens  # the listed /f/ files stand for installed fonts; the broken one is real
    monkeypatch.setattr(verify, "_opens", lambda path: path.startswith("/f/") or real_opens(path))
    assert not real_opens(str(broken))
    listing = "\n".join([
        f"{broken}: UnBatang,은 바탕:style=Regular",
        "garbage line without a colon",
        "/f/un/UnDotum.ttf: UnDotum,은 돋움:style=Regular",
        "/f/un/UnDotumBold.ttf: UnDotum,은 돋움:style=Bold",
        "/f/un/UnPilgi.ttf: UnPilgi,은 필기:style=Regular",
        "/f/nanum/NanumPen.ttf: Nanum Pen Script,나눔손글씨 펜:style=Regular",
        "/f/noto/NotoSansCJK-Regular.ttc: Noto Sans CJK KR:style=Regular",
        "/f/bm/gulim.ttf: Baekmuk Gulim,백묵 굴림:style=Regular"])
    monkeypatch.setattr("shutil.which", lambda _: "/usr/bin/fc-list")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, listing, ""))
    verify._installed_print_fonts.cache_clear()
    try:
        got = verify._installed_print_fonts()
    finally:
        verify._installed_print_fonts.cache_clear()
    assert {f: str(p) for f, p in got.items()} == {"UnDotum": "/f/un/UnDotum.ttf",
                                                  "Baekmuk Gulim": "/f/bm/gulim.ttf"}


def test_a_page_in_a_spare_font_is_rendered_in_it():
    spares = verify.spare_families()
    require("UnDotum" in spares, "needs fonts-unfonts-core and fontconfig (make setup installs them)")
    r = NameRenderer()
    for i, name in enumerate(NAMES):
        r.observe(_printed(name, spares["UnDotum"], i), name)
    assert r.family == "UnDotum" and not r.spares and r.trusted


def test_a_nanum_page_never_tries_the_spares():
    require("NanumGothic" in verify.available_families(), "needs fonts-nanum")
    r = NameRenderer()
    spares = dict(r.spares)
    for i, name in enumerate(NAMES):
        r.observe(_printed(name, verify.available_families()["NanumGothic"], i), name)
    assert r.family == "NanumGothic" and r.spares == spares and set(r.families) == set(verify.available_families())
