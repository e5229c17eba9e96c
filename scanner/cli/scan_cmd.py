"""`decksheet scan` and `decksheet convert`."""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import click

from card_db.paths import atomic_write
from scanner.cli.common import Settings, common_options, echo_json, main
from card_db.messages import lang_from_env
from scanner.errors import DecksheetError, ExitCode
from scanner.inputs.formats import format_json, format_text, format_ydk, format_ydke
from scanner.inputs.options import ReadOptions
from scanner.read import load_decklist_bounded, load_decklists
from scanner.report.scan_text import format_scan
from scanner.vocab import Reason


class OutputError(DecksheetError):
    """An output folder or file cannot be written (exit 2, one line)."""


def writable_folder(folder: Path, option: str) -> None:
    """Create `folder` if missing; refuse, in one line, one that cannot be created or written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError("output.not-a-folder", option=option, folder=folder) from None
    except OSError as exc:
        raise OutputError("output.cannot-create-folder", option=option, folder=folder,
                          reason=exc.strerror or exc) from None
    if not folder.is_dir():
        raise OutputError("output.not-a-folder", option=option, folder=folder)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError("output.folder-not-writable", option=option, folder=folder)


class OutputNames:
    """`NAME.json` per input, unique within one run: `a/x.pdf b/x.pdf` → `x.json`, `x-2.json`
    (the second must not overwrite the first)."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def name_for(self, src: str) -> str:
        stem = "stdin" if src in ("-", "/dev/stdin") else (Path(src).stem or "input")
        stem = stem[:100]
        name, n = f"{stem}.json", 1
        while name.casefold() in self.used:
            n += 1
            name = f"{stem}-{n}.json"
        self.used.add(name.casefold())
        return name


def _progress(total: int):
    """A progress bar on stderr for a batch at a terminal; silent otherwise (stdout carries only
    the results, and a log or a pipe wants no bar)."""
    if total > 1 and sys.stderr.isatty():
        return click.progressbar(length=total, label="읽는 중", file=sys.stderr)
    return contextlib.nullcontext(_NoBar())


class _NoBar:
    def update(self, n: int) -> None:
        pass


TEXT_SUFFIXES = (".ydk", ".txt", ".json", ".ydke", ".csv")


def _may_need_ocr(source: str) -> bool:
    """False only for what is surely a text decklist (a ydke:// URL, a text file by name)."""
    s = source.strip().lower()
    return not (s.startswith("ydke://") or s.endswith(TEXT_SUFFIXES))


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the contract JSON.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path),
              help="Also write NAME.json for each input into this folder.")
@click.option("--crops", "crops_dir", type=click.Path(path_type=Path),
              help="Save images of flagged cells (photos and scans) into this folder.")
@click.option("--debug", "debug_dir", type=click.Path(path_type=Path),
              help="Save pictures of the detected page, grid and cells into this folder.")
@click.option("-j", "--jobs", type=click.IntRange(1, 64), default=os.cpu_count() or 1,
              show_default="all cores", help="Read this many inputs at once.")
