"""`decksheet event init|info|status|void|withdraw`, `register`, `deckcheck`, `review`, `audit`, `export`.

Read-only commands (`event info`, `event status`, `export`, `audit`) open the event read-only
when it cannot be written (a write-protected medium) and then write nothing to it."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

import click

from scanner.cli.common import Settings, common_options, echo_json, group_options, main
from scanner.errors import DecksheetError, EventError, ExitCode
from scanner.vocab import MAX_ROUND


def event_option(func: Callable) -> Callable:
    # No click.Path(dir_okay=False): its usage error is four lines; open_event says it in one.
    return click.option("--event", "event_path", envvar="DECKSHEET_EVENT",
                        help="The event file, or postgresql://USER@HOST[:PORT]/DB?event=NAME "
                             "(env DECKSHEET_EVENT).")(func)


def judge_option(func: Callable) -> Callable:
    return click.option("--judge", default=None, envvar="DECKSHEET_JUDGE",
                        help="Judge name recorded with the action (env DECKSHEET_JUDGE).")(func)


def _open(event_path: str | None, readonly: bool = False):
    from scanner.event.stores import open_event
    return open_event(event_path, readonly=readonly)


def _open_for_reading(event_path: str | None):
    """Read-write when the file and its folder can be written (an older file is migrated and
    the action logged), else read-only: nothing is written."""
    from scanner.event.stores import event_writable, open_event
    return open_event(event_path, readonly=not event_writable(event_path))


def _out_folder(path: Path, what: str) -> Path:
    """The output folder, made if needed; refused in one line before any work is done."""
    if path.exists() and not path.is_dir():
        raise EventError("event.out-is-file", what=what, path=path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EventError("event.out-unwritable", what=what, path=path, reason=exc.strerror or exc) from None
    return path


def _limits(store, settings: Settings):
    from scanner.event.flows import event_limits
    return event_limits(store.event(), settings.db(), settings.lflist, settings.list_name,
                        settings.extra_bans)


def _context(store, settings: Settings, judge: str | None = None, limits=_limits):
    """The event action's context: this record, the card database, the event's limit list
    (`limits=None`: none at hand), the judge."""
    from scanner.event.context import EventContext
    return EventContext(store, settings.db(), _limits(store, settings) if limits is _limits
                        else limits, judge)


@main.group()
@group_options
def event() -> None:
    """Create and inspect an event file (players, registrations, deck checks)."""


@event.command("init")
@click.argument("path")
@click.option("--name", required=True, help="Event name (이벤트명).")
@common_options
def event_init(path: str, name: str, settings: Settings) -> int:
    """Create a new event file. --date (required) is the event day; --list fixes the regulation
    (default: the OCG list in force on the event day)."""
    from scanner.event.stores import create_event

    if settings.date is None:
        raise EventError("event.date-needed")
    with create_event(path, name, settings.date, settings.list_name) as store:
        ev = store.event()
        where = store.location
    click.echo(f"이벤트 「{ev.name}」 {ev.date.isoformat()} → {where}"
               + (f" (리미트 레귤레이션 {ev.list_name})" if ev.list_name
                  else " (리미트 레귤레이션: 대회 당일 시행 중인 OCG 리스트)"), err=True)
    return ExitCode.OK


@event.command("info")
@event_option
@click.option("--json", "as_json", is_flag=True, help="Print the contract JSON.")
@common_options
def event_info(event_path: str | None, as_json: bool, settings: Settings) -> int:
    """Show the event header and how many players, versions and deck checks it holds
    (read-only: writes nothing)."""
    with _open(event_path, readonly=True) as store:
        ev = store.event()
        regs = store.registrations()
        data = {"name": ev.name, "date": ev.date.isoformat(), "list": ev.list_name,
                "players": len({r.konami_id for r in regs}), "versions": len(regs),
                "deck_checks": len(store.deck_checks()), "infractions": len(store.infractions()),
                "problems": store.integrity()}
    if as_json:
        echo_json(data)
    else:
        labels = {"name": "이벤트명", "date": "날짜", "list": "리미트 레귤레이션",
                  "players": "선수", "versions": "등록 (버전 포함)", "deck_checks": "덱 체크",
                  "infractions": "기록된 위반", "problems": "파일 문제"}
        for k, v in data.items():
            if k == "list" and v is None:
                v = "대회 당일 시행 중인 OCG 리스트"
            elif k == "problems":
                v = "; ".join(map(str, v)) or "없음"
            click.echo(f"{labels.get(k, k)} ({k}): {v}")
    return ExitCode.FINDINGS if data["problems"] else ExitCode.OK


@main.command()
@click.argument("input_")
@click.option("--player", default=None,
              help="Konami card game ID (10 digits). Default: the ID printed on the sheet, when "
                   "it was read with confidence.")
@click.option("--walk-in", is_flag=True,
              help="A player without a Konami ID: give them the next walk-in number (W0001…).")
@click.option("--name", default=None, help="Player name (default: the name on the sheet).")
@click.option("--replace", is_flag=True,
              help="Make this the current list even if it does not look like the player's deck "
                   "(main < 40, most lines unreadable, most of the previous version dropped).")
@click.option("--allow-duplicate", is_flag=True,
              help="Register a file that is already another player's original.")
@click.option("--json", "as_json", is_flag=True, help="Print the contract JSON.")
@event_option
@judge_option
@common_options
def register(input_: str, player: str | None, walk_in: bool, name: str | None, replace: bool,
             allow_duplicate: bool, as_json: bool, event_path: str | None, judge: str | None,
             settings: Settings) -> int:
    """Register a player's deck sheet: keep the original, the list and its review state as a
    new version (never overwriting an older one). At check-in nothing is a penalty: findings
    are what to fix, with the penalty that would apply if found during the event."""
    from scanner.event.flows import register_input

    with _open(event_path) as store:
        result = register_input(_context(store, settings, judge), input_, player, name=name,
                                replace=replace, allow_duplicate=allow_duplicate,
                                walk_in=walk_in)
    for w in result.warnings:
        click.echo(f"decksheet: warning: {w}", err=True)
    if as_json:
        echo_json(result.to_json())
    else:
        from scanner.report.verdict_text import format_registration
        click.echo(format_registration(result.to_json()))
    return ExitCode.OK if result.clean else ExitCode.FINDINGS


@main.command()
@click.argument("observed")
@click.option("--player", required=True, help="Konami card game ID.")
@click.option("--round", "round_no", required=True, help=f"Round number (0–{MAX_ROUND}).")
@click.option("--between-games", is_flag=True,
              help="Deck check between games: side-deck swaps allowed, sizes must not change.")
@click.option("--confirm", is_flag=True,
              help="The judge has fixed or confirmed every flagged line: record the check "
                   "(needs --judge).")
@click.option("--preview", is_flag=True, help="Compare only; record nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the contract JSON.")
@event_option
@judge_option
@common_options
def deckcheck(observed: str, player: str, round_no: str, between_games: bool, confirm: bool,
              preview: bool, as_json: bool, event_path: str | None, judge: str | None,
              settings: Settings) -> int:
    """Compare the deck seen at a deck check with the player's registered list (lines matched
    against that list first) and record it with its one penalty — only when every line is
    certain, or with --confirm. Exit 1 when not recorded."""
    from scanner.event.flows import check_round, deck_check

    rnd = check_round(round_no)
    with _open(event_path, readonly=preview) as store:
        result = deck_check(_context(store, settings, judge), observed, player, rnd,
                            between_games=between_games, confirm=confirm, preview=preview)
    for w in result.warnings:
        click.echo(f"decksheet: warning: {w}", err=True)
    data = result.to_json()
    if as_json:
        echo_json(data)
    else:
        from scanner.report.verdict_text import format_deck_check
        click.echo(format_deck_check(data))
    return ExitCode.OK if result.clean else ExitCode.FINDINGS


@event.command("status")
@click.argument("player")
@event_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@common_options
def event_status(player: str, event_path: str | None, as_json: bool, settings: Settings) -> int:
    """One player's state (by Konami ID or name): current list, verdict, versions, deck checks
    and infractions with their voids (read-only)."""
    from scanner.event.flows import player_status

    with _open_for_reading(event_path) as store:
        try:
            limits = _limits(store, settings)
        except DecksheetError as exc:
            click.echo(f"decksheet: warning: {exc}; the verdict is the stored one", err=True)
            limits = None
        status = player_status(_context(store, settings, limits=limits), player)
    data = status.to_json()
    if as_json:
        echo_json(data)
    else:
        from scanner.report.verdict_text import format_status
        click.echo(format_status(data))
    return ExitCode.OK if data["verdict"] == "적합" and not status.penalties_in_force \
        else ExitCode.FINDINGS


@event.command("void")
@click.argument("infraction_id", type=int)
@click.option("--reason", required=True, help="Why (recorded with the void).")
@click.option("--penalty", "new_penalty", default=None,
              type=click.Choice(["CAUTION", "WARNING", "GAME_LOSS", "MATCH_LOSS",
                                 "DISQUALIFICATION", "DISQUALIFICATION_NO_PRIZE"],
                                case_sensitive=False),
              help="Amend the penalty to this one instead of voiding it.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@event_option
@judge_option
@common_options
def event_void(infraction_id: int, reason: str, new_penalty: str | None, as_json: bool,
               event_path: str | None, judge: str | None, settings: Settings) -> int:
    """Void a recorded infraction (or amend its penalty with --penalty), with a reason and the
    judge's name. Appended: the infraction stays in the record, shown as voided/amended."""
    from scanner.event.flows import void_infraction

    with _open(event_path) as store:
        result = void_infraction(store, infraction_id, reason=reason, judge=judge,
                                 new_penalty=new_penalty)
    data = result.to_json()
    if as_json:
        echo_json(data)
    else:
        inf, a = data["infraction"], data["amendment"]
        what = "무효 처리" if a["action"] == "void" else f"벌칙 변경 → {a['new_penalty']}"
        click.echo(f"위반 {inf['id']} ({inf['code']}, {inf['player']}, {inf['round']}라운드): {what}"
                   f" — 사유: {a['reason']} — 저지 {a['judge']} {a['time']}")
    return ExitCode.OK


