"""Whether a fitted form's rows were placed on its printed rows: a row that reads as one of the
form's printed labels (`Layout.printed_labels`: a table's title, the `<<< TOTAL` row, the ID
label above the tables) was fitted rows off, and every line of the sheet with it — the form's
rows are evenly spaced, so a fit shifted by a row or two matches nearly every rule too. The
page is then not read from that fit: the sheet asks for another photo instead (`pipeline`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from rapidfuzz import fuzz

from scanner.ocr.layouts import Layout


@dataclass(frozen=True)
class FitCheckTuning:
    edge_rows: int = 3
    """Rows at each end of a table that are looked at (a fit rows off puts the title or the
    label above it in the first rows, the total row in the last)."""
    min_letters: int = 5
    """A read with fewer Latin letters than this is no label (a few letters of garbage)."""
    min_ratio: float = 85.0
    """A read this alike to a label (rapidfuzz ratio, letters only) is it…"""
    min_part: float = 0.6
    """…and so is a part of a label at least this share of its letters (`GAMEID` of `CARD GAME
    ID`; a lone `Cards` or `Spell`, the start of many a card's name, is not)…"""
    min_read_share: float = 0.6
    """…also when the read has more letters around that part (the row's ink beside the label:
    `) GAME ID:  71712 joy y` of a fit two rows off), as long as the part is at least this
    share of the read's letters (`SPELLCA` of a card named `Spell Calling` is not: no card name
    in the Korean or English database reads as a label)."""


FIT_CHECK = FitCheckTuning()

_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def printed_labels(layouts: tuple[Layout, ...]) -> tuple[str, ...]:
    """Every label the forms print: the page may be another form than the one fitted (a fit
    rows off can be of another form whose pitch is near), and no card is named like them."""
    return tuple(dict.fromkeys(label for layout in layouts for label in layout.printed_labels))


def reads_as_label(text: str, labels: tuple[str, ...], tuning: FitCheckTuning = FIT_CHECK) -> str | None:
    """The printed label a row's read is (its Latin letters a label or part of one, no Hangul),
    or None."""
    if not labels or _HANGUL.search(text):
        return None
    got = _letters(text)
    if len(got) < tuning.min_letters:
        return None
    for label in labels:
        want = _letters(label)
        if (got in want and len(got) >= tuning.min_part * len(want)) or fuzz.ratio(got, want) >= tuning.min_ratio:
            return label
    # a label's part among other letters: the label sharing the longest run with the read
    best, label = max((_shared_run(got, _letters(label)), label) for label in labels)
    want = _letters(label)
    if best >= tuning.min_letters and best >= tuning.min_part * len(want) and best >= tuning.min_read_share * len(got):
        return label
    return None


def _shared_run(a: str, b: str) -> int:
    """Length of the longest run of letters `a` and `b` share."""
    return SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size


def label_rows(rows, layout: Layout, labels: tuple[str, ...],
               tuning: FitCheckTuning = FIT_CHECK) -> list[tuple[str, int, str]]:
    """(column, row, label) of the rows near a table's ends (of the fitted `layout`) that read
    as one of `labels`. `rows`: `rows.RowRead`s (their column, row and text)."""
    last = {t.kind: t.rows for t in layout.tables}
    out = []
    for r in rows:
        n = last.get(r.column, 0)
        if not (r.row <= tuning.edge_rows or r.row > n - tuning.edge_rows):
            continue
        label = reads_as_label(r.text, labels, tuning)
        if label is not None:
            out.append((r.column, r.row, label))
    return out
