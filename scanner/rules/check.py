"""A resolved `Decklist` + a limit list → every rule it breaks (not just the first).

Collect all problems, then give the verdict. Lines a judge still has to confirm are reported as
UNRESOLVED_LINE and make the deck not legal: the tool never calls a deck legal on a guess.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from card_db.cdb import CardDatabase
from card_db.models import Card, LimitList
from card_db.names import name_key
from scanner.model import SECTION_KO, SECTIONS, Decklist, Entry, Infraction, position_label
from scanner.rules.codes import (EXTRA_BAN_QUOTE, EXTRA_BAN_SECTION, list_verdict,
                                 make_infraction)
from scanner.vocab import Reason

MAX_COPIES = 3
MAIN_MIN, MAIN_MAX, EXTRA_MAX, SIDE_MAX = 40, 60, 15, 15

IDENTITY_DOUBTS = frozenset({Reason.UNRESOLVED_NAME, Reason.UNCERTAIN_NAME, Reason.AMBIGUOUS_NAME,
                             Reason.NAME_PASSCODE_DISAGREE, Reason.UNKNOWN_PASSCODE,
                             Reason.STRUCK_THROUGH})
"""Review reasons that make the card (or whether it counts) uncertain: such a line is not
judged card by card; it is reported as UNRESOLVED_LINE instead."""

CODE_ORDER = ("MAIN_TOO_SMALL", "MAIN_TOO_LARGE", "EXTRA_TOO_LARGE", "SIDE_TOO_LARGE",
              "FORBIDDEN_CARD", "TOO_MANY_COPIES", "OVER_LIMIT", "NOT_EXTRA_DECK_CARD",
              "EXTRA_DECK_CARD_IN_MAIN", "UNUSABLE_CARD", "UNKNOWN_CARD", "UNRESOLVED_LINE")


@dataclass
class CheckResult:
    """The verdict on one decklist under one limit list."""

    legal: bool
    infractions: list[Infraction]
    list_name: str
    extra_bans: bool = True
    """Whether the event's 추가 금지 카드 were applied."""

    @property
    def verdict(self) -> str:
        """적합 / 확인 필요 / 부적합."""
        return list_verdict(self.codes())

    def to_json(self) -> dict:
        return {"legal": self.legal, "verdict": self.verdict,
                "infractions": [i.to_json() for i in self.infractions],
                "list": self.list_name, "extra_bans": self.extra_bans}

    def codes(self) -> set[str]:
        return {i.code for i in self.infractions}


@dataclass
class _Group:
    """All judged copies of one card name over the three sections."""

    key: str
    card_ids: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    per_section: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.per_section.values())

    def where(self) -> str:
        return ", ".join(f"{SECTION_KO[s]} {n}장" for s, n in self.per_section.items() if n)

    def first_section(self) -> str:
        return next(s for s in SECTIONS if self.per_section.get(s))


def _judged(entry: Entry) -> bool:
    """Whether a line's card is certain enough to judge card by card."""
    return entry.card_id is not None and not (set(entry.reasons) & IDENTITY_DOUBTS)


def _count_in_doubt(entry: Entry) -> bool:
    """A line whose count a judge must still confirm (count-unclear, count-implausible, a count
    outside 1..3 on a line that needs review, ...)."""
    return entry.count <= 0 or (entry.needs_review and (
        any(r.startswith("count-") for r in entry.reasons) or not 1 <= entry.count <= 3))


