"""The OCR stages' numbers are data (issue 32): each stage's tuning is a frozen dataclass of named,
documented fields (as pdfplumber's `TableSettings`), and the stages converted to it compare
against no bare number."""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

OCR = Path(__file__).resolve().parent.parent / "scanner" / "ocr"

CONVERTED = ("grid", "page", "form_fit", "rows", "names", "latin", "verify", "marks", "corrections",
             "totals", "header", "lines", "count_hand", "hand_syllables", "hand_candidates", "pen_names",
             "hand_namesakes")
"""Stages whose comparisons name every number (the hand reader and the count reader,
`hand_names` and `counts`, are not converted yet)."""

TRIVIAL = {0, 1, 2, -1}
"""Numbers a comparison may spell: none, one, two, the last (an empty list, a pair, an index)."""


def bare_numbers(tree: ast.AST) -> list[tuple[int, float]]:
    """(line, value) of every numeric literal compared with, other than `TRIVIAL`."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                neg = isinstance(side, ast.UnaryOp) and isinstance(side.op, ast.USub)
                value = side.operand if neg else side
                if isinstance(value, ast.Constant) and type(value.value) in (int, float):
                    v = -value.value if neg else value.value
                    if v not in TRIVIAL:
                        out.append((side.lineno, v))
    return out


@pytest.mark.parametrize("stage", CONVERTED)
def test_a_converted_stage_compares_against_no_bare_number(stage):
    src = (OCR / f"{stage}.py").read_text(encoding="utf-8")
    assert bare_numbers(ast.parse(src)) == [], stage


def test_the_check_sees_a_bare_number():
    assert bare_numbers(ast.parse("x = a < 0.15 * pitch or b >= 8 or c > -3 or d == 1")) == [(1, 8), (1, -3)]


def stage_tunings() -> list:
    """Every stage's tuning object: each instance of a `…Tuning` dataclass that a module of
    `scanner.ocr` defines (so a new stage's is checked without being listed here)."""
    import importlib
    import pkgutil

    import scanner.ocr
    out = []
    for info in pkgutil.iter_modules(scanner.ocr.__path__):
        module = importlib.import_module(f"scanner.ocr.{info.name}")
        out += [v for v in vars(module).values()
                if dataclasses.is_dataclass(v) and not isinstance(v, type) and type(v).__name__.endswith("Tuning")
                and type(v).__module__ == module.__name__]
    return out


def test_each_stage_tuning_is_frozen_and_documented():
    """Every tuning object is a frozen dataclass whose fields carry a docstring (the field's own,
    or, for a field that completes the one before it, the next one's: `a`…`b` read together)."""
    tunings = stage_tunings()
    found = {type(t).__name__ for t in tunings}
    assert {"GridTuning", "PageTuning", "BoxedTuning", "HandDigitTuning", "WrittenNameTuning"} <= found, found
    for tuning in tunings:
        cls = type(tuning)
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls.__name__
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(tuning, dataclasses.fields(cls)[0].name, None)
        module = ast.parse(Path(__import__(cls.__module__, fromlist=["_"]).__file__).read_text(encoding="utf-8"))
        body = next(n for n in module.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__).body
        documented, pending = set(), []
        for node, nxt in zip(body, body[1:] + [None]):
            if isinstance(node, ast.AnnAssign):
                pending.append(node.target.id)
                if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
                    documented.update(pending)
                    pending = []
        fields = {f.name for f in dataclasses.fields(cls)}
        assert fields <= documented, (cls.__name__, sorted(fields - documented))


def test_a_tuning_is_carried_down_as_an_argument():
    """A stage run with another tuning answers by it: three ruled tables of 23 row rules are the
    main columns by default, and no deck table when a deck table needs 30 rules."""
    import cv2
    import numpy as np

    from scanner.ocr.grid import GRID, page_to_grid
    gray = np.full((2546, 1800), 255, np.uint8)
    for x0 in (100, 650, 1200):  # three ruled tables of 22 rows
        for k in range(23):
            cv2.line(gray, (x0, 300 + 40 * k), (x0 + 500, 300 + 40 * k), 0, 2)
        for x in (x0, x0 + 40, x0 + 430, x0 + 500):
            cv2.line(gray, (x, 300), (x, 300 + 40 * 22), 0, 2)
    found = [t.kind for t in page_to_grid(gray).tables if t.rows]
    assert {"monster", "spell", "trap"} <= set(found), found
    strict = dataclasses.replace(GRID, deck_rules=30)
    assert not [t for t in page_to_grid(gray, strict).tables if t.rows]
