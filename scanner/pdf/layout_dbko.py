"""The card-database sheet (db-ko and look-alikes) read from its text layer, by geometry.

Sections are found by their header words (Korean, Japanese, English), never by fixed
coordinates. Each column's count cell sits under its own count header (매수); names are paired
with counts by vertical distance, one pair at a time, so a misaligned row cannot shift the rest.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from scanner.layouts.labels import (COLUMN_LABELS, COUNT_LABELS, DATE_LABELS, EVENT_LABELS, ID_HINTS,
                                    MAIN_WORDS, NAME_LABELS, OTHER_HEADER_LABELS, POINTS_LABELS,
                                    SURNAME_LABELS, TOTAL_WORDS)
from scanner.layouts.model import SECTION_OF, Box
from scanner.model import ReadLine, SheetRead
from scanner.pdf.words import (Phrase, Token, full_name, group_lines, join_words, label_key,
                               median, parse_count, parse_date, phrases, split_token)
from scanner.vocab import Reason

_HEADER_LABELS = (NAME_LABELS + SURNAME_LABELS + EVENT_LABELS + DATE_LABELS + OTHER_HEADER_LABELS)


@dataclass
class Column:
    """One sheet column found from its header: where its names, counts and total are."""

    name: str
    """monster / spell / trap / extra / side."""
    header: Phrase
    count_header: Phrase | None
    left: float = 0.0
    right: float = 0.0
    top: float = 0.0
    bottom: float = 0.0
    total_label: Phrase | None = None
    tokens: list[Token] = field(default_factory=list)
    points_header: Phrase | None = None
    """A points column's label (PTS, right of the names): its values are no name, no count."""

    @property
    def section(self) -> str:
        return SECTION_OF[self.name]


def _is_total(key: str) -> bool:
    return any(w in key for w in TOTAL_WORDS)


def find_columns(phr: list[Phrase], width: float, height: float) -> list[Column]:
    """Columns from their header phrases, with x-ranges bounded by the count headers."""
    found: dict[str, Phrase] = {}
    # Whole phrases first; a title glued to other words only for a column not found so.
    for p in sorted(phr, key=lambda p: p.top) + sorted(_printed_titles(phr), key=lambda p: p.top):
        key = p.key
        if _is_total(key):
            continue
        for col, labels in COLUMN_LABELS.items():
            if col not in found and key in labels:
                found[col] = p
                break
    if not found:
        return []
    count_hdrs = _labels(phr, COUNT_LABELS)
    points_hdrs = _labels(phr, POINTS_LABELS)
    cols = [Column(name=c, header=h, count_header=None) for c, h in found.items()]
    # Bands: columns whose headers share a line.
    bands: list[list[Column]] = []
    for c in sorted(cols, key=lambda c: c.header.cy):
        if bands and abs(bands[-1][0].header.cy - c.header.cy) < 1.5 * c.header.size:
            bands[-1].append(c)
        else:
            bands.append([c])
    above: list[Column] = []
    for b, band in enumerate(bands):
        band.sort(key=lambda c: c.header.x0)
        if _count_left_band(band, count_hdrs, points_hdrs, above, width, height, bands, b, phr):
            above = band
            continue
        for i, c in enumerate(band):
            nxt = band[i + 1].header.x0 if i + 1 < len(band) else width
            near = [p for p in count_hdrs if abs(p.cy - c.header.cy) < 1.5 * c.header.size
                    and c.header.x1 <= p.x0 < nxt]
            c.count_header = min(near, key=lambda p: p.x0) if near else None
        for i, c in enumerate(band):
            c.left = band[i - 1].right if i else 0.0
            if c.count_header is not None:
                c.right = c.count_header.x1 + 0.8 * c.count_header.size
            elif i + 1 < len(band):
                c.right = (c.header.x0 + c.header.x1 + band[i + 1].header.x0 + band[i + 1].header.x1) / 4
            else:
                c.right = width
            c.top = max(c.header.bottom, c.count_header.bottom if c.count_header else 0.0)
            below = bands[b + 1][0].header.top if b + 1 < len(bands) else height
            totals = [p for p in phr if _is_total(p.key) and c.top < p.cy < below
                      and c.left <= (p.x0 + p.x1) / 2 < c.right]
            c.total_label = min(totals, key=lambda p: p.top) if totals else None
            c.bottom = c.total_label.top if c.total_label else below
        above = band
    return [c for band in bands for c in band]


