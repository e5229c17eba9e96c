"""The deck-sheet forms decksheet knows, as data: one description per form, read by both the PDF
readers (`scanner.pdf`) and the image reader (`scanner.ocr`).

A form is a `Layout` (`model`): its deck tables (column rules, row rules, which side the count is
on), its header boxes (player, Konami ID, totals), the words printed on it that identify it, and
for fillable forms where its fields sit. A new form is added by writing its description here and a
test; the readers take every form of `FORMS` in turn and keep the one the page fits best.
"""
from __future__ import annotations

from scanner.layouts.cn import CN
from scanner.layouts.dbko import DB_KO
from scanner.layouts.kde import KDE
from scanner.layouts.model import Layout, TableSpec

FORMS: tuple[Layout, ...] = (KDE, CN)
"""Fixed forms, placed on a page image by their printed rules (`ocr.form_fit`)."""

__all__ = ["CN", "DB_KO", "FORMS", "KDE", "Layout", "TableSpec"]
