"""Deck checks: the checklist of a player's registered list, a check compared and (when the
judge confirms) recorded, and the checks of the event."""
from __future__ import annotations

from scanner.errors import EventError
from scanner.event import flows
from scanner.event.store import Registration
from scanner.model import SECTIONS, Decklist, Entry
from scanner.web.service.core import StationError
from scanner.web.service.review import ReviewService
from scanner.web.views import ChecklistRow, DeckCheckPreview, RegistrationView
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

    def deck_check(self, konami_id: str, round_no: int, between_games: bool,
                   observed: dict[tuple[str, int], int], extra_cards: list[tuple[str, int, int]],
                   confirm: bool, judge: str | None) -> DeckCheckPreview:
        """Compare the deck seen (the registered list with counted copies, plus cards found that
        are not on it) with the list; record it only when `confirm`."""
        if not 0 <= round_no <= 99:
            raise StationError(ko("round-range"))
        with self.store() as store:
            reg = self._reg(store, konami_id, None)
            registered = self._decided_deck(store, reg)
        seen = Decklist(reader="json", player_name=reg.player_name, konami_id=reg.konami_id)
        for s in SECTIONS:
            for i, e in enumerate(registered.sections[s], 1):
                n = observed.get((s, i), e.count)
                if not 0 <= n <= 60:
                    raise StationError(ko("count-0-60"))
                if e.card_id is not None and n:
                    seen.sections[s].append(Entry(e.card_id, e.name, n, 1.0, False,
                                                  f"{e.name} {n}"))
        for s, cid, n in extra_cards:
            card = self.db.get(cid)
            if s not in SECTIONS or card is None or not 1 <= n <= 60:
                raise StationError(ko("bad-extra-card"))
            seen.sections[s].append(Entry(card.card_id, card.name, n, 1.0, False,
                                          f"{card.name} {n}"))
        compare_json, recorded, check_id, not_recorded = self._run_deck_check(
            reg, registered, seen, round_no, between_games, judge, confirm)
        return DeckCheckPreview(
            konami_id=reg.konami_id, name=reg.player_name, round=round_no,
            between_games=between_games, match=bool(compare_json.get("match")),
            differences=compare_json.get("differences") or [],
            infractions=compare_json.get("infractions") or [], registered_version=reg.version,
            observed=observed, recorded=recorded, deck_check_id=check_id,
            not_recorded=_not_recorded_ko(not_recorded) if confirm else None)

    def _run_deck_check(self, reg: Registration, registered: Decklist, seen: Decklist,
                        round_no: int, between_games: bool, judge: str | None, confirm: bool
                        ) -> tuple[dict, bool, int | None, str | None]:
        """(compare JSON, recorded, deck check id, why not recorded): a preview, or the
        judge's confirmed check recorded by the event layer."""
        with self.store() as store:
            try:
                res = flows.deck_check_decklist(
                    store, seen, reg.konami_id, round_no, self.db, self.limits, between_games,
                    judge, confirm=confirm, preview=not confirm)
            except EventError as exc:
                raise StationError(exc.render("ko")) from None
        return (res.compare_json, res.recorded, res.check.id if res.check else None,
                res.not_recorded)

    def deck_checks(self) -> list[dict]:
        with self.store() as store:
            names = self._player_names(store)
            return [{"id": c.id, "player": c.konami_id, "name": names.get(c.konami_id),
                     "round": c.round, "mode": c.mode, "match": c.match, "judge": c.judge,
                     "time": c.created_at} for c in store.deck_checks()]


def _not_recorded_ko(why: str | None) -> str | None:
    if not why:
        return None
    if "registered list" in why:
        return ("등록된 리스트에 아직 확인 필요한 줄이 있어 기록하지 않았습니다: "
                "선수 페이지에서 확인을 마친 뒤 다시 기록하세요")
    return why
