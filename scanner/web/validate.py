"""Strict JSON input for the station API: each endpoint's body is described as data (a schema
below) and checked here, once, before anything is called. A value is taken only in its
documented type: a boolean is `true`/`false` (never `"false"` or `0`), an integer is a JSON
integer in its range (never `true`, `2.9`, `1e400`, `[1]`), objects take only their own keys,
lists and strings have a length limit, and the body's nesting depth is bounded before parsing.
Every refusal is an `InvalidInput` that the API answers with a 400 and one Korean line."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Union

from scanner.vocab import MAX_ROUND, SECTIONS
from scanner.web.texts import ko

INT64_MAX = 2 ** 63 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_DEPTH = 16
"""No station body needs more than a few levels; the depth is checked before `json.loads`."""


class InvalidInput(ValueError):
    """A body that does not fit its schema; the message is one Korean line."""


@dataclass(frozen=True)
class Int:
    lo: int
    hi: int


@dataclass(frozen=True)
class Bool:
    pass


@dataclass(frozen=True)
class Text:
    max_len: int
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Items:
    item: "Spec"
    max_items: int


@dataclass(frozen=True)
class Key:
    """One key of an object: its value's spec, and whether it must be there / may be null."""

    spec: "Spec"
    required: bool = False
    nullable: bool = False
    default: Any = None


@dataclass(frozen=True)
class Obj:
    keys: dict[str, Key] = field(default_factory=dict)


Spec = Union[Int, Bool, Text, Items, Obj]

SECTION = Text(10, SECTIONS)
CARD_ID = Int(1, 2 ** 31 - 1)
VERSION = Int(1, INT64_MAX)

DECKCHECK = Obj({
    "player": Key(Text(40), required=True),
    "round": Key(Int(0, MAX_ROUND), required=True),
    # the 시점 has no default: a between-games swap judged as start-of-match is a false 불일치
    "between_games": Key(Bool(), required=True),
    "confirm": Key(Bool(), default=False),
    # the preview's token: a confirmation records exactly the comparison previewed
    "preview": Key(Text(64), nullable=True),
    "counts": Key(Items(Obj({"section": Key(SECTION, required=True),
                             "line": Key(Int(1, 200), required=True),
                             "count": Key(Int(0, 60), required=True)}), 200), default=[]),
    "extra": Key(Items(Obj({"section": Key(SECTION, required=True),
                            "card_id": Key(CARD_ID, required=True),
                            "count": Key(Int(1, 60), required=True)}), 60), default=[]),
    # by card, as judges count: copies of a registered card seen in a section (sided in or out)
    "cards": Key(Items(Obj({"section": Key(SECTION, required=True),
                            "card_id": Key(CARD_ID, required=True),
                            "count": Key(Int(0, 60), required=True)}), 200), default=[]),
})
"""`POST /api/deckchecks`."""

REVIEW = Obj({
    "version": Key(VERSION, required=True),
    "decisions": Key(Items(Obj({
        "section": Key(SECTION),
        "line": Key(Int(1, 200)),
        "flag": Key(Int(0, 999)),
        "action": Key(Text(20, ("keep", "choose", "skip", "restore", "remove")), required=True),
        "card_id": Key(CARD_ID, nullable=True),
        "count": Key(Int(1, 3), nullable=True),
        "entry": Key(Int(1, 200)),
    }), 500), required=True),
})
"""`POST /api/players/KID/review`."""

VOID = Obj({
    "reason": Key(Text(300), required=True),
    "new_penalty": Key(Text(20), nullable=True),
})
"""`POST /api/infractions/ID/void`."""

AUDIT = Obj({"formats": Key(Items(Text(10, ("html", "csv", "xlsx", "csv-ko")), 4), default=[])})
"""`POST /api/audits` (no formats: html, csv and xlsx)."""

WITHDRAW = Obj({"reason": Key(Text(200), required=True)})
WITHDRAW_OR_VOID = WITHDRAW
"""`POST /api/deckchecks/ID/void` too (a reason of at most 200 characters)."""
"""`POST /api/players/KID/versions/N/withdraw` (a reason of at most 200 characters)."""

