"""The station's pages (server-rendered Korean HTML). Forms post back here; the check-in page
and the card autocomplete use the JSON API from a little plain JavaScript."""
from __future__ import annotations

import re
from functools import partial
from typing import Callable

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Route

from scanner.errors import EventError
from scanner.vocab import COLUMN_KO, MAIN_COLUMNS, MAX_ROUND, SECTION_KO
from scanner.event.records import clean_name
from scanner.web import exports
from scanner.web.api import form_text, path_int, read_form, require_csrf, require_judge
from scanner.web.texts import ko
from scanner.web.glance import RETAKE_ADVICE
from scanner.web.auth import csrf_token, judge_name, same_origin, set_judge_cookie
from scanner.web.service import StationError, StationService
from scanner.web.unlisted import MAX_ROWS, read_rows, to_extra
from scanner.rules.codes import CODE_KO
from scanner.web.present import penalty_ko
from scanner.web.views import STATUS_KO


def _service(request: Request) -> StationService:
    return request.app.state.service


def render(request: Request, template: str, status_code: int = 200, **context) -> Response:
    service = _service(request)
    context.update(request=request, event=service.event_label(), judge=judge_name(request),
                   csrf=csrf_token(service.config.key), status_ko=STATUS_KO)
    return request.app.state.templates.TemplateResponse(request, template, context,
                                                        status_code=status_code)


def _need_judge(request: Request) -> Response | None:
    if judge_name(request) is None:
        return RedirectResponse(f"/judge?next={request.url.path}", status_code=303)
    return None


def _redirect(url: str) -> Response:
    return RedirectResponse(url, status_code=303)


async def dashboard(request: Request) -> Response:
    # No judge-name redirect here: the dashboard only reads (and the contract's GET / must
    # name every player right after sign-in); a banner asks for the name instead.
    service = _service(request)
    players = await run_in_threadpool(service.players)
    status = request.query_params.get("status", "")
    q = request.query_params.get("q", "").strip()
    counts = {s: sum(1 for p in players if p.status == s) for s in STATUS_KO}
    shown = [p for p in players if not status or p.status == status]
    if q:
        from scanner.web.hangul import PlayerQuery
        query = PlayerQuery(q)
        shown = [p for p in shown if query.matches(p.name or "", p.konami_id, p.table_no)]
    infractions = await run_in_threadpool(service.infractions)
    decisions = await run_in_threadpool(service.decision_log)
    withdrawals = await run_in_threadpool(service.withdrawals)
    return render(request, "dashboard.html", players=shown, total=len(players), counts=counts,
                  queue=getattr(request.app.state, "runner", None) and request.app.state.runner.state,
                  status=status, q=q, infractions=list(reversed(infractions)),
                  decisions=decisions[:50], decisions_total=len(decisions),
                  withdrawals=list(reversed(withdrawals)),
                  tz=service.config.timezone)


async def judge_page(request: Request) -> Response:
    nxt = request.query_params.get("next", "/")
    if request.method == "POST":
        form = await read_form(request, 65536)
        require_csrf(request, form_text(form, "csrf"))
        try:  # cleaned as it will be read back: invisible characters alone are no name
            name = (clean_name((form_text(form, "name") or "")[:400]) or "")[:40].strip()
        except EventError:
            name = ""
        nxt = form_text(form, "next") or "/"
        if not name:
            return render(request, "judge.html", 400, next=nxt, message=ko("judge-name-needed"))
        response = _redirect(same_origin(nxt) if nxt.startswith("/") else "/")
        set_judge_cookie(response, name)
        return response
    return render(request, "judge.html", next=nxt, message=None)


