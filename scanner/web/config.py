"""Settings of one station (the `decksheet serve` options), validated in one place."""
from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from scanner.errors import EventError
from scanner.event.stores import is_database_url
from scanner.web.uploads import MAX_UPLOAD_BYTES

ENV_KEY = "DECKSHEET_KEY"
DEFAULT_PORT = 8765
DEFAULT_TZ = "Asia/Seoul"
MIN_KEY_LENGTH = 16
"""With the back-off after failed attempts (auth.KeyGuard), too long to guess during an event."""


class StationConfigError(EventError, ValueError):
    """A setting the station cannot start with: coded for the CLI's one line, and a ValueError
    for a caller that builds a config from values of its own."""


@dataclass
class StationConfig:
    event_path: Path | str
    """The event's SQLite file (made with `decksheet event init`), or its PostgreSQL URL."""
    host: str = "127.0.0.1"
    """Bind address: loopback unless the judge asks for the venue network (`--host 0.0.0.0`)."""
    port: int = DEFAULT_PORT
    key: str = field(default_factory=lambda: os.environ.get(ENV_KEY) or secrets.token_urlsafe(16))
    """The event key: in the sign-in URL, and as `Authorization: Bearer KEY` for the API."""
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    """Reading processes (OCR is CPU-bound: one per core)."""
    card_db: tuple[str, ...] = ()
    """cards.cdb files (the first gives the names); empty: $DECKSHEET_CARD_DB, fetched, demo."""
    aliases: tuple[str, ...] = ()
    """Alternate-art sources; empty: $DECKSHEET_ALIASES, if set."""
    lflist: str | None = None
    list_name: str | None = None
    extra_bans: bool = True
    max_upload_bytes: int = MAX_UPLOAD_BYTES
    timezone: str = DEFAULT_TZ
    """Times on pages are shown in the event's time zone."""
    job_timeout_s: float = 180.0
    """A read taking longer fails its job (and its worker is replaced): no hung worker."""
    read_timeout_s: float = 20.0
    """A request's headers must arrive within this of the connection opening (or its previous
    response), and each piece of a body within this of the last: no connection held idle."""
    idle_timeout_s: float = 5.0
    """A kept-alive connection with no new request is closed after this."""
    busy_timeout_s: float = 5.0
    """How long a write waits for another program holding the event file before the desk is
    answered 503 (「다른 프로그램이 대회 기록을 쓰고 있습니다」; the command line waits a minute)."""
    trusted_proxy: str | None = None
    """The address of a reverse proxy in front of the station (`--trusted-proxy`): only its
    X-Forwarded-For is believed. None: every client is its peer address (the back-off after
    wrong keys counts real addresses; a header cannot spread or dodge it)."""
    body_deadline_s: float = 120.0
    """A request body must be complete within this of its first byte, however it trickles (a
    20 MB photo over venue Wi-Fi at 2 Mbit/s takes ~80 s)."""
    shutdown_grace_s: float = 20.0
    """On SIGTERM, running reads get this long to finish; the rest go back to the queue."""

    def __post_init__(self) -> None:
        if not self.uses_database:
            self.event_path = Path(self.event_path)
        if isinstance(self.card_db, (str, Path)):
            self.card_db = (str(self.card_db),)
        if not self.key or len(self.key) < MIN_KEY_LENGTH:
            raise StationConfigError("serve.key-too-short", min=MIN_KEY_LENGTH, env=ENV_KEY)
        if not (0 if self.uses_database else 1) <= self.workers <= 64:
            # 0 on a database event: a front-end only, `decksheet worker` machines read.
            raise StationConfigError("serve.bad-workers")

    @property
    def uses_database(self) -> bool:
        """The event is in PostgreSQL (several front-ends and readers share it)."""
        return is_database_url(str(self.event_path))

    @property
    def station_dir(self) -> Path:
        """Beside the event file: crops and exports the station makes (for a database event,
        in this machine's cache folder, per event)."""
        if self.uses_database:
            import platformdirs
            from urllib.parse import parse_qs, urlsplit
            event = parse_qs(urlsplit(str(self.event_path)).query).get("event", ["event"])[0]
            return Path(platformdirs.user_cache_dir("decksheet")) / "stations" / \
                "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in event)
        return Path(str(self.event_path) + ".station")

    def sign_in_url(self) -> str:
        return f"http://{self.host}:{self.port}/?key={self.key}"
