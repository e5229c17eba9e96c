"""Check-in: an upload is kept and queued; its finished read becomes the player's registration."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from card_db import messages
from scanner.errors import DecksheetError, EventError
from scanner.event import flows
from scanner.event.flows import PreparedRegistration, decklist_from_json
from scanner.event.record import JOB_KEY, EventRecord, Guard
from scanner.event.records import OTHER_ID, Registration, normalise_konami_id
from scanner.model import Decklist
from scanner.web.reader import ReadOutcome
from scanner.web.service.core import StationCore, StationError
from scanner.web.service.sheet_player import PLAYER_DECISION, player_choices
from scanner.web.hangul import one_syllable_apart
from scanner.model import ReviewFlag
from scanner.vocab import Reason
from scanner.web.station_store import (NEEDS_DECISION, QUEUED, RUNNING, TAP, Job, RosterEntry,
                                       StationQueue, UploadKeyReused)
from scanner.web.preview import load_preview, preview_path, remove_preview
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
        """A job; a sheet waiting for its player gets its choices from the roster as it is now
        (a player added to the roster since the read is offered)."""
        if not re.fullmatch(r"[0-9a-f]{16}", job_id or ""):
            return None
        with self.station() as st:
            job = st.job(job_id)
            if job is not None and job.state == "running":  # a PDF's text read, not yet verified
                job.preview = load_preview(self.preview_file(job))  # (or a photo's header)
            held = job.result if job is not None else None
            if job is not None and job.state in (QUEUED, RUNNING) and held \
                    and held.get("ask_player") and not held.get(TAP) and job.preview \
                    and job.preview.get("stage") == "header":
                # The header is read, the rows not yet: whose sheet it is can be tapped now.
                job.whose = player_choices(st.roster(), header_deck(job.preview))
            if job is not None and job.state == NEEDS_DECISION and held \
                    and held.get("decision") == PLAYER_DECISION and held.get("prepared"):
                try:
                    deck = decklist_from_json(held["prepared"]["deck"])
                except (KeyError, TypeError, ValueError):
                    return job
                job.result = {**held, **player_choices(st.roster(), deck)}
            return job

    def sheets_waiting_for_player(self, limit: int = 20) -> list[Job]:
        """Desk-flow reads still waiting for the judge's tap (a page left before it): the
        check-in page lists them so none is forgotten."""
        with self.station() as st:
            held = st.jobs((NEEDS_DECISION,))
        return [j for j in held if (j.result or {}).get("decision") == PLAYER_DECISION][:limit]

    def pending_jobs(self) -> list[Job]:
        with self.station() as st:
            return st.jobs()

    def preview_file(self, job: Job) -> Path | None:
        """Where the job's reader writes the text layer's reading before it is verified."""
        return preview_path(self.crops_dir(job.file_sha256), job.id)

    def original_path(self, job: Job) -> Path:
        with self.store() as store:
            return store.file_path(job.file_sha256)

    def complete(self, job: Job, outcome: ReadOutcome) -> None:
        """Store the registration a finished read makes (once), then close the job. The store
        is `flows.commit_registration`, the CLI's: every guard applies; one that asks for a
        judge's decision leaves the job `needs-decision` (nothing stored). Any refusal fails
        the job with its reason: a job never stays running to be re-run forever. The preview
        of its text reading goes: the page shows the verified read from now on."""
        try:
            if outcome.error or outcome.prepared is None:
                error = outcome.error or ko("read-failed")
                with self.station() as st:
                    tap = ((st.job(job.id) or job).result or {}).get(TAP)
                    if tap and tap.get("player"):  # the judge must see the tap stored nothing
                        error = ko("tap-read-failed", error=error, kid=tap["player"])
                    st.finish(job.id, None, error)
                return
            try:
                if job.konami_id is None and (job.result or {}).get("ask_player"):
                    self._desk_read(job, outcome.prepared, outcome.seconds)
                else:
                    self._commit(job, outcome.prepared, outcome.seconds)
            except DecksheetError as exc:
                with self.station() as st:
                    st.finish(job.id, None, exc.render("ko"))
        finally:
            remove_preview(self.preview_file(job))

    def _desk_read(self, job: Job, prepared: PreparedRegistration, seconds: float) -> None:
        """A desk-flow read has ended: the judge's tap on whose sheet it is, made while it was
        read, is carried out now — only if the finished read gives the header the judge was
        shown (ID, name, how sure) and the choice still stands (`shown_player`); otherwise, or
        with no tap, the job waits for the tap (needs-decision), saying why."""
        with self.station() as st:
            choices = player_choices(st.roster(), prepared.deck)
            held = {"decision": PLAYER_DECISION, "ask_player": True, "detail": ko("whose-sheet"),
                    **choices, "lifted": [], "prepared": _prepared_json(prepared, seconds)}
            tap = st.tap_or_wait(job.id, held)
            fresh = st.job(job.id) or job
        if tap is None:
            return
        judge = tap.get("judge")
        if tap.get("choice") == "discard":
            self._carry_out(fresh, {"decision": PLAYER_DECISION}, "discard", None, 0.0, None,
                            judge, None, "desk")
            return
        kid, confirm, add = str(tap.get("player") or ""), tap.get("confirm"), bool(tap.get("add"))

        def ask_again(detail: str) -> None:
            with self.station() as st:
                st.wait_decision(job.id, {**held, "detail": detail, "again": True})

        if _header(tap.get("sheet")) != _header(choices["sheet"]):
            sheet = choices["sheet"]
            ask_again(ko("tap-sheet-changed", kid=kid, sheet=" · ".join(
                str(x) for x in (sheet.get("name"), sheet.get("konami_id")) if x) or "-"))
            return
        deck = prepared.deck
        try:
            if add:
                kid = self._add_sheet_player(deck, confirm, judge)
                how = "desk-added"
            else:
                with self.station() as st:
                    how = shown_player(st.roster(), deck, kid, confirm)
        except StationError as exc:
            ask_again(ko("tap-refused", kid=kid, why=str(exc)))
            return

        def guard(_: EventRecord, kid: str = kid) -> None:
            with self.station() as st:
                shown_player(st.roster(), deck, kid, confirm, added=add)
        try:
            self._commit(fresh, prepared, seconds, None, kid, judge, guard, how)
        except StationError as exc:
            ask_again(ko("tap-refused", kid=kid, why=str(exc)))
            return
        with self.store() as store:
            store.log(DECIDED, {"job": job.id, "decision": PLAYER_DECISION, "choice": "store",
                                "player": kid, "how": how, "during_read": True}, judge)

    def _commit(self, job: Job, prepared: PreparedRegistration, seconds: float,
                choice: str | None = None, player: str | None = None,
                judge: str | None = None, guard: Guard | None = None,
                how: str = "desk") -> None:
        """Commit a prepared read for its job; `choice` = the decision a judge took on it,
        `player` = the player a judge confirmed for a desk-flow job (`guard` checks, inside the
        write transaction, that the judge was shown that player; `how` they confirmed it)."""
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
                        extra_json={JOB_MARK: job.id}, guard=guard)
                except flows.NeedsDecision as exc:
                    st.wait_decision(job.id, {"decision": exc.decision, "player": kid,
                                              "detail": exc.render("ko"),
                                              "lifted": sorted(x for x in lifted if x),
                                              "prepared": _prepared_json(prepared, seconds)})
                    return
                reg = done.registration
                if reg.konami_id != kid:  # a second tap on the same held sheet: it went to
                    raise StationError(ko("job-decided-elsewhere", kid=reg.konami_id), 409)
                if source == "confirmed" and reg.identity.kind != OTHER_ID:
                    # The judge's tap named the player: whose sheet it is, confirmed. A sheet
                    # carrying another player's ID is not: that takes its own confirmation.
                    store.confirm_sheet(reg.konami_id, reg.version, judge or job.judge or "?",
                                        how)
            result = {"player": reg.konami_id, "version": reg.version, "legal": reg.legal,
                      "needs_review": reg.needs_review, "infractions": reg.infractions,
                      "name": reg.player_name, "sha256": reg.file_sha256, "reader": reg.reader,
                      "player_source": source, "sheet": {"konami_id": sheet_id or None,
                                                         "name": sheet_name[:100] or None},
                      "warnings": warnings, "seconds": round(seconds, 2)}
            st.finish(job.id, result, None)

    def decide(self, job_id: str, choice: str, judge: str | None,
               player: str | None = None, confirm: str | None = None,
               add: bool = False) -> Job:
        """A judge settles a job that waits for a decision: `store` commits it with that guard
        lifted (the others still apply), `discard` closes it with nothing stored. A desk-flow
        job waiting for its player is stored only on a player the judge was shown for it
        (`shown_player`, checked again inside the write transaction): the sheet's own ID found
        on the roster as it is; a roster candidate or a player found by search once the judge
        typed that player's table or the last digits of their Konami ID (`confirm`); or, with
        `add`, the player the sheet names, added to the roster from its ID and name."""
        job = self.job(job_id)
        if job is None:
            raise StationError(ko("no-such-job"), 404)
        if choice not in ("store", "discard"):
            raise StationError(ko("choice"), 422)
        if job.state in (QUEUED, RUNNING) and (job.result or {}).get("ask_player"):
            held_now = self._tap_during_read(job, choice, judge, player, confirm, add)
            if held_now is not None:
                return held_now
            job = self.job(job_id) or job  # the read ended meanwhile: decided as a held sheet
        if job.state != NEEDS_DECISION:
            raise StationError(ko("not-waiting"), 409)
        held = job.result or {}
        kid = guard = None
        how = "desk"
        prepared, seconds = (_prepared_from_json(held.get("prepared") or {})
                             if choice == "store" else (None, 0.0))
        if choice == "store" and held.get("decision") == PLAYER_DECISION:
            assert prepared is not None
            if add:
                kid = self._add_sheet_player(prepared.deck, confirm, judge)
                how = "desk-added"
            else:
                kid, how, _ = self._chosen_player(player, prepared.deck, confirm)
            deck = prepared.deck

            def guard(_: EventRecord, kid: str = kid, deck: Decklist = deck) -> None:
                # Under the registration's write lock (the roster lives in the same file or
                # database and changes under that lock): the player is one the judge was shown.
                with self.station() as st:
                    shown_player(st.roster(), deck, kid, confirm, added=add)
        with self.station() as st:
            # The first of two judges' taps takes the job; the second finds nothing to decide
            # (a look at the state above is not enough: both taps would pass it at once).
            taken = st.take_decision(job.id)
        if taken is None:
            raise self._decided_elsewhere(job.id)
        try:
            self._carry_out(taken, held, choice, prepared, seconds, kid, judge, guard, how)
        except BaseException:
            with self.station() as st:  # not carried out: it waits for a decision again
                st.give_back_decision(job.id)
            raise
        return self.job(job.id) or taken

    def _tap_during_read(self, job: Job, choice: str, judge: str | None, player: str | None,
                         confirm: str | None, add: bool) -> Job | None:
        """The judge's tap on whose sheet it is while the sheet's rows are still read: checked
        against what the page showed (the header already read: the same rules as on a held
        sheet), kept in the job's row (`StationQueue.hold_tap`), carried out when the read ends
        (`_desk_read`). None when the read has ended meanwhile (the caller decides as usual)."""
        tap: dict = {"choice": choice, "judge": judge}
        earlier = (job.result or {}).get(TAP)
        if earlier:  # a second tap during the read: the first stands
            if (earlier.get("choice"), earlier.get("player")) == (choice, player) and not add:
                return job
            raise StationError(ko("tap-other", kid=earlier.get("player") or "-"), 409)
        if choice == "store":
            if job.whose is None:
                raise StationError(ko("tap-not-read-yet"), 409)
            deck = header_deck(job.preview or {})
            sheet = job.whose["sheet"]
            if add:
                kid = self._addable(deck, confirm)
                how = "desk-added"
                name = sheet.get("name")
            else:
                kid, how, roster = self._chosen_player(player, deck, confirm)
                name = next((e.name for e in roster if e.konami_id == kid), sheet.get("name"))
            tap.update(player=kid, name=name, confirm=confirm, add=add, how=how, sheet=sheet)
        with self.station() as st:
            kept = st.hold_tap(job.id, tap)
        if kept is None:
            return None
        if (kept.get("choice"), kept.get("player")) != (tap.get("choice"), tap.get("player")):
            raise StationError(ko("tap-other", kid=kept.get("player") or "-"), 409)
        return self.job(job.id)

    def _chosen_player(self, player: str | None, deck: Decklist,
                       confirm: str | None) -> tuple[str, str, list[RosterEntry]]:
        """The roster player the judge tapped for a sheet: their Konami ID, how they were told
        (`shown_player`'s rules: a StationError when the page could not have offered them), and
        the roster looked at."""
        try:
            kid = normalise_konami_id(player or "")
        except EventError:
            raise StationError(ko("player-to-confirm"), 422) from None
        with self.station() as st:
            roster = st.roster()
        return kid, shown_player(roster, deck, kid, confirm), roster

    def _addable(self, deck: Decklist, confirm: str | None) -> str:
        """The sheet's own player may be added to the roster from its ID and name (the rules of
        `_add_sheet_player`, nothing added yet): their Konami ID."""
        sheet_id = "".join(ch for ch in str(deck.konami_id or "") if ch.isdigit())
        try:
            kid = normalise_konami_id(sheet_id)
        except EventError:
            raise StationError(ko("sheet-id-not-addable"), 422) from None
        if flows.sheet_konami_id(deck) is None and not _digits_match(kid, confirm):
            raise StationError(ko("confirm-id-digits"), 422)
        return kid

    def _decided_elsewhere(self, job_id: str) -> StationError:
        """The answer to the second of two taps on one held sheet: whose sheet the first tap
        stored it as, when it did (the judge sees what happened, not only that it did)."""
        with self.store() as store:
            reg = store.registration_of_job(job_id)
        if reg is not None:
            return StationError(ko("job-decided-elsewhere", kid=reg.konami_id), 409)
        return StationError(ko("not-waiting"), 409)

    def _carry_out(self, job: Job, held: dict, choice: str,
                   prepared: PreparedRegistration | None, seconds: float, kid: str | None,
                   judge: str | None, guard, how: str) -> None:
        if choice == "discard":
            with self.store() as store:
                store.log(DECIDED, {"job": job.id, "decision": held.get("decision"),
                                    "choice": choice}, judge)
            with self.station() as st:
                st.finish(job.id, None, messages.render("station.discarded", {}, "ko"))
            return
        assert prepared is not None
        try:
            self._commit(job, prepared, seconds, choice, kid, judge, guard, how)
        except StationError:
            raise
        except DecksheetError as exc:
            with self.station() as st:
                st.finish(job.id, None, exc.render("ko"))
        with self.store() as store:
            store.log(DECIDED, {"job": job.id, "decision": held.get("decision"),
                                "choice": choice, **({"player": kid} if kid else {}),
                                **({"how": how} if kid else {})}, judge)

    def _add_sheet_player(self, deck: Decklist, confirm: str | None, judge: str | None) -> str:
        """The player a sheet names, added to the roster from the ID and name read off it (one
        tap): a 10-digit ID not on the roster yet; an ID read without confidence only with its
        last digits typed from the player's card."""
        from scanner.web.station_store import RosterEntry

        kid = self._addable(deck, confirm)
        name = " ".join((deck.player_name or "").split())[:100]
        with self.station() as st:
            if st.roster_entry(kid) is None:
                st.upsert_roster([RosterEntry(kid, name or kid, None)])
                added = True
            else:
                added = False
        if added:
            with self.store() as store:
                store.log("roster-add", {"player": kid, "name": name or kid, "from_sheet": True},
                          actor=judge)
        return kid

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

    def confirm_checkin(self, konami_id: str, version: int, judge: str | None,
                        sheet_id: str | None = None) -> None:
        """The judge confirms the sheet belongs to this player (a record of its own). A sheet
        that carries another player's Konami ID needs `sheet_id` naming that ID: the separate,
        explicit confirmation (the plain 「예」 is refused for it)."""
        if not judge:
            raise StationError(ko("judge-missing"))
        with self.store() as store:
            reg = self._live_reg(store, konami_id, version)
            try:
                store.confirm_sheet(reg.konami_id, reg.version, judge,
                                    "page-other-id" if sheet_id else "page", sheet_id)
            except EventError as exc:
                status = 409 if exc.code in ("event.sheet-id-not-acknowledged",
                                             "event.version-withdrawn") else 400
                raise StationError.refusing(exc, status) from None

    def recheck_in(self, konami_id: str, version: int, owner: str, judge: str | None,
                   add: bool = False) -> Job:
        """Check the stored original of a (withdrawn) version in again for the player it
        belongs to — no second upload: a new job reads the kept file. `add`: the owner is not
        on the roster yet and is added from the ID and name the sheet carries."""
        from scanner.web.station_store import RosterEntry

        if not judge:
            raise StationError(ko("judge-missing"))
        try:
            kid = normalise_konami_id(owner)
        except EventError:
            raise StationError(ko("kid-digits")) from None
        with self.store() as store:
            reg = self._reg(store, konami_id, version)
            if reg.withdrawal is None:
                raise StationError(ko("recheckin-not-withdrawn"), 409)
            if kid == reg.konami_id:
                raise StationError(ko("recheckin-same-player"), 409)
            name = (reg.decklist_json.get("player") or {}).get("name")
        with self.station() as st:
            if st.roster() and st.roster_entry(kid) is None:
                if not add or kid != reg.sheet_id:
                    raise StationError(ko("not-on-roster", kid=kid), 409)
                st.upsert_roster([RosterEntry(kid, " ".join(str(name or kid).split())[:100],
                                              None)])
            job = st.add_job(reg.file_sha256, reg.file_name, kid, None, judge)
        with self.store() as store:
            store.log("recheckin", {"from": reg.konami_id, "version": reg.version,
                                    "player": kid, "job": job.id, "sha256": reg.file_sha256},
                      judge)
        return job


