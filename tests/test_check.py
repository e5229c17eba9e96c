"""decksheet check: every code on real decks (one violation injected), the fixtures, the CLI."""
from __future__ import annotations

import copy
import datetime as dt
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from card_db.cdb import load_card_db
from card_db.lflist import EXTRA_BANS, choose_list, load_lflist, parse_lflist
from scanner.rules.check import check_decklist
from scanner.cli import main
from scanner.model import Decklist, Entry
from scanner.read import load_decklist

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "decks"


def entry(card_id: int | None, name: str, count: int, reasons: list[str] | None = None) -> Entry:
    return Entry(card_id=card_id, name=name, count=count, confidence=1.0 if not reasons else 0.4,
                 needs_review=bool(reasons), read=f"{name} {count}", reasons=list(reasons or []))


def codes_and_ids(result) -> tuple[set[str], set[int]]:
    return {i.code for i in result.infractions}, {c for i in result.infractions for c in i.card_ids}


# ---------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def limits(real_db, real_lflist_path):
    return choose_list(load_lflist(real_lflist_path), "2026.7", original_id=real_db.original_id)


@pytest.fixture()
def legal_deck(real_db) -> Decklist:
    """The project's own legal sample deck (40 / 6 / 6), resolved with the real database."""
    return load_decklist(SAMPLES / "legal.ydk", real_db)


def test_sample_and_real_legal_decks_pass(legal_deck, real_db, limits, fixtures_dir):
    result = check_decklist(legal_deck, limits, real_db)
    assert result.legal and result.infractions == [] and result.list_name == "2026.7"
    assert legal_deck.totals() == {"main": 40, "extra": 6, "side": 6}
    for name in ("L001-unchanged.ydk", "L002-unchanged.ydk"):
        assert check_decklist(load_decklist(fixtures_dir / "legality" / name, real_db), limits,
                              real_db).legal


def _find(deck: Decklist, section: str, card_id: int) -> Entry:
    return next(e for e in deck.sections[section] if e.card_id == card_id)


def _a_free_card(db, limits, deck: Decklist, extra: bool = False):
    """A usable card with no limit that the deck does not use (main-deck or extra-deck kind)."""
    used = deck.all_counts()
    for card in db.cards.values():
        if (card.ocg_usable and card.is_extra_deck == extra and card.card_id not in used
                and limits.allowed(card.card_id) == 3 and not card.alternates):
            return card
    raise AssertionError("no free card")


def _status_card(db, limits, deck: Decklist, allowed: int):
    for cid, n in sorted(limits.limits.items()):
        card = db.get(cid)
        if (n == allowed and card and card.ocg_usable and not card.is_extra_deck
                and cid not in EXTRA_BANS and cid not in deck.all_counts()):
            return card
    raise AssertionError(f"no card with status {allowed}")


def injections(db, limits, deck: Decklist) -> dict[str, tuple[Decklist, set[int]]]:
    """One violation each, on a copy of a legal deck: code → (deck, expected card_ids)."""
    out: dict[str, tuple[Decklist, set[int]]] = {}

    def variant(code: str, ids: set[int], change) -> None:
        d = copy.deepcopy(deck)
        change(d)
        out[code] = (d, ids)

    three = next(e for e in deck.sections["main"] if e.count == 3)
    free, free_extra = _a_free_card(db, limits, deck), _a_free_card(db, limits, deck, extra=True)
    forbidden, limited = _status_card(db, limits, deck, 0), _status_card(db, limits, deck, 1)
    tcg_only = next(c for c in db.cards.values() if not c.ot & 1)
    extra_one = deck.sections["extra"][0]

    variant("MAIN_TOO_SMALL", set(), lambda d: setattr(d.sections["main"][0], "count",
                                                       d.sections["main"][0].count - 1))
    variant("MAIN_TOO_LARGE", set(), lambda d: d.sections["main"].extend(
        entry(c.card_id, c.name, 3) for c in _free_cards(db, limits, deck, 7)))
    variant("EXTRA_TOO_LARGE", set(), lambda d: d.sections["extra"].extend(
        entry(c.card_id, c.name, 1) for c in _free_cards(db, limits, deck, 10, extra=True)))
    variant("SIDE_TOO_LARGE", set(), lambda d: d.sections["side"].extend(
        entry(c.card_id, c.name, 2) for c in _free_cards(db, limits, deck, 5)))
    variant("TOO_MANY_COPIES", {three.card_id},
            lambda d: d.sections["side"].append(entry(three.card_id, three.name, 1)))
    variant("FORBIDDEN_CARD", {forbidden.card_id}, lambda d: _swap_in(d, forbidden, 1))
    variant("OVER_LIMIT", {limited.card_id}, lambda d: _swap_in(d, limited, 2))
    variant("NOT_EXTRA_DECK_CARD", {free.card_id}, lambda d: (
        setattr(_find(d, "extra", extra_one.card_id), "count", extra_one.count - 1)
        if extra_one.count > 1 else d.sections["extra"].remove(_find(d, "extra", extra_one.card_id)),
        d.sections["extra"].append(entry(free.card_id, free.name, 1))))
    variant("EXTRA_DECK_CARD_IN_MAIN", {free_extra.card_id},
            lambda d: _swap_in(d, free_extra, 1))
    variant("UNUSABLE_CARD", {tcg_only.card_id}, lambda d: _swap_in(d, tcg_only, 1))
    variant("UNRESOLVED_LINE", set(), lambda d: setattr(
        d.sections["main"][0], "reasons", ["count-unclear"]) or setattr(
        d.sections["main"][0], "needs_review", True))
    return out


