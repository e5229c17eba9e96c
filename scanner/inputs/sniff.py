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


_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def decode_text(data: bytes, partial: bool = False) -> str:
    """Text of a decklist file: UTF-8, UTF-16 with a BOM (Notepad's "Unicode"), or CP949/EUC-KR
    (Korean Windows' default). `partial`: `data` is only the head of the file, so a character
    cut at its end is not an error."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            body = data[:len(data) - len(data[len(bom):]) % 2] if codec == "utf-16" else data
            try:
                return body.decode(codec)
            except UnicodeDecodeError:
                raise UnreadableInput("input.text-bad-mark", codec=codec.upper()) from None
    for codec in ("utf-8", "cp949"):
        try:
            return data.decode(codec)
        except UnicodeDecodeError as exc:
            if partial and exc.start >= len(data) - 4:
                try:
                    return data[:exc.start].decode(codec)
                except UnicodeDecodeError:
                    pass
    raise UnreadableInput("input.unknown-binary")


def sniff_bytes(head: bytes) -> InputKind:
    """Kind of input from its bytes (the whole file, or at least its first 4 KiB)."""
    if not head.strip():
        raise UnreadableInput("input.empty")
    if b"%PDF-" in head[:1024]:
        return InputKind.PDF
    for magic in _IMAGE_MAGIC:
        if head.startswith(magic):
            if magic == b"RIFF" and head[8:12] != b"WEBP":
                continue
            return InputKind.IMAGE
    if is_heif(head):
        return InputKind.IMAGE
    return sniff_text(decode_text(head, partial=True))


def is_heif(head: bytes) -> bool:
    """HEIC/HEIF (iPhone photos): an ISO-BMFF `ftyp` box with a HEIF brand."""
    return head[4:8] == b"ftyp" and head[8:12] in (b"heic", b"heix", b"hevc", b"heim", b"heis",
                                                   b"hevm", b"hevs", b"mif1", b"msf1", b"avif")


def sniff_text(text: str) -> InputKind:
    """Kind of a decoded text input."""
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise UnreadableInput("input.empty")
    if _CONTROL.search(text):
        # NUL and other C0 controls are valid UTF-8 but never part of a decklist.
        raise UnreadableInput("input.unknown-binary")
    stripped = text.lstrip()
    if stripped.lower().startswith("ydke://"):
        return InputKind.YDKE
    if stripped.startswith("{") or stripped.startswith("["):
        return InputKind.JSON
    lines = [ln.strip() for ln in stripped.splitlines()[:200] if ln.strip()]
    if lines and any(ln.lower().startswith(("#main", "#extra", "!side")) for ln in lines[:50]):
        return InputKind.YDK
    if lines and all(ln.isdigit() or ln.startswith("#") or ln.startswith("!") for ln in lines[:50]) \
            and any(ln.isdigit() for ln in lines[:50]):
        return InputKind.YDK
    return InputKind.TEXT


def sniff_path(path: Path) -> InputKind:
    """Kind of a file from its first bytes (kept for callers that hold only a path; the readers
    use `scanner.inputs.limits.read_source` and `sniff_bytes`)."""
    from scanner.inputs.limits import read_source

    return sniff_bytes(read_source(path)[:4096])
