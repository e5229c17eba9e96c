"""Issue 35 in the event layer: a line taken out of the list (`remove`), the lines of a table
the reader did not read entered by the judge, a 합계 item answered once per section, and no
breach built on a count no one confirmed."""
from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from card_db.models import LimitList
from scanner.cli import main
from scanner.errors import EventError
from scanner.event.flows import (apply_decisions, decision_for, decklist_from_json,
                                 flagged_items)
from scanner.event.migrations import MIGRATIONS, _split
from scanner.event.records import ReviewDecision
from scanner.event.stores import open_event
from scanner.model import Decklist, Entry, ReviewFlag
from scanner.rules.check import check_decklist
from scanner.vocab import Reason


def _cards(db, n: int):
    return [c for c in db.cards.values() if not c.is_extra_deck and c.ocg_usable][:n]


def _deck(db, printed_main: int | None = None) -> Decklist:
    """Main: a clean line ×3, a pen-struck row read as a line ×1 (flagged), a line ×2."""
    a, b, c = _cards(db, 3)
    deck = Decklist(printed_totals={"main": printed_main, "extra": None, "side": None})
    deck.sections["main"] = [
        Entry(a.card_id, a.name, 3, 1.0, False, f"{a.name} 3"),
        Entry(b.card_id, b.name, 1, 1.0, True, f"{b.name} 1 ~~~",
              reasons=[Reason.POSSIBLE_STRIKE]),
        Entry(c.card_id, c.name, 2, 1.0, False, f"{c.name} 2")]
    return deck


def test_a_struck_row_read_as_a_line_is_removed_from_the_list(demo_db):
    deck = _deck(demo_db)
    d = decision_for(deck, 1, "main", 2, "remove", judge="박저지", db=demo_db)
    assert d.action == "remove" and d.card_id is None and d.count is None
    assert d.before["count"] == 1 and d.after == {"card_id": None, "name": "", "count": 0,
                                                  "needs_review": False, "removed": True}
    out = apply_decisions(deck, [d], demo_db)
    assert [e.read for e in out.sections["main"]] == [deck.sections["main"][0].read,
                                                      deck.sections["main"][2].read]
    assert out.totals()["main"] == 5 and out.needs_review == 0
    # The review's own view keeps line numbers as read: the removed line stays, with nothing.
    kept = apply_decisions(deck, [d], demo_db, keep_removed=True)
    assert len(kept.sections["main"]) == 3 and kept.sections["main"][1].removed
    assert kept.sections["main"][1].count == 0 and kept.totals()["main"] == 5
    # The latest answer wins: the judge puts the line back as read.
    back = apply_decisions(deck, [d, ReviewDecision(1, "main", 2, d.read, "keep")], demo_db)
    assert len(back.sections["main"]) == 3 and back.totals()["main"] == 6
    # Only a line can be removed, not a sheet-level item.
    deck.review.append(ReviewFlag("main", Reason.ANNOTATION, "a note in the margin"))
    with pytest.raises(EventError) as err:
        decision_for(deck, 1, "main", None, "remove", db=demo_db, reason=Reason.ANNOTATION)
    assert err.value.code == "review.remove-lines-only"


def test_an_action_a_decksheet_does_not_know_changes_nothing(demo_db):
    deck = _deck(demo_db)
    odd = ReviewDecision(1, "main", 2, deck.sections["main"][1].read, "someday")
    assert apply_decisions(deck, [odd], demo_db).needs_review == 1


