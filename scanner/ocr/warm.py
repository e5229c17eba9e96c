"""Load, before the first sheet, what a process's first photo read would load on the judge's
clock: OpenCV and the reading stages' modules, the Tesseract models, the name-rendering fonts.

A station's reader spends ≈ 0.4 s of processor time more on its first photo than on the next
(pen-corrected photos of seed 3535: 1.85 s vs 1.41 s), most of it these loads; a reader the
station starts ahead of the desk's first sheet has them done (`scanner.web.reader`).
"""
from __future__ import annotations

import logging
import time

log = logging.getLogger("decksheet.warm")

ENGINES: tuple[tuple[str, int, str], ...] = (
    ("kor", 7, ""),                     # card names (names.OcrRead), written names
    ("kor+eng", 7, ""),                 # a name read mostly without Hangul; hand_names' third read
    ("eng", 7, "0123456789"),           # the Konami ID, written totals (header, totals)
)
"""(language, page-segmentation mode, whitelist) of the engines a photo read uses: one loaded
engine each (`engine._ENGINES` is keyed by language and whitelist)."""


def warm_up() -> float:
    """Load the engines, modules and fonts; the seconds it took. Never raises: a load that fails
    here fails again, with its coded error, in the read that needs it."""
    started = time.perf_counter()
    try:
        import numpy as np

        from scanner.ocr import pipeline  # noqa: F401 - imports cv2 and every stage
        from scanner.ocr.engine import Tesseract
        from scanner.ocr.verify import available_families, render_name

        blank = np.full((48, 160), 255, np.uint8)
        tess = Tesseract()
        for lang, psm, whitelist in ENGINES:
            tess.read(blank, lang=lang, psm=psm, whitelist=whitelist)
        for path in available_families().values():
            render_name("카드", path)  # the font file and its character map
    except Exception as exc:  # noqa: BLE001 - warming is an optimisation, never a failure
        log.warning("reader not warmed: %s", exc)
    return time.perf_counter() - started
