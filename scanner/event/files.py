"""The original files of an event, kept beside the event file under their sha256.

`EVENT.db.files/<sha256>` holds each original exactly as handed in (sheets at registration,
observed decks at deck checks). A file is written to a temporary name, flushed, fsynced and
renamed into place, and the folder is fsynced (`card_db.paths.atomic_write`), so a row naming a
file is only ever committed after the file is durable.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from card_db.paths import atomic_write


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def verify_file(path: Path, sha256: str) -> bool:
    """Whether the file at `path` still has the digest it was stored under."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest() == sha256


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
        atomic_write(target, data)  # same bytes from any writer: the race is harmless
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