async def roster_page(request: Request) -> Response:
    if (r := _need_judge(request)):
        return r
    service = _service(request)
    message = None
    if request.method == "POST":
        form = await read_form(request, service.config.max_upload_bytes)
        require_csrf(request, form_text(form, "csrf"))
        judge = require_judge(request)
        if form_text(form, "action") == "add":
            e = await run_in_threadpool(service.add_player, form_text(form, "player") or "",
                                        form_text(form, "name") or "", form_text(form, "table"),
                                        judge)
            message = f"추가됨: {e.name}"
        else:
            f = form.get("file")
            raw = await f.read() if isinstance(f, UploadFile) else b""
            if not raw.strip():  # no file chosen: the pasted text
                raw = (form_text(form, "csv") or "").encode()
            imported, updated, _ = await run_in_threadpool(service.import_roster, raw, judge)
            message = f"명단: 새로 {imported}명, 고침 {updated}명"
    q = request.query_params.get("q", "")
    players = await run_in_threadpool(service.search_players, q, 200)
    return render(request, "roster.html", players=players, q=q, message=message)


async def checkin_page(request: Request) -> Response:
    if (r := _need_judge(request)):
        return r
    service = _service(request)
    picked = None
    if request.query_params.get("player"):
        picked = await run_in_threadpool(service.player, request.query_params["player"])
    withdrawn, owner = None, None
    if picked is not None and (n := path_int(request.query_params.get("withdrawn", ""))):
        withdrawn = next((w for w in await run_in_threadpool(service.withdrawals,
                                                             picked.konami_id)
                          if w.version == n), None)
        if withdrawn is not None and withdrawn.sheet_id:
            owner = await run_in_threadpool(service.player, withdrawn.sheet_id)
    held = await run_in_threadpool(service.sheets_waiting_for_player)
    watch = request.query_params.get("job", "")
    watch = watch if re.fullmatch(r"[0-9a-f]{16}", watch) else None
    return render(request, "checkin.html", picked=picked, held=held, withdrawn=withdrawn,
                  owner=owner, watch=watch, read_labels={**SECTION_KO, **{
                      c: COLUMN_KO[c] for c in MAIN_COLUMNS}})


async def player_page(request: Request) -> Response:
    if (r := _need_judge(request)):
        return r
    service = _service(request)
    kid = request.path_params["kid"]
    version = _version(request)
    row = await run_in_threadpool(service.player, kid)
    if row is None:
        raise StationError(ko("no-such-player"), 404)
    if row.version is None and version is None:  # a withdrawn version can still be looked at
        withdrawals = await run_in_threadpool(service.withdrawals, row.konami_id)
        rec = await run_in_threadpool(service.player_record, row.konami_id)
        return render(request, "player_none.html", row=row, withdrawals=withdrawals, rec=rec)
    view = await run_in_threadpool(service.registration, kid, version)
    rec = await run_in_threadpool(service.player_record, kid)
    ident = await run_in_threadpool(service.sheet_identity, kid, view.version)
    return render(request, "registration.html", v=view, row=row, tz=service.config.timezone,
                  message=_known_message(request.query_params.get("m")), rec=rec, ident=ident,
                  owner=(await run_in_threadpool(service.player, ident.sheet_id)
                         if ident.sheet_id and ident.kind == "other-id" else None),
                  retake_advice=RETAKE_ADVICE)


_MESSAGES = re.compile(r"confirmed|withdrawn|nothing|stored[0-9]{1,4}|voided|undone|checkvoided")
"""What the station's own redirects put in `?m=` after an action: anything else in the URL is
not shown (a link could otherwise make the page say what its sender wrote)."""


def _known_message(raw: str | None) -> str | None:
    return raw if raw and _MESSAGES.fullmatch(raw) else None


def _version(request: Request) -> int | None:
    """The version in the path (None: none given); 0 or past 64 bits is no version → 404 (0
    must not stand for "the latest", which a confirm would then apply to)."""
    raw = request.path_params.get("version")
    if raw is None:
        return None
    version = path_int(str(raw))
    if version is None:
        raise StationError(ko("version-bad"), 404)
    return version


_REVIEW_FIELD = re.compile(r"(act|fix)-(main|extra|side|flag)-([0-9]{1,4})")
_COUNT_FIELD = re.compile(r"count-(main|extra|side)-([0-9]{1,4})")
_ENTER_FIELD = re.compile(r"enter-([0-9]{1,3})-([0-9]{1,3})")
_TOTAL_FIELD = re.compile(r"total-(main|extra|side)")
_FORM_INT = re.compile(r"[0-9]{1,10}")


