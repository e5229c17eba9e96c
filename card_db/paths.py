"""Where card data lives: the fetched data directory and the shipped demo files."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from platformdirs import user_data_dir


def data_dir() -> Path:
    """Where `decksheet db fetch` stores the downloaded database and lists."""
    return Path(os.environ.get("DECKSHEET_DATA_DIR") or user_data_dir("decksheet"))


def package_data(name: str) -> Path:
    """A file shipped in `card_db/data/`."""
    return Path(__file__).parent / "data" / name


def demo_db_path() -> Path:
    return package_data("demo.cdb")


def atomic_write(path: str | os.PathLike, data: bytes | str, encoding: str = "utf-8") -> Path:
    """Write `data` to `path` so that a reader sees the old file or the whole new one, never
    half of it, even across a crash: a private temporary file beside it (two writers in one
    process never share it), fsynced, renamed, and the folder fsynced. The one such writer of
    the project: caches, fetched data, scan/convert output, event originals, reports."""
    target = Path(path)
    raw = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; these files are read by other tools too
        replace_durably(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def replace_durably(tmp: Path, target: Path) -> None:
    """Move a finished temporary file over `target`: its data fsynced first, the folder after,
    so neither a half file nor a lost rename survives a crash."""
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, target)
    fsync_dir(target.parent)


def fsync_dir(path: Path) -> None:
    """Make a rename in `path` durable (POSIX); harmless where folders cannot be opened."""
    try:
        dir_fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
