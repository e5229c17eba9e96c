"""What every part of the station service shares: the event and station connections, the
refusal type, the registration lookup, the verdict cache and the crops folder."""
from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from pathlib import Path

from card_db.cdb import CardDatabase, load_card_db
from card_db.models import LimitList
from scanner.errors import DecksheetError, EventError
from scanner.event import flows
from scanner.event.context import EventContext
from scanner.event.flows import apply_decisions, decklist_from_json, event_limits
from scanner.event.record import EventRecord
from scanner.event.records import Registration, normalise_konami_id
from scanner.event.stores import open_event
from scanner.model import Decklist
from scanner.event.status import list_status
from scanner.rules.codes import REVIEW_CODES, VERDICT_CODES
from scanner.web.audit_queue import AuditQueue
from scanner.web.config import StationConfig
from scanner.web.faults import storage_fault
from scanner.web.station_store import StationQueue
from scanner.web.stations import open_station
from scanner.web.views import Verdict
from scanner.web.texts import ko


CONFLICTS = frozenset({"event.version-withdrawn", "event.already-withdrawn", "event.already-void"})
"""Refusals that say the record changed since the page was shown (another judge's act)."""


class StationError(Exception):
    """A request the station refuses; `status` is the HTTP status (4xx; 503/507 when the
    event's storage cannot take a write now)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status

    @classmethod
    def refusing(cls, exc: DecksheetError, status: int = 400) -> "StationError":
        """The event layer's coded refusal in Korean, or its storage fault (503/507) as such:
        a locked or read-only event file is not the judge's mistake."""
        fault = storage_fault(exc)
        if fault is not None:
            return cls(ko(fault.text), fault.status)
        if exc.code in CONFLICTS:  # the record moved on under the request: 409, as HTTP says
            status = 409
        return cls(exc.render("ko"), status)