def _form_int(raw: str | None, lo: int, hi: int, message: str) -> int:
    """A number typed in a form: ASCII digits only (not `1_0`, `+3`, `٣` that `int()` takes),
    in lo..hi; else a 400 with `message`."""
    text = (raw or "").strip()
    if not _FORM_INT.fullmatch(text) or not lo <= int(text) <= hi:
        raise StationError(message)
    return int(text)


def _review_answers(form) -> list[dict]:
    """The review form → the service's answers. Per flagged line: `act-S-L` = keep (its tick:
    the line is as read), `fix-S-L` = card:ID | other (with `card-S-L`) | remove | skip (what
    the judge chose after opening it; it wins over the tick), `count-S-L` = the count tapped
    (alone: the card as read with this count). Per sheet-level item: `act-flag-I`; a line
    entered for a table not read: `enter-I-N` (card) with `enter-count-I-N`; a struck row in
    the glance list: `act-flag-I` = keep (its tick), `fix-flag-I` = restore or skip; a section's
    printed total asked on the page: `total-S` = keep | skip with `total-sum-S`, the lines' sum
    the page showed."""
    lines: dict[tuple[str, str], dict[str, str]] = {}
    flag_answers: dict[str, dict[str, str]] = {}
    answers = []
    for key in form:
        value = form_text(form, key) or ""
        if key.startswith(("act-", "fix-")):
            field = _REVIEW_FIELD.fullmatch(key)
            if field is None:
                raise StationError(ko("review-field-bad", field=key[:40]))
            kind, section, line = field.groups()
            if section == "flag":  # a sheet item; on a struck row of the glance list its
                if value:           # 「다름」 (`fix-flag-I`: restore) wins over its tick
                    flag_answers.setdefault(line, {})[kind] = value
                continue
            lines.setdefault((section, line), {})[kind] = value
        elif (count := _COUNT_FIELD.fullmatch(key)) and value.strip():
            lines.setdefault(count.groups(), {})["count"] = value
        elif (total := _TOTAL_FIELD.fullmatch(key)) and value.strip():
            # A printed total asked on the page (its lines as decided there): with the sum shown.
            section = total.group(1)
            if value not in ("keep", "skip"):
                raise StationError(ko("review-field-bad", field=key[:40]))
            answers.append({"total": section, "action": value,
                            "sum": _form_int(form_text(form, f"total-sum-{section}"), 0, 999,
                                             ko("review-field-bad", field=f"total-sum-{section}"))})
        elif (enter := _ENTER_FIELD.fullmatch(key)) and value.strip():
            flag, n = enter.groups()
            answers.append({"flag": flag, "action": "choose", "entry": int(n),
                            "card_id": _form_int(value, 1, 2 ** 31 - 1, ko("pick-other-card")),
                            "count": _form_int(form_text(form, f"enter-count-{flag}-{n}"), 1, 3,
                                               ko("count-1-3"))})
    for flag, got in flag_answers.items():
        answers.append({"flag": flag, "action": got.get("fix") or got["act"]})
    for (section, line), got in lines.items():
        value = got.get("fix") or (got.get("act") if got.get("act") != "keep" else "") or ""
        count = got.get("count")
        if value.startswith("card:") or value == "other":
            card = value[5:] if value.startswith("card:") else form_text(form, f"card-{section}-{line}")
            card_id = _form_int(card, 1, 2 ** 31 - 1, ko("pick-other-card"))
            answers.append({"section": section, "line": line, "action": "choose",
                            "card_id": card_id, "count": _form_int(count, 1, 3, ko("count-1-3"))
                            if (count or "").strip() else None})
        elif value:
            answers.append({"section": section, "line": line, "action": value})
        elif count:  # only the count tapped: the card as read, with this count
            answers.append({"section": section, "line": line, "action": "choose",
                            "card_id": None, "count": _form_int(count, 1, 3, ko("count-1-3"))})
        elif got.get("act") == "keep":
            answers.append({"section": section, "line": line, "action": "keep"})
    return answers


