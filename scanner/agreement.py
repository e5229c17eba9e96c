"""Two readings that must agree: a PDF's deck is what its pages show, on screen and on paper.

A text-layer or form sheet (`scanner.pdf.reader`) is read a second time, independently, by the
image reader (`scanner.ocr.pipeline`, the reader of photos and scans) on every page as pdfium
draws it — forms and annotations drawn — once as shown on screen and once as printed
(`scanner.pdf.render`; identical pictures are read once). The image reader takes nothing from the
text layer: it finds the tables by their rules and reads each row against the whole card
vocabulary. The two readings are then compared column by column, card by card and count by count:

- a line both read alike (the image reader sure of it) is verified;
- a line they read differently, a row only one of them has, a page other than the one read that
  shows a deck sheet → `appearance-differs`, with both readings and the crop of the page;
- a line the image reader could not read (no table found, a doubtful name or count, a script it
  cannot read) → `not-verified`: never accepted on the text layer's word alone.

A clean rendering reads right on nearly every line, not all: when the first resolution does not
agree, the page is read again at another and the reading that agrees best is kept (a picture that
shows another deck disagrees at every resolution; only a reading that agrees on everything ends
the search). Time, pages and renderings are bounded; what is left unread is `not-verified`.
"""
from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from card_db.names import jamo_likeness

from scanner.appearance import CheckReport
from scanner.errors import DecksheetError
from scanner.inputs import limits
from scanner.inputs.options import ReadOptions
from scanner.inputs.resolve import MAX_SANE_COUNT, policy_for, resolve_line
from scanner.model import ReadLine, ReviewFlag, SheetRead, position_label
from scanner.pdf.render import PRINT, SCREEN, PageRendering, render_pages
from scanner.vocab import Reason

if TYPE_CHECKING:
    from card_db.cdb import CardDatabase
    from scanner.ocr.pipeline import PageContext

log = logging.getLogger("decksheet.read_pdf")

DIFFERS = Reason.APPEARANCE_DIFFERS
NOT_VERIFIED = Reason.NOT_VERIFIED
DPIS = (200, 150, 300)
"""Resolutions the page read is drawn at, in turn, until a reading agrees (pdfium at 200 dpi reads
right on 100 % of the lines of the shared text sheets, 150 dpi 99.8 %: bench/bench_renderings.py)."""
MAX_PAGES = limits.MAX_SHEET_PAGES * 2
"""Pages drawn and read; a longer file's other pages are `not-verified` (a sheet is 1–2 pages)."""
MAX_SECONDS = 12.0
"""Processor time the verification may take per file (≈1 s a page read); past it what is unread
is flagged. Processor time, not the clock's: a busy machine must not change what is verified."""
BLANK_INK = 0.0005
"""Share of dark pixels under which a page is blank paper (not read)."""
COLUMN_FLAGS = frozenset({Reason.COLUMN_TOTAL_MISMATCH})
"""Image-reader flags about a whole column, not the line (its printed total ≠ the lines' sum: a
row the page prints otherwise — flagged on its own — or a count misread elsewhere)."""
READS_AS = 0.85
"""An image line in doubt only of its name's certainty still verifies the text's card when what
it read is at least this like that card's name (jamo by jamo): a misread letter or two pass
(`증식의 6` for `증식의 G` 0.89, `00 스월` for `DD 스월` 0.87), another name does not (`실드 웜`/
`실드 윙` are 0.75 alike; and a card the image reader picks over the text's is `appearance-differs`)."""
ROW_NUMBER = re.compile(r"^\s*[0-9]{1,2}[.)]?\s+")
MODE_KO = {SCREEN: "화면", PRINT: "인쇄"}
MODE_EN = {SCREEN: "on screen", PRINT: "on paper"}


@dataclass
class VerifyReport(CheckReport):
    """What the verification did: pictures drawn, reads, and their outcome."""

    renderings: int = 0
    """Distinct pictures drawn (page × screen/paper, identical ones once)."""
    reads: int = 0
    """Image-reader reads run (a page read again at another resolution counts again)."""
    dpi: int = 0
    """Resolution of the reading kept for the page read."""
    differs: int = 0
    not_verified: int = 0


