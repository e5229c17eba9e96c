"""Issue 37: an audit writes whatever the record holds. One control character in a void reason
(appended, so never to be removed) made every later audit fail, in `decksheet audit` and at the
station: xlsx cannot hold it."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from scanner.cli import main

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def _run(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return r.exit_code, r.output


def test_an_audit_writes_a_record_holding_control_characters(tmp_path, clean_env):
    from openpyxl import load_workbook

    event = str(tmp_path / "event.sqlite")
    assert _run("event", "init", event, "--name", "대회", "--date", "2026-07-12")[0] == 0
    assert _run("register", str(SAMPLES / "decks" / "registered.ydk"), "--player", "1000000002",
                "--name", "이영희", "--event", event)[0] == 0
    code, out = _run("deckcheck", str(SAMPLES / "decks" / "observed.ydk"), "--player",
                     "1000000002", "--round", "3", "--event", event, "--judge", "저지")
    assert code == 1, out
    from scanner.event.stores import open_event
    with open_event(event) as store:
        ids = [i.id for i in store.infractions()]
    assert ids
    code, out = _run("event", "void", str(ids[0]), "--reason", "잘못\u0001 기록\u001f됨",
                     "--judge", "저지", "--event", event)
    assert code == 0, out
    out_dir = tmp_path / "audit"
    code, out = _run("audit", "--out", str(out_dir), "--event", event, "--json")
    assert code in (0, 1), out
    workbook = next(out_dir.glob("*.xlsx"), None)
    for name in ("report.html", "report.csv"):
        assert (out_dir / name).is_file()
    if workbook is not None:
        cells = [c.value for ws in load_workbook(workbook) for row in ws.iter_rows() for c in row]
        # The reason's control characters never reach the record (`records.clean_text`, issue
        # 37): what the workbook holds is the reason as stored, and it opens.
        assert any(isinstance(v, str) and v.startswith("잘못 기록") and "\x01" not in v for v in cells)