def test_a_removal_is_recorded_and_an_older_event_file_takes_it(tmp_path, demo_db):
    """The record's CHECK on `action` is widened by migration 0005 (the table copied row for
    row): an event file made before it keeps its decisions and its append-only guard."""
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
                "applied_at TEXT NOT NULL)")
    for step in MIGRATIONS[:4]:  # an event file of the release before
        for st in _split(step.sql):
            con.execute(st)
        con.execute("INSERT INTO migrations (name, applied_at) VALUES (?, 'x')", (step.name,))
    deck = _deck(demo_db)
    con.execute("INSERT INTO event (id, name, date, created_at) VALUES (1, 'x', '2026-07-12', 'x')")
    con.execute("INSERT INTO players (konami_id, name, created_at) VALUES ('0000000001', 'a', 'x')")
    con.execute("INSERT INTO registrations (id, konami_id, version, file_sha256, reader, "
                "decklist_json, legal, needs_review, infractions_json, created_at) VALUES "
                "(1, '0000000001', 1, 'ab', 'text', ?, 0, 1, '[]', 'x')",
                (json.dumps(deck.to_json()),))
    con.execute("INSERT INTO review_decisions (registration_id, section, line, read, action, "
                "judge, created_at) VALUES (1, 'main', 1, 'r', 'keep', 'j', 'x')")
    con.commit()
    with pytest.raises(sqlite3.IntegrityError):  # the old CHECK refuses the new action
        con.execute("INSERT INTO review_decisions (registration_id, section, line, read, action, "
                    "judge, created_at) VALUES (1, 'main', 2, 'r', 'remove', 'j', 'x')")
    con.close()
    with open_event(path) as store:
        assert [m.name for m in MIGRATIONS] == [r[0] for r in store.backend.con.execute(
            "SELECT name FROM migrations ORDER BY id")]
        d = decision_for(deck, 1, "main", 2, "remove", judge="박저지", db=demo_db)
        store.add_decisions([d], "박저지")
        got = store.decisions(1)
        assert [x.action for x in got] == ["keep", "remove"] and got[1].after["removed"] is True
        with pytest.raises(sqlite3.DatabaseError):
            store.backend.con.execute("UPDATE review_decisions SET action = 'keep'")
        with pytest.raises(sqlite3.DatabaseError):
            store.backend.con.execute("DELETE FROM review_decisions")
        with pytest.raises(sqlite3.DatabaseError):
            store.backend.con.execute("INSERT INTO review_decisions (registration_id, section, "
                                      "line, read, action, created_at) VALUES "
                                      "(1, 'main', 1, 'r', 'erase', 'x')")


def test_a_total_item_answered_once_stays_answered_when_a_count_changes(demo_db):
    deck = _deck(demo_db, printed_main=5)
    deck.review = [ReviewFlag("main", Reason.TOTAL_MISMATCH, "printed total 5 ≠ sum of lines 6")]
    keep_total = decision_for(deck, 1, "main", None, "keep", db=demo_db,
                              reason=Reason.TOTAL_MISMATCH)
    out = apply_decisions(deck, [keep_total], demo_db)
    assert not [r for r in out.review if r.reason == Reason.TOTAL_MISMATCH]
    # A count fixed afterwards: the sum is now 7, the printed 5; the judge's answer holds.
    line3 = deck.sections["main"][2]
    fix = ReviewDecision(1, "main", 3, line3.read, "choose", line3.card_id, 3)
    out = apply_decisions(deck, [keep_total, fix], demo_db)
    assert out.totals()["main"] == 7
    assert not [r for r in out.review if r.reason == Reason.TOTAL_MISMATCH]
    # Without that answer the item is re-derived from the list as it stands now.
    out = apply_decisions(deck, [fix], demo_db)
    assert [r.detail for r in out.review if r.reason == Reason.TOTAL_MISMATCH] == \
        ["printed total 5 ≠ sum of lines 7"]