@dataclass
class _Text:
    """A text-layer line with the card and count it resolves to."""

    index: int
    line: ReadLine
    card_id: int | None
    name: str
    count: int | None


@dataclass
class _Image:
    """An image-reader line (its own card guess and count, and its doubts)."""

    line: ReadLine

    @property
    def card_id(self) -> int | None:
        return self.line.card_id

    @property
    def sure(self) -> bool:
        doubts = [f for f in self.line.flags if f not in COLUMN_FLAGS]
        return not doubts and self.line.card_id is not None and self.line.count is not None

    def shown(self) -> str:
        name = repr(self.line.text or "?")
        seen = (self.line.seen or "").strip()
        if self.line.flags and seen and seen != self.line.text:
            name = f"{seen!r} (nearest card {name})"  # in doubt: what the page shows, first
        count = self.line.count if self.line.count is not None else "?"
        doubt = f" [{', '.join(self.line.flags)}]" if self.line.flags else ""
        return f"{name} ×{count}{doubt}"


@dataclass
class _Problem:
    reason: str
    detail: str
    text: int | None = None
    """Index of the text line it flags (None: a sheet item)."""
    section: str | None = None
    column: str | None = None
    row: int | None = None
    crop: str | None = None
    sure: bool = False
    """The image reader read the line surely, as another card or count than the text's."""


@dataclass
class _Reading:
    """One image reading of one picture, compared with the text: what disagrees."""

    problems: list[_Problem] = field(default_factory=list)
    ctx: "PageContext | None" = None
    dpi: int = 0


def verify_readings(path: Path, sheet: SheetRead, db: "CardDatabase",
                    options: ReadOptions | None = None,
                    started: "SecondReading | None" = None) -> VerifyReport:
    """Read every page of the PDF `path` by the image reader and flag each line of `sheet` (read
    from its text layer or form values) that the pages do not show alike; `started`: the reading
    begun beside the text's (`SecondReading`). Never raises: a failure flags the lines
    `not-verified`."""
    options = options or ReadOptions()
    report = VerifyReport()
    if sheet.reader not in ("pdf-text", "pdf-form") or sheet.page is None or not sheet.lines:
        return report
    start, clock = _cpu(), time.perf_counter()
    try:
        problems = _verify(path, sheet, db, options, report, start, started)
    except Exception as exc:  # noqa: BLE001 - the read stands; the judge looks at every line
        log.debug("verification failed: %s", exc, exc_info=True)
        problems = [_Problem(NOT_VERIFIED, f"the pages could not be read a second time "
                                           f"({type(exc).__name__}): every line is unverified")]
        problems += _all_lines(sheet, NOT_VERIFIED, "not verified (the second reading failed)")
        report.stopped = type(exc).__name__
    _apply(sheet, problems, report)
    report.seconds = time.perf_counter() - clock
    return report


def _cpu() -> float:
    return time.process_time()


def _verify(path: Path, sheet: SheetRead, db: "CardDatabase", options: ReadOptions,
            report: VerifyReport, start: float, started: "SecondReading | None") -> list[_Problem]:
    texts = _text_lines(sheet, db)
    if started is not None:
        rendered = started.rendered
        started.wait()
    else:
        rendered = render_pages(path, DPIS[0], MAX_PAGES, limits.MAX_PIXELS)
    report.renderings += len(rendered.renderings)
    problems = [_Problem(NOT_VERIFIED, f"{what} not read a second time") for what in rendered.skipped]
    read_page = sheet.page
    own = [r for r in rendered.renderings if read_page in r.pages]
    if not own:
        problems += _all_lines(sheet, NOT_VERIFIED, f"page {read_page + 1} could not be drawn")
    for rendering in own:
        problems += _agree_page(path, rendering, read_page, texts, sheet, db, options, report, start,
                                started)
    for rendering in rendered.renderings:
        others = [p for p in rendering.pages if p != read_page]
        if not others:
            continue
        if _cpu() - start > MAX_SECONDS:
            problems.append(_Problem(NOT_VERIFIED, f"page(s) {_pages(others)} not read a second "
                                                   f"time (more than {MAX_SECONDS:g} s)"))
            continue
        problems += _other_page(rendering, others, read_page, db, options, report, path, started)
    return problems


