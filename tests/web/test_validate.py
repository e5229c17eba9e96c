"""The JSON schema layer of the station (`scanner/web/validate.py`) on its own."""
from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.web.validate import (DECKCHECK, INT64_MAX, REVIEW, Bool, Int, InvalidInput, Items,
                                  Key, Obj, Text, check, depth_ok, parse_body)


def _depth(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


json_trees = st.recursive(st.none() | st.integers() | st.text(alphabet='[]{}"\\ab', max_size=8),
                          lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.text(alphabet='[]{}"\\ab', max_size=5), inner,
                                            max_size=3), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(tree=json_trees, limit=st.integers(0, 8))
def test_depth_without_parsing_agrees_with_the_parsed_depth(tree, limit):
    assert depth_ok(json.dumps(tree).encode(), limit) == (_depth(tree) <= limit)


@pytest.mark.parametrize("body", [b'"\\' * 120_000, b'["' * 120_000, b'"' + b"\\a" * 120_000,
                                  b"[" * 250_000, b'{"a":' * 50_000, b'"\\"' * 80_000])
def test_depth_scan_is_linear_on_hostile_text(body):
    started = time.perf_counter()
    depth_ok(body)
    assert time.perf_counter() - started < 0.5  # the first scan took 87 s on `"\"\…`


def test_brackets_inside_strings_do_not_count():
    assert depth_ok(b'{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[", "b": ["\\"[[[["]}', 3)
    assert not depth_ok(b'[[[["]"]]]]', 3)


@pytest.mark.parametrize("spec,good,bad", [
    (Int(0, 99), [0, 99], [True, False, 2.0, 2.9, float("inf"), "1", [1], {}, None, 100, -1]),
    (Int(1, INT64_MAX), [1, INT64_MAX], [0, INT64_MAX + 1, 2 ** 64]),
    (Bool(), [True, False], ["false", "true", 0, 1, None, [], "no"]),
    (Text(3, ("a", "bc")), ["a", "bc"], ["abcd", "b", 1, None, ["a"]]),
    (Items(Int(0, 1), 2), [[], [0, 1]], [[0, 1, 1], [2], "01", {"0": 1}]),
])
def test_each_kind_takes_only_its_own_values(spec, good, bad):
    for value in good:
        assert check(spec, value) == value
    for value in bad:
        with pytest.raises(InvalidInput):
            check(spec, value)


def test_objects_fill_defaults_and_refuse_strangers_and_gaps():
    spec = Obj({"a": Key(Int(0, 9), required=True), "b": Key(Bool(), default=False),
                "c": Key(Text(5), nullable=True)})
    assert check(spec, {"a": 1}) == {"a": 1, "b": False, "c": None}
    assert check(spec, {"a": 1, "c": None}) == {"a": 1, "b": False, "c": None}
    for bad in ({}, {"a": 1, "b": None}, {"a": 1, "d": 1}, {"a": 1, "\n": 1}, [1]):
        with pytest.raises(InvalidInput) as exc:
            check(spec, bad)
        assert "\n" not in str(exc.value)


def test_parse_body_messages_name_the_field_in_korean():
    with pytest.raises(InvalidInput, match="round"):
        parse_body(b'{"player": "1", "round": 1e400}', DECKCHECK)
    with pytest.raises(InvalidInput, match=r"decisions\[0\]\.count"):
        parse_body(b'{"version": 1, "decisions": [{"action": "keep", "count": 2.5}]}', REVIEW)
    with pytest.raises(InvalidInput, match="confirm"):
        parse_body(b'{"player": "1", "round": 1, "between_games": false, "confirm": "false"}',
                   DECKCHECK)
    for raw in (b"[" * 200_000, b"{", b"\xff", b"1" * 5000, b"NaN", b"[]", b'"x"'):
        with pytest.raises(InvalidInput):
            parse_body(raw, DECKCHECK)


def test_every_korean_text_is_used_and_one_line():
    """The station's texts live in the project's one message table (`web.*` codes, English and
    Korean); each is used in scanner/web and is one Korean line."""
    import re

    from card_db import messages
    from scanner.web.texts import PREFIX, codes
    from web.station import REPO

    source = "".join(p.read_text() for p in (REPO / "scanner" / "web").rglob("*.py")
                     if p.name != "texts.py")
    pages = "".join(p.read_text() for p in (REPO / "scanner" / "web" / "templates").glob("*.html"))
    assert len(codes()) > 40
    for code in codes():  # by `ko("code")` in the code, or `msg('code')` in a template
        assert f'"{code}"' in source or f"msg('{code}'" in pages, code
        text = messages.TABLES["ko"][PREFIX + code]
        assert "\n" not in text and re.search("[가-힣]", text), code
        assert messages.TABLES["en"][PREFIX + code], code


def test_no_station_refusal_is_written_inline():
    """Every StationError the station raises takes its text from the table (`ko(code)`), never a
    sentence written where it is raised."""
    import re

    from web.station import REPO

    for path in (REPO / "scanner" / "web").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        inline = re.findall(r'StationError\(\s*f?"', text)
        inline += re.findall(r'(?:UploadRefused|error|_error|_form_int\([^)]*)\(?\s*f?"[^"]*[가-힣]', text)
        assert not inline, (path, inline)
