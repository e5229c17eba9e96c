"""The original files of an event, kept beside the event file under their sha256.

`EVENT.db.files/<sha256>` holds each original exactly as handed in (sheets at registration,
observed decks at deck checks). A file is written to a temporary name, flushed, fsynced and
renamed into place, and the folder is fsynced, so a row naming a file is only ever committed
after the file is durable. `write_atomic` is the same step for report and export files.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def verify_file(path: Path, sha256: str) -> bool:
    """Whether the file at `path` still has the digest it was stored under."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest() == sha256


def fsync_dir(path: Path) -> None:
    """Make a rename durable (POSIX); harmless where directories cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes | str, encoding: str = "utf-8") -> Path:
    """Write `data` to `path` via a temporary file in the same folder: flush, fsync, rename,
    fsync the folder. A reader sees the old file or the new one, never half of one."""
    raw = data.encode(encoding) if isinstance(data, str) else data
    folder = path.parent
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(folder)
    return path


@dataclass
class FileStore:
    """Content-addressed originals in one folder."""

    folder: Path

    def path(self, sha256: str) -> Path:
        return self.folder / sha256

    def has(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def store(self, data: bytes) -> str:
        """Keep `data` under its sha256 (atomic, durable). Returns the digest."""
        digest = sha256_bytes(data)
        target = self.path(digest)
        if target.is_file() and target.stat().st_size == len(data):
            return digest
        self.folder.mkdir(exist_ok=True)
        write_atomic(target, data)  # same bytes from any writer: the race is harmless
        return digest

    def problems(self, digests: list[str]) -> list[str]:
        """Files that are missing or no longer have their digest."""
        out = []
        for sha in digests:
            p = self.path(sha)
            if not p.is_file():
                out.append(f"original file missing: {sha}")
            elif not verify_file(p, sha):
                out.append(f"original file changed: {sha}")
        return out
