"""The station's one door into the event layer: every call to `scanner.event` is made here.

Pages and API handlers call `StationService` methods and get plain dataclasses back; they
never see SQL, an `EventStore` or the flows' signatures, so a change in the event layer (or a
PostgreSQL store later) is adapted in this module alone.
"""
from __future__ import annotations

import contextlib
import csv
import io
import re
import threading
from collections.abc import Iterator
from pathlib import Path

from card_db.cdb import CardDatabase, load_card_db
from card_db.models import LimitList
from scanner.errors import DecksheetError, EventError
from scanner.event import flows
from scanner.event.flows import (
    CHOOSE,
    KEEP,
    SKIP,
    apply_decisions,
    decklist_from_json,
    event_limits,
)
from scanner.event.store import (
    EventStore,
    Registration,
    ReviewDecision,
    normalise_konami_id,
)
from scanner.model import SECTIONS, Decklist, Entry

RESTORE = "restore"
"""The station's word for putting a struck-through printed row back (stored as the event
layer's `choose` on that sheet-level item, with the card and count the sheet printed)."""
from scanner.rules.codes import REVIEW_CODES, VERDICT_CODES
from scanner.web.config import StationConfig
from scanner.web.reader import ReadOutcome
from scanner.web.station_store import Job, RosterEntry, StationStore
from scanner.web.uploads import CheckedUpload
from scanner.web.views import (
    NOT_REGISTERED,
    ChecklistRow,
    DecisionView,
    DeckCheckPreview,
    InfractionView,
    LineView,
    PlayerRow,
    RegistrationView,
    SheetFlagView,
    Verdict,
)

JOB_MARK = "station_job"
"""Key in a registration's stored decklist JSON naming the job that made it (no double
registration when a killed server runs the job again)."""