def _printed_titles(phr: list[Phrase]) -> list[Phrase]:
    """Column titles glued to other words on their line (a deck that overflows a form prints its
    last names over the next table's title: `Effect Veiler SIDE DECK`, or through it: `Shimmering
    EXTRA Shatterer of DECK the Sacred Beasts`): two or three words in capitals, in order and
    with only other words between them, that are a column label (`SIDE DECK`). One word alone
    is never taken (`Monster` starts card names), nor words of a title line (`덱 레시피 (… 엑스트라
    덱 …)`), nor of a total row (`<<< TOTAL EXTRA DECK`)."""
    out = []
    titles = {w for labels in COLUMN_LABELS.values() for w in labels}
    for p in phr:
        if _is_total(p.key):
            continue
        toks = [t for t in p.tokens if t.text.isascii() and t.text.isupper()]
        for i in range(len(toks)):
            for j in range(i + 2, min(len(toks), i + 3) + 1):
                run = toks[i:j]
                if j - i < len(p.tokens) and label_key(" ".join(t.text for t in run)) in titles:
                    out.append(Phrase(list(run)))
    return out


def _labels(phr: list[Phrase], words: tuple[str, ...]) -> list[Phrase]:
    """Phrases that are one of `words`, and single words of phrases that glued labels together
    (`PTS QTY`: the points label of one column beside the count label of the next)."""
    out = []
    for p in phr:
        if p.key in words:
            out.append(p)
        elif len(p.tokens) > 1:
            out.extend(Phrase([t]) for t in p.tokens if label_key(t.text) in words)
    return out


def _count_left_band(band: list[Column], count_hdrs: list[Phrase], points_hdrs: list[Phrase],
                     above: list[Column], width: float, height: float, bands: list[list[Column]],
                     b: int, phr: list[Phrase]) -> bool:
    """Columns whose count label stands LEFT of the column title and a points label right of it
    (Konami's Genesys form: `QTY | MONSTER CARDS | PTS`), or a band under such columns that
    prints only its titles (side | extra): bounds, count and points ranges. False when the band
    is not laid out so (the db-ko sheet: title, then 매수 at the right)."""
    first = band[0].header
    line = [p for p in count_hdrs if abs(p.cy - first.cy) < 1.5 * first.size]
    count_left = bool(line) and min(p.x0 for p in line) < first.x0
    inherit = not line and bool(above) and any(c.points_header is not None for c in above)
    if not count_left and not inherit:
        return False
    below = bands[b + 1][0].header.top if b + 1 < len(bands) else height
    for i, c in enumerate(band):
        if count_left:
            prev = band[i - 1].header.x1 if i else 0.0
            nxt = band[i + 1].header.x0 if i + 1 < len(band) else width
            near = [p for p in line if prev <= p.x0 < c.header.x0]
            c.count_header = max(near, key=lambda p: p.x0) if near else None
            pts = [p for p in points_hdrs if abs(p.cy - c.header.cy) < 1.5 * c.header.size
                   and c.header.x1 <= p.x0 < nxt]
            c.points_header = min(pts, key=lambda p: p.x0) if pts else None
            size = c.header.size
            c.left = band[i - 1].right if i else (
                (c.count_header.x0 if c.count_header else c.header.x0) - 0.8 * size)
            c.right = c.points_header.x1 + 0.8 * size if c.points_header else (
                band[i + 1].header.x0 if i + 1 < len(band) else width)
            if i + 1 < len(band):  # the next column's count values start right after this PTS
                nxt_count = [p for p in line if c.header.x1 <= p.x0 < band[i + 1].header.x0]
                if nxt_count:
                    edge = min(p.x0 for p in nxt_count)
                    c.right = min(c.right, ((c.points_header.x1 if c.points_header else edge) + edge) / 2)
        else:  # titles only: the geometry of the column printed above it
            over = [u for u in above if u.left <= c.header.cx < u.right]
            if not over:
                continue
            u = over[0]
            c.left, c.right, c.count_header, c.points_header = u.left, u.right, u.count_header, u.points_header
        c.top = c.header.bottom
        totals = [p for p in phr if _is_total(p.key) and c.top < p.cy < below
                  and c.left <= (p.x0 + p.x1) / 2 < c.right]
        c.total_label = min(totals, key=lambda p: p.top) if totals else None
        c.bottom = c.total_label.top if c.total_label else below
    return True


@dataclass
class ColumnRead:
    lines: list[ReadLine]
    total: int | None
    notes: list[str]
    boxes: list[Box] = field(default_factory=list)
    """Where each line sits on the page (parallel to `lines`)."""


