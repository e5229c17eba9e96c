"""The fonts' character maps kept on disk (`scanner.ocr.fonts.font_cmap`): the same code points
as fontTools reads, from the cache only for the very file it was made from."""
from __future__ import annotations

import json
import os

import pytest

from scanner.ocr import fonts


@pytest.fixture
def font(tmp_path, monkeypatch):
    path = fonts.find_font("NanumGothic.ttf")
    if path is None:
        pytest.skip("needs fonts-nanum")
    copy = tmp_path / "font.ttf"
    copy.write_bytes(path.read_bytes())
    monkeypatch.setattr(fonts, "cache_folder", lambda: tmp_path / "cache")
    return copy


def _cached(tmp_path) -> list:
    return sorted((tmp_path / "cache").glob("*.json"))


def test_the_cached_map_is_the_fonts_own(font, tmp_path, monkeypatch):
    want = fonts.read_cmap(str(font))
    assert ord("가") in want and len(want) > 10000
    assert fonts.font_cmap(str(font)) == want          # read from the font, then kept
    assert len(_cached(tmp_path)) == 1

    def no_font(path):
        raise AssertionError("the font was read again")
    monkeypatch.setattr(fonts, "read_cmap", no_font)
    assert fonts.font_cmap(str(font)) == want          # from the cache alone


def test_a_changed_font_file_is_read_again(font, tmp_path, monkeypatch):
    fonts.font_cmap(str(font))
    st = font.stat()
    os.utime(font, ns=(st.st_atime_ns, st.st_mtime_ns + 10 ** 9))
    calls = []
    real = fonts.read_cmap
    monkeypatch.setattr(fonts, "read_cmap", lambda p: calls.append(p) or real(p))
    fonts.font_cmap(str(font))
    assert calls == [str(font)]


@pytest.mark.parametrize("payload", ["{not json", json.dumps({"format": "decksheet-font-cmap", "version": 1}),
                                     "CODES"])
def test_a_malformed_or_foreign_cache_file_is_not_believed(font, tmp_path, payload):
    want = fonts.font_cmap(str(font))
    (entry,) = _cached(tmp_path)
    if payload == "CODES":  # the right header, code points that are no code points
        data = json.loads(entry.read_text())
        data["codes"] = [-1, "가"]
        payload = json.dumps(data)
    entry.write_text(payload)
    assert fonts.font_cmap(str(font)) == want


def test_an_unreadable_font_gives_no_map_and_is_not_cached(tmp_path, monkeypatch):
    monkeypatch.setattr(fonts, "cache_folder", lambda: tmp_path / "cache")
    bad = tmp_path / "bad.ttf"
    bad.write_bytes(b"not a font")
    assert fonts.font_cmap(str(bad)) == frozenset()
    assert not (tmp_path / "cache").exists() or not _cached(tmp_path)