def _text_lines(sheet: SheetRead, db: "CardDatabase") -> list[_Text]:
    policy = policy_for(sheet.reader)
    out = []
    for i, line in enumerate(sheet.lines):
        entry = resolve_line(line, db, policy, True)
        count = None if Reason.COUNT_UNCLEAR in entry.reasons else entry.count
        out.append(_Text(i, line, entry.card_id, entry.name, count))
    return out


def _agree_page(path: Path, first: PageRendering, page: int, texts: list[_Text], sheet: SheetRead,
                db: "CardDatabase", options: ReadOptions, report: VerifyReport,
                start: float, started: "SecondReading | None" = None) -> list[_Problem]:
    """The page read, in the modes `first` draws it, at each resolution in turn until the
    readings together agree with the text (see `_merge`); a reading with many problems ends the
    search (the image reader cannot read this page: another resolution will not change that)."""
    modes = first.modes(page)
    readings: list[_Reading] = []
    merged: list[_Problem] = []
    for dpi in DPIS:
        if dpi == DPIS[0]:
            image = first.image
        else:
            if _cpu() - start > MAX_SECONDS:
                merged.append(_Problem(NOT_VERIFIED, f"{_where(page, modes)} not read again "
                                                     f"(more than {MAX_SECONDS:g} s)"))
                break
            image = _redraw(path, page, modes, dpi)
            if image is None:
                continue
        ready = started.result(first) if started is not None and dpi == DPIS[0] else None
        reading = _read_and_compare(image, texts, page, modes, db, report, dpi, ready)
        readings.append(reading)
        merged = _merge(readings)
        if not merged or reading.ctx is None or len(reading.problems) > max(RETRY_PROBLEMS,
                                                                            RETRY_SHARE * len(texts)):
            break
    if page == sheet.page and readings:
        report.dpi = readings[-1].dpi
    if options.crops_dir is not None:
        for reading in readings:
            _save_crops(reading, first if reading.dpi == DPIS[0] else None, texts, path.stem, page,
                        modes, Path(options.crops_dir))
    return merged


RETRY_PROBLEMS = 8
RETRY_SHARE = 0.25
"""A page read again at another resolution only when its reading has at most this many problems
(or this share of the lines): a few misread rows or a table fitted a row off, not a page the
image reader cannot read at all (a layout or a script it does not know)."""


def _merge(readings: list[_Reading]) -> list[_Problem]:
    """What the readings of one picture, at several resolutions, say together. A line is
    verified when one reading reads it surely as the text says — unless another reads it surely
    as something else (then the readers disagree: `appearance-differs`); a line no reading
    verifies keeps the first reading's problems. Rows only the page shows, struck rows: those of
    the reading that has fewest (a table fitted a row off shows its title as a row)."""
    out: list[_Problem] = []
    indices = sorted({p.text for r in readings for p in r.problems if p.text is not None})
    for index in indices:
        per = [[p for p in r.problems if p.text == index] for r in readings]
        sure = [p for ps in per for p in ps if p.sure]
        if any(not ps for ps in per) and not sure:
            continue  # one reading verified it; the others could not read it (or missed the row)
        out += sure[:1] if sure and any(not ps for ps in per) else next(ps for ps in per if ps)
    out += min(([p for p in r.problems if p.text is None] for r in readings), key=len)
    return out


def _redraw(path: Path, page: int, modes: list[str], dpi: int) -> np.ndarray | None:
    """The page at another resolution, in the first of `modes` (the others draw the same)."""
    rendered = render_pages(path, dpi, page + 1, limits.MAX_PIXELS)
    for r in rendered.renderings:
        if (page, modes[0]) in r.views:
            return r.image
    return None


def _read_and_compare(image: np.ndarray, texts: list[_Text], page: int, modes: list[str],
                      db: "CardDatabase", report: VerifyReport, dpi: int, ready=None) -> _Reading:
    report.reads += 1
    where = _where(page, modes)
    try:
        ctx = _ocr(image, db, page, ready)
    except DecksheetError as exc:
        detail = f"the image reader found no deck sheet on {where} ({exc.code})"
        return _Reading([_Problem(NOT_VERIFIED, f"{t.line.raw!r}: {detail}", t.index) for t in texts]
                        + [_Problem(NOT_VERIFIED, detail)], None, dpi)
    return _Reading(compare(texts, ctx.sheet, where), ctx, dpi)