def read_column(col: Column, tokens: list[Token]) -> ColumnRead:
    """Names, row numbers and counts of one column, paired by geometry."""
    inside = [t for t in tokens if col.left <= t.cx < col.right and col.top < t.cy < col.bottom]
    if col.points_header is not None:  # a points value is never a name nor a count
        pts = col.points_header
        inside = [t for t in inside if not (t.is_number and pts.x0 - 0.6 * pts.size <= t.cx
                                            <= pts.x1 + 0.6 * pts.size)]
    notes: list[str] = []
    sizes = [t.size for t in inside if not t.is_number]
    size = median(sizes, col.header.size)

    # Count cells: under the count header, or (no header) the leftmost aligned numbers.
    if col.count_header is not None:
        lo = col.count_header.x0 - 0.6 * col.count_header.size
        hi = col.count_header.x1 + 0.6 * col.count_header.size
        counts = [t for t in inside if lo <= t.cx <= hi and parse_count(t.text) is not None]
    else:
        nums = [t for t in inside if t.is_number and t.cx < col.left + 0.25 * (col.right - col.left)]
        counts = nums
    count_ids = {id(t) for t in counts}
    rest = [t for t in inside if id(t) not in count_ids]

    # Row numbers: small numbers aligned in one band left of the names.
    rownums: list[Token] = []
    if col.count_header is not None:
        nums = [t for t in rest if t.is_number]
        if len(nums) >= 3:
            band_cx = median([t.cx for t in nums], 0.0)
            band_size = median([t.size for t in nums], 0.0)
            # Same size as the band too: a name that starts with a digit ("7 카드") printed
            # right after a row number is a number of the name's size, not a row number.
            rownums = [t for t in nums if abs(t.cx - band_cx) <= 0.6 * t.size
                       and abs(t.size - band_size) <= 0.25]
            if len(rownums) < 3:
                rownums = []
    row_ids = {id(t) for t in rownums}  # the tokens as found, before any is cut in two
    rownums, unglued = _unglue_row_numbers(rownums, size)
    names: list[Token] = list(unglued)
    if rownums:
        due = _row_sequence(rownums, size)
        band_right = max(t.x1 for t in rownums) + 0.5
        for t in rest:
            if id(t) in row_ids:
                continue
            if t.x0 < band_right - 0.5 and t.text[:1].isdigit() and t.chars:
                # Row number glued to the name: cut off the number due on this row (the band's
                # right edge is the widest number's, too far for a one-digit row).
                num, name = _cut_row_number(t, due(t.cy)) if due else split_token(t, band_right)
                if num is not None and num.is_number:
                    rownums.append(num)
                names.append(name if num is not None and name is not None else t)
                continue
            names.append(t)
    else:
        names = rest

    pitch_src = rownums or counts
    centres = sorted(t.cy for t in pitch_src)
    diffs = [b - a for a, b in zip(centres, centres[1:]) if b - a > 0.5 * size]
    pitch = median(diffs, 1.8 * size)

    name_lines = _join_wrapped(group_lines(names, tolerance=0.45), pitch, rownums)
    pairs = _pair_by_distance(name_lines, counts, pitch, rownums)
    placed: list[tuple[float, ReadLine]] = []
    used_counts: set[int] = set()
    for i, line_tokens in enumerate(name_lines):
        cy = median([t.cy for t in line_tokens], 0.0)
        count_tok, ambiguous = pairs.get(i, (None, False))
        flags: list[str] = []
        if count_tok is not None:
            used_counts.add(id(count_tok))
        else:
            flags.append(Reason.COUNT_MISSING)
        if ambiguous:
            flags.append(Reason.COUNT_AMBIGUOUS)
        placed.append((cy, ReadLine(
            section=col.section, text=" ".join(join_words(part) for part in
                                               group_lines(line_tokens, tolerance=0.45)),
            count=parse_count(count_tok.text) if count_tok else None, column=col.name,
            row=_row_of(cy, rownums, pitch), count_text=count_tok.text if count_tok else "",
            flags=flags, detail="count cell not level with the name" if ambiguous else "")))
    for t in counts:
        if id(t) not in used_counts:
            placed.append((t.cy, ReadLine(section=col.section, text="", count=parse_count(t.text),
                                          column=col.name, row=_row_of(t.cy, rownums, pitch),
                                          count_text=t.text, flags=[Reason.NAME_MISSING],
                                          detail="a count with no name beside it")))
    placed.sort(key=lambda p: p[0])
    boxes = [(col.left, cy - pitch / 2, col.right, cy + pitch / 2) for cy, _ in placed]
    return ColumnRead(lines=[ln for _, ln in placed], total=_column_total(col, tokens), notes=notes,
                      boxes=boxes)


