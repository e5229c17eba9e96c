"""Registered decklist vs the deck seen at a deck check → differences and infractions.

start-of-match (rules 2.B): every section must equal the registered list.
between-games (rules 2.E.8): cards may move between the side deck and the main/extra deck, but
the whole must equal the registered whole and the main and extra sizes must be unchanged.
Lines a judge must still confirm (in either list) stop a confident verdict: they are reported as
UNRESOLVED_LINE, the verdict is 확인 필요 (never 불일치 on a guess) and the result is not a match.

One act, one penalty: everything a deck check finds (the mismatch, and what the observed deck
breaks on its own) is listed as findings under one penalty to apply, the highest the rules give
(`CompareResult.penalty`); between games it applies to the next duel (벌칙 규정 1.C).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from card_db.cdb import CardDatabase
from card_db.models import LimitList
from card_db.names import name_key
from scanner.model import SECTION_KO, SECTIONS, Decklist, Infraction
from scanner.rules.check import check_decklist, review_infractions
from scanner.rules.codes import (MATCH, MISMATCH, NEEDS_REVIEW, PENALTY_KO, PENALTY_RANK,
                                 PENALTY_TIMING_SECTION, REMEDY_FOLLOW_LIST, REVIEW_CODES,
                                 TIMING_CURRENT_DUEL, TIMING_NEXT_DUEL, make_infraction)

START_OF_MATCH = "start-of-match"
BETWEEN_GAMES = "between-games"

CardKey = int | str
"""A resolved card's original passcode, or `?name` for a line that has no card."""


@dataclass
class Difference:
    """One (section, card) whose count differs between the registered list and the deck."""

    section: str
    card_id: int | None
    name: str
    registered: int
    observed: int

    def to_json(self) -> dict:
        return {"section": self.section, "card_id": self.card_id, "name": self.name,
                "registered": self.registered, "observed": self.observed}


MISMATCH_CODES = ("DECKLIST_MISMATCH", "SIDE_SWAP_BEFORE_FIRST_DUEL", "SIDE_SIZE_CHANGED")


@dataclass
class Penalty:
    """The one penalty a deck check gives for what it found."""

    penalty: str
    """Contract penalty code: the highest of the findings'."""
    code: str
    """The finding that carries it (the first with the highest penalty)."""
    findings: list[str]
    """Every finding's code, in order (the act's whole picture)."""
    quoted: bool
    """False when the rules name no penalty for the finding that carries it (judge's call)."""
    applies: str
    """next-duel (found between games) / current-duel."""
    timing_rule: str
    remedy: str = ""
    """What to do about the act: the remedy of the finding that carries the penalty (one act,
    one remedy: a deck that differs from its list is put back as the list says, 3.B)."""

    @property
    def label(self) -> str:
        return PENALTY_KO.get(self.penalty, self.penalty)

    def to_json(self) -> dict:
        return {"penalty": self.penalty, "label": self.label, "code": self.code,
                "findings": list(self.findings), "quoted": self.quoted, "applies": self.applies,
                "applies_label": "다음 듀얼에 적용" if self.applies == "next-duel"
                else "진행 중인 듀얼에 적용", "timing_rule": self.timing_rule,
                "remedy": self.remedy}


def one_penalty(findings: list[Infraction], between_games: bool) -> Penalty | None:
    """The single penalty for the findings of one act (None when nothing carries one)."""
    real = [i for i in findings if i.code not in REVIEW_CODES and i.penalty != "NONE"]
    if not real:
        return None
    top = max(real, key=lambda i: PENALTY_RANK.get(i.penalty, 0))  # first of the highest
    quote = TIMING_NEXT_DUEL if between_games else TIMING_CURRENT_DUEL
    return Penalty(penalty=top.penalty, code=top.code, findings=[i.code for i in real],
                   quoted=top.penalty_quoted, applies="next-duel" if between_games
                   else "current-duel", timing_rule=f"{PENALTY_TIMING_SECTION}: 「{quote}」",
                   remedy=top.remedy)


