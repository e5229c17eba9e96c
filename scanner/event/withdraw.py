"""Withdrawing a registration version: a wrong sheet stored on the wrong player (issue 26).

The version stays in the record; a withdrawal row (reason, judge, time) is appended, and the
player's current version becomes the newest one not withdrawn (or none: not registered). The
same original may then be registered for the right player (the duplicate guard skips it)."""
from __future__ import annotations

from dataclasses import dataclass

from scanner.errors import EventError
from scanner.event.records import Registration, Withdrawal, clean_name, withdraw_reason
from scanner.event.record import EventRecord

MISMATCH_REASON = "다른 선수의 시트"
"""The reason the check-in desk records for 「아니오, 다른 선수의 시트」."""


@dataclass
class WithdrawResult:
    withdrawal: Withdrawal
    current: Registration | None
    """The player's current version after the withdrawal (None: not registered any more)."""

    def to_json(self) -> dict:
        return {"player": self.withdrawal.konami_id, "version": self.withdrawal.version,
                "withdrawn": self.withdrawal.to_json(),
                "current_version": self.current.version if self.current else None}


def withdraw_version(store: EventRecord, player: str, version: int, reason: str,
                     judge: str | None) -> WithdrawResult:
    """Withdraw `player`'s `version` (a Konami ID or a name) with a reason and the judge."""
    from scanner.event.flows import find_player

    reason = withdraw_reason(reason)
    name = clean_name(judge)
    if not name:
        raise EventError("event.judge-needed")
    kid = find_player(store, player)
    withdrawal = store.withdraw_registration(kid, int(version), reason, name)
    return WithdrawResult(withdrawal=withdrawal, current=store.latest_registration(kid))
