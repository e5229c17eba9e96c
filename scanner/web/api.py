"""The JSON API (`/api/...`): the contract's station part plus the project's own endpoints.

Handlers parse and validate the request, call one `StationService` method, and answer JSON.
Every refusal is a 4xx with `{"error": "one line"}`.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from scanner.web import validate
from scanner.web.auth import BodyTooLarge, csrf_ok, judge_name
from scanner.web.roster_csv import RosterRefused, clean_player_name
from scanner.web.service import StationError, StationService
from scanner.web.texts import ko
from scanner.web.timeouts import BodyTimedOut
from scanner.web.uploads import UploadRefused, check_upload

JSON_MAX_BYTES = 256 * 1024
"""No JSON body of the station is near this; a larger one is refused before parsing."""


def error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _service(request: Request) -> StationService:
    return request.app.state.service


@contextmanager
def _reading(limit: int, too_large: str, malformed: str | None = None) -> Iterator[None]:
    """A body read that fails on the client's side (too large, cut, too slow, or malformed
    where `malformed` names its message) answers with that message's coded refusal."""
    try:
        yield
    except BodyTooLarge:
        raise StationError(ko(too_large, mb=limit // 1024 // 1024), 413) from None
    except ClientDisconnect:
        raise StationError(ko("upload-cut"), 400) from None
    except BodyTimedOut:
        raise StationError(ko("request-timeout"), 408) from None
    except Exception:  # noqa: BLE001 - a malformed multipart body is the client's fault
        if malformed is None:
            raise
        raise StationError(ko(malformed), 400) from None


async def read_body(request: Request, limit: int) -> bytes:
    with _reading(limit, "request-too-large"):
        return await request.body()


async def read_form(request: Request, limit: int):
    with _reading(limit, "file-too-large", malformed="form-unreadable"):
        return await request.form(max_files=2, max_fields=200)


async def read_json(request: Request, spec: validate.Obj) -> dict:
    """The body checked against the endpoint's schema (`validate`); any misfit is a 400."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > JSON_MAX_BYTES:  # refused unread
        raise StationError(ko("json-too-large", kb=JSON_MAX_BYTES // 1024), 413)
    body = await read_body(request, _service(request).config.max_upload_bytes)
    if len(body) > JSON_MAX_BYTES:
        raise StationError(ko("json-too-large", kb=JSON_MAX_BYTES // 1024), 413)
    try:
        return validate.parse_body(body, spec)
    except validate.InvalidInput as exc:
        raise StationError(str(exc)) from None


def require_judge(request: Request) -> str:
    """Every recorded action names its judge: the device's name, or `X-Judge` on the API."""
    judge = judge_name(request)
    if not judge:
        raise StationError(ko("judge-missing"))
    return judge


def require_csrf(request: Request, token: str | None = None) -> None:
    if not csrf_ok(request, token, _service(request).config.key):
        raise StationError(ko("csrf"), 403)


UPLOAD_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")
"""An upload's idempotency key (`Idempotency-Key` header or `upload_key` field): sent again with
the same key, an upload is the job it already made."""


async def upload_registration(request: Request, form: Any) -> dict:
    """Shared by the API and the check-in page: store the original, queue the job."""
    service = _service(request)
    judge = require_judge(request)
    file = form.get("file")
    if not isinstance(file, UploadFile):
        raise StationError(ko("no-file-field"))
    data = await file.read(service.config.max_upload_bytes + 1)
    try:
        upload = check_upload(data, file.filename, service.config.max_upload_bytes)
    except UploadRefused as exc:
        raise StationError(str(exc), exc.status) from None
    name = form_text(form, "name")
    if name and name.strip():  # cleaned here: one that NFKC grows past the limit is refused now,
        try:                   # not when its read is registered
            name = clean_player_name(name)
        except RosterRefused as exc:
            raise StationError(str(exc), exc.status) from None
    ask = form_text(form, "ask_player")
    if ask not in (None, "", "0", "1"):
        raise StationError(ko("ask-player-flag"))
    key = request.headers.get("idempotency-key") or form_text(form, "upload_key") or None
    if key is not None and not UPLOAD_KEY.fullmatch(key):
        raise StationError(ko("upload-key"))
    job = await run_in_threadpool(service.submit, upload, form_text(form, "player"), name, judge,
                                  ask == "1", key)
    request.app.state.runner.notify()
    return {"job": job.id}


def path_int(text: str) -> int | None:
    """A number in a URL (an infraction, a version): 1..2^63-1 as SQLite stores it, else None."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        return None
    n = int(text)
    return n if 1 <= n <= validate.INT64_MAX else None


def form_text(form: Any, name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) else None


# ---------------------------------------------------------------------- endpoints


async def post_roster(request: Request) -> Response:
    require_csrf(request)
    judge = require_judge(request)  # a roster change is a recorded action too
    body = await read_body(request, _service(request).config.max_upload_bytes)
    imported, updated, columns = await run_in_threadpool(_service(request).import_roster, body,
                                                         judge)
    return JSONResponse({"imported": imported, "updated": updated, "columns": columns})


async def post_registration(request: Request) -> Response:
    form = await read_form(request, _service(request).config.max_upload_bytes)
    require_csrf(request, form_text(form, "csrf"))
    return JSONResponse(await upload_registration(request, form), status_code=202)


async def get_job(request: Request) -> Response:
    """A reading job or an audit job (`POST /api/audits`), by its ID."""
    service = _service(request)
    job = await run_in_threadpool(service.job, request.path_params["job_id"])
    if job is None:
        job = await run_in_threadpool(service.audit_job, request.path_params["job_id"])
    if job is None:
        return error(ko("no-such-job"), 404)
    return JSONResponse(job.to_json())


async def post_audit(request: Request) -> Response:
    """Queue an audit: 202 `{"job": ID}`; the audit runner writes its files off the request."""
    require_csrf(request)
    data = await read_json(request, validate.AUDIT)
    judge = require_judge(request)
    job = await run_in_threadpool(_service(request).start_audit, data["formats"], judge)
    request.app.state.audits.notify()
    return JSONResponse({"job": job.id}, status_code=202)


async def get_audit_file(request: Request) -> Response:
    """A file a finished audit wrote (only those, by the name its job lists)."""
    path, media = await run_in_threadpool(_service(request).audit_file,
                                          request.path_params["job_id"], request.path_params["name"])
    disposition = "inline" if media.startswith("text/html") else "attachment"
    return FileResponse(path, media_type=media, headers={
        "Content-Disposition": f'{disposition}; filename="{path.name}"',
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})


async def post_decide(request: Request) -> Response:
    """Settle a job held by a guard: `{"choice": "store" | "discard"}` (CONTRACT.md v3)."""
    require_csrf(request)
    judge = require_judge(request)
    data = await read_json(request, validate.DECIDE)
    job = await run_in_threadpool(_service(request).decide, request.path_params["job_id"],
                                  data["choice"], judge, data["player"], data["confirm"],
                                  data["add"])
    return JSONResponse(job.to_json())


async def get_players(request: Request) -> Response:
    service = _service(request)
    q = request.query_params.get("q")
    rows = await run_in_threadpool(service.search_players if q else service.players,
                                   *([q] if q else []))
    return JSONResponse([r.to_api() for r in rows])


async def get_player(request: Request) -> Response:
    service = _service(request)
    view = await run_in_threadpool(service.registration, request.path_params["kid"])
    return JSONResponse({
        "player": view.konami_id, "name": view.name, "version": view.version,
        "versions": view.versions, "withdrawn_versions": view.withdrawn_versions,
        "status": view.verdict.status, "verdict": view.verdict.text,
        "needs_review": view.verdict.needs_review, "infractions": view.infractions,
        "totals": dict(view.totals),
        # Lines still to answer in the page's order (doubtful first), then those answered.
        "flagged": [{"section": lv.section, "line": lv.line, "place": lv.place, "read": lv.read,
                     "card_id": lv.card_id, "name": lv.name, "count": lv.count,
                     "needs_review": lv.needs_review, "crop": lv.crop_url,
                     "doubt": round(lv.doubt, 3), "doubtful": lv.doubtful,
                     "removed": lv.removed,
                     "candidates": [{"card_id": c, "name": n, "score": round(s, 3)}
                                    for c, n, s in lv.candidates]}
                    for lv in view.flagged + view.decided_lines],
        "sheet_flags": [{"flag": f.index, "section": f.section, "reason": f.reason, "detail": f.detail,
                         "crop": f.crop_url, "kind": f.kind, "keep_closes": f.keepable,
                         "explained": f.explained or None,
                         "entered": [{"card_id": c, "name": n, "count": k}
                                     for c, n, k in f.entered],
                         "restore": ({"card_id": f.restore[0], "name": f.restore[1],
                                      "count": f.restore[2]} if f.restore else None)}
                        for f in sorted(view.sheet_flags + view.retake, key=lambda f: f.index)]})


async def post_review(request: Request) -> Response:
    require_csrf(request)
    data = await read_json(request, validate.REVIEW)
    judge = require_judge(request)
    version = data["version"]
    service = _service(request)
    stored = await run_in_threadpool(service.record_review, request.path_params["kid"], version,
                                     data["decisions"], judge)
    view = await run_in_threadpool(service.registration, request.path_params["kid"], version)
    return JSONResponse({"stored": stored, "status": view.verdict.status,
                         "needs_review": view.verdict.needs_review})


async def get_cards(request: Request) -> Response:
    found = _service(request).card_search(request.query_params.get("q", ""))
    return JSONResponse(found)


async def post_deckcheck(request: Request) -> Response:
    require_csrf(request)
    data = await read_json(request, validate.DECKCHECK)
    judge = require_judge(request)
    counts = {(c["section"], c["line"]): c["count"] for c in data["counts"]}
    extra = [(c["section"], c["card_id"], c["count"]) for c in data["extra"]]
    by_card = {(c["section"], c["card_id"]): c["count"] for c in data["cards"]}
    preview = await run_in_threadpool(
        _service(request).deck_check, data["player"], data["round"], data["between_games"],
        counts, extra, data["confirm"], judge, by_card, data["preview"])
    return JSONResponse({"player": preview.konami_id, "round": preview.round,
                         "mode": "between-games" if preview.between_games else "start-of-match",
                         "match": preview.match, "verdict": preview.verdict,
                         "differences": preview.differences, "penalty": preview.penalty,
                         "infractions": preview.infractions, "recorded": preview.recorded,
                         "preview": preview.token,
                         "not_recorded": preview.not_recorded,
                         "deck_check_id": preview.deck_check_id,
                         "registered_version": preview.registered_version})


async def get_infractions(request: Request) -> Response:
    rows = await run_in_threadpool(_service(request).infractions)
    return JSONResponse([{"id": i.id, "player": i.konami_id, "code": i.code,
                          "penalty": i.penalty, "penalty_now": i.penalty_now,
                          "voided": i.voided, "status": i.status, "round": i.round,
                          "judge": i.judge, "time": i.at, "voids": i.voids,
                          "deck_check_id": i.deck_check_id} for i in rows])


async def _judged_act(request: Request, param: str, not_found: str,
                      spec: validate.Obj) -> tuple[int, dict, str] | Response:
    """A judge's act on one record (a void, a withdrawal): the CSRF token checked, the record's
    number from the path (else a 404 answer), the JSON body validated, the judge named."""
    require_csrf(request)
    number = path_int(request.path_params[param])
    if number is None:
        return error(ko(not_found), 404)
    data = await read_json(request, spec)
    return number, data, require_judge(request)


async def post_void(request: Request) -> Response:
    act = await _judged_act(request, "inf_id", "bad-infraction-id", validate.VOID)
    if isinstance(act, Response):
        return act
    inf_id, data, judge = act
    view = await run_in_threadpool(_service(request).void_infraction, inf_id, data["reason"],
                                   judge, data["new_penalty"])
    return JSONResponse({"id": view.id, "voided": view.voided, "status": view.status,
                         "penalty_now": view.penalty_now})


async def post_deckcheck_void(request: Request) -> Response:
    """Void a recorded deck check: `{"reason": "…"}` in the judge's name (its infraction is
    voided with it); the check stays in the record, shown as 무효."""
    act = await _judged_act(request, "check_id", "no-such-deck-check", validate.WITHDRAW_OR_VOID)
    if isinstance(act, Response):
        return act
    check_id, data, judge = act
    view = await run_in_threadpool(_service(request).void_deck_check, check_id, data["reason"],
                                   judge)
    return JSONResponse({"id": view.id, "voided": view.void,
                         "infractions": view.infraction_ids})


async def post_withdraw(request: Request) -> Response:
    """Withdraw a registration version: `{"reason": "…"}` (≤ 200 characters), in the judge's
    name; the version stays in the record, shown as 철회됨."""
    act = await _judged_act(request, "version", "version-bad", validate.WITHDRAW)
    if isinstance(act, Response):
        return act
    version, data, judge = act
    view = await run_in_threadpool(_service(request).withdraw, request.path_params["kid"],
                                   version, data["reason"], judge)
    return JSONResponse(view.to_api())


async def get_withdrawals(request: Request) -> Response:
    rows = await run_in_threadpool(_service(request).withdrawals)
    return JSONResponse([dict(w.to_api(), name=w.name, sheet_id=w.sheet_id) for w in rows])


async def get_decisions(request: Request) -> Response:
    rows = await run_in_threadpool(_service(request).decision_log)
    return JSONResponse([{"player": d.konami_id, "version": d.version, "place": d.place,
                          "before": d.before, "after": d.after, "judge": d.judge, "time": d.at}
                         for d in rows])


ROUTES = [
    Route("/api/roster", post_roster, methods=["POST"]),
    Route("/api/registrations", post_registration, methods=["POST"]),
    Route("/api/jobs/{job_id}", get_job),
    Route("/api/jobs/{job_id}/decide", post_decide, methods=["POST"]),
    Route("/api/players", get_players),
    Route("/api/players/{kid}", get_player),
    Route("/api/players/{kid}/review", post_review, methods=["POST"]),
    Route("/api/players/{kid}/versions/{version}/withdraw", post_withdraw, methods=["POST"]),
    Route("/api/cards", get_cards),
    Route("/api/deckchecks", post_deckcheck, methods=["POST"]),
    Route("/api/infractions", get_infractions),
    Route("/api/infractions/{inf_id}/void", post_void, methods=["POST"]),
    Route("/api/deckchecks/{check_id}/void", post_deckcheck_void, methods=["POST"]),
    Route("/api/withdrawals", get_withdrawals),
    Route("/api/decisions", get_decisions),
    Route("/api/audits", post_audit, methods=["POST"]),
    Route("/api/audits/{job_id}/files/{name}", get_audit_file),
]
