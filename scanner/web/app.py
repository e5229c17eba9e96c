"""Assemble the station: routes, templates, error pages, the job and audit runners' start and
stop."""
from __future__ import annotations

import contextlib
import errno
import logging
import sqlite3
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from scanner.errors import DecksheetError
from scanner.vocab import MAX_ROUND
from scanner.web import api, audit_pages, circuit_page, pages
from scanner.web.audit_runner import AuditRunner
from scanner.web.auth import BodyLimit, KeyAuth
from scanner.web.config import StationConfig
from scanner.web.jobs import JobRunner
from scanner.web.lease_jobs import LeaseRunner
from scanner.web.present import filters
from scanner.web.service import StationError, StationService
from scanner.web.texts import ko
from scanner.web.faults import StorageFault, storage_fault
from scanner.web.timeouts import BodyReadTimeout

log = logging.getLogger("decksheet.web")
HERE = Path(__file__).parent


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _error(request: Request, message: str, status: int) -> Response:
    if _wants_json(request):
        return JSONResponse({"error": message}, status_code=status)
    if not request.scope.get("auth"):  # not signed in (a public path): no page, no CSRF token
        return Response(message, status_code=status, media_type="text/plain; charset=utf-8")
    try:
        return pages.render(request, "error.html", status_code=status, message=message)
    except Exception:  # noqa: BLE001 - the error page must not fail in turn
        return Response(message, status_code=status, media_type="text/plain; charset=utf-8")


async def _station_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StationError)
    return _error(request, str(exc), exc.status)


async def _decksheet_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, DecksheetError)
    if (fault := storage_fault(exc)) is not None:
        return _storage_error(request, exc, fault)
    return _error(request, exc.render("ko"), 422)  # Korean from the table, by code


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    message = {404: ko("no-such-page"), 405: ko("method-not-allowed")}.get(exc.status_code,
                                                                  str(exc.detail))
    return _error(request, message, exc.status_code)


def _storage_error(request: Request, exc: BaseException, fault: StorageFault) -> Response:
    # writes are atomic (temp file + rename, transactions): nothing is half-written
    root = exc
    while root.__context__ is not None and not hasattr(root, "sqlite_errorname"):
        root = root.__context__
    log.error("storage fault on %s: %s: %s [%s]", request.url.path, type(exc).__name__, exc,
              getattr(root, "sqlite_errorname", ""))
    return _error(request, ko(fault.text), fault.status)


async def _internal_error(request: Request, exc: Exception) -> Response:
    if (fault := storage_fault(exc)) is not None:
        return _storage_error(request, exc, fault)
    log.exception("internal error on %s", request.url.path)
    return _error(request, ko("internal-error"), 500)


def build_app(config: StationConfig, service: StationService | None = None,
              start_runner: bool = True) -> BodyReadTimeout:
    """The ASGI app of one station. The runner starts with the app and stops with it."""
    service = service or StationService(config)
    runner = (LeaseRunner if config.uses_database else JobRunner)(service, config.workers)
    audits = AuditRunner(service)  # a database event refuses audit jobs (`start_audit`)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        if start_runner:
            runner.start()
            if not config.uses_database:
                audits.start()
        try:
            yield
        finally:
            audits.stop(config.shutdown_grace_s)
            runner.stop(config.shutdown_grace_s)

    env = Environment(loader=FileSystemLoader(HERE / "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    env.filters.update(filters(config.timezone))
    env.globals["msg"] = lambda code, **params: ko(code, **params)  # the message table's web.*
    env.globals["MAX_ROUND"] = MAX_ROUND
    app = Starlette(
        routes=api.ROUTES + pages.ROUTES + audit_pages.ROUTES + circuit_page.ROUTES
        + [Mount("/static", StaticFiles(directory=HERE / "static"), name="static")],
        exception_handlers={StationError: _station_error, DecksheetError: _decksheet_error,
                            HTTPException: _http_error, OSError: _internal_error,
                            sqlite3.Error: _internal_error, Exception: _internal_error},
        lifespan=lifespan)
    app.state.service = service
    app.state.runner = runner
    app.state.audits = audits
    app.state.templates = Jinja2Templates(env=env)
    return BodyReadTimeout(BodyLimit(KeyAuth(app, config.key), config.max_upload_bytes + 64 * 1024),
                           config.read_timeout_s, config.body_deadline_s)