def _ocr(image: np.ndarray, db: "CardDatabase", page: int, ready=None) -> "PageContext":
    """The image reader's reading of a picture (`ready`: read already, a context or the error
    it raised)."""
    if isinstance(ready, BaseException):
        raise ready
    if ready is not None:
        return ready
    from scanner.ocr.pipeline import read_page

    return read_page(image, db, ReadOptions(), is_scan=True, label=f"p{page + 1}")


class SecondReading:
    """The image reader's reading of every page, begun before the text layer is read and run
    beside it on a thread of its own (the image reader is OpenCV and Tesseract, which leave the
    interpreter free; pdfium, which is not thread-safe, draws the pages here, on the caller's
    thread, and never on the other). `verify_readings` takes its results; `cancel` when there is
    nothing to verify. Either waits for the thread: the caller must not read an image (Tesseract's
    engines are shared) while it runs — the text reader and the word check use neither."""

    def __init__(self, path: Path, db: "CardDatabase") -> None:
        import threading

        self.rendered = render_pages(path, DPIS[0], MAX_PAGES, limits.MAX_PIXELS)
        self._db = db
        self._results: dict[str, object] = {}
        self._cpu = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="second-reading", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        start = time.thread_time()
        for rendering in self.rendered.renderings:
            if self._stop.is_set() or time.thread_time() - start > MAX_SECONDS:
                break
            if _blank(rendering.image):
                continue
            try:
                self._results[rendering.digest] = _ocr(rendering.image, self._db, rendering.pages[0])
            except Exception as exc:  # noqa: BLE001 - handed to the caller, who flags the lines
                self._results[rendering.digest] = exc
        self._cpu = time.thread_time() - start

    def wait(self) -> float:
        """Wait for the reading; the processor time it took."""
        self._thread.join()
        return self._cpu

    def result(self, rendering: PageRendering):
        self._thread.join()
        return self._results.get(rendering.digest)

    def cancel(self) -> None:
        """No text to verify (a scan, an unreadable file): stop after the picture being read, and
        wait for it — Tesseract's engines are shared, and two threads must never use them at once."""
        self._stop.set()
        self._thread.join()


def compare(texts: list[_Text], image: SheetRead, where: str) -> list[_Problem]:
    """Column by column, the text lines against the image reader's: pairs of one card first,
    then the rest row by row; what is left on either side is a row only one of them sees."""
    problems: list[_Problem] = []
    lost = _lost_columns(image)
    columns = list(dict.fromkeys([_key(t.line) for t in texts] + [_key(i) for i in image.lines]))
    for column in columns:
        ts = sorted((t for t in texts if _key(t.line) == column), key=lambda t: (t.line.row or 0, t.index))
        ims = sorted((_Image(i) for i in image.lines if _key(i) == column), key=lambda i: i.line.row or 0)
        pairs: list[tuple[_Text, _Image]] = []
        for t in list(ts):  # the same card on both sides
            match = next((i for i in ims if t.card_id is not None and i.card_id == t.card_id), None)
            if match is not None:
                pairs.append((t, match))
                ts.remove(t)
                ims.remove(match)
        read = [i for i in ims if i.card_id is not None or i.line.count is not None]
        for t in list(ts):  # then the same row (a row read as nothing pairs with nothing)
            match = next((i for i in read if t.line.row is not None and i.line.row == t.line.row), None)
            if match is not None:
                pairs.append((t, match))
                ts.remove(t)
                ims.remove(match)
                read.remove(match)
        while ts and read:  # then in order
            match = read.pop(0)
            pairs.append((ts.pop(0), match))
            ims.remove(match)
        for t in list(ts):  # last, a row the image reader saw marks in but could not read
            match = next((i for i in ims if t.line.row is not None and i.line.row == t.line.row), None)
            if match is not None:
                pairs.append((t, match))
                ts.remove(t)
                ims.remove(match)
        for t, i in pairs:
            problem = _pair_problem(t, i, where)
            if problem is not None:
                problems.append(problem)
        for t in ts:
            if column in lost:
                problems.append(_Problem(NOT_VERIFIED, f"{t.line.raw!r}: the image reader did not read "
                                                       f"this table on {where} ({lost[column]})", t.index))
            else:
                problems.append(_Problem(DIFFERS, f"the text layer says {_said(t)}; {where} shows no "
                                                  f"such row (the page does not print it)", t.index))
        unread = []
        for i in ims:
            count = i.line.count
            if not (i.line.text or "").strip() or count is None or not 0 < count <= MAX_SANE_COUNT:
                # Marks in a row read as no name with a count a line can have (the second line of
                # a name set on two lines, a stray digit): a row the judge looks at, not a line.
                unread.append(i)
                continue
            problems.append(_Problem(
                DIFFERS, f"{where} shows a row the text layer does not have: {i.shown()} — the page "
                         f"prints more than was read", None, i.line.section, i.line.column, i.line.row,
                sure=i.sure))
        if unread:
            rows = ", ".join(str(i.line.row) for i in unread if i.line.row) or "?"
            problems.append(_Problem(
                NOT_VERIFIED, f"{where}: {column} rows {rows} show marks the image reader could not "
                              f"read ({unread[0].shown()}) where the text layer has no line",
                None, unread[0].line.section))
    problems += _struck(image, where)
    return problems