class StationError(Exception):
    """A request the station refuses; `status` is the HTTP status (4xx)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


_SECTION_KO = {"main": "메인", "extra": "엑스트라", "side": "사이드"}
_COLUMN_KO = {"monster": "몬스터", "spell": "마법", "trap": "함정", "extra": "엑스트라",
              "side": "사이드"}
_CROP_IN_DETAIL = re.compile(r";?\s*crop (\S+)")
_STRUCK_CARD = re.compile(r"\[(\d+)\]\)? ×([123])\b")


class StationService:
    """Event, roster, jobs and card database of one running station."""

    def __init__(self, config: StationConfig, db: CardDatabase | None = None) -> None:
        self.config = config
        self.db = db or load_card_db(config.card_db or None, aliases=config.aliases or None)
        with self.store() as store:
            self.event = store.event()
            self.limits: LimitList = event_limits(self.event, self.db, config.lflist,
                                                  config.list_name, config.extra_bans)
        StationStore(config.event_path, create=True).close()  # the station's tables
        self.crops_root.mkdir(parents=True, exist_ok=True)
        self._status_cache: dict[tuple[int, int], Verdict] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ plumbing

    @contextlib.contextmanager
    def store(self) -> Iterator[EventStore]:
        """A connection per use: requests run on several threads."""
        store = EventStore.open(self.config.event_path)
        try:
            yield store
        finally:
            store.close()

    @contextlib.contextmanager
    def station(self) -> Iterator[StationStore]:
        st = StationStore(self.config.event_path)
        try:
            yield st
        finally:
            st.close()

    @property
    def crops_root(self) -> Path:
        return self.config.station_dir / "crops"

    def crops_dir(self, sha256: str) -> Path:
        return self.crops_root / sha256

    def crop_file(self, sha256: str, name: str) -> Path | None:
        """A saved crop, or None (names are checked: no way out of the crops folder)."""
        if not re.fullmatch(r"[0-9a-f]{64}", sha256) or not re.fullmatch(r"[\w.\-]+\.png", name):
            return None
        p = self.crops_dir(sha256) / name
        return p if p.is_file() else None

    def _crop_url(self, path: str | None) -> str | None:
        if not path:
            return None
        p = Path(path)
        return f"/crops/{p.parent.name}/{p.name}" if p.parent.parent == self.crops_root else None

    # ------------------------------------------------------------------ roster

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

    # ------------------------------------------------------------------ players and status

    def _verdict(self, store: EventStore, reg: Registration) -> Verdict:
        """The registration's verdict now (decisions applied, re-checked), cached per
        (registration, decisions so far): the dashboard asks for every player at once."""
        decisions = store.decisions(reg.id)
        key = (reg.id, len(decisions))
        with self._lock:
            cached = self._status_cache.get(key)
        if cached is not None:
            return cached
        deck, check = flows.registration_check(store, reg, self.db, self.limits)
        breaches = sum(1 for i in check.infractions if i.code not in REVIEW_CODES)
        verdict = Verdict(VERDICT_CODES[check.verdict], deck.needs_review, breaches)
        with self._lock:
            self._status_cache[key] = verdict
        return verdict

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

    # ------------------------------------------------------------------ check-in (jobs)

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
                warnings.append(f"시트의 이름 「{sheet_name}」 ≠ 명단의 이름 「{entry.name}」")
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
            store.log("checkin-confirmed", {"player": reg.konami_id, "version": reg.version},
                      judge)

    # ------------------------------------------------------------------ result and review

    def _reg(self, store: EventStore, konami_id: str, version: int | None) -> Registration:
        try:
            kid = normalise_konami_id(konami_id)
        except EventError:
            raise StationError("코나미 ID가 올바르지 않습니다", 404) from None
        reg = store.registration(kid, version) if version else store.latest_registration(kid)
        if reg is None:
            raise StationError("등록된 덱 리스트가 없습니다", 404)
        return reg

    def registration(self, konami_id: str, version: int | None = None) -> RegistrationView:
        with self.store() as store, self.station() as st:
            reg = self._reg(store, konami_id, version)
            decisions = store.decisions(reg.id)
            read = decklist_from_json(reg.decklist_json)
            deck = apply_decisions(read, decisions, self.db)
            verdict = self._verdict(store, reg)
            versions = [r.version for r in store.registrations() if r.konami_id == reg.konami_id]
            entry = st.roster_entry(reg.konami_id)
            confirmed = any(a == "checkin-confirmed" and d.get("player") == reg.konami_id
                            and d.get("version") == reg.version
                            for _, _, a, d in store.audit_log())
        latest = {(d.section, d.line): d for d in decisions if d.line is not None}
        columns: dict[str, list[LineView]] = {}
        flagged: list[LineView] = []
        for s in SECTIONS:
            for i, (e_read, e_now) in enumerate(zip(read.sections[s], deck.sections[s]), 1):
                lv = self._line_view(s, i, e_read, e_now, latest.get((s, i)))
                key = _COLUMN_KO.get(e_read.column or "", _SECTION_KO[s])
                columns.setdefault(key, []).append(lv)
                if e_read.needs_review:
                    flagged.append(lv)
        # Indexed among sheet-level items only, as `_decision` reads them back.
        sheet_flags = [self._flag_view(n, r.section, r.reason, r.detail, r.position) for n, r in
                       enumerate(r for r in deck.review if r.line is None and r.card_id is None)]
        data = reg.decklist_json
        return RegistrationView(
            konami_id=reg.konami_id, name=(entry.name if entry else None) or reg.player_name,
            table_no=entry.table_no if entry else None, version=reg.version, versions=versions,
            file_name=reg.file_name, reader=reg.reader, created_at=reg.created_at,
            judge=reg.judge, verdict=verdict, columns=list(columns.items()), flagged=flagged,
            sheet_flags=sheet_flags,
            infractions=[i for i in reg.infractions if i.get("penalty") != "NONE"],
            totals=deck.totals(), printed_totals=data.get("printed_totals") or {},
            sheet_id=(data.get("player") or {}).get("konami_id"),
            sheet_name=(data.get("player") or {}).get("name"), warnings=[],
            decisions=self._decision_views(reg, decisions), checkin_confirmed=confirmed)

    def _line_view(self, section: str, line: int, read: Entry, now: Entry,
                   decision: ReviewDecision | None) -> LineView:
        place = (f"{_COLUMN_KO.get(read.column, read.column)} {read.row}" if read.column and read.row
                 else f"{_SECTION_KO[section]} {line}")
        cands = list(read.candidates[:5])
        if read.needs_review and not cands:
            text = read.name if read.card_id is None else read.read
            cands = [(c.card.card_id, c.card.name, c.score) for c in self.db.search(text, 5)]
        from scanner.report.review_reasons import REASON_KO

        decided = None
        if decision is not None:
            decided = {KEEP: "읽은 그대로 확정", SKIP: "보류",
                       CHOOSE: f"{now.name} ×{now.count}"}.get(decision.action, decision.action)
        return LineView(section=section, line=line, place=place, card_id=now.card_id,
                        name=now.name, count=now.count, read=read.read,
                        needs_review=now.needs_review,
                        reasons=[REASON_KO.get(x, x) for x in read.reasons], candidates=cands,
                        crop_url=self._crop_url(read.crop), decided=decided)

    def _flag_view(self, index: int, section: str | None, reason: str, detail: str,
                   place: str | None = None) -> SheetFlagView:
        from scanner.report.review_reasons import REASON_KO

        m = _CROP_IN_DETAIL.search(detail)
        crop = self._crop_url(m.group(1)) if m else None
        detail = _CROP_IN_DETAIL.sub("", detail)
        restore = None
        if reason == "struck-through":
            found = _STRUCK_CARD.search(detail)
            card = self.db.get(int(found.group(1))) if found else None
            if card is not None:  # the name as the database spells it, not as the detail runs on
                restore = (card.card_id, card.name, int(found.group(2)))
        return SheetFlagView(index=index, section=section, reason=reason,
                             reason_ko=REASON_KO.get(reason, reason), detail=detail,
                             crop_url=crop, restore=restore, place=place)

    def _decision_views(self, reg: Registration, decisions: list[ReviewDecision]
                        ) -> list[DecisionView]:
        sections = (reg.decklist_json.get("sections") or {})
        out = []
        for d in decisions:
            place, before = "시트", d.read
            if d.section in SECTIONS and d.line is not None:
                items = sections.get(d.section) or []
                if 1 <= d.line <= len(items):
                    e = items[d.line - 1]
                    place = (f"{_COLUMN_KO.get(e.get('column'), _SECTION_KO[d.section])} "
                             f"{e.get('row') or d.line}")
                    before = f"{e.get('name')} ×{e.get('count')} (읽음: {e.get('read')})"
            if d.action == CHOOSE:
                card = self.db.get(d.card_id) if d.card_id is not None else None
                after = f"{card.name if card else d.card_id} ×{d.count}"
                if d.line is None:
                    after = f"줄 되살림: {after}"
            else:
                after = {KEEP: "확정", SKIP: "보류"}.get(d.action, d.action)
            if isinstance(d.before, dict) and d.before.get("name"):  # as stored at the time
                before = f"{d.before['name']} ×{d.before.get('count')} (읽음: {d.read})"
            out.append(DecisionView(reg.konami_id, reg.player_name, reg.version, place, before,
                                    after, d.judge, d.created_at))
        return out

    def record_review(self, konami_id: str, version: int, answers: list[dict],
                      judge: str | None) -> int:
        """Store a judge's answers: [{section, line, action, card_id?, count?}] for lines, or
        [{flag: index, action}] for sheet-level items. Nothing stored if any answer is bad."""
        with self.store() as store:
            reg = self._reg(store, konami_id, version)
            deck = apply_decisions(decklist_from_json(reg.decklist_json),
                                   store.decisions(reg.id), self.db)
            decisions: list[ReviewDecision] = []
            for a in answers:
                decisions.append(self._decision(reg, deck, a, judge))
            return store.add_decisions(decisions, judge)

    def _decision(self, reg: Registration, deck: Decklist, a: dict, judge: str | None
                  ) -> ReviewDecision:
        action = a.get("action")
        if a.get("flag") is not None:
            if action not in (KEEP, SKIP, RESTORE):
                raise StationError(f"알 수 없는 결정: {str(action)[:20]!r}")
            flags = [r for r in deck.review if r.line is None and r.card_id is None]
            try:
                flag = flags[int(a["flag"])] if int(a["flag"]) >= 0 else None
            except (ValueError, IndexError):
                flag = None
            if flag is None:
                raise StationError("그런 시트 항목이 없습니다")
            card_id = count = None
            if action == RESTORE:  # the struck row back, as the sheet printed it
                restore = self._flag_view(0, flag.section, flag.reason, flag.detail).restore
                if restore is None:
                    raise StationError("이 항목은 줄을 되살릴 수 없습니다 (카드를 읽지 못한 줄)")
                card_id, _, count = restore
                action = CHOOSE
            return self._flow_decision(deck, reg, flag.section, None, action, card_id, count,
                                       judge, flag.reason, flag.detail)
        if action not in (KEEP, CHOOSE, SKIP):
            raise StationError(f"알 수 없는 결정: {str(action)[:20]!r}")
        section = a.get("section")
        try:
            line = int(a.get("line"))
        except (TypeError, ValueError):
            raise StationError("줄 번호가 없습니다") from None
        if section not in SECTIONS or not 1 <= line <= len(deck.sections[section]):
            raise StationError("그런 줄이 없습니다")
        e = deck.sections[section][line - 1]
        card_id = count = None
        if action == CHOOSE:
            try:
                card_id = int(a.get("card_id") if a.get("card_id") not in (None, "") else e.card_id)
                count = int(a.get("count") if a.get("count") not in (None, "") else e.count)
            except (TypeError, ValueError):
                raise StationError("카드와 매수를 정하세요") from None
            card = self.db.get(card_id)
            if card is None:
                raise StationError("카드 데이터베이스에 없는 카드입니다")
            card_id = card.card_id
            if not 1 <= count <= 3:
                raise StationError("매수는 1~3장입니다")
        elif action == KEEP and (e.card_id is None or not 1 <= e.count <= 3):
            raise StationError("카드나 매수가 정해지지 않은 줄은 그대로 확정할 수 없습니다")
        return self._flow_decision(deck, reg, section, line, action, card_id, count, judge)

    def _flow_decision(self, deck: Decklist, reg: Registration, section: str | None,
                       line: int | None, action: str, card_id: int | None, count: int | None,
                       judge: str | None, reason: str | None = None,
                       detail: str | None = None) -> ReviewDecision:
        """The event layer's decision (it keeps the line before → after)."""
        try:
            return flows.decision_for(deck, reg.id, section, line, action, card_id, count,
                                      judge=judge, db=self.db, reason=reason, detail=detail)
        except EventError as exc:
            raise StationError(str(exc)) from None

    def card_search(self, text: str, limit: int = 8) -> list[dict]:
        text = (text or "").strip()[:60]
        if not text:
            return []
        if text.isdigit():
            card = self.db.get(int(text))
            return [{"card_id": card.card_id, "name": card.name, "score": 1.0}] if card else []
        return [{"card_id": c.card.card_id, "name": c.card.name, "score": round(c.score, 3)}
                for c in self.db.search(text, limit)]

    # ------------------------------------------------------------------ deck checks

    def checklist(self, konami_id: str) -> tuple[RegistrationView, list[ChecklistRow]]:
        view = self.registration(konami_id)
        with self.store() as store:
            reg = self._reg(store, konami_id, None)
            deck = apply_decisions(decklist_from_json(reg.decklist_json),
                                   store.decisions(reg.id), self.db)
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
            raise StationError("라운드는 0~99입니다")
        with self.store() as store:
            reg = self._reg(store, konami_id, None)
            registered = apply_decisions(decklist_from_json(reg.decklist_json),
                                         store.decisions(reg.id), self.db)
        seen = Decklist(reader="json", player_name=reg.player_name, konami_id=reg.konami_id)
        for s in SECTIONS:
            for i, e in enumerate(registered.sections[s], 1):
                n = observed.get((s, i), e.count)
                if not 0 <= n <= 60:
                    raise StationError("매수는 0~60입니다")
                if e.card_id is not None and n:
                    seen.sections[s].append(Entry(e.card_id, e.name, n, 1.0, False,
                                                  f"{e.name} {n}"))
        for s, cid, n in extra_cards:
            card = self.db.get(cid)
            if s not in SECTIONS or card is None or not 1 <= n <= 60:
                raise StationError("추가 카드가 올바르지 않습니다")
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
                raise StationError(str(exc)) from None
        return (res.compare_json, res.recorded, res.check.id if res.check else None,
                res.not_recorded)

    @staticmethod
    def _voids(store: EventStore) -> dict[int, list[dict]]:
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
            names = {r.konami_id: r.player_name for r in store.registrations(latest_only=True)}
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
            raise StationError("무효/정정 사유를 입력하세요")
        if new_penalty and new_penalty not in PENALTY_KO:
            raise StationError("알 수 없는 벌칙입니다")
        with self.store() as store:
            if not any(i.id == infraction_id for i in store.infractions()):
                raise StationError("그런 위반 기록이 없습니다", 404)
            try:
                flows.void_infraction(store, infraction_id, reason=reason[:300],
                                      judge=judge or "?", new_penalty=new_penalty or None)
            except EventError as exc:
                raise StationError(str(exc)) from None
        return next(i for i in self.infractions() if i.id == infraction_id)

    # ------------------------------------------------------------------ logs and exports

    def decision_log(self) -> list[DecisionView]:
        with self.store() as store:
            out = []
            for reg in store.registrations():
                out += self._decision_views(reg, store.decisions(reg.id))
        out.sort(key=lambda d: d.at, reverse=True)
        return out

    def deck_checks(self) -> list[dict]:
        with self.store() as store:
            names = {r.konami_id: r.player_name for r in store.registrations(latest_only=True)}
            return [{"id": c.id, "player": c.konami_id, "name": names.get(c.konami_id),
                     "round": c.round, "mode": c.mode, "match": c.match, "judge": c.judge,
                     "time": c.created_at} for c in store.deck_checks()]

    def run_audit(self, out_dir: Path) -> dict:
        from scanner.event.audit import run_audit
        from scanner.event.audit_report import write_report

        out_dir.mkdir(parents=True, exist_ok=True)
        with self.store() as store:
            result = run_audit(store, self.db, self.limits, workers=1)
            write_report(result, out_dir)
            store.log("audit", {"registrations": len(result.current), "out": str(out_dir)})
        return result.to_json()

    def export_lists(self, out_dir: Path) -> None:
        from scanner.event.export import export_event

        with self.store() as store:
            export_event(store, self.db, out_dir, {"csv"})

    def event_label(self) -> str:
        return f"{self.event.name} ({self.event.date.isoformat()})"


def _not_recorded_ko(why: str | None) -> str | None:
    if not why:
        return None
    if "registered list" in why:
        return ("등록된 리스트에 아직 확인 필요한 줄이 있어 기록하지 않았습니다: "
                "선수 페이지에서 확인을 마친 뒤 다시 기록하세요")
    return why


__all__ = ["DecksheetError", "StationError", "StationService"]
