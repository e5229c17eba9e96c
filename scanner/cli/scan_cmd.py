"""`decksheet scan` and `decksheet convert`."""
from __future__ import annotations

import os
from pathlib import Path

import click

from scanner.cli.common import Settings, common_options, echo_json, main
from scanner.errors import DecksheetError, ExitCode
from scanner.inputs.options import ReadOptions
from scanner.read import load_decklist
from scanner.inputs.formats import format_json, format_text, format_ydk, format_ydke
from scanner.report.scan_text import format_scan


class OutputError(DecksheetError):
    """An output folder or file cannot be written (exit 2, one line)."""


def writable_folder(folder: Path, option: str) -> None:
    """Create `folder` if missing; refuse, in one line, one that cannot be created or written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(f"{option} {folder}: not a folder") from None
    except OSError as exc:
        raise OutputError(f"{option} {folder}: cannot create the folder "
                          f"({exc.strerror or exc})") from None
    if not folder.is_dir():
        raise OutputError(f"{option} {folder}: not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {folder}: the folder is not writable")


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


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the contract JSON.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path),
              help="Also write NAME.json for each input into this folder.")
@click.option("--crops", "crops_dir", type=click.Path(path_type=Path),
              help="Save images of flagged cells (photos and scans) into this folder.")
@click.option("--debug", "debug_dir", type=click.Path(path_type=Path),
              help="Save pictures of the detected page, grid and cells into this folder.")
@common_options
def scan(inputs: tuple[str, ...], as_json: bool, out_dir: Path | None, crops_dir: Path | None,
         debug_dir: Path | None, settings: Settings) -> int:
    """Read deck sheets (PDF, photo, scan) or decklists and resolve every line to a card."""
    for option, folder in (("--out", out_dir), ("--crops", crops_dir), ("--debug", debug_dir)):
        if folder is not None:
            writable_folder(folder, option)  # before any reading: refuse at once, in one line
    db = settings.db()
    options = ReadOptions(crops_dir=crops_dir, debug_dir=debug_dir)
    results: list[dict] = []
    failed = 0
    out_names = OutputNames()
    for src in inputs:
        try:
            deck = load_decklist(src, db, options)
        except DecksheetError as exc:
            if len(inputs) == 1:
                raise
            # Several inputs: one bad file must not lose the others' results.
            click.echo(f"decksheet: error: {src}: {exc}", err=True)
            failed += 1
            continue
        data = deck.to_json()
        results.append(data)
        if out_dir:
            target = out_dir / out_names.name_for(src)
            try:
                target.write_text(format_json(deck), encoding="utf-8")
            except OSError as exc:
                raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
        if not as_json:
            click.echo(format_scan(deck))
    if as_json:
        echo_json(results[0] if len(inputs) == 1 else results)
    return ExitCode.REFUSED if failed else ExitCode.OK


@main.command()
@click.argument("input_")
@click.option("--to", "to", type=click.Choice(["ydk", "ydke", "text", "json"]), required=True,
              help="Output format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write here instead of stdout.")
@common_options
def convert(input_: str, to: str, output: Path | None, settings: Settings) -> int:
    """Convert a decklist (any input) to ydk, ydke, text or JSON."""
    deck = load_decklist(input_, settings.db())
    text = {"ydk": format_ydk, "ydke": format_ydke, "json": format_json,
            "text": lambda d: format_text(d, settings.db())}[to](deck)  # db: lossless names
    if output:
        try:
            output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        except OSError as exc:
            raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None
    else:
        click.echo(text.rstrip("\n"))
    unresolved = [e for s in deck.sections.values() for e in s if e.card_id is None]
    if unresolved and to in ("ydk", "ydke"):
        click.echo(f"decksheet: warning: {len(unresolved)} unresolved line(s) could not be written "
                   f"as passcodes", err=True)
        return ExitCode.FINDINGS
    return ExitCode.OK