async def review_post(request: Request) -> Response:
    service = _service(request)
    kid, version = request.path_params["kid"], _version(request)
    form = await read_form(request, 1 << 20)
    require_csrf(request, form_text(form, "csrf"))
    judge = require_judge(request)
    if form_text(form, "confirm_checkin"):
        await run_in_threadpool(service.confirm_checkin, kid, version, judge,
                                form_text(form, "other_id") or None)
        return _redirect(f"/players/{kid}/v/{version}?m=confirmed")
    answers = _review_answers(form)
    if not answers:
        return _redirect(f"/players/{kid}/v/{version}?m=nothing")
    stored = await run_in_threadpool(service.record_review, kid, version, answers, judge)
    return _redirect(f"/players/{kid}/v/{version}?m=stored{stored}")


async def deckcheck_pick(request: Request) -> Response:
    if (r := _need_judge(request)):
        return r
    q = request.query_params.get("q", "")
    players = await run_in_threadpool(_service(request).search_players, q, 50) if q else []
    return render(request, "deckcheck_pick.html", q=q,
                  players=[p for p in players if p.version is not None])


async def deckcheck_page(request: Request) -> Response:
    if (r := _need_judge(request)):
        return r
    service = _service(request)
    kid = request.path_params["kid"]
    view, rows = await run_in_threadpool(service.checklist, kid)
    _, cards = await run_in_threadpool(service.checklist_by_card, kid)
    preview = None
    refused = None
    form_values: dict = {}
    if request.method == "POST":
        form = await read_form(request, 1 << 20)
        require_csrf(request, form_text(form, "csrf"))
        counts = {}
        for row in rows:
            raw = form_text(form, f"n-{row.section}-{row.index}")
            if raw not in (None, ""):
                counts[(row.section, row.index)] = _form_int(raw, 0, 60, ko("count-number"))
        by_card = {}  # the page's inputs: one per card and section it may be found in
        for card in cards:
            for section in card.sections:
                raw = form_text(form, f"c-{section}-{card.card_id}")
                if raw not in (None, ""):
                    by_card[(section, card.card_id)] = _form_int(
                        raw, 0, 60, ko("count-number"))
        unlisted = read_rows(form, form_text)
        extra = to_extra(unlisted)
        round_no = _form_int(form_text(form, "round"), 0, MAX_ROUND, ko("round-needed", max=MAX_ROUND))
        mode = form_text(form, "mode")
        if mode not in ("start-of-match", "between-games"):  # no default: the judge says which
            raise StationError(ko("mode-needed"))
        between = mode == "between-games"
        confirm = form_text(form, "do") == "confirm"
        token = form_text(form, "preview_token") or ""
        if confirm and not token:
            raise StationError(ko("compare-first"))
        judge = require_judge(request)
        try:
            preview = await run_in_threadpool(service.deck_check, kid, round_no, between, counts,
                                              extra, confirm, judge, by_card,
                                              token if confirm else None)
        except StationError as exc:
            if exc.status != 409:
                raise
            # Not the comparison previewed (a count or the 시점 changed since): nothing was
            # recorded; the comparison of what the form holds now is shown to record instead.
            refused = str(exc)
            preview = await run_in_threadpool(service.deck_check, kid, round_no, between, counts,
                                              extra, False, judge, by_card)
        if preview.recorded:  # a reload must not record it again: the recorded check, by GET
            return _redirect(f"/deckcheck/{view.konami_id}?recorded={preview.deck_check_id}")
        form_values = {"round": round_no, "mode": mode,
                       "counts": {f"{s}-{i}": n for (s, i), n in counts.items()},
                       "cards": {f"{s}-{c}": n for (s, c), n in by_card.items()},
                       "unlisted": unlisted}
    rec = await run_in_threadpool(service.player_record, view.konami_id)
    recorded = path_int(request.query_params.get("recorded", "") or "")
    return render(request, "deckcheck.html", v=view, rows=rows, cards=cards, preview=preview,
                  f=form_values, max_unlisted=MAX_ROWS, rec=rec, refused=refused,
                  recorded=next((c for c in rec.deck_checks if c.id == recorded), None))


