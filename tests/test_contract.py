"""Acceptance checks: drive `decksheet` strictly through ../shared/CONTRACT.md.

Every command of the contract runs through click's CliRunner on the project's own samples
(demo database); the real card data and fixtures are used where ../shared is present. Each JSON
answer is validated field by field (`assert_*_shape`), and the exit status of each documented
case is checked.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from scanner.cli import main

REPO = Path(__file__).resolve().parent.parent
SHEETS = REPO / "samples" / "sheets"
DECKS = REPO / "samples" / "decks"

SECTIONS = ("main", "extra", "side")
READERS = {"pdf-text", "pdf-form", "ocr", "ydk", "ydke", "text", "json"}
CHECK_CODES = {"MAIN_TOO_SMALL", "MAIN_TOO_LARGE", "EXTRA_TOO_LARGE", "SIDE_TOO_LARGE",
               "TOO_MANY_COPIES", "FORBIDDEN_CARD", "OVER_LIMIT", "NOT_EXTRA_DECK_CARD",
               "EXTRA_DECK_CARD_IN_MAIN", "UNUSABLE_CARD", "UNKNOWN_CARD", "UNRESOLVED_LINE"}
COMPARE_CODES = {"DECKLIST_MISMATCH", "SIDE_SIZE_CHANGED", "SIDE_SWAP_BEFORE_FIRST_DUEL"}
SIZE_CODES = {"MAIN_TOO_SMALL", "MAIN_TOO_LARGE", "EXTRA_TOO_LARGE", "SIDE_TOO_LARGE"}
PENALTIES = {"CAUTION", "WARNING", "GAME_LOSS", "MATCH_LOSS", "DISQUALIFICATION",
             "DISQUALIFICATION_NO_PRIZE"}
# UNRESOLVED_LINE is the tool's own stop sign, not a breach of the rules: it carries "NONE"
# (not one of the contract's six penalties; reported to the lead as an open contract question).
STOP_SIGN_PENALTY = {"UNRESOLVED_LINE": "NONE", "UNKNOWN_CARD": "NONE"}
MODES = {"start-of-match", "between-games"}


# ---------------------------------------------------------------- running the command

def run(*args: str | Path):
    return CliRunner().invoke(main, [str(a) for a in args])


def run_json(*args: str | Path, code: int):
    res = run(*args)
    assert res.exit_code == code, (res.exit_code, res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    return json.loads(res.stdout)


def assert_refused(res) -> None:
    """Exit 2, nothing on stdout, one `decksheet: error:` line (besides the demo-db notice)."""
    assert res.exit_code == 2, (res.exit_code, res.stdout, res.stderr)
    assert res.stdout == "" and "Traceback" not in res.stderr
    lines = [ln for ln in res.stderr.splitlines() if "DEMO card database" not in ln]
    assert len(lines) == 1 and lines[0].startswith("decksheet: error: "), res.stderr


def real_args(real_db_path: Path, real_lflist_path: Path) -> list[str]:
    return ["--card-db", str(real_db_path), "--lflist", str(real_lflist_path)]


# ---------------------------------------------------------------- shape validators

def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def assert_scan_shape(obj: dict, db=None) -> None:
    """One `scan --json` object, field by field."""
    assert obj["schema"] == 1
    src = obj["source"]
    assert isinstance(src["path"], str) and src["path"]
    assert src["reader"] in READERS
    if src["reader"] != "ydke" or not src["path"].startswith("ydke://"):
        assert re.fullmatch(r"[0-9a-f]{64}", src["sha256"]), src["sha256"]
    player = obj["player"]
    assert set(player) >= {"name", "konami_id"}
    for v in (player["name"], player["konami_id"]):
        assert v is None or (isinstance(v, str) and v)
    assert set(obj["sections"]) == set(SECTIONS)
    for s in SECTIONS:
        assert isinstance(obj["sections"][s], list)
        for e in obj["sections"][s]:
            assert e["card_id"] is None or _is_int(e["card_id"])
            assert isinstance(e["name"], str)
            assert _is_int(e["count"])
            assert isinstance(e["confidence"], (int, float)) and 0.0 <= e["confidence"] <= 1.0
            assert isinstance(e["needs_review"], bool)
            assert isinstance(e["read"], str)
            if e["card_id"] is None:
                assert e["needs_review"] is True, e
            elif db is not None and db.get(e["card_id"]) is not None:
                # the passcode of the original printing, never an alternate artwork
                assert db.original_id(e["card_id"]) == e["card_id"], e
    assert set(obj["totals"]) == set(SECTIONS)
    for s in SECTIONS:
        assert obj["totals"][s] == sum(e["count"] for e in obj["sections"][s])
    printed = obj["printed_totals"]
    assert set(printed) >= set(SECTIONS)
    for s in SECTIONS:
        assert printed[s] is None or _is_int(printed[s])
    flagged = set()
    for r in obj["review"]:
        assert r["section"] is None or r["section"] in SECTIONS
        assert r["line"] is None or (_is_int(r["line"]) and r["line"] >= 1)
        if r["line"] is not None:
            assert r["line"] <= len(obj["sections"][r["section"]])
            flagged.add((r["section"], r["line"]))
        assert isinstance(r["reason"], str) and r["reason"]
        assert isinstance(r["detail"], str)
    # Every line that needs review is named by a review item (section + line).
    for s in SECTIONS:
        for i, e in enumerate(obj["sections"][s], 1):
            if e["needs_review"]:
                assert (s, i) in flagged, (s, i, e)


def assert_infraction_shape(inf: dict, codes: set[str]) -> None:
    assert inf["code"] in codes, inf["code"]
    assert inf["penalty"] in PENALTIES or inf["penalty"] == STOP_SIGN_PENALTY.get(inf["code"])
    for key in ("rule", "message", "remedy"):
        assert isinstance(inf[key], str) and inf[key].strip(), (key, inf)
    assert inf["section"] is None or inf["section"] in SECTIONS
    assert isinstance(inf["card_ids"], list) and all(_is_int(c) for c in inf["card_ids"])
    if inf["code"] in SIZE_CODES:
        assert inf["card_ids"] == []


def assert_check_shape(obj: dict, db=None) -> None:
    assert isinstance(obj["legal"], bool)
    assert isinstance(obj["infractions"], list)
    assert obj["legal"] == (not obj["infractions"])
    for inf in obj["infractions"]:
        assert_infraction_shape(inf, CHECK_CODES)
        if db is not None:
            for cid in inf["card_ids"]:
                if db.get(cid) is not None:
                    assert db.original_id(cid) == cid


def assert_compare_shape(obj: dict, mode: str) -> None:
    assert isinstance(obj["match"], bool)
    assert obj["mode"] == mode and obj["mode"] in MODES
    for d in obj["differences"]:
        assert d["section"] in SECTIONS
        assert d["card_id"] is None or _is_int(d["card_id"])
        assert d["name"] is None or isinstance(d["name"], str)
        assert _is_int(d["registered"]) and _is_int(d["observed"])
        assert d["registered"] != d["observed"]
    for inf in obj["infractions"]:
        assert_infraction_shape(inf, COMPARE_CODES | CHECK_CODES)
    if obj["match"]:
        assert not any(i["code"] in COMPARE_CODES for i in obj["infractions"])
    else:
        assert any(i["code"] in COMPARE_CODES | {"UNRESOLVED_LINE"} for i in obj["infractions"])


# ---------------------------------------------------------------- scan

def test_scan_every_sample_sheet_and_deck_one_object_each(clean_env, demo_db):
    inputs = sorted(SHEETS.glob("*.pdf")) + sorted(DECKS.iterdir())
    for path in inputs:
        obj = run_json("scan", path, "--json", code=0)
        assert isinstance(obj, dict)
        assert_scan_shape(obj, demo_db)
        assert obj["source"]["sha256"] is not None


def test_scan_readers_by_content_and_nulls(clean_env, demo_db, tmp_path):
    """The reader is chosen by content: a PDF without a suffix, a .ydk named .txt."""
    form = tmp_path / "no-suffix"
    shutil.copy(SHEETS / "kde-form-sky-striker.pdf", form)
    ydk_as_txt = tmp_path / "deck.txt"
    shutil.copy(DECKS / "legal.ydk", ydk_as_txt)
    expected = {SHEETS / "db-hero-square.pdf": "pdf-text", SHEETS / "kde-flat-hero.pdf": "pdf-text",
                form: "pdf-form", ydk_as_txt: "ydk", DECKS / "illegal.txt": "text"}
    for path, reader in expected.items():
        obj = run_json("scan", path, "--json", code=0)
        assert obj["source"]["reader"] == reader, path
    # A list carries no player and no printed totals: null, not empty strings or zeros.
    obj = run_json("scan", DECKS / "legal.ydk", "--json", code=0)
    assert obj["player"]["name"] is None and obj["player"]["konami_id"] is None
    assert all(obj["printed_totals"][s] is None for s in SECTIONS)
    # A sheet prints its totals and its player.
    sheet = run_json("scan", SHEETS / "db-hero-square.pdf", "--json", code=0)
    assert sheet["printed_totals"] == {**sheet["printed_totals"], **sheet["totals"]}
    assert sheet["player"]["name"] and re.fullmatch(r"\d{10}", sheet["player"]["konami_id"])


def test_scan_ydke_and_its_own_json_round_trip(clean_env, demo_db, tmp_path):
    first = run_json("scan", DECKS / "legal.ydk", "--json", code=0)
    url = run("convert", DECKS / "legal.ydk", "--to", "ydke")
    assert url.exit_code == 0 and url.stdout.startswith("ydke://")
    via_url = run_json("scan", url.stdout.strip(), "--json", code=0)
    assert via_url["source"]["reader"] == "ydke"
    saved = tmp_path / "scan.json"
    saved.write_text(json.dumps(first, ensure_ascii=False), encoding="utf-8")
    via_json = run_json("scan", saved, "--json", code=0)
    assert via_json["source"]["reader"] == "json"
    for other in (via_url, via_json):
        assert_scan_shape(other, demo_db)
        for s in SECTIONS:
            assert ({e["card_id"]: e["count"] for e in other["sections"][s]}
                    == {e["card_id"]: e["count"] for e in first["sections"][s]})


def test_scan_several_inputs_is_an_array_in_order(clean_env, demo_db):
    paths = [SHEETS / "db-blue-eyes-gothic.pdf", DECKS / "legal.ydk", DECKS / "illegal.txt"]
    arr = run_json("scan", *paths, "--json", code=0)
    assert isinstance(arr, list) and len(arr) == 3
    assert [a["source"]["reader"] for a in arr] == ["pdf-text", "ydk", "text"]
    for a in arr:
        assert_scan_shape(a, demo_db)


def test_scan_several_inputs_with_one_unreadable_keeps_the_others(clean_env, tmp_path):
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 4)
    res = run("scan", DECKS / "legal.ydk", junk, DECKS / "illegal.txt", "--json")
    assert res.exit_code == 2
    arr = json.loads(res.stdout)
    assert [a["source"]["reader"] for a in arr] == ["ydk", "text"]
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("decksheet: error:")]
    assert len(errors) == 1 and "junk.pdf" in errors[0] and "Traceback" not in res.stderr


def test_scan_alternate_artwork_is_reported_as_its_original(clean_env, demo_db, tmp_path):
    alt = next((cid for cid, orig in demo_db.aliases.items() if orig != cid), None)
    if alt is None:
        pytest.fail("the demo database ships alternate artworks (samples/README.md)")
    ydk = tmp_path / "alt.ydk"
    ydk.write_text(f"#main\n{alt}\n#extra\n!side\n", encoding="utf-8")
    obj = run_json("scan", ydk, "--json", code=0)
    (entry,) = [e for s in SECTIONS for e in obj["sections"][s]]
    assert entry["card_id"] == demo_db.original_id(alt) != alt


# ---------------------------------------------------------------- check

def test_check_exit_statuses_and_shape_on_samples(clean_env, demo_db, tmp_path):
    legal = run_json("check", DECKS / "legal.ydk", "--json", code=0)
    assert legal["legal"] is True and legal["infractions"] == []
    illegal = run_json("check", DECKS / "illegal.txt", "--json", code=1)
    assert_check_shape(illegal, demo_db)
    codes = [i["code"] for i in illegal["infractions"]]
    # samples/decks/illegal.txt: main 39, a forbidden card, an extra-banned card, a 4th copy,
    # a main-deck monster in the extra deck.
    assert {"MAIN_TOO_SMALL", "FORBIDDEN_CARD", "TOO_MANY_COPIES", "NOT_EXTRA_DECK_CARD"} <= set(codes)
    # One count code per card.
    per_card = [c for i in illegal["infractions"] if i["code"] in
                {"FORBIDDEN_CARD", "TOO_MANY_COPIES", "OVER_LIMIT"} for c in i["card_ids"]]
    assert len(per_card) == len(set(per_card))
    empty = tmp_path / "empty.ydk"
    empty.write_bytes(b"")
    assert_refused(run("check", empty, "--json"))


def test_check_extra_bans_on_by_default_and_off_on_request(clean_env, demo_db):
    with_bans = run_json("check", DECKS / "illegal.txt", "--json", code=1)
    without = run_json("check", DECKS / "illegal.txt", "--json", "--no-extra-bans", code=1)
    switch = 57585212  # 자폭 스위치, one of the rules' 추가 금지 카드, in the sample's side deck
    forbidden = lambda obj: {c for i in obj["infractions"] if i["code"] == "FORBIDDEN_CARD"
                             for c in i["card_ids"]}
    assert switch in forbidden(with_bans) and switch not in forbidden(without)


def test_check_legality_fixtures(real_db, real_db_path, real_lflist_path, fixtures_dir):
    manifest = json.loads((fixtures_dir / "legality" / "manifest.json").read_text(encoding="utf-8"))
    for case in manifest["cases"]:
        path = fixtures_dir / "legality" / case["file"]
        truth = json.loads(path.with_name(case["case"] + ".truth.json").read_text(encoding="utf-8"))
        obj = run_json("check", path, "--json", *real_args(real_db_path, real_lflist_path),
                       code=0 if truth["legal"] else 1)
        assert_check_shape(obj, real_db)
        assert obj["legal"] is truth["legal"], case["case"]
        assert sorted({i["code"] for i in obj["infractions"]}) == sorted(set(truth["codes"]))
        for want in truth["infractions"]:
            got = [i for i in obj["infractions"] if i["code"] == want["code"]]
            assert any(set(want["card_ids"]) <= set(i["card_ids"]) for i in got), (case, want)


# ---------------------------------------------------------------- compare

def test_compare_exit_statuses_and_shape_on_samples(clean_env):
    same = run_json("compare", DECKS / "registered.ydk", DECKS / "registered.ydk", "--json", code=0)
    assert_compare_shape(same, "start-of-match")
    assert same["match"] is True and same["differences"] == []
    diff = run_json("compare", DECKS / "registered.ydk", DECKS / "observed.ydk", "--json", code=1)
    assert_compare_shape(diff, "start-of-match")
    assert diff["match"] is False and diff["differences"]
    between = run_json("compare", DECKS / "registered.ydk", DECKS / "observed.ydk",
                       "--between-games", "--json", code=1)
    assert_compare_shape(between, "between-games")
    assert_refused(run("compare", DECKS / "registered.ydk", DECKS / "missing.ydk", "--json"))


def test_compare_fixtures(real_db_path, real_lflist_path, fixtures_dir):
    manifest = json.loads((fixtures_dir / "compare" / "manifest.json").read_text(encoding="utf-8"))
    for case in manifest["cases"]:
        folder = fixtures_dir / "compare" / case["case"]
        truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
        flag = ["--between-games"] if truth["mode"] == "between-games" else []
        res = run("compare", folder / "registered.ydk", folder / "observed.ydk", *flag, "--json",
                  *real_args(real_db_path, real_lflist_path))
        obj = json.loads(res.stdout)
        assert_compare_shape(obj, truth["mode"])
        assert obj["match"] is truth["match"], case["case"]
        assert res.exit_code == (0 if obj["match"] and not obj["infractions"] else 1)
        got = {(d["section"], d["card_id"], d["registered"], d["observed"])
               for d in obj["differences"]}
        want = {(d["section"], d["card_id"], d["registered"], d["observed"])
                for d in truth["differences"]}
        assert got == want, case["case"]


# ---------------------------------------------------------------- db

def test_db_search_shape_limit_and_default(clean_env, demo_db):
    rows = run_json("db", "search", "하루우라라", "--json", code=0)
    assert 1 <= len(rows) <= 5
    for r in rows:
        assert set(r) >= {"card_id", "name", "score"} and _is_int(r["card_id"])
        assert isinstance(r["name"], str) and 0.0 <= r["score"] <= 1.0
    assert rows[0]["card_id"] == 14558127
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    assert len(run_json("db", "search", "히어로", "--json", "--limit", "2", code=0)) <= 2
    info = run("db", "info")
    assert info.exit_code == 0 and "demo" in info.stdout.lower()


# ---------------------------------------------------------------- environment variables

def test_environment_variables_stand_for_the_options(clean_env, real_db_path, real_lflist_path):
    clean_env.setenv("DECKSHEET_CARD_DB", str(real_db_path))
    clean_env.setenv("DECKSHEET_LFLIST", str(real_lflist_path))
    info = run_json("db", "info", "--json", code=0)
    assert Path(info["card_db"]) == real_db_path and info["demo"] is False
    assert Path(info["lflist"]) == real_lflist_path and info["selected_list"] == info["newest_ocg_list"]
    clean_env.setenv("DECKSHEET_LIST", "2026.4")
    assert run_json("db", "info", "--json", code=0)["selected_list"] == "2026.4"
    checked = run_json("check", DECKS / "legal.ydk", "--json", code=0)
    assert checked["list"] == "2026.4"
    # An option given on the command line wins over the environment.
    assert run_json("db", "info", "--json", "--list", "2026.1", code=0)["selected_list"] == "2026.1"


def test_environment_variables_on_the_demo_data(clean_env, tmp_path):
    from card_db.cdb import demo_db_path

    clean_env.setenv("DECKSHEET_LIST", "1999.1")  # no such list: the variable is read
    res = run("check", DECKS / "legal.ydk", "--json")
    assert res.exit_code == 2 and "1999.1" in res.stderr and res.stdout == ""
    clean_env.delenv("DECKSHEET_LIST")
    clean_env.setenv("DECKSHEET_CARD_DB", str(tmp_path / "absent.cdb"))
    res = run("scan", DECKS / "legal.ydk", "--json")
    assert res.exit_code == 2 and "absent.cdb" in res.stderr
    clean_env.setenv("DECKSHEET_CARD_DB", str(demo_db_path()))
    assert run_json("scan", DECKS / "legal.ydk", "--json", code=0)["source"]["reader"] == "ydk"


# ---------------------------------------------------------------- event commands

def _event(tmp_path: Path) -> Path:
    path = tmp_path / "event.sqlite"
    res = run("event", "init", path, "--name", "QA 대회", "--date", "2026-07-12")
    assert res.exit_code == 0 and path.is_file(), res.stderr
    return path


def test_event_commands_follow_the_contract(clean_env, demo_db, tmp_path):
    ev = _event(tmp_path)
    clean_env.setenv("DECKSHEET_EVENT", str(ev))  # the event by environment variable
    reg = run_json("register", DECKS / "registered.ydk", "--player", "1234567890", "--name",
                   "김철수", "--json", code=0)
    assert reg["player"] == "1234567890" and reg["version"] == 1
    assert reg["legal"] is True and reg["needs_review"] == 0 and reg["infractions"] == []
    again = run_json("register", DECKS / "registered.ydk", "--player", "1234567890", "--json",
                     code=0)
    assert again["version"] == 2  # a new version, never an overwrite
    bad = run_json("register", DECKS / "illegal.txt", "--player", "0000000001", "--json", code=1)
    assert bad["legal"] is False and _is_int(bad["needs_review"])
    for inf in bad["infractions"]:
        assert_infraction_shape(inf, CHECK_CODES)
    sheet = run_json("register", SHEETS / "db-hero-square.pdf", "--player", "5566778899",
                     "--json", code=0)
    assert sheet["version"] == 1

    ok = run_json("deckcheck", DECKS / "registered.ydk", "--player", "1234567890", "--round", "1",
                  "--json", code=0)
    assert_compare_shape(ok, "start-of-match")
    assert ok["player"] == "1234567890" and ok["round"] == 1 and ok["match"] is True
    miss = run_json("deckcheck", DECKS / "observed.ydk", "--player", "1234567890", "--round", "2",
                    "--between-games", "--json", code=1)
    assert_compare_shape(miss, "between-games")
    assert miss["round"] == 2 and miss["match"] is False

    out = tmp_path / "audit"
    audit = run_json("audit", "--out", out, "--json", "--workers", "1", code=1)
    assert audit["registrations"] == 3 and audit["deck_checks"] == 2
    assert audit["illegal"] == ["0000000001"] and audit["needs_review"] == []
    assert _is_int(audit["infractions"]) and audit["infractions"] >= 1
    assert (out / "report.html").is_file() and (out / "report.csv").is_file()


def test_event_refusals_are_exit_2_and_store_nothing(clean_env, tmp_path):
    ev = _event(tmp_path)
    for args in (["register", DECKS / "legal.ydk", "--player", "1", "--json"],  # no event
                 ["deckcheck", DECKS / "legal.ydk", "--player", "1", "--round", "1", "--json"],
                 ["audit", "--out", tmp_path / "a", "--json"]):
        res = run(*args)
        assert_refused(res)
        assert "event" in res.stderr
    res = run("deckcheck", DECKS / "legal.ydk", "--player", "9999999999", "--round", "1",
              "--event", ev, "--json")
    assert_refused(res)
    assert "9999999999" in res.stderr
    assert_refused(run("register", DECKS / "missing.ydk", "--player", "1234567890", "--event", ev,
                       "--json"))
    info = run_json("event", "info", "--event", ev, "--json", code=0)
    assert info["versions"] == 0 and info["deck_checks"] == 0
    assert not (tmp_path / "a").exists()


# ---------------------------------------------------------------- fixture sheets

def _truth(path: Path) -> dict:
    return json.loads(path.with_suffix(".truth.json").read_text(encoding="utf-8"))


def _silent_errors(obj: dict, truth: dict) -> list[tuple]:
    """Lines that are wrong and not flagged: the contract's worst failure."""
    flagged_ids = {(r["section"], r.get("card_id")) for r in obj["review"] if r.get("card_id")}
    out = []
    for s in SECTIONS:
        want = {int(k): v for k, v in truth[s].items()}
        for e in obj["sections"][s]:
            if e["needs_review"] or (s, e["card_id"]) in flagged_ids:
                continue
            if want.get(e["card_id"]) != e["count"]:
                out.append((s, e["card_id"], e["name"], e["count"]))
    return out