def _free_cards(db, limits, deck, n, extra=False):
    used = deck.all_counts()
    cards = [c for c in db.cards.values() if c.ocg_usable and c.is_extra_deck == extra
             and c.card_id not in used and limits.allowed(c.card_id) == 3]
    return cards[:n]


def _swap_in(d: Decklist, card, count: int) -> None:
    """Put `count` copies of `card` in the main deck in place of as many other cards."""
    left = count
    for e in d.sections["main"]:
        take = min(left, e.count - 1)
        e.count -= take
        left -= take
        if not left:
            break
    d.sections["main"].append(entry(card.card_id, card.name, count))


def test_every_code_on_a_real_deck_with_one_violation(legal_deck, real_db, limits):
    cases = injections(real_db, limits, legal_deck)
    assert len(cases) == 11
    for code, (deck, ids) in cases.items():
        result = check_decklist(deck, limits, real_db)
        got_codes, got_ids = codes_and_ids(result)
        assert not result.legal, code
        assert got_codes == {code}, (code, [i.message for i in result.infractions])
        if code != "UNRESOLVED_LINE":
            assert got_ids == ids, code
        for inf in result.infractions:
            assert inf.message and inf.remedy and inf.rule
            assert inf.penalty == ("NONE" if code == "UNRESOLVED_LINE" else "GAME_LOSS")


def test_all_problems_are_reported_not_the_first(real_db, limits):
    deck = load_decklist(SAMPLES / "illegal.txt", real_db)
    got_codes, got_ids = codes_and_ids(check_decklist(deck, limits, real_db))
    assert got_codes == {"MAIN_TOO_SMALL", "FORBIDDEN_CARD", "TOO_MANY_COPIES",
                         "NOT_EXTRA_DECK_CARD"}
    # 무덤의 지명자 (forbidden), 자폭 스위치 (extra ban), 이펙트 뵐러 ×4, 천옥의 왕 in the extra deck
    assert got_ids == {24224830, 57585212, 97268402, 9822220}


def test_one_count_code_per_card_and_extra_bans(legal_deck, real_db, real_lflist_path, limits):
    forbidden = _status_card(real_db, limits, legal_deck, 0)
    d = copy.deepcopy(legal_deck)
    d.sections["side"].append(entry(forbidden.card_id, forbidden.name, 3))
    d.sections["main"].append(entry(forbidden.card_id, forbidden.name, 2))
    d.sections["side"].append(entry(57585212, "자폭 스위치", 1))
    result = check_decklist(d, limits, real_db)
    assert [i.code for i in result.infractions if i.card_ids == [forbidden.card_id]] == ["FORBIDDEN_CARD"]
    ban = next(i for i in result.infractions if i.card_ids == [57585212])
    assert ban.code == "FORBIDDEN_CARD" and "추가 금지 카드" in ban.rule
    no_bans = choose_list(load_lflist(real_lflist_path), "2026.7", extra_bans=False,
                          original_id=real_db.original_id)
    assert 57585212 not in {c for i in check_decklist(d, no_bans, real_db).infractions
                            for c in i.card_ids}