@dataclass
class CompareResult:
    """The verdict of one deck check."""

    match: bool
    mode: str
    """START_OF_MATCH or BETWEEN_GAMES."""
    differences: list[Difference]
    """Every (section, card) whose count differs, in both modes."""
    infractions: list[Infraction]
    net_differences: list[Difference] = field(default_factory=list)
    """The same over main+extra+side together (section 'all')."""
    sizes: dict[str, dict[str, int]] = field(default_factory=dict)
    """{'registered': totals, 'observed': totals}."""
    needs_review: int = 0
    """Lines (of either list) a judge must still confirm: no 일치/불일치 until they are."""
    penalty: Penalty | None = None
    """The one penalty of this deck check (None when nothing carries one)."""

    @property
    def verdict(self) -> str:
        """일치 / 불일치 / 확인 필요."""
        if self.needs_review:
            return NEEDS_REVIEW
        return MATCH if self.match else MISMATCH

    def to_json(self) -> dict:
        return {"match": self.match, "verdict": self.verdict, "mode": self.mode,
                "differences": [d.to_json() for d in self.differences],
                "infractions": [i.to_json() for i in self.infractions],
                "penalty": self.penalty.to_json() if self.penalty else None,
                "needs_review": self.needs_review,
                "net_differences": [{k: v for k, v in d.to_json().items() if k != "section"}
                                    for d in self.net_differences],
                "sizes": self.sizes}


@dataclass
class _Counted:
    """A decklist as counts per section and card key, with a display name per key."""

    sections: dict[str, dict[CardKey, int]]
    names: dict[CardKey, str]

    def whole(self) -> dict[CardKey, int]:
        out: dict[CardKey, int] = {}
        for counts in self.sections.values():
            for k, n in counts.items():
                out[k] = out.get(k, 0) + n
        return out


def _count(deck: Decklist, db: CardDatabase | None) -> _Counted:
    sections: dict[str, dict[CardKey, int]] = {s: {} for s in SECTIONS}
    names: dict[CardKey, str] = {}
    for s in SECTIONS:
        for e in deck.sections[s]:
            key: CardKey
            if e.card_id is not None:
                key = (db.original_id(e.card_id) if db else None) or e.card_id
            else:  # unresolved: compared by the text read, and flagged UNRESOLVED_LINE anyway
                key = "?" + (name_key(e.name or e.read) or e.read)
            sections[s][key] = sections[s].get(key, 0) + e.count
            names.setdefault(key, e.name or e.read or str(e.card_id))
    return _Counted(sections, names)


def _diff(reg: dict[CardKey, int], obs: dict[CardKey, int], section: str,
          names: dict[CardKey, str]) -> list[Difference]:
    out = []
    for key in sorted(set(reg) | set(obs), key=lambda k: (isinstance(k, str), str(k))):
        r, o = reg.get(key, 0), obs.get(key, 0)
        if r != o:
            out.append(Difference(section, key if isinstance(key, int) else None, names[key], r, o))
    return out


def _describe(diffs: list[Difference], registered_whole: set[CardKey]) -> str:
    parts = []
    for d in diffs:
        where = SECTION_KO.get(d.section, "덱 전체")
        label = f"「{d.name}」" + (f"({d.card_id})" if d.card_id is not None else "")
        never = d.registered == 0 and d.card_id is not None and d.card_id not in registered_whole
        note = " — 덱 리스트에 없는 카드" if never else ""
        parts.append(f"{where} {label} 등록 {d.registered}장 → 확인 {d.observed}장{note}")
    return "; ".join(parts)


def _card_ids(diffs: list[Difference]) -> list[int]:
    return sorted({d.card_id for d in diffs if d.card_id is not None})


def _new_check_infractions(registered: Decklist, observed: Decklist, db: CardDatabase,
                           limits: LimitList) -> list[Infraction]:
    """Rules the observed deck breaks on its own that the registered list did not break."""
    def sig(i: Infraction) -> tuple:
        return i.code, i.section if not i.card_ids else None, tuple(sorted(i.card_ids))
    before = {sig(i) for i in check_decklist(registered, limits, db).infractions}
    return [i for i in check_decklist(observed, limits, db).infractions
            if i.code not in REVIEW_CODES and sig(i) not in before]


