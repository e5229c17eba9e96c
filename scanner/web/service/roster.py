"""The roster and the player list: who plays, and where each player's registration stands."""
from __future__ import annotations

from scanner.errors import EventError
from scanner.event.effective import player_records
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
        """Every player of the event: the roster and anyone registered, with their status and
        effective record (`scanner.event.effective`: the one the audit reads)."""
        with self.store() as store, self.station() as st:
            roster = {e.konami_id: e for e in st.roster()}
            records = player_records(store)
            rows = []
            for kid in sorted(set(roster) | set(records)):
                e, rec = roster.get(kid), records.get(kid)
                reg = rec.current if rec else None
                verdict = (self._verdict(store, reg) if reg
                           else Verdict(NOT_REGISTERED, 0, 0))
                sheet = rec.sheet if rec else None
                rows.append(PlayerRow(
                    konami_id=kid, name=(e.name if e else None) or (reg.player_name if reg else None)
                    or store.player_name(kid),
                    table_no=e.table_no if e else None, version=reg.version if reg else None,
                    verdict=verdict, fixed=bool(reg and store.decisions(reg.id)),
                    deck_checks=len(rec.live_deck_checks) if rec else 0,
                    infractions=len(rec.penalties_in_force) if rec else 0,
                    in_roster=e is not None, sheet=sheet.state if sheet else None,
                    sheet_id=sheet.sheet_id if sheet else None,
                    record=rec.summary() if rec else {}))
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