def test_alternate_artworks_count_as_their_original(legal_deck, real_db, limits):
    alt, original = next((a, o) for a, o in sorted(real_db.aliases.items())
                         if limits.allowed(o) == 3 and not real_db.cards[o].is_extra_deck)
    card = real_db.cards[original]
    d = copy.deepcopy(legal_deck)
    d.sections["side"] += [entry(original, card.name, 2), entry(alt, card.name, 2)]
    result = check_decklist(d, limits, real_db)
    assert codes_and_ids(result) == ({"TOO_MANY_COPIES"}, {original})


def test_unknown_passcode_and_unresolved_lines(legal_deck, real_db, limits):
    d = copy.deepcopy(legal_deck)
    d.sections["side"].append(entry(99999999, "", 1, ["unknown-passcode"]))
    d.sections["side"].append(entry(None, "하루 우라러?", 1, ["unresolved-name"]))
    result = check_decklist(d, limits, real_db)
    by_code = {i.code: i for i in result.infractions}
    # An unknown passcode is a review item (the database may be older than the card): no
    # penalty until a judge decides; never UNUSABLE_CARD with a game loss.
    assert set(by_code) == {"UNKNOWN_CARD", "UNRESOLVED_LINE"}
    assert by_code["UNKNOWN_CARD"].card_ids == [99999999]
    assert by_code["UNKNOWN_CARD"].penalty == "NONE"
    assert result.verdict == "확인 필요" and not result.legal
    assert "하루 우라러?" in by_code["UNRESOLVED_LINE"].message


def test_fixture_cases_exact(fixtures_dir, real_db, limits):
    truths = sorted((fixtures_dir / "legality").glob("*.truth.json"))
    assert truths
    for t in truths:
        truth = json.loads(t.read_text(encoding="utf-8"))
        result = check_decklist(load_decklist(t.parent / truth["file"], real_db), limits, real_db)
        assert result.legal == truth["legal"], t.name
        assert codes_and_ids(result) == (set(truth["codes"]), set(truth["card_ids"])), t.name


def run_cli(*args: str):
    return CliRunner().invoke(main, list(map(str, args)))


def test_fixture_cases_through_the_cli(fixtures_dir, real_db_path, real_lflist_path):
    for t in sorted((fixtures_dir / "legality").glob("*.truth.json")):
        truth = json.loads(t.read_text(encoding="utf-8"))
        res = run_cli("check", t.parent / truth["file"], "--json", "--card-db", real_db_path,
                      "--lflist", real_lflist_path, "--list", "2026.7")
        assert res.exit_code == (0 if truth["legal"] else 1), (t.name, res.output)
        out = json.loads(res.stdout)
        assert out["legal"] == truth["legal"] and out["list"] == "2026.7"
        assert {i["code"] for i in out["infractions"]} == set(truth["codes"]), t.name
        assert {c for i in out["infractions"] for c in i["card_ids"]} == set(truth["card_ids"])


def test_cli_human_output_and_bad_input(tmp_path, real_db_path, real_lflist_path):
    common = ["--card-db", real_db_path, "--lflist", real_lflist_path, "--list", "2026.7"]
    res = run_cli("check", SAMPLES / "illegal.txt", *common)
    assert res.exit_code == 1
    assert "부적합" in res.stdout and "[FORBIDDEN_CARD]" in res.stdout and "듀얼의 패배" in res.stdout
    bad = tmp_path / "garbage.pdf"
    bad.write_bytes(b"%PDF-1.4 broken")
    for path in (bad, tmp_path / "missing.ydk"):
        res = run_cli("check", path, *common)
        assert res.exit_code == 2 and "Traceback" not in res.output
        assert res.stderr.count("\n") == 1


def test_list_chosen_by_date(tmp_path, real_db, real_db_path, real_lflist_path, fixtures_dir):
    """A card legal in 2024 and forbidden in 2026.7: the same deck is legal by one date only."""
    lf = load_lflist(real_lflist_path)
    old = choose_list(lf, date=dt.date(2024, 6, 1), original_id=real_db.original_id)
    new = choose_list(lf, date=dt.date(2026, 8, 1), original_id=real_db.original_id)
    assert (old.name, new.name) == ("2024.4", "2026.7")
    base = load_decklist(fixtures_dir / "legality" / "L002-unchanged.ydk", real_db)
    changed = next(c for cid, n in sorted(new.limits.items()) if n == 0 and old.allowed(cid) == 3
                   and cid not in EXTRA_BANS and (c := real_db.get(cid)) and c.ocg_usable
                   and not c.is_extra_deck and cid not in base.all_counts())
    passcodes = [e.card_id for e in base.sections["main"] for _ in range(e.count)]
    ydk = tmp_path / "deck.ydk"
    ydk.write_text("#main\n" + "\n".join(map(str, passcodes[1:] + [changed.card_id])) + "\n#extra\n!side\n")
    common = ["--json", "--card-db", real_db_path, "--lflist", real_lflist_path]
    old_run = run_cli("check", ydk, "--date", "2024-06-01", *common)
    assert old_run.exit_code == 0, old_run.output
    assert json.loads(old_run.stdout)["list"] == "2024.4"
    new_run = run_cli("check", ydk, "--date", "2026-08-01", *common)
    assert new_run.exit_code == 1
    out = json.loads(new_run.stdout)
    assert [(i["code"], i["card_ids"]) for i in out["infractions"]] == [("FORBIDDEN_CARD",
                                                                         [changed.card_id])]


