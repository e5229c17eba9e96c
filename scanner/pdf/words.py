"""PDF text layer → positioned tokens, and the small geometry helpers the layout readers share.

Tokens come from the pdfium text layer, split wherever the font size changes, so a small row number
printed right against a card name ("1메타파이즈") still comes out as its own token.
"""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

from scanner.errors import UnreadableInput
from scanner.inputs.limits import MAX_PAGE_CHARACTERS

_PUNCT = re.compile(r"[\s<>:：()（）\[\]·・.,/\-－_*#]+")
COUNT_RE = re.compile(r"^[x×X]?(\d{1,2})(?:장|枚|매)?$")
BLANK = frozenset((0x20, 0x0D, 0x0A, 0x09, 0xA0, 0x3000))
"""Code points that end a token: spaces, line breaks and tabs (ASCII, no-break, ideographic)."""


@dataclass
class Token:
    """One word of the text layer, in page coordinates with a top-left origin (pt)."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    chars: list[dict] = field(default_factory=list, repr=False)

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.top + self.bottom) / 2

    @property
    def is_number(self) -> bool:
        return self.text.isdigit()


@dataclass
class Phrase:
    """Neighbouring non-numeric tokens of one line read together (a label such as '몬스터 카드')."""

    tokens: list[Token]

    @property
    def text(self) -> str:
        return " ".join(t.text for t in self.tokens)

    @property
    def key(self) -> str:
        return label_key(self.text)

    @property
    def x0(self) -> float:
        return self.tokens[0].x0

    @property
    def x1(self) -> float:
        return self.tokens[-1].x1

    @property
    def top(self) -> float:
        return min(t.top for t in self.tokens)

    @property
    def bottom(self) -> float:
        return max(t.bottom for t in self.tokens)

    @property
    def cy(self) -> float:
        return (self.top + self.bottom) / 2

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def size(self) -> float:
        return max(t.size for t in self.tokens)


def label_key(text: str) -> str:
    """Label text for comparison: no spaces or punctuation, case-folded."""
    return _PUNCT.sub("", text).casefold()


def _unusable(code: int) -> bool:
    """A char code that carries no text: a glyph id passed through for a font without a Unicode
    map (control codes), a replacement char, or private use."""
    return (code < 0x20 or 0x7F <= code <= 0x9F or code in (0xFFFD, 0xFFFE, 0xFFFF)
            or 0xE000 <= code <= 0xF8FF)


@dataclass
class PageText:
    """The text layer of one page: tokens, and how much of it was real text."""

    tokens: list[Token]
    chars: int
    unusable_chars: int
    width: float
    height: float


def page_text(page, label: str = "PDF", number: int = 0) -> PageText:
    """Tokens of a pypdfium2 page (pdfium is ~8x faster than pdfminer was for this).

    A token ends at a space, a size change, a jump back or down (a new line) or a gap wider
    than a quarter of the font size; names are re-joined by geometry later. A page of more
    than `limits.MAX_PAGE_CHARACTERS` characters is refused before any is looked at
    (`label`, `number`: the file and 1-based page the error names).
    """
    import pypdfium2.raw as pdfium_c

    width, height = page.get_size()
    textpage = page.get_textpage()
    try:
        n = textpage.count_chars()
        if n > MAX_PAGE_CHARACTERS:
            raise UnreadableInput("input.pdf-too-many-characters", file=label, page=number,
                                  count=n, max=MAX_PAGE_CHARACTERS)
        tokens: list[Token] = []
        current: list[dict] = []
        total = unusable = 0

        def flush() -> None:
            if current:
                tokens.append(Token(
                    text="".join(c["text"] for c in current), x0=min(c["x0"] for c in current),
                    x1=max(c["x1"] for c in current), top=min(c["top"] for c in current),
                    bottom=max(c["bottom"] for c in current), size=current[0]["size"],
                    chars=list(current)))
                current.clear()

        for i in range(n):
            code = pdfium_c.FPDFText_GetUnicode(textpage, i)
            if pdfium_c.FPDFText_IsGenerated(textpage, i) or code in BLANK:
                flush()
                continue
            total += 1
            if _unusable(code):
                unusable += 1
                flush()
                continue
            left, bottom, right, top = textpage.get_charbox(i, loose=True)
            size = round(pdfium_c.FPDFText_GetFontSize(textpage, i), 2)
            ch = {"text": chr(code), "index": i, "x0": left, "x1": right, "top": height - top,
                  "bottom": height - bottom, "size": size}
            if current:
                prev = current[-1]
                cy, pcy = (ch["top"] + ch["bottom"]) / 2, (prev["top"] + prev["bottom"]) / 2
                if (abs(size - prev["size"]) > 0.05 or abs(cy - pcy) > 0.3 * size
                        or left < prev["x1"] - 0.5 * size or left - prev["x1"] > 0.25 * size):
                    flush()
            current.append(ch)
        flush()
    finally:
        textpage.close()
    return PageText(tokens=tokens, chars=total, unusable_chars=unusable, width=float(width),
                    height=float(height))


def group_lines(tokens: list[Token], tolerance: float = 0.35) -> list[list[Token]]:
    """Tokens grouped into lines by vertical centre (tolerance × font size), each sorted by x."""
    lines: list[list[Token]] = []
    for t in sorted(tokens, key=lambda t: t.cy):
        if lines:
            last = lines[-1]
            centre = statistics.fmean(x.cy for x in last)
            if abs(t.cy - centre) <= tolerance * max(t.size, max(x.size for x in last)):
                last.append(t)
                continue
        lines.append([t])
    return [sorted(line, key=lambda t: t.x0) for line in lines]


def phrases(tokens: list[Token]) -> list[Phrase]:
    """Non-numeric tokens of one line joined while the gap stays under about one character."""
    out: list[Phrase] = []
    for line in group_lines(tokens):
        current: list[Token] = []
        for t in line:
            if t.is_number:
                if current:
                    out.append(Phrase(current))
                current = []
                continue
            if current and t.x0 - current[-1].x1 > 1.3 * max(t.size, current[-1].size):
                out.append(Phrase(current))
                current = []
            current.append(t)
        if current:
            out.append(Phrase(current))
    return out


def join_words(tokens: list[Token]) -> str:
    """Words of one name in reading order; a space where the gap looks like one."""
    tokens = sorted(tokens, key=lambda t: t.x0)
    out = ""
    for i, t in enumerate(tokens):
        if i and t.x0 - tokens[i - 1].x1 > 0.12 * t.size:
            out += " "
        out += t.text
    return out.strip()


def split_token(t: Token, at_x: float) -> tuple[Token | None, Token | None]:
    """Split a token into the chars left and right of x (for a row number glued to a name)."""
    left = [c for c in t.chars if (c["x0"] + c["x1"]) / 2 < at_x]
    right = [c for c in t.chars if (c["x0"] + c["x1"]) / 2 >= at_x]

    def make(chars: list[dict]) -> Token | None:
        if not chars:
            return None
        return Token(text="".join(c["text"] for c in chars), x0=min(c["x0"] for c in chars),
                     x1=max(c["x1"] for c in chars), top=min(c["top"] for c in chars),
                     bottom=max(c["bottom"] for c in chars), size=float(chars[0]["size"]),
                     chars=chars)
    return make(left), make(right)


def parse_count(text: str) -> int | None:
    m = COUNT_RE.match(text.strip())
    return int(m.group(1)) if m else None


def median(values: list[float], default: float) -> float:
    return statistics.median(values) if values else default


def parse_total(text: str | None) -> int | None:
    """A printed total: its digits (None when it has none)."""
    if text is None:
        return None
    digits = re.sub(r"\D", "", text)
    return int(digits) if digits else None


def parse_date(text: str) -> str | None:
    """`year month day` (any separators; a two-digit year is 20YY) → YYYY-MM-DD."""
    nums = re.findall(r"\d+", text)
    if len(nums) >= 3:
        y, m, d = (int(n) for n in nums[:3])
        if y < 100:
            y += 2000
        if 1 <= m <= 12 and 1 <= d <= 31:
            return f"{y:04d}-{m:02d}-{d:02d}"
    return None


def _hangul(text: str) -> bool:
    return any("가" <= ch <= "힣" for ch in text)


def name_text(text: str | None) -> str | None:
    """A name box's text: Hangul names run together (`김 민준` is 김민준), others keep one space
    between words (`Zoe  Martin` is Zoe Martin)."""
    words = (text or "").split()
    if not words:
        return None
    return "".join(words) if _hangul("".join(words)) else " ".join(words)


def full_name(given: str | None, surname: str | None) -> str | None:
    """One player name from a form's given-name and family-name boxes, as the player's script
    writes it: Korean family name first and run together (우준혁), Latin given name first
    (Zoe Martin)."""
    given, surname = name_text(given), name_text(surname)
    if not given or not surname:
        return given or surname
    if _hangul(given + surname):
        return surname + given
    return f"{given} {surname}"