async def _recorded_form(request: Request, param: str, not_found: str):
    """The form of a void, amendment or undo (its CSRF token checked), the number of the record
    it acts on (else 404) and the judge acting."""
    form = await read_form(request, 65536)
    require_csrf(request, form_text(form, "csrf"))
    number = path_int(request.path_params[param])
    if number is None:
        raise StationError(ko(not_found), 404)
    return form, number, require_judge(request)


def _back(form, default: str = "/#infractions") -> str:
    nxt = form_text(form, "next") or default
    return same_origin(nxt) if nxt.startswith("/") else default


def _reason(form) -> str:
    reason = (form_text(form, "reason") or "").strip()
    if not reason:
        raise StationError(ko("void-reason-needed"))
    return reason


async def _confirm_then_record(request: Request, form, title: str, lines: list[str],
                               action: str, fields: dict[str, str | None], back: str,
                               record: Callable[[], object], done: str) -> Response:
    """A void, amendment or undo is recorded only on a second, explicit tap: the first post
    shows what will be recorded (확정 / 취소) and posts `fields` back to `action`; the second
    runs `record` and goes `back` saying it is `done`."""
    if form_text(form, "confirmed") != "1":
        return render(request, "confirm_action.html", title=title, lines=lines, action=action,
                      fields={k: v for k, v in {**fields, "next": back}.items() if v is not None},
                      back=back)
    await run_in_threadpool(record)
    return _redirect(_with_message(back, done))


def _infraction_line(inf) -> str:
    return ko("confirm-infraction", player=f"{inf.name or ''} {inf.konami_id}",
              what=_code_ko(inf.code), penalty=_penalty_ko(inf.penalty_now))


async def void_post(request: Request) -> Response:
    service = _service(request)
    form, inf_id, judge = await _recorded_form(request, "inf_id", "bad-infraction-id")
    choice = form_text(form, "new_penalty")
    if choice is None or choice == "":  # no default: 무효 or a penalty, chosen
        raise StationError(ko("void-choice-needed"))
    reason = _reason(form)
    new_penalty = None if choice == "VOID" else choice
    inf = await run_in_threadpool(service.infraction, inf_id)
    return await _confirm_then_record(
        request, form, ko("confirm-void-title") if new_penalty is None else ko("confirm-amend-title"),
        [_infraction_line(inf),
         ko("confirm-void-to") if new_penalty is None
         else ko("confirm-amend-to", penalty=_penalty_ko(new_penalty)),
         ko("confirm-reason", reason=reason[:300])],
        f"/infractions/{inf_id}/void", {"reason": reason, "new_penalty": choice}, _back(form),
        partial(service.void_infraction, inf_id, reason, judge, new_penalty), "voided")


async def undo_post(request: Request) -> Response:
    """Undo the latest void/amendment of an infraction (confirmed like a void)."""
    service = _service(request)
    form, inf_id, judge = await _recorded_form(request, "inf_id", "bad-infraction-id")
    reason = _reason(form)
    inf = await run_in_threadpool(service.infraction, inf_id)
    return await _confirm_then_record(
        request, form, ko("confirm-undo-title"),
        [_infraction_line(inf), ko("confirm-undo-to", penalty=_penalty_ko(inf.undo_to)),
         ko("confirm-reason", reason=reason[:300])],
        f"/infractions/{inf_id}/undo", {"reason": reason}, _back(form),
        partial(service.undo_amendment, inf_id, reason, judge), "undone")


async def deckcheck_void_post(request: Request) -> Response:
    """Void a recorded deck check with a reason (confirmed like a void)."""
    service = _service(request)
    form, check_id, judge = await _recorded_form(request, "check_id", "no-such-deck-check")
    reason = _reason(form)
    return await _confirm_then_record(
        request, form, ko("confirm-check-void-title"),
        [ko("confirm-check-void", id=check_id), ko("confirm-reason", reason=reason[:300])],
        f"/deckchecks/{check_id}/void", {"reason": reason}, _back(form, "/"),
        partial(service.void_deck_check, check_id, reason, judge), "checkvoided")


def _with_message(url: str, m: str) -> str:
    path, _, frag = url.partition("#")
    if not path.startswith("/players/"):
        return url
    return f"{path}{'&' if '?' in path else '?'}m={m}" + (f"#{frag}" if frag else "")


