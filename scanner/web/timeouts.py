"""Read and idle timeouts, so that idle or trickling connections are not held for ever:
- `TimedH11Protocol` (uvicorn's h11 protocol): a connection must deliver a request's complete
  headers within `header_timeout_s` of opening (or of its previous response); trickling one
  byte at a time does not reset the clock, unlike uvicorn's own keep-alive timer.
- `BodyReadTimeout` (ASGI): while a request body is still coming, each piece must arrive
  within `timeout_s`, and the whole body within `deadline_s`; otherwise the request ends with a
  408 (nothing is recorded from it).
"""
from __future__ import annotations

import asyncio
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from scanner.web.texts import ko


class TimedH11Protocol(H11Protocol):
    header_timeout_s: float = 20.0
    """Set per server by `timed_protocol`."""
    max_connections: int = 1_000_000
    """Connections held at once; one more is closed as it opens (set by `timed_protocol`)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.server_state.connections) > self.max_connections:
            # Before it can sit idle on a file descriptor: uvicorn's own limit looks only at
            # connections that send a request, and idle ones would take the last descriptor.
            transport.close()
        self._header_deadline: asyncio.TimerHandle | None = None
        self._arm_header_deadline()

    def _arm_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
        self._awaited = self.cycle  # a new request makes a new cycle
        self._header_deadline = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _headers_late(self) -> None:
        waiting = self.cycle is None or (self.cycle is self._awaited
                                         and self.cycle.response_complete)
        if waiting and not self.transport.is_closing():
            self.transport.close()

    def on_response_complete(self) -> None:
        self._arm_header_deadline()  # first: a pipelined request starts a cycle in super()
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
        super().connection_lost(exc)


def timed_protocol(header_timeout_s: float,
                   max_connections: int = 1_000_000) -> type[TimedH11Protocol]:
    """The protocol class with this server's header timeout and connection bound (uvicorn
    takes a class)."""
    return type("StationH11Protocol", (TimedH11Protocol,),
                {"header_timeout_s": header_timeout_s, "max_connections": max_connections})


class BodyReadTimeout:
    """Each piece of a request body within `timeout_s` of the last, and the whole body within
    `deadline_s` of the request's start: a byte every few seconds keeps no request open."""

    def __init__(self, app: ASGIApp, timeout_s: float, deadline_s: float = 120.0) -> None:
        self.app, self.timeout_s, self.deadline_s = app, timeout_s, deadline_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        body_done = False
        started = False
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.deadline_s

        async def timed_receive() -> Message:
            nonlocal body_done
            if body_done:  # after the body only a disconnect comes: no deadline
                return await receive()
            wait = min(self.timeout_s, deadline - loop.time())
            try:
                if wait <= 0:
                    raise asyncio.TimeoutError
                message = await asyncio.wait_for(receive(), wait)
            except asyncio.TimeoutError:
                raise BodyTimedOut from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        async def tracking_send(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, timed_receive, tracking_send)
        except BodyTimedOut:
            if not started:
                await JSONResponse({"error": ko("request-timeout")}, status_code=408,
                                   headers={"Connection": "close"})(scope, receive, send)


class BodyTimedOut(Exception):
    pass