DECIDE = Obj({"choice": Key(Text(10, ("store", "discard")), required=True),
              "player": Key(Text(40), nullable=True),
              "confirm": Key(Text(20), nullable=True),
              "add": Key(Bool(), default=False)})
"""`POST /api/jobs/ID/decide` (a registration a guard held)."""


def check(spec: Spec, value: Any, where: str = "") -> Any:
    """`value` if it fits `spec` (object defaults filled in), else `InvalidInput`."""
    name = where or "본문"
    if isinstance(spec, Int):
        # type() not isinstance(): bool is an int subclass, and `true` is not a number.
        if type(value) is not int or not spec.lo <= value <= spec.hi:
            raise InvalidInput(ko("field-int", field=name, lo=spec.lo, hi=spec.hi))
        return value
    if isinstance(spec, Bool):
        if type(value) is not bool:
            raise InvalidInput(ko("field-bool", field=name))
        return value
    if isinstance(spec, Text):
        if not isinstance(value, str) or len(value) > spec.max_len:
            raise InvalidInput(ko("field-text", field=name, max_len=spec.max_len))
        if _SURROGATE.search(value):  # "\ud800" parses, but no UTF-8 can store or show it
            raise InvalidInput(ko("field-text", field=name, max_len=spec.max_len))
        if spec.choices and value not in spec.choices:
            raise InvalidInput(ko("field-choice", field=name, choices=", ".join(spec.choices)))
        return value
    if isinstance(spec, Items):
        if not isinstance(value, list) or len(value) > spec.max_items:
            raise InvalidInput(ko("field-list", field=name, max_items=spec.max_items))
        return [check(spec.item, v, f"{name}[{i}]") for i, v in enumerate(value)]
    if not isinstance(value, dict):
        raise InvalidInput(ko("field-object", field=name))
    unknown = next((k for k in value if k not in spec.keys), None)
    if unknown is not None:
        shown = json.dumps(unknown[:40], ensure_ascii=False)  # quoted, control characters escaped
        raise InvalidInput(ko("field-unknown", field=f"{where}.{shown}" if where else shown))
    out = {}
    for k, key in spec.keys.items():
        path = f"{where}.{k}" if where else k
        if k not in value:
            if key.required:
                raise InvalidInput(ko("field-missing", field=path))
            out[k] = key.default
        elif value[k] is None and key.nullable:
            out[k] = None
        else:
            out[k] = check(key.spec, value[k], path)
    return out


_INTERESTING = re.compile(rb'[\[\]{}"]')
_STRING_REST = re.compile(rb'(?:[^"\\]++|\\.)*+"', re.DOTALL)
"""From just after an opening quote to its closing quote (possessive: no backtracking)."""


def depth_ok(body: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether the JSON text nests at most `limit` levels (strings skipped), found without
    parsing: 200,000 `[` must not reach the parser's recursion. One pass, each byte looked at
    once (a scan that retried from every quote took minutes on `"\\"\\"…`)."""
    depth, pos = 0, 0
    while (m := _INTERESTING.search(body, pos)) is not None:
        char = m.group()
        if char == b'"':
            end = _STRING_REST.match(body, m.end())
            if end is None:  # an unterminated string: the rest is inside it (and not JSON)
                return True
            pos = end.end()
            continue
        depth += 1 if char in (b"[", b"{") else -1
        if depth > limit:
            return False
        pos = m.end()
    return True


def parse_body(body: bytes, spec: Obj) -> dict:
    """The body as JSON checked against `spec`; `InvalidInput` for anything else."""
    if not depth_ok(body):
        raise InvalidInput(ko("json-too-deep", depth=MAX_DEPTH))
    try:
        # UTF-8 only (RFC 8259 §8.1): json.loads would guess UTF-16 or UTF-32 from raw bytes.
        text = (body or b"{}").decode("utf-8")
        data = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError):  # also ints over Python's digit limit, bad UTF-8
        raise InvalidInput(ko("json-unreadable")) from None
    if not isinstance(data, dict):
        raise InvalidInput(ko("json-not-object"))
    return check(spec, data)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """An object whose keys are all different: `{"choice": "discard", "choice": "store"}` means
    one thing to one JSON library and another to the next, so it means nothing here."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("JSON object with a repeated key")
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"JSON has {name}")  # NaN / Infinity are not JSON
