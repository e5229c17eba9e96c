"""The print fonts names are drawn in: where they are installed (`find_font`, light enough for
the command's tool probe: no OpenCV), and the code points each has a glyph for (`font_cmap`),
read by fontTools once per font file and kept on disk.

A reading process checks every name it draws against its fonts' character maps (the fallback
font of a missing glyph): five fonts, 0.08 s of fontTools' work and 0.04 s to import it, each
time a reader starts. Kept as JSON in the user cache folder, tied to the font file's path, size
and modification time, they load in a few milliseconds. JSON, not a pickle: a planted file holds
data only, and a malformed or stale one is read again from the font.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
from functools import lru_cache
from pathlib import Path

from platformdirs import user_cache_dir

from card_db.paths import atomic_write

log = logging.getLogger("decksheet.ocr")

FONT_DIRS = ("/usr/share/fonts/truetype/nanum", "/usr/share/fonts/truetype/dejavu",
             "/usr/share/fonts/truetype", "/usr/local/share/fonts", "/usr/share/fonts")
FAMILIES = {"NanumGothic": "NanumGothic.ttf", "NanumBarunGothic": "NanumBarunGothic.ttf",
            "NanumMyeongjo": "NanumMyeongjo.ttf", "NanumSquare": "NanumSquareR.ttf"}
"""The fonts the card database's sheets are printed in."""
FONT_ROOT_DEPTH = 3
"""Only a font folder below /usr/share/fonts/ (more slashes than this) is searched through."""


@lru_cache(maxsize=32)
def find_font(filename: str) -> Path | None:
    """The installed font file of that name (the first of `FONT_DIRS` holding it), or None."""
    for d in FONT_DIRS:
        p = Path(d) / filename
        if p.is_file():
            return p
        hits = sorted(Path(d).rglob(filename)) if Path(d).is_dir() and d.count("/") > FONT_ROOT_DEPTH else []
        if hits:
            return hits[0]
    return None


CACHE_FORMAT = "decksheet-font-cmap"
CACHE_VERSION = 1
MAX_CACHE_BYTES = 4 << 20
"""A cache file larger than this is not read (a Korean font's map is ~120 kB)."""


def cache_folder() -> Path:
    return Path(user_cache_dir("decksheet")) / "font-cmaps"


def read_cmap(path: str) -> frozenset[int]:
    """Code points the TrueType font at `path` has a glyph for (fontTools); empty when the
    file cannot be read."""
    try:
        from fontTools.ttLib import TTFont  # late: only when no cached map will do
        with TTFont(path, lazy=True, fontNumber=0) as font:
            # Only the code points matter: numbered glyphs spare fontTools reading every glyph's
            # name from `post` and the cmap (¾ of a Korean font's load, 0.4 s of a cold scan).
            font.setGlyphOrder([f"g{i}" for i in range(font["maxp"].numGlyphs)])
            return frozenset(font.getBestCmap() or {})
    except Exception as exc:  # noqa: BLE001 - an unreadable font only loses its fallback check
        log.debug("cmap of %s unreadable: %s", path, exc)
        return frozenset()


def font_cmap(path: str) -> frozenset[int]:
    """`read_cmap(path)`, from the cache when it holds this very file's map."""
    source = _source(path)
    if source is None:
        return read_cmap(path)
    file = cache_folder() / f"{hashlib.sha1(source['path'].encode()).hexdigest()[:16]}.json"
    cached = _read(file, source)
    if cached is not None:
        return cached
    codes = read_cmap(path)
    if codes:  # an unreadable font is tried again next time
        _write(file, source, codes)
    return codes


def _source(path: str) -> dict | None:
    """What a cached map must match: the font's resolved path, size and modification time."""
    try:
        p = Path(path).resolve()
        st = p.stat()
    except OSError:
        return None
    return {"path": str(p), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _read(file: Path, source: dict) -> frozenset[int] | None:
    try:
        if file.stat().st_size > MAX_CACHE_BYTES:
            return None
        data = json.loads(file.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not (isinstance(data, dict) and data.get("format") == CACHE_FORMAT
            and data.get("version") == CACHE_VERSION and data.get("source") == source):
        return None
    codes = data.get("codes")
    if not (isinstance(codes, list) and codes and all(type(c) is int and 0 <= c <= 0x10FFFF for c in codes)):
        return None
    return frozenset(codes)


def _write(file: Path, source: dict, codes: frozenset[int]) -> None:
    """Store the map; a cache that cannot be written is no error (the next reader reads the font)."""
    blob = json.dumps({"format": CACHE_FORMAT, "version": CACHE_VERSION, "source": source,
                       "codes": sorted(codes)}, separators=(",", ":"))
    try:
        os.makedirs(file.parent, exist_ok=True)
        atomic_write(file, blob)
    except OSError as exc:
        log.debug("cmap cache %s not written: %s", file, exc)
