"""`decksheet scan` and `decksheet convert`."""
from __future__ import annotations

from pathlib import Path

import click

from scanner.cli.common import Settings, common_options, echo_json, main
from scanner.errors import DecksheetError, ExitCode
from scanner.inputs.options import ReadOptions
from scanner.read import load_decklist
from scanner.inputs.formats import format_json, format_text, format_ydk, format_ydke
from scanner.report.scan_text import format_scan


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the contract JSON.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Also write NAME.json for each input into this folder.")
@click.option("--crops", "crops_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Save images of flagged cells (photos and scans) into this folder.")
@click.option("--debug", "debug_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Save pictures of the detected page, grid and cells into this folder.")
@common_options
def scan(inputs: tuple[str, ...], as_json: bool, out_dir: Path | None, crops_dir: Path | None,
         debug_dir: Path | None, settings: Settings) -> int:
    """Read deck sheets (PDF, photo, scan) or decklists and resolve every line to a card."""
    db = settings.db()
    options = ReadOptions(crops_dir=crops_dir, debug_dir=debug_dir)
    results: list[dict] = []
    failed = 0
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
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / (Path(src).stem + ".json")).write_text(format_json(deck), encoding="utf-8")
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
        output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    else:
        click.echo(text.rstrip("\n"))
    unresolved = [e for s in deck.sections.values() for e in s if e.card_id is None]
    if unresolved and to in ("ydk", "ydke"):
        click.echo(f"decksheet: warning: {len(unresolved)} unresolved line(s) could not be written "
                   f"as passcodes", err=True)
        return ExitCode.FINDINGS
    return ExitCode.OK
