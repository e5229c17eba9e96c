"""A registration as the judge reviews it, the judge's answers to its review items, and the log
of every decision."""
from __future__ import annotations

from scanner.errors import EventError
from scanner.event import flows
from scanner.event.flows import (CHOOSE, KEEP, REMOVE, SKIP, apply_decisions,
                                 decklist_from_json, entered_line_of, lines_missing,
                                 sheet_flag_key, sum_agrees)
from scanner.event.records import Registration, ReviewDecision
from scanner.model import SECTIONS, Decklist, Entry, ReviewFlag
from scanner.rules.codes import REVIEW_CODES
from scanner.web.glance import glance_order, line_doubt, repeated_cards
from scanner.web.service.checkin import CHECKIN_CONFIRMED
from scanner.web.service.core import StationCore, StationError
from scanner.web.views import (DecisionView, LineView, RegistrationView, SheetFlagView,
                               WithdrawalView)
from scanner.report.review_ko import (detail_ko, is_korean, missing_table, row_of, split_crop,
                                      struck_card, struck_old_count)
from scanner.web.texts import ko
from scanner.vocab import COLUMN_KO, REASON_KO, SECTION_SHORT_KO, Reason

RESTORE = "restore"
"""The station's word for putting a struck-through printed row back (stored as the event
layer's `choose` on that sheet-level item, with the card and count the sheet printed)."""
RETAKE_REASONS = frozenset({Reason.RETAKE, Reason.RETAKE_PHOTO})
"""Sheet-level reasons that ask for another photo (contract v4 `retake`; `retake-photo`: the
sheet too small in the frame)."""


