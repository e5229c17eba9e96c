"""A PDF measured before any PDF library opens it: every stream, and what its pages draw.

A 4 KB PDF can hold gigabytes: a deflated run of spaces unpacks 1000:1, deflated twice
10⁶:1, and pdfium holds all of it; 99 pages may draw one 100 MB image, or share one array of
100,000 annotations; form XObjects may draw each other 4 × 4 × … times. This module reads
the file's syntax only (`pdf_syntax`), never a PDF library, and refuses it with a coded error
(`UnreadableInput`) past the limits of `scanner.inputs.limits`:

1. **Every stream** — found after each `N G obj` dictionary and at every other `stream`
   keyword (a whole token: never inside `endstream`), its data starting after any line end
   (CRLF, LF or a lone CR, as pdfium reads it) — is decoded through **every filter of its
   chain** (`pdf_filters`), decrypted first when the file opens without a password
   (`pdf_crypt`). Each stage must stay within the stream's limit, and all of them within the
   file's. Object streams are kept (bounded) and their objects parsed like the file's own.
2. **The pages** — the page tree from the trailer's /Root, shared nodes counted every time
   they are reached — must number at most `max_pages`; what they draw (content streams, form
   XObjects times the `Do` operators that draw them, images, annotations and their
   appearances) must stay within the drawing limits.

Inline images (`BI … ID data EI`) of every content stream are decoded through their filters
too. What is not measured here (Type 3 glyph procedures, tiling patterns, a cross-reference
table that points pdfium at another definition of an object than the last one in the file) is
bounded by the content limits around it and by the reader process's memory cap (`inputs.pool`).
"""
from __future__ import annotations

import bisect
import contextlib
import re
from dataclasses import dataclass, field

from scanner.errors import UnreadableInput
from scanner.inputs import limits
from scanner.inputs.pdf_crypt import Decryptor, open_with_empty_password
from scanner.inputs.pdf_filters import (
    CRYPT,
    IMAGE_CODECS,
    STEP,
    TooLarge,
    Unmeasurable,
    as_names,
    as_parms,
    decode,
    image_size,
)
from scanner.inputs.pdf_syntax import (
    Keyword,
    Name,
    Ref,
    Steps,
    SyntaxFault,
    REGULAR,
    REGULAR_RE,
    WS,
    WS_RE,
    parse_object,
    skip_ws,
)


def _keyword(word: bytes) -> re.Pattern[bytes]:
    """`word` as a whole token: no regular byte right before or after it."""
    return re.compile(rb"(?<!" + REGULAR_RE + rb")" + word + rb"(?!" + REGULAR_RE + rb")")


_OBJ = re.compile(rb"(?<![0-9])(\d{1,10})" + WS_RE + rb"+(\d{1,5})" + WS_RE + rb"+obj(?!" + REGULAR_RE + rb")")
_STREAM = _keyword(rb"stream")
_ENDSTREAM = _keyword(rb"endstream")
_ENDOBJ = _keyword(rb"endobj")
_TRAILER = _keyword(rb"trailer")
_EOL = re.compile(rb"\r\n|\n|\r")
_INLINE = re.compile(rb"(?<![^\0\t\n\f\r ])BI(?=[\0\t\n\f\r /])")
"""`BI` after white space (or at the start), before white space or a name."""
_PAIRS = re.compile(WS_RE + rb"*(?:\d+" + WS_RE + rb"+\d+" + WS_RE + rb"*)*")
MAX_NESTING = 64
"""Page-tree levels and form XObjects inside each other (an honest sheet has < 5)."""
MAX_KEPT_OBJECT_STREAMS = 64 * 1024 * 1024
"""Unpacked object streams held at once to parse their objects."""


@dataclass
class StreamRec:
    num: int | None
    gen: int
    info: dict
    start: int
    end: int = 0
    size: int = 0
    """What the chain unpacks to (an image codec: width × height × 4)."""
    draws: int = 0
    """`Do` operators in the unpacked data (an upper bound: any `Do` bytes)."""
    pixels: int = 0
    inline: int = 0
    """What its inline images unpack to (a content stream's), counted as images it draws."""


