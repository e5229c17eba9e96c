"""Check-in: an upload is kept and queued; its finished read becomes the player's registration."""
from __future__ import annotations

import re
from pathlib import Path

from scanner.errors import EventError
from scanner.event.store import EventStore, Registration, normalise_konami_id
from scanner.web.reader import ReadOutcome
from scanner.web.service.core import StationCore, StationError
from scanner.web.hangul import one_syllable_apart
from scanner.web.station_store import Job, StationStore
from scanner.web.uploads import CheckedUpload

JOB_MARK = "station_job"
"""Key in a registration's stored decklist JSON naming the job that made it (no double
registration when a killed server runs the job again)."""
CHECKIN_CONFIRMED = "checkin-confirmed"
"""Audit-log action: a judge confirmed that a sheet belongs to its player."""


class CheckinService(StationCore):
    def submit(self, upload: CheckedUpload, player: str | None, name: str | None,
               judge: str | None) -> Job:
        """Keep the original (by sha256) and queue its reading; the job survives a restart."""
        kid = None
        if player and player.strip():
            try:
                kid = normalise_konami_id(player)
            except EventError:
                raise StationError("코나미 ID는 숫자만 입력하세요 (예: 0123456789)") from None
        with self.store() as store:
            sha = store.store_file(upload.data)
        with self.station() as st:
            return st.add_job(sha, upload.file_name, kid, (name or "").strip()[:100] or None, judge)

    def job(self, job_id: str) -> Job | None:
        if not re.fullmatch(r"[0-9a-f]{16}", job_id or ""):
            return None
        with self.station() as st:
            return st.job(job_id)

    def pending_jobs(self) -> list[Job]:
        with self.station() as st:
            return st.jobs()

    def original_path(self, job: Job) -> Path:
        with self.store() as store:
            return store.file_path(job.file_sha256)

    def complete(self, job: Job, outcome: ReadOutcome) -> None:
        """Store the registration a finished read makes (once), then close the job."""
        with self.store() as store, self.station() as st:
            if outcome.error or outcome.deck_json is None:
                st.finish(job.id, None, outcome.error or "읽기 실패")
                return
            deck = outcome.deck_json
            sheet = deck.get("player") or {}
            sheet_id = "".join(ch for ch in str(sheet.get("konami_id") or "") if ch.isdigit())
            warnings: list[str] = []
            kid, source = job.konami_id, "picked"
            if kid is None:
                kid = self._sheet_player(st, deck, sheet_id)
                source = "sheet"
                if kid is None:
                    st.finish(job.id, None, self._why_no_player(st, deck, sheet_id))
                    return
            elif sheet_id and sheet_id != kid:
                warnings.append(f"시트의 코나미 ID {sheet_id}가 선택한 선수 {kid}와 다릅니다")
            entry = st.roster_entry(kid)
            sheet_name = (sheet.get("name") or "").strip()
            if entry and sheet_name and sheet_name.replace(" ", "") != entry.name.replace(" ", ""):
                ocr = (deck.get("source") or {}).get("reader") == "ocr"
                note = (" (OCR로 읽은 이름이 한 글자만 다름: 잘못 읽었을 수 있음, 신분증으로 확인)"
                        if ocr and one_syllable_apart(sheet_name, entry.name) else "")
                warnings.append(f"시트의 이름 「{sheet_name}」 ≠ 명단의 이름 「{entry.name}」{note}")
            reg = self._registration_of_job(store, kid, job.id) if job.attempts > 1 else None
            if reg is None:
                stored = dict(deck, **{JOB_MARK: job.id})
                reg = store.add_registration(
                    kid, job.name or (entry.name if entry else None) or sheet_name or None,
                    stored, job.file_sha256, job.file_name, outcome.legal, outcome.infractions,
                    self.limits.name, job.judge)
            result = {"player": reg.konami_id, "version": reg.version, "legal": reg.legal,
                      "needs_review": reg.needs_review, "infractions": reg.infractions,
                      "name": reg.player_name, "sha256": reg.file_sha256, "reader": reg.reader,
                      "player_source": source, "sheet": {"konami_id": sheet_id or None,
                                                         "name": sheet_name or None},
                      "warnings": warnings, "seconds": round(outcome.seconds, 2)}
            st.finish(job.id, result, None)

    @staticmethod
    def _sheet_id_confident(deck: dict, sheet_id: str) -> bool:
        unclear = any(r.get("reason") == "konami-id-unclear" for r in deck.get("review") or [])
        return len(sheet_id) == 10 and not unclear

    def _sheet_player(self, st: StationStore, deck: dict, sheet_id: str) -> str | None:
        """The sheet's own ID, when read with confidence and (with a roster) on the roster."""
        if not self._sheet_id_confident(deck, sheet_id):
            return None
        if st.roster() and st.roster_entry(sheet_id) is None:
            return None
        return sheet_id

    def _why_no_player(self, st: StationStore, deck: dict, sheet_id: str) -> str:
        if not sheet_id:
            return "시트에서 코나미 ID를 읽지 못했습니다: 선수를 골라 다시 올리세요"
        if not self._sheet_id_confident(deck, sheet_id):
            return f"시트의 코나미 ID({sheet_id})가 확실하지 않습니다: 선수를 골라 다시 올리세요"
        return f"시트의 코나미 ID {sheet_id}가 명단에 없습니다: 선수를 골라 다시 올리세요"

    @staticmethod
    def _registration_of_job(store: EventStore, kid: str, job_id: str) -> Registration | None:
        return next((r for r in store.registrations() if r.konami_id == kid
                     and r.decklist_json.get(JOB_MARK) == job_id), None)

    def confirm_checkin(self, konami_id: str, version: int, judge: str | None) -> None:
        """The judge confirms the sheet belongs to this player (logged)."""
        with self.store() as store:
            reg = self._reg(store, konami_id, version)
            store.log(CHECKIN_CONFIRMED, {"player": reg.konami_id, "version": reg.version},
                      judge)