@event.command("withdraw")
@click.argument("player")
@click.argument("version", type=click.IntRange(1))
@click.option("--reason", required=True, help="Why (recorded with the withdrawal, ≤ 200 chars).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@event_option
@judge_option
@common_options
def event_withdraw(player: str, version: int, reason: str, as_json: bool,
                   event_path: str | None, judge: str | None, settings: Settings) -> int:
    """Withdraw a player's registration VERSION (e.g. a sheet stored on the wrong player), with a
    reason and the judge's name. Appended: the version stays in the record, shown as 철회됨; the
    player's current version is the newest one not withdrawn."""
    from scanner.event.withdraw import withdraw_version

    with _open(event_path) as store:
        result = withdraw_version(store, player, version, reason, judge)
    data = result.to_json()
    if as_json:
        echo_json(data)
    else:
        w = data["withdrawn"]
        now = data["current_version"]
        click.echo(f"선수 {data['player']} 버전 {data['version']}: 철회됨 — 사유: {w['reason']} — "
                   f"저지 {w['judge']} {w['time']} — 현재 버전: "
                   f"{now if now is not None else '없음 (미등록)'}")
    return ExitCode.OK


@main.command()
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path),
              help="Folder for report.html and report.csv.")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Processes for the re-reads (default: all cores).")
