"""`decksheet event copy` (move an event between stores) and `decksheet circuit` (a season's
records of every event in one PostgreSQL database)."""
from __future__ import annotations

import click

from scanner.cli.common import Settings, common_options, echo_json, main
from scanner.cli.event_cmds import event, judge_option
from scanner.errors import ExitCode


@event.command("copy")
@click.argument("source")
@click.argument("target")
@click.option("--json", "as_json", is_flag=True, help="Print the verification as JSON.")
@judge_option
@common_options
def event_copy(source: str, target: str, as_json: bool, judge: str | None,
               settings: Settings) -> int:
    """Copy a whole event from SOURCE to TARGET (an event file path or
    postgresql://USER@HOST/DB?event=NAME, either way) and verify it: every record table by row
    count and digest, every original by its sha256. The source is only read; TARGET must be new."""
    from scanner.event.copy import copy_event

    report = copy_event(source, target, actor=judge)
    if as_json:
        echo_json(report.to_json())
    else:
        for t in report.tables:
            click.echo(f"{t.table:<22} {t.rows:>6} rows  {t.digest[:16]}  "
                       f"{'= copy' if t.ok else '≠ copy!'}")
        click.echo(f"originals {report.files} (sha256 verified)")
        click.echo(f"{report.source} → {report.target}: 복사 확인됨", err=True)
    return ExitCode.OK


def _circuit(event_path: str | None):
    from scanner.errors import EventError
    from scanner.event.stores import event_target, is_database_url

    target = event_target(event_path)
    if not is_database_url(target):
        raise EventError("event.circuit-needs-database")
    from scanner.event.circuit import Circuit
    return Circuit(target)


@main.group()
def circuit() -> None:
    """A season: every event in one PostgreSQL database, per player (read-only)."""


def _db_option(func):
    return click.option("--event", "event_path", envvar="DECKSHEET_EVENT",
                        help="postgresql://USER@HOST[:PORT]/DB (any ?event= is ignored; env "
                             "DECKSHEET_EVENT).")(func)


@circuit.command("players")
@_db_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@common_options
def circuit_players(event_path: str | None, as_json: bool, settings: Settings) -> int:
    """Every player of every event: events played, registrations, deck checks, standing
    infractions."""
    with _circuit(event_path) as c:
        players = c.players()
        events = c.events()
    if as_json:
        echo_json({"events": len(events), "players": [p.to_json() for p in players]})
        return ExitCode.OK
    click.echo(f"{'코나미 ID':<12} {'이름':<16} 이벤트 등록 덱체크 위반")
    for p in players:
        click.echo(f"{p.konami_id:<12} {(p.name or '-'):<16} {p.events:>5} {p.registrations:>4} "
                   f"{p.deck_checks:>6} {p.infractions:>4}")
    click.echo(f"{len(players)} players, {len(events)} events", err=True)
    return ExitCode.OK


@circuit.command("history")
@click.argument("player")
@_db_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@common_options
def circuit_history(player: str, event_path: str | None, as_json: bool,
                    settings: Settings) -> int:
    """One player's season (Konami ID or exact name): each event's registrations, deck checks
    and infractions, with voids and amendments applied. Exit 1 when a penalty stands."""
    with _circuit(event_path) as c:
        hist = c.history(player)
    if as_json:
        echo_json(hist.to_json())
    else:
        click.echo(f"선수 {hist.konami_id}: {len(hist.events)}개 이벤트")
        for ev in hist.events:
            click.echo(f"\n{ev.date} {ev.name} [{ev.event}] — {ev.player_name or '-'}")
            for r in ev.registrations:
                click.echo(f"  등록 v{r['version']} {'적합' if r['legal'] else '부적합'}"
                           f"{' 검토 ' + str(r['needs_review']) if r['needs_review'] else ''}"
                           f" {r['time']}")
            for d in ev.deck_checks:
                click.echo(f"  덱 체크 {d['round']}라운드: {d['verdict']}")
            for i in ev.infractions:
                change = ("" if i["status"] == "active" else
                          f" → {i['effective_penalty'] or '무효'} ({i['status']})")
                click.echo(f"  위반 #{i['id']} {i['code']} {i['penalty']}{change}"
                           f" {i['round'] or '-'}라운드")
        counts = ", ".join(f"{k} {v}" for k, v in hist.penalty_counts.items()) or "없음"
        click.echo(f"\n시즌 페널티: {counts}")
    return ExitCode.FINDINGS if hist.penalty_counts else ExitCode.OK


@main.command()
@click.option("--event", "event_path", envvar="DECKSHEET_EVENT",
              help="postgresql://USER@HOST[:PORT]/DB?event=NAME (env DECKSHEET_EVENT).")
@click.option("-j", "--jobs", "readers", type=click.IntRange(1, 64), default=None,
              help="Reading processes on this machine (default: all cores).")
@click.option("--lease", "lease_s", type=click.FloatRange(2, 3600), default=60.0,
              show_default=True,
              help="Seconds a taken job stays this machine's without news; a job whose reader "
                   "died is taken again after it.")
@common_options
def worker(event_path: str | None, readers: int | None, lease_s: float,
           settings: Settings) -> int:
    """Read queued registrations of a PostgreSQL event on this machine (any number of machines
    at once), until SIGTERM or Ctrl-C."""
    import os
    import signal
    import threading

    from scanner.errors import EventError
    from scanner.event.stores import event_target, is_database_url, open_event
    from scanner.web import StationConfig
    from scanner.web.lease_jobs import LeaseRunner
    from scanner.web.service import StationService

    target = event_target(event_path)
    if not is_database_url(target):
        raise EventError("event.worker-needs-database")
    with open_event(target) as store:
        where = store.location
    config = StationConfig(event_path=target, workers=readers or os.cpu_count() or 1,
                           card_db=settings.card_db, aliases=settings.aliases,
                           lflist=settings.lflist, list_name=settings.list_name,
                           extra_bans=settings.extra_bans)
    runner = LeaseRunner(StationService(config, settings.db()), config.workers, lease_s)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    runner.start()
    click.echo(f"decksheet worker: {config.workers} reader(s) on {where}")
    while not stop.wait(0.5):
        pass
    runner.stop(config.shutdown_grace_s)
    click.echo(f"decksheet worker: stopped after {runner.done} job(s)", err=True)
    return ExitCode.OK


@circuit.command("audit")
@_db_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@common_options
def circuit_audit(event_path: str | None, as_json: bool, settings: Settings) -> int:
    """Across every event: the same original file or the same list registered by different
    players at different events, and each player's standing penalties. Exit 1 on a shared file
    or list."""
    from scanner.event.circuit import audit

    with _circuit(event_path) as c:
        result = audit(c)
    if as_json:
        echo_json(result.to_json())
    else:
        for title, groups in (("같은 원본 파일", result.shared_files),
                              ("같은 덱 리스트", result.same_lists)):
            click.echo(f"{title}: {len(groups)}")
            for g in groups:
                click.echo("  " + ", ".join(f"{p['player']}@{p['event']}" for p in g["players"]))
        click.echo(f"페널티가 있는 선수: {len(result.penalties)}")
        for p in result.penalties:
            click.echo(f"  {p['player']}: " + ", ".join(f"{k} {v}"
                                                         for k, v in p["penalties"].items()))
    return ExitCode.FINDINGS if result.findings else ExitCode.OK
