"""A small event end to end on the shared fixtures: registrations from PDFs, a photo, ydk/JSON lists, a deck check with a mismatch, a resubmission, review
decisions, and an audit whose report names exactly the planted problems."""
from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from scanner.event.audit import run_audit
from scanner.cli import main
from scanner.event.stores import create_event
from scanner.event.records import ReviewDecision
from scanner.event.context import EventContext
from scanner.event.flows import decklist_from_json, event_limits, register_input
from scanner.model import SECTIONS, Decklist, Entry
from scanner.event.audit_report import mask_id


YDK_HEADERS = {"#main": "main", "#extra": "extra", "!side": "side"}


def _ydk_counts(path: Path) -> dict[str, dict[int, int]]:
    section, out = "main", {s: defaultdict(int) for s in SECTIONS}
    for line in path.read_text(encoding="utf-8").splitlines():
        low = line.strip().lower()
        header = next((v for k, v in YDK_HEADERS.items() if low.startswith(k)), None)
        if header:
            section = header
        elif low.isdigit():
            out[section][int(low)] += 1
    return out


def truth_counts(path: Path) -> dict[str, dict[int, int]]:
    """What the input really holds, from the fixture's own truth (not from decksheet)."""
    if path.suffix == ".ydk":
        return _ydk_counts(path)
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))["sections"]
        return {s: {int(e["card_id"]): int(e["count"]) for e in data.get(s, [])} for s in SECTIONS}
    truth = json.loads(path.with_name(path.stem + ".truth.json").read_text(encoding="utf-8"))
    return {s: {int(k): int(v) for k, v in truth[s].items()} for s in SECTIONS}


def signature(counts: dict[str, dict[int, int]], db) -> tuple:
    per: dict[tuple[str, str], int] = defaultdict(int)
    for s in SECTIONS:
        for cid, n in counts[s].items():
            per[(s, str(db.original_id(cid) or cid))] += n
    return tuple(sorted(per.items()))


def truth_decklist(counts: dict[str, dict[int, int]], db) -> Decklist:
    deck = Decklist()
    for s in SECTIONS:
        for cid, n in counts[s].items():
            card = db.get(cid)
            deck.sections[s].append(Entry(card_id=cid, name=card.name if card else "", count=n,
                                          confidence=1.0, needs_review=False, read=str(cid)))
    return deck