@click.option("--json", "as_json", is_flag=True, help="Print the contract JSON.")
@event_option
@common_options
def audit(out_dir: Path, workers: int | None, as_json: bool, event_path: str | None,
          settings: Settings) -> int:
    """Re-read and re-check every registration under the event's regulation; write
    report.html, report.csv and report.xlsx (Konami IDs masked)."""
    from scanner.event.audit import audit_jobs, run_audit
    from scanner.event.audit_report import write_report

    with _open_for_reading(event_path) as store:
        _out_folder(out_dir, "report")
        ctx = _context(store, settings)
        total = len(audit_jobs(store))
        with click.progressbar(length=total, label="audit", file=sys.stderr,
                               hidden=not sys.stderr.isatty()) as bar:
            result = run_audit(ctx, workers=workers, progress=bar.update)
        try:
            html_path, csv_path, xlsx_path = write_report(result, out_dir)
        except OSError as exc:
            raise EventError("event.out-unwritable", what="report", path=out_dir,
                             reason=exc.strerror or exc) from None
        store.log("audit", {"registrations": len(result.current), "illegal": result.illegal,
                            "needs_review": result.needs_review, "out": str(out_dir)})
    if as_json:
        echo_json(result.to_json())
    else:
        click.echo(f"감사(audit): 선수 {len(result.current)}명 (등록 {len(result.registrations)}건), "
                   f"{result.seconds:.1f}초")
        click.echo(f"  부적합 {len(result.illegal)}명: {', '.join(result.illegal) or '-'}")
        click.echo(f"  확인 필요 {len(result.needs_review)}명: {', '.join(result.needs_review) or '-'}"
                   + (" → 'decksheet review --player ID'" if result.needs_review else ""))
        click.echo(f"  똑같은 덱 리스트 묶음 {len(result.duplicates)}개, 덱 체크 "
                   f"{len(result.deck_checks)}건, 기록된 위반 {len(result.infractions)}건")
        click.echo(f"  보고서: {html_path}, {csv_path}, {xlsx_path} (코나미 ID 가림)")
    return ExitCode.OK if result.clean else ExitCode.FINDINGS


