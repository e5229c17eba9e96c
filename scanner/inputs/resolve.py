"""Lines as read → a `Decklist` of cards, each with a confidence and a review decision.

The rule here is: a line is either certain, or it is flagged with the reason and the candidates.
A wrong line that is not flagged is the worst failure, so every doubt becomes a flag.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from card_db.cdb import CardDatabase
from card_db.names import name_script
from scanner.model import (SECTIONS, Decklist, Entry, ReadLine, ReviewFlag, SheetRead,
                           position_label)
from scanner.vocab import Reason


@dataclass(frozen=True)
class NamePolicy:
    """When a fuzzy name match may stand without a judge."""

    accept: float
    """Minimum score of the best candidate to accept it unflagged."""
    margin: float
    """Minimum lead of the best candidate over the runner-up to accept it unflagged."""
    guess: float = 0.45
    """Below this the line gets no card at all (card_id null)."""


# Typed lists and text layers: names should be exact, so only small slips pass.
TEXT_POLICY = NamePolicy(accept=0.93, margin=0.12)
# OCR text is noisy evidence; readers may resolve themselves and set card_id/confidence.
OCR_POLICY = NamePolicy(accept=0.85, margin=0.12)  # bench/bench_resolver.py: 0 wrong unflagged

SHEET_READERS = {"pdf-text", "pdf-form", "ocr"}
MAX_SANE_COUNT = 3


def policy_for(reader: str) -> NamePolicy:
    return OCR_POLICY if reader == "ocr" else TEXT_POLICY


def resolve_line(line: ReadLine, db: CardDatabase, policy: NamePolicy, sheet: bool) -> Entry:
    reasons: list[str] = list(line.flags)
    if line.unsplit and line.card_id is None:
        line, why = _name_or_count(line, db)
        reasons.extend(why)
    candidates: list[tuple[int, str, float]] = []
    card_id: int | None = None
    name = line.text
    confidence = line.text_confidence

    if line.card_id is not None:
        card = db.get(line.card_id)
        if card is None:
            # Keep the passcode: the checker reports it as an unusable (unknown) card.
            card_id, name, confidence = line.card_id, line.text or "", 0.0
            reasons.append(Reason.UNKNOWN_PASSCODE)
        else:
            card_id, name = card.card_id, card.name
            confidence = line.confidence if line.confidence is not None else line.text_confidence
            if line.text and db.names.exact(line.text) not in (None, card.card_id):
                reasons.append(Reason.NAME_PASSCODE_DISAGREE)
    elif not line.text.strip():
        reasons.append(Reason.UNRESOLVED_NAME)
        confidence = 0.0
    else:
        exact = db.names.exact_all(line.text)
        if len(exact) == 1:
            card = db.cards[exact[0]]
            card_id, name = card.card_id, card.name
        else:
            found = db.search(line.text, limit=5)
            candidates = [(c.card.card_id, c.card.name, c.score) for c in found]
            if not found:
                reasons.append(Reason.UNRESOLVED_NAME)
                confidence = 0.0
            else:
                best = found[0]
                second = found[1].score if len(found) > 1 else 0.0
                confidence = min(confidence, best.score) * (1.0 if best.score - second >= policy.margin
                                                             else 0.5)
                if best.score >= policy.guess:
                    card_id, name = best.card.card_id, best.card.name
                if best.score < policy.accept:
                    reasons.append(Reason.UNRESOLVED_NAME if best.score < policy.guess else Reason.UNCERTAIN_NAME)
                elif best.score - second < policy.margin:
                    reasons.append(Reason.AMBIGUOUS_NAME)

    if reasons and line.card_id is None and line.text.strip() and _unreadable_script(line.text, db):
        # A name in a language none of the loaded databases is in (an English name, only the
        # Korean database loaded): flagged as such; a best match in another alphabet is a
        # guess, never a card (a match in the same alphabet — the Korean database keeps a few
        # cards under English names — stays a candidate).
        reasons.insert(0, Reason.NAME_LANGUAGE_NOT_LOADED)
        if card_id is not None and name_script(name) != name_script(line.text):
            card_id, name, candidates, confidence = None, line.text, [], 0.0

    count = line.count
    if count is None:
        reasons.append(Reason.COUNT_UNCLEAR)
        count = 1
        confidence = min(confidence, 0.5)
    elif sheet and not (1 <= count <= MAX_SANE_COUNT):
        reasons.append(Reason.COUNT_IMPLAUSIBLE)
    elif count <= 0:
        reasons.append(Reason.COUNT_IMPLAUSIBLE)

    needs_review = bool(reasons) or line.needs_review
    if line.needs_review and not reasons:
        reasons.append(line.detail or Reason.FLAGGED_IN_INPUT)
    return Entry(card_id=card_id, name=name, count=count, confidence=max(0.0, min(1.0, confidence)),
                 needs_review=needs_review, read=line.raw, reasons=_unique(reasons),
                 candidates=candidates if needs_review else [], column=line.column, row=line.row,
                 crop=line.crop, certainty=line.certainty)


_SPACED_COUNT = re.compile(r"^[-+]?\d{1,3} |\s[-+]?\d{1,3}$")


def _name_or_count(line: ReadLine, db: CardDatabase) -> tuple[ReadLine, list[str]]:
    """A bare number was split off the line as its count. An exact card name of the whole line
    wins (`해피 레이디3`, `7 카드`, `마그넷 서클 LV2` are cards); a number glued to the name
    (`HSR 글라이더3`) may be part of it, and a line that reads both ways (`해피 레이디 3`)
    is a judge's call."""
    whole = db.names.exact_all(line.unsplit)
    part = db.names.exact_all(line.text)
    if len(whole) == 1:
        as_name = replace(line, text=line.unsplit, count=1, count_text="", unsplit="")
        if len(part) == 1 and part != whole:
            return as_name, [Reason.NAME_OR_COUNT]
        return as_name, []
    if not _SPACED_COUNT.search(line.unsplit):
        return line, [Reason.COUNT_IN_NAME]
    return line, []


