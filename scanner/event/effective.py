"""The effective record of each player: what stands once every appended correction is applied
(withdrawn versions, the sheet's identity and its confirmation, voided deck checks, voided and
amended infractions). One function, asked by the station's dashboard and player page, by
`event status` and by the audit, so none of them can show a void the record has undone, or miss
a sheet that carries another player's ID (issue 36) — as `scanner.event.status` is for the
list's status.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from scanner.event.record import EventRecord
from scanner.event.records import DeckCheck, IssuedInfraction, Registration, SheetIdentity


@dataclass
class PlayerRecord:
    """One player's record as it stands."""

    konami_id: str
    current: Registration | None
    """The current version (the newest not withdrawn), or None: not registered."""
    withdrawn_versions: list[int] = field(default_factory=list)
    deck_checks: list[DeckCheck] = field(default_factory=list)
    """Every recorded deck check, voided ones included (`.void`)."""
    infractions: list[IssuedInfraction] = field(default_factory=list)
    """Every recorded infraction with its voids/amendments."""

    @property
    def version(self) -> int | None:
        return self.current.version if self.current else None

    @property
    def sheet(self) -> SheetIdentity | None:
        """Whose sheet the current version is (None: no current version)."""
        return self.current.identity if self.current else None

    @property
    def live_deck_checks(self) -> list[DeckCheck]:
        return [c for c in self.deck_checks if not c.voided]

    @property
    def penalties_in_force(self) -> list[IssuedInfraction]:
        return [i for i in self.infractions if i.effective_penalty is not None]

    def summary(self) -> dict:
        """The effective record in a few plain values: what every view must agree on."""
        sheet = self.sheet
        return {"player": self.konami_id, "version": self.version,
                "withdrawn_versions": sorted(self.withdrawn_versions),
                "sheet": sheet.state if sheet else None,
                "sheet_id": sheet.sheet_id if sheet else None,
                "deck_checks": [[c.id, c.voided] for c in self.deck_checks],
                "infractions": [[i.id, i.status, i.effective_penalty] for i in self.infractions]}


def player_records(store: EventRecord, konami_id: str | None = None) -> dict[str, PlayerRecord]:
    """Every registered player's effective record (or one player's), by Konami ID."""
    regs = store.registrations(konami_id=konami_id)
    out: dict[str, PlayerRecord] = {}
    for r in regs:
        rec = out.setdefault(r.konami_id, PlayerRecord(r.konami_id, None))
        if r.withdrawal is not None:
            rec.withdrawn_versions.append(r.version)
        else:
            rec.current = r  # by version: the newest not withdrawn is last
    for c in store.deck_checks(konami_id):
        out.setdefault(c.konami_id, PlayerRecord(c.konami_id, None)).deck_checks.append(c)
    for i in store.infractions(konami_id):
        out.setdefault(i.konami_id, PlayerRecord(i.konami_id, None)).infractions.append(i)
    for rec in out.values():
        rec.deck_checks.sort(key=lambda c: (c.round, c.id))
    return dict(sorted(out.items()))


def player_record(store: EventRecord, konami_id: str) -> PlayerRecord:
    return player_records(store, konami_id).get(konami_id) or PlayerRecord(konami_id, None)