def test_an_unconfirmed_count_is_never_a_breach(demo_db):
    """A count the reader flags (misread as 9) gives 확인 필요, never 부적합 for 9 copies; once
    the judge confirms the count, the list is judged on it."""
    a, b, c = _cards(demo_db, 3)
    deck = Decklist()
    deck.sections["main"] = [Entry(a.card_id, a.name, 9, 0.3, True, f"{a.name} 9",
                                   reasons=[Reason.COUNT_UNCLEAR])]
    deck.sections["main"] += [Entry(x.card_id, x.name, 3, 1.0, False, f"{x.name} 3")
                              for x in _cards(demo_db, 16)[1:]]
    limits = LimitList(name="2026.7", limits={})
    result = check_decklist(deck, limits, demo_db)
    assert result.codes() == {"UNRESOLVED_LINE"} and result.verdict == "확인 필요"
    # Also a hand-written line whose card is sure: its copies wait for the judge.
    hand = Decklist()
    hand.sections["main"] = [Entry(a.card_id, a.name, 3, 0.5, True, f"{a.name} 3",
                                   reasons=[Reason.HANDWRITTEN]),
                             Entry(a.card_id, a.name, 2, 1.0, False, f"{a.name} 2")]
    hand.sections["main"] += [Entry(x.card_id, x.name, 3, 1.0, False, f"{x.name} 3")
                              for x in _cards(demo_db, 14)[1:]]
    assert check_decklist(hand, limits, demo_db).codes() == {"UNRESOLVED_LINE"}
    keep = ReviewDecision(1, "main", 1, hand.sections["main"][0].read, "keep")
    confirmed = apply_decisions(hand, [keep], demo_db)
    assert "TOO_MANY_COPIES" in check_decklist(confirmed, limits, demo_db).codes()
    fixed = apply_decisions(deck, [ReviewDecision(1, "main", 1, deck.sections["main"][0].read,
                                                  "choose", a.card_id, 3)], demo_db)
    assert check_decklist(fixed, limits, demo_db).codes() == set()


def _missing_deck(db, printed: int | None) -> Decklist:
    deck = _deck(db, printed_main=printed)
    deck.sections["main"][1].needs_review = False
    deck.review = [ReviewFlag("main", Reason.UNREADABLE_LINE,
                              "trap table not found on the page: its lines were not read")]
    return deck


def test_a_table_not_found_closes_only_with_its_lines_entered(demo_db):
    deck = _missing_deck(demo_db, printed=12)
    flag = deck.review[0]
    with pytest.raises(EventError) as err:
        decision_for(deck, 1, "main", None, "keep", db=demo_db, reason=flag.reason)
    assert err.value.code == "review.enter-lines-first"
    traps = _cards(demo_db, 6)[4:]
    entered = [decision_for(deck, 1, "main", None, "choose", t.card_id, n, db=demo_db,
                            reason=flag.reason, detail=flag.detail, entry=i)
               for i, (t, n) in enumerate(zip(traps, (3, 3)), 1)]
    assert entered[0].read != entered[1].read and entered[1].after["entry"] == 2
    with pytest.raises(EventError):  # a line entered needs its number
        decision_for(deck, 1, "main", None, "choose", traps[0].card_id, 1, db=demo_db,
                     reason=flag.reason)
    # Meanwhile the list is short (6 cards read) but not 부적합 for it: its size is not known.
    codes = check_decklist(deck, LimitList(name="x", limits={}), demo_db).codes()
    assert codes == {"UNRESOLVED_LINE"}
    out = apply_decisions(deck, entered, demo_db)
    assert out.review == [] and out.totals()["main"] == 12
    assert [e.card_id for e in out.sections["main"][3:]] == [t.card_id for t in traps]
    assert flagged_items(out) == []
    # One entered line corrected later: the latest answer for its number wins.
    again = decision_for(deck, 1, "main", None, "choose", traps[0].card_id, 2, db=demo_db,
                         reason=flag.reason, detail=flag.detail, entry=1)
    assert apply_decisions(deck, entered + [again], demo_db).totals()["main"] == 11


def test_a_table_not_found_closes_as_checked_when_the_printed_total_says_it_is_empty(demo_db):
    deck = _missing_deck(demo_db, printed=6)  # 3 + 1 + 2: the lines read are the whole deck
    d = decision_for(deck, 1, "main", None, "keep", db=demo_db, reason=Reason.UNREADABLE_LINE)
    assert apply_decisions(deck, [d], demo_db).review == []


@pytest.fixture
def cli_event(demo_db, tmp_path, monkeypatch):
    lflist = tmp_path / "lflist.conf"
    lflist.write_text("#[2026.7]\n!2026.7\n", encoding="utf-8")
    monkeypatch.setenv("DECKSHEET_CARD_DB", str(demo_db.path))
    monkeypatch.setenv("DECKSHEET_LFLIST", str(lflist))
    monkeypatch.delenv("DECKSHEET_LIST", raising=False)
    event = tmp_path / "event.db"
    monkeypatch.setenv("DECKSHEET_EVENT", str(event))
    assert CliRunner().invoke(main, ["event", "init", str(event), "--name", "리뷰", "--date",
                                     "2026-07-12"]).exit_code == 0
    return event


