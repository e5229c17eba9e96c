"""What a page read needs loaded before its first row, loaded beside the search for its tables.

A process's first page pays, in turn, for the card-name tables (≈0.16 s for 14k cards), the
print fonts' character maps (≈0.15 s) and Tesseract's models (≈0.1 s), all after the tables are
found (≈0.35 s of OpenCV). Loaded on a thread of their own while the tables are searched, the
second core takes them: a one-sheet `scan` ends ≈0.3 s sooner. Every loader is a cache guarded by
its own lock, so the reader, reaching one first, loads it itself and the other waits; a warm
process finds everything loaded and the thread ends at once. Loading only, never reading: the
engines are read by one thread at a time (`scanner.agreement.SecondReading`).
"""
from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from card_db.cdb import CardDatabase

log = logging.getLogger("decksheet.ocr")

DIGITS = "0123456789"
ENGINES = (("kor", 7, ""), ("eng", 7, DIGITS))
"""(language, page-segmentation mode, whitelist) of the engines every page read opens: names
and the printed totals."""


def warm_up(db: "CardDatabase") -> None:
    """Load the name tables, font maps and engines a page read of `db` uses."""
    try:
        from scanner.ocr import verify
        from scanner.ocr.engine import Tesseract
        from scanner.ocr.latin import has_latin_names, latin_vocabulary
        from scanner.ocr.names import Vocabulary

        Vocabulary.build(db)
        if has_latin_names(db):
            latin_vocabulary(db)
        fonts = list(verify.available_families().values())
        fonts += [p for p in (verify._find_font(f) for f in verify.FALLBACKS) if p is not None]
        for path in fonts:
            verify._cmap(str(path))
        tess = Tesseract()
        for lang, psm, whitelist in ENGINES:
            tess.load(lang, psm, whitelist)
    except Exception as exc:  # noqa: BLE001 - the reader loads what it needs itself and reports
        log.debug("warm-up stopped: %s", exc)


def begin_warm_up(db: "CardDatabase") -> threading.Thread:
    """`warm_up` on a thread of its own (daemon: it only loads caches, and ends in well under
    a second)."""
    thread = threading.Thread(target=warm_up, args=(db,), name="ocr-warm-up", daemon=True)
    thread.start()
    return thread