def _pair_problem(t: _Text, i: _Image, where: str) -> _Problem | None:
    same_card = t.card_id is not None and i.card_id == t.card_id
    same_count = t.count is not None and i.line.count == t.count
    if same_card and same_count and (i.sure or _reads_as(i, t.name)):
        return None
    both = f"the text layer says {_said(t)}; {where} reads {i.shown()}"
    if not i.sure:
        return _Problem(NOT_VERIFIED, f"{both}: the image reader could not read this line surely", t.index)
    return _Problem(DIFFERS, f"{both}: the page prints another {'count' if same_card else 'card'}",
                    t.index, sure=True)


def _reads_as(i: _Image, name: str) -> bool:
    """The image reader's only doubt is how sure its name is (`uncertain-name`: a low score, or
    more ink than the name's rendering), its own best card is the text's, and what it read is
    that card's name within `READS_AS` (jamo by jamo, a row number before it aside): the page
    prints that name. A rival's name drawn alike is `ambiguous-name`, never this, and a count
    must agree anyway."""
    doubts = {f for f in i.line.flags if f not in COLUMN_FLAGS}
    if doubts != {Reason.UNCERTAIN_NAME} or not name:
        return False
    return jamo_likeness(name, ROW_NUMBER.sub("", i.line.seen or i.line.text or "")) >= READS_AS


def _said(t: _Text) -> str:
    count = t.count if t.count is not None else "?"
    return f"{t.line.text or t.name!r} ×{count}"


def _key(line: ReadLine) -> str:
    return line.column or line.section


def _lost_columns(image: SheetRead) -> dict[str, str]:
    """Columns the image reader did not read whole (a table not found or cut off)."""
    out = {}
    for flag in image.review:
        if flag.reason != Reason.UNREADABLE_LINE or not flag.detail:
            continue
        column = flag.detail.split(" ", 1)[0]
        if column in ("monster", "spell", "trap", "extra", "side"):
            out[column] = flag.detail
    return out


def _struck(image: SheetRead, where: str) -> list[_Problem]:
    """Rows the page shows struck through: printed lines the text reads as plain."""
    return [_Problem(DIFFERS, f"{where}: {f.detail}", None, f.section)
            for f in image.review if f.reason == Reason.STRUCK_THROUGH]


