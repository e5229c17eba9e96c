"""Just enough PDF syntax to measure a file before any PDF library opens it.

Objects (numbers, names, strings, arrays, dictionaries, references) are parsed from bytes, the
way pdfium's own parser reads them (any of the six white-space bytes, comments, `#xx` in names,
escapes in strings), with a bound on nesting and on the tokens read (`Steps`): a file built to
make this parser slow is refused as too complex instead.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from scanner.errors import UnreadableInput

WS = b"\0\t\n\f\r "
"""PDF's six white-space bytes."""
_DELIM = b"()<>[]{}/%"
REGULAR = frozenset(range(256)) - frozenset(WS + _DELIM)
"""Bytes that are neither white space nor a delimiter: what a name, number or keyword is made of."""
WS_RE = rb"[\0\t\n\f\r ]"
"""`WS` as a regex character class: one white-space byte."""
REGULAR_RE = rb"[^\0\t\n\f\r ()<>\[\]{}/%]"
"""`REGULAR` as a regex character class: one regular byte."""
_SKIP = re.compile(rb"(?:" + WS_RE + rb"+|%[^\r\n]*)*")
_TOKEN = re.compile(rb"<<|>>|[\[\]{}]|/" + REGULAR_RE + rb"*|" + REGULAR_RE + rb"+|[()<>]")
_REF = WS_RE + rb"*\d+" + WS_RE + rb"+\d+" + WS_RE + rb"+R(?!" + REGULAR_RE + rb")"
"""`N G R`, white space before it."""
_REF_RUN = re.compile(rb"(?:" + _REF + rb")*" + WS_RE + rb"*")
_NAME_ESC = re.compile(rb"#([0-9A-Fa-f]{2})")
_HEX_DROP = re.compile(rb"[^0-9A-Fa-f]")
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)$")
_INT = re.compile(rb"[+-]?\d+$")
_STRING_PART = re.compile(rb"[^()\\]+|\\(?:[0-7]{1,3}|\r\n|.)|[()]", re.S)
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f", b"(": b"(",
            b")": b")", b"\\": b"\\", b"\n": b"", b"\r": b"", b"\r\n": b""}
MAX_DEPTH = 64
"""Nesting of arrays and dictionaries (pdfium stops at 64 too)."""


class Name(bytes):
    """/Name, without the slash and with #xx resolved."""


class Keyword(bytes):
    """A bare word: obj, endobj, stream, R, an operator …"""


class PdfString(bytes):
    """The bytes of a (literal) or <hex> string."""


@dataclass(frozen=True)
class Ref:
    num: int
    gen: int


class Steps:
    """A budget of parser and decoder steps for one file (pure-Python loops only)."""

    def __init__(self, budget: int, label: str) -> None:
        self.left = budget
        self.label = label

    def take(self, n: int = 1) -> None:
        self.left -= n
        if self.left < 0:
            raise UnreadableInput("input.pdf-too-complex", file=self.label)


class SyntaxFault(Exception):
    """Not an object here (the caller decides: skip it, or measure conservatively)."""


def skip_ws(data: bytes, pos: int) -> int:
    return _SKIP.match(data, pos).end()


def parse_object(data: bytes, pos: int, steps: Steps, depth: int = 0):
    """(the object at `pos`, the position after it). A reference `n g R` is one object."""
    obj, pos = _parse(data, pos, steps, depth)
    if isinstance(obj, int) and not isinstance(obj, bool):  # maybe `n g R`
        p2 = skip_ws(data, pos)
        m2 = _TOKEN.match(data, p2)
        if m2 and _INT.match(m2.group()):
            p3 = skip_ws(data, m2.end())
            m3 = _TOKEN.match(data, p3)
            if m3 and m3.group() == b"R":
                return Ref(obj, int(m2.group())), m3.end()
    return obj, pos


def _parse(data: bytes, pos: int, steps: Steps, depth: int):
    steps.take()
    pos = skip_ws(data, pos)
    m = _TOKEN.match(data, pos)
    if m is None:
        raise SyntaxFault(pos)
    tok = m.group()
    end = m.end()
    if tok == b"<<":
        if depth >= MAX_DEPTH:
            raise SyntaxFault(pos)
        out: dict[bytes, object] = {}
        while True:
            end = skip_ws(data, end)
            if data.startswith(b">>", end):
                return out, end + 2
            key, end = _parse(data, end, steps, depth + 1)
            if not isinstance(key, Name):
                raise SyntaxFault(end)
            end = skip_ws(data, end)
            if data.startswith(b">>", end):  # a key without a value: pdfium drops it
                return out, end + 2
            value, end = parse_object(data, end, steps, depth + 1)
            out[bytes(key)] = value
    if tok == b"[":
        if depth >= MAX_DEPTH:
            raise SyntaxFault(pos)
        run = _REF_RUN.match(data, end)  # an array of references (/Kids, /Annots): at once
        if run.end() > end and data.startswith(b"]", run.end()):
            nums = run.group().split()
            steps.take(len(nums) // 16 + 1)
            return [Ref(int(nums[k]), int(nums[k + 1])) for k in range(0, len(nums), 3)], \
                run.end() + 1
        items: list = []
        while True:
            end = skip_ws(data, end)
            if data.startswith(b"]", end):
                return items, end + 1
            if end >= len(data):
                raise SyntaxFault(end)
            value, end = parse_object(data, end, steps, depth + 1)
            items.append(value)
    if tok.startswith(b"/"):
        return Name(_NAME_ESC.sub(lambda e: bytes([int(e.group(1), 16)]), tok[1:])), end
    if tok == b"(":
        return _literal(data, end, steps)
    if tok == b"<":
        close = data.find(b">", end)
        if close < 0:
            raise SyntaxFault(pos)
        digits = _HEX_DROP.sub(b"", data[end:close])
        if len(digits) % 2:
            digits += b"0"
        return PdfString(bytes.fromhex(digits.decode())), close + 1
    if _NUMBER.match(tok):
        if _INT.match(tok):
            return int(tok), end
        return float(tok), end
    if tok == b"true" or tok == b"false":
        return tok == b"true", end
    if tok == b"null":
        return None, end
    return Keyword(tok), end


def _literal(data: bytes, pos: int, steps: Steps):
    out = bytearray()
    level = 1
    while True:
        m = _STRING_PART.match(data, pos)
        if m is None:
            raise SyntaxFault(pos)
        steps.take()
        part = m.group()
        pos = m.end()
        if part == b"(":
            level += 1
            out += part
        elif part == b")":
            level -= 1
            if level == 0:
                return PdfString(bytes(out)), pos
            out += part
        elif part.startswith(b"\\"):
            esc = part[1:]
            if esc[:1].isdigit():
                out.append(int(esc, 8) & 0xFF)
            else:
                out += _ESCAPES.get(esc, esc)
        else:
            out += part
