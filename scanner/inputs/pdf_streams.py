"""A PDF's compressed streams, measured before any PDF library opens the file.

A 1 MB PDF whose content stream is a deflated run of spaces unpacks to 1 GB, and pdfium holds
all of it (2.2 GB in one worker). Each Flate stream is inflated here in bounded steps, counting
and discarding, and the file is refused once a stream (or all of them) unpacks past the limits
of `scanner.inputs.limits`. Streams of other filters (DCT, JBIG2 …) or damaged ones are left to
the readers: they cannot unpack out of proportion.
"""
from __future__ import annotations

import re
import zlib

from scanner.errors import UnreadableInput
from scanner.inputs import limits

_STREAM = re.compile(rb"stream\r?\n")
_IMAGE = re.compile(rb"/Subtype\s*/Image")
_STEP = 1 << 20


def check_pdf_streams(data: bytes, label: str) -> int:
    """Refuse (`input.pdf-stream-too-large`) a PDF a stream of which unpacks past its limit;
    returns the bytes all Flate streams unpack to."""
    total = 0
    pos = 0
    while (m := _STREAM.search(data, pos)) is not None:
        start = m.end()
        end = data.find(b"endstream", start)
        if end < 0:
            end = len(data)
        head = data[max(0, data.rfind(b"obj", 0, m.start())):m.start()]
        limit = limits.MAX_PDF_IMAGE_STREAM_BYTES if _IMAGE.search(head) \
            else limits.MAX_PDF_STREAM_BYTES
        size = _inflated_size(data, start, end, min(limit, limits.MAX_PDF_INFLATED_BYTES - total))
        if size is None:
            raise UnreadableInput("input.pdf-stream-too-large", file=label,
                                  max_mb=min(limit, limits.MAX_PDF_INFLATED_BYTES) >> 20)
        total += size
        pos = end + 1
    return total


def _inflated_size(data: bytes, start: int, end: int, limit: int) -> int | None:
    """What the Flate stream at data[start:end] unpacks to; None past `limit`; 0 when it is
    not Flate data (another filter, or damaged: the readers decide)."""
    inflater = zlib.decompressobj()
    view = memoryview(data)[start:end]
    size = 0
    try:
        chunk = inflater.decompress(view[:_STEP], _STEP)
        fed = min(_STEP, len(view))
        while True:
            size += len(chunk)
            if size > limit:
                return None
            if inflater.eof:
                return size
            if inflater.unconsumed_tail:
                chunk = inflater.decompress(inflater.unconsumed_tail, _STEP)
            elif fed < len(view):
                chunk = inflater.decompress(view[fed:fed + _STEP], _STEP)
                fed += _STEP
            else:
                return size
    except zlib.error:
        return size if size else 0
