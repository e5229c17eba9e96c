"""The input boundary: every size limit, and the one function that reads an input's bytes.

A busy desk gets careless and hostile files alike; each limit below sits well above anything a
real deck sheet or decklist needs and well below what would exhaust memory or time. README.md
("Limits") documents them. Readers check against these names, never against their own numbers.
"""
from __future__ import annotations

import os
import select
import stat
import sys
from pathlib import Path

from scanner.errors import UnreadableInput

MAX_INPUT_BYTES = 64 * 1024 * 1024
"""Any one input file. Phone photos are 2–20 MB, HEIC less, a 20-page scan PDF ~30 MB."""
MAX_TEXT_BYTES = 2 * 1024 * 1024
"""A text decklist (.ydk, ydke://, list, JSON). A 90-card deck is < 10 KB, its scan JSON with
every candidate < 200 KB."""
MAX_TEXT_LINES = 5_000
"""Lines of a text decklist, blank and comment lines included."""
MAX_CARD_LINES = 500
"""Card lines (entries, passcodes) in one decklist: a legal deck has at most 90 cards, so 500
leaves room for any honest mistake while keeping resolve/check/export bounded."""
MAX_COUNT = 99
"""Copies on one line. Above 3 is already illegal and reported; above 99 is not a deck (a JSON
count of 10⁹ would otherwise build 10⁹ lines in an export)."""
MAX_PIXELS = 60_000_000
"""One decoded image (any phone camera up to ~60 MP). Checked from the header, before decoding:
a 30000×30000 PNG is 2.7 GB of pixels."""
SCAN_RENDER_DPI = 200
"""The resolution a scanned PDF page is rendered at (scanner.ocr.pipeline.RENDER_DPI): its page
size times this must stay within MAX_PIXELS."""
MAX_PAGES = 100
"""Pages of a PDF or frames of a TIFF. A registration is 1–2 pages; every page is inspected for
a second sheet, so a whole event's batch scan should be split."""
MAX_PDF_STREAM_BYTES = 32 * 1024 * 1024
"""What one PDF content (non-image) stream may unpack to: a sheet's page is < 1 MB of drawing
operators; a deflated run of spaces unpacks 1000:1 and pdfium holds it whole."""
MAX_PDF_IMAGE_STREAM_BYTES = MAX_PIXELS * 4
"""One image stream of a PDF: the largest image MAX_PIXELS allows, 4 bytes a pixel (CMYK)."""
MAX_PDF_INFLATED_BYTES = 512 * 1024 * 1024
"""Every Flate stream of one PDF together."""
PDF_GUARD_STEPS = 150_000
"""Steps of the PDF guard's own parsing and pure-Python decoding (tokens, objects, LZW and
RunLength bytes): an honest sheet takes < 16,000 (Konami's filled form); a file built to make
the guard slow is refused past this (about half a second of work on an idle core), as too
complex to check."""
MAX_PDF_PAGE_CONTENT_BYTES = 1024 * 1024
"""Drawing operators one page runs: its content streams, and each form XObject or
annotation appearance as many times as it is drawn. A sheet's page runs 6–130 KB; a page of
3 million tiny characters, 3 MB (pdfium alone takes 4 s and 0.4 GB to list them)."""
MAX_PDF_DRAWN_CONTENT_BYTES = 4 * 1024 * 1024
"""Drawing operators all pages run together (99 pages sharing one content stream count it
99 times)."""
MAX_PDF_DRAWN_IMAGE_BYTES = 512 * 1024 * 1024
"""Images all pages draw, width × height × 4 bytes at each draw (pdfium decodes an image for
each page that draws it): a one-page scan draws 14–35 MB, so ~15 scanned pages fit; 99
pages drawing one 100 MB image draw 9.9 GB."""
MAX_PDF_ANNOTATIONS = 10_000
"""Annotations of all pages together (a shared array counted on each page): Konami's form
has 183, the Chinese one 209."""
MAX_PAGE_CHARACTERS = 20_000
"""Characters pdfium lists on one page of a text PDF (an honest sheet: at most ~2,200): the
readers stop before looking at each of them."""
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
"""One upload at the station (its default; `serve --max-upload-mb`): a phone photo is 2–8 MB,
a sheet PDF well under 1 MB."""
MAX_SHEET_PAGES = 4
"""Pages of a PDF uploaded as one registration at the station (a sheet and a cover)."""
WORKER_MEMORY_MB = 2048
"""Address space of one reading worker (`resource.RLIMIT_AS`; DECKSHEET_WORKER_MEMORY_MB
overrides). An OCR read of a 48 MP photo peaks at ~0.9 GB; a read past the bound fails alone,
with a clear error, instead of taking the machine's memory from the other desks."""
PIPE_IDLE_SECONDS = 30.0
"""A pipe or FIFO that sends nothing for this long is given up: it never blocks forever."""

