"""`decksheet check`: a decklist against the tournament rules."""
from __future__ import annotations

import click

from scanner.rules.check import check_decklist
from scanner.cli.common import Settings, common_options, echo_json, main
from scanner.errors import ExitCode
from scanner.read import load_decklist_bounded
from scanner.report.verdict_text import format_check


@main.command()
@click.argument("input_", metavar="INPUT")
@click.option("--json", "as_json", is_flag=True, help="Print the contract JSON.")
@common_options
def check(input_: str, as_json: bool, settings: Settings) -> int:
    """Check a decklist (any input) against the rules: sizes, copies, limit list, extra deck,
    usable cards. Exit 0 legal, 1 infractions, 2 unreadable."""
    db = settings.db()
    limits = settings.limit_list()
    deck = load_decklist_bounded(input_, db)
    result = check_decklist(deck, limits, db)
    if as_json:
        echo_json(result.to_json())
    else:
        click.echo(format_check(result, deck))
    return ExitCode.OK if result.legal else ExitCode.FINDINGS
