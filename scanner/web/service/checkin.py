"""Check-in: an upload is kept and queued; its finished read becomes the player's registration."""
from __future__ import annotations

import re
from pathlib import Path

from card_db import messages
from scanner.errors import DecksheetError, EventError
from scanner.event import flows
from scanner.event.flows import PreparedRegistration, decklist_from_json
from scanner.event.record import JOB_KEY, EventRecord
from scanner.event.records import Registration, normalise_konami_id
from scanner.model import Decklist
from scanner.web.reader import ReadOutcome
from scanner.web.service.core import StationCore, StationError
from scanner.web.service.sheet_player import PLAYER_DECISION, player_choices
from scanner.web.hangul import one_syllable_apart
from scanner.web.station_store import NEEDS_DECISION, Job, StationQueue, UploadKeyReused
from scanner.web.uploads import CheckedUpload
from scanner.web.texts import ko

JOB_MARK = JOB_KEY
"""Key in a registration's stored decklist JSON naming the job that made it (no double
registration when a killed server runs the job again)."""
DECIDED = "checkin-decided"
"""Audit-log action: a judge settled a registration a guard held for a decision."""
CHECKIN_CONFIRMED = "checkin-confirmed"
"""Audit-log action: a judge confirmed that a sheet belongs to its player."""


