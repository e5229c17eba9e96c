"""A PDF stream's filter chain, decoded in bounded steps to measure what it unpacks to.

Every stage of a chain (`[/ASCIIHexDecode /FlateDecode]`, a Flate stream deflated twice …)
is decoded as a generator of chunks of at most `STEP` bytes, each stage counted against the
stream's limit: pdfium holds every stage's output whole, so each must fit. Nothing is kept
but counts (and, for the caller that asks, the final bytes of a small stream).

- Flate, LZW, ASCIIHex, ASCII85, RunLength: decoded as pdfium decodes them (its names and
  abbreviations; damaged data ends the stream where pdfium's decoder stops).
- DCT, JPX, JBIG2, CCITTFax as the last stage: not decoded; counted as the image pdfium would
  hold (width × height × 4, the larger of the dictionary's size and the codestream's header).
- Anything else — an unknown filter, an image codec before another stage, a predictor before
  another stage, a Crypt filter other than /Identity — cannot be measured, and is refused.
"""
from __future__ import annotations

import binascii
import re
import zlib
from collections.abc import Callable, Iterator

import numpy as np

from scanner.inputs.pdf_syntax import Name, Steps

STEP = 1 << 20
"""The largest piece any stage produces at once."""

FLATE, LZW, AHX, A85, RL = b"FlateDecode", b"LZWDecode", b"ASCIIHexDecode", b"ASCII85Decode", \
    b"RunLengthDecode"
DCT, JPX, JBIG2, CCITT, CRYPT = b"DCTDecode", b"JPXDecode", b"JBIG2Decode", b"CCITTFaxDecode", \
    b"Crypt"
ABBREVIATIONS = {b"Fl": FLATE, b"LZW": LZW, b"AHx": AHX, b"A85": A85, b"RL": RL,
                 b"DCT": DCT, b"CCF": CCITT}
IMAGE_CODECS = (DCT, JPX, JBIG2, CCITT)


class TooLarge(Exception):
    """A stage unpacked past its limit."""


class Unmeasurable(Exception):
    """A chain the guard cannot decode (the filter named in args[0])."""


Chunks = Iterator[bytes]


def canonical(name: bytes) -> bytes:
    return ABBREVIATIONS.get(name, name)


def _limited(chunks: Chunks, limit: int, count: list[int]) -> Chunks:
    """Pass chunks on, counting them into count[0]; TooLarge past `limit`."""
    for chunk in chunks:
        count[0] += len(chunk)
        if count[0] > limit:
            raise TooLarge()
        yield chunk


def flate(chunks: Chunks, steps: Steps) -> Chunks:
    d = zlib.decompressobj()
    try:
        for chunk in chunks:
            buf = chunk
            while buf:
                steps.take()
                out = d.decompress(buf, STEP)
                if out:
                    yield out
                if d.eof:
                    return
                buf = d.unconsumed_tail
        while not d.eof:  # input ended: what zlib still holds
            steps.take()
            out = d.decompress(b"", STEP)
            if not out:
                return
            yield out
    except zlib.error:  # damaged: pdfium keeps what was decoded
        return


_NOT_HEX = re.compile(rb"[^0-9A-Fa-f]+")


def ascii_hex(chunks: Chunks, steps: Steps) -> Chunks:
    odd = b""
    for chunk in chunks:
        steps.take()
        end = chunk.find(b">")
        digits = odd + _NOT_HEX.sub(b"", chunk if end < 0 else chunk[:end])
        odd = digits[len(digits) - len(digits) % 2:]
        if len(digits) > 1:
            yield binascii.unhexlify(digits[:len(digits) - len(odd)])
        if end >= 0:
            break
    if odd:
        yield binascii.unhexlify(odd + b"0")


_NOT_A85 = re.compile(rb"[^!-uz]+")
_ZRUNS = re.compile(rb"(z+)")
_POW85 = np.array([85 ** 4, 85 ** 3, 85 ** 2, 85, 1], dtype=np.uint64)


def _a85_groups(text: bytes) -> bytes:
    """Whole 5-character groups (no 'z') → 4 bytes each."""
    if not text:
        return b""
    arr = np.frombuffer(text, dtype=np.uint8).reshape(-1, 5).astype(np.uint64) - 33
    return ((arr @ _POW85) & 0xFFFFFFFF).astype(">u4").tobytes()


def _a85_tail(text: bytes) -> bytes:
    """A last group of 2–4 characters → 1–3 bytes."""
    if len(text) < 2:
        return b""
    return _a85_groups(text + b"u" * (5 - len(text)))[:len(text) - 1]


def ascii85(chunks: Chunks, steps: Steps) -> Chunks:
    carry = b""
    for chunk in chunks:
        end = chunk.find(b"~")
        text = carry + _NOT_A85.sub(b"", chunk if end < 0 else chunk[:end])
        parts = _ZRUNS.split(text)  # text, z-run, text, z-run, …, text
        steps.take(len(parts))
        out = bytearray()
        for i, part in enumerate(parts[:-1]):
            if i % 2:  # a run of z: four zero bytes each
                out += bytes(4 * len(part))
            else:
                whole = len(part) - len(part) % 5
                out += _a85_groups(part[:whole]) + _a85_tail(part[whole:])
            if len(out) >= STEP:
                yield bytes(out)
                out.clear()
        last = parts[-1]
        whole = len(last) - len(last) % 5
        out += _a85_groups(last[:whole])
        carry = last[whole:]
        if out:
            yield bytes(out)
        if end >= 0:
            break
    if carry:
        yield _a85_tail(carry)


