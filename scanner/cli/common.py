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

from card_db.messages import lang_from_env
from scanner.errors import DecksheetError, ExitCode, RegulationError

log = logging.getLogger("decksheet")


@dataclass
class Settings:
    """What every command may need: where the card data is and which regulation applies."""

    card_db: tuple[str, ...] = ()
    """cards.cdb files; the first gives the names shown, the others add names (other locales).
    Empty: $DECKSHEET_CARD_DB, the fetched database or the demo one."""
    aliases: tuple[str, ...] = ()
    """Alternate-art sources (CSV or cdb). Empty: $DECKSHEET_ALIASES, if set."""
    lflist: str | None = None
    list_name: str | None = None
    """The list asked for: --list, or $DECKSHEET_LIST unless --date was given."""
    date: dt.date | None = None
    extra_bans: bool = True
    verbose: bool = False
    list_and_date_explicit: bool = False
    """Both --list and --date on the command line: a regulation choice refuses the pair."""
    _db: Any = field(default=None, repr=False)
    _spec: Any = field(default=None, repr=False)

    def db(self):
        """The card database, loaded once (say so on stderr when it is the demo one)."""
        if self._db is None:
            from card_db.cdb import load_card_db

            self._db = load_card_db(self.db_spec())
        return self._db

    def db_spec(self):
        """Which card database files apply, without loading them (a reader process loads
        them itself); says so on stderr, once, when it is the demo one."""
        if self._spec is None:
            from card_db.cdb import check_db_files, resolve_db_spec

            self._spec = resolve_db_spec(self.card_db or None, self.aliases or None)
            check_db_files(self._spec)
            if self._spec.is_demo:
                click.echo("decksheet: using the DEMO card database (only the sample decks' cards); "
                           "give --card-db, set DECKSHEET_CARD_DB or run 'decksheet db fetch'",
                           err=True)
        return self._spec

    def limit_list(self):
        """The regulation: --list, else the list in force on --date, else the newest OCG list."""
        from card_db.lflist import choose_list, load_lflist, resolve_lflist_path

        if self.list_and_date_explicit:
            raise RegulationError("regulation.list-and-date", name=self.list_name, date=self.date)
        path = resolve_lflist_path(self.lflist)
        if path is None:
            raise RegulationError("regulation.no-list-file")
        lf = load_lflist(path)
        for msg in lf.warning_lines():
            click.echo(f"decksheet: warning: {msg}", err=True)
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


# Plain strings, not click.Path: the loaders give one-line errors for folders and missing files.
# The repeatable paths take no click envvar (click would split a value at spaces); the library
# reads DECKSHEET_CARD_DB / DECKSHEET_ALIASES itself, split at the path separator.
_SHARED: list[Callable[[Callable], Callable]] = [
    click.option("--card-db", "card_db", multiple=True, metavar="PATH",
                 help="ygopro cards.cdb with Korean names (env DECKSHEET_CARD_DB). Repeat to add "
                      "other locales' databases: their names are searched too."),
    click.option("--aliases", "aliases", multiple=True, metavar="PATH",
                 help="Alternate-art passcodes: a CSV alt_id,original_id or another cards.cdb "
                      "(env DECKSHEET_ALIASES). Repeatable."),
    click.option("--lflist", envvar="DECKSHEET_LFLIST", metavar="PATH",
                 help="ygopro lflist.conf (env DECKSHEET_LFLIST)."),
    click.option("--list", "list_name", envvar="DECKSHEET_LIST",
                 help="Limit list by name, e.g. 2026.7 (env DECKSHEET_LIST; --date given on the "
                      "command line wins over the env). Default: newest OCG list."),
    click.option("--date", "date", callback=_parse_date, metavar="YYYY-MM-DD",
                 help="Use the OCG list in force on this date."),
    click.option("--no-extra-bans", is_flag=True, default=None,
                 help="Do not add the event's 추가 금지 카드."),
    click.option("-v", "--verbose", is_flag=True, default=None,
                 help="Log details; show tracebacks."),
]
SHARED_NAMES = ("card_db", "aliases", "lflist", "list_name", "date", "no_extra_bans", "verbose")
_META = "decksheet.shared"


