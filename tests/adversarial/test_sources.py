"""Issue 15, items 5, 14, 16, 17 and 19: where input comes from and where output goes."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from scanner.inputs import limits
from tests.adversarial.conftest import REPO, SAMPLES, assert_refused, run

CLI = [sys.executable, "-c", "from scanner.cli import main; main()"]


def _long_list() -> str:
    """A list longer than 4 KiB whose first card lines sit in the first 4 KiB."""
    comments = "".join(f"// 메모 {i}: 대회 전날 확인한 덱\n" for i in range(200))
    return "메인 덱\n3 하루 우라라\n" + comments + "1 증식의 G\n"


def _subprocess(args, stdin, timeout=60):
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_THREAD_LIMIT="1")
    for var in ("DECKSHEET_CARD_DB", "DECKSHEET_LFLIST", "DECKSHEET_LIST", "DECKSHEET_EVENT"):
        env.pop(var, None)
    return subprocess.run(CLI + args, input=stdin, capture_output=True, timeout=timeout, env=env)


@pytest.mark.parametrize("name", ["-", "/dev/stdin"])
def test_a_pipe_is_read_whole(env, name):
    text = _long_list()
    assert len(text.encode()) > 4096
    res = _subprocess(["scan", name, "--json"], text.encode("utf-8"))
    assert res.returncode == 0, res.stderr.decode()
    ids = [e["card_id"] for e in json.loads(res.stdout)["sections"]["main"]]
    assert ids == [14558127, 23434538]


def test_a_pipe_of_a_pdf_is_read(env):
    data = (SAMPLES / "sheets" / "db-hero-square.pdf").read_bytes()
    res = _subprocess(["scan", "-", "--json"], data)
    assert res.returncode == 0, res.stderr.decode()
    assert json.loads(res.stdout)["source"]["reader"] == "pdf-text"


def test_a_fifo_with_no_writer_does_not_block_forever(env, tmp_path, monkeypatch):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    monkeypatch.setattr(limits, "PIPE_IDLE_SECONDS", 0.5)
    start = time.monotonic()
    assert_refused(run("scan", fifo), mentions="gave up")
    assert time.monotonic() - start < 10


def test_a_fifo_with_a_writer_is_read(env, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"sleep 0.3; cat > '{fifo}'"], stdin=subprocess.PIPE)
    writer.stdin.write(_long_list().encode())
    writer.stdin.close()
    res = run("scan", fifo, "--json")
    writer.wait(timeout=10)
    assert res.exit_code == 0, res.stderr
    assert len(json.loads(res.stdout)["sections"]["main"]) == 2


def test_a_file_over_the_size_limit_is_refused_unread(env, tmp_path):
    big = tmp_path / "big.pdf"
    with open(big, "wb") as fh:
        fh.write(b"%PDF-1.7\n")
        fh.truncate(limits.MAX_INPUT_BYTES + 1)  # sparse: nothing to read if the limit holds
    assert_refused(run("scan", big), mentions="too large")


def test_a_text_list_over_the_limits_is_refused(env, tmp_path):
    lines = tmp_path / "lines.txt"
    lines.write_text("1 하루 우라라\n" * (limits.MAX_TEXT_LINES + 1), encoding="utf-8")
    assert_refused(run("convert", lines, "--to", "ydk"), mentions="lines")
    cards = tmp_path / "cards.txt"
    cards.write_text("1 하루 우라라\n" * (limits.MAX_CARD_LINES + 1), encoding="utf-8")
    assert_refused(run("convert", cards, "--to", "ydk"), mentions="card lines")
    huge = tmp_path / "huge.txt"
    huge.write_text("1 하루 우라라\n" * 1_000_000, encoding="utf-8")
    assert_refused(run("scan", huge), mentions="too large")
    count = tmp_path / "count.txt"
    count.write_text("메인 덱\n999 하루 우라라\n", encoding="utf-8")
    assert_refused(run("convert", count, "--to", "ydk"), mentions="999")


@pytest.mark.parametrize("encoding,bom", [("cp949", b""), ("euc-kr", b""), ("utf-16-le", b"\xff\xfe"),
                                          ("utf-16-be", b"\xfe\xff")])
def test_korean_windows_encodings_are_read(env, tmp_path, encoding, bom):
    p = tmp_path / "list.txt"
    p.write_bytes(bom + "메인 덱\n3 하루 우라라\n사이드 덱\n1 증식의 G\n".encode(encoding))
    res = run("scan", p, "--json")
    assert res.exit_code == 0, res.stderr
    obj = json.loads(res.stdout)
    assert [e["card_id"] for e in obj["sections"]["main"]] == [14558127]
    assert [e["card_id"] for e in obj["sections"]["side"]] == [23434538]
    assert not obj["review"]


def test_same_named_inputs_get_their_own_output(env, tmp_path):
    (a := tmp_path / "a").mkdir()
    (b := tmp_path / "b").mkdir()
    (a / "x.txt").write_text("3 하루 우라라\n", encoding="utf-8")
    (b / "x.txt").write_text("1 증식의 G\n", encoding="utf-8")
    out = tmp_path / "o"
    res = run("scan", a / "x.txt", b / "x.txt", "--out", out)
    assert res.exit_code == 0, res.stderr
    got = {p.name: json.loads(p.read_text(encoding="utf-8"))["sections"]["main"][0]["card_id"]
           for p in out.iterdir()}
    assert got == {"x.json": 14558127, "x-2.json": 23434538}


@pytest.mark.parametrize("option", ["--out", "--crops", "--debug"])
def test_an_output_folder_that_cannot_be_made_is_one_line(env, tmp_path, option):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    src = SAMPLES / "decks" / "legal.ydk"
    assert_refused(run("scan", src, option, blocker / "sub"), mentions=option)
    assert_refused(run("scan", src, option, blocker), mentions="not a folder")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_output_folder_is_one_line(env, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        assert_refused(run("scan", SAMPLES / "decks" / "legal.ydk", "--out", ro), mentions="writable")
        assert_refused(run("convert", SAMPLES / "decks" / "legal.ydk", "--to", "ydk", "-o",
                           ro / "x.ydk"), mentions="cannot write")
    finally:
        ro.chmod(0o700)


def test_convert_into_a_missing_folder_is_one_line(env, tmp_path):
    assert_refused(run("convert", SAMPLES / "decks" / "legal.ydk", "--to", "ydk", "-o",
                       tmp_path / "no" / "such" / "x.ydk"), mentions="cannot write")
