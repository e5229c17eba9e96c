"""One entry point for every input: pick the reader by content, then resolve to a `Decklist`.

This module sits above the PDF and OCR readers: it owns the "no text layer → OCR" fallback, and
it reads every input's bytes exactly once through `scanner.inputs.limits` (size limits, pipes).
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from card_db.cdb import CardDatabase
from scanner.errors import DecksheetError, UnreadableInput
from scanner.inputs import limits
from scanner.inputs.pdf_streams import check_pdf_streams
from scanner.inputs.pool import (  # noqa: F401
    end_pool,
    reader_pool,
    single_core_worker,
    worker_memory_mb,
)
from scanner.inputs.formats import parse_json, parse_text_list, parse_ydk, parse_ydke
from scanner.inputs.options import ReadOptions
from scanner.inputs.resolve import resolve_sheet
from scanner.inputs.sniff import InputKind, decode_text, sniff_bytes, sniff_text
from scanner.model import Decklist, ReviewFlag, SheetRead
from scanner.vocab import Reason

log = logging.getLogger("decksheet.read")

__all__ = ["ReadOptions", "load_decklist", "load_decklist_bounded", "load_decklists", "read_input",
           "read_source_bytes", "read_text_source"]


def read_text_source(text: str, db: CardDatabase, kind: InputKind | None = None) -> SheetRead:
    """A decklist given as text (.ydk, ydke://, list, JSON), within the text limits."""
    if len(text) > limits.MAX_TEXT_BYTES:
        raise UnreadableInput("input.text-too-large", max_mb=limits.MAX_TEXT_BYTES // (1024 * 1024))
    if len(text.splitlines()) > limits.MAX_TEXT_LINES:  # \r, \u2028… end lines too
        raise UnreadableInput("input.text-too-many-lines", max=limits.MAX_TEXT_LINES)
    kind = kind or sniff_text(text)
    if kind is InputKind.YDKE:
        sheet = parse_ydke(text)
    elif kind is InputKind.JSON:
        sheet = parse_json(text)
    elif kind is InputKind.YDK:
        def is_extra(cid: int) -> bool | None:
            card = db.get(cid)
            return card.is_extra_deck if card else None
        sheet = parse_ydk(text, is_extra)
    else:
        sheet = parse_text_list(text)
    return _within_limits(sheet)


def _within_limits(sheet: SheetRead) -> SheetRead:
    """Counts and line numbers of a typed decklist (every text format, one check)."""
    limits.check_card_lines(len(sheet.lines))
    for n, line in enumerate(sheet.lines, 1):
        if line.count is not None:
            limits.check_count(line.count, f"{line.section} line {n}")
    return sheet


def read_source_bytes(source: str | Path) -> bytes:
    """All bytes of an input (file, pipe, FIFO or `-`), read once and within the size limits."""
    return limits.read_source(source)


def read_input(source: str | Path, db: CardDatabase, options: ReadOptions | None = None,
               data: bytes | None = None) -> tuple[SheetRead, str | None]:
    """Read any input into a `SheetRead`. Returns it with the sha256 of the file (of the URL
    text for a literal ydke:// URL given on the command line). `data`: the input's bytes,
    already read by `read_source_bytes` (a pipe can be read only once)."""
    options = options or ReadOptions()
    s = str(source)
    if data is None and s.strip().lower().startswith("ydke://") and not limits.exists(s):
        if len(s) > limits.MAX_TEXT_BYTES:
            raise UnreadableInput("input.ydke-too-long")
        return _within_limits(parse_ydke(s)), hashlib.sha256(s.strip().encode("utf-8")).hexdigest()
    if data is None:
        data = limits.read_source(source)
    elif len(data) > limits.MAX_INPUT_BYTES:
        raise UnreadableInput("input.too-large", file=_label(source),
                              max_mb=limits.MAX_INPUT_BYTES // (1024 * 1024))
    digest = hashlib.sha256(data).hexdigest()
    kind = sniff_bytes(data)
    if kind is InputKind.PDF:
        # Before pdfium or pypdf hold an unpacked bomb, in whatever process reads it.
        check_pdf_streams(data, _label(source), options.max_pages)
        with _as_file(source, data, ".pdf") as path:
            return _read_pdf(path, db, options), digest
    if kind is InputKind.IMAGE:
        from scanner.inputs.image_header import probe_image

        info = probe_image(data, _label(source), options.max_pages)  # before any decode
        with _as_file(source, data, ".img") as path:
            from scanner.ocr.pipeline import (
                read_photo,  # late: pulls in OpenCV and tesseract
            )
            sheet = read_photo(path, db, options)
        _flag_later_pages(sheet, info.frames, "frame")
        return sheet, digest
    if len(data) > limits.MAX_TEXT_BYTES:
        raise UnreadableInput("input.too-large", file=_label(source),
                              max_mb=limits.MAX_TEXT_BYTES // (1024 * 1024))
    return read_text_source(decode_text(data), db, kind), digest


def _read_pdf(path: Path, db: CardDatabase, options: ReadOptions) -> SheetRead:
    from scanner.pdf.reader import read_pdf  # late: pulls in the PDF libraries

    started = _second_reading(path, db) if options.verify else None
    try:
        sheet = read_pdf(path, db, options)
    except BaseException:
        if started is not None:
            started.cancel()
        raise
    if sheet is None and started is not None:
        started.cancel()
    if sheet is not None:  # text layer or form values: the rendered page must show them
        if options.verify and options.on_text_read is not None:
            _text_read(options.on_text_read, sheet, path)  # shown at once, verified below
        from scanner.appearance import check_appearance

        report = check_appearance(path, sheet, options.crops_dir)  # fast: flags early, never passes
        log.info("%s: appearance check %.3f s (%d words, %d lines flagged%s)", _label(path),
                 report.seconds, report.words, report.flagged,
                 report.stopped_note())
        if options.verify:
            from scanner.agreement import verify_readings

            checked = verify_readings(path, sheet, db, options, started)
            log.info("%s: verification (the pages read by the image reader) %.2f s: %d pictures, "
                     "%d reads at %d dpi, %d differ, %d not verified%s", _label(path), checked.seconds,
                     checked.renderings, checked.reads, checked.dpi, checked.differs,
                     checked.not_verified, checked.stopped_note())
        else:
            sheet.review.append(ReviewFlag(
                section=None, reason=Reason.NOT_VERIFIED,
                detail="read from the text layer only: the pages are not yet read by the image reader"))
    if sheet is None:  # no usable text layer: a scan saved as PDF
        from scanner.ocr.pipeline import read_pdf_pages  # late: OpenCV and Tesseract
        from scanner.pdf.reader import first_page_size, later_sheet_pages

        # The scan reader may render the page: a 200-inch page would be 1.6 gigapixels.
        width, height = first_page_size(path)
        dpi = limits.SCAN_RENDER_DPI
        limits.check_pixels(int(width * dpi / 72), int(height * dpi / 72), f"{_label(path)} page 1")
        sheet = read_pdf_pages(path, db, options)
        # The scan reader reads one page; say so for every other page that holds anything.
        _flag_pages(sheet, later_sheet_pages(path, 1), "page")
    return sheet


def _text_read(hook, sheet: SheetRead, path: Path) -> None:
    """`ReadOptions.on_text_read`: what the text layer says, before it is verified. A hook's
    failure costs only the early showing, never the reading."""
    try:
        hook(sheet)
    except Exception:  # noqa: BLE001 - the preview is a courtesy; the read goes on
        log.exception("%s: the text reading's hook failed", _label(path))


def _second_reading(path: Path, db: CardDatabase):
    """The image reader's reading of the pages, begun beside the text's (a PDF with text or form
    widgets: a scan's pages are read by the scan reader instead); None when it cannot begin (the
    verification then draws the pages itself)."""
    from scanner.pdf.render import has_text_or_widgets

    if not has_text_or_widgets(path):
        return None
    from scanner.agreement import SecondReading

    try:
        return SecondReading(path, db)
    except Exception as exc:  # noqa: BLE001 - the text reader reports a damaged file itself
        log.debug("second reading not begun: %s", exc)
        return None


def _flag_later_pages(sheet: SheetRead, count: int, what: str) -> None:
    if count > 1:
        _flag_pages(sheet, list(range(2, count + 1)), what)


def _flag_pages(sheet: SheetRead, numbers: list[int], what: str) -> None:
    for n in numbers:
        sheet.review.append(ReviewFlag(
            section=None, reason=Reason.ANOTHER_SHEET_PAGE,
            detail=f"{what} {n} also holds an image or deck lines; only {what} 1 was read "
                   f"(a continuation or a second sheet)"))


def _label(source: str | Path) -> str:
    s = str(source)
    return "standard input" if limits.is_stdin(s) else limits.shown(Path(s).name)


@contextlib.contextmanager
def _as_file(source: str | Path, data: bytes, suffix: str) -> Iterator[Path]:
    """A path holding `data`: the file itself, or a private copy of what a pipe sent (the PDF
    and image libraries open paths; a pipe can be read only once)."""
    path = Path(source)
    if not limits.is_stdin(str(source)) and path.is_file() and path.stat().st_size == len(data):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="decksheet-") as tmp:
        name = "stdin" if limits.is_stdin(str(source)) else (path.stem or "input")
        copy = Path(tmp) / (name + suffix)
        copy.write_bytes(data)
        yield copy


def load_decklist(source: str | Path, db: CardDatabase, options: ReadOptions | None = None,
                  data: bytes | None = None) -> Decklist:
    """Read and resolve any input: the whole of `decksheet scan` for one input. `data`: its
    bytes when the caller has read them already (see `read_input`)."""
    sheet, digest = read_input(source, db, options, data)
    deck = resolve_sheet(sheet, db)
    deck.source_path = str(source)
    deck.sha256 = digest
    return deck


# --- bounded readers: every PDF and image is read in a memory-capped process ---------------

_worker_db: CardDatabase | DecksheetError | None = None


def _init_batch_worker(spec) -> None:
    global _worker_db  # one database per worker process, loaded once (not per input)
    from card_db.cdb import load_card_db

    try:
        _worker_db = load_card_db(spec)
    except DecksheetError as exc:  # a damaged database: every input says so, the pool lives
        _worker_db = exc


def _load_in_worker(source: str, options: ReadOptions,
                    data: bytes | None = None) -> Decklist | DecksheetError:
    if isinstance(_worker_db, DecksheetError):
        return _worker_db
    try:
        return load_decklist(source, _worker_db, options, data=data)
    except DecksheetError as exc:  # the caller reports it beside the input, in order
        return exc
    except Exception as exc:  # past the worker's memory bound: this input fails, alone
        if not limits.out_of_memory(exc):
            raise
        return UnreadableInput("input.worker-memory", file=limits.shown(source),
                               max_mb=worker_memory_mb())


def _needs_reader(source: str) -> tuple[bool, bytes | None]:
    """(whether a PDF or image library would read it, its bytes when only this process can
    read them: standard input, a pipe). Anything that cannot be told here is read in this
    process, which refuses it with the same coded error."""
    s = str(source)
    if not limits.is_stdin(s) and s.strip().lower().startswith("ydke://") and not limits.exists(s):
        return False, None
    data = None
    try:
        if limits.is_stdin(s) or not Path(s).is_file():
            data = limits.read_source(s)  # a pipe is read once: here
            head = data[:4096]
        else:
            with open(s, "rb") as fh:
                head = fh.read(4096)
        kind = sniff_bytes(head)
    except (DecksheetError, OSError, ValueError):
        return False, data
    return kind in (InputKind.PDF, InputKind.IMAGE), data


def load_decklists(sources: list[str], db, options: ReadOptions | None = None,
                   workers: int = 1, spec=None, meanwhile: Callable[[], None] | None = None
                   ) -> Iterator[tuple[str, Decklist | DecksheetError]]:
    """`load_decklist` for many inputs, in their order. Every PDF and image is read in a
    reader process (`inputs.pool`: forked or spawned, memory-capped), `workers` at once — one
    input too: a hostile file ends its own reader, never this process. Text decklists are read here.
    An input that cannot be read yields its error instead of stopping the others; a reader
    that dies fails only the input it was reading alone (the others are read again, alone).

    `db`: the card database, or a function loading it (called only when a text input needs
    it here); `spec`: its `CardDbSpec` when `db` is a function; `meanwhile`: run here once the
    readers have started, before the first result is waited for (what it raises ends them)."""
    options = options or ReadOptions()
    get_db = db if callable(db) else (lambda: db)
    plan = [(src, *_needs_reader(src)) for src in sources]
    bounded = [i for i, (_, needs, _) in enumerate(plan) if needs]
    pool, size = None, 0
    futures: dict[int, object] = {}
    if bounded:
        size = max(1, min(workers, len(bounded)))
        # One reader alone may use both cores (OpenCV, pdfium's renderings); several, one each.
        pool = reader_pool(size, _init_batch_worker, (spec or db.spec,),
                           single_core=size > 1 or len(bounded) > 1)
        futures = {i: pool.submit(_load_in_worker, plan[i][0], options, plan[i][2])
                   for i in bounded}
    alone = _AloneReader(spec or (None if callable(db) else db.spec), options)
    first_death = size == 1
    try:
        if meanwhile is not None:
            meanwhile()
        for i, (src, needs, data) in enumerate(plan):
            if not needs:
                try:
                    yield src, load_decklist(src, get_db(), options, data=data)
                except DecksheetError as exc:
                    yield src, exc
                continue
            try:
                yield src, futures[i].result()
            except BrokenProcessPool:
                if first_death:  # one reader, this input in it alone: its own file did it
                    first_death = False
                    yield src, _died(src)
                else:  # maybe a neighbour's file: read it again, alone
                    yield src, alone.read(src, data)
    finally:
        end_pool(pool)
        alone.close()


def _died(source: str) -> UnreadableInput:
    return UnreadableInput("input.worker-died", file=limits.shown(source),
                           max_mb=worker_memory_mb())


class _AloneReader:
    """One reader process for inputs whose pool died under them: each is read alone, so a
    death there is that input's own."""

    def __init__(self, spec, options: ReadOptions) -> None:
        self.spec, self.options, self.pool = spec, options, None

    def read(self, source: str, data: bytes | None) -> Decklist | DecksheetError:
        if self.pool is None:
            self.pool = reader_pool(1, _init_batch_worker, (self.spec,))
        try:
            return self.pool.submit(_load_in_worker, source, self.options, data).result()
        except BrokenProcessPool:
            self.close()
            return _died(source)

    def close(self) -> None:
        end_pool(self.pool)
        self.pool = None


def load_decklist_bounded(source: str, db, options: ReadOptions | None = None,
                          spec=None) -> Decklist:
    """`load_decklist` for one input of the command line, a PDF or image read in a
    memory-capped reader process (see `load_decklists`); raises its error."""
    for _, deck in load_decklists([source], db, options, workers=1, spec=spec):
        if isinstance(deck, DecksheetError):
            raise deck
        return deck
    raise AssertionError("unreachable")