def _row_sequence(rownums: list[Token], size: float):
    """Row numbers run 1, 2, 3… down the rows: a function from a y centre to the row number
    due there (None when the numbers found show no sequence)."""
    srt = sorted((t for t in rownums if t.text.isdigit()), key=lambda t: t.cy)
    if len(srt) < 3:
        return None
    pitch = median([b.cy - a.cy for a, b in zip(srt, srt[1:]) if b.cy - a.cy > 0.5 * size], 0.0)
    if pitch <= 0:
        return None
    offsets = [int(t.text) - round((t.cy - srt[0].cy) / pitch) for t in srt]
    offset = max(set(offsets), key=offsets.count)
    if offsets.count(offset) < 0.6 * len(offsets):
        return None
    return lambda cy: offset + round((cy - srt[0].cy) / pitch)


def _cut_row_number(t: Token, due: int | None) -> tuple[Token | None, Token | None]:
    """(row number, rest of the name) when the token starts with the row number due."""
    digits = str(due) if due is not None else ""
    if not digits or not t.text.startswith(digits) or len(t.text) == len(digits) \
            or len(t.chars) != len(t.text):
        return None, None
    at = (t.chars[len(digits) - 1]["x1"] + t.chars[len(digits)]["x0"]) / 2
    return split_token(t, at)


def _unglue_row_numbers(rownums: list[Token], size: float) -> tuple[list[Token], list[Token]]:
    """A 'row number' that reads '127' where row 12 is due is row 12 glued to a name starting
    with '7' (same type size, no gap). Returns the row numbers and the name parts cut off."""
    due = _row_sequence(rownums, size)
    if due is None:
        return rownums, []
    kept: list[Token] = []
    cut: list[Token] = []
    for t in rownums:
        if str(due(t.cy)) != t.text:
            num, rest = _cut_row_number(t, due(t.cy))
            if num is not None and rest is not None:
                kept.append(num)
                cut.append(rest)
                continue
        kept.append(t)
    return kept, cut


def _join_wrapped(lines: list[list[Token]], pitch: float, rownums: list[Token]) -> list[list[Token]]:
    """A long name set on two small lines inside one row is one name: join lines whose type is
    small enough for two to share a row, that sit less than a row apart, start at the same x and
    (where rows are numbered) belong to the same row."""
    out: list[list[Token]] = []
    for line in lines:
        if out:
            prev = out[-1]
            small = max(t.size for t in prev + line) <= 0.5 * pitch + 0.5
            close = 0 < _centre(line) - _centre(prev) < 0.6 * pitch
            aligned = abs(prev[0].x0 - line[0].x0) < 1.5 * line[0].size
            same_row = not rownums or _row_of(_centre(prev), rownums, pitch) == \
                _row_of(_centre(line), rownums, pitch)
            if small and close and aligned and same_row:
                out[-1] = prev + line
                continue
        out.append(line)
    return out


def _centre(line: list[Token]) -> float:
    return median([t.cy for t in line], 0.0)


def _pair_by_distance(name_lines: list[list[Token]], counts: list[Token], pitch: float,
                      rownums: list[Token]) -> dict[int, tuple[Token, bool]]:
    """Pair each name line with the nearest count cell (closest pairs first, each used once).

    A pair is doubtful when another count is almost as near, or when the name sits well off its
    count's level and the row numbers do not confirm they share a row."""
    reach = 0.55 * pitch
    options: list[tuple[float, int, int]] = []
    centres = [median([t.cy for t in ln], 0.0) for ln in name_lines]
    for i, cy in enumerate(centres):
        for j, c in enumerate(counts):
            d = abs(c.cy - cy)
            if d <= reach:
                options.append((d, i, j))
    options.sort()
    out: dict[int, tuple[Token, bool]] = {}
    taken: set[int] = set()
    for d, i, j in options:
        if i in out or j in taken:
            continue
        rivals = [d2 for d2, i2, j2 in options if i2 == i and j2 != j]
        ambiguous = any(d2 - d < 0.25 * pitch for d2 in rivals)
        if d > 0.3 * pitch:
            same_row = rownums and _row_of(centres[i], rownums, pitch) == _row_of(counts[j].cy, rownums, pitch)
            ambiguous = ambiguous or not same_row
        out[i] = (counts[j], ambiguous)
        taken.add(j)
    return out