def _other_page(rendering: PageRendering, pages: list[int], read_page: int, db: "CardDatabase",
                options: ReadOptions, report: VerifyReport, path: Path,
                started: "SecondReading | None" = None) -> list[_Problem]:
    """A page other than the one read that shows a deck sheet: the file shows two decks."""
    if _blank(rendering.image):
        return []
    report.reads += 1
    try:
        ctx = _ocr(rendering.image, db, pages[0], started.result(rendering) if started else None)
    except DecksheetError:
        return []  # no deck table: a cover, a note, the rules
    lines = ctx.sheet.lines
    if not lines:
        return []
    shown = ", ".join(_Image(ln).shown() for ln in lines[:4]) + (f" (+{len(lines) - 4} more)" if len(lines) > 4 else "")
    where = "; ".join(_where(p, rendering.modes(p)) for p in pages)
    crop = None
    if options.crops_dir is not None:
        crop = _write(Path(options.crops_dir) / f"{path.stem}-page{pages[0] + 1}-sheet.png",
                      _thumbnail(rendering.image))
    return [_Problem(DIFFERS, f"{where} shows a deck sheet ({len(lines)} lines: {shown}) but page "
                              f"{read_page + 1} was read: the file shows more than one deck", crop=crop)]


def _blank(image: np.ndarray) -> bool:
    gray = image.min(axis=2) if image.ndim == 3 else image
    return float((gray < 128).mean()) < BLANK_INK


def _where(page: int, modes: list[str]) -> str:
    return f"page {page + 1} " + " and ".join(MODE_EN[m] for m in modes)


def _pages(pages: list[int]) -> str:
    return ", ".join(str(p + 1) for p in pages)


def _all_lines(sheet: SheetRead, reason: str, detail: str) -> list[_Problem]:
    return [_Problem(reason, detail, i) for i in range(len(sheet.lines))]


def _apply(sheet: SheetRead, problems: list[_Problem], report: VerifyReport) -> None:
    for p in problems:
        if p.text is not None and 0 <= p.text < len(sheet.lines):
            line = sheet.lines[p.text]
            sheet.flag_line_or_sheet(p.text, p.reason, p.detail, p.detail)
            if p.crop and line.crop is None:
                line.crop = p.crop
            continue
        detail = p.detail + (f"; crop {p.crop}" if p.crop else "")
        sheet.review.append(ReviewFlag(section=p.section, reason=p.reason, detail=detail,
                                       position=position_label(None, None, p.column, p.row)
                                       if p.column and p.row else None))
    report.differs = sum(1 for p in problems if p.reason == DIFFERS)
    report.not_verified = sum(1 for p in problems if p.reason == NOT_VERIFIED)


# --- crops: the judge sees the page's cell -------------------------------------------------

def _save_crops(reading: _Reading, rendering: PageRendering | None, texts: list[_Text], stem: str,
                page: int, modes: list[str], folder: Path) -> None:
    from scanner.ocr.crops import save_crop

    label = f"{stem}-p{page + 1}-{'-'.join(modes)}-{reading.dpi}dpi-verify"
    by_index = {t.index: t for t in texts}
    for p in reading.problems:
        column, row = p.column, p.row
        if p.text is not None:
            t = by_index.get(p.text)
            column, row = (t.line.column, t.line.row) if t is not None else (None, None)
        if reading.ctx is not None and column and row:
            ctx = reading.ctx
            try:
                p.crop = save_crop(folder, label, column, row, ctx.grid, ctx.page)
            except (OSError, cv2.error) as exc:
                log.debug("verification crop not saved: %s", exc)
        if p.crop is None and p.text is not None and rendering is not None:
            box = by_index[p.text].line.box
            if box is not None:
                p.crop = _write(folder / f"{label}-{p.text + 1:03d}.png",
                                _cut(rendering.image, box, DPIS[0] / 72.0))


def _cut(image: np.ndarray, box, scale: float) -> np.ndarray:
    h, w = image.shape[:2]
    x0, top, x1, bottom = box
    pad = 2.0
    ys = slice(max(0, int((top - pad) * scale)), max(0, min(h, int((bottom + pad) * scale))))
    xs = slice(max(0, int((x0 - pad) * scale)), max(0, min(w, int((x1 + pad) * scale))))
    return image[ys, xs]


def _thumbnail(image: np.ndarray, width: int = 800) -> np.ndarray:
    h, w = image.shape[:2]
    if w <= width:
        return image
    return cv2.resize(image, (width, int(h * width / w)), interpolation=cv2.INTER_AREA)


def _write(out: Path, image: np.ndarray) -> str | None:
    if image.size == 0:
        return None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(out), image)
        return str(out)
    except (OSError, cv2.error) as exc:
        log.debug("verification crop not saved: %s", exc)
        return None
