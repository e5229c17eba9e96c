"""Small hostile PDFs that cost a reader far more than their size (issues 33 and 37).

Each builder returns the bytes of one PDF made here, from nothing: the file is kilobytes to
a couple of megabytes, and what it costs a reader is `scale`-controlled (bench/bench_hostile.py
builds them at the issues' scale; the tests at the smallest scale that still crosses a limit).

- `endstream-shadow`: the first stream is honest, the second a deflate bomb (the old guard's
  `stream\\r?\\n` matched inside `endstream` and never measured it);
- `hex-flate-chain`: a bomb behind `[/ASCIIHexDecode /FlateDecode]` (counted as 0);
- `shared-image-99-pages`: 99 pages drawing one 100 MB image;
- `tiny-chars-later-page`: 3 million 0.1 pt characters on page 2;
- `shared-annots-99-pages`: 99 pages sharing one /Annots array of 100,000 annotations;
- `nested-forms`: form XObjects drawing each other, 4 × 4 × … = 10⁶ draws deep;
- `objstm-double-flate`: the page tree in an object stream compressed twice (issue 37);
- `lone-cr-stream`: a bomb whose `stream` keyword ends with a lone CR (issue 37);
- `inline-image-bomb`: a deflate bomb as a 4 × 4 inline image in a 600 KB content stream.
"""
from __future__ import annotations

import binascii
import zlib
from collections.abc import Callable

MB = 1 << 20


def deflate_repeat(chunk: bytes, times: int, level: int = 9) -> bytes:
    """zlib data of `chunk` × `times`, without holding the whole."""
    c = zlib.compressobj(level)
    out = [c.compress(chunk) for _ in range(times)]
    out.append(c.flush())
    return b"".join(out)