@main.command()
@click.option("--player", required=True, help="Konami card game ID.")
@click.option("--version", "version", type=int, default=None,
              help="Registration version (default: the newest).")
@event_option
@judge_option
@common_options
def review(player: str, version: int | None, event_path: str | None, judge: str | None,
           settings: Settings) -> int:
    """Walk through every flagged line of a registration and record the judge's decisions."""
    from scanner.event.records import lookup_konami_id
    from scanner.cli.review_walk import walk

    kid = lookup_konami_id(player)
    with _open(event_path) as store:
        reg = (store.registration(kid, version) if version else store.latest_registration(kid))
        if reg is None:
            if version:
                raise EventError("event.no-version", player=kid, version=version)
            raise EventError("event.player-not-registered", player=kid)
        try:
            limits = _limits(store, settings)
        except DecksheetError as exc:
            click.echo(f"decksheet: warning: {exc}; no verdict after the review", err=True)
            limits = None
        remaining = walk(_context(store, settings, judge, limits), reg)
    return ExitCode.FINDINGS if remaining else ExitCode.OK


@main.command()
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path),
              help="Folder for the exported lists.")
@click.option("--format", "formats", type=click.Choice(["ydk", "text", "json", "csv", "xlsx"]),
              multiple=True, help="What to write (repeatable; default: all).")
@event_option
@common_options
def export(out_dir: Path, formats: tuple[str, ...], event_path: str | None,
           settings: Settings) -> int:
    """Write every player's current list (review decisions applied) as ydk/text/JSON files,
    one CSV of all lines and an .xlsx workbook (one sheet per table)."""
    from scanner.event.export import export_event

    with _open_for_reading(event_path) as store:
        _out_folder(out_dir, "lists")
        written, flagged = export_event(store, settings.db(), out_dir,
                                        set(formats or ("ydk", "text", "json", "csv", "xlsx")))
    click.echo(f"파일 {written}개 → {out_dir}"
               + (f"; 아직 확인 필요한 줄이 있는 리스트 {flagged}개 ('decksheet review')"
                  if flagged else ""), err=True)
    return ExitCode.FINDINGS if flagged else ExitCode.OK