# ---------------------------------------------------------------- own data only (no ../shared)

@pytest.fixture()
def tiny_db(tmp_path):
    """A ygopro-schema cdb written here: 16 plain monsters, a fusion, a token, a TCG-only card
    and an alternate artwork, so the checker is tested without the shared card data."""
    rows = [(1000 + i * 100, 3, 0, 0x21, f"시험 몬스터 {i}") for i in range(16)]
    rows += [(50000, 3, 0, 0x41, "시험 융합"), (60000, 3, 0, 0x4011, "시험 토큰"),
             (70000, 2, 0, 0x21, "TCG 전용 카드"), (1001, 3, 1000, 0x21, "시험 몬스터 0")]
    path = tmp_path / "tiny.cdb"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE datas(id, ot, alias, setcode, type, atk, def, level, race, attribute, category)")
    con.execute("CREATE TABLE texts(id, name, desc)")
    for cid, ot, alias, type_bits, name in rows:
        con.execute("INSERT INTO datas VALUES (?,?,?,0,?,0,0,0,0,0,0)", (cid, ot, alias, type_bits))
        con.execute("INSERT INTO texts VALUES (?,?,'')", (cid, name))
    con.commit()
    con.close()
    return load_card_db(path, use_cache=False)


def test_checker_on_a_self_made_database(tiny_db):
    limits = choose_list(parse_lflist("!2026.7\n1100 0\n1200 1\n"), original_id=tiny_db.original_id)
    main = [entry(1000 + i * 100, f"시험 몬스터 {i}", 3) for i in range(3, 16)] + [entry(1001, "시험 몬스터 0", 1)]
    deck = Decklist(sections={"main": main, "extra": [entry(50000, "시험 융합", 1)], "side": []})
    assert deck.totals()["main"] == 40 and check_decklist(deck, limits, tiny_db).legal
    deck.sections["side"] = [entry(1000, "시험 몬스터 0", 3), entry(1100, "시험 몬스터 1", 1),
                             entry(1200, "시험 몬스터 2", 2), entry(60000, "시험 토큰", 1),
                             entry(70000, "TCG 전용 카드", 1)]
    deck.sections["main"].append(entry(50000, "시험 융합", 1))
    result = check_decklist(deck, limits, tiny_db)
    got = {(i.code, tuple(i.card_ids)) for i in result.infractions}
    assert got == {("TOO_MANY_COPIES", (1000,)),  # 1 alternate artwork + 3 originals
                   ("FORBIDDEN_CARD", (1100,)), ("OVER_LIMIT", (1200,)),
                   ("UNUSABLE_CARD", (60000,)), ("UNUSABLE_CARD", (70000,)),
                   ("EXTRA_DECK_CARD_IN_MAIN", (50000,))}
    assert result.to_json()["legal"] is False and result.to_json()["list"] == "2026.7"


def test_sample_decks_on_the_shipped_demo_database(demo_db):
    """The demo (`make demo`) path: shipped demo db and list, no ../shared needed."""
    demo_list = Path(__file__).resolve().parent.parent / "card_db" / "data" / "demo-lflist.conf"
    limits = choose_list(load_lflist(demo_list), original_id=demo_db.original_id)
    legal = check_decklist(load_decklist(SAMPLES / "legal.ydk", demo_db), limits, demo_db)
    assert legal.legal, [i.message for i in legal.infractions]
    illegal = check_decklist(load_decklist(SAMPLES / "illegal.txt", demo_db), limits, demo_db)
    assert codes_and_ids(illegal) == ({"MAIN_TOO_SMALL", "FORBIDDEN_CARD", "TOO_MANY_COPIES",
                                       "NOT_EXTRA_DECK_CARD"}, {24224830, 57585212, 97268402, 9822220})