def _size_infractions(deck: Decklist) -> list[Infraction]:
    """Size codes; none for a section whose size rests on a count in doubt (that line is
    reported as UNRESOLVED_LINE instead of a size verdict built on a guess, e.g. "-2장")."""
    out = []
    totals = deck.totals()
    doubt = {s for s in SECTIONS if any(_count_in_doubt(e) for e in deck.sections[s])}
    # Lines of the paper not read (a table not found or cut off): the section's size is not known.
    missing = [r for r in deck.review if r.line is None and r.card_id is None
               and r.reason == Reason.UNREADABLE_LINE]
    doubt |= {r.section for r in missing if r.section in SECTIONS}
    if any(r.section is None for r in missing):
        doubt |= set(SECTIONS)
    main = totals["main"] if "main" not in doubt else MAIN_MIN
    extra = totals["extra"] if "extra" not in doubt else 0
    side = totals["side"] if "side" not in doubt else 0
    if main < MAIN_MIN:
        out.append(make_infraction("MAIN_TOO_SMALL", f"메인 덱이 {main}장입니다 (40장 이상이어야 함).",
                                   "main"))
    if main > MAIN_MAX:
        out.append(make_infraction("MAIN_TOO_LARGE", f"메인 덱이 {main}장입니다 (60장 이하여야 함).",
                                   "main"))
    if extra > EXTRA_MAX:
        out.append(make_infraction("EXTRA_TOO_LARGE",
                                   f"엑스트라 덱이 {extra}장입니다 (15장 이하여야 함).", "extra"))
    if side > SIDE_MAX:
        out.append(make_infraction("SIDE_TOO_LARGE", f"사이드 덱이 {side}장입니다 (15장 이하여야 함).",
                                   "side"))
    return out


def review_infractions(deck: Decklist, label: str = "", unknown_cards: bool = False
                       ) -> list[Infraction]:
    """UNRESOLVED_LINE for every line (and sheet-level item) a judge must still confirm.

    `label` names the list in the message when several are in play (e.g. 등록 리스트)."""
    prefix = f"{label}: " if label else ""
    out = []
    for s in SECTIONS:
        for i, e in enumerate(deck.sections[s], 1):
            if not e.needs_review:
                continue
            if e.reasons == [Reason.UNKNOWN_PASSCODE]:
                # An unknown passcode alone is its own review item: UNKNOWN_CARD (the checker
                # issues it from the card pass; a comparison asks for it here).
                if unknown_cards and e.card_id is not None:
                    out.append(make_infraction(
                        "UNKNOWN_CARD", f"{prefix}{position_label(s, i, e.column, e.row)}: 패스코드 "
                        f"{e.card_id}는 카드 데이터베이스에 없는 카드입니다. 저지가 실물을 확인해야 합니다.",
                        s, [e.card_id]))
                continue
            what = f"{e.name} ×{e.count}" if e.card_id is not None else f"{e.read!r}"
            reasons = ", ".join(e.reasons) or Reason.NEEDS_REVIEW
            where = position_label(s, i, e.column, e.row)
            inf = make_infraction(
                "UNRESOLVED_LINE", f"{prefix}{where} 확인 필요: {what} (읽은 내용 "
                f"{e.read!r}; {reasons})", s, [e.card_id] if e.card_id is not None else [])
            inf.position = where
            out.append(inf)
    for r in deck.review:
        if r.line is None and r.card_id is None:
            where = SECTION_KO.get(r.section or "", "시트")
            out.append(make_infraction("UNRESOLVED_LINE", f"{prefix}{where} 확인 필요: {r.reason}"
                                       + (f" — {r.detail}" if r.detail else ""), r.section))
    return out


def _card_infractions(deck: Decklist, limits: LimitList, db: CardDatabase) -> list[Infraction]:
    out: list[Infraction] = []
    groups: dict[str, _Group] = {}
    unusable: dict[int, tuple[str, str, str]] = {}  # card_id → (section, name, why)
    unknown: dict[int, tuple[str, str]] = {}  # card_id → (section, name or passcode)
    for s in SECTIONS:
        for e in deck.sections[s]:
            if e.card_id is None:
                continue
            card = db.get(e.card_id)
            if card is None:
                if Reason.UNKNOWN_PASSCODE in e.reasons or not (set(e.reasons) & IDENTITY_DOUBTS):
                    unknown.setdefault(e.card_id, (s, e.name or str(e.card_id)))
                continue
            if not _judged(e):
                continue
            _placement(out, s, card, e.count)
            if e.needs_review:
                # Its copies are not confirmed yet (a count misread as 9, a hand-written line):
                # the line is UNRESOLVED_LINE (확인 필요) until a judge confirms it, never a
                # breach built on what the reader guessed.
                continue
            if not card.ocg_usable:
                why = "토큰" if card.is_token else "OCG(한글판)에 발매되지 않은 카드 (TCG 전용)"
                unusable.setdefault(card.card_id, (s, card.name, why))
            g = groups.setdefault(name_key(card.name) or str(card.card_id), _Group(name_key(card.name)))
            if card.card_id not in g.card_ids:
                g.card_ids.append(card.card_id)
                g.names.append(card.name)
            g.per_section[s] = g.per_section.get(s, 0) + e.count
    for g in groups.values():
        inf = _count_infraction(g, limits)
        if inf is not None:
            out.append(inf)
    for cid, (s, name, why) in unusable.items():
        out.append(make_infraction("UNUSABLE_CARD", f"「{name}」({cid})은(는) 사용할 수 없는 카드입니다: "
                                   f"{why}.", s, [cid]))
    for cid, (s, name) in unknown.items():
        out.append(make_infraction(
            "UNKNOWN_CARD", f"패스코드 {cid}" + (f" 「{name}」" if name != str(cid) else "")
            + ": 카드 데이터베이스에 없는 카드입니다 (데이터베이스가 오래되었거나 다른 판의 카드일 수 "
              "있음). 저지가 실물을 확인해야 합니다.", s, [cid]))
    return out