def test_decksheet_review_removes_a_line_with_x(cli_event, demo_db, tmp_path):
    """The CLI walk and the station store the same decision (`remove`) through one library call."""
    cards = _cards(demo_db, 14)
    text = "\n".join(f"3 {c.name}" for c in cards[:13]) + "\n1 가나다라마바사아자차\n"
    deck_file = tmp_path / "list.txt"
    deck_file.write_text(f"메인 덱\n{text}", encoding="utf-8")
    r = CliRunner().invoke(main, ["register", str(deck_file), "--player", "0000000009", "--json"])
    assert json.loads(r.stdout)["needs_review"] >= 1
    with open_event(cli_event) as store:
        items = flagged_items(decklist_from_json(store.latest_registration("0000000009")
                                                 .decklist_json))
    assert [(s, n) for s, n, _, _ in items] == [("main", 14)]
    r = CliRunner().invoke(main, ["review", "--player", "0000000009", "--judge", "박저지"],
                           input="x\n")
    assert r.exit_code == 0, r.output
    assert "x = 이 줄은 덱에 없음" in r.output
    with open_event(cli_event) as store:
        reg = store.latest_registration("0000000009")
        decisions = store.decisions(reg.id)
        assert [(d.action, d.line, d.judge) for d in decisions] == [("remove", 14, "박저지")]
        out = apply_decisions(decklist_from_json(reg.decklist_json), decisions, demo_db)
    assert len(out.sections["main"]) == 13 and out.totals()["main"] == 39


def test_the_review_list_puts_doubtful_lines_first():
    """One function orders the list: the reader's own `doubt` when the scan JSON gives one,
    else its confidence and reasons; a card read on two lines of a section is doubtful."""
    from types import SimpleNamespace

    from scanner.web.glance import glance_order, line_doubt, repeated_cards

    sure = {"card_id": 1, "count": 2, "confidence": 0.45, "reasons": ["uncertain-name"]}
    assert line_doubt(sure) == (0.55, False)
    assert line_doubt(dict(sure, reasons=["count-unclear"]))[1]
    assert line_doubt(dict(sure, confidence=0.1))[1]
    assert line_doubt(dict(sure, count=9))[1] and line_doubt(dict(sure, card_id=None))[1]
    assert line_doubt(dict(sure, doubt=0.7)) == (0.7, True)  # the reader's own word wins
    assert line_doubt(dict(sure, reasons=["count-unclear"], doubt=0.1)) == (0.1, False)
    assert line_doubt(sure, repeated=True)[1]
    sections = {"main": [{"card_id": 5}, {"card_id": 6}, {"card_id": 5}], "side": [{"card_id": 6}]}
    assert repeated_cards(sections) == {("main", 5)}
    lines = [SimpleNamespace(section=s, line=n, doubt=d, doubtful=f) for s, n, d, f in
             [("main", 1, 0.3, False), ("side", 2, 0.5, True), ("main", 9, 0.9, True),
              ("main", 4, 0.6, False)]]
    assert [(x.section, x.line) for x in glance_order(lines)] == \
        [("main", 9), ("side", 2), ("main", 4), ("main", 1)]


def test_the_readers_certainty_orders_and_marks_hand_lines():
    """The OCR reader's `certainty` (hand-written lines) decides doubt when no `doubt` is given:
    below `CERTAIN` a line is doubtful (listed first, not ticked)."""
    from scanner.web.glance import CERTAIN, line_doubt

    base = {"card_id": 14558127, "count": 2, "confidence": 0.1, "reasons": ["handwritten"]}
    unsure = line_doubt({**base, "certainty": CERTAIN - 0.05})
    sure = line_doubt({**base, "certainty": 0.97})
    assert unsure[1] and not sure[1] and unsure[0] > sure[0]
    assert line_doubt({**base, "certainty": 0.99, "card_id": None})[1]  # no card: always look