def _check_fixture_sheet(path: Path, real_db, db_args: list[str]) -> None:
    obj = run_json("scan", path, "--json", *db_args, code=0)
    assert_scan_shape(obj, real_db)
    truth = _truth(path)
    assert not _silent_errors(obj, truth), (path.name, _silent_errors(obj, truth))
    for s in SECTIONS:  # a printed total, where read, is the one printed
        if obj["printed_totals"][s] is not None:
            assert obj["printed_totals"][s] == truth["printed_totals"][s], (path.name, s)


def test_fixture_text_sheets_in_one_call(real_db, real_db_path, real_lflist_path, fixtures_dir):
    # the text kinds; the KDE forms scanned to images (kde-scan) are in test_ocr_kde.py
    paths = [p for kind in ("db-ko", "kde-flat", "kde-form")
             for p in sorted((fixtures_dir / "sheets").glob(f"{kind}-*.pdf"))]
    arr = run_json("scan", *paths, "--json", "--card-db", real_db_path, code=0)
    assert len(arr) == len(paths)
    for path, obj in zip(paths, arr):
        assert_scan_shape(obj, real_db)
        assert Path(obj["source"]["path"]).name == path.name
        assert not _silent_errors(obj, _truth(path)), path.name
        assert obj["player"] == {**obj["player"], **_truth(path)["player"]}, path.name


def test_fixture_one_photo_and_one_scan(real_db, real_db_path, fixtures_dir):
    sheets = fixtures_dir / "sheets"
    for path in (sheets / "photo-01.jpg", sheets / "scan-01.pdf"):
        _check_fixture_sheet(path, real_db, ["--card-db", str(real_db_path)])


@pytest.mark.slow
@pytest.mark.parametrize("pattern", ["photo-*.jpg", "photo-corrected-*.jpg", "scan-*.pdf"])
def test_fixture_ocr_sheets(real_db, real_db_path, fixtures_dir, pattern):
    for path in sorted((fixtures_dir / "sheets").glob(pattern)):
        _check_fixture_sheet(path, real_db, ["--card-db", str(real_db_path)])