STDIN_NAMES = {"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"}


def check_count(count: int, where: str) -> int:
    if count > MAX_COUNT or count < -MAX_COUNT:
        raise UnreadableInput("input.count-too-large", where=where, count=count, max=MAX_COUNT)
    return count


def check_card_lines(n: int) -> None:
    if n > MAX_CARD_LINES:
        raise UnreadableInput("input.too-many-card-lines", max=MAX_CARD_LINES)


def check_pixels(width: int, height: int, label: str) -> None:
    if width * height > MAX_PIXELS:
        raise UnreadableInput("input.too-many-pixels", file=label, width=width, height=height,
                              max_mp=MAX_PIXELS // 1_000_000)


def check_pages(n: int, label: str, what: str = "pages", most: int = MAX_PAGES) -> None:
    if n > most:
        raise UnreadableInput("input.too-many-pages", file=label, count=n, max=most)


def shown(source: str | Path, limit: int = 120) -> str:
    """A path as an error message shows it: one line, not longer than `limit` characters."""
    text = " ".join(str(source).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def exists(source: str | Path) -> bool:
    """Path.exists() that says False, not OSError, for a name too long to be a path."""
    try:
        return Path(source).exists()
    except (OSError, ValueError):
        return False


def is_stdin(source: str) -> bool:
    return source in STDIN_NAMES


def read_source(source: str | Path) -> bytes:
    """All bytes of an input, read once: a regular file up to MAX_INPUT_BYTES, or a pipe, FIFO
    or `-` (stdin) read to its end, with no wait longer than PIPE_IDLE_SECONDS."""
    name = str(source)
    if is_stdin(name):
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):  # a stand-in stream (embedding, tests)
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
            if len(data) > MAX_INPUT_BYTES:
                raise UnreadableInput("input.too-large", file="standard input",
                                      max_mb=MAX_INPUT_BYTES // (1024 * 1024)) from None
            return data
        return _read_stream(fd, "standard input", close=False)
    path = Path(source)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UnreadableInput("input.no-such-file", file=shown(path)) from None
    except OSError as exc:
        raise UnreadableInput("input.cannot-open", file=shown(path), reason=exc.strerror) from None
    if stat.S_ISDIR(st.st_mode):
        raise UnreadableInput("input.is-folder", file=shown(path))
    if stat.S_ISREG(st.st_mode):
        if st.st_size > MAX_INPUT_BYTES:
            raise UnreadableInput("input.too-large", file=shown(path.name),
                                  max_mb=MAX_INPUT_BYTES // (1024 * 1024))
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_INPUT_BYTES + 1)
        except OSError as exc:
            raise UnreadableInput("input.cannot-open", file=shown(path), reason=exc.strerror) from None
        if len(data) > MAX_INPUT_BYTES:  # grew while being read
            raise UnreadableInput("input.too-large", file=shown(path.name),
                                  max_mb=MAX_INPUT_BYTES // (1024 * 1024))
        return data
    if stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode) or stat.S_ISSOCK(st.st_mode):
        # Non-blocking open: opening a FIFO with no writer would otherwise wait forever.
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as exc:
            raise UnreadableInput("input.cannot-open", file=shown(path), reason=exc.strerror) from None
        return _read_stream(fd, shown(path), close=True)
    raise UnreadableInput("input.not-regular", file=shown(path))


def _read_stream(fd: int, label: str, close: bool) -> bytes:
    if os.isatty(fd):
        raise UnreadableInput("input.terminal", file=label)
    chunks: list[bytes] = []
    size = 0
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    try:
        while True:
            if not poller.poll(PIPE_IDLE_SECONDS * 1000):
                raise UnreadableInput("input.pipe-idle", file=label,
                                      seconds=f"{PIPE_IDLE_SECONDS:.0f}")
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            except OSError as exc:
                raise UnreadableInput("input.cannot-read", file=label, reason=exc.strerror) from None
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_INPUT_BYTES:
                raise UnreadableInput("input.too-large", file=label,
                                      max_mb=MAX_INPUT_BYTES // (1024 * 1024))
    finally:
        if close:
            os.close(fd)
    return b"".join(chunks)


def out_of_memory(exc: BaseException) -> bool:
    """Whether `exc` is a read stopped by the memory cap: Python's MemoryError, OpenCV's own
    when an allocation past the cap fails inside it (cv2.error with code StsNoMem from its
    allocator, or C++'s std::bad_alloc passed on with no code), or a library that could not
    even be loaded under it (the dynamic loader's "failed to map segment": a reader's first
    image pulls in OpenCV and its BLAS, hundreds of MB of address space)."""
    return (isinstance(exc, MemoryError)
            or (type(exc).__module__ == "cv2"
                and (getattr(exc, "code", None) == -4 or "bad_alloc" in str(exc)))
            or (isinstance(exc, ImportError) and "failed to map segment" in str(exc)))
