"""Tell what an input is from its first bytes, not its suffix."""
from __future__ import annotations

import enum
import re
from pathlib import Path

from scanner.errors import UnreadableInput


class InputKind(str, enum.Enum):
    PDF = "pdf"
    IMAGE = "image"
    YDK = "ydk"
    YDKE = "ydke"
    JSON = "json"
    TEXT = "text"


_IMAGE_MAGIC = (
    b"\xff\xd8\xff",  # JPEG
    b"\x89PNG\r\n\x1a\n",
    b"II*\x00", b"MM\x00*",  # TIFF
    b"BM",  # BMP
    b"RIFF",  # WEBP (checked below)
)


_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f]")


def sniff_bytes(head: bytes) -> InputKind:
    """Kind of input from (up to) its first 4 KiB."""
    if not head.strip():
        raise UnreadableInput("the file is empty")
    if b"%PDF-" in head[:1024]:
        return InputKind.PDF
    for magic in _IMAGE_MAGIC:
        if head.startswith(magic):
            if magic == b"RIFF" and head[8:12] != b"WEBP":
                continue
            return InputKind.IMAGE
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # A multibyte character cut at the 4 KiB boundary is still text.
        if exc.start < len(head) - 4:
            raise UnreadableInput("not a deck sheet or decklist: binary data of an unknown kind") from None
        text = head[: exc.start].decode("utf-8-sig", errors="replace")
    if _CONTROL.search(text):
        # NUL and other C0 controls are valid UTF-8 but never part of a decklist.
        raise UnreadableInput("not a deck sheet or decklist: binary data of an unknown kind")
    stripped = text.lstrip()
    if stripped.lower().startswith("ydke://"):
        return InputKind.YDKE
    if stripped.startswith("{") or stripped.startswith("["):
        return InputKind.JSON
    lines = [ln.strip() for ln in stripped.splitlines() if ln.strip()]
    if lines and any(ln.lower().startswith(("#main", "#extra", "!side")) for ln in lines[:50]):
        return InputKind.YDK
    if lines and all(ln.isdigit() or ln.startswith("#") or ln.startswith("!") for ln in lines[:50]) \
            and any(ln.isdigit() for ln in lines[:50]):
        return InputKind.YDK
    return InputKind.TEXT


def sniff_path(path: Path) -> InputKind:
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except IsADirectoryError:
        raise UnreadableInput(f"{path} is a folder, not a file") from None
    except FileNotFoundError:
        raise UnreadableInput(f"no such file: {path}") from None
    except OSError as exc:
        raise UnreadableInput(f"cannot open {path}: {exc.strerror}") from None
    return sniff_bytes(head)
