"""`decksheet serve`: the check-in station for a judge team (one library call)."""
from __future__ import annotations

import os

import click

from scanner.cli.common import Settings, common_options, main
from scanner.cli.event_cmds import event_option


@main.command()
@event_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 0.0.0.0 opens the station to the venue network.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port (0 = any free port).")
@click.option("--key", envvar="DECKSHEET_KEY", default=None,
              help="Event key for the sign-in URL and the API (env DECKSHEET_KEY; default random).")
@click.option("--workers", type=click.IntRange(0, 64), default=None,
              help="Reading processes (default: all cores; 0 on a PostgreSQL event: a "
                   "front-end only, 'decksheet worker' machines read).")
@click.option("--trusted-proxy", default=None, metavar="ADDRESS",
              help="A reverse proxy's address whose X-Forwarded-For is believed (default: "
                   "none; every client is its own address).")
@common_options
def serve(event_path: str | None, host: str, port: int, key: str | None, workers: int | None,
          trusted_proxy: str | None, settings: Settings) -> int:
    """Start the check-in station for an event: judges open the printed URL on their phones."""
    from scanner.errors import EventError
    from scanner.web import StationConfig
    from scanner.web import serve as run

    if not event_path:
        event_path = os.environ.get("DECKSHEET_EVENT")
    if not event_path:
        raise EventError("event.no-event-given")
    options = {"event_path": event_path, "host": host, "port": port,
               "card_db": settings.card_db, "aliases": settings.aliases,
               "lflist": settings.lflist, "list_name": settings.list_name,
               "extra_bans": settings.extra_bans, "trusted_proxy": trusted_proxy}
    if key:
        options["key"] = key
    if workers is not None:
        options["workers"] = workers
    config = StationConfig(**options)  # a bad key or worker count: a coded EventError
    from scanner.event.stores import open_event
    open_event(config.event_path).close()  # refuse a bad event before loading the cards
    from scanner.ocr.tools import probe_tools
    probe_tools()  # the station reads photos: no Tesseract kor / fonts → one line, exit 2
    run(config, settings.db())  # the CLI's loader: says so on stderr when it is the demo db
    return 0
