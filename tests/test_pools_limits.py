"""One place for limits, one executor for every reader pool (memory-bounded workers), PDF
stream-size limits, and a tool probe at the start of scan/serve."""
from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from scanner.errors import UnreadableInput

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"


def _pdf_with_stream(body: bytes, image: tuple[int, int] | None = None) -> bytes:
    """A one-page PDF whose content stream is `body`, Flate-compressed; or, given `image`
    (width, height), whose page draws `body` as an RGB image of that size."""
    packed = zlib.compress(body, 9)
    kind = b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB " \
        b"/BitsPerComponent 8 " % image if image else b""
    draw = b"q 500 0 0 700 40 60 cm /Im0 Do Q"
    page = b"/Contents 5 0 R /Resources << /XObject << /Im0 4 0 R >> >>" if image \
        else b"/Contents 4 0 R"
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] " + page + b" >>",
            b"<< " + kind + b"/Length %d /Filter /FlateDecode >>\nstream\n" % len(packed)
            + packed + b"\nendstream"]
    if image:
        objs.append(b"<< /Length %d >>\nstream\n" % len(draw) + draw + b"\nendstream")
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for i, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def test_a_deflate_bomb_pdf_is_refused_before_any_pdf_library_opens_it(tmp_path, demo_db):
    from scanner.errors import UnreadableInput
    from scanner.inputs import limits
    from scanner.read import load_decklist

    bomb = tmp_path / "bomb.pdf"
    bomb.write_bytes(_pdf_with_stream(b" " * (limits.MAX_PDF_STREAM_BYTES + 1024)))
    assert bomb.stat().st_size < 200_000
    with pytest.raises(UnreadableInput) as err:
        load_decklist(str(bomb), demo_db)
    assert err.value.code == "input.pdf-stream-too-large"
    assert "MB" in err.value.render("ko")


def test_stream_limits_leave_honest_sheets_and_big_images_alone():
    from scanner.inputs import limits
    from scanner.inputs.pdf_streams import check_pdf_streams

    for pdf in sorted((SAMPLES / "sheets").glob("*.pdf")):
        check_pdf_streams(pdf.read_bytes(), pdf.name)
    # A 48 MP RGB image stream is over the content limit but within the image limit.
    big = _pdf_with_stream(b"\0" * (8000 * 6000 * 3), image=(8000, 6000))
    assert check_pdf_streams(big, "scan.pdf") == 8000 * 6000 * 3
    assert limits.MAX_PDF_STREAM_BYTES < 8000 * 6000 * 3 <= limits.MAX_PDF_IMAGE_STREAM_BYTES


def test_the_station_takes_the_bomb_unopened_and_its_reader_refuses_it(tmp_path, demo_db):
    """The request looks at bytes only (the server process opens no PDF); the reader, which
    has the memory cap, refuses the bomb with the guard's code, in Korean."""
    from scanner.inputs import limits
    from scanner.inputs.options import ReadOptions
    from scanner.read import load_decklist
    from scanner.web.uploads import check_upload

    bomb = _pdf_with_stream(b" " * (limits.MAX_PDF_STREAM_BYTES + 1))
    assert check_upload(bomb, "b.pdf").kind.value == "pdf"
    (path := tmp_path / "b.pdf").write_bytes(bomb)
    with pytest.raises(UnreadableInput) as err:
        load_decklist(str(path), demo_db, ReadOptions(max_pages=limits.MAX_SHEET_PAGES))
    assert err.value.code == "input.pdf-stream-too-large" and "MB" in err.value.render("ko")


def _png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = lambda kind, data: (struct.pack(">I", len(data)) + kind + data  # noqa: E731
                                + struct.pack(">I", zlib.crc32(kind + data)))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) \
        + chunk(b"IEND", b"")


def test_one_pixel_limit_for_the_cli_and_the_station():
    """A 48 MP phone photo (8000×6000) is read by the CLI, so the station takes it too; both
    refuse past the one limit."""
    from scanner.inputs import limits
    from scanner.inputs.image_header import probe_image
    from scanner.web.uploads import check_upload

    side = int((limits.MAX_PIXELS + 10) ** 0.5) + 1
    for png in (_png_header(8000, 6000), _png_header(side, side)):
        assert check_upload(png, "photo.png").kind.value == "image"  # bytes only, unopened
    probe_image(_png_header(8000, 6000), "photo.png")  # what every reader runs first
    limits.check_pixels(8000, 6000, "photo.png")
    with pytest.raises(UnreadableInput) as err:
        probe_image(_png_header(side, side), "huge.png")
    assert err.value.code == "input.too-many-pixels"


def test_every_reader_pool_is_the_one_executor():
    """No module starts a process pool of its own."""
    own = [p.relative_to(REPO) for pkg in ("scanner", "card_db") for p in (REPO / pkg).rglob("*.py")
           if "ProcessPoolExecutor(" in p.read_text(encoding="utf-8")
           and p.name != "pool.py"]
    assert own == []


