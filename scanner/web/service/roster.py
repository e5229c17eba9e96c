"""The roster and the player list: who plays, and where each player's registration stands."""
from __future__ import annotations

from scanner.errors import EventError
from scanner.event.records import normalise_konami_id
from scanner.web.roster_csv import RosterRefused, clean_player_name, parse_roster
from scanner.web.service.core import StationCore, StationError
from scanner.web.station_store import RosterEntry
from scanner.web.views import NOT_REGISTERED, PlayerRow, Verdict
from scanner.web.texts import ko


class RosterService(StationCore):
    def import_roster(self, data: bytes, judge: str) -> tuple[int, int, dict[str, str | None]]:
        """A roster CSV (`roster_csv`: header `player,name[,table]` or `코나미 ID,이름[,테이블]`)
        → (imported, updated, the columns found). All or nothing; the event's log says which
        judge imported it."""
        try:
            roster = parse_roster(data)
        except RosterRefused as exc:
            raise StationError(str(exc), exc.status) from None
        with self.station() as st:
            imported, updated = st.upsert_roster(roster.entries)
        with self.store() as store:
            store.log("roster-import", {"imported": imported, "updated": updated,
                                        "players": len(roster.entries)}, actor=judge)
        return imported, updated, roster.columns

    def add_player(self, konami_id: str, name: str, table_no: str | None,
                   judge: str) -> RosterEntry:
        try:
            kid = normalise_konami_id(konami_id)
        except EventError:
            raise StationError(ko("kid-digits")) from None
        try:
            clean = clean_player_name(name)
        except RosterRefused as exc:
            raise StationError(str(exc), exc.status) from None
        entry = RosterEntry(kid, clean, (table_no or "").strip()[:20] or None)
        with self.station() as st:
            st.upsert_roster([entry])
        with self.store() as store:
            store.log("roster-add", {"player": kid, "name": clean}, actor=judge)
        return entry

    def players(self) -> list[PlayerRow]:
        """Every player of the event: the roster and anyone registered, with their status."""
        with self.store() as store, self.station() as st:
            roster = {e.konami_id: e for e in st.roster()}
            latest = {r.konami_id: r for r in store.registrations(latest_only=True)}
            # a player whose every version is withdrawn is back to not registered
            withdrawn_only = {w.konami_id for w in store.withdrawals()}
            checks: dict[str, int] = {}
            for c in store.deck_checks():
                checks[c.konami_id] = checks.get(c.konami_id, 0) + 1
            issued: dict[str, int] = {}
            for i in store.infractions():
                if i.status != "voided":
                    issued[i.konami_id] = issued.get(i.konami_id, 0) + 1
            rows = []
            for kid in sorted(set(roster) | set(latest) | withdrawn_only):
                e, reg = roster.get(kid), latest.get(kid)
                verdict = (self._verdict(store, reg) if reg
                           else Verdict(NOT_REGISTERED, 0, 0))
                rows.append(PlayerRow(
                    konami_id=kid, name=(e.name if e else None) or (reg.player_name if reg else None)
                    or store.player_name(kid),
                    table_no=e.table_no if e else None, version=reg.version if reg else None,
                    verdict=verdict, fixed=bool(reg and store.decisions(reg.id)),
                    deck_checks=checks.get(kid, 0), infractions=issued.get(kid, 0),
                    in_roster=e is not None))
        rows.sort(key=lambda r: (r.name or "", r.konami_id))
        return rows

    def search_players(self, query: str, limit: int = 30) -> list[PlayerRow]:
        from scanner.web.hangul import PlayerQuery

        compiled = PlayerQuery(query)
        if compiled.too_long:  # no one: not worth computing every player's status
            return []
        return [r for r in self.players()
                if compiled.matches(r.name or "", r.konami_id, r.table_no)][:limit]

    def player(self, konami_id: str) -> PlayerRow | None:
        try:
            kid = normalise_konami_id(konami_id)
        except EventError:
            return None
        return next((r for r in self.players() if r.konami_id == kid), None)