class StationCore:
    """Event, roster, jobs and card database of one running station (the shared part)."""

    def __init__(self, config: StationConfig, db: CardDatabase | None = None) -> None:
        self.config = config
        self.db = db or load_card_db(config.card_db or None, aliases=config.aliases or None)
        with self.store() as store:
            self.event = store.event()
            self.limits: LimitList = event_limits(self.event, self.db, config.lflist,
                                                  config.list_name, config.extra_bans)
        open_station(config.event_path, create=True).close()  # the station's tables
        if not config.uses_database:
            with self.station() as st:  # the audit queue beside the reading jobs
                AuditQueue(st).create()
        self.crops_root.mkdir(parents=True, exist_ok=True)
        self._status_cache: dict[tuple[int, int], Verdict] = {}
        self._lock = threading.Lock()
        self.audit_lock = threading.Lock()
        """Audits and audit exports run one at a time (each re-reads every sheet)."""

    @contextlib.contextmanager
    def store(self) -> Iterator[EventRecord]:
        """A connection per use: requests run on several threads."""
        store = open_event(self.config.event_path, busy_timeout_s=self.config.busy_timeout_s)
        try:
            yield store
        finally:
            store.close()

    def context(self, store: EventRecord, judge: str | None = None) -> EventContext:
        """What an event action works with: this record, the station's card database and
        limit list, the judge acting."""
        return EventContext(store, self.db, self.limits, judge)

    @contextlib.contextmanager
    def actions(self, judge: str | None = None) -> Iterator[EventContext]:
        """An event action's context on a connection of its own (as `store`)."""
        with self.store() as store:
            yield self.context(store, judge)

    @contextlib.contextmanager
    def station(self) -> Iterator[StationQueue]:
        st = open_station(self.config.event_path, busy_timeout_s=self.config.busy_timeout_s)
        try:
            yield st
        finally:
            st.close()

    def event_label(self) -> str:
        return f"{self.event.name} ({self.event.date.isoformat()})"

    # ------------------------------------------------------------------ crops

    @property
    def crops_root(self) -> Path:
        return self.config.station_dir / "crops"

    def crops_dir(self, sha256: str) -> Path:
        return self.crops_root / sha256

    def crop_file(self, sha256: str, name: str) -> Path | None:
        """A saved crop, or None (names are checked: no way out of the crops folder)."""
        if not re.fullmatch(r"[0-9a-f]{64}", sha256) or not re.fullmatch(r"[\w.\-]+\.png", name):
            return None
        p = self.crops_dir(sha256) / name
        if not p.is_file():
            self._fetch_crop(sha256, name, p)  # read on another machine (a shared queue)
        return p if p.is_file() else None

    def _fetch_crop(self, sha256: str, name: str, target: Path) -> None:
        from card_db.paths import atomic_write
        with self.station() as st:
            data = st.crop(sha256, name)
        if data is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, data)

    def _crop_url(self, path: str | None) -> str | None:
        if not path:
            return None
        p = Path(path)
        # A database event's crops may come from another machine's folder: served by name.
        here = p.parent.parent == self.crops_root or (
            self.config.uses_database and re.fullmatch(r"[0-9a-f]{64}", p.parent.name))
        return f"/crops/{p.parent.name}/{p.name}" if here else None

    # ------------------------------------------------------------------ registrations

    def _reg(self, store: EventRecord, konami_id: str, version: int | None) -> Registration:
        try:
            kid = normalise_konami_id(konami_id)
        except EventError:
            raise StationError(ko("bad-kid"), 404) from None
        reg = store.registration(kid, version) if version else store.latest_registration(kid)
        if reg is None:
            raise StationError(ko("no-registration"), 404)
        return reg

    def _live_reg(self, store: EventRecord, konami_id: str, version: int | None) -> Registration:
        """As `_reg`, for recording something on the version: a withdrawn one is refused."""
        reg = self._reg(store, konami_id, version)
        if reg.withdrawal is not None:
            raise StationError(ko("version-withdrawn", version=reg.version), 409)
        return reg

    @staticmethod
    def _player_names(store: EventRecord) -> dict[str, str | None]:
        """Konami ID → the name on the player's latest registration."""
        return {r.konami_id: r.player_name for r in store.registrations(latest_only=True)}

    def _decided_deck(self, store: EventRecord, reg: Registration,
                      keep_removed: bool = False) -> Decklist:
        """The registered list with the judges' review decisions applied (`keep_removed`: the
        lines a judge removed stay in place, for line numbers as read)."""
        return apply_decisions(decklist_from_json(reg.decklist_json), store.decisions(reg.id),
                               self.db, keep_removed)

    def _verdict(self, store: EventRecord, reg: Registration) -> Verdict:
        """The registration's verdict now (decisions applied, re-checked), cached per
        (registration, decisions so far): the dashboard asks for every player at once."""
        decisions = store.decisions(reg.id)
        key = (reg.id, len(decisions))
        with self._lock:
            cached = self._status_cache.get(key)
        if cached is not None:
            return cached
        deck, check = flows.registration_check(self.context(store), reg)
        breaches = sum(1 for i in check.infractions if i.code not in REVIEW_CODES)
        # the one status function the audit asks too (scanner.event.status)
        verdict = Verdict(list_status([i.code for i in check.infractions], deck.needs_review),
                          deck.needs_review, breaches)
        with self._lock:
            self._status_cache[key] = verdict
        return verdict

    # ------------------------------------------------------------------ card database

    def card_search(self, text: str, limit: int = 8) -> list[dict]:
        text = (text or "").strip()[:60]
        if not text:
            return []
        if text.isascii() and text.isdigit():  # '²' and '①' are digits to str.isdigit, not to int()
            card = self.db.get(int(text))
            return [{"card_id": card.card_id, "name": card.name, "score": 1.0}] if card else []
        return [{"card_id": c.card.card_id, "name": c.card.name, "score": round(c.score, 3)}
                for c in self.db.search(text, limit)]