@pytest.mark.slow  # many OCR pages: ~10 s
def test_event_end_to_end_on_fixtures(fixtures_dir, real_db, real_db_path, real_lflist_path,
                                      tmp_path, monkeypatch):
    from scanner.rules.check import check_decklist

    sheets, legality, compare = (fixtures_dir / "sheets", fixtures_dir / "legality",
                                 fixtures_dir / "compare")
    path = tmp_path / "event.db"
    store = create_event(path, "공인 대회", dt.date(2026, 7, 12))
    limits = event_limits(store.event(), real_db, real_lflist_path)
    assert limits.name == "2026.7"

    inputs: dict[str, Path] = {}
    pdfs = sorted(sheets.glob("db-ko-*.pdf")) + sorted(sheets.glob("kde-form-*.pdf")) \
        + sorted(sheets.glob("kde-flat-*.pdf"))
    for i, pdf in enumerate(pdfs, 1):
        inputs[f"10000000{i:02d}"] = pdf
    lists = sorted(legality.glob("L*.ydk")) + sorted(legality.glob("L*.json"))
    lists = [p for p in lists if not p.name.endswith(".truth.json")]
    for i, f in enumerate(lists, 1):
        inputs[f"20000000{i:02d}"] = f
    inputs["4000000001"] = legality / "L001-unchanged.ydk"  # planted duplicate of a player
    inputs["5000000001"] = compare / "C002-missing_main-start" / "registered.ydk"
    inputs["5000000002"] = compare / "C005-side_swap_legal-between" / "registered.ydk"
    inputs["3000000001"] = sheets / "photo-01.jpg"
    assert len(inputs) >= 20

    # Planted flagged lines: a typed list with a garbled name, twice; one gets a decision.
    first_sheet = json.loads((sheets / "db-ko-01.truth.json").read_text(encoding="utf-8"))
    lines = [(s, real_db.get(int(k)), v) for s in SECTIONS for k, v in first_sheet[s].items()]
    garbled_ids = []
    for n, kid in enumerate(("7000000001", "7000000002")):
        text = ["메인 덱"]
        for j, (s, card, count) in enumerate(x for x in lines if x[0] == "main"):
            name = card.name if j else "ㅁㄴㅇ" + card.name[::-1] + "쀍"
            text.append(f"{count} {name}")
        for s, title in (("extra", "엑스트라 덱"), ("side", "사이드 덱")):
            text.append(title)
            text += [f"{count} {card.name}" for s2, card, count in lines if s2 == s]
        f = tmp_path / f"typed-{n}.txt"
        f.write_text("\n".join(text) + "\n", encoding="utf-8")
        inputs[kid] = f
        garbled_ids.append(kid)

    registered = {}
    for kid, f in inputs.items():
        # 4000000001 hands in 2000000001's very file, the two typed lists are one text:
        # refused unless meant (issue 13, 7).
        registered[kid] = register_input(EventContext(store, real_db, limits), str(f), kid,
                                         allow_duplicate=kid in ("4000000001", "7000000002"))
    for kid in garbled_ids:
        assert registered[kid].registration.needs_review >= 1

    # The judge settles the first typed list: every flagged line is the card the sheet has
    # (lines were written in truth order, so line i of a section is truth card i).
    reg = store.latest_registration("7000000001")
    deck = decklist_from_json(reg.decklist_json)
    assert deck.sections["main"][0].needs_review
    decisions = []
    for s in SECTIONS:
        truth_cards = [card for s2, card, _ in lines if s2 == s]
        for i, e in enumerate(deck.sections[s], 1):
            if e.needs_review:
                decisions.append(ReviewDecision(reg.id, s, i, e.read, "choose",
                                                truth_cards[i - 1].card_id, e.count, "심판"))
    store.add_decisions(decisions, "심판")
    true_card = next(card for s, card, _ in lines if s == "main")

    # Resubmission: an illegal list replaced by a legal one becomes version 2.
    resub = "6000000001"
    v1 = register_input(EventContext(store, real_db, limits),
                        str(legality / "L008-forbidden.ydk"), resub,
                        allow_duplicate=True)
    v2 = register_input(EventContext(store, real_db, limits),
                        str(legality / "L002-unchanged.ydk"), resub,
                        allow_duplicate=True)
    assert (v1.registration.version, v1.legal) == (1, False)
    assert (v2.registration.version, v2.legal) == (2, True)
    inputs[resub] = legality / "L002-unchanged.ydk"
    store.close()

    # Deck checks through the CLI: a mismatch (game loss recorded) and two clean checks.
    env = {"DECKSHEET_CARD_DB": str(real_db_path), "DECKSHEET_LFLIST": str(real_lflist_path),
           "DECKSHEET_EVENT": str(path)}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("DECKSHEET_LIST", raising=False)
    runner = CliRunner()
    r = runner.invoke(main, ["deckcheck", str(compare / "C002-missing_main-start" / "observed.ydk"),
                             "--player", "5000000001", "--round", "2", "--judge", "김", "--json"])
    assert r.exit_code == 1, r.output
    mismatch = json.loads(r.stdout)
    assert mismatch["match"] is False
    assert mismatch["infractions"][0]["code"] == "DECKLIST_MISMATCH"
    assert mismatch["infractions"][0]["penalty"] == "GAME_LOSS"
    r = runner.invoke(main, ["deckcheck", str(compare / "C005-side_swap_legal-between" / "observed.ydk"),
                             "--player", "5000000002", "--round", "3", "--between-games", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["match"] is True, r.output
    r = runner.invoke(main, ["deckcheck", str(legality / "L001-unchanged.ydk"),
                             "--player", "4000000001", "--round", "3", "--json"])
    assert r.exit_code == 0, r.output

    out = tmp_path / "audit"
    r = runner.invoke(main, ["audit", "--out", str(out), "--json"])
    assert r.exit_code == 1, r.output
    audit = json.loads(r.stdout)

    # Expected from the fixtures' truth, never from decksheet's own reads.
    assert audit["registrations"] == len(inputs)
    assert audit["versions"] == len(inputs) + 1
    # One act, one penalty: the mismatch check recorded one infraction with its findings.
    assert (audit["deck_checks"], audit["infractions"]) == (3, 1)
    assert mismatch["recorded"] is True and len(mismatch["recorded_infractions"]) == 1
    flagged = set(audit["needs_review"])
    assert "7000000002" in flagged and "7000000001" not in flagged
    # The re-read flags exactly what registration flagged, less what the judge settled.
    flagged_at_registration = {kid for kid, res in registered.items()
                               if res.registration.needs_review and kid != resub}
    assert flagged == flagged_at_registration - {"7000000001"}

    # The typed lists hold db-ko-01's deck (the first one once its line is settled).
    truth_of = dict(inputs, **{kid: sheets / "db-ko-01.pdf" for kid in garbled_ids})
    expected_illegal = set()
    for kid, f in truth_of.items():
        if kid in flagged:
            continue
        truth_legal = check_decklist(truth_decklist(truth_counts(f), real_db), limits, real_db).legal
        if f.parent == legality:
            fixture_truth = json.loads(f.with_name(f.stem + ".truth.json").read_text("utf-8"))
            assert truth_legal == fixture_truth["legal"]
        if not truth_legal:
            expected_illegal.add(kid)
    assert set(audit["illegal"]) - flagged == expected_illegal
    assert {"2000000003", "2000000008", "2000000012"} & expected_illegal  # planted ones
    assert resub not in audit["illegal"]

    by_sig: dict[tuple, list[str]] = defaultdict(list)
    for kid, f in truth_of.items():
        if kid not in flagged:
            by_sig[signature(truth_counts(f), real_db)].append(kid)
    expected_dups = sorted(sorted(g) for g in by_sig.values() if len(g) > 1)
    assert audit["duplicates"] == expected_dups
    assert any({"2000000001", "4000000001"} <= set(g) for g in audit["duplicates"])

    page = (out / "report.html").read_text(encoding="utf-8")
    for kid in inputs:
        assert kid not in page
    assert mask_id("5000000001") in page and "덱 리스트와 덱이 다름" in page  # the code's label
    assert "메타게임" in page and true_card.name in page
    csv = (out / "report.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(csv) == 1 + len(inputs) + 1


@pytest.mark.slow
def test_photo_registration_is_kept_and_reaudited(fixtures_dir, real_db, real_lflist_path, tmp_path):
    store = create_event(tmp_path / "e.db", "사진", dt.date(2026, 7, 12))
    limits = event_limits(store.event(), real_db, real_lflist_path)
    photo = fixtures_dir / "sheets" / "photo-02.jpg"
    res = register_input(EventContext(store, real_db, limits), str(photo), "0123456789")
    assert store.file_path(res.registration.file_sha256).read_bytes() == photo.read_bytes()
    result = run_audit(EventContext(store, real_db, limits), workers=1)
    (audited,) = result.registrations
    assert audited.problems == []  # the re-read gives the same lines as at registration
    assert audited.needs_review == res.registration.needs_review


def test_an_audit_out_of_process_reads_no_sheet_in_the_calling_process(tmp_path, monkeypatch):
    """The station's audit (`in_process=False`, one worker) re-reads sheets in a reader process:
    a reader that crashes there cannot take the server down. The in-process reader is made to
    fail here, so the audit only passes if it did not run in this process."""
    from card_db.cdb import load_card_db
    from conftest import SAMPLES
    from scanner.event import audit as audit_mod

    db = load_card_db(None)
    store = create_event(tmp_path / "e.sqlite", "감사 대회", dt.date(2026, 7, 12))
    limits = event_limits(store.event(), db)
    register_input(EventContext(store, db, limits),
                   str(SAMPLES / "decks" / "registered.ydk"), "1000000001")

    def crash(*_a, **_k):
        raise AssertionError("a sheet was read in the server's process")

    monkeypatch.setattr(audit_mod, "audit_file", crash)
    result = audit_mod.run_audit(EventContext(store, db, limits), workers=1, in_process=False)
    assert [r.konami_id for r in result.registrations] == ["1000000001"]
    with pytest.raises(AssertionError, match="server's process"):
        audit_mod.run_audit(EventContext(store, db, limits), workers=1)
    store.close()


def test_times_are_shown_in_korea_with_the_date():
    """A record made at 23:30 UTC on 2026-07-11 is 2026-07-12 08:30 in Korea: the date and time
    a judge in Seoul expects, in every page and report (the audit showed UTC)."""
    from scanner.report.times import local_time

    assert local_time("2026-07-11T23:30:00+00:00") == "2026-07-12 08:30"
    assert local_time("2026-07-12T08:30:00+09:00") == "2026-07-12 08:30"
    assert local_time("not a time") == "not a time" and local_time(None) == ""
