"""What a station reader process holds (run in the reader, by the tests of its warming)."""
from __future__ import annotations


def loaded_engines() -> list[tuple[str, str]]:
    """(language, whitelist) of the Tesseract engines this process has loaded."""
    from scanner.ocr import engine

    return sorted((lang, whitelist) for _path, lang, whitelist in engine._ENGINES)
