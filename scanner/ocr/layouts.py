"""The forms the image reader places on a page: their descriptions live in `scanner.layouts`
(one place for the PDF and the image readers); this module names them for the OCR stages."""
from __future__ import annotations

from scanner.layouts import CN, DB_KO, KDE, OPEN_BOX_FORMS, Layout, TableSpec
from scanner.layouts import PRINTED_FORMS as FORMS

__all__ = ["CN", "DB_KO", "FORMS", "KDE", "OPEN_BOX_FORMS", "Layout", "TableSpec"]