def lzw(chunks: Chunks, steps: Steps, early: int = 1) -> Chunks:
    """PDF's LZW (codes of 9–12 bits, 256 clear, 257 end; `early`: /EarlyChange)."""
    table: list[bytes] = []
    prev = b""
    bits, width, value = 0, 9, 0
    out = bytearray()

    def reset() -> None:
        nonlocal table, width, prev
        table = [bytes([i]) for i in range(256)] + [b"", b""]
        width, prev = 9, b""

    reset()
    for chunk in chunks:
        steps.take(len(chunk) // 4 + 1)  # a Python loop a byte: ~1 µs
        for byte in chunk:
            value = (value << 8) | byte
            bits += 8
            while bits >= width:
                bits -= width
                code = (value >> bits) & ((1 << width) - 1)
                value &= (1 << bits) - 1
                if code == 256:
                    reset()
                    continue
                if code == 257:
                    if out:
                        yield bytes(out)
                    return
                if code < len(table):
                    entry = table[code]
                    if prev:
                        table.append(prev + entry[:1])
                elif prev:
                    entry = prev + prev[:1]
                    table.append(entry)
                else:  # a code before any entry: damaged
                    if out:
                        yield bytes(out)
                    return
                out += entry
                prev = entry
                if len(table) + early >= (1 << width) and width < 12:
                    width += 1
            if len(out) >= STEP:
                yield bytes(out)
                out.clear()
    if out:
        yield bytes(out)


def run_length(chunks: Chunks, steps: Steps) -> Chunks:
    pending = b""
    out = bytearray()
    for chunk in chunks:
        data = pending + chunk
        i, n = 0, len(data)
        steps.take(n // 16 + 1)  # a Python loop a run: at most one every 2 bytes
        while i < n:
            length = data[i]
            if length == 128:
                if out:
                    yield bytes(out)
                return
            if length < 128:
                if i + 1 + length + 1 > n:
                    break
                out += data[i + 1:i + 2 + length]
                i += 2 + length
            else:
                if i + 1 >= n:
                    break
                out += data[i + 1:i + 2] * (257 - length)
                i += 2
            if len(out) >= STEP:
                yield bytes(out)
                out.clear()
        pending = data[i:]
    if out:
        yield bytes(out)


def _parm(parms, key: bytes, default: int) -> int:
    value = parms.get(key) if isinstance(parms, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else default


STAGES: dict[bytes, Callable[..., Chunks]] = {FLATE: flate, AHX: ascii_hex, A85: ascii85,
                                             RL: run_length}


def decode(chunks: Chunks, filters: list[bytes], parms: list, limit: int, steps: Steps,
           counts: list[list[int]]) -> Chunks:
    """The output of the chain (every stage bounded by `limit`; each stage's count appended
    to `counts`). Raises Unmeasurable for what cannot be decoded."""
    for i, name in enumerate(filters):
        last = i == len(filters) - 1
        p = parms[i] if i < len(parms) else None
        if name == LZW:
            stage = lzw(chunks, steps, _parm(p, b"EarlyChange", 1))
        elif name in STAGES:
            stage = STAGES[name](chunks, steps)
        elif name == CRYPT and (not isinstance(p, dict) or p.get(b"Name", b"Identity") == b"Identity"):
            continue  # the identity crypt filter (anything else: encrypted by a filter)
        else:
            raise Unmeasurable(name.decode("latin-1"))
        if name in (FLATE, LZW) and _parm(p, b"Predictor", 1) > 1 and not last:
            raise Unmeasurable(name.decode("latin-1") + " with a predictor")
        count = [0]
        counts.append(count)
        chunks = _limited(stage, limit, count)
    return chunks


def image_size(name: bytes, head: bytes, width: int, height: int, parms) -> tuple[int, int]:
    """(width, height) an image codec's data says it is (the dictionary's when it says
    nothing); the larger of both on each side."""
    w, h = 0, 0
    if name == DCT:
        w, h = _jpeg_size(head)
    elif name == JPX:
        w, h = _jpx_size(head)
    elif name == CCITT:
        w, h = _parm(parms, b"Columns", 1728), _parm(parms, b"Rows", 0)
    return max(w, width), max(h, height)


_SOF = set(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2 if data[:2] == b"\xff\xd8" else 0
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in _SOF:
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        if marker == 0xFF or 0xD0 <= marker <= 0xD9 or marker == 0x01:
            i += 1 if marker == 0xFF else 2
            continue
        i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
    return 0, 0


def _jpx_size(data: bytes) -> tuple[int, int]:
    at = data.find(b"\xff\x4f\xff\x51")
    if at < 0 or at + 28 > len(data):
        return 0, 0
    x, y, x0, y0 = (int.from_bytes(data[at + k:at + k + 4], "big") for k in (8, 12, 16, 20))
    return max(0, x - x0), max(0, y - y0)


def as_names(filters) -> list[bytes]:
    if isinstance(filters, Name):
        return [canonical(bytes(filters))]
    if isinstance(filters, list):
        return [canonical(bytes(f)) if isinstance(f, Name) else b"(not a name)" for f in filters]
    return []


def as_parms(parms, n: int) -> list:
    if isinstance(parms, list):
        return list(parms) + [None] * (n - len(parms))
    return [parms] * n if n == 1 else [parms] + [None] * (n - 1) if n else []