def _placement(out: list[Infraction], section: str, card: Card, count: int) -> None:
    """Extra-deck monsters belong in the extra deck (or the side), nothing else does."""
    if section == "extra" and not card.is_extra_deck:
        out.append(make_infraction(
            "NOT_EXTRA_DECK_CARD", f"엑스트라 덱의 「{card.name}」({card.card_id}, {card.kind_label}) "
            f"×{count}: 융합/싱크로/엑시즈/링크 몬스터만 엑스트라 덱에 넣을 수 있습니다.",
            "extra", [card.card_id]))
    elif section == "main" and card.is_extra_deck:
        out.append(make_infraction(
            "EXTRA_DECK_CARD_IN_MAIN", f"메인 덱의 「{card.name}」({card.card_id}, {card.kind_label}) "
            f"×{count}: 엑스트라 덱 몬스터는 메인 덱에 넣을 수 없습니다.", "main", [card.card_id]))


def _count_infraction(g: _Group, limits: LimitList) -> Infraction | None:
    """One count code per card: FORBIDDEN_CARD over TOO_MANY_COPIES over OVER_LIMIT."""
    allowed = min(limits.allowed(cid) for cid in g.card_ids)
    names = " / ".join(dict.fromkeys(g.names))
    label = f"「{names}」({', '.join(map(str, g.card_ids))})"
    if allowed == 0:
        banned_extra = any(limits.is_extra_ban(cid) for cid in g.card_ids)
        why = "대회 추가 금지 카드" if banned_extra else f"리미트 레귤레이션 {limits.name} 금지 카드"
        return make_infraction("FORBIDDEN_CARD", f"{label}: {why}인데 {g.total}장 ({g.where()}).",
                               g.first_section(), g.card_ids,
                               extra_rule=f"{EXTRA_BAN_SECTION}: 「{EXTRA_BAN_QUOTE}」"
                               if banned_extra else "")
    if g.total > MAX_COPIES:
        return make_infraction("TOO_MANY_COPIES", f"{label}: 같은 이름의 카드가 {g.total}장 "
                               f"({g.where()}); 3장까지만 넣을 수 있습니다.", g.first_section(),
                               g.card_ids)
    if g.total > allowed:
        kind = "제한" if allowed == 1 else "준제한"
        return make_infraction("OVER_LIMIT", f"{label}: {limits.name} {kind} 카드({allowed}장까지)인데 "
                               f"{g.total}장 ({g.where()}).", g.first_section(), g.card_ids)
    return None


def check_decklist(deck: Decklist, limits: LimitList, db: CardDatabase) -> CheckResult:
    """Every problem of `deck` under `limits` (sizes, counts, placement, usability, review)."""
    infractions = (_size_infractions(deck) + _card_infractions(deck, limits, db)
                   + review_infractions(deck))
    infractions.sort(key=lambda i: (CODE_ORDER.index(i.code) if i.code in CODE_ORDER else 99,
                                    SECTIONS.index(i.section) if i.section in SECTIONS else 9))
    return CheckResult(legal=not infractions, infractions=infractions, list_name=limits.name,
                       extra_bans=bool(limits.extra_bans))
