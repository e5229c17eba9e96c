"""The roster and the player list: who plays, and where each player's registration stands."""
from __future__ import annotations

import csv
import io

from scanner.errors import EventError
from scanner.event.store import normalise_konami_id
from scanner.web.service.core import StationCore, StationError
from scanner.web.station_store import RosterEntry
from scanner.web.views import NOT_REGISTERED, PlayerRow, Verdict


class RosterService(StationCore):
    def import_roster(self, text: str) -> tuple[int, int]:
        """CSV with a header `player,name[,table]` (Konami ID, name, optional table/seat)."""
        text = text.lstrip("\ufeff")
        reader = csv.DictReader(io.StringIO(text))
        fields = [f.strip().lower() for f in reader.fieldnames or []]
        if "player" not in fields or "name" not in fields:
            raise StationError("CSV 첫 줄은 player,name[,table] 이어야 합니다")
        reader.fieldnames = fields
        entries: dict[str, RosterEntry] = {}
        for n, row in enumerate(reader, 2):
            kid_raw, name = (row.get("player") or "").strip(), (row.get("name") or "").strip()
            if not kid_raw and not name:
                continue
            try:
                kid = normalise_konami_id(kid_raw)
            except EventError:
                raise StationError(f"{n}번째 줄: 코나미 ID가 숫자가 아닙니다: {kid_raw[:30]!r}") from None
            if not name:
                raise StationError(f"{n}번째 줄: 이름이 비어 있습니다")
            table = (row.get("table") or "").strip() or None
            entries[kid] = RosterEntry(kid, name[:100], table[:20] if table else None)
        with self.station() as st:
            return st.upsert_roster(list(entries.values()))

    def add_player(self, konami_id: str, name: str, table_no: str | None) -> RosterEntry:
        try:
            kid = normalise_konami_id(konami_id)
        except EventError:
            raise StationError("코나미 ID는 숫자만 입력하세요 (예: 0123456789)") from None
        if not name.strip():
            raise StationError("이름을 입력하세요")
        entry = RosterEntry(kid, name.strip()[:100], (table_no or "").strip()[:20] or None)
        with self.station() as st:
            st.upsert_roster([entry])
        return entry

    def players(self) -> list[PlayerRow]:
        """Every player of the event: the roster and anyone registered, with their status."""
        with self.store() as store, self.station() as st:
            roster = {e.konami_id: e for e in st.roster()}
            latest = {r.konami_id: r for r in store.registrations(latest_only=True)}
            checks: dict[str, int] = {}
            for c in store.deck_checks():
                checks[c.konami_id] = checks.get(c.konami_id, 0) + 1
            issued: dict[str, int] = {}
            for i in store.infractions():
                if i.status != "voided":
                    issued[i.konami_id] = issued.get(i.konami_id, 0) + 1
            rows = []
            for kid in sorted(set(roster) | set(latest)):
                e, reg = roster.get(kid), latest.get(kid)
                verdict = (self._verdict(store, reg) if reg
                           else Verdict(NOT_REGISTERED, 0, 0))
                rows.append(PlayerRow(
                    konami_id=kid, name=(e.name if e else None) or (reg.player_name if reg else None),
                    table_no=e.table_no if e else None, version=reg.version if reg else None,
                    verdict=verdict, fixed=bool(reg and store.decisions(reg.id)),
                    deck_checks=checks.get(kid, 0), infractions=issued.get(kid, 0),
                    in_roster=e is not None))
        rows.sort(key=lambda r: (r.name or "", r.konami_id))
        return rows

    def search_players(self, query: str, limit: int = 30) -> list[PlayerRow]:
        from scanner.web.hangul import matches

        return [r for r in self.players()
                if matches(query, r.name or "", r.konami_id, r.table_no)][:limit]

    def player(self, konami_id: str) -> PlayerRow | None:
        try:
            kid = normalise_konami_id(konami_id)
        except EventError:
            return None
        return next((r for r in self.players() if r.konami_id == kid), None)