@pytest.mark.slow
def test_a_worker_past_its_memory_bound_fails_that_input_clearly(monkeypatch, demo_db):
    from scanner.errors import UnreadableInput
    from scanner.inputs.pool import ENV_WORKER_MEMORY
    from scanner.read import load_decklists

    photo = str(SAMPLES / "photos" / "photo-corrected-02.jpg")   # OCR peaks near 0.8 GB
    ydk = str(SAMPLES / "decks" / "registered.ydk")
    monkeypatch.setenv(ENV_WORKER_MEMORY, "450")
    got = dict(load_decklists([ydk, photo], demo_db, workers=2))
    assert not isinstance(got[ydk], Exception)           # the honest text list is read
    assert isinstance(got[photo], UnreadableInput), got[photo]
    assert got[photo].code in ("input.worker-memory", "input.worker-died")
    assert "450 MB" in str(got[photo])


def _opencv_out_of_memory(how: str):
    import cv2

    def fail(*_args, **_kwargs):
        if how == "bad_alloc":  # C++'s allocation failure, passed on by OpenCV with no code
            raise cv2.error("std::bad_alloc")
        exc = cv2.error("Failed to allocate 96000000 bytes")
        exc.code = -4  # StsNoMem: what OpenCV's allocator raises past the bound
        raise exc
    return fail


@pytest.mark.parametrize("how", ["StsNoMem", "bad_alloc"])
@pytest.mark.parametrize("step", ["imdecode", "page"])
def test_opencv_out_of_memory_is_the_memory_bound_not_a_bad_photo(monkeypatch, demo_db, step, how):
    """The readers turn an OpenCV failure into "corrupt image" or "this step failed, take it
    again"; an allocation past the worker's bound is neither: the worker reports the bound."""
    from scanner.inputs.options import ReadOptions
    from scanner.ocr import page, pipeline
    from scanner.read import _load_in_worker

    photo = str(SAMPLES / "photos" / "photo-corrected-02.jpg")
    if step == "imdecode":
        monkeypatch.setattr(page.cv2, "imdecode", _opencv_out_of_memory(how))
    else:
        monkeypatch.setattr(pipeline, "locate", _opencv_out_of_memory(how))
    monkeypatch.setattr("scanner.read._worker_db", demo_db)
    got = _load_in_worker(photo, ReadOptions())
    assert isinstance(got, UnreadableInput), got
    assert got.code == "input.worker-memory", got


def test_a_missing_kor_model_refuses_scan_and_serve_in_one_line(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from scanner.cli import main
    from scanner.ocr import engine

    monkeypatch.setattr(engine, "TESSDATA_DIRS", ())
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))
    photo = str(SAMPLES / "photos" / "photo-01.jpg")
    for args in (["scan", photo], ["serve", "--event", str(tmp_path / "e.sqlite")]):
        if args[0] == "serve":
            import datetime as dt

            from scanner.event.stores import create_event
            create_event(tmp_path / "e.sqlite", "t", dt.date(2026, 7, 12)).close()
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 2, r.output
        lines = [ln for ln in r.output.splitlines() if ln.startswith("decksheet: error:")]
        assert lines == ["decksheet: error: Tesseract's Korean model 'kor' is not installed "
                         "(apt-get install tesseract-ocr-kor)"], r.output


def test_a_missing_font_is_probed_too(monkeypatch):
    from scanner.errors import MissingToolError
    from scanner.ocr import fonts
    from scanner.ocr.tools import probe_tools

    probe_tools()                                   # this machine has everything
    monkeypatch.setattr(fonts, "FONT_DIRS", ())
    fonts.find_font.cache_clear()
    try:
        with pytest.raises(MissingToolError) as err:
            probe_tools()
        assert err.value.code == "tool.no-font"
    finally:
        monkeypatch.undo()
        fonts.find_font.cache_clear()


def test_readers_are_forked_only_from_a_process_without_threads_or_reading_libraries():
    """`decksheet scan` forks its reader (the interpreter and the package already loaded); a
    process with another thread, or one that has loaded OpenCV, Tesseract or pdfium, spawns."""
    import subprocess
    import sys

    script = ("import sys, threading, time\n"
              "from scanner.inputs.pool import start_context\n"
              "print(start_context().get_start_method())\n"
              "t = threading.Thread(target=time.sleep, args=(0.5,)); t.start()\n"
              "print(start_context().get_start_method()); t.join()\n"
              "import cv2\n"
              "print(start_context().get_start_method())\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=REPO, check=True).stdout.split()
    assert out == ["fork", "spawn", "spawn"]


@pytest.mark.slow
def test_a_forked_reader_has_the_memory_bound_too(tmp_path):
    """The memory cap is set in the reader after the fork: `decksheet scan` of a photo that
    needs more than the bound fails with its coded error, the command does not."""
    import os
    import subprocess
    import sys

    from scanner.inputs.pool import ENV_WORKER_MEMORY

    photo = str(SAMPLES / "photos" / "photo-corrected-02.jpg")
    env = {**os.environ, ENV_WORKER_MEMORY: "450", "DECKSHEET_LANG": "en"}
    exe = str(Path(sys.executable).with_name("decksheet"))
    r = subprocess.run([exe, "scan", photo], capture_output=True, text=True, cwd=tmp_path, env=env,
                       timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "450 MB" in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
