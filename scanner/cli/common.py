"""Shared pieces of the CLI: the root group, option groups, settings and the error handler."""
from __future__ import annotations

import datetime as dt
import functools
import json
import logging
import os
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

import click

from scanner.errors import DecksheetError, ExitCode, RegulationError

log = logging.getLogger("decksheet")


@dataclass
class Settings:
    """What every command may need: where the card data is and which regulation applies."""

    card_db: str | None = None
    lflist: str | None = None
    list_name: str | None = None
    date: dt.date | None = None
    extra_bans: bool = True
    verbose: bool = False
    _db: Any = field(default=None, repr=False)

    def db(self):
        """The card database, loaded once (say so on stderr when it is the demo one)."""
        if self._db is None:
            from card_db.cdb import load_card_db

            self._db = load_card_db(self.card_db)
            if self._db.is_demo:
                click.echo("decksheet: using the DEMO card database (only the sample decks' cards); "
                           "give --card-db, set DECKSHEET_CARD_DB or run 'decksheet db fetch'",
                           err=True)
        return self._db

    def limit_list(self):
        """The regulation: --list, else the list in force on --date, else the newest OCG list."""
        from card_db.lflist import choose_list, load_lflist, resolve_lflist_path

        path = resolve_lflist_path(self.lflist)
        if path is None:
            raise RegulationError("no limit list file: give --lflist PATH, set DECKSHEET_LFLIST "
                                  "or run 'decksheet db fetch'")
        lf = load_lflist(path)
        db = self.db()
        return choose_list(lf, self.list_name, self.date, extra_bans=self.extra_bans,
                           original_id=db.original_id)


def _parse_date(ctx, param, value):
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter("use YYYY-MM-DD") from None


def common_options(func: Callable) -> Callable:
    """--card-db, --lflist, --list, --date, --no-extra-bans, -v on every command."""

    # Plain strings: the loaders give one-line errors for folders and missing files.
    @click.option("--card-db", "card_db", envvar="DECKSHEET_CARD_DB", metavar="PATH",
                  help="ygopro cards.cdb with Korean names (env DECKSHEET_CARD_DB).")
    @click.option("--lflist", envvar="DECKSHEET_LFLIST", metavar="PATH",
                  help="ygopro lflist.conf (env DECKSHEET_LFLIST).")
    @click.option("--list", "list_name", envvar="DECKSHEET_LIST",
                  help="Limit list by name, e.g. 2026.7 (env DECKSHEET_LIST). Default: newest OCG list.")
    @click.option("--date", "date", callback=_parse_date, metavar="YYYY-MM-DD",
                  help="Use the OCG list in force on this date.")
    @click.option("--no-extra-bans", is_flag=True, help="Do not add the event's 추가 금지 카드.")
    @click.option("-v", "--verbose", is_flag=True, help="Log details; show tracebacks.")
    @functools.wraps(func)
    def wrapper(*args, card_db, lflist, list_name, date, no_extra_bans, verbose, **kwargs):
        settings = Settings(card_db=card_db, lflist=lflist, list_name=list_name, date=date,
                            extra_bans=not no_extra_bans, verbose=verbose)
        logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                            format="decksheet %(name)s: %(message)s", stream=sys.stderr)
        return guarded(func, settings, args, dict(kwargs, settings=settings))

    return wrapper


def guarded(func: Callable, settings: Settings, args: tuple, kwargs: dict) -> Any:
    """Run a command; map errors to one line on stderr and the contract's exit code."""
    try:
        code = func(*args, **kwargs)
    except DecksheetError as exc:
        fail(str(exc), exc.exit_code, settings.verbose)
    except click.exceptions.Exit:
        raise
    except click.ClickException:
        raise
    except KeyboardInterrupt:
        fail("interrupted", ExitCode.REFUSED, settings.verbose)
    except BrokenPipeError:
        # stdout closed early (e.g. `| head`): not an error of the input.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(int(ExitCode.OK))
    except Exception as exc:  # noqa: BLE001 - the user gets one line, -v gives the traceback
        fail(f"internal error: {type(exc).__name__}: {exc} (run with -v for details)",
             ExitCode.REFUSED, settings.verbose)
    sys.exit(int(code or 0))


def fail(message: str, code: ExitCode, verbose: bool = False) -> None:
    if verbose:
        traceback.print_exc()
    click.echo(f"decksheet: error: {message}", err=True)
    sys.exit(int(code))


def echo_json(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=1))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="decksheet")
def main() -> None:
    """decksheet — read, resolve, check and reconcile Yu-Gi-Oh! OCG deck sheets (덱 기입 시트)."""
