"""Small stand-ins for reader objects that tests build by hand."""
from __future__ import annotations


def row_read(column: str, row: int, count: int | None, conf: float = 0.95, **kw):
    """An OCR row read (`scanner.ocr.rows.RowRead`) with a resolved name, as the totals and
    pen-count checks see it; `kw` overrides any field."""
    from scanner.ocr.names import NameMatch
    from scanner.ocr.rows import RowRead
    base = dict(column=column, row=row, text="x", text_conf=1.0, match=NameMatch(1, "x", 1.0, 1.0),
                count=count, count_conf=conf, count_detail="", struck_row=False, count_struck=False,
                handwritten=False, flags=[])
    base.update(kw)
    return RowRead(**base)