@dataclass
class PdfCensus:
    """What one PDF holds and draws, as measured (bench/bench_hostile.py prints it)."""

    streams: int = 0
    inflated: int = 0
    """Bytes all streams unpack to, every stage of every chain."""
    pages: int = 0
    content: int = 0
    """Bytes of drawing operators its pages run (forms counted at each draw)."""
    page_content: int = 0
    """The most any one page runs."""
    images: int = 0
    """Bytes of images its pages draw (width × height × 4 at each draw)."""
    annotations: int = 0
    """Annotations of all pages (a shared array counted on each page)."""
    encrypted: bool = False
    password: bool = False
    """Encrypted with a password: pdfium cannot open it, nothing in it can unpack."""
    steps: int = 0
    """Steps of the guard's budget this file took (`limits.PDF_GUARD_STEPS`)."""
    notes: list[str] = field(default_factory=list)


def check_pdf_streams(data: bytes, label: str, max_pages: int = limits.MAX_PAGES) -> int:
    """Refuse a PDF past any limit (see the module's docstring); returns the bytes all its
    streams unpack to."""
    return measure_pdf(data, label, max_pages).inflated


def measure_pdf(data: bytes, label: str, max_pages: int = limits.MAX_PAGES) -> PdfCensus:
    return _Guard(data, label, max_pages).run()


