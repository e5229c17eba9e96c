"""The head judge's page of a player's season (`/circuit/ID`) and its JSON (`/api/circuit/ID`):
every event of the database, with standing penalties counted."""
from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from scanner.web import pages


async def circuit_page(request: Request) -> Response:
    service = request.app.state.service
    history = await run_in_threadpool(service.circuit_history, request.path_params["kid"])
    return pages.render(request, "circuit.html", history=history)


async def circuit_api(request: Request) -> Response:
    service = request.app.state.service
    return JSONResponse(await run_in_threadpool(service.circuit_history,
                                                request.path_params["kid"]))


ROUTES = [Route("/circuit/{kid}", circuit_page), Route("/api/circuit/{kid}", circuit_api)]
