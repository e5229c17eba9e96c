"""Errors carry a code: every code has an English and a Korean text with the same fields, the
Korean ones name no CLI flag, every code raised in the code is in the table, and a coded error
keeps its code across a worker process (pickling)."""
from __future__ import annotations

import ast
import pickle
import re
import string
from pathlib import Path

from card_db import messages
from card_db.messages import en, ko

REPO = Path(__file__).resolve().parent.parent
_RAISED = re.compile(r'(?:Error|Input|NeedsDecision)\(\s*"([a-z][a-z0-9-]*\.[a-z0-9.-]+)"')


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def test_every_code_has_an_english_and_a_korean_text_with_the_same_fields():
    assert set(en.MESSAGES) == set(ko.MESSAGES)
    for code in en.MESSAGES:
        en_f, ko_f = _fields(en.MESSAGES[code]), _fields(ko.MESSAGES[code])
        assert ko_f - {"why_ko"} <= en_f | {"why_ko"}, code
        assert re.search("[가-힣]", ko.MESSAGES[code]), code
        assert " --" not in ko.MESSAGES[code] and not ko.MESSAGES[code].startswith("--"), code


def test_every_code_raised_in_the_code_has_a_text():
    raised: set[str] = set()
    for pkg in ("card_db", "scanner"):
        for path in (REPO / pkg).rglob("*.py"):
            raised |= set(_RAISED.findall(path.read_text(encoding="utf-8")))
    assert raised and raised <= set(en.MESSAGES), sorted(raised - set(en.MESSAGES))
    assert {"event.duplicate-original", "event.implausible-version", "input.no-card-line",
            "event.name-too-long"} <= raised


def test_a_coded_error_renders_in_both_languages_and_survives_pickling():
    from scanner.errors import EventError, UnreadableInput
    from scanner.event.flows import NeedsDecision

    exc = NeedsDecision("event.duplicate-original", decision="duplicate-original", count=1,
                        players=["0000000001"])
    back = pickle.loads(pickle.dumps(exc))
    assert (type(back), back.code, back.decision) == (NeedsDecision, exc.code, exc.decision)
    assert "--allow-duplicate" in str(back) and "--" not in back.render("ko")
    assert back.exit_code == 2 and isinstance(back, EventError)
    free = UnreadableInput("some reader said this")        # not yet given a code
    assert str(free) == "some reader said this" and free.render("ko") == ko.MESSAGES["input.unreadable"]
    assert messages.render("input.too-large", {"file": "x"}, "ko").startswith("x")


def test_the_station_matches_no_english_message_text():
    """Korean comes from the table by code, never from matching the library's English."""
    fixed = {t.split("{")[0].strip(" :(") for t in en.MESSAGES.values()}
    fixed = {t for t in fixed if len(t) >= 12}
    for path in (REPO / "scanner" / "web").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        hits = [t for t in fixed if t in text]
        assert not hits, (path.name, hits)


def test_the_cli_speaks_korean_with_decksheet_lang(tmp_path):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("DECKSHEET_")}
    env["DECKSHEET_DATA_DIR"] = str(tmp_path)
    argv = [sys.executable, "-c", "from scanner.cli import main; main()", "scan",
            str(tmp_path / "missing.pdf")]
    en_run = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    ko_run = subprocess.run(argv, capture_output=True, text=True, env=dict(env, DECKSHEET_LANG="ko"),
                            timeout=120)
    assert en_run.returncode == ko_run.returncode == 2          # exit status unchanged
    assert en_run.stderr.splitlines()[-1].startswith("decksheet: error: no such file")
    assert "파일이 없습니다" in ko_run.stderr.splitlines()[-1]


# The event record is rewritten on its own branch (issue 32 item 1), with coded errors: until
# it lands, its free-text raises are the only ones left. Remove an entry when it is coded; the
# test fails if an entry is no longer needed.
FREE_TEXT_PENDING: tuple[str, ...] = ()


def _error_classes(trees: dict[str, ast.AST]) -> set[str]:
    """DecksheetError and every class of the tree that derives from it, by name."""
    names = {"DecksheetError"}
    while True:
        more = {node.name for tree in trees.values() for node in ast.walk(tree)
                if isinstance(node, ast.ClassDef) and node.name not in names
                and any((b.id if isinstance(b, ast.Name) else getattr(b, "attr", None)) in names
                        for b in node.bases)}
        if not more:
            return names
        names |= more


def _is_code(node: ast.expr | None) -> bool:
    """A message code, or a choice between two (`"a.x" if … else "a.y"`)."""
    if isinstance(node, ast.IfExp):
        return _is_code(node.body) and _is_code(node.orelse)
    return isinstance(node, ast.Constant) and isinstance(node.value, str) \
        and messages.is_code(node.value)


def test_every_error_the_project_raises_carries_a_code():
    """An error of the project's classes is built with a code of the message table (its
    English and Korean text), never with free text (which a judge would see in English)."""
    trees = {str(p.relative_to(REPO)): ast.parse(p.read_text(encoding="utf-8"))
             for pkg in ("card_db", "scanner") for p in sorted((REPO / pkg).rglob("*.py"))}
    classes = _error_classes(trees)
    assert {"EventError", "UnreadableInput", "OutputError", "StationConfigError",
            "NeedsDecision"} <= classes
    free, pending_used = [], set()
    for rel, tree in trees.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if name not in classes or _is_code(node.args[0] if node.args else None):
                continue
            pending = next((p for p in FREE_TEXT_PENDING if rel.startswith(p)), None)
            if pending:
                pending_used.add(pending)
                continue
            free.append(f"{rel}:{node.lineno}: {ast.unparse(node)[:100]}")
    assert not free, "free-text errors (give each a code in card_db/messages):\n" + "\n".join(free)
    assert pending_used == set(FREE_TEXT_PENDING), "no longer pending: " \
        f"{set(FREE_TEXT_PENDING) - pending_used}"