@common_options
def scan(inputs: tuple[str, ...], as_json: bool, out_dir: Path | None, crops_dir: Path | None,
         debug_dir: Path | None, jobs: int, settings: Settings) -> int:
    """Read deck sheets (PDF, photo, scan) or decklists and resolve every line to a card."""
    for option, folder in (("--out", out_dir), ("--crops", crops_dir), ("--debug", debug_dir)):
        if folder is not None:
            writable_folder(folder, option)  # before any reading: refuse at once, in one line
    probe = None
    if any(_may_need_ocr(src) for src in inputs):
        from scanner.ocr.tools import probe_tools
        # One line now rather than every photo failing later; probed while the readers start
        # (after a reader is forked: the probe loads Tesseract, which is never forked).
        probe = probe_tools
    spec = settings.db_spec()  # PDFs and images are read, and the database loaded, by readers
    options = ReadOptions(crops_dir=crops_dir, debug_dir=debug_dir)
    results: list[dict] = []
    failed = 0
    out_names = OutputNames()
    with _progress(len(inputs)) as bar:
        for src, deck in load_decklists(list(inputs), settings.db, options, workers=jobs,
                                        spec=spec, meanwhile=probe):
            bar.update(1)
            if isinstance(deck, DecksheetError):
                if len(inputs) == 1:
                    raise deck
                # Several inputs: one bad file must not lose the others' results.
                click.echo(f"decksheet: error: {src}: {deck.render(lang_from_env())}", err=True)
                failed += 1
                continue
            data = deck.to_json()
            results.append(data)
            if out_dir:
                target = out_dir / out_names.name_for(src)
                try:
                    atomic_write(target, format_json(deck).encode("utf-8"))
                except OSError as exc:
                    raise OutputError("output.cannot-write", file=target, reason=exc.strerror or exc) from None
            if not as_json:
                click.echo(format_scan(deck))
    if as_json:
        echo_json(results[0] if len(inputs) == 1 else results)
    return ExitCode.REFUSED if failed else ExitCode.OK


SQLITE_MAGIC = b"SQLite format 3\x00"


def _output_target(path: Path, force: bool) -> Path:
    """Where `convert -o` may write: never over a folder or an SQLite file (an event, a card
    database), and over another existing file only with --force."""
    if path.is_dir():
        raise OutputError("output.target-is-folder", file=path)
    if path.exists():
        try:
            with open(path, "rb") as f:
                head = f.read(len(SQLITE_MAGIC))
        except OSError as exc:
            raise OutputError("output.cannot-write-to", file=path, reason=exc.strerror) from None
        if head == SQLITE_MAGIC:
            raise OutputError("output.is-database", file=path)
        if not force:
            raise OutputError("output.exists", file=path)
    return path


def _not_carried(deck, db) -> list[str]:
    """What the output does not carry faithfully: lines the reader skipped, lines without a
    card, passcodes the database does not know."""
    out = [f"{f.detail or f.reason}" for f in deck.review
           if f.line is None and f.reason == Reason.UNREADABLE_LINE]
    for section, entries in deck.sections.items():
        for i, e in enumerate(entries, 1):
            if e.card_id is None:
                out.append(f"{section} line {i}: {e.read or e.name!r} has no card")
            elif db.get(e.card_id) is None:
                out.append(f"{section} line {i}: passcode {e.card_id} is not in the card database")
    return out


@main.command()
@click.argument("input_")
@click.option("--to", "to", type=click.Choice(["ydk", "ydke", "text", "json"]), required=True,
              help="Output format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write here instead of stdout (an existing file only with --force).")
@click.option("--force", is_flag=True, help="Overwrite the -o file if it exists (never an SQLite "
                                            "file such as an event).")
@common_options
def convert(input_: str, to: str, output: Path | None, force: bool, settings: Settings) -> int:
    """Convert a decklist (any input) to ydk, ydke, text or JSON. Exit 1 (with a warning on
    stderr) when a line could not be read, resolved or found in the card database."""
    if output:
        _output_target(output, force)
    db = settings.db()
    deck = load_decklist_bounded(input_, db)
    text = {"ydk": format_ydk, "ydke": format_ydke, "json": format_json,
            "text": lambda d: format_text(d, db)}[to](deck)  # db: lossless names
    if output:
        try:
            atomic_write(output, (text if text.endswith("\n") else text + "\n").encode("utf-8"))
        except OSError as exc:
            raise OutputError("output.cannot-write", file=output, reason=exc.strerror or exc) from None
    else:
        click.echo(text.rstrip("\n"))
    problems = _not_carried(deck, db)
    if problems:
        shown = "; ".join(problems[:5]) + (f"; … {len(problems) - 5} more" if len(problems) > 5 else "")
        click.echo(f"decksheet: warning: {len(problems)} line(s) not converted faithfully: {shown}",
                   err=True)
        return ExitCode.FINDINGS
    return ExitCode.OK
