"""Where card data lives: the fetched data directory and the shipped demo files."""
from __future__ import annotations

import os
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


def atomic_write(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path` so that a reader sees the old file or the whole new one, never
    half of it, even across a crash: a temporary file beside it, fsynced, then renamed."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp{os.getpid()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        replace_durably(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def replace_durably(tmp: Path, target: Path) -> None:
    """Move a finished temporary file over `target`: its data fsynced first, the folder after,
    so neither a half file nor a lost rename survives a crash."""
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, target)
    try:
        dir_fd = os.open(target.parent, os.O_RDONLY)
    except OSError:
        return  # some platforms cannot open a folder; the rename is done all the same
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
