"""Issues 33 and 37: small hostile PDFs are measured before any PDF library opens them, in a
reader process with a memory cap, and end refused with a coded error — in `scan` and at the
station, where nothing parses an upload in the server process and a reader's death fails only
the job whose file caused it. The files are built by tests/hostile_pdfs.py (no stored
binaries); bench/bench_hostile.py measures them at the issues' scale."""
from __future__ import annotations

import base64
import binascii
import io
import zlib
from pathlib import Path

import pytest

from scanner.errors import UnreadableInput
from scanner.inputs import limits
from scanner.inputs.pdf_streams import measure_pdf
from tests import hostile_pdfs as hp
from tests.adversarial.conftest import SAMPLES, assert_refused, run

MB = 1 << 20

SMALL = {
    # class: (scale that crosses its limit, the code that refuses it)
    "endstream-shadow": (0.04, "input.pdf-stream-too-large"),
    "hex-flate-chain": (0.04, "input.pdf-stream-too-large"),
    "shared-image-99-pages": (0.06, "input.pdf-too-many-image-draws"),
    "tiny-chars-later-page": (0.5, "input.pdf-too-much-drawing"),
    "shared-annots-99-pages": (0.01, "input.pdf-too-many-annotations"),
    "nested-forms": (1.0, "input.pdf-too-much-drawing"),
    "objstm-double-flate": (0.02, "input.pdf-stream-too-large"),
    "lone-cr-stream": (0.04, "input.pdf-stream-too-large"),
    "inline-image-bomb": (0.07, "input.pdf-stream-too-large"),
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    out = {}
    for name, (scale, _) in SMALL.items():
        out[name] = folder / f"{name}.pdf"
        out[name].write_bytes(hp.BUILDERS[name](scale))
    return out


# ---------------------------------------------------------------- the guard, in this process

@pytest.mark.parametrize("name", list(SMALL))
def test_each_hostile_class_is_refused_by_the_guard(hostile, name):
    data = hostile[name].read_bytes()
    assert len(data) < 3 * MB
    with pytest.raises(UnreadableInput) as err:
        measure_pdf(data, hostile[name].name)
    assert err.value.code == SMALL[name][1], str(err.value)
    assert hostile[name].name in err.value.render("ko")


def test_below_their_limits_the_same_files_are_measured_whole():
    """Each limit is crossed by the class above, not by the kind of file. At a fraction of
    the scale each is measured through: 20 MB behind `endstream`, a hex-then-Flate chain or a
    lone CR is counted (and a page running 20 MB of drawing refused for that); an object
    stream deflated twice, 100 shared annotations and 600 K characters pass."""
    for name in ("endstream-shadow", "hex-flate-chain", "lone-cr-stream"):
        with pytest.raises(UnreadableInput) as err:
            measure_pdf(hp.BUILDERS[name](0.02), name)
        assert err.value.code == "input.pdf-too-much-drawing" and err.value.params["mb"] == "20.0"
    census = measure_pdf(hp.objstm_double_flate(0.01), "o")
    assert census.pages == 1 and census.inflated > 20 * MB
    census = measure_pdf(hp.shared_annots_pages(0.001), "a")
    assert (census.pages, census.annotations) == (99, 9900)
    assert measure_pdf(hp.tiny_chars_later_page(0.2), "t").page_content > 600_000


def _one_stream_pdf(data: bytes, filters: bytes, eol: bytes = b"\n", parms: bytes = b"") -> bytes:
    b = hp.PdfBuilder()
    content = b.new(hp.stream(b"/Filter " + filters + parms, data, eol))
    page = b.new(b"<< /Type /Page /Parent 0 0 R /MediaBox [0 0 595 842] /Contents %d 0 R >>"
                 % content)
    return b.build(hp._page_tree(b, [page]))


def _lzw(data: bytes) -> bytes:
    """PDF LZW (early change 1), written plainly for the test."""
    table = {bytes([i]): i for i in range(256)}
    codes, width, word = [256], 9, b""
    next_code = 258
    out_bits = []

    def emit(code: int) -> None:
        out_bits.append((code, width))

    emit(256)
    for byte in data:
        nxt = word + bytes([byte])
        if nxt in table:
            word = nxt
            continue
        emit(table[word])
        table[nxt] = next_code
        next_code += 1
        if next_code + 1 > (1 << width) and width < 12:
            width += 1
        if next_code >= 4094:
            emit(256)
            table = {bytes([i]): i for i in range(256)}
            next_code, width = 258, 9
        word = bytes([byte])
    if word:
        emit(table[word])
    emit(257)
    acc = nbits = 0
    out = bytearray()
    for code, w in out_bits:
        acc = (acc << w) | code
        nbits += w
        while nbits >= 8:
            nbits -= 8
            out.append((acc >> nbits) & 0xFF)
    if nbits:
        out.append((acc << (8 - nbits)) & 0xFF)
    del codes
    return bytes(out)


def _run_length(data: bytes) -> bytes:
    out = bytearray()
    for i in range(0, len(data), 128):
        part = data[i:i + 128]
        if part == part[:1] * len(part) and len(part) > 1:
            out += bytes([257 - len(part)]) + part[:1]
        else:
            out += bytes([len(part) - 1]) + part
    return bytes(out) + b"\x80"


PLAIN = (b"BT /F1 12 Tf 72 720 Td (Deck sheet) Tj ET\n" * 300 + bytes(range(256)) * 20
         + b"\0" * 5000)


@pytest.mark.parametrize("filters, encode", [
    (b"/FlateDecode", zlib.compress),
    (b"[/ASCIIHexDecode /FlateDecode]", lambda d: binascii.hexlify(zlib.compress(d)) + b">"),
    (b"[/AHx /Fl]", lambda d: binascii.hexlify(zlib.compress(d)) + b">"),
    (b"[/ASCII85Decode /FlateDecode]", lambda d: base64.a85encode(zlib.compress(d)) + b"~>"),
    (b"/ASCII85Decode", lambda d: base64.a85encode(d) + b"~>"),  # with 'z' for the zeros
    (b"/LZWDecode", _lzw),
    (b"/RunLengthDecode", _run_length),
    (b"[/FlateDecode /FlateDecode]", lambda d: zlib.compress(zlib.compress(d))),
    (b"[/RunLengthDecode /LZWDecode /ASCIIHexDecode]",
     lambda d: _run_length(_lzw(binascii.hexlify(d) + b">"))),
])
def test_every_filter_of_a_chain_is_decoded_to_its_size(filters, encode):
    data = _one_stream_pdf(encode(PLAIN), filters)
    census = measure_pdf(data, "chain.pdf")
    assert census.content == len(PLAIN), (filters, census)


@pytest.mark.parametrize("eol", [b"\r\n", b"\n", b"\r"])
def test_any_line_end_after_stream_is_read_as_pdfium_reads_it(eol):
    bomb = hp.spaces_bomb(40 * MB)
    with pytest.raises(UnreadableInput) as err:
        measure_pdf(_one_stream_pdf(bomb, b"/FlateDecode", eol), "eol.pdf")
    assert err.value.code == "input.pdf-stream-too-large"
    small = _one_stream_pdf(zlib.compress(PLAIN), b"/FlateDecode", eol)
    assert measure_pdf(small, "eol.pdf").content == len(PLAIN)


@pytest.mark.parametrize("filters, parms", [
    (b"/SomethingElse", b""),
    (b"[/DCTDecode /FlateDecode]", b""),
    (b"[/FlateDecode /FlateDecode]", b" /DecodeParms [<< /Predictor 12 /Columns 4 >> null]"),
])
def test_what_cannot_be_measured_is_refused(filters, parms):
    with pytest.raises(UnreadableInput) as err:
        measure_pdf(_one_stream_pdf(zlib.compress(zlib.compress(PLAIN)), filters, parms=parms),
                    "odd.pdf")
    assert err.value.code == "input.pdf-stream-unmeasurable"


def test_a_jpeg_is_counted_by_the_size_its_header_claims():
    """An image codec is not decoded: it counts as the image pdfium would hold, the larger
    of the dictionary's size and the JPEG's own header."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (900, 700), "white").save(buf, "JPEG")
    b = hp.PdfBuilder()
    img = b.new(hp.stream(b"/Type /XObject /Subtype /Image /Width 9 /Height 7 /ColorSpace "
                          b"/DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", buf.getvalue()))
    content = b.new(hp.stream(b"", b"q 500 0 0 400 40 60 cm /Im0 Do Q"))
    page = b.new(b"<< /Type /Page /Parent 0 0 R /MediaBox [0 0 595 842] /Contents %d 0 R "
                 b"/Resources << /XObject << /Im0 %d 0 R >> >> >>" % (content, img))
    census = measure_pdf(b.build(hp._page_tree(b, [page])), "jpeg.pdf")
    assert census.images == 900 * 700 * 4


@pytest.mark.parametrize("algorithm", ["RC4-40", "RC4-128", "AES-128", "AES-256"])
def test_encrypted_files_are_measured_through_their_encryption(tmp_path, algorithm):
    """Opened with the empty password as pdfium opens them: an owner-password sheet measures
    as its plain self, a bomb inside one is refused, and a file that needs a password is left
    to the readers (pdfium cannot unpack anything in it either)."""
    import pypdf

    def locked(data: bytes, user: str) -> bytes:
        writer = pypdf.PdfWriter(clone_from=io.BytesIO(data))
        writer.encrypt(user_password=user, owner_password="owner", algorithm=algorithm)
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()

    sheet = (SAMPLES / "sheets" / "kde-form-sky-striker.pdf").read_bytes()
    plain = measure_pdf(sheet, "s.pdf")
    got = measure_pdf(locked(sheet, ""), "s.pdf")
    assert got.encrypted and not got.password
    assert (got.inflated, got.content, got.pages, got.annotations) == \
        (plain.inflated, plain.content, plain.pages, plain.annotations)
    with pytest.raises(UnreadableInput) as err:
        measure_pdf(locked(hp.endstream_shadow(0.04), ""), "bomb.pdf")
    assert err.value.code == "input.pdf-stream-too-large"
    assert measure_pdf(locked(sheet, "judge"), "s.pdf").password


def _within_limits(pdfs: list[Path]) -> None:
    assert pdfs
    for pdf in pdfs:
        c = measure_pdf(pdf.read_bytes(), pdf.name)
        assert c.page_content * 4 < limits.MAX_PDF_PAGE_CONTENT_BYTES, pdf
        assert c.images * 4 < limits.MAX_PDF_DRAWN_IMAGE_BYTES, pdf
        assert c.annotations * 4 < limits.MAX_PDF_ANNOTATIONS, pdf
        assert c.steps * 4 < limits.PDF_GUARD_STEPS, pdf
        assert 1 <= c.pages <= 2, pdf


def test_the_samples_pass_the_guard_well_within_its_limits():
    _within_limits(sorted((SAMPLES / "sheets").glob("*.pdf"))
                   + sorted((SAMPLES / "photos").glob("*.pdf")))


def test_every_shared_pdf_passes_the_guard_well_within_its_limits(shared_dir):
    """Fixtures, third-party sheets (Genesys, remade forms), Konami's and the Chinese forms."""
    _within_limits(sorted(shared_dir.rglob("*.pdf")))


@pytest.mark.parametrize("kind", ["orphan-keywords", "object-headers", "trailers", "long-array"])
def test_a_file_built_to_make_the_guard_slow_is_refused_as_too_complex(kind):
    """Each of these kept the guard busy for seconds to minutes before its step budget
    (`limits.PDF_GUARD_STEPS`) covered every loop; now each is refused after the budget.
    (Nesting deeper than 64 is no object at all: it ends the parse at once.)"""
    head = b"%PDF-1.7\n"
    data = {
        "orphan-keywords": head + b"x stream\n" * 500_000,
        "object-headers": head + b"1 0 obj\n" * 500_000 + b"<<>> stream\nabc endstream",
        "trailers": head + b"trailer << /Root 1 0 R >>\n" * 200_000,
        "long-array": head + b"1 0 obj << /A [" + b"1 " * 1_000_000 + b"] >> stream\nx endstream",
    }[kind]
    with pytest.raises(UnreadableInput) as err:
        measure_pdf(data, "slow.pdf")
    assert err.value.code == "input.pdf-too-complex"


def test_a_page_of_too_many_characters_is_refused_by_the_text_reader(tmp_path, demo_db):
    """Under the drawing limit, 40,000 characters on page 2: pdfium lists them, the reader
    refuses the page before looking at each (an honest sheet has ~2,200)."""
    from scanner.read import load_decklist

    path = tmp_path / "chars.pdf"
    path.write_bytes(hp.tiny_chars_later_page(40_000 / 3_000_000))
    assert measure_pdf(path.read_bytes(), path.name).page_content < limits.MAX_PDF_PAGE_CONTENT_BYTES
    with pytest.raises(UnreadableInput) as err:
        load_decklist(str(path), demo_db)
    assert err.value.code == "input.pdf-too-many-characters" and "page 2" in str(err.value)


# ---------------------------------------------------------------- `decksheet scan`

WHY = {"input.pdf-stream-too-large": "unpacks to more than 32 MB",
       "input.pdf-too-much-drawing": "MB of drawing instructions",
       "input.pdf-too-many-image-draws": "MB of images",
       "input.pdf-too-many-annotations": "10000 annotations"}


@pytest.mark.parametrize("name", list(SMALL))
def test_scan_refuses_each_class_in_one_line(env, hostile, name):
    """Refused by the guard, for its reason (before, each was opened by pdfium, read for
    seconds to minutes, and ended "not a deck sheet" — or read as one)."""
    line = assert_refused(run("scan", hostile[name]), mentions=hostile[name].name)
    assert WHY[SMALL[name][1]] in line, line


def test_a_batch_reads_the_honest_beside_the_hostile(env, hostile):
    honest = SAMPLES / "sheets" / "db-hero-square.pdf"
    res = run("scan", "--json", "-j", "2", hostile["objstm-double-flate"], honest,
              SAMPLES / "decks" / "registered.ydk")
    assert res.exit_code == 2 and "Traceback" not in res.stderr
    assert [d["source"]["reader"] for d in __import__("json").loads(res.stdout)] == \
        ["pdf-text", "ydk"]


@pytest.mark.slow
def test_a_one_file_scan_reads_under_the_reader_memory_cap(env, tmp_path, monkeypatch):
    """Before, one file was read in the command's own process, with no cap: now it is read by
    a reader process that has the pool's cap, and a read past it fails in one line."""
    from scanner.inputs.pool import ENV_WORKER_MEMORY

    side, page = 7700, 2772  # one 59 MP image page: within every guard limit
    b = hp.PdfBuilder()
    img = b.new(hp.stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace "
                          b"/DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode" % (side, side),
                          hp.deflate_repeat(bytes(range(256)) * (side * 3 // 256)
                                            + bytes(side * 3 % 256), side)))
    content = b.new(hp.stream(b"", b"q %d 0 0 %d 0 0 cm /Im0 Do Q" % (page, page)))
    kid = b.new(b"<< /Type /Page /Parent 0 0 R /MediaBox [0 0 %d %d] /Contents %d 0 R "
                b"/Resources << /XObject << /Im0 %d 0 R >> >> >>" % (page, page, content, img))
    (big := tmp_path / "big-page.pdf").write_bytes(b.build(hp._page_tree(b, [kid])))
    # The read's resident peak is ≈ 510 MB and its address space more: at 800 MB the cap was
    # met on some runs and not on others (then the honest "not a deck sheet"); 600 always is.
    monkeypatch.setenv(ENV_WORKER_MEMORY, "600")
    line = assert_refused(run("scan", big))
    assert "600 MB" in line, line
