"""The deck seen at a deck check, resolved with the player's registered list as its vocabulary.

A judge types what is on the table the way players talk (`카가리`, `인게이지`, `하루우라라 3`), or
photographs it. Resolving such lines against the whole database invents other cards
(`인게이지` → 익스체인지). So a line is matched first against the cards of the registered list:

1. its name key equals a registered card's (spaces, dots, case ignored: `하루우라라`);
2. else it is a part of exactly one registered name (`카가리`, `블랙 로즈`) — a part of two or
   more is flagged `ambiguous-name` with those cards as candidates, never guessed;
3. else it is a close spelling of exactly one registered name (one slip of a jamo) and of no
   other card by its exact name.

A line that fits no registered card is looked up in the database: an exact full name (or a
passcode) is a certain card — the deck holds a card the list does not, and that is named exactly;
anything fuzzier is flagged `uncertain-name`, never taken as a guess.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from card_db.cdb import CardDatabase
from card_db.names import name_key, name_similarity
from scanner.inputs.resolve import SHEET_READERS, policy_for, resolve_line, sheet_review
from scanner.model import (SECTIONS, Decklist, Entry, ReadLine, ReviewFlag, SheetRead,
                           position_label)
from scanner.vocab import Reason

MIN_PART = 2
"""Shortest nickname (name-key characters) taken as a part of a registered name."""
FUZZY_ACCEPT = 0.85
FUZZY_MARGIN = 0.10


@dataclass
class Vocabulary:
    """The registered list's cards: original passcode → name and name key."""

    names: dict[int, str]
    keys: dict[int, str]

    @classmethod
    def of(cls, registered: Decklist, db: CardDatabase) -> "Vocabulary":
        names: dict[int, str] = {}
        for s in SECTIONS:
            for e in registered.sections[s]:
                if e.card_id is None:
                    continue
                cid = db.original_id(e.card_id) or e.card_id
                card = db.get(cid)
                names.setdefault(cid, card.name if card else e.name)
        return cls(names=names, keys={cid: name_key(n) for cid, n in names.items() if n})

    def fit(self, text: str) -> tuple[list[int], str]:
        """Registered cards `text` fits, and how (exact / part / close / none)."""
        key = name_key(text)
        if not key:
            return [], "none"
        exact = [cid for cid, k in self.keys.items() if k == key]
        if exact:
            return exact, "exact"
        if len(key) >= MIN_PART:
            part = [cid for cid, k in self.keys.items() if key in k]
            if part:
                return part, "part"
        scored = sorted(((name_similarity(key, k), cid) for cid, k in self.keys.items()),
                        reverse=True)
        if scored and scored[0][0] >= FUZZY_ACCEPT:
            second = scored[1][0] if len(scored) > 1 else 0.0
            if scored[0][0] - second >= FUZZY_MARGIN:
                return [scored[0][1]], "close"
            return [cid for s, cid in scored if s >= scored[0][0] - FUZZY_MARGIN], "close"
        return [], "none"


def _flag(entry: Entry, reason: str, candidates: list[tuple[int, str, float]] | None = None
          ) -> None:
    entry.needs_review = True
    if reason not in entry.reasons:
        entry.reasons.append(reason)
    if candidates is not None:
        entry.candidates = candidates


def resolve_observed_line(line: ReadLine, vocab: Vocabulary, db: CardDatabase, reader: str
                          ) -> Entry:
    """One observed line → an entry, registered cards first (see the module doc)."""
    policy, sheet = policy_for(reader), reader in SHEET_READERS
    text = line.text.strip()
    if line.card_id is not None and (reader != "ocr" or not text):
        return resolve_line(line, db, policy, sheet)  # a passcode is certain as it is
    if not text:
        return resolve_line(line, db, policy, sheet)
    if line.card_id is not None and (db.original_id(line.card_id) or line.card_id) in vocab.names:
        return resolve_line(line, db, policy, sheet)  # the reader found a registered card
    fits, how = vocab.fit(text)
    db_exact = [db.original_id(c) or c for c in db.names.exact_all(text)]
    if len(fits) == 1:
        cid = fits[0]
        other_exact = [c for c in db_exact if c != cid]
        if line.card_id is not None and (db.original_id(line.card_id) or line.card_id) != cid:
            other_exact.append(line.card_id)  # the reader saw another card
        probe = copy.copy(line)
        probe.card_id, probe.flags = cid, list(line.flags)
        entry = resolve_line(probe, db, policy, sheet)
        entry.read = line.raw
        if other_exact:
            _flag(entry, Reason.AMBIGUOUS_NAME, [(cid, vocab.names[cid], 1.0)] + [
                (c, db.get(c).name if db.get(c) else str(c), 1.0) for c in other_exact])
        elif how == "close":
            # A slip of the pen on a registered name — unless another card is as close.
            found = [(db.original_id(c.card.card_id) or c.card.card_id, c.card.name, c.score)
                     for c in db.search(text, 5)]
            mine = max((sc for c, _, sc in found if c == cid), default=0.0)
            rivals = [f for f in found if f[0] != cid and f[2] >= mine - FUZZY_MARGIN]
            if rivals:
                _flag(entry, Reason.AMBIGUOUS_NAME, [(cid, vocab.names[cid], mine)] + rivals[:4])
            entry.confidence = min(entry.confidence, 0.9)
        return entry
    if len(fits) > 1:
        entry = resolve_line(copy.copy(line), db, policy, sheet)
        entry.card_id, entry.name = None, text
        _flag(entry, Reason.AMBIGUOUS_NAME, [(c, vocab.names[c], 1.0) for c in fits])
        return entry
    # Fits no registered card: only a certain identification stands unflagged.
    entry = resolve_line(line, db, policy, sheet)
    certain = len(db_exact) == 1 or (line.card_id is not None and not text)
    if entry.card_id is not None and not certain and not entry.needs_review:
        _flag(entry, Reason.UNCERTAIN_NAME,
              entry.candidates or [(c.card.card_id, c.card.name, c.score)
                                   for c in db.search(text, 5)])
    return entry


def resolve_observed(sheet: SheetRead, registered: Decklist, db: CardDatabase) -> Decklist:
    """An observed deck (`SheetRead` of any reader) resolved against the registered list."""
    vocab = Vocabulary.of(registered, db)
    deck = Decklist(reader=sheet.reader, player_name=sheet.player_name,
                    konami_id=sheet.konami_id, printed_totals=dict(sheet.printed_totals),
                    review=sheet_review(sheet.review))
    for line in sheet.lines:
        section = line.section if line.section in SECTIONS else "main"
        entry = resolve_observed_line(line, vocab, db, sheet.reader)
        deck.sections[section].append(entry)
        if entry.needs_review:
            index = len(deck.sections[section])
            detail = f"read {entry.read!r}"
            if entry.candidates:
                detail += "; candidates: " + ", ".join(f"{n} ({s:.2f})"
                                                      for _, n, s in entry.candidates[:3])
            deck.review.append(ReviewFlag(
                section=section, line=index, card_id=entry.card_id,
                reason=entry.reasons[0] if entry.reasons else Reason.NEEDS_REVIEW, detail=detail,
                position=position_label(section, index, entry.column, entry.row)))
    totals = deck.totals()
    for s in SECTIONS:
        printed = deck.printed_totals.get(s)
        if printed is not None and printed != totals[s]:
            deck.review.append(ReviewFlag(section=s, reason=Reason.TOTAL_MISMATCH,
                                          detail=f"printed total {printed} ≠ sum of lines {totals[s]}"))
    return deck
