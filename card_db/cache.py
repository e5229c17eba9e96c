"""The card-database cache: JSON, tied to the exact files it was built from.

The cache used to be a pickle, which runs code while it loads: a planted file would have run on
any command. JSON only holds data; it is used only when its header names the very files loaded
(path, size, sha256) and this cache version, and every value is type-checked on the way in.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

from card_db.paths import atomic_write

CACHE_FORMAT = "decksheet-card-index"
CACHE_VERSION = 13
MAX_CACHE_BYTES = 256 << 20
"""A cache file larger than this is not read (a planted giant file must not eat the memory)."""
BESIDE_SUFFIX = ".decksheet-index.json"


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fingerprint(files: list[tuple[str, Path]]) -> list[dict[str, Any]]:
    """(role, path) of every source file → what the cache must match: path, size, sha256."""
    return [{"role": role, "path": str(p.resolve()), "size": p.stat().st_size,
             "sha256": file_sha256(p)} for role, p in files]


def _folder_writable(folder: Path) -> bool:
    """Writable for us *and* not marked read-only (root ignores the mode bits; we respect
    them, so a shared read-only data folder is never written into)."""
    try:
        mode = folder.stat().st_mode
    except OSError:
        return False
    return os.access(folder, os.W_OK) and bool(stat.S_IMODE(mode) & 0o222)


def cache_paths(fp: list[dict[str, Any]]) -> list[Path]:
    """Beside a lone database when its folder is writable, else (and for combinations of
    several files) in the user cache dir, named by the files it belongs to."""
    key = hashlib.sha1(json.dumps([(f["role"], f["path"]) for f in fp]).encode()).hexdigest()[:16]
    user = Path(user_cache_dir("decksheet")) / f"index-{key}.json"
    if len(fp) == 1:
        db = Path(fp[0]["path"])
        if _folder_writable(db.parent):
            return [db.with_name(db.name + BESIDE_SUFFIX), user]
    return [user]


def read_cache(fp: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The cached payload for exactly these files, or None (missing, stale, foreign, malformed)."""
    for p in cache_paths(fp):
        try:
            if p.stat().st_size > MAX_CACHE_BYTES:
                continue
            data = json.loads(p.read_bytes())
        except (OSError, ValueError, RecursionError):
            continue
        if (isinstance(data, dict) and data.get("format") == CACHE_FORMAT
                and data.get("version") == CACHE_VERSION and data.get("sources") == fp
                and isinstance(data.get("payload"), dict)):
            return data["payload"]
    return None


def write_cache(fp: list[dict[str, Any]], payload: dict[str, Any]) -> Path | None:
    """Store the payload in the first place that takes it; a cache that cannot be written is
    no error (the next load rebuilds)."""
    blob = json.dumps({"format": CACHE_FORMAT, "version": CACHE_VERSION, "sources": fp,
                       "payload": payload}, ensure_ascii=False, separators=(",", ":")).encode()
    for p in cache_paths(fp):
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(p, blob)
            return p
        except OSError:
            continue
    return None
