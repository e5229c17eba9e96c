"""Settings shared by all readers: the CLI, the event flows and the station build the same object."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from scanner.inputs.limits import MAX_PAGES

if TYPE_CHECKING:
    from scanner.model import SheetRead


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
    what the two readings do not agree on. False (a text-only reading: tests, the bench): the
    sheet carries one `not-verified` item."""
    on_text_read: "Callable[[SheetRead], None] | None" = field(default=None, compare=False,
                                                               repr=False)
    """Called with a text or form PDF's reading as soon as it is read, before the pages are
    verified (the station shows it at once, without a verdict). Only when a verification follows;
    synchronous, on the reading thread: the sheet changes afterwards (flags), so a hook copies
    what it keeps, and a hook that raises is logged and ignored. Never pickled (a reader process
    sets its own): options sent to another process arrive without it."""

    on_header_read: "Callable[[SheetRead], None] | None" = field(default=None, compare=False,
                                                                 repr=False)
    """Called by the image reader with the sheet as soon as its header (player name, Konami ID)
    is read — on a db-ko sheet before its rows (the station asks whose sheet it is while they are
    read). The sheet holds the header and the page's notes, nothing else final; synchronous, on
    the reading thread; a hook that raises is logged and ignored; never pickled."""

    def __getstate__(self) -> dict:
        return {**self.__dict__, "on_text_read": None, "on_header_read": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
