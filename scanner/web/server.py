"""Run a station with uvicorn: print the sign-in URL once ready; SIGTERM/Ctrl-C stop it cleanly
(uvicorn stops accepting, the app's lifespan finishes or requeues the reads)."""
from __future__ import annotations

import contextlib
import logging
import resource
import time

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


FD_RESERVE = 96
"""Open files the station keeps for itself beyond its connections (the event file and its
journal, the reader pools' pipes, originals being stored, crops, logs)."""
MIN_CONNECTIONS = 16
ACCEPT_BACKLOG = 128
"""Connections the kernel queues before the station accepts them (a few desks at a time)."""


def connection_budget() -> int:
    """How many connections the station holds at once: its open-files limit (raised to the hard
    limit) less what it needs itself. Past it uvicorn answers 503 and closes the connection at
    once, so a flood of connections can never take the last file descriptor (then accept()
    fails, and Python 3.11's asyncio logs a traceback per queued connection, ~40 MB in 15 s)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        want = hard if hard != resource.RLIM_INFINITY else 65536
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
    return max(MIN_CONNECTIONS, soft - FD_RESERVE)


class FloodMessages(logging.Filter):
    """One record of each flood message at most every `every_s` seconds, without a traceback,
    saying how many were left out: a flood of connections is not the station's error, and its
    log must not fill the event's disk (Python 3.11's asyncio logged a traceback per queued
    accept(), uvicorn a line per refused connection)."""

    MESSAGES = ("socket.accept() out of system resource", "Exceeded concurrency limit")

    def __init__(self, every_s: float = 30.0) -> None:
        super().__init__()
        self.every_s = every_s
        self.last: dict[str, float] = {}
        self.left_out: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        kind = next((m for m in self.MESSAGES if text.startswith(m)), None)
        if kind is None:
            return True
        now = time.monotonic()
        if now - self.last.get(kind, float("-inf")) < self.every_s:
            self.left_out[kind] = self.left_out.get(kind, 0) + 1
            return False
        self.last[kind] = now
        record.msg, record.args = f"{kind} (and {self.left_out.pop(kind, 0)} more)", None
        record.exc_info = record.exc_text = None
        return True


def serve(config: StationConfig, db=None) -> None:
    """Block until the server is stopped."""
    from scanner.web.service import StationService

    # A database event is shared by design (several front-ends): the file lock is for files.
    lock = contextlib.nullcontext() if config.uses_database else station_lock(config.event_path)
    with lock:
        _serve_locked(config, StationService(config, db))


def _serve_locked(config: StationConfig, service) -> None:
    app = build_app(config, service)
    budget = connection_budget()
    uv = uvicorn.Config(app, host=config.host, port=config.port, log_level="warning",
                        lifespan="on", timeout_graceful_shutdown=int(config.shutdown_grace_s),
                        server_header=False, http=timed_protocol(config.read_timeout_s, budget),
                        # a short accept queue: on EMFILE, Python 3.11's asyncio retries the
                        # accept once per queued connection, each retry scheduling another
                        backlog=ACCEPT_BACKLOG,
                        timeout_keep_alive=max(1, int(config.idle_timeout_s)),
                        h11_max_incomplete_event_size=64 * 1024,
                        limit_concurrency=budget,
                        # uvicorn believes X-Forwarded-For from 127.0.0.1 by default: a client on
                        # the same machine (or any behind a proxy) would choose its own address.
                        proxy_headers=config.trusted_proxy is not None,
                        forwarded_allow_ips=config.trusted_proxy or "")
    server = _Server(uv, config)
    flood = FloodMessages()
    for name in ("asyncio", "uvicorn.error"):
        logging.getLogger(name).addFilter(flood)
    logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)  # a bind error: our one line
    try:
        server.run()
    except SystemExit:
        if server.started:
            raise
    if not server.started:
        raise EventError("serve.cannot-listen", host=config.host, port=config.port)
