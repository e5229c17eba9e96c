"""Run a station with uvicorn: print the sign-in URL once ready; SIGTERM/Ctrl-C stop it cleanly
(uvicorn stops accepting, the app's lifespan finishes or requeues the reads)."""
from __future__ import annotations

import contextlib
import logging

import uvicorn

from scanner.errors import EventError
from scanner.web.app import build_app
from scanner.web.config import StationConfig
from scanner.web.station_lock import station_lock
from scanner.web.timeouts import timed_protocol


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, station: StationConfig) -> None:
        super().__init__(config)
        self.station = station

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets)
        logging.getLogger("uvicorn.error").setLevel(logging.WARNING)  # quiet only at startup
        if self.started:
            port = self.servers[0].sockets[0].getsockname()[1] if self.servers else self.station.port
            self.station.port = port
            # The one line on stdout (contract): other tools wait for it.
            print(f"decksheet serve: {self.station.sign_in_url()}", flush=True)


def serve(config: StationConfig, db=None) -> None:
    """Block until the server is stopped."""
    from scanner.web.service import StationService

    # A database event is shared by design (several front-ends): the file lock is for files.
    lock = contextlib.nullcontext() if config.uses_database else station_lock(config.event_path)
    with lock:
        _serve_locked(config, StationService(config, db))


def _serve_locked(config: StationConfig, service) -> None:
    app = build_app(config, service)
    uv = uvicorn.Config(app, host=config.host, port=config.port, log_level="warning",
                        lifespan="on", timeout_graceful_shutdown=int(config.shutdown_grace_s),
                        server_header=False, http=timed_protocol(config.read_timeout_s),
                        timeout_keep_alive=max(1, int(config.idle_timeout_s)),
                        h11_max_incomplete_event_size=64 * 1024)
    server = _Server(uv, config)
    logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)  # a bind error: our one line
    try:
        server.run()
    except SystemExit:
        if server.started:
            raise
    if not server.started:
        raise EventError("serve.cannot-listen", host=config.host, port=config.port)
