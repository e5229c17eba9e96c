"""`decksheet compare`: a registered decklist against the deck seen at a deck check."""
from __future__ import annotations

import click

from scanner.cli.common import Settings, common_options, echo_json, main
from scanner.errors import ExitCode, RegulationError
from scanner.read import load_decklist, read_input
from scanner.rules.compare import compare_decklists
from scanner.rules.observed import resolve_observed
from scanner.report.verdict_text import format_compare


@main.command()
@click.argument("registered", metavar="REGISTERED")
@click.argument("observed", metavar="OBSERVED")
@click.option("--between-games", is_flag=True,
              help="Side decking allowed: compare the whole and the main/extra sizes (rules 2.E.8).")
@click.option("--json", "as_json", is_flag=True, help="Print the contract JSON.")
@common_options
def compare(registered: str, observed: str, between_games: bool, as_json: bool,
            settings: Settings) -> int:
    """Compare a registered decklist with the deck seen at a deck check (any input formats; the
    observed lines are matched against the registered cards first, so short names work).
    Exit 0 match, 1 mismatch, infractions or lines to confirm, 2 unreadable."""
    db = settings.db()
    try:
        limits = settings.limit_list()
    except RegulationError as exc:
        # The comparison itself needs no limit list; only the observed deck's own check does.
        click.echo(f"decksheet: warning: {exc}; the observed deck is not checked on its own",
                   err=True)
        limits = None
    reg = load_decklist(registered, db)
    sheet, digest = read_input(observed, db)
    obs = resolve_observed(sheet, reg, db)
    obs.source_path, obs.sha256 = str(observed), digest
    result = compare_decklists(reg, obs, between_games=between_games, db=db, limits=limits)
    if as_json:
        echo_json(result.to_json())
    else:
        click.echo(format_compare(result, reg, obs))
    return ExitCode.OK if result.match and not result.infractions else ExitCode.FINDINGS
