"""Issue 15, items 6, 13, 14 and 16 for JSON input: validated, never coerced, never raw in exports."""
from __future__ import annotations

import json

import pytest

from tests.adversarial.conftest import assert_refused, run

URARA = {"card_id": 14558127, "name": "하루 우라라", "count": 3}


def _deck(**main_line) -> dict:
    return {"schema": 1, "sections": {"main": [dict(URARA, **main_line)], "extra": [], "side": []}}


def _write(tmp_path, obj_or_text) -> str:
    p = tmp_path / "deck.json"
    text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text, ensure_ascii=False)
    p.write_text(text, encoding="utf-8")
    return str(p)


@pytest.mark.parametrize("bad,word", [
    (_deck(count=2.9), "count"),
    (_deck(count=True), "count"),
    (_deck(count="3"), "count"),
    (_deck(card_id=14558127.9), "card_id"),
    (_deck(card_id=True), "card_id"),
    (_deck(card_id=-5), "card_id"),
    (_deck(needs_review="no"), "needs_review"),
    (_deck(reasons=[1]), "reasons"),
    ({"schema": 1, "sections": {"mian": [URARA]}}, "mian"),
    (dict(_deck(), review=5), "review"),
    (dict(_deck(), player=["x"]), "player"),
    (_deck(count=10 ** 9), "count"),
])
def test_wrong_values_are_refused_not_coerced(env, tmp_path, bad, word):
    path = _write(tmp_path, bad)
    for cmd in (["scan", path, "--json"], ["convert", path, "--to", "ydk"], ["check", path]):
        assert_refused(run(*cmd), mentions=word)


@pytest.mark.parametrize("text", [
    '{"schema": 1, "sections": {"main": [{"card_id": 14558127, "count": Infinity}]}}',
    '{"schema": 1, "sections": {"main": [{"card_id": 14558127, "count": NaN}]}}',
    "[" * 100_000 + "]" * 100_000,
    '{"sections": ' + "[" * 100_000,
])
def test_hostile_json_is_one_line(env, tmp_path, text):
    assert_refused(run("scan", _write(tmp_path, text)))


def test_too_many_json_lines_are_refused(env, tmp_path):
    deck = {"schema": 1, "sections": {"main": [URARA] * 600}}
    assert_refused(run("convert", _write(tmp_path, deck), "--to", "text"), mentions="card lines")


def test_a_line_break_in_a_name_never_reaches_an_export(env, tmp_path):
    """`"zzqx\\n!side\\n57585212…"` once became three 자폭 스위치 in the side deck of the .ydk."""
    name = "zzqx\n!side\n57585212\n57585212\n57585212"
    deck = {"schema": 1, "player": {"name": "홍길동\n#main\n14558127", "konami_id": None},
            "sections": {"main": [{"card_id": None, "name": name, "count": 1}], "extra": [], "side": []}}
    path = _write(tmp_path, deck)
    res = run("convert", path, "--to", "ydk")
    assert "57585212" not in [ln.strip() for ln in res.stdout.splitlines()], res.stdout
    assert len(res.stdout.splitlines()) == 5, res.stdout  # created-by, #main, comment, #extra, !side
    res = run("convert", path, "--to", "text")
    assert all(not ln.strip().startswith(("!side", "57585212")) for ln in res.stdout.splitlines())
    obj = json.loads(run("scan", path, "--json").stdout)
    (entry,) = obj["sections"]["main"]
    assert entry["needs_review"] and "\n" not in entry["name"] + obj["player"]["name"]


def test_a_valid_scan_json_still_round_trips(env, tmp_path):
    res = run("scan", _write(tmp_path, _deck()), "--json")
    assert res.exit_code == 0, res.stderr
    again = _write(tmp_path, res.stdout)
    res2 = run("scan", again, "--json")
    assert res2.exit_code == 0, res2.stderr
    assert json.loads(res2.stdout)["sections"] == json.loads(res.stdout)["sections"]