def spaces_bomb(size: int) -> bytes:
    """A deflated run of `size` spaces (a content stream that draws nothing, at length)."""
    step = min(size, MB)
    return deflate_repeat(b" " * step, max(1, size // step))


class PdfBuilder:
    """Objects by number; `build` writes them with a cross-reference stream, and the objects of
    `packed` inside one object stream (its filters and line ending chosen by the caller)."""

    def __init__(self) -> None:
        self.objects: dict[int, bytes] = {}
        self.packed: dict[int, bytes] = {}

    def new(self, body: bytes = b"null", packed: bool = False) -> int:
        num = len(self.objects) + len(self.packed) + 1
        (self.packed if packed else self.objects)[num] = body
        return num

    def set(self, num: int, body: bytes) -> None:
        (self.packed if num in self.packed else self.objects)[num] = body

    def build(self, root: int, objstm_filters: list[str] | None = None,
              objstm_encode: Callable[[bytes], bytes] | None = None) -> bytes:
        out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        where: dict[int, tuple[int, int, int]] = {}
        size = len(self.objects) + len(self.packed) + 1
        for num, body in sorted(self.objects.items()):
            where[num] = (1, len(out), 0)
            out += b"%d 0 obj\n" % num + body + b"\nendobj\n"
        if self.packed:
            stm = size
            size += 1
            header, bodies = [], []
            pos = 0
            for i, (num, body) in enumerate(sorted(self.packed.items())):
                header.append(b"%d %d" % (num, pos))
                bodies.append(body)
                pos += len(body) + 1
                where[num] = (2, stm, i)
            head = b" ".join(header) + b"\n"
            plain = head + b"\n".join(bodies) + b"\n"
            data = (objstm_encode or zlib.compress)(plain)
            filters = b" ".join(b"/" + f.encode() for f in (objstm_filters or ["FlateDecode"]))
            where[stm] = (1, len(out), 0)
            out += (b"%d 0 obj\n<< /Type /ObjStm /N %d /First %d /Length %d /Filter [%s] >>\n"
                    b"stream\n" % (stm, len(self.packed), len(head), len(data), filters)
                    + data + b"\nendstream\nendobj\n")
        xref_num = size
        size += 1
        where[xref_num] = (1, len(out), 0)
        rows = [b"\x00" * 5 + b"\x00\x00\xff\xff"]
        for num in range(1, size):
            kind, a, b = where.get(num, (0, 0, 0))
            rows.append(bytes([kind]) + a.to_bytes(4, "big") + b.to_bytes(4, "big"))
        table = b"".join(rows)
        xref_at = len(out)
        out += (b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 4] /Root %d 0 R /Length %d >>\n"
                b"stream\n" % (xref_num, size, root, len(table)) + table
                + b"\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % xref_at)
        return bytes(out)


def stream(entries: bytes, data: bytes, eol: bytes = b"\n") -> bytes:
    """A stream object's body: `<< entries /Length n >> stream<eol>data endstream`."""
    return (b"<< " + entries + b" /Length %d >>\nstream" % len(data) + eol + data
            + b"\nendstream")


def _page_tree(b: PdfBuilder, pages: list[int], packed: bool = False) -> int:
    """Catalog → Pages → `pages` (each a Page object whose /Parent is set here)."""
    tree = b.new(packed=packed)
    for p in pages:
        b.set(p, b.objects.get(p, b.packed.get(p, b"")).replace(b"/Parent 0 0 R", b"/Parent %d 0 R" % tree))
    kids = b" ".join(b"%d 0 R" % p for p in pages)
    b.set(tree, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(pages)))
    return b.new(b"<< /Type /Catalog /Pages %d 0 R >>" % tree, packed=packed)


def _font(b: PdfBuilder) -> int:
    return b.new(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")


def _page(b: PdfBuilder, contents: bytes, resources: bytes = b"", extra: bytes = b"",
          packed: bool = False) -> int:
    return b.new(b"<< /Type /Page /Parent 0 0 R /MediaBox [0 0 595 842] /Contents %s "
                 b"/Resources << %s >> %s >>" % (contents, resources, extra), packed=packed)


HELLO = b"BT /F1 24 Tf 72 720 Td (Deck sheet) Tj ET"


def endstream_shadow(scale: float = 1.0) -> bytes:
    b = PdfBuilder()
    font = _font(b)
    honest = b.new(stream(b"/Filter /FlateDecode", zlib.compress(HELLO)))
    bomb = b.new(stream(b"/Filter /FlateDecode", spaces_bomb(int(1024 * MB * scale))))
    page = _page(b, b"[%d 0 R %d 0 R]" % (honest, bomb), b"/Font << /F1 %d 0 R >>" % font)
    return b.build(_page_tree(b, [page]))


def hex_flate_chain(scale: float = 1.0) -> bytes:
    b = PdfBuilder()
    font = _font(b)
    data = binascii.hexlify(spaces_bomb(int(1024 * MB * scale))) + b">"
    bomb = b.new(stream(b"/Filter [/ASCIIHexDecode /FlateDecode]", data))
    page = _page(b, b"%d 0 R" % bomb, b"/Font << /F1 %d 0 R >>" % font)
    return b.build(_page_tree(b, [page]))


def shared_image_pages(scale: float = 1.0, pages: int = 99) -> bytes:
    """`pages` pages, each drawing one RGB image of 100 MB × `scale` (zeros: it deflates 1000:1)."""
    side = int((100 * MB * scale / 3) ** 0.5)
    b = PdfBuilder()
    image = b.new(stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace "
                         b"/DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode" % (side, side),
                         deflate_repeat(b"\0" * (side * 3), side)))
    content = b.new(stream(b"/Filter /FlateDecode",
                           zlib.compress(b"q 500 0 0 700 40 60 cm /Im0 Do Q")))
    kids = [_page(b, b"%d 0 R" % content, b"/XObject << /Im0 %d 0 R >>" % image)
            for _ in range(pages)]
    return b.build(_page_tree(b, kids))


def tiny_chars_later_page(scale: float = 1.0) -> bytes:
    """Page 1 a line of text; page 2 three million 0.1 pt characters."""
    n = int(3_000_000 * scale)
    b = PdfBuilder()
    font = _font(b)
    first = b.new(stream(b"/Filter /FlateDecode", zlib.compress(HELLO)))
    line = b"(" + b"x" * 1000 + b") Tj 0 -0.1 Td\n"
    body = b"BT /F1 0.1 Tf 20 800 Td\n" + line * (n // 1000) + b"ET"
    second = b.new(stream(b"/Filter /FlateDecode", zlib.compress(body, 9)))
    res = b"/Font << /F1 %d 0 R >>" % font
    return b.build(_page_tree(b, [_page(b, b"%d 0 R" % first, res),
                                  _page(b, b"%d 0 R" % second, res)]))


def shared_annots_pages(scale: float = 1.0, pages: int = 99) -> bytes:
    """`pages` pages sharing one /Annots array of 100,000 × `scale` square annotations (the
    annotations packed in an object stream: the file stays small)."""
    n = int(100_000 * scale)
    b = PdfBuilder()
    font = _font(b)
    content = b.new(stream(b"/Filter /FlateDecode", zlib.compress(HELLO)))
    annots = [b.new(b"<< /Type /Annot /Subtype /Square /Rect [%d %d %d %d] /C [1 0 0] >>"
                    % (i % 500, i % 800, i % 500 + 5, i % 800 + 5), packed=True)
              for i in range(n)]
    array = b.new(b"[" + b" ".join(b"%d 0 R" % a for a in annots) + b"]", packed=True)
    kids = [_page(b, b"%d 0 R" % content, b"/Font << /F1 %d 0 R >>" % font,
                  b"/Annots %d 0 R" % array) for _ in range(pages)]
    return b.build(_page_tree(b, kids))


def nested_forms(scale: float = 1.0, fan: int = 4) -> bytes:
    """Form XObjects each drawing the next `fan` times, deep enough for 10⁶ × `scale` draws of
    the last one (a square)."""
    depth = 1
    while fan ** depth < 1_000_000 * scale:
        depth += 1
    b = PdfBuilder()
    leaf = b.new(stream(b"/Type /XObject /Subtype /Form /BBox [0 0 10 10]",
                        b"0 0 5 5 re f"))
    child = leaf
    for _ in range(depth):
        draws = b" ".join([b"/X Do"] * fan)
        child = b.new(stream(b"/Type /XObject /Subtype /Form /BBox [0 0 10 10] "
                             b"/Resources << /XObject << /X %d 0 R >> >>" % child, draws))
    content = b.new(stream(b"", b"q 1 0 0 1 100 100 cm /X Do Q"))
    page = _page(b, b"%d 0 R" % content, b"/XObject << /X %d 0 R >>" % child)
    return b.build(_page_tree(b, [page]))


def objstm_double_flate(scale: float = 1.0) -> bytes:
    """The catalog and page tree in an object stream compressed twice, padded to
    2 GB × `scale` of spaces once unpacked."""
    pad = int(2048 * MB * scale)
    b = PdfBuilder()
    font = _font(b)
    content = b.new(stream(b"/Filter /FlateDecode", zlib.compress(HELLO)))
    page = _page(b, b"%d 0 R" % content, b"/Font << /F1 %d 0 R >>" % font, packed=True)
    root = _page_tree(b, [page], packed=True)

    def twice(plain: bytes) -> bytes:
        c = zlib.compressobj(9)
        step = b" " * MB
        inner = [c.compress(plain)] + [c.compress(step) for _ in range(pad // MB)] + [c.flush()]
        return zlib.compress(b"".join(inner), 9)
    return b.build(root, objstm_filters=["FlateDecode", "FlateDecode"], objstm_encode=twice)


def lone_cr_stream(scale: float = 1.0) -> bytes:
    """A deflate bomb whose `stream` keyword ends with a lone CR (pdfium reads it)."""
    b = PdfBuilder()
    font = _font(b)
    bomb = b.new(stream(b"/Filter /FlateDecode", spaces_bomb(int(1024 * MB * scale)), eol=b"\r"))
    page = _page(b, b"%d 0 R" % bomb, b"/Font << /F1 %d 0 R >>" % font)
    return b.build(_page_tree(b, [page]))


def inline_image_bomb(scale: float = 1.0) -> bytes:
    """A 4 × 4 inline image whose Flate data unpacks to 600 MB × `scale` inside a page's
    content stream (found while building this guard: pdfium decodes it whole, 2.8 GB)."""
    bomb = spaces_bomb(int(600 * MB * scale))
    content = (b"q 100 0 0 100 50 50 cm BI /W 4 /H 4 /BPC 8 /CS /G /F /Fl ID " + bomb
               + b" EI Q")
    b = PdfBuilder()
    page = _page(b, b"%d 0 R" % b.new(stream(b"/Filter /FlateDecode", zlib.compress(content))))
    return b.build(_page_tree(b, [page]))


BUILDERS: dict[str, Callable[..., bytes]] = {
    "endstream-shadow": endstream_shadow,
    "hex-flate-chain": hex_flate_chain,
    "shared-image-99-pages": shared_image_pages,
    "tiny-chars-later-page": tiny_chars_later_page,
    "shared-annots-99-pages": shared_annots_pages,
    "nested-forms": nested_forms,
    "objstm-double-flate": objstm_double_flate,
    "lone-cr-stream": lone_cr_stream,
    "inline-image-bomb": inline_image_bomb,
}
"""Every hostile class, by name (issue 33's six, issue 37's two, then one found here)."""
