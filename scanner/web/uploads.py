"""Check an upload before it is stored: kind by its first bytes, size, text encoding.

Nothing here opens the file with a PDF or image library: the request runs in the server
process, which every desk shares, and a 4 KB PDF can unpack to gigabytes. What needs a
library — the PDF guard, page counts, an image's header — runs in a reader process with its
own memory cap (`scanner.web.reader.read_original`), and a file it refuses fails its own job
with the reason, in Korean.
"""
from __future__ import annotations

from dataclasses import dataclass

from scanner.errors import UnreadableInput
from scanner.inputs.limits import MAX_UPLOAD_BYTES
from scanner.inputs.sniff import InputKind, decode_text, sniff_bytes
from scanner.web.texts import ko

__all__ = ["MAX_UPLOAD_BYTES", "CheckedUpload", "UploadRefused", "check_upload"]


class UploadRefused(Exception):
    """An upload refused before reading; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class CheckedUpload:
    data: bytes
    file_name: str | None
    kind: InputKind


def check_upload(data: bytes, file_name: str | None,
                 max_bytes: int = MAX_UPLOAD_BYTES) -> CheckedUpload:
    """The upload as a file the readers may take, or `UploadRefused` saying why not. Only
    bytes are looked at: a PDF or image is checked by its reader (`reader.read_original`)."""
    if len(data) > max_bytes:
        raise UploadRefused(ko("upload-too-large", mb=len(data) // 1024 // 1024, max_mb=max_bytes // 1024 // 1024), 413)
    try:
        kind = sniff_bytes(data[:4096])
    except UnreadableInput as exc:
        raise UploadRefused(exc.render("ko"), 415) from None
    if kind not in (InputKind.IMAGE, InputKind.PDF):
        try:
            decode_text(data)  # the readers' own decoding: UTF-8, UTF-16 with a BOM, CP949
        except UnreadableInput:
            raise UploadRefused(ko("text-encoding"), 415) from None
    return CheckedUpload(data=data, file_name=_safe_name(file_name), kind=kind)


def _safe_name(name: str | None) -> str | None:
    """The base name only, printable, at most 120 characters (it is shown and logged)."""
    if not name:
        return None
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(ch for ch in base if ch.isprintable())[:120]
    return base or None