class _Guard:
    def __init__(self, data: bytes, label: str, max_pages: int) -> None:
        self.data = data
        self.label = label
        self.max_pages = max_pages
        self.steps = Steps(limits.PDF_GUARD_STEPS, label)
        self.census = PdfCensus()
        self.keywords: list[int] = []
        """Offsets of every `stream` keyword (a whole token)."""
        self.header_num: dict[int, int] = {}
        self.headers: list[int] = []
        """Offsets after each `obj` keyword, in file order."""
        self.where: dict[int, tuple[int, int]] = {}
        """Object number → (gen, offset after its `obj`): the last definition in the file."""
        self.packed: dict[int, tuple[int, int]] = {}
        """Object number → (object stream number, offset in its unpacked data)."""
        self.kept: dict[int, bytes] = {}
        self.kept_bytes = 0
        self.streams: dict[int, StreamRec] = {}
        self.parsed: dict[tuple[str, int], object] = {}
        self.trailers: list[dict] = []
        self.crypt: Decryptor | None = None
        self._declared = 0
        """The page count the tree declares: what a refusal names (the walk stops at the limit)."""

    # ------------------------------------------------------------------ pass 1: objects

    def run(self) -> PdfCensus:
        try:
            return self._run()
        finally:
            self.census.steps = limits.PDF_GUARD_STEPS - self.steps.left

    def _run(self) -> PdfCensus:
        recs = self._find_streams()
        self._trailers(recs)
        self._encryption()
        if self.census.password:
            return self.census
        for rec in recs:
            self._measure(rec)
        self.census.streams = len(recs)
        self._index_object_streams(recs)
        self._pages()
        return self.census

    def _find_streams(self) -> list[StreamRec]:
        data = self.data
        recs: list[StreamRec] = []
        self.keywords = _keywords(data, self.steps)
        self.ends = [m.start() for m in _ENDSTREAM.finditer(data)]
        self.endobjs = [m.start() for m in _ENDOBJ.finditer(data)]
        for m in _OBJ.finditer(data):
            self.steps.take(2)  # each is parsed to see whether a stream follows
            num, gen, after = int(m.group(1)), int(m.group(2)), m.end()
            self.headers.append(after)
            self.where[num] = (gen, after)
            self.header_num[after] = num
            rec = self._stream_after(after, num, gen)
            if rec is not None:
                recs.append(rec)
        known = {r.start for r in recs}
        spans = sorted((r.start, r.end) for r in recs)
        starts = [s for s, _ in spans]
        for at in self.keywords:
            start = _data_start(data, at + 6)
            if start in known:
                continue
            i = bisect.bisect_right(starts, at) - 1
            if i >= 0 and spans[i][0] <= at < spans[i][1]:
                continue  # bytes inside a stream's data
            self.steps.take(10)  # honest files have none: each is parsed and measured
            rec = self._orphan(at, start)
            recs.append(rec)
            known.add(start)
        recs.sort(key=lambda r: r.start)
        return recs

    def _stream_after(self, after: int, num: int | None, gen: int) -> StreamRec | None:
        """The stream whose dictionary starts at `after` (just past `obj`), if it is one."""
        i = bisect.bisect_left(self.keywords, after)
        if i == len(self.keywords):
            return None
        if self._next(self.endobjs, after) < self.keywords[i]:
            return None  # not a stream: parsed only if the pages need it
        try:
            obj, pos = parse_object(self.data, after, self.steps)
        except (SyntaxFault, IndexError, ValueError):
            return None
        if not isinstance(obj, dict):
            return None
        pos = skip_ws(self.data, pos)
        if not self.data.startswith(b"stream", pos) or _STREAM.match(self.data, pos) is None:
            return None
        rec = StreamRec(num, gen, obj, _data_start(self.data, pos + 6))
        rec.end = self._data_end(rec)
        return rec

    def _orphan(self, keyword: int, start: int) -> StreamRec:
        """A `stream` keyword no `N G obj` header leads to (a comment inside the header, a
        damaged table …): its dictionary is the object before it, when one parses."""
        i = bisect.bisect_right(self.headers, keyword) - 1
        at = self.data.rfind(b"obj", max(0, keyword - 4096), keyword)
        for after in ([self.headers[i]] if i >= 0 else []) + ([at + 3] if at >= 0 else []):
            try:
                obj, pos = parse_object(self.data, after, self.steps)
            except (SyntaxFault, IndexError, ValueError):
                continue
            if isinstance(obj, dict) and skip_ws(self.data, pos) == keyword:
                num = self.header_num.get(after)
                rec = StreamRec(num, self.where.get(num, (0, 0))[0] if num else 0, obj, start)
                rec.end = self._data_end(rec)
                return rec
        # No dictionary: pdfium would not read it as a stream; measured as Flate anyway.
        rec = StreamRec(None, 0, {b"Filter": Name(b"FlateDecode")}, start)
        rec.end = self._data_end(rec)
        return rec

    def _data_end(self, rec: StreamRec) -> int:
        """Where pdfium ends the data: at /Length when `endstream` follows it, else at the
        next `endstream` (or `endobj`)."""
        length = rec.info.get(b"Length")
        if isinstance(length, Ref):
            length = self._top_level_int(length.num)
        if isinstance(length, int) and not isinstance(length, bool) and 0 <= length <= len(self.data):
            end = rec.start + length
            if self.data.startswith(b"endstream", skip_ws(self.data, end)):
                return end
        return min(self._next(self.ends, rec.start), self._next(self.endobjs, rec.start))

    def _next(self, offsets: list[int], at: int) -> int:
        """The first of `offsets` at or after `at` (the end of the file if none)."""
        i = bisect.bisect_left(offsets, at)
        return offsets[i] if i < len(offsets) else len(self.data)

    def _top_level_int(self, num: int) -> int | None:
        if num not in self.where:
            return None
        try:
            value, _ = parse_object(self.data, self.where[num][1], self.steps)
        except (SyntaxFault, IndexError, ValueError):
            return None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def _trailers(self, recs: list[StreamRec]) -> None:
        found: list[tuple[int, dict]] = []
        for m in _TRAILER.finditer(self.data):
            self.steps.take(2)
            try:
                obj, _ = parse_object(self.data, m.end(), self.steps)
            except (SyntaxFault, IndexError, ValueError):
                continue
            if isinstance(obj, dict):
                found.append((m.start(), obj))
        found += [(r.start, r.info) for r in recs if r.info.get(b"Type") == b"XRef"]
        self.trailers = [t for _, t in sorted(found, key=lambda f: f[0])]

    def _trailer_value(self, key: bytes):
        for t in reversed(self.trailers):
            if key in t:
                return t[key]
        return None

    def _encryption(self) -> None:
        enc = self._trailer_value(b"Encrypt")
        if enc is None:
            return
        self.census.encrypted = True
        if isinstance(enc, Ref):
            enc = self._top_level(enc.num)
        ids = self._trailer_value(b"ID")
        first = bytes(ids[0]) if isinstance(ids, list) and ids and isinstance(ids[0], bytes) else b""
        self.crypt = open_with_empty_password(enc, first) if isinstance(enc, dict) else None
        if self.crypt is None:
            self.census.password = True  # pdfium cannot read its streams either
            self.census.notes.append("encrypted with a password")

    # ------------------------------------------------------------------ pass 2: streams

    def _measure(self, rec: StreamRec) -> None:
        info = rec.info
        filters = as_names(self._value(info.get(b"Filter")))
        parms = as_parms(self._value(info.get(b"DecodeParms")), len(filters))
        parms = [self._value(p) for p in parms]
        image = info.get(b"Subtype") == b"Image"
        if image:
            width, height = self._int(info.get(b"Width")), self._int(info.get(b"Height"))
            limits.check_pixels(width, height, self.label)
        limit = min(limits.MAX_PDF_IMAGE_STREAM_BYTES if image else limits.MAX_PDF_STREAM_BYTES,
                    limits.MAX_PDF_INFLATED_BYTES - self.census.inflated)
        chunks = (self.data[i:min(i + STEP, rec.end)] for i in range(rec.start, rec.end, STEP))
        if self.crypt is not None and self.crypt.applies(info) and not (filters and filters[0] == CRYPT):
            chunks = self.crypt.decrypt(chunks, rec.num or 0, rec.gen)
        codec = filters[-1] if filters and filters[-1] in IMAGE_CODECS else None
        counts: list[list[int]] = []
        keep = info.get(b"Type") == b"ObjStm"
        kept = bytearray()
        with self._coded_limits(limit):
            out = decode(chunks, filters[:-1] if codec else filters, parms, limit, self.steps,
                         counts)
            if codec:
                head = bytearray()
                for chunk in out:
                    if len(head) < 65536:
                        head += chunk[:65536 - len(head)]
                w, h = image_size(codec, bytes(head), self._int(info.get(b"Width")),
                                  self._int(info.get(b"Height")), parms[-1] if parms else None)
                limits.check_pixels(w, h, self.label)
                rec.size = w * h * 4
                if rec.size > limit:
                    raise TooLarge()
            else:
                tail = b""
                scan = not image  # maybe a content stream: its inline images are measured
                for chunk in out:
                    rec.draws += (tail + chunk[:1]).count(b"Do") + chunk.count(b"Do")
                    tail = chunk[-1:]
                    if keep or scan:
                        kept += chunk
                        scan = scan and len(kept) <= 2 * limits.MAX_PDF_PAGE_CONTENT_BYTES
                rec.size = counts[-1][0] if counts else rec.end - rec.start
                if scan and not keep:
                    rec.inline = self._inline_images(bytes(kept))
                    kept = bytearray()
        if image:
            rec.pixels = self._int(info.get(b"Width")) * self._int(info.get(b"Height"))
            rec.size = max(rec.size, rec.pixels * 4)
        self.census.inflated += sum(c[0] for c in counts) + (rec.size if codec else 0)
        if self.census.inflated > limits.MAX_PDF_INFLATED_BYTES:
            raise UnreadableInput("input.pdf-stream-too-large", file=self.label,
                                  max_mb=limits.MAX_PDF_INFLATED_BYTES >> 20)
        if keep and rec.num is not None:
            self.kept_bytes += len(kept)
            if self.kept_bytes > MAX_KEPT_OBJECT_STREAMS:
                raise UnreadableInput("input.pdf-too-complex", file=self.label)
            self.kept[rec.num] = bytes(kept)
        if rec.num is not None:
            self.streams[rec.num] = rec

    @contextlib.contextmanager
    def _coded_limits(self, limit: int):
        """A stream's decoding, a limit it breaks (`TooLarge`) or a filter that cannot be
        measured (`Unmeasurable`) refused as the input's coded error."""
        try:
            yield
        except TooLarge:
            raise UnreadableInput("input.pdf-stream-too-large", file=self.label,
                                  max_mb=limit >> 20) from None
        except Unmeasurable as exc:
            raise UnreadableInput("input.pdf-stream-unmeasurable", file=self.label,
                                  filter=str(exc.args[0])) from None

    def _inline_images(self, content: bytes) -> int:
        """Bytes the inline images (`BI … ID data EI`) of a content stream unpack to, each
        through its filters: pdfium decodes one whole to find where it ends (a 1.6 KB file
        whose 600 KB page holds a deflate bomb that way took pdfium to 2.8 GB)."""
        total = 0
        for m in _INLINE.finditer(content):
            self.steps.take()
            info: dict[bytes, object] = {}
            pos = m.end()
            try:
                while True:
                    pos = skip_ws(content, pos)
                    if content.startswith(b"ID", pos) and pos + 2 < len(content) \
                            and content[pos + 2] in WS:
                        break
                    key, pos = parse_object(content, pos, self.steps)
                    value, pos = parse_object(content, pos, self.steps)
                    if not isinstance(key, Name):
                        raise SyntaxFault(pos)
                    info[bytes(key)] = value
            except (SyntaxFault, IndexError, ValueError):
                continue  # not an inline image (the bytes of another's data, a string …)
            start = pos + 3
            filters = as_names(info.get(b"F", info.get(b"Filter")))
            parms = as_parms(info.get(b"DP", info.get(b"DecodeParms")), len(filters))
            width = self._int(info.get(b"W", info.get(b"Width")))
            height = self._int(info.get(b"H", info.get(b"Height")))
            limits.check_pixels(width, height, self.label)
            limit = min(limits.MAX_PDF_STREAM_BYTES,
                        limits.MAX_PDF_INFLATED_BYTES - self.census.inflated - total)
            codec = filters[-1] if filters and filters[-1] in IMAGE_CODECS else None
            counts: list[list[int]] = []
            with self._coded_limits(limit):
                for _ in decode(iter([content[start:]]), filters[:-1] if codec else filters,
                                parms, limit, self.steps, counts):
                    pass
            total += sum(c[0] for c in counts) + width * height * 4
        self.census.inflated += total
        if self.census.inflated > limits.MAX_PDF_INFLATED_BYTES:
            raise UnreadableInput("input.pdf-stream-too-large", file=self.label,
                                  max_mb=limits.MAX_PDF_INFLATED_BYTES >> 20)
        return total

    def _index_object_streams(self, recs: list[StreamRec]) -> None:
        for rec in recs:
            if rec.num is None or rec.num not in self.kept:
                continue
            body = self.kept[rec.num]
            n, first = self._int(rec.info.get(b"N")), self._int(rec.info.get(b"First"))
            pairs = _PAIRS.match(body, 0, first).group().split()
            self.steps.take(len(pairs) // 16)
            for k in range(0, min(2 * n, len(pairs) - 1), 2):
                num = int(pairs[k])
                if num not in self.where:  # a top-level definition wins (an update)
                    self.packed[num] = (rec.num, first + int(pairs[k + 1]))

    # ------------------------------------------------------------------ pass 3: pages

    def _top_level(self, num: int):
        key = ("t", num)
        if key not in self.parsed:
            self.parsed[key] = None
            try:
                self.parsed[key], _ = parse_object(self.data, self.where[num][1], self.steps)
            except (SyntaxFault, IndexError, ValueError, KeyError):
                pass
        return self.parsed[key]

    def _resolve(self, value, depth: int = 0):
        """A reference's object (top-level or packed); anything else as it is."""
        while isinstance(value, Ref) and depth < 8:
            depth += 1
            if value.num in self.where:
                value = self._top_level(value.num)
            elif value.num in self.packed:
                stm, off = self.packed[value.num]
                key = ("p", value.num)
                if key not in self.parsed:
                    self.parsed[key] = None
                    try:
                        self.parsed[key], _ = parse_object(self.kept[stm], off, self.steps)
                    except (SyntaxFault, IndexError, ValueError):
                        pass
                value = self.parsed[key]
            else:
                return None
        return None if isinstance(value, Ref | Keyword) else value

    def _value(self, value):
        return self._resolve(value) if isinstance(value, Ref) else value

    def _int(self, value) -> int:
        value = self._value(value)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    def _pages(self) -> None:
        root = self._resolve(self._trailer_value(b"Root"))
        if not isinstance(root, dict):
            self.census.notes.append("no document catalog found")
            return
        self._memo: dict[tuple, tuple[int, int, int, int, int]] = {}
        self._forms: dict[tuple, tuple[int, int]] = {}
        tree = self._resolve(root.get(b"Pages"))
        self._declared = self._int(tree.get(b"Count")) if isinstance(tree, dict) else 0
        pages, content, images, annots, most = self._node(root.get(b"Pages"), None, ())
        c = self.census
        c.pages, c.content, c.images, c.annotations, c.page_content = \
            pages, content, images, annots, most
        if pages > self.max_pages:
            self._check([pages, 0, 0, 0, 0])

    def _node(self, ref, inherited, path: tuple) -> tuple[int, int, int, int, int]:
        """(pages, content bytes, image bytes, annotations, most content on one page) under a
        page-tree node."""
        if len(path) > MAX_NESTING:
            raise UnreadableInput("input.pdf-too-complex", file=self.label)
        num = ref.num if isinstance(ref, Ref) else None
        if num is not None and num in path:
            return 0, 0, 0, 0, 0  # a cycle: pdfium leaves it
        node = self._resolve(ref)
        if not isinstance(node, dict):
            return 0, 0, 0, 0, 0
        resources = node.get(b"Resources", inherited)
        key = (num, id(resources) if num is None else _ref_key(resources))
        if num is not None and key in self._memo:
            return self._memo[key]
        kids = self._resolve(node.get(b"Kids")) if b"Kids" in node else None
        if isinstance(kids, list):
            total = [0, 0, 0, 0, 0]
            self.steps.take(len(kids))
            for kid in kids:
                got = self._node(kid, resources, path + (num,))
                for i in range(4):
                    total[i] += got[i]
                total[4] = max(total[4], got[4])
                self._check(total)
            out = tuple(total)
        else:
            content, images = self._drawing(node.get(b"Contents"), resources, path + (num,))
            annots = self._resolve(node.get(b"Annots"))
            count = len(annots) if isinstance(annots, list) else 0
            self._check([0, 0, 0, self.census.annotations + count, 0])
            ap_content, ap_images = self._appearances(node.get(b"Annots"), annots, path + (num,))
            out = (1, content + ap_content, images + ap_images, count, content + ap_content)
            self._check(list(out))
        if num is not None:
            self._memo[key] = out
        return out

    def _check(self, total: list[int]) -> None:
        pages, content, images, annots, most = total
        if pages > self.max_pages:
            raise UnreadableInput("input.too-many-pages", file=self.label,
                                  count=max(pages, self._declared),
                                  max=self.max_pages)
        if annots > limits.MAX_PDF_ANNOTATIONS:
            raise UnreadableInput("input.pdf-too-many-annotations", file=self.label,
                                  count=annots, max=limits.MAX_PDF_ANNOTATIONS)
        for drawn, limit in ((most, limits.MAX_PDF_PAGE_CONTENT_BYTES),
                             (content, limits.MAX_PDF_DRAWN_CONTENT_BYTES)):
            if drawn > limit:
                raise UnreadableInput("input.pdf-too-much-drawing", file=self.label,
                                      mb=_mb(drawn), max_mb=limit >> 20)
        if images > limits.MAX_PDF_DRAWN_IMAGE_BYTES:
            raise UnreadableInput("input.pdf-too-many-image-draws", file=self.label,
                                  mb=_mb(images), max_mb=limits.MAX_PDF_DRAWN_IMAGE_BYTES >> 20)

    def _drawing(self, contents, resources, path: tuple) -> tuple[int, int]:
        """(content bytes, image bytes) a page's /Contents run with its resources."""
        refs = self._value(contents)
        refs = refs if isinstance(refs, list) else [contents]
        size = draws = inline = 0
        for ref in refs:
            rec = self.streams.get(ref.num) if isinstance(ref, Ref) else None
            if rec is not None:
                size += rec.size
                draws += rec.draws
                inline += rec.inline
        child_content, child_images = self._children(resources, path)
        return size + draws * child_content, inline + draws * child_images

    def _children(self, resources, path: tuple) -> tuple[int, int]:
        """The most one `Do` with these resources may draw: (content bytes, image bytes)."""
        res = self._resolve(resources) if isinstance(resources, Ref) else resources
        xobjects = self._resolve(res.get(b"XObject")) if isinstance(res, dict) else None
        if not isinstance(xobjects, dict):
            return 0, 0
        best_c = best_i = 0
        self.steps.take(len(xobjects))
        for ref in xobjects.values():
            c, i = self._xobject(ref, resources, path)
            best_c, best_i = max(best_c, c), max(best_i, i)
        return best_c, best_i

    def _xobject(self, ref, page_resources, path: tuple) -> tuple[int, int]:
        rec = self.streams.get(ref.num) if isinstance(ref, Ref) else None
        if rec is None:
            return 0, 0
        if rec.info.get(b"Subtype") == b"Image":
            return 0, rec.size
        if rec.num in path:
            return 0, 0  # a form drawing itself: pdfium stops there
        if len(path) > MAX_NESTING:
            raise UnreadableInput("input.pdf-too-complex", file=self.label)
        resources = rec.info.get(b"Resources", page_resources)
        key = (rec.num, _ref_key(resources))
        if key not in self._forms:
            child_c, child_i = self._children(resources, path + (rec.num,))
            content = rec.size + rec.draws * child_c
            images = rec.inline + rec.draws * child_i
            self._forms[key] = (content, images)
            self._check([0, 0, images, 0, content])
        return self._forms[key]

    def _appearances(self, ref, annots, path: tuple) -> tuple[int, int]:
        """What a page's annotations draw: each one's normal appearance (its largest state)."""
        if not isinstance(annots, list):
            return 0, 0
        key = ("annots", _ref_key(ref))
        if isinstance(ref, Ref) and key in self._forms:
            return self._forms[key]
        content = images = 0
        self.steps.take(len(annots))
        for a in annots:
            annot = self._resolve(a)
            ap = self._resolve(annot.get(b"AP")) if isinstance(annot, dict) else None
            normal = ap.get(b"N") if isinstance(ap, dict) else None
            states = self._resolve(normal) if not _is_stream(self, normal) else None
            refs = list(states.values()) if isinstance(states, dict) else [normal]
            best_c = best_i = 0
            for r in refs:
                c, i = self._xobject(r, None, path)
                best_c, best_i = max(best_c, c), max(best_i, i)
            content += best_c
            images += best_i
        if isinstance(ref, Ref):
            self._forms[key] = (content, images)
        return content, images


def _is_stream(guard: _Guard, value) -> bool:
    return isinstance(value, Ref) and value.num in guard.streams


def _ref_key(value):
    return (value.num, value.gen) if isinstance(value, Ref) else id(value) if value is not None else None


def _keywords(data: bytes, steps: Steps) -> list[int]:
    """Offsets of `stream` as a whole token (never the end of `endstream`)."""
    out = []
    at = data.find(b"stream")
    while at >= 0:
        steps.take()
        if (at == 0 or data[at - 1] not in REGULAR) and \
                (at + 6 >= len(data) or data[at + 6] not in REGULAR):
            out.append(at)
        at = data.find(b"stream", at + 6)
    return out


def _data_start(data: bytes, after_keyword: int) -> int:
    """pdfium starts a stream's data after the first line end that follows `stream`."""
    m = _EOL.search(data, after_keyword)
    return m.end() if m else len(data)


def _mb(n: int) -> str:
    return f"{n / (1 << 20):,.1f}" if n < (1 << 60) else "∞"
