"""The programs OCR needs, probed once at the start of `scan` and `serve` (as OCRmyPDF does):
a missing one refuses with one line naming the package, instead of failing every photo later."""
from __future__ import annotations

from pathlib import Path

from scanner.errors import MissingToolError


def shipped_data(path: Path, make: str) -> Path:
    """`path`, a data file the reader ships (a network, templates, drawings), or
    `MissingToolError` naming the module that builds it (`python -m make`) when it is missing."""
    if not path.is_file():
        raise MissingToolError("tool.model-missing", path=str(path), make=make)
    return path


def probe_tools() -> None:
    """Tesserocr and Tesseract's `kor` model load, and a Korean print font for the rendering
    check is installed; else `MissingToolError` with the install line."""
    from scanner.ocr import engine, fonts  # (not `verify`: OpenCV would load in the command too)

    try:
        import tesserocr
    except ImportError:
        raise MissingToolError("tool.no-tesseract") from None
    try:
        path = engine.tessdata_dir()
    except MissingToolError:
        raise MissingToolError("tool.no-kor") from None
    try:
        with tesserocr.PyTessBaseAPI(path=path, lang="kor"):
            pass
    except RuntimeError:
        raise MissingToolError("tool.no-kor") from None
    if not any(fonts.find_font(f) for f in fonts.FAMILIES.values()):
        raise MissingToolError("tool.no-font")