def _code_ko(code: str) -> str:
    return CODE_KO.get(code, code)


def _penalty_ko(code: str | None) -> str:
    return penalty_ko(code)


async def recheckin_post(request: Request) -> Response:
    """The stored original of a withdrawn version, checked in for its owner: no re-upload."""
    service = _service(request)
    kid, version = request.path_params["kid"], _version(request)
    assert version is not None
    form = await read_form(request, 65536)
    require_csrf(request, form_text(form, "csrf"))
    job = await run_in_threadpool(service.recheck_in, kid, version,
                                  form_text(form, "owner") or "", require_judge(request),
                                  form_text(form, "add") == "1")
    request.app.state.runner.notify()
    return _redirect(f"/checkin?job={job.id}")


async def decisions_page(request: Request) -> Response:
    """The whole review-decision log (the dashboard shows the newest 50), newest first."""
    if (r := _need_judge(request)):
        return r
    service = _service(request)
    decisions = await run_in_threadpool(service.decision_log)
    per = 200
    pages = max(1, -(-len(decisions) // per))
    page = min(max(path_int(request.query_params.get("page", "1") or "1") or 1, 1), pages)
    return render(request, "decisions.html", decisions=decisions[(page - 1) * per:page * per],
                  total=len(decisions), page=page, pages=pages)


async def withdraw_post(request: Request) -> Response:
    """「이 버전 철회」 (a reason typed) or 「아니오, 다른 선수의 시트」 (`mismatch`: the desk's
    fixed reason, then back to this player's check-in page to upload their own sheet)."""
    service = _service(request)
    kid, version = request.path_params["kid"], _version(request)
    assert version is not None  # the route names one
    form = await read_form(request, 65536)
    require_csrf(request, form_text(form, "csrf"))
    judge = require_judge(request)
    if form_text(form, "mismatch"):
        view = await run_in_threadpool(service.withdraw_mismatch, kid, version, judge)
        return _redirect(f"/checkin?player={view.konami_id}&withdrawn={view.version}")
    view = await run_in_threadpool(service.withdraw, kid, version,
                                   (form_text(form, "reason") or "")[:400], judge)
    return _redirect(f"/players/{view.konami_id}/v/{view.version}?m=withdrawn")


async def crop(request: Request) -> Response:
    path = _service(request).crop_file(request.path_params["sha"], request.path_params["name"])
    if path is None:
        raise StationError(ko("no-such-crop"), 404)
    return FileResponse(path, media_type="image/png", headers={"Cache-Control": "private, max-age=86400"})


async def export(request: Request) -> Response:
    service = _service(request)
    what = request.path_params["what"]
    if what not in exports.EXPORTS:
        raise StationError(ko("no-such-export"), 404)
    data, media, filename = await run_in_threadpool(exports.make, service, what)
    disposition = "inline" if media.startswith("text/html") else "attachment"
    return Response(data, media_type=media,
                    headers={"Content-Disposition": f'{disposition}; filename="{filename}"',
                             "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})


ROUTES = [
    Route("/", dashboard),
    Route("/judge", judge_page, methods=["GET", "POST"]),
    Route("/roster", roster_page, methods=["GET", "POST"]),
    Route("/checkin", checkin_page),
    Route("/players/{kid}", player_page),
    Route("/players/{kid}/v/{version:int}", player_page),
    Route("/players/{kid}/v/{version:int}/review", review_post, methods=["POST"]),
    Route("/players/{kid}/v/{version:int}/withdraw", withdraw_post, methods=["POST"]),
    Route("/deckcheck", deckcheck_pick),
    Route("/deckcheck/{kid}", deckcheck_page, methods=["GET", "POST"]),
    Route("/infractions/{inf_id}/void", void_post, methods=["POST"]),
    Route("/infractions/{inf_id}/undo", undo_post, methods=["POST"]),
    Route("/deckchecks/{check_id}/void", deckcheck_void_post, methods=["POST"]),
    Route("/players/{kid}/v/{version:int}/recheckin", recheckin_post, methods=["POST"]),
    Route("/decisions", decisions_page),
    Route("/crops/{sha}/{name}", crop),
    Route("/exports/{what}", export),
]
