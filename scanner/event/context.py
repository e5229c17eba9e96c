"""What an event action works with, passed as one object: the open record, the card database,
the event's limit list, the judge acting and how inputs are read.

The CLI builds one per command, the station one per request (`StationCore.actions`); the flows
of `scanner.event.flows` take it first, then only what the action itself is about.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from card_db.cdb import CardDatabase
from card_db.models import LimitList
from scanner.errors import RegulationError
from scanner.event.record import EventRecord
from scanner.inputs.options import ReadOptions


@dataclass(frozen=True)
class EventContext:
    record: EventRecord
    db: CardDatabase
    limits: LimitList | None = None
    """The event's limit list (`flows.event_limits`); None: verdicts as stored."""
    judge: str | None = None
    """Who records what the action records."""
    options: ReadOptions | None = None
    """How inputs are read (None: the defaults)."""

    @property
    def limit_list(self) -> LimitList:
        """The limit list an action that checks a deck needs (refused when none is at hand)."""
        if self.limits is None:
            raise RegulationError("regulation.no-list-file")
        return self.limits

    def by(self, judge: str | None) -> "EventContext":
        """The same context, another judge acting."""
        return replace(self, judge=judge)
