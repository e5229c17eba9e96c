"""Withdrawing a registration version at the desk (issue 26): a wrong sheet stored on the
wrong player is withdrawn with a reason in the judge's name (an appended record), and the
same original can then be registered for the right player."""
from __future__ import annotations

from scanner.errors import EventError
from scanner.event.records import Withdrawal
from scanner.event.record import EventRecord
from scanner.event.records import normalise_konami_id
from scanner.event.withdraw import MISMATCH_REASON, withdraw_version
from scanner.web.service.core import StationCore, StationError
from scanner.web.views import WithdrawalView
from scanner.web.texts import ko

_STATUS = {"event.no-version": 404, "event.no-player": 404, "event.already-withdrawn": 409}
"""HTTP status of the event layer's refusals of a withdrawal (any other: 400)."""


class WithdrawService(StationCore):
    def withdraw(self, konami_id: str, version: int, reason: str | None,
                 judge: str | None) -> WithdrawalView:
        """Withdraw `version` of the player; refusals are `StationError`s, nothing recorded."""
        try:
            kid = normalise_konami_id(konami_id)
        except EventError:
            raise StationError(ko("bad-kid"), 404) from None
        if not judge:
            raise StationError(ko("judge-missing"))
        with self.store() as store:
            try:
                result = withdraw_version(store, kid, version, reason or "", judge)
            except EventError as exc:
                raise StationError.refusing(exc, _STATUS.get(exc.code, 400)) from None
            view = self._withdrawal_view(store, result.withdrawal)
        view.current_version = result.current.version if result.current else None
        return view

    def withdraw_mismatch(self, konami_id: str, version: int,
                          judge: str | None) -> WithdrawalView:
        """「아니오, 다른 선수의 시트」: withdraw with the desk's fixed reason."""
        return self.withdraw(konami_id, version, MISMATCH_REASON, judge)

    def withdrawals(self, konami_id: str | None = None) -> list[WithdrawalView]:
        """Withdrawn versions (of one player), oldest first."""
        with self.store() as store:
            return [self._withdrawal_view(store, w) for w in store.withdrawals()
                    if konami_id is None or w.konami_id == konami_id]

    @staticmethod
    def _withdrawal_view(store: EventRecord, w: Withdrawal) -> WithdrawalView:
        reg = store.registration_by_id(w.registration_id)
        sheet = ((reg.decklist_json.get("player") or {}).get("konami_id") if reg else None)
        sheet_id = "".join(ch for ch in str(sheet or "") if ch.isdigit()) or None
        return WithdrawalView(konami_id=w.konami_id, name=store.player_name(w.konami_id),
                              version=w.version, reason=w.reason, judge=w.judge,
                              at=w.created_at, sheet_id=sheet_id)
