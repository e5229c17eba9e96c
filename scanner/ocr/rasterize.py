"""An image-only PDF (a scan) → its page image: the embedded JPEG, or a pypdfium2 rendering."""
from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np

from scanner.errors import UnreadableInput
from scanner.ocr.page import decode_image

log = logging.getLogger("decksheet.ocr")

RENDER_DPI = 200
"""A scan saved as PDF whose page is not one embedded image is rendered at this resolution."""


MAX_PAGES = 4
"""Pages of a scanned PDF looked at for the sheet (a blank or cover page may come first)."""


def pdf_page_count(path: Path) -> int:
    """Pages in the PDF (1 when the count cannot be read: the first page is still tried)."""
    try:
        from pypdf import PdfReader
        return max(1, len(PdfReader(str(path)).pages))
    except Exception as exc:  # noqa: BLE001 - rendering the first page gives the real error
        log.debug("page count unreadable: %s", exc)
        return 1


def pdf_page_image(path: Path, index: int = 0) -> np.ndarray:
    """Page `index` as BGR: its one embedded image as scanned, else a rendering."""
    try:
        from pypdf import PdfReader
        reader = PdfReader(str(path))
        page = reader.pages[index]
        images = list(page.images)
        if len(images) == 1:
            return decode_image(images[0].data, path.name)
    except UnreadableInput:
        pass
    except Exception as exc:  # noqa: BLE001 - fall back to rendering the page
        log.debug("embedded image not usable: %s", exc)
    return render_page(path, index)


def render_page(path: Path, index: int, dpi: int = RENDER_DPI) -> np.ndarray:
    """Page `index` rendered in gray, returned as BGR (the pipeline takes BGR, as decoded)."""
    import pypdfium2 as pdfium  # late: native library

    try:
        doc = pdfium.PdfDocument(str(path))
        try:
            if len(doc) <= index:
                raise UnreadableInput("input.pdf-no-pages", file=path.name)
            bitmap = doc[index].render(scale=dpi / 72, grayscale=True)
            gray = np.array(bitmap.to_pil().convert("L"))
            return cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
        finally:
            doc.close()
    except pdfium.PdfiumError as exc:
        raise UnreadableInput("input.pdf-page-unrenderable", file=path.name, detail=exc) from None
