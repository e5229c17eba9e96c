"""A player's season for the head judge: every event of the station's PostgreSQL database."""
from __future__ import annotations

from scanner.errors import EventError
from scanner.web.service.core import StationCore, StationError
from scanner.web.texts import ko


class CircuitService(StationCore):
    def circuit_history(self, who: str) -> dict:
        """The player's events, registrations, deck checks and infractions (contract-like JSON
        of `decksheet circuit history`); refused on an event file (one event only)."""
        if not self.config.uses_database:
            raise StationError(ko("circuit-needs-database"), 404)
        from scanner.event.circuit import Circuit
        try:
            with Circuit(str(self.config.event_path)) as circuit:
                return circuit.history(who).to_json()
        except EventError as exc:
            raise StationError(exc.render("ko"), 404) from None
