"""Issue 37: every check that decides a write runs inside the write's transaction. A deck check
(with its 듀얼의 패배), a review decision or a check-in confirmation recorded against a version
withdrawn at the same moment is refused — never recorded beside the withdrawal — on both stores.
And every stored reason is cleaned like a name: a reason of zero-width spaces is no reason."""
from __future__ import annotations

import datetime as dt

import pytest

from scanner.errors import EventError
from scanner.event.records import NewInfraction, ReviewDecision
from scanner.event.stores import create_event, open_event

DAY = dt.date(2026, 7, 12)


@pytest.fixture(params=["sqlite", "postgresql"])
def event_target(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "event.db")
    return request.getfixturevalue("pg_db") + "?event=races"


def _registered_then_withdrawn(target: str):
    """A version the service looked at (not withdrawn then) and that a second judge withdrew
    before the first judge's write reached the record: the race, made deterministic."""
    with create_event(target, "대회", DAY) as store:
        sha = store.store_file(b"#main\n14558127\n")
        reg = store.add_registration("0123456789", "홍길동", {"sections": {"main": []}}, sha,
                                     "a.ydk", True, [], "2026.7")
    with open_event(target) as other_judge:
        other_judge.withdraw_registration("0123456789", reg.version, "다른 선수의 시트", "저지 B")
    return reg


def test_a_deck_check_on_a_version_withdrawn_meanwhile_is_refused(event_target):
    reg = _registered_then_withdrawn(event_target)
    with open_event(event_target) as store:
        with pytest.raises(EventError) as refused:
            store.add_deck_check("0123456789", 3, reg.id, "start-of-match", False, None, {}, {},
                                 [NewInfraction("DECKLIST_MISMATCH", "GAME_LOSS", "r", "3.A", "m")],
                                 judge="저지 A", confirmed=True)
        assert refused.value.code in ("event.version-withdrawn", "event.deckcheck-list-changed")
        assert store.deck_checks() == [] and store.infractions() == []


def test_review_decisions_and_a_checkin_confirmation_too(event_target):
    reg = _registered_then_withdrawn(event_target)
    with open_event(event_target) as store:
        decision = ReviewDecision(registration_id=reg.id, section="main", line=1, read="x",
                                  action="keep", judge="저지 A")
        with pytest.raises(EventError, match="withdrawn"):
            store.add_decisions([decision])
        with pytest.raises(EventError, match="withdrawn"):
            store.log("checkin-confirmed", {"player": "0123456789", "version": reg.version},
                      "저지 A", on_registration=reg.id)
        assert store.decisions() == []
        assert "checkin-confirmed" not in [a for _, _, a, _ in store.audit_log()]


@pytest.mark.parametrize("reason", ["\u200b\u200b", "\u2066\u2069 ", "\u0001\u0002", "\ufeff"])
def test_a_reason_of_invisible_characters_is_no_reason(event_target, reason):
    with create_event(event_target, "대회", DAY) as store:
        sha = store.store_file(b"#main\n14558127\n")
        store.add_registration("0123456789", "홍길동", {"sections": {"main": []}}, sha, "a.ydk",
                               True, [], "2026.7")
        with pytest.raises(EventError):
            store.withdraw_registration("0123456789", 1, reason, "저지")
        assert store.withdrawals() == []


def test_stored_reasons_keep_no_control_or_invisible_characters(event_target):
    with create_event(event_target, "대회", DAY) as store:
        sha = store.store_file(b"#main\n14558127\n")
        reg = store.add_registration("0123456789", "홍길동", {"sections": {"main": []}}, sha,
                                     "a.ydk", True, [], "2026.7")
        _, issued = store.add_deck_check("0123456789", 1, reg.id, "start-of-match", False, None,
                                         {}, {}, [NewInfraction("DECKLIST_MISMATCH", "GAME_LOSS",
                                                                "r", "3.A", "m")], judge="저지")
        amended = store.add_amendment(issued[0].id, "void", "잘못\u0000 기록\u200b됨\u202e",
                                      "저지")
        assert amended.reason == "잘못 기록됨"
        withdrawal = store.withdraw_registration("0123456789", 1, "다른\u0007 선수", "저지")
        assert withdrawal.reason == "다른 선수"
