"""The deck-sheet forms decksheet knows, as data: one description per form, read by both the PDF
readers (`scanner.pdf`) and the image reader (`scanner.ocr`).

A form is a `Layout` (`model`): its deck tables (column rules, row rules, which side the count is
on), its header boxes (player, Konami ID, totals), the words printed on it that identify it, and
for fillable forms how its fields are named and where they sit (`FormFields`). A new form is
added by writing its description here (one file; a fillable form's measured geometry — rules,
field tops and boxes — in one TOML file beside it, `kde.py` ↔ `kde.toml`) and a test; the readers take every form of
`FORMS` in turn: the PDF reader the one whose fields or printed words the file has, the image
reader the one the page's rules fit best.
"""
from __future__ import annotations

from scanner.layouts.boxed import BOXED_LIST
from scanner.layouts.cn import CN
from scanner.layouts.dbko import DB_KO
from scanner.layouts.genesys import GENESYS
from scanner.layouts.kde import KDE
from scanner.layouts.latam import LATAM
from scanner.layouts.model import Box, Cells, FormFields, Layout, TableSpec

FORMS: tuple[Layout, ...] = (KDE, CN, LATAM)
"""Fixed forms: read from their fields or their page words (PDF), placed on a page image by
their printed rules (`ocr.form_fit`)."""
PRINTED_FORMS: tuple[Layout, ...] = FORMS + (GENESYS,)
"""Every form the image reader places on a page: the fillable ones and Konami's Genesys deck
list, which is filled as page text (the PDF reader reads it by its labels, `pdf.layout_dbko`)."""

OPEN_BOX_FORMS: tuple[Layout, ...] = (BOXED_LIST,)
"""Forms whose deck tables are open boxes with no row rules (`Layout.open_boxes`): the image
reader finds their boxes and lines by the ink (`ocr.boxed`) on a page no ruled form fits."""

__all__ = ["BOXED_LIST", "CN", "OPEN_BOX_FORMS", "DB_KO", "FORMS", "GENESYS", "KDE", "LATAM", "PRINTED_FORMS", "Box", "Cells", "FormFields",
           "Layout", "TableSpec"]
