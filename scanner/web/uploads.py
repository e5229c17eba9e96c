"""Check an upload before it is stored or read: kind by content, size, pixels, pages.

Everything cheap happens here, in the request (a 4xx with a one-line Korean reason); the
expensive reading happens in a worker, which has its own limits (`scanner.web.reader`).
"""
from __future__ import annotations

import io
from dataclasses import dataclass

from scanner.errors import UnreadableInput
from scanner.inputs.sniff import InputKind, decode_text, sniff_bytes

from scanner.inputs.limits import MAX_PIXELS, MAX_SHEET_PAGES, MAX_UPLOAD_BYTES
from scanner.inputs.pdf_streams import check_pdf_streams
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
    """The upload as a sheet the workers may read, or `UploadRefused` saying why not."""
    if len(data) > max_bytes:
        raise UploadRefused(ko("upload-too-large", mb=len(data) // 1024 // 1024, max_mb=max_bytes // 1024 // 1024), 413)
    try:
        kind = sniff_bytes(data[:4096])
    except UnreadableInput as exc:
        raise UploadRefused(exc.render("ko"), 415) from None
    if kind is InputKind.IMAGE:
        _check_image(data)
    elif kind is InputKind.PDF:
        _check_pdf(data)
    else:
        try:
            decode_text(data)  # the readers' own decoding: UTF-8, UTF-16 with a BOM, CP949
        except UnreadableInput:
            raise UploadRefused(ko("text-encoding"), 415) from None
    return CheckedUpload(data=data, file_name=_safe_name(file_name), kind=kind)


def _check_image(data: bytes) -> None:
    """Header only (no decoding), so a decompression bomb costs nothing here."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as im:
            width, height = im.size
    except Image.DecompressionBombError:
        raise UploadRefused(ko("image-bomb"), 413) from None
    except Exception:  # noqa: BLE001 - any decoder failure means "not an image we can read"
        raise UploadRefused(ko("image-corrupt"), 415) from None
    if width * height > MAX_PIXELS:
        raise UploadRefused(ko("image-too-large", width=width, height=height), 413)
    if min(width, height) < 300:
        raise UploadRefused(ko("image-too-small", width=width, height=height), 422)


def _check_pdf(data: bytes) -> None:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(data)
    except Exception:  # noqa: BLE001 - pdfium raises its own error types for every bad file
        raise UploadRefused(ko("pdf-corrupt"), 422) from None
    try:
        pages = len(pdf)
    finally:
        pdf.close()
    if pages == 0:
        raise UploadRefused(ko("pdf-no-pages"), 422)
    if pages > MAX_SHEET_PAGES:
        raise UploadRefused(ko("pdf-too-many-pages", pages=pages, max=MAX_SHEET_PAGES), 413)
    try:
        check_pdf_streams(data, "PDF")
    except UnreadableInput as exc:
        raise UploadRefused(exc.render("ko"), 413) from None


def _safe_name(name: str | None) -> str | None:
    """The base name only, printable, at most 120 characters (it is shown and logged)."""
    if not name:
        return None
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(ch for ch in base if ch.isprintable())[:120]
    return base or None