def header_deck(preview: dict) -> Decklist:
    """The player a photo's header gives (`preview.header_json`), as a decklist with no lines:
    whose-sheet choices are made from it as from the finished read. (A PDF's text reading gives
    no choices: nothing is offered to store it with before its pages are verified, issue 33.)"""
    pl = preview.get("player") or {}
    kid = str(pl.get("konami_id") or "") or None
    sure = bool(pl.get("id_sure"))
    review = [] if sure or not kid else [ReviewFlag(section=None, reason=Reason.KONAMI_ID_UNCLEAR,
                                                    detail="read without confidence")]
    name = pl.get("name")
    return Decklist(player_name=str(name) if name else None, konami_id=kid, review=review)


def _header(sheet: dict | None) -> tuple:
    """What a whose-sheet choice rests on: the sheet's ID, name and how sure the ID is."""
    sheet = sheet or {}
    return (sheet.get("konami_id"), "".join(str(sheet.get("name") or "").split()) or None,
            bool(sheet.get("id_sure")))


def _digits_match(konami_id: str, typed: str | None, n: int = 4) -> bool:
    """The last `n` digits the judge typed (from the player's card) are this ID's."""
    digits = "".join(ch for ch in unicodedata.normalize("NFKC", typed or "")
                     if ch in "0123456789")
    return len(digits) >= n and konami_id.endswith(digits)


def shown_player(roster: list[RosterEntry], deck: Decklist, kid: str, confirm: str | None,
                 added: bool = False) -> str:
    """How the judge's choice of `kid` for a held sheet stands (refused otherwise): `desk` —
    the sheet's own ID read with confidence (or, added from the sheet, its ID); `desk-table` /
    `desk-digits` — a roster player (a candidate shown, or found by the search box) confirmed
    with their table or the last digits of their Konami ID. Anyone else: refused."""
    choices = player_choices(roster, deck)
    match = choices.get("match") or {}
    if kid == match.get("player") or (added and kid == (choices["sheet"] or {}).get("konami_id")):
        return "desk"
    entry = next((e for e in roster if e.konami_id == kid), None)
    if entry is None:
        raise StationError(ko("player-not-shown"), 422)
    typed = unicodedata.normalize("NFKC", confirm or "").strip()
    if entry.table_no and typed and typed == unicodedata.normalize("NFKC", entry.table_no).strip():
        return "desk-table"
    if _digits_match(kid, typed):
        return "desk-digits"
    raise StationError(ko("confirm-table-or-digits"), 422)


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
