"""The event's records for the dashboard and the exports: infractions (and their voids), the
audit, the exported lists."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from scanner.errors import EventError
from scanner.event import flows
from scanner.event.record import EventRecord
from scanner.web.service.core import StationCore, StationError
from scanner.web.views import InfractionView
from scanner.web.texts import ko


class RecordsService(StationCore):
    @staticmethod
    def _voids(store: EventRecord) -> dict[int, list[dict]]:
        """Voids/amendments per infraction, oldest first (appended records)."""
        out: dict[int, list[dict]] = {}
        for a in store.amendments():
            out.setdefault(a.infraction_id, []).append(
                {"reason": a.reason, "new_penalty": a.new_penalty if a.action != "void" else None,
                 "judge": a.judge, "at": a.created_at})
        return out

    def infractions(self) -> list[InfractionView]:
        with self.store() as store:
            voids = self._voids(store)
            names = self._player_names(store)
            return [InfractionView(i.id, i.konami_id, names.get(i.konami_id), i.code, i.penalty,
                                   i.remedy, i.rule, i.message, i.round, i.judge, i.created_at,
                                   voids.get(i.id, []))
                    for i in store.infractions()]

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
            if not any(i.id == infraction_id for i in store.infractions()):
                raise StationError(ko("no-such-infraction"), 404)
            try:
                flows.void_infraction(store, infraction_id, reason=reason[:300],
                                      judge=judge or "?", new_penalty=new_penalty or None)
            except EventError as exc:
                raise StationError.refusing(exc) from None
        return next(i for i in self.infractions() if i.id == infraction_id)

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