def _explicit(ctx: click.Context, values: dict[str, Any]) -> dict[str, Any]:
    """The shared options given on the command line (not from env or defaults)."""
    from click.core import ParameterSource

    return {k: v for k, v in values.items()
            if ctx.get_parameter_source(k) is ParameterSource.COMMANDLINE}


def group_options(func: Callable) -> Callable:
    """The shared options on a command group (`decksheet --card-db X db info`): kept for the
    subcommand, which may give them again after its name (the later one wins)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        ctx = click.get_current_context()
        shared = {k: kwargs.pop(k) for k in SHARED_NAMES}
        ctx.meta.setdefault(_META, []).append(_explicit(ctx, shared))
        return func(*args, **kwargs)
    for opt in reversed(_SHARED):
        wrapper = opt(wrapper)
    return wrapper


def settings_from(ctx: click.Context, leaf: dict[str, Any]) -> Settings:
    """Settings from the leaf command's values and those given before it, on the groups.
    Command line beats env beats defaults; paths given in both places add up."""
    given: dict[str, Any] = {}
    for layer in [*ctx.meta.get(_META, []), _explicit(ctx, leaf)]:
        for k, v in layer.items():
            given[k] = given.get(k, ()) + tuple(v) if k in ("card_db", "aliases") else v
    value = {k: given.get(k, leaf[k]) for k in SHARED_NAMES}
    list_explicit, date_explicit = "list_name" in given, "date" in given
    list_name = value["list_name"]
    if date_explicit and not list_explicit:
        list_name = None  # DECKSHEET_LIST must not override an explicit --date
    return Settings(card_db=tuple(dict.fromkeys(value["card_db"] or ())),
                    aliases=tuple(dict.fromkeys(value["aliases"] or ())),
                    lflist=value["lflist"], list_name=list_name, date=value["date"],
                    extra_bans=not value["no_extra_bans"], verbose=bool(value["verbose"]),
                    list_and_date_explicit=list_explicit and date_explicit)


def common_options(func: Callable) -> Callable:
    """--card-db, --aliases, --lflist, --list, --date, --no-extra-bans, -v on every command
    (and before it: see `group_options`)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        leaf = {k: kwargs.pop(k) for k in SHARED_NAMES}
        settings = settings_from(click.get_current_context(), leaf)
        logging.basicConfig(level=logging.DEBUG if settings.verbose else logging.WARNING,
                            format="decksheet %(name)s: %(message)s", stream=sys.stderr)
        return guarded(func, settings, args, dict(kwargs, settings=settings))

    for opt in reversed(_SHARED):
        wrapper = opt(wrapper)
    return wrapper


def guarded(func: Callable, settings: Settings, args: tuple, kwargs: dict) -> Any:
    """Run a command; map errors to one line on stderr and the contract's exit code."""
    try:
        code = func(*args, **kwargs)
    except DecksheetError as exc:
        fail(exc.render(lang_from_env()), exc.exit_code, settings.verbose)
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


class DecksheetGroup(click.Group):
    """The root group: a usage error is one line on stderr (exit 2), not click's four."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            exc.show()  # `decksheet` alone: the help is the useful answer
            sys.exit(exc.exit_code)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            message = " ".join(exc.format_message().split())
            click.echo(f"decksheet: error: {message}{hint}", err=True)
            sys.exit(int(ExitCode.REFUSED))
        except click.ClickException as exc:
            click.echo(f"decksheet: error: {' '.join(exc.format_message().split())}", err=True)
            sys.exit(int(ExitCode.REFUSED))
        except click.Abort:
            click.echo("decksheet: error: aborted", err=True)
            sys.exit(int(ExitCode.REFUSED))
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=DecksheetGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="decksheet")
@group_options
def main() -> None:
    """decksheet — read, resolve, check and reconcile Yu-Gi-Oh! OCG deck sheets (덱 기입 시트)."""