def compare_decklists(registered: Decklist, observed: Decklist, between_games: bool = False,
                      db: CardDatabase | None = None, limits: LimitList | None = None
                      ) -> CompareResult:
    """Differences per section and the infraction, if any, of a deck check.

    With `db` and `limits`, problems the observed deck has on its own (e.g. 39 cards after
    siding) are reported too, with their own codes; they do not change `match`.
    """
    reg, obs = _count(registered, db), _count(observed, db)
    names = {**obs.names, **reg.names}
    differences = [d for s in SECTIONS for d in _diff(reg.sections[s], obs.sections[s], s, names)]
    reg_whole = reg.whole()
    net = _diff(reg_whole, obs.whole(), "all", names)
    reg_sizes, obs_sizes = registered.totals(), observed.totals()
    unresolved = (review_infractions(registered, "등록 리스트", unknown_cards=True)
                  + review_infractions(observed, "확인한 덱", unknown_cards=True))
    in_doubt = registered.needs_review + observed.needs_review
    infractions: list[Infraction] = []

    if in_doubt:
        pass  # no 불일치 on lines a judge has not confirmed: the verdict is 확인 필요
    elif not between_games:
        if differences and not net:
            # Same cards, moved between sections before the first duel (rules 2.B).
            infractions.append(make_infraction(
                "SIDE_SWAP_BEFORE_FIRST_DUEL", "1듀얼째 개시 전에 덱 / 엑스트라 덱 / 사이드 덱 사이에서 "
                "카드가 교체되어 있습니다: " + _describe(differences, set(reg_whole)),
                _single_section(differences), _card_ids(differences)))
        elif differences:
            infractions.append(make_infraction(
                "DECKLIST_MISMATCH", "매치 개시 시 덱이 덱 리스트와 다릅니다: "
                + _describe(differences, set(reg_whole)), _single_section(differences),
                _card_ids(differences)))
    elif net:
        infractions.append(make_infraction(
            "DECKLIST_MISMATCH", "덱 전체(메인+엑스트라+사이드)가 덱 리스트와 다릅니다: "
            + _describe(net, set(reg_whole)), None, _card_ids(net)))
    else:
        changed = [s for s in ("main", "extra") if reg_sizes[s] != obs_sizes[s]]
        if changed:
            infractions.append(make_infraction(
                "SIDE_SIZE_CHANGED", "사이드 덱 교체 후 매수가 바뀌었습니다: " + "; ".join(
                    f"{SECTION_KO[s]} 등록 {reg_sizes[s]}장 → 확인 {obs_sizes[s]}장" for s in changed),
                changed[0] if len(changed) == 1 else None, _card_ids(differences)))

    mismatch = bool(infractions)
    if db is not None and limits is not None and not in_doubt:
        infractions += _as_part_of_the_act(_new_check_infractions(registered, observed, db,
                                                                  limits), mismatch)
    penalty = one_penalty(infractions, between_games)
    infractions += unresolved
    return CompareResult(match=not mismatch and not unresolved and not in_doubt,
                         mode=BETWEEN_GAMES if between_games else START_OF_MATCH,
                         differences=differences, infractions=infractions, net_differences=net,
                         sizes={"registered": reg_sizes, "observed": obs_sizes},
                         needs_review=in_doubt, penalty=penalty)


def _as_part_of_the_act(found: list[Infraction], mismatch: bool) -> list[Infraction]:
    """What the observed deck breaks on its own (it was not on the registered list, which was
    checked). When the deck also differs from its list, these are that one act's consequences
    (a missing card leaves 39): the rules' remedy for the act is 3.B 「덱 리스트대로
    수정한다」, never 3.A's 「적절한 카드를 추가」, which read alone lets the player add any card."""
    if not mismatch:
        return found
    for i in found:
        i.remedy = REMEDY_FOLLOW_LIST
    return found


def _single_section(diffs: list[Difference]) -> str | None:
    sections = {d.section for d in diffs}
    return sections.pop() if len(sections) == 1 else None
