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


def pdf_page_image(path: Path) -> np.ndarray:
    """The first page as BGR: its one embedded image as scanned, else a rendering."""
    try:
        from pypdf import PdfReader
        reader = PdfReader(str(path))
        page = reader.pages[0]
        images = list(page.images)
        if len(images) == 1:
            return decode_image(images[0].data, path.name)
    except UnreadableInput:
        pass
    except Exception as exc:  # noqa: BLE001 - fall back to rendering the page
        log.debug("embedded image not usable: %s", exc)
    return render_page(path, 0)


def render_page(path: Path, index: int, dpi: int = RENDER_DPI) -> np.ndarray:
    """Page `index` rendered in gray, returned as BGR (the pipeline takes BGR, as decoded)."""
    import pypdfium2 as pdfium  # late: native library

    try:
        doc = pdfium.PdfDocument(str(path))
        try:
            if len(doc) <= index:
                raise UnreadableInput(f"{path.name}: the PDF has no page to read")
            bitmap = doc[index].render(scale=dpi / 72, grayscale=True)
            gray = np.array(bitmap.to_pil().convert("L"))
            return cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
        finally:
            doc.close()
    except pdfium.PdfiumError as exc:
        raise UnreadableInput(f"{path.name}: the PDF page cannot be rendered ({exc})") from None