LANGUAGE_DB = {"latin": ("English", "en-US.cdb"), "kana": ("Japanese", "ja-JP.cdb"),
               "han": ("Chinese", "zh-CN.cdb"), "hangul": ("Korean", "ko-KR.cdb")}
"""Script of a name → the language and the ygopro database file that would read it."""


def _unreadable_script(text: str, db: CardDatabase) -> bool:
    script = name_script(text)
    return script is not None and script not in db.names.scripts()


def language_hint(text: str) -> str:
    """What a judge is told for a line in a language no loaded database is in."""
    language, file = LANGUAGE_DB.get(name_script(text) or "", ("other", "a cards.cdb in that language"))
    return f"{language} card name: no {language} card database is loaded (--card-db {file})"


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


_READER_LOCATOR = re.compile(r"^(monster|spell|trap|extra|side) row (\d+):")


def sheet_review(flags: list[ReviewFlag]) -> list[ReviewFlag]:
    """A reader's sheet-level review items, each naming its line as the paper prints it
    (`몬스터 13`). The OCR reader sets `position` itself; a JSON input saved by an older
    version carries only `monster row 13: …` in the detail, which is read here."""
    out = []
    for f in flags:
        m = _READER_LOCATOR.match(f.detail or "")
        if f.position is None and m:
            f = replace(f, position=position_label(None, None, m[1], int(m[2])))
        out.append(f)
    return out


def resolve_sheet(sheet: SheetRead, db: CardDatabase) -> Decklist:
    policy = policy_for(sheet.reader)
    is_sheet = sheet.reader in SHEET_READERS
    deck = Decklist(reader=sheet.reader, player_name=sheet.player_name, konami_id=sheet.konami_id,
                    player_name_confidence=sheet.player_name_confidence,
                    konami_id_confidence=sheet.konami_id_confidence,
                    printed_totals=dict(sheet.printed_totals), review=sheet_review(sheet.review))
    for line in sheet.lines:
        section = line.section if line.section in SECTIONS else "main"
        entry = resolve_line(line, db, policy, is_sheet)
        deck.sections[section].append(entry)
        if entry.needs_review:
            index = len(deck.sections[section])
            deck.review.append(ReviewFlag(
                section=section, line=index, card_id=entry.card_id,
                reason=entry.reasons[0] if entry.reasons else Reason.NEEDS_REVIEW,
                detail=_detail(entry, line),
                position=position_label(section, index, entry.column, entry.row)))
    totals = deck.totals()
    for s in SECTIONS:
        printed = deck.printed_totals.get(s)
        if printed is not None and printed != totals[s]:
            deck.review.append(ReviewFlag(
                section=s, reason=Reason.TOTAL_MISMATCH,
                detail=f"printed total {printed} ≠ sum of lines {totals[s]}"))
    return deck


def _detail(entry: Entry, line: ReadLine) -> str:
    parts = [f"read {entry.read!r}"]
    if Reason.NAME_LANGUAGE_NOT_LOADED in entry.reasons:
        parts.append(language_hint(line.text))
    if line.detail:
        parts.append(line.detail)
    if entry.candidates:
        parts.append("candidates: " + ", ".join(f"{n} ({s:.2f})" for _, n, s in entry.candidates[:3]))
    return "; ".join(parts)
