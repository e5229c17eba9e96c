"""The event's records for the dashboard and the exports: infractions (and their voids), the
audit, the exported lists."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from scanner.errors import EventError
from scanner.event import flows
from scanner.event.effective import player_record
from scanner.event.records import DeckCheck, IssuedInfraction, normalise_konami_id
from scanner.web.service.core import StationCore, StationError
from scanner.web.views import (DeckCheckView, InfractionView, PlayerRecordView,
                               SheetIdentityView)
from scanner.web.texts import ko


class RecordsService(StationCore):
    @staticmethod
    def _infraction_view(i: IssuedInfraction, name: str | None,
                         checks: dict[int, DeckCheck]) -> InfractionView:
        """An infraction as the record reads it now: its status and penalty in force are
        `IssuedInfraction`'s (the audit's and `event status`'s), never recomputed here."""
        check = checks.get(i.deck_check_id) if i.deck_check_id is not None else None
        pen = (check.result_json.get("penalty") or {}) if check else {}
        return InfractionView(
            **i.entry(), name=name, at=i.created_at,
            voids=[{"reason": a.reason, "new_penalty": a.new_penalty if a.action != "void" else None,
              "judge": a.judge, "at": a.created_at} for a in i.amendments],
            status=i.status, penalty_now=i.effective_penalty,
            undo_to=i.penalty_before_last if i.amendments else None,
            deck_check_id=i.deck_check_id, applies=pen.get("applies"),
            findings=[str(f.get("code")) for f in i.findings if f.get("code")] or [i.code])

    def infractions(self) -> list[InfractionView]:
        with self.store() as store:
            names = self._player_names(store)
            checks = {c.id: c for c in store.deck_checks()}
            return [self._infraction_view(i, names.get(i.konami_id), checks)
                    for i in store.infractions()]

    def infraction(self, infraction_id: int) -> InfractionView:
        found = next((i for i in self.infractions() if i.id == infraction_id), None)
        if found is None:
            raise StationError(ko("no-such-infraction"), 404)
        return found

    def player_record(self, konami_id: str) -> PlayerRecordView:
        """The player's effective record (`scanner.event.effective`) for the player page."""
        try:
            kid = normalise_konami_id(konami_id)
        except EventError:
            raise StationError(ko("bad-kid"), 404) from None
        with self.store() as store:
            rec = player_record(store, kid)
            name = store.player_name(kid)
        checks = {c.id: c for c in rec.deck_checks}
        ident = rec.sheet
        return PlayerRecordView(
            konami_id=kid,
            sheet=SheetIdentityView(ident.kind, ident.sheet_id, ident.confirmed, ident.state,
                                    ident.judge, ident.time) if ident else None,
            deck_checks=[deck_check_view(c, [i.id for i in rec.infractions
                                             if i.deck_check_id == c.id])
                         for c in rec.deck_checks],
            infractions=[self._infraction_view(i, name, checks) for i in rec.infractions],
            summary=rec.summary())

    def sheet_identity(self, konami_id: str, version: int) -> SheetIdentityView:
        """Whose sheet one version is (the record's `SheetIdentity`)."""
        with self.store() as store:
            reg = self._reg(store, konami_id, version)
        ident = reg.identity
        return SheetIdentityView(ident.kind, ident.sheet_id, ident.confirmed, ident.state,
                                 ident.judge, ident.time)

    def void_infraction(self, infraction_id: int, reason: str, judge: str | None,
                        new_penalty: str | None = None) -> InfractionView:
        """Void (or amend to `new_penalty`) a recorded infraction: a new record; the original
        row stays as it was."""
        from scanner.rules.codes import PENALTY_KO

        reason = (reason or "").strip()
        if not reason:
            raise StationError(ko("void-reason-needed"))
        if new_penalty and new_penalty not in PENALTY_KO:
            raise StationError(ko("unknown-penalty"))
        with self.store() as store:
            if store.infraction(infraction_id) is None:
                raise StationError(ko("no-such-infraction"), 404)
            try:
                flows.void_infraction(store, infraction_id, reason=reason[:300],
                                      judge=judge or "?", new_penalty=new_penalty or None)
            except EventError as exc:
                raise StationError.refusing(exc) from None
        return self.infraction(infraction_id)

    def undo_amendment(self, infraction_id: int, reason: str,
                       judge: str | None) -> InfractionView:
        """Undo the latest void or amendment of an infraction: a new record putting back the
        penalty that stood before it (the rows stay; the log shows both)."""
        current = self.infraction(infraction_id)
        if not current.voids:
            raise StationError(ko("nothing-to-undo"), 409)
        reason = (reason or "").strip()
        if not reason:
            raise StationError(ko("void-reason-needed"))
        with self.store() as store:
            try:
                flows.void_infraction(store, infraction_id, reason=f"되돌림: {reason}"[:300],
                                      judge=judge or "?", new_penalty=current.undo_to)
            except EventError as exc:
                raise StationError.refusing(exc) from None
        return self.infraction(infraction_id)

    def void_deck_check(self, check_id: int, reason: str, judge: str | None) -> DeckCheckView:
        """Void a recorded deck check with a reason (its infraction is voided with it)."""
        if not (reason or "").strip():
            raise StationError(ko("void-reason-needed"))
        with self.store() as store:
            try:
                check = flows.void_deck_check(store, check_id, reason=reason[:300],
                                              judge=judge or "")
            except EventError as exc:
                status = {"event.no-deck-check": 404,
                          "event.deck-check-already-void": 409}.get(exc.code, 400)
                raise StationError.refusing(exc, status) from None
            ids = [i.id for i in store.infractions(check.konami_id)
                   if i.deck_check_id == check.id]
        return deck_check_view(check, ids)

    def run_audit(self, out_dir: Path, log: bool = True, judge: str | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  should_stop: Callable[[], bool] | None = None) -> dict:
        """Re-check every registration into `out_dir`; `log=False` for a download (a GET),
        which must leave the event as it was. `progress(done, total)` as registrations are
        re-checked; `should_stop()` true ends it early (`AuditStopped`)."""
        from scanner.event.audit import run_audit
        from scanner.event.audit_report import write_report

        out_dir.mkdir(parents=True, exist_ok=True)
        with self.store() as store:
            total = len(store.registrations())
            done = 0

            def step(n: int) -> None:
                nonlocal done
                done += n
                if progress:
                    progress(done, total)

            if progress:
                progress(0, total)
            # Sheets are re-read in reader processes, never in the server's (a Tesseract crash
            # there stopped every desk); one audit at a time (`audit_lock`).
            with self.audit_lock:
                result = run_audit(self.context(store), workers=1, in_process=False,
                                   progress=step, should_stop=should_stop)
            write_report(result, out_dir, korean_csv=True)
            if log:
                store.log("audit", {"registrations": len(result.current), "out": str(out_dir)},
                          actor=judge)
        return result.to_json()

    def export_lists(self, out_dir: Path) -> None:
        from scanner.event.export import export_event

        with self.store() as store:
            export_event(store, self.db, out_dir, {"csv"})


def deck_check_view(c: DeckCheck, infraction_ids: list[int]) -> DeckCheckView:
    return DeckCheckView(id=c.id, round=c.round, mode=c.mode, verdict=c.verdict,
                         differences=c.result_json.get("differences") or [],
                         penalty=c.result_json.get("penalty"), judge=c.judge, at=c.created_at,
                         void=c.void.to_json() if c.void else None,
                         infraction_ids=infraction_ids)
