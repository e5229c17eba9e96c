"""Settings shared by all readers: the CLI, the event flows and the station build the same object."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scanner.inputs.limits import MAX_PAGES


@dataclass
class ReadOptions:
    """Settings shared by all readers."""

    crops_dir: Path | None = None
    """Save images of flagged cells here (photo/scan readers)."""
    debug_dir: Path | None = None
    """Save pictures of the detected page, grid and cells here."""
    max_pages: int = MAX_PAGES
    """Pages a PDF (frames an image) may have: counted on the page tree before any PDF
    library opens it, and again by pdfium (the station: `limits.MAX_SHEET_PAGES`)."""
    verify: bool = True
    """Read a text or form PDF a second time, by the image reader on its rendered pages, and flag
    what the two readings do not agree on. False (the station's first, instant reading): the sheet
    carries one `not-verified` item until it is verified."""
