"""Decklist text formats, read and write: `.ydk`, `ydke://`, plain Korean text lists, scan JSON.

Readers return a `SheetRead` of `ReadLine`s (names or passcodes, not yet cards); writers take a
resolved `Decklist`. Each format has a parse/format pair that round-trips.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
import struct
from typing import TYPE_CHECKING, Callable

from scanner.errors import UnreadableInput
from scanner.model import SECTIONS, Decklist, ReadLine, ReviewFlag, SheetRead

if TYPE_CHECKING:
    from card_db.cdb import CardDatabase

# --------------------------------------------------------------------------- ydk


MAX_PASSCODE = 2**32 - 1
"""ydk/ydke passcodes are unsigned 32-bit integers; a larger number is no card."""
_PASSCODE = re.compile(r"[0-9]+")  # ASCII digits only: int() would also take '²'-like digits


def _append_run(read: SheetRead, last: dict[str, ReadLine], section: str, cid: int) -> None:
    """One more copy of `cid` in `section`: a line per run of adjacent copies, so the file's
    order survives (ygopro and the npm encoder keep it; a round trip is byte-identical)."""
    prev = last.get(section)
    if prev is not None and prev.card_id == cid:
        prev.count = (prev.count or 0) + 1
        prev.count_text = str(prev.count)
        return
    line = ReadLine(section=section, text="", count=1, card_id=cid, count_text="1")
    read.lines.append(line)
    last[section] = line


def parse_ydk(text: str, is_extra_deck: Callable[[int], bool | None] | None = None) -> SheetRead:
    """`#main` / `#extra` / `!side`, one passcode per line, in the file's order.

    Like ygopro, main and extra are routed by card type (an extra-deck monster listed under
    #main goes to the extra deck and vice versa); the side deck stays as written. A line that
    is not a passcode (or one beyond 32 bits) is skipped with an `unreadable-line` flag.
    """
    section = "main"
    read = SheetRead(reader="ydk")
    last: dict[str, ReadLine] = {}
    seen_header = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().lstrip("\ufeff")
        if not line:
            continue
        low = line.lower()
        if low.startswith("#main"):
            section, seen_header = "main", True
            continue
        if low.startswith("#extra"):
            section, seen_header = "extra", True
            continue
        if low.startswith("!side"):
            section, seen_header = "side", True
            continue
        if line.startswith("#") or line.startswith("!"):
            continue
        token = line.split()[0]
        if not _PASSCODE.fullmatch(token) or int(token) > MAX_PASSCODE:
            why = "is beyond 32 bits" if _PASSCODE.fullmatch(token) else "is not a passcode"
            read.review.append(ReviewFlag(section=section, reason="unreadable-line",
                                          detail=f"ydk line {lineno}: {line[:60]!r} {why}"))
            continue
        cid = int(token)
        target = section
        if section != "side" and is_extra_deck is not None:
            kind = is_extra_deck(cid)
            if kind is not None:
                target = "extra" if kind else "main"
        _append_run(read, last, target, cid)
    if not seen_header and not read.lines:
        raise UnreadableInput("not a .ydk deck: no #main/#extra/!side section and no passcodes")
    return read


def format_ydk(deck: Decklist) -> str:
    out = ["#created by decksheet"]
    headers = {"main": "#main", "extra": "#extra", "side": "!side"}
    for s in SECTIONS:
        out.append(headers[s])
        for e in deck.sections[s]:
            if e.card_id is None:
                out.append(f"# unresolved: {e.read or e.name} x{e.count}")
                continue
            out.extend([str(e.card_id)] * max(e.count, 0))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- ydke

YDKE_PREFIX = "ydke://"


def parse_ydke(text: str) -> SheetRead:
    """`ydke://MAIN!EXTRA!SIDE!`: base64 of little-endian uint32 passcodes, in order."""
    s = text.strip()
    if not s.lower().startswith(YDKE_PREFIX):
        raise UnreadableInput("not a ydke:// URL")
    parts = s[len(YDKE_PREFIX):].split("!")
    if len(parts) < 3 or len(parts) > 4 or (len(parts) == 4 and parts[3].strip()):
        raise UnreadableInput("malformed ydke:// URL: expected ydke://MAIN!EXTRA!SIDE!")
    read = SheetRead(reader="ydke")
    last: dict[str, ReadLine] = {}
    for section, part in zip(SECTIONS, parts[:3]):
        try:
            raw = base64.b64decode(part.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise UnreadableInput(f"malformed ydke:// URL: the {section} part is not base64") from None
        if len(raw) % 4:
            raise UnreadableInput(f"malformed ydke:// URL: the {section} part is not whole passcodes")
        for (cid,) in struct.iter_unpack("<I", raw):
            _append_run(read, last, section, cid)
    return read


def format_ydke(deck: Decklist) -> str:
    """Every passcode in the decklist's order (unresolved lines have none to write)."""
    parts = []
    for s in SECTIONS:
        ids: list[int] = []
        for e in deck.sections[s]:
            if e.card_id is not None and 0 <= e.card_id <= MAX_PASSCODE:
                ids.extend([e.card_id] * max(e.count, 0))
        parts.append(base64.b64encode(b"".join(struct.pack("<I", i) for i in ids)).decode())
    return YDKE_PREFIX + "!".join(parts) + "!"


# --------------------------------------------------------------------------- plain text

_HEADERS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^(메인\s*덱|메인|main(\s*deck)?|デッキ|メインデッキ|#main|몬스터(\s*카드)?|마법(\s*카드)?|함정(\s*카드)?|monsters?|spells?|traps?)\b", re.I), "main"),
    (re.compile(r"^(엑스트라\s*덱|엑스트라|extra(\s*deck)?|エクストラデッキ|#extra)\b", re.I), "extra"),
    (re.compile(r"^(사이드\s*덱|사이드|side(\s*deck)?|サイドデッキ|!side)\b", re.I), "side"),
]
# "3 하루 우라라", "3x 하루 우라라", "3장 하루 우라라"
_COUNT_FIRST = re.compile(r"^([-+]?\d{1,3})\s*(?:[xX×*]|장|매|枚)?\s+(.+)$")
# "하루 우라라 x3", "하루 우라라 3장", "하루 우라라 ×3", "하루 우라라 3"
_COUNT_LAST = re.compile(r"^(.+?)\s*(?:[xX×*]\s*(\d{1,3})|(\d{1,3})\s*(?:장|매|枚|[xX×]?))$")


_HEADER_REST = re.compile(r"[\s:：()（）\[\]【】<>=\-–—]*(?:\d{1,3}\s*(?:장|枚|매|cards?)?)?[\s)）\]】>]*", re.I)
# An optional passcode after the name, "1 융합 [24094653]": written where the name alone does not
# tell which passcode it was (two passcodes under one name), so text round-trips losslessly.
_PASSCODE_TAG = re.compile(r"\s*\[(\d{4,10})\]\s*$")


def _header_section(line: str) -> str | None:
    bare = line.strip().strip("[]【】<>()#:=-— ").strip()
    for pat, section in _HEADERS:
        m = pat.match(bare)
        if m:
            # "메인 덱 (40)", "메인 덱: 40장" are headers; "메인 덱 파괴" is not.
            if _HEADER_REST.fullmatch(bare[m.end():]):
                return section
    return None


def parse_text_list(text: str) -> SheetRead:
    """One card per line: `3 하루 우라라`, `하루 우라라 x3`, `하루 우라라 3장`; optional headers."""
    read = SheetRead(reader="text")
    section = "main"
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().lstrip("\ufeff")
        if not line or line.startswith("//") or (line.startswith("#") and _header_section(line) is None):
            continue
        hdr = _header_section(line)
        if hdr:
            section = hdr
            continue
        line = re.sub(r"^[-*•·]\s+", "", line)  # list bullets
        tag = _PASSCODE_TAG.search(line)
        card_id = int(tag[1]) if tag else None
        if tag:
            line = line[: tag.start()]
        m = _COUNT_FIRST.match(line)
        if m:
            count_text, name = m[1], m[2]
        else:
            m2 = _COUNT_LAST.match(line)
            if m2 and (m2[2] or m2[3]):
                name, count_text = m2[1], (m2[2] or m2[3])
            else:
                name, count_text = line, ""
        name = name.strip().strip(",;")
        count = int(count_text) if count_text else 1
        rl = ReadLine(section=section, text=name, count=count, count_text=count_text, row=lineno,
                      card_id=card_id)
        read.lines.append(rl)
    if not read.lines:
        raise UnreadableInput("no card lines found in the text list")
    return read


def format_text(deck: Decklist, db: "CardDatabase | None" = None) -> str:
    """`메인 덱 (40)` headers and `3 하루 우라라` lines. With the database, a line whose name
    does not identify its passcode (one card under two passcodes) gets a ` [passcode]` tag."""
    titles = {"main": "메인 덱", "extra": "엑스트라 덱", "side": "사이드 덱"}
    totals = deck.totals()
    out: list[str] = []
    for s in SECTIONS:
        out.append(f"{titles[s]} ({totals[s]})")
        for e in deck.sections[s]:
            line = f"{e.count} {e.name or e.read}"
            if e.card_id is not None and (not e.name or (db is not None
                                                        and db.names.exact(e.name) != e.card_id)):
                line += f" [{e.card_id}]"
            out.append(line)
        out.append("")
    return "\n".join(out)


# --------------------------------------------------------------------------- scan JSON


def parse_json(text: str) -> SheetRead:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableInput(f"not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if isinstance(data, list):
        if len(data) != 1:
            raise UnreadableInput(f"the JSON holds {len(data)} decklists; give one")
        data = data[0]
    if not isinstance(data, dict) or not isinstance(data.get("sections"), dict):
        raise UnreadableInput("not a decksheet JSON decklist: no 'sections' object")
    read = SheetRead(reader="json")
    player = data.get("player") or {}
    if isinstance(player, dict):
        read.player_name = player.get("name")
        read.konami_id = player.get("konami_id")
    pt = data.get("printed_totals") or {}
    if isinstance(pt, dict):
        read.printed_totals = {s: pt.get(s) for s in SECTIONS}
    for s in SECTIONS:
        items = data["sections"].get(s) or []
        if not isinstance(items, list):
            raise UnreadableInput(f"JSON section {s!r} is not a list")
        for i, item in enumerate(items, 1):
            if not isinstance(item, dict):
                raise UnreadableInput(f"JSON {s} line {i} is not an object")
            cid = item.get("card_id")
            try:
                cid = int(cid) if cid is not None else None
                count = int(item.get("count", 1))
            except (TypeError, ValueError):
                raise UnreadableInput(f"JSON {s} line {i}: card_id/count is not a number") from None
            conf = item.get("confidence")
            read.lines.append(ReadLine(
                section=s, text=str(item.get("name") or ""), count=count, card_id=cid,
                count_text=str(count), needs_review=bool(item.get("needs_review", False)),
                confidence=float(conf) if isinstance(conf, (int, float)) else None,
                detail="; ".join(item.get("reasons", []) or []),
                column=item.get("column"), row=item.get("row")))
    for r in data.get("review") or []:
        if isinstance(r, dict):
            read.review.append(ReviewFlag.from_json(r))
    return read


def format_json(deck: Decklist) -> str:
    return json.dumps(deck.to_json(), ensure_ascii=False, indent=1)
