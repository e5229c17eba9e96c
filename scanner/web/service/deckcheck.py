"""Deck checks: the checklist of a player's registered list, a check compared and (when the
judge confirms) recorded, and the checks of the event."""
from __future__ import annotations

from scanner.errors import EventError
from scanner.event import flows
from scanner.event.records import Registration
from scanner.model import SECTIONS, Decklist, Entry
from scanner.vocab import MAX_ROUND
from scanner.web.service.core import StationError
from scanner.web.service.review import ReviewService
from scanner.web.views import ChecklistCard, ChecklistRow, DeckCheckPreview, RegistrationView
from scanner.web.texts import ko


class DeckCheckService(ReviewService):
    """Stands on the review part: a deck check starts from the registration as reviewed."""

    def checklist(self, konami_id: str) -> tuple[RegistrationView, list[ChecklistRow]]:
        view = self.registration(konami_id)
        with self.store() as store:
            deck = self._decided_deck(store, self._reg(store, konami_id, None))
        rows = [ChecklistRow(s, i, e.card_id, e.name, e.count)
                for s in SECTIONS for i, e in enumerate(deck.sections[s], 1)
                if e.card_id is not None]
        return view, rows

    def checklist_by_card(self, konami_id: str) -> tuple[RegistrationView, list[ChecklistCard]]:
        """Every registered card once, in list order, with its count per section: between games
        a card sided out of the main is counted in the side on its own row's side input."""
        view = self.registration(konami_id)
        with self.store() as store:
            deck = self._decided_deck(store, self._reg(store, konami_id, None))
        cards: dict[int, ChecklistCard] = {}
        for s in SECTIONS:
            for e in deck.sections[s]:
                if e.card_id is None:
                    continue
                row = cards.setdefault(e.card_id, ChecklistCard(e.card_id, e.name, {}, ()))
                row.registered[s] = row.registered.get(s, 0) + e.count
        for row in cards.values():
            card = self.db.get(row.card_id)
            home = "extra" if (card is not None and card.is_extra_deck) or \
                ("extra" in row.registered and "main" not in row.registered) else "main"
            row.sections = tuple(x for x in SECTIONS if x in (home, "side") or x in row.registered)
        return view, list(cards.values())

    def deck_check(self, konami_id: str, round_no: int, between_games: bool,
                   observed: dict[tuple[str, int], int], extra_cards: list[tuple[str, int, int]],
                   confirm: bool, judge: str | None,
                   by_card: dict[tuple[str, int], int] | None = None,
                   expect: str | None = None) -> DeckCheckPreview:
        """Compare the deck seen (the registered list with counted copies, plus cards found that
        are not on it) with the list; record it only when `confirm`. `observed` counts by
        registered line (section, line); `by_card` by (section, card ID) — the count of that card
        seen in that section, registered there or not (a card sided in or out). `expect`: the
        preview's token — a confirmation records exactly that comparison, or nothing.
        `between_games` None: the 시점 was not chosen (refused: it has no default)."""
        if between_games is None:
            raise StationError(ko("mode-needed"))
        if not 0 <= round_no <= MAX_ROUND:
            raise StationError(ko("round-range", max=MAX_ROUND))
        with self.store() as store:
            reg = self._reg(store, konami_id, None)
            registered = self._decided_deck(store, reg)
        seen = Decklist(reader="json", player_name=reg.player_name, konami_id=reg.konami_id)
        counted: dict[tuple[str, int], int] = {}  # (section, card ID) -> copies seen there
        names: dict[int, str] = {}
        for s in SECTIONS:
            for i, e in enumerate(registered.sections[s], 1):
                n = observed.get((s, i), e.count)
                if not 0 <= n <= 60:
                    raise StationError(ko("count-0-60"))
                if e.card_id is not None:
                    counted[(s, e.card_id)] = counted.get((s, e.card_id), 0) + n
                    names[e.card_id] = e.name
        for (s, cid), n in (by_card or {}).items():
            if cid not in names:  # a card not on the list: resolved against the database
                card = self.db.get(cid)
                if card is None:
                    raise StationError(ko("bad-extra-card"))
                names[card.card_id] = card.name
                cid = card.card_id
            if s not in SECTIONS or not 0 <= n <= 60:
                raise StationError(ko("count-0-60"))
            counted[(s, cid)] = n
        for s in SECTIONS:
            for (cs, cid), n in counted.items():
                if cs == s and n:
                    seen.sections[s].append(Entry(cid, names[cid], n, 1.0, False,
                                                  f"{names[cid]} {n}"))
        for s, cid, n in extra_cards:
            card = self.db.get(cid)
            if s not in SECTIONS or card is None or not 1 <= n <= 60:
                raise StationError(ko("bad-extra-card"))
            seen.sections[s].append(Entry(card.card_id, card.name, n, 1.0, False,
                                          f"{card.name} {n}"))
        res = self._run_deck_check(reg, seen, round_no, between_games, judge, confirm, expect)
        compare_json = res.compare_json
        return DeckCheckPreview(
            konami_id=reg.konami_id, name=reg.player_name, round=round_no,
            between_games=between_games, match=bool(compare_json.get("match")),
            differences=compare_json.get("differences") or [],
            infractions=compare_json.get("infractions") or [], registered_version=reg.version,
            observed=observed, recorded=res.recorded,
            deck_check_id=res.check.id if res.check else None,
            not_recorded=_not_recorded_ko(res.not_recorded_code),
            verdict=res.verdict, penalty=compare_json.get("penalty"), token=res.digest)

    def _run_deck_check(self, reg: Registration, seen: Decklist, round_no: int,
                        between_games: bool, judge: str | None, confirm: bool,
                        expect: str | None) -> flows.DeckCheckResult:
        """A preview, or the judge's confirmed check recorded by the event layer (refused,
        nothing recorded, when it is not the comparison previewed)."""
        with self.actions(judge) as ctx:
            try:
                return flows.deck_check_decklist(ctx, seen, reg.konami_id, round_no,
                                                 between_games=between_games, confirm=confirm,
                                                 preview=not confirm, expect=expect)
            except EventError as exc:
                status = 409 if exc.code in ("deckcheck.changed-since-preview",
                                             "event.deckcheck-list-changed") else 400
                raise StationError.refusing(exc, status) from None

    def deck_checks(self) -> list[dict]:
        with self.store() as store:
            names = self._player_names(store)
            return [{"id": c.id, "player": c.konami_id, "name": names.get(c.konami_id),
                     "round": c.round, "mode": c.mode, "match": c.match, "judge": c.judge,
                     "time": c.created_at, "voided": c.voided} for c in store.deck_checks()]


_NOT_RECORDED = {"review-first": "not-recorded-review-first",
                 "observed-needs-judge": "not-recorded-observed", "preview": None}


def _not_recorded_ko(code: str | None) -> str | None:
    """Why the event layer recorded nothing, in the judge's words (a preview: nothing to say)."""
    key = _NOT_RECORDED.get(code or "preview")
    return ko(key) if key else None