class ReviewService(StationCore):
    def registration(self, konami_id: str, version: int | None = None) -> RegistrationView:
        with self.store() as store, self.station() as st:
            reg = self._reg(store, konami_id, version)
            decisions = store.decisions(reg.id)
            read = decklist_from_json(reg.decklist_json)
            # Line numbers stay those of the read (decisions are keyed by them): a removed line
            # keeps its place here, with no card and no copies.
            deck = apply_decisions(read, decisions, self.db, keep_removed=True)
            verdict = self._verdict(store, reg)
            _, check = flows.registration_check(self.context(store), reg)
            mine = store.registrations(konami_id=reg.konami_id)
            versions = [r.version for r in mine]
            withdrawn = {w.version: w for w in store.withdrawals() if w.konami_id == reg.konami_id}
            entry = st.roster_entry(reg.konami_id)
            confirmed = any(a == CHECKIN_CONFIRMED and d.get("player") == reg.konami_id
                            and d.get("version") == reg.version
                            for _, _, a, d in store.audit_log())
        latest = {(d.section, d.line): d for d in decisions if d.line is not None}
        stored = reg.decklist_json.get("sections") or {}
        repeats = repeated_cards(stored)
        columns: dict[str, list[LineView]] = {}
        flagged: list[LineView] = []
        decided: list[LineView] = []
        for s in SECTIONS:
            items = stored.get(s) or []
            for i, (e_read, e_now) in enumerate(zip(read.sections[s], deck.sections[s]), 1):
                raw = items[i - 1] if i <= len(items) and isinstance(items[i - 1], dict) else {}
                lv = self._line_view(s, i, e_read, e_now, latest.get((s, i)), raw,
                                     (s, e_read.card_id) in repeats)
                if not e_now.removed:
                    key = COLUMN_KO.get(e_read.column or "", SECTION_SHORT_KO[s])
                    columns.setdefault(key, []).append(lv)
                if e_read.needs_review:
                    (flagged if lv.needs_review else decided).append(lv)
            for e_now in deck.sections[s][len(read.sections[s]):]:  # restored / entered rows
                columns.setdefault(SECTION_SHORT_KO[s], []).append(LineView(
                    section=s, line=0, place=f"{SECTION_SHORT_KO[s]} +", card_id=e_now.card_id,
                    name=e_now.name, count=e_now.count, read=e_now.read, needs_review=False,
                    reasons=[], candidates=[], crop_url=None))
        # Indexed among sheet-level items only, as `_decision` reads them back.
        sheet_flags = [self._flag_view(n, r.section, r.reason, r.detail, r.position,
                                       deck=deck, decisions=decisions, flag=r)
                       for n, r in enumerate(r for r in deck.review
                                             if r.line is None and r.card_id is None)]
        notes = self._pen_explains_totals(read, deck, decisions)
        for f in sheet_flags:
            if f.kind == "total" and f.reason == Reason.TOTAL_MISMATCH and f.section in notes:
                f.explained = notes[f.section]
        data = reg.decklist_json
        # One truth on the page: the infractions of the list as the judges' decisions leave it
        # (never those stored when the sheet was read).
        infractions = [i.to_json() for i in check.infractions if i.code not in REVIEW_CODES] \
            if check is not None else []
        return RegistrationView(
            konami_id=reg.konami_id, name=(entry.name if entry else None) or reg.player_name,
            table_no=entry.table_no if entry else None, version=reg.version, versions=versions,
            file_name=reg.file_name, reader=reg.reader, created_at=reg.created_at,
            judge=reg.judge, verdict=verdict, columns=list(columns.items()),
            flagged=glance_order(flagged), sheet_flags=[f for f in sheet_flags
                                                        if f.kind not in ("new-photo", "missing")],
            infractions=infractions,
            totals=deck.totals(), printed_totals=data.get("printed_totals") or {},
            sheet_id=(data.get("player") or {}).get("konami_id"),
            sheet_name=(data.get("player") or {}).get("name"), warnings=[],
            decisions=self._decision_views(reg, decisions), checkin_confirmed=confirmed,
            withdrawn=(WithdrawalView(reg.konami_id, reg.player_name, reg.version,
                                      reg.withdrawal.reason, reg.withdrawal.judge,
                                      reg.withdrawal.created_at)
                       if reg.withdrawal else None),
            withdrawn_versions=sorted(withdrawn), decided_lines=decided,
            retake=[f for f in sheet_flags if f.kind in ("new-photo", "missing")])

    def _line_view(self, section: str, line: int, read: Entry, now: Entry,
                   decision: ReviewDecision | None, raw: dict | None = None,
                   repeated: bool = False) -> LineView:
        place = (f"{COLUMN_KO.get(read.column, read.column)} {read.row}" if read.column and read.row
                 else f"{SECTION_SHORT_KO[section]} {line}")
        cands = list(read.candidates[:5])
        if read.needs_review and not cands:
            text = read.name if read.card_id is None else read.read
            cands = [(c.card.card_id, c.card.name, c.score) for c in self.db.search(text, 5)]
        decided = None
        if decision is not None:
            decided = {KEEP: "읽은 그대로 확정", SKIP: "보류", REMOVE: "덱에 없음 (뺌)",
                       CHOOSE: f"{now.name} ×{now.count}"}.get(decision.action, decision.action)
        doubt, doubtful = line_doubt(raw if raw else read.to_json(), repeated)
        return LineView(section=section, line=line, place=place, card_id=now.card_id,
                        name=now.name, count=now.count, read=read.read,
                        needs_review=now.needs_review,
                        reasons=[REASON_KO.get(x, x) for x in read.reasons], candidates=cands,
                        crop_url=self._crop_url(read.crop), decided=decided, doubt=doubt,
                        doubtful=doubtful, removed=now.removed,
                        keepable=now.card_id is not None and 1 <= now.count <= 3)

    def _flag_view(self, index: int, section: str | None, reason: str, detail: str,
                   place: str | None = None, *, deck: Decklist | None = None,
                   decisions: list[ReviewDecision] | None = None,
                   flag: ReviewFlag | None = None) -> SheetFlagView:
        detail, crop_path = split_crop(detail)
        crop = self._crop_url(crop_path) if crop_path else None
        restore = None
        if reason == Reason.STRUCK_THROUGH:
            found = struck_card(detail)
            card = self.db.get(found[0]) if found else None
            if card is not None:  # the name as the database spells it, not as the detail runs on
                restore = (card.card_id, card.name, found[1])
        # the page's words: Korean, never the reader's English or a server path
        shown = detail_ko(detail) or "시트에서 직접 확인하세요"
        if restore is not None:
            shown = f"{restore[1]} ×{restore[2]} — 시트에서 줄이 그어져 덱에서 빠졌습니다"
        flag = flag or ReviewFlag(section=section, reason=reason, detail=detail)
        kind, keepable, entered, next_entry = "other", True, [], 1
        if reason in RETAKE_REASONS:
            kind = "new-photo"  # the reader's advice when it is in Korean, else the label
            shown = detail if is_korean(detail) else REASON_KO.get(reason, "다시 찍어 주십시오")
        elif lines_missing(flag):
            kind, shown = "missing", self._missing_ko(section, detail)
            keepable = deck is not None and sum_agrees(deck, section)
            by_number: dict[int, ReviewDecision] = {}
            for d in decisions or []:  # the latest answer per entered line
                n = entered_line_of(flag, d.read) if d.line is None and d.section == section \
                    else None
                if n is not None:
                    by_number[n] = d
            next_entry = max(by_number, default=0) + 1
            for n, d in sorted(by_number.items()):
                card = self.db.get(d.card_id) if d.card_id else None
                if card is not None and d.action == CHOOSE and d.count:
                    entered.append((card.card_id, card.name, d.count))
        elif reason == Reason.STRUCK_THROUGH:
            kind = "struck"
        elif reason in (Reason.TOTAL_MISMATCH, Reason.COLUMN_TOTAL_MISMATCH):
            kind = "total"
            printed = deck.printed_totals.get(section) if deck is not None else None
            if deck is not None and printed is not None and section in SECTIONS:
                shown = (f"시트에 적힌 {SECTION_SHORT_KO[section]} 합계 {printed}장 · "
                         f"지금 줄의 합 {deck.totals()[section]}장")
        return SheetFlagView(index=index, section=section, reason=reason,
                             reason_ko=REASON_KO.get(reason, "시트 확인 항목"), detail=detail,
                             crop_url=crop, restore=restore, place=place, detail_ko=shown,
                             kind=kind, keepable=keepable, entered=entered,
                             next_entry=next_entry)

    def _pen_explains_totals(self, read: Decklist, deck: Decklist,
                             decisions: list[ReviewDecision]) -> dict[str, str]:
        """Section → the glance list's note, for each section whose printed total differs from
        its lines only by the pen edits the reader saw, and exactly: printed total − struck
        rows + (new − old) of corrected counts + lines written in == the lines' sum now.

        A corrected count whose struck digit was not read (or read as no count 1–3) is solved
        for when it is the only one of its section; the note then says the old count it takes,
        which the judge sees struck on that line's crop. Anything else (a struck row's count
        not read, two unknown old counts, lines of the paper not read, a line taken out, no
        strike or corrected count, as many lines written as printed) leaves the total as an
        item of its own."""
        if any(lines_missing(r) for r in read.review):
            return {}
        restored = {d.read for d in decisions if d.line is None and d.action == CHOOSE}
        old_of = {(r.section, r.line): struck_old_count(r.detail) for r in read.review
                  if r.line is not None and r.reason == Reason.COUNT_CORRECTED
                  and struck_old_count(r.detail) is not None}
        sums = deck.totals()
        notes: dict[str, str] = {}
        for s in SECTIONS:
            printed = deck.printed_totals.get(s)
            if printed is None or printed == sums[s]:
                continue
            edits: list[str] = []
            delta, unknown, ok, pen = 0, [], True, 0  # pen: struck rows and corrected counts
            for r in read.review:
                if r.section != s or r.line is not None or r.card_id is not None \
                        or r.reason != Reason.STRUCK_THROUGH or sheet_flag_key(r) in restored:
                    continue
                found = struck_card(split_crop(r.detail)[0])
                card = self.db.get(found[0]) if found else None
                if card is None:
                    ok = False
                    break
                delta, pen = delta - found[1], pen + 1
                edits.append(ko("pen-struck", name=card.name, n=found[1]))
            for i, (e_read, e_now) in enumerate(zip(read.sections[s], deck.sections[s]), 1):
                if not ok:
                    break
                if Reason.COUNT_CORRECTED in e_read.reasons:
                    if e_now.removed or e_now.card_id is None:
                        ok = False
                        break
                    old, pen = old_of.get((s, i)), pen + 1
                    if old in (1, 2, 3) and old != e_now.count:
                        delta += e_now.count - old
                        edits.append(ko("pen-corrected", name=e_now.name, old=old, new=e_now.count))
                    else:
                        unknown.append(e_now)
                elif Reason.HANDWRITTEN in e_read.reasons and not e_now.removed:
                    delta += e_now.count  # a line written in: the printed total lacks it
                    edits.append(ko("pen-written-in", name=e_now.name, n=e_now.count))
                elif e_now.removed:
                    ok = False  # a printed line taken out: its count is the judge's, not the pen's
            written = sum(1 for e in read.sections[s] if Reason.HANDWRITTEN in e.reasons
                          and Reason.COUNT_CORRECTED not in e.reasons)
            # A printed sheet corrected by pen: a strike or a corrected count, and most lines
            # printed (on a form filled by hand every line is written: its total is no pen's).
            if not ok or not pen or 2 * written >= len(read.sections[s]) or len(unknown) > 1:
                continue
            if unknown:
                e = unknown[0]
                old = printed + delta + e.count - sums[s]
                if old not in (1, 2, 3) or old == e.count:
                    continue
                edits.append(ko("pen-corrected-solved", name=e.name, old=old, new=e.count))
            elif printed + delta != sums[s]:
                continue
            notes[s] = ko("pen-explains-total", section=SECTION_SHORT_KO[s], printed=printed,
                          lines=sums[s], edits=", ".join(edits))
        return notes

    @staticmethod
    def _missing_ko(section: str | None, detail: str) -> str:
        """A `missing` item in the judge's words (the reader's detail is English)."""
        table = missing_table(detail)
        if table and table[1] is None:
            return f"{COLUMN_KO[table[0]]} 표를 사진에서 찾지 못해 그 줄을 읽지 못했습니다"
        if table:
            return (f"{COLUMN_KO[table[0]]} 표가 {table[1]}번째 줄 뒤에서 잘려 "
                    f"그 뒤의 줄을 읽지 못했습니다")
        where = SECTION_SHORT_KO.get(section or "", "시트")
        return f"{where}: 읽지 못한 줄이 있습니다"

    def _decision_views(self, reg: Registration, decisions: list[ReviewDecision]
                        ) -> list[DecisionView]:
        sections = (reg.decklist_json.get("sections") or {})
        out = []
        for d in decisions:
            place, before = "시트", d.read
            if d.line is None:  # a sheet-level item: its Korean label, never its stored detail
                place, before = self._sheet_item_ko(d)
            elif d.section in SECTIONS and d.line is not None:
                items = sections.get(d.section) or []
                if 1 <= d.line <= len(items):
                    e = items[d.line - 1]
                    place = (f"{COLUMN_KO.get(e.get('column'), SECTION_SHORT_KO[d.section])} "
                             f"{e.get('row') or d.line}")
                    before = f"{e.get('name')} ×{e.get('count')} (읽음: {e.get('read')})"
            if d.action == CHOOSE:
                card = self.db.get(d.card_id) if d.card_id is not None else None
                after = f"{card.name if card else d.card_id} ×{d.count}"
                if d.line is None:
                    entered = isinstance(d.after, dict) and d.after.get("entry")
                    after = f"줄 입력: {after}" if entered else f"줄 되살림: {after}"
            else:
                after = {KEEP: "확정", SKIP: "보류", REMOVE: "덱에 없음 (뺌)"}.get(d.action,
                                                                             d.action)
            if isinstance(d.before, dict) and d.before.get("name"):  # as stored at the time
                before = f"{d.before['name']} ×{d.before.get('count')} (읽음: {d.read})"
            out.append(DecisionView(reg.konami_id, reg.player_name, reg.version, place, before,
                                    after, d.judge, d.created_at))
        return out

    def _sheet_item_ko(self, d: ReviewDecision) -> tuple[str, str]:
        """(place, what) of a decision on a sheet-level item in the judge's words: the reason's
        Korean label and, for a struck row, the card and count it printed. The stored detail
        (English, with the server's crop path) is not shown."""
        held = d.before if isinstance(d.before, dict) else {}
        key = (d.read or "").split(": ", 1)  # `sheet_flag_key`: "reason: detail"
        reason = str(held.get("flag") or key[0])
        detail = str(held.get("detail") or (key[1] if len(key) > 1 else ""))
        if reason == Reason.UNREADABLE_LINE:
            return SECTION_SHORT_KO.get(d.section or "", "시트"), self._missing_ko(d.section, detail)
        row = row_of(detail)
        place = (f"{COLUMN_KO[row[0]]} {row[1]}" if row
                 else SECTION_SHORT_KO.get(d.section or "", "시트"))
        what = REASON_KO.get(reason, "시트 확인 항목")
        struck = struck_card(detail) if reason == Reason.STRUCK_THROUGH else None
        card = self.db.get(struck[0]) if struck else None
        if card is not None:
            what = f"{what}: {card.name} ×{struck[1]}"
        return place, what

    def record_review(self, konami_id: str, version: int, answers: list[dict],
                      judge: str | None) -> int:
        """Store a judge's answers: [{section, line, action, card_id?, count?}] for lines, or
        [{flag: index, action}] for sheet-level items. Nothing stored if any answer is bad."""
        with self.store() as store:
            reg = self._live_reg(store, konami_id, version)
            deck = self._decided_deck(store, reg, keep_removed=True)  # line numbers as read
            decisions: list[ReviewDecision] = []
            for a in answers:
                if a.get("total") is None:
                    decisions.append(self._decision(reg, deck, a, judge))
            totals = [a for a in answers if a.get("total") is not None]
            if totals:
                decisions += self._total_decisions(store, reg, decisions, totals, judge)
            return store.add_decisions(decisions, judge)

    def _total_decisions(self, store, reg: Registration, decisions: list[ReviewDecision],
                         answers: list[dict], judge: str | None) -> list[ReviewDecision]:
        """A section's printed total answered on the page together with the lines (issue 35
        item 5): stored only if, with this submit's decisions applied, the lines' sum is off the
        printed total and is the sum the page showed the judge (else nothing: the item comes
        back, from the list as decided, as any total does)."""
        after = apply_decisions(decklist_from_json(reg.decklist_json),
                                store.decisions(reg.id) + decisions, self.db, keep_removed=True)
        out = []
        for a in answers:
            section = a["total"]
            flag = next((r for r in after.review if r.line is None and r.card_id is None
                         and r.section == section and r.reason == Reason.TOTAL_MISMATCH), None)
            if flag is None or a.get("sum") != after.totals()[section] \
                    or a.get("action") not in (KEEP, SKIP):
                continue
            out.append(self._flow_decision(after, reg, section, None, a["action"], None, None,
                                           judge, flag.reason, flag.detail))
        return out

    def _decision(self, reg: Registration, deck: Decklist, a: dict, judge: str | None
                  ) -> ReviewDecision:
        action = a.get("action")
        if a.get("flag") is not None:
            if action not in (KEEP, SKIP, RESTORE, CHOOSE):
                raise StationError(ko("unknown-action", action=repr(str(action)[:20])))
            flags = [r for r in deck.review if r.line is None and r.card_id is None]
            try:
                flag = flags[int(a["flag"])] if int(a["flag"]) >= 0 else None
            except (ValueError, IndexError):
                flag = None
            if flag is None:
                raise StationError(ko("no-such-sheet-item"))
            card_id = count = entry = None
            if action == RESTORE:  # the struck row back, as the sheet printed it
                restore = self._flag_view(0, flag.section, flag.reason, flag.detail).restore
                if restore is None:
                    raise StationError(ko("cannot-restore-line"))
                card_id, _, count = restore
                action = CHOOSE
            elif action == CHOOSE:  # a line of a table the reader did not read, entered
                try:
                    card_id, count = int(a.get("card_id")), int(a.get("count"))
                    entry = int(a.get("entry"))
                except (TypeError, ValueError):
                    raise StationError(ko("pick-card-and-count")) from None
            return self._flow_decision(deck, reg, flag.section, None, action, card_id, count,
                                       judge, flag.reason, flag.detail, entry)
        if action not in (KEEP, CHOOSE, SKIP, REMOVE):
            raise StationError(ko("unknown-action", action=repr(str(action)[:20])))
        section = a.get("section")
        try:
            line = int(a.get("line"))
        except (TypeError, ValueError):
            raise StationError(ko("no-line-number")) from None
        if section not in SECTIONS or not 1 <= line <= len(deck.sections[section]):
            raise StationError(ko("no-such-line"))
        e = deck.sections[section][line - 1]
        card_id = count = None
        if action == CHOOSE:
            try:
                card_id = int(a.get("card_id") if a.get("card_id") not in (None, "") else e.card_id)
                count = int(a.get("count") if a.get("count") not in (None, "") else e.count)
            except (TypeError, ValueError):
                raise StationError(ko("pick-card-and-count")) from None
            card = self.db.get(card_id)
            if card is None:
                raise StationError(ko("card-not-in-db"))
            card_id = card.card_id
            if not 1 <= count <= 3:
                raise StationError(ko("count-1-3"))
        elif action == KEEP and (e.card_id is None or not 1 <= e.count <= 3):
            raise StationError(ko("cannot-keep-undecided"))
        return self._flow_decision(deck, reg, section, line, action, card_id, count, judge)

    def _flow_decision(self, deck: Decklist, reg: Registration, section: str | None,
                       line: int | None, action: str, card_id: int | None, count: int | None,
                       judge: str | None, reason: str | None = None,
                       detail: str | None = None, entry: int | None = None) -> ReviewDecision:
        """The event layer's decision (it keeps the line before → after)."""
        try:
            return flows.decision_for(deck, reg.id, section, line, action, card_id, count,
                                      judge=judge, db=self.db, reason=reason, detail=detail,
                                      entry=entry)
        except EventError as exc:
            raise StationError.refusing(exc) from None

    def decision_log(self) -> list[DecisionView]:
        with self.store() as store:
            out = []
            for reg in store.registrations():
                out += self._decision_views(reg, store.decisions(reg.id))
        out.sort(key=lambda d: d.at, reverse=True)
        return out
