"""`decksheet db info|search|fetch`."""
from __future__ import annotations

import dataclasses
import sys
from contextlib import ExitStack
from pathlib import Path

import click

from card_db.errors import FetchError  # (card_db.fetch, urllib and all, only when fetching)
from scanner.cli.common import Settings, common_options, echo_json, group_options, main
from scanner.errors import ExitCode


@main.group()
@group_options
def db() -> None:
    """The card database and limit lists."""


@db.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@common_options
def info(as_json: bool, settings: Settings) -> int:
    """Show which card database and limit lists are loaded."""
    from card_db.lflist import load_lflist, resolve_lflist_path

    cards = settings.db()
    path = resolve_lflist_path(settings.lflist)
    lists: list[str] = []
    all_lists: list[str] = []
    skipped: list[str] = []
    chosen = None
    if path is not None:  # a list file named but missing is an error, not "0 lists"
        lf = load_lflist(path)
        lists, all_lists, skipped = [n for _, n in lf.ocg_lists()], lf.names(), lf.warnings
        chosen = settings.limit_list().name
    data = {"card_db": str(cards.path), "demo": cards.is_demo, "cards": len(cards.cards),
            "rows": cards.rows, "alternate_artworks": len(cards.aliases),
            "alias_rows_loaded": cards.alias_rows_loaded,
            "sources": [dataclasses.asdict(s) for s in cards.sources], "sha256": cards.sha256,
            "lflist": str(path) if path else None, "lists": len(all_lists),
            "ocg_lists": len(lists), "newest_ocg_list": lists[-1] if lists else None,
            "selected_list": chosen, "lflist_lines_skipped": len(skipped),
            "extra_bans": settings.extra_bans}
    if as_json:
        echo_json(data)
    else:
        click.echo(cards.label)
        click.echo(f"alternate artworks: {len(cards.aliases)} "
                   f"({cards.alias_rows_loaded} alias rows loaded from further sources)")
        click.echo(f"limit lists: {path or 'none'} ({len(all_lists)} lists, {len(lists)} OCG, newest "
                   f"{data['newest_ocg_list']}); selected: {chosen}; "
                   f"추가 금지 카드 {'on' if settings.extra_bans else 'off'}"
                   + (f"; {len(skipped)} unreadable line(s) skipped" if skipped else ""))
    return ExitCode.OK


@db.command()
@click.argument("text")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 100),
              help="How many candidates to list.")
@click.option("--json", "as_json", is_flag=True, help="Print the contract JSON (a list).")
@common_options
def search(text: str, limit: int, as_json: bool, settings: Settings) -> int:
    """Candidates for a card name as read (any spacing, OCR noise), best first."""
    found = settings.db().search(text, limit=limit)
    rows = [{"card_id": c.card.card_id, "name": c.card.name, "score": round(c.score, 4)}
            for c in found]
    if as_json:
        echo_json(rows)
    else:
        if not rows:
            click.echo("no candidates")
        for r in rows:
            click.echo(f"{r['score']:.3f}  {r['card_id']:>9}  {r['name']}")
    return ExitCode.OK if rows else ExitCode.FINDINGS


@db.command()
@click.option("--locale", "locales", multiple=True, metavar="LOCALE",
              help="Locale databases to fetch, repeatable; the first gives the names shown "
                   "(default: ko-KR, then en-US for English names and alternate-art rows).")
@click.option("--cdb-url", default=None, help="Source of the first locale's cards.cdb "
                                              "(default: mycard ko-KR).")
@click.option("--cdb-url-template", default=None, metavar="URL",
              help="Source of each locale's cards.cdb, with {locale} (default: mycard).")
@click.option("--lflist-url", default=None, help="Source of lflist.conf (default: ygopro).")
@click.option("--cdb-sha256", default=None, help="Expected sha256 of cards.cdb, if known.")
@click.option("--lflist-sha256", default=None, help="Expected sha256 of lflist.conf, if known.")
@click.option("--dest", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder to store into (default: the user data directory).")
@common_options
def fetch(locales: tuple[str, ...], cdb_url: str | None, cdb_url_template: str | None,
          lflist_url: str | None, cdb_sha256: str | None, lflist_sha256: str | None,
          dest: Path | None, settings: Settings) -> int:
    """Download the current Korean cards.cdb (and other locales' databases) and lflist.conf,
    verified, into the data directory.

    Every file is checked before any is installed; a failed or corrupt download leaves the
    installed files as they were."""
    from card_db.cdb import data_dir
    from card_db.fetch import (
        CDB_URL_TEMPLATE,
        DEFAULT_LOCALES,
        default_sources,
        fetch_all,
    )

    sources = default_sources(cdb_url, lflist_url, cdb_sha256, lflist_sha256,
                              locales or DEFAULT_LOCALES, cdb_url_template or CDB_URL_TEMPLATE)

    target = dest or data_dir()
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FetchError("fetch.cannot-create", path=target, reason=exc.strerror) from None
    with ExitStack() as stack:
        def progress_for(name: str):
            bar = stack.enter_context(click.progressbar(
                length=0, label=name, file=sys.stderr, hidden=not sys.stderr.isatty()))

            def progress(done: int, total: int | None) -> None:
                if total:
                    bar.length = total
                bar.update(done - bar.pos)
            return progress

        done = fetch_all(sources, target, progress_for)
    for src, fetched, n in done:
        what = "lists" if src.name == "lflist.conf" else "cards"
        click.echo(f"{src.name}: {fetched.size} bytes, sha256 {fetched.sha256[:16]}…, {n} {what} → "
                   f"{fetched.path}")
    return ExitCode.OK