def _row_of(cy: float, rownums: list[Token], pitch: float) -> int | None:
    if not rownums:
        return None
    best = min(rownums, key=lambda t: abs(t.cy - cy))
    return int(best.text) if abs(best.cy - cy) <= 0.6 * pitch and best.text.isdigit() else None


def _column_total(col: Column, tokens: list[Token]) -> int | None:
    lab = col.total_label
    if lab is None:
        return None
    same = [t for t in tokens if t.is_number and abs(t.cy - lab.cy) < 0.7 * lab.size
            and col.left <= t.cx < col.right]
    if not same:
        return None
    anchor = col.count_header.cx if col.count_header else lab.x0
    return int(min(same, key=lambda t: abs(t.cx - anchor)).text)


def _main_total(phr: list[Phrase], tokens: list[Token]) -> int | None:
    for p in phr:
        key = p.key
        if _is_total(key) and any(w in key for w in MAIN_WORDS):
            right = [t for t in tokens if t.is_number and abs(t.cy - p.cy) < 0.7 * p.size
                     and t.x0 >= p.x1 - 1]
            if right:
                return int(min(right, key=lambda t: t.x0).text)
            below = [t for t in tokens if t.is_number and 0 < t.top - p.bottom < 2.5 * p.size
                     and p.x0 - 2 * p.size <= t.cx <= p.x1 + 2 * p.size]
            if below:
                return int(min(below, key=lambda t: t.top).text)
    return None


def _header_value(label: Phrase, tokens: list[Token], stops: list[Phrase]) -> list[Token]:
    """Tokens right of a header label on its line, up to the next label."""
    limit = min((s.x0 for s in stops if s is not label and abs(s.cy - label.cy) < 0.7 * label.size
                 and s.x0 > label.x1), default=float("inf"))
    return sorted((t for t in tokens if abs(t.cy - label.cy) < 0.7 * max(label.size, t.size)
                   and label.x1 < t.x0 < limit), key=lambda t: t.x0)


def _label_kind(key: str) -> str | None:
    if any(h in key for h in ID_HINTS) or key in ("id", "konamiid"):
        return "id"
    if key in NAME_LABELS:
        return "name"
    if key in SURNAME_LABELS:
        return "surname"
    if key in EVENT_LABELS:
        return "event"
    if key in DATE_LABELS:
        return "date"
    return None


def _split_label(p: Phrase, above: list[Phrase] = ()) -> tuple[str | None, Phrase, list[Token]]:
    """(kind, label, value tokens inside the phrase): a value printed close to its label joins
    the label's phrase, so try every leading run of words as the label. A label printed on two
    lines (`Event` over `Name:`, `First & Middle` over `Name(s):`) is one label: the words of the
    line above it, at its left edge, lead it, and the value is what lies right of the label."""
    if p.key in OTHER_HEADER_LABELS:
        return None, p, []
    for k in range(len(p.tokens), 0, -1):
        head = Phrase(p.tokens[:k])
        kind = _label_kind(head.key)
        for over in above:
            if (over is not p and abs(over.x0 - head.x0) < head.size
                    and -0.3 * head.size <= head.top - over.bottom < 0.8 * head.size
                    and _label_kind(over.key + head.key) is not None):
                kind = _label_kind(over.key + head.key)
        if not kind:
            continue
        right = max(t.x1 for t in head.tokens)
        return kind, head, [t for t in p.tokens[k:] if t.x0 >= right - 0.5]
    return None, p, []


def read_header(sheet: SheetRead, phr: list[Phrase], tokens: list[Token], top_limit: float) -> None:
    """Player name, Konami ID, event name and date from the labelled header above the deck."""
    head = [p for p in phr if p.bottom <= top_limit]
    head_tokens = [t for t in tokens if t.cy < top_limit]  # (big ID digits may reach below)
    labelled = [_split_label(p, head) for p in head]
    stops = [label for kind, label, _ in labelled if kind] + \
        [p for p in head if p.key in _HEADER_LABELS]
    given: str | None = None
    surname: str | None = None
    for kind, label, inner in labelled:
        if kind is None:
            continue
        value = inner + [t for t in _header_value(label, head_tokens, stops) if t not in inner]
        if kind == "id" and sheet.konami_id is None:
            sheet.take_konami_id("".join(t.text for t in value), "Konami ID")
        elif kind == "name" and given is None:
            given = " ".join(t.text for t in value) or None
        elif kind == "surname" and surname is None:
            surname = " ".join(t.text for t in value) or None
        elif kind == "event" and sheet.event_name is None:
            sheet.event_name = join_words(value) or None
        elif kind == "date" and sheet.event_date is None:
            sheet.event_date = parse_date(" ".join(t.text for t in value))
    if sheet.player_name is None:
        sheet.player_name = full_name(given, surname)