class CheckinService(StationCore):
    def submit(self, upload: CheckedUpload, player: str | None, name: str | None,
               judge: str | None, ask_player: bool = False, upload_key: str | None = None) -> Job:
        """Keep the original (by sha256) and queue its reading; the job survives a restart.
        `ask_player` (the desk flow, no player typed): the read waits for the judge to confirm
        whose sheet it is (`decide` with a player) instead of taking the sheet's ID alone.
        An upload sent again (`upload_key`, or the same original for the same player just
        now) is the job it already made: one version, however often a phone retries."""
        kid = None
        if player and player.strip():
            try:
                kid = normalise_konami_id(player)
            except EventError:
                raise StationError(ko("kid-digits")) from None
        with self.store() as store:
            sha = store.store_file(upload.data)
        with self.station() as st:
            try:
                return st.add_job(sha, upload.file_name, kid, (name or "").strip()[:100] or None,
                                  judge, {"ask_player": True} if ask_player and kid is None
                                  else None, upload_key)
            except UploadKeyReused:
                raise StationError(ko("upload-key-reused"), 422) from None

    def job(self, job_id: str) -> Job | None:
        if not re.fullmatch(r"[0-9a-f]{16}", job_id or ""):
            return None
        with self.station() as st:
            return st.job(job_id)

    def sheets_waiting_for_player(self, limit: int = 20) -> list[Job]:
        """Desk-flow reads still waiting for the judge's tap (a page left before it): the
        check-in page lists them so none is forgotten."""
        with self.station() as st:
            held = st.jobs((NEEDS_DECISION,))
        return [j for j in held if (j.result or {}).get("decision") == PLAYER_DECISION][:limit]

    def pending_jobs(self) -> list[Job]:
        with self.station() as st:
            return st.jobs()

    def original_path(self, job: Job) -> Path:
        with self.store() as store:
            return store.file_path(job.file_sha256)

    def complete(self, job: Job, outcome: ReadOutcome) -> None:
        """Store the registration a finished read makes (once), then close the job. The store
        is `flows.commit_registration`, the CLI's: every guard applies; one that asks for a
        judge's decision leaves the job `needs-decision` (nothing stored). Any refusal fails
        the job with its reason: a job never stays running to be re-run forever."""
        if outcome.error or outcome.prepared is None:
            with self.station() as st:
                st.finish(job.id, None, outcome.error or ko("read-failed"))
            return
        try:
            self._commit(job, outcome.prepared, outcome.seconds)
        except DecksheetError as exc:
            with self.station() as st:
                st.finish(job.id, None, exc.render("ko"))

    def _commit(self, job: Job, prepared: PreparedRegistration, seconds: float,
                choice: str | None = None, player: str | None = None,
                judge: str | None = None) -> None:
        """Commit a prepared read for its job; `choice` = the decision a judge took on it,
        `player` = the player a judge confirmed for a desk-flow job."""
        deck = prepared.deck
        sheet_id = "".join(ch for ch in str(deck.konami_id or "") if ch.isdigit())
        held = job.result or {}
        with self.store() as store, self.station() as st:
            warnings: list[str] = []
            kid, source = job.konami_id or player or held.get("player"), "picked"
            if kid is not None and job.konami_id is None:
                source = "confirmed"
            elif kid is None and held.get("ask_player"):
                # The desk flow: the judge confirms whose sheet it is (one tap), nothing guessed.
                choices = player_choices(st.roster(), deck)
                st.wait_decision(job.id, {"decision": PLAYER_DECISION, "ask_player": True,
                                          "detail": ko("whose-sheet"), **choices, "lifted": [],
                                          "prepared": _prepared_json(prepared, seconds)})
                return
            if kid is None:
                kid = self._sheet_player(st, deck)
                source = "sheet"
                if kid is None:
                    st.finish(job.id, None, self._why_no_player(deck, sheet_id))
                    return
            elif sheet_id and sheet_id != kid:
                warnings.append(ko("sheet-id-differs", sheet_id=sheet_id, kid=kid))
            entry = st.roster_entry(kid)
            sheet_name = " ".join((deck.player_name or "").split())
            if entry and sheet_name and sheet_name.replace(" ", "") != entry.name.replace(" ", ""):
                ocr = deck.reader == "ocr"
                note = (" (OCR로 읽은 이름이 한 글자만 다름: 잘못 읽었을 수 있음, 신분증으로 확인)"
                        if ocr and one_syllable_apart(sheet_name, entry.name) else "")
                warnings.append(f"시트의 이름 「{sheet_name[:100]}」 ≠ 명단의 이름 「{entry.name}」{note}")
            reg = self._registration_of_job(store, kid, job.id) if job.attempts > 1 or choice \
                else None
            if reg is None:
                # Every guard a judge lifted on this job stays lifted (a second guard may ask next).
                lifted = set(held.get("lifted") or []) | ({held.get("decision")} if choice else set())
                lifted.discard(PLAYER_DECISION)
                try:
                    done = flows.commit_registration(
                        self.context(store, job.judge), prepared, kid,
                        name=job.name or (entry.name if entry else None),
                        replace=flows.IMPLAUSIBLE_VERSION in lifted,
                        allow_duplicate=flows.DUPLICATE_ORIGINAL in lifted,
                        extra_json={JOB_MARK: job.id})
                except flows.NeedsDecision as exc:
                    st.wait_decision(job.id, {"decision": exc.decision, "player": kid,
                                              "detail": exc.render("ko"),
                                              "lifted": sorted(x for x in lifted if x),
                                              "prepared": _prepared_json(prepared, seconds)})
                    return
                reg = done.registration
                if source == "confirmed":  # the judge's tap named the player: check-in confirmed
                    store.log(CHECKIN_CONFIRMED, {"player": reg.konami_id, "version": reg.version,
                                                  "from_sheet": True}, judge or job.judge)
            result = {"player": reg.konami_id, "version": reg.version, "legal": reg.legal,
                      "needs_review": reg.needs_review, "infractions": reg.infractions,
                      "name": reg.player_name, "sha256": reg.file_sha256, "reader": reg.reader,
                      "player_source": source, "sheet": {"konami_id": sheet_id or None,
                                                         "name": sheet_name[:100] or None},
                      "warnings": warnings, "seconds": round(seconds, 2)}
            st.finish(job.id, result, None)

    def decide(self, job_id: str, choice: str, judge: str | None,
               player: str | None = None) -> Job:
        """A judge settles a job that waits for a decision: `store` commits it with that guard
        lifted (the others still apply), `discard` closes it with nothing stored. A desk-flow
        job waiting for its player is stored only with the `player` the judge confirmed."""
        job = self.job(job_id)
        if job is None:
            raise StationError(ko("no-such-job"), 404)
        if job.state != NEEDS_DECISION:
            raise StationError(ko("not-waiting"), 409)
        if choice not in ("store", "discard"):
            raise StationError(ko("choice"), 422)
        kid = None
        if choice == "store" and (job.result or {}).get("decision") == PLAYER_DECISION:
            try:
                kid = normalise_konami_id(player or "")
            except EventError:
                raise StationError(ko("player-to-confirm"), 422) from None
        with self.station() as st:
            # The first of two judges' taps takes the job; the second finds nothing to decide
            # (a look at the state above is not enough: both taps would pass it at once).
            taken = st.take_decision(job.id)
        if taken is None:
            raise StationError(ko("not-waiting"), 409)
        try:
            self._carry_out(taken, choice, kid, judge)
        except BaseException:
            with self.station() as st:  # not carried out: it waits for a decision again
                st.give_back_decision(job.id)
            raise
        return self.job(job.id) or taken

    def _carry_out(self, job: Job, choice: str, kid: str | None, judge: str | None) -> None:
        with self.store() as store:
            store.log(DECIDED, {"job": job.id, "decision": (job.result or {}).get("decision"),
                                "choice": choice, **({"player": kid} if kid else {})}, judge)
        if choice == "discard":
            with self.station() as st:
                st.finish(job.id, None, messages.render("station.discarded", {}, "ko"))
            return
        prepared, seconds = _prepared_from_json((job.result or {}).get("prepared") or {})
        try:
            self._commit(job, prepared, seconds, choice, kid, judge)
        except DecksheetError as exc:
            with self.station() as st:
                st.finish(job.id, None, exc.render("ko"))

    def _sheet_player(self, st: StationQueue, deck: Decklist) -> str | None:
        """The sheet's own ID, when read with confidence (the CLI's rule) and, with a roster,
        on the roster."""
        kid = flows.sheet_konami_id(deck)
        if kid is None or (st.roster() and st.roster_entry(kid) is None):
            return None
        return kid

    @staticmethod
    def _why_no_player(deck: Decklist, sheet_id: str) -> str:
        if not sheet_id:
            return messages.render("station.no-sheet-id", {}, "ko")
        if flows.sheet_konami_id(deck) is None:
            return messages.render("station.sheet-id-unsure", {"sheet_id": sheet_id}, "ko")
        return messages.render("station.sheet-id-not-on-roster", {"sheet_id": sheet_id}, "ko")

    @staticmethod
    def _registration_of_job(store: EventRecord, kid: str, job_id: str) -> Registration | None:
        reg = store.registration_of_job(job_id)
        return reg if reg is not None and reg.konami_id == kid else None

    def confirm_checkin(self, konami_id: str, version: int, judge: str | None) -> None:
        """The judge confirms the sheet belongs to this player (logged)."""
        with self.store() as store:
            reg = self._live_reg(store, konami_id, version)
            try:
                store.log(CHECKIN_CONFIRMED, {"player": reg.konami_id, "version": reg.version},
                          judge, on_registration=reg.id)
            except EventError as exc:  # withdrawn at this very moment
                raise StationError.refusing(exc, 409) from None


def _prepared_json(prepared: PreparedRegistration, seconds: float) -> dict:
    """A prepared read as the job row keeps it while it waits for a decision (no re-read)."""
    return {"deck": prepared.deck.to_json(), "sha256": prepared.sha256,
            "file_name": prepared.file_name, "legal": prepared.legal,
            "infractions": prepared.infractions, "verdict": prepared.verdict,
            "seconds": seconds}


def _prepared_from_json(data: dict) -> tuple[PreparedRegistration, float]:
    try:
        deck = decklist_from_json(data["deck"])
        return PreparedRegistration(deck=deck, sha256=str(data["sha256"]),
                                    file_name=data.get("file_name"), legal=bool(data["legal"]),
                                    infractions=list(data.get("infractions") or []),
                                    verdict=str(data.get("verdict") or "")), \
            float(data.get("seconds") or 0)
    except (KeyError, TypeError, ValueError):
        raise StationError(ko("job-no-read"), 409) from None
