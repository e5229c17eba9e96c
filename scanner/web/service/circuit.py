"""A player's season for the head judge: every event of the station's PostgreSQL database."""
from __future__ import annotations

from scanner.errors import EventError
from scanner.web.service.core import StationCore, StationError


class CircuitService(StationCore):
    def circuit_history(self, who: str) -> dict:
        """The player's events, registrations, deck checks and infractions (contract-like JSON
        of `decksheet circuit history`); refused on an event file (one event only)."""
        if not self.config.uses_database:
            raise StationError("시즌 기록은 PostgreSQL 이벤트에서만 볼 수 있습니다 "
                               "(이벤트 파일은 대회 하나만 담습니다)", 404)
        from scanner.event.circuit import Circuit
        try:
            with Circuit(str(self.config.event_path)) as circuit:
                return circuit.history(who).to_json()
        except EventError as exc:
            raise StationError(str(exc), 404) from None
