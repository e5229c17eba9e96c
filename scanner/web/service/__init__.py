"""The station's one door into the event layer: every call to `scanner.event` is made in this
package.

Pages and API handlers call `StationService` methods and get plain dataclasses back; they
never see SQL, an `EventRecord` or the flows' signatures, so a change in the event layer is
adapted here alone. One module per page family, each a part of the service standing on `core`
(connections, the event context of an action, registration lookup, verdicts, crops):
roster (players), checkin (upload jobs → registrations), review (the registration page, the
judges' answers, the decision log), deckcheck (checklists, deck checks), records (infractions,
audit, exports), audits (audits as queued jobs and their files), withdraw (a registration
version withdrawn at the desk).
"""
from __future__ import annotations

from scanner.errors import DecksheetError
from scanner.web.service.audits import AuditsService
from scanner.web.service.checkin import CheckinService
from scanner.web.service.circuit import CircuitService
from scanner.web.service.core import StationError
from scanner.web.service.deckcheck import DeckCheckService
from scanner.web.service.records import RecordsService
from scanner.web.service.roster import RosterService
from scanner.web.service.withdraw import WithdrawService


class StationService(RosterService, CheckinService, DeckCheckService, AuditsService,
                     CircuitService, WithdrawService):
    """Event, roster, jobs and card database of one running station."""


__all__ = ["DecksheetError", "StationError", "StationService"]
