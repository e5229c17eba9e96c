"""The audit page: start an audit (a queued job), watch its progress, take its files.

The page works without JavaScript (a form posts, the job's page shows where it is); with it,
`station.js` polls `GET /api/jobs/ID` and shows 「감사 중… 12/30」 until the file links appear.
"""
from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from scanner.web.api import form_text, read_form, require_csrf, require_judge
from scanner.web.audit_queue import FILE_KO, FORMATS
from scanner.web.pages import render
from scanner.web.service import StationError, StationService
from scanner.web.texts import ko


def _service(request: Request) -> StationService:
    return request.app.state.service


async def audits_page(request: Request) -> Response:
    service = _service(request)
    if request.method == "POST":
        form = await read_form(request, 65536)
        require_csrf(request, form_text(form, "csrf"))
        fmt = form_text(form, "format") or ""
        if fmt not in FORMATS:
            raise StationError(ko("field-choice", field="format", choices=", ".join(FORMATS)))
        job = await run_in_threadpool(service.start_audit, [fmt], require_judge(request))
        request.app.state.audits.notify()
        return RedirectResponse(f"/audits/{job.id}", status_code=303)
    jobs = await run_in_threadpool(service.recent_audits)
    refused = ko("audits-sqlite-only") if service.config.uses_database else None
    return render(request, "audits.html", jobs=jobs, files_ko=FILE_KO, refused=refused)


async def audit_page(request: Request) -> Response:
    job = await run_in_threadpool(_service(request).audit_job, request.path_params["job_id"])
    if job is None:
        raise StationError(ko("no-such-job"), 404)
    return render(request, "audit.html", job=job, files_ko=FILE_KO)


ROUTES = [
    Route("/audits", audits_page, methods=["GET", "POST"]),
    Route("/audits/{job_id}", audit_page),
]
