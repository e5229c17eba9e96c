"""Decklist text formats, read and write: `.ydk`, `ydke://`, plain Korean text lists, scan JSON.

Readers return a `SheetRead` of `ReadLine`s (names or passcodes, not yet cards); writers take a
resolved `Decklist`. Each format has a parse/format pair that round-trips.
"""
from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
from typing import TYPE_CHECKING, Callable

from scanner.errors import UnreadableInput
from scanner.inputs.limits import MAX_CARD_LINES, check_count
from scanner.model import SECTIONS, Decklist, ReadLine, ReviewFlag, SheetRead
from scanner.vocab import Reason

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
            read.review.append(ReviewFlag(section=section, reason=Reason.UNREADABLE_LINE,
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
        raise UnreadableInput("format.ydk-empty")
    return read


def format_ydk(deck: Decklist) -> str:
    out = ["#created by decksheet"]
    headers = {"main": "#main", "extra": "#extra", "side": "!side"}
    for s in SECTIONS:
        out.append(headers[s])
        for e in deck.sections[s]:
            if e.card_id is None:
                out.append(f"# unresolved: {one_line(e.read or e.name)} x{e.count}")
                continue
            out.extend([str(e.card_id)] * max(e.count, 0))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- ydke

YDKE_PREFIX = "ydke://"


def parse_ydke(text: str) -> SheetRead:
    """`ydke://MAIN!EXTRA!SIDE!`: base64 of little-endian uint32 passcodes, in order."""
    s = text.strip()
    if not s.lower().startswith(YDKE_PREFIX):
        raise UnreadableInput("format.not-ydke")
    parts = s[len(YDKE_PREFIX):].split("!")
    if len(parts) < 3 or len(parts) > 4 or (len(parts) == 4 and parts[3].strip()):
        raise UnreadableInput("format.ydke-parts")
    read = SheetRead(reader="ydke")
    last: dict[str, ReadLine] = {}
    for section, part in zip(SECTIONS, parts[:3]):
        try:
            raw = base64.b64decode(part.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise UnreadableInput("format.ydke-base64", section=section) from None
        if len(raw) % 4:
            raise UnreadableInput("format.ydke-passcodes", section=section)
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
_COUNT_FIRST = re.compile(r"^(?P<n>[-+]?\d{1,3}) ?(?P<mark>[xX×*]|장|매|枚)? (?P<name>.+)$")
# "하루 우라라 x3", "하루 우라라 3장", "하루 우라라 ×3", "하루 우라라 3", "하루 우라라 -1".
# Whitespace is collapsed to single spaces first, so every ` ?` below is bounded: no
# backtracking over runs of spaces (120,000 of them once took minutes).
_COUNT_LAST = re.compile(r"^(?P<name>.+?)(?P<gap> ?)(?:(?P<m1>[xX×*]) ?(?P<n1>[-+]?\d{1,3})"
                         r"|(?P<n2>[-+]?\d{1,3}) ?(?P<m2>장|매|枚|[xX×])?)$")
MAX_LINE_CHARS = 300
"""Longer lines are no card line (the longest card name is < 60 characters); flagged, unparsed."""
# Line breaks and other controls that must never reach an exported line (they would start a
# new `.ydk` line: `"zzqx\n!side\n57585212"` became three cards in the side deck).
_LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` with every control or line-breaking character replaced by a space."""
    return _LINE_BREAKING.sub(" ", text)


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
        line = " ".join(raw.replace("\ufeff", "").split())
        if not line or line.startswith("//") or (line.startswith("#") and _header_section(line) is None):
            continue
        if len(line) > MAX_LINE_CHARS:
            read.review.append(ReviewFlag(section=section, reason=Reason.UNREADABLE_LINE, detail=(
                f"line {lineno}: {len(line)} characters, not a card line: {one_line(line[:60])!r}…")))
            continue
        hdr = _header_section(line)
        if hdr:
            section = hdr
            continue
        line = re.sub(r"^[-*•·] ", "", line)  # list bullets
        tag = _PASSCODE_TAG.search(line)
        card_id = int(tag[1]) if tag else None
        if tag:
            line = line[: tag.start()]
        name, count_text, unsplit = _split_count(line)
        name = name.strip().strip(",;")
        count = check_count(int(count_text), f"line {lineno}") if count_text else 1
        rl = ReadLine(section=section, text=name, count=count, count_text=count_text, row=lineno,
                      card_id=card_id, unsplit=unsplit if card_id is None else "")
        if _LINE_BREAKING.search(name):
            # ESC and other controls would reach the judge's terminal (escape sequences).
            rl.text, rl.unsplit = one_line(name), one_line(unsplit)
            rl.flags.append(Reason.CONTROL_CHARACTER)
            rl.detail = "the line holds a control character"
        read.lines.append(rl)
    if not read.lines:
        raise UnreadableInput("format.text-no-cards")
    return read


def _split_count(line: str) -> tuple[str, str, str]:
    """(name, count text, whole line when the count was a bare number that may belong to the
    name — `해피 레이디3`, `7 카드`, `마그넷 서클 LV2` — else "")."""
    m = _COUNT_FIRST.match(line)
    if m:
        return m["name"], m["n"], "" if m["mark"] else line
    m = _COUNT_LAST.match(line)
    if m and m["n1"]:
        return m["name"], m["n1"], ""
    if m and m["n2"]:
        return m["name"], m["n2"], "" if m["m2"] else line
    return line, "", ""


def format_text(deck: Decklist, db: "CardDatabase | None" = None) -> str:
    """`메인 덱 (40)` headers and `3 하루 우라라` lines. With the database, a line whose name
    does not identify its passcode (one card under two passcodes) gets a ` [passcode]` tag."""
    titles = {"main": "메인 덱", "extra": "엑스트라 덱", "side": "사이드 덱"}
    totals = deck.totals()
    out: list[str] = []
    for s in SECTIONS:
        out.append(f"{titles[s]} ({totals[s]})")
        for e in deck.sections[s]:
            line = f"{e.count} {one_line(e.name or e.read)}"
            if e.card_id is not None and (not e.name or (db is not None
                                                        and db.names.exact(e.name) != e.card_id)):
                line += f" [{e.card_id}]"
            out.append(line)
        out.append("")
    return "\n".join(out)


# --------------------------------------------------------------------------- scan JSON


def _reject_constant(name: str) -> None:
    raise UnreadableInput("format.json-number", name=name)


def parse_json(text: str) -> SheetRead:
    """The JSON that `scan --json` prints, validated, never coerced: a count of 2.9, `true`, a
    card_id 14558127.9 or a section "mian" is an error, not 2, 1, 14558127 or nothing."""
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise UnreadableInput("format.json-invalid", detail=exc.msg, line=exc.lineno) from None
    except RecursionError:
        raise UnreadableInput("format.json-deep") from None
    if isinstance(data, list):
        if len(data) != 1:
            raise UnreadableInput("format.json-many", count=len(data))
        data = data[0]
    if not isinstance(data, dict) or not isinstance(data.get("sections"), dict):
        raise UnreadableInput("format.json-no-sections")
    unknown = sorted(str(k) for k in data["sections"] if k not in SECTIONS)
    if unknown:
        raise UnreadableInput("format.json-unknown-section", section=repr(unknown[0][:40]))
    read = SheetRead(reader="json")
    player = _typed(data.get("player"), dict, "player", optional=True) or {}
    read.player_name = _text(player.get("name"), "player name", read)
    read.konami_id = _text(player.get("konami_id"), "player konami_id", read)
    pt = _typed(data.get("printed_totals"), dict, "printed_totals", optional=True) or {}
    read.printed_totals = {s: _int(pt.get(s), f"printed_totals {s}", optional=True) for s in SECTIONS}
    n_lines = 0
    for s in SECTIONS:
        items = _typed(data["sections"].get(s), list, f"section {s!r}", optional=True) or []
        n_lines += len(items)
        if n_lines > MAX_CARD_LINES:
            raise UnreadableInput("input.too-many-card-lines", max=MAX_CARD_LINES)
        for i, item in enumerate(items, 1):
            read.lines.append(_json_line(s, i, item, read))
    for r in _typed(data.get("review"), list, "review", optional=True) or []:
        r = _typed(r, dict, "review item")
        read.review.append(ReviewFlag(
            section=_section(r.get("section")), reason=_text(r.get("reason"), "review reason", read) or "",
            detail=_text(r.get("detail"), "review detail", read) or "",
            line=_int(r.get("line"), "review line", optional=True),
            card_id=_passcode(r.get("card_id"), "review card_id")))
    return read


def _json_line(section: str, i: int, item: object, read: SheetRead) -> ReadLine:
    where = f"JSON {section} line {i}"
    item = _typed(item, dict, where)
    count = check_count(_int(item.get("count", 1), f"{where}: count"), where)
    conf = item.get("confidence")
    if conf is not None and (isinstance(conf, bool) or not isinstance(conf, (int, float))
                             or not math.isfinite(conf)):  # 1e400 parses as infinity
        raise UnreadableInput("format.json-field-type", where=f"{where}: confidence",
                              kind="a number")
    reasons = _typed(item.get("reasons"), list, f"{where}: reasons", optional=True) or []
    line = ReadLine(
        section=section, text=_text(item.get("name"), f"{where}: name", read) or "", count=count,
        card_id=_passcode(item.get("card_id"), f"{where}: card_id"), count_text=str(count),
        needs_review=_typed(item.get("needs_review", False), bool, f"{where}: needs_review"),
        confidence=float(conf) if conf is not None else None,
        detail="; ".join(_text(r, f"{where}: reasons", read) or "" for r in reasons),
        column=_text(item.get("column"), f"{where}: column", read),
        row=_int(item.get("row"), f"{where}: row", optional=True))
    if _LINE_BREAKING.search(str(item.get("name") or "")):
        line.flags.append(Reason.CONTROL_CHARACTER)
        line.detail = "; ".join(p for p in (line.detail, "the name holds a line break or control "
                                                         "character") if p)
    return line


def _typed(value: object, kind: type, where: str, optional: bool = False):
    if value is None and optional:
        return None
    # bool is an int in Python; JSON true is no count, no passcode.
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        names = {dict: "an object", list: "a list", bool: "true or false", str: "a string",
                 int: "a whole number"}
        raise UnreadableInput("format.json-field-type", where=where,
                              kind=names.get(kind, kind.__name__))
    return value


def _int(value: object, where: str, optional: bool = False) -> int | None:
    return _typed(value, int, where, optional)


def _passcode(value: object, where: str) -> int | None:
    cid = _int(value, where, optional=True)
    if cid is not None and not 0 < cid < 2 ** 32:
        raise UnreadableInput("format.json-passcode", where=where, cid=cid)
    return cid


def _section(value: object) -> str | None:
    if value is None or value in SECTIONS:
        return value  # type: ignore[return-value]
    raise UnreadableInput("format.json-review-section", section=repr(str(value)[:40]))


def _text(value: object, where: str, read: SheetRead) -> str | None:
    """A string field; line breaks and controls become spaces (they must never reach an
    exported list raw), and a player field holding one is flagged for the judge."""
    if value is None:
        return None
    text = _typed(value, str, where)
    if _LINE_BREAKING.search(text):
        text = one_line(text)
        if where.startswith("player"):
            read.review.append(ReviewFlag(section=None, reason=Reason.CONTROL_CHARACTER,
                                          detail=f"{where} holds a line break or control character"))
    return text


def format_json(deck: Decklist) -> str:
    return json.dumps(deck.to_json(), ensure_ascii=False, indent=1)