def read_db_sheet(tokens: list[Token], width: float, height: float,
                  line_boxes: list[Box] | None = None) -> SheetRead | None:
    """The whole sheet, or None when the page has no deck-column headers. `line_boxes`, when
    given, receives where each line of the sheet sits (parallel to `sheet.lines`)."""
    phr = phrases(tokens)
    cols = find_columns(phr, width, height)
    main_cols = [c for c in cols if c.section == "main"]
    if not main_cols:
        return None
    sheet = SheetRead(reader="pdf-text")
    sheet.notes.append("layout: card-database sheet (" + ", ".join(
        f"{c.name}{'' if c.count_header else ' (no count header)'}" for c in cols) + ")")
    reads = {c.name: read_column(c, tokens) for c in cols}
    sheet.notes.extend(settle_overflow(cols, reads))
    for c in cols:
        got = reads[c.name]
        sheet.lines.extend(got.lines)
        if line_boxes is not None:
            line_boxes.extend(got.boxes)
        sheet.notes.extend(got.notes)
        if c.section == "main":
            sheet.column_totals[c.name] = got.total
        else:
            sheet.printed_totals[c.section] = got.total
    sheet.check_column_totals([c.name for c in main_cols])
    sheet.settle_main_total(_main_total(phr, tokens), [c.name for c in main_cols])
    read_header(sheet, phr, tokens, min(c.header.top for c in cols))
    return sheet


def settle_overflow(cols: list[Column], reads: dict[str, ColumnRead]) -> list[str]:
    """Lines of an extra or side table printed under a main column that is short of its printed
    total: a main column longer than the form, printed on down the page (public fillers of
    Konami's Genesys form do so), or the lower table's own lines. The printed totals decide: when
    the table's first lines are what keeps its sum off its own printed total, and the column above
    lacks at least that many cards, they are the column's overflow and move to it. When the totals
    settle nothing, the lower table's lines are flagged: where they belong is in doubt."""
    notes: list[str] = []
    for low in cols:
        got = reads[low.name]
        if low.section == "main" or got.total is None or not got.lines:
            continue
        if any(ln.count is None for ln in got.lines):
            continue
        low_sum = sum(ln.count or 0 for ln in got.lines)
        if low_sum == got.total:
            continue
        for col in (c for c in cols if c.section == "main" and c.left <= low.header.cx < c.right):
            above = reads[col.name]
            if above.total is None or any(ln.count is None for ln in above.lines):
                continue
            short = above.total - sum(ln.count or 0 for ln in above.lines)
            if short <= 0:
                continue
            k = _overflow_prefix([ln.count or 0 for ln in got.lines], low_sum - got.total, short)
            if k:
                _move_lines(got, above, k, col)
                notes.append(f"{k} line(s) printed in the {low.name} table are the {col.name} column's "
                             f"overflow (the printed totals of both say so)")
            else:
                for ln in got.lines:
                    ln.flags.append(Reason.COLUMN_TOTAL_MISMATCH)
                    ln.detail = "; ".join(x for x in (ln.detail, (
                        f"printed under the {col.name} column, which is {short} short of its printed "
                        f"total, while the {low.name} lines add up to {low_sum}, not its printed "
                        f"{got.total}: an overflow of {col.name}, or a {low.name} line?")) if x)
            break
    return notes


def _overflow_prefix(counts: list[int], surplus: int, room: int) -> int:
    """How many first lines, counts summing to `surplus` (what the table holds over its printed
    total) and to no more than `room` (what the column above lacks), are the overflow; 0: none."""
    run = 0
    for k, n in enumerate(counts, start=1):
        run += n
        if run > room or run > surplus:
            return 0
        if run == surplus:
            return k
    return 0


def _move_lines(src: ColumnRead, dst: ColumnRead, k: int, col: Column) -> None:
    """The first `k` lines of `src` (and their boxes) become `dst`'s last lines, in `col`."""
    for ln in src.lines[:k]:
        ln.section, ln.column, ln.row = col.section, col.name, None
    dst.lines.extend(src.lines[:k])
    del src.lines[:k]
    if len(src.boxes) >= k:
        dst.boxes.extend(src.boxes[:k])
        del src.boxes[:k]
