"""Who may use the station: the event key (sign-in URL → cookie, or a Bearer header), the
judge's name per device, CSRF tokens for cookie-signed forms, and the upload size limit.

Cookies hold an HMAC of the key, never the key; a restart with the same key keeps devices
signed in, a new key signs every device out.
"""
from __future__ import annotations

import hashlib
import hmac
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, quote, unquote, urlencode

from scanner.errors import EventError
from scanner.event.records import clean_name
from starlette.requests import Request
from starlette.responses import (HTMLResponse, JSONResponse, PlainTextResponse,
                                 RedirectResponse, Response)
from starlette.types import ASGIApp, Receive, Scope, Send

from scanner.web.texts import ko

SESSION_COOKIE = "ds_session"
JUDGE_COOKIE = "ds_judge"
PUBLIC_PREFIXES = ("/static/", "/favicon.ico")


def _mac(key: str, what: str) -> str:
    return hmac.new(key.encode(), what.encode(), hashlib.sha256).hexdigest()[:32]


def session_token(key: str) -> str:
    return _mac(key, "session")


def csrf_token(key: str) -> str:
    return _mac(key, "csrf")


def _cookies(scope: Scope) -> dict[str, str]:
    raw = "; ".join(v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"cookie")
    jar = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:  # noqa: BLE001 - a malformed cookie header is just "no cookie"
        return {}
    return {k: m.value for k, m in jar.items()}


def _header(scope: Scope, name: bytes) -> str:
    for k, v in scope.get("headers", []):
        if k == name:
            return v.decode("latin-1")
    return ""


def same_origin(path: str) -> str:
    """A redirect target on this station: `//evil.example/` (or `/\\evil.example/`) is another
    site to a browser, so the leading slashes and backslashes collapse to one slash."""
    return "/" + path.lstrip("/\\")


def auth_kind(scope: Scope, key: str) -> str | None:
    """'bearer', 'cookie' or None."""
    bearer = _header(scope, b"authorization")
    if bearer.lower().startswith("bearer ") and hmac.compare_digest(
            bearer[7:].strip().encode(), key.encode()):
        return "bearer"
    cookie = _cookies(scope).get(SESSION_COOKIE, "")
    if cookie and hmac.compare_digest(cookie.encode(), session_token(key).encode()):
        return "cookie"
    return None


def judge_name(request: Request) -> str | None:
    """The judge signed in on this device (cookie), or named by an API client (X-Judge,
    percent-encoded UTF-8); None when neither names one (no recorded action then)."""
    if request.scope.get("auth") == "bearer":
        raw = request.headers.get("x-judge", "")
    else:
        raw = request.cookies.get(JUDGE_COOKIE, "")
    try:  # raw UTF-8 bytes arrive as latin-1 text; anything not UTF-8 names no one (it would
        # be stored as replacement characters or as mojibake)
        raw = raw.encode("latin-1").decode("utf-8")
        name = clean_name(unquote(raw[:400], errors="strict"))
    except (UnicodeError, EventError):  # cleaned like a player name: no invisible characters
        return None
    return name[:40].strip() if name else None


def set_judge_cookie(response: Response, name: str) -> None:
    response.set_cookie(JUDGE_COOKIE, quote(name.strip()[:40]), max_age=7 * 24 * 3600,
                        httponly=True, samesite="strict")


def csrf_ok(request: Request, form_token: str | None, key: str) -> bool:
    """Bearer calls carry no cookie, so no CSRF risk; cookie calls need the token."""
    if request.scope.get("auth") == "bearer":
        return True
    token = form_token or request.headers.get("x-csrf-token", "")
    return bool(token) and hmac.compare_digest(token.encode(), csrf_token(key).encode())


@dataclass
class KeyGuard:
    """Failed key attempts per client address. After `free` failures, each further attempt
    must wait 1, 2, 4 … seconds (at most `max_wait_s`) after the last failure, and is answered
    429 before the key is even compared; a success or `window_s` without a failure forgets the
    address. Guessing a 16-character key drops from ≈ 2,000 tries a second to a few an hour."""

    free: int = 5
    window_s: float = 600.0
    max_wait_s: float = 300.0
    max_addresses: int = 4096
    """Memory bound: past it, the addresses failed longest ago are forgotten first."""
    clock: Callable[[], float] = time.monotonic
    _fails: dict[str, tuple[int, float]] = field(default_factory=dict)

    def wait_s(self, address: str) -> float:
        """Seconds this address must still wait before its key is looked at (0: go ahead)."""
        n, last = self._fails.get(address, (0, 0.0))
        if n < self.free:
            return 0.0
        now = self.clock()
        if now - last > self.window_s:
            self._fails.pop(address, None)
            return 0.0
        return max(0.0, last + min(2.0 ** (n - self.free), self.max_wait_s) - now)

    def failed(self, address: str) -> None:
        n, _ = self._fails.pop(address, (0, 0.0))
        self._fails[address] = (n + 1, self.clock())  # re-inserted: dict order = last failure
        while len(self._fails) > self.max_addresses:
            self._fails.pop(next(iter(self._fails)))

    def succeeded(self, address: str) -> None:
        self._fails.pop(address, None)


class KeyAuth:
    """401 for anything without the key; `?key=KEY` sets the session cookie and redirects.
    A client that keeps giving wrong keys is slowed down (`KeyGuard`): 429 with Retry-After."""

    def __init__(self, app: ASGIApp, key: str, guard: KeyGuard | None = None) -> None:
        self.app, self.key = app, key
        self.guard = guard or KeyGuard()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")
        if path.startswith(PUBLIC_PREFIXES):
            return await self.app(scope, receive, send)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = (query.get("key") or [""])[0]
        # Only keys count as attempts: a session cookie is a 128-bit MAC (nothing to guess), and
        # a phone still holding the cookie of a previous key must not lock its address out.
        presented = bool(given or _header(scope, b"authorization"))
        address = (scope.get("client") or ("?",))[0]
        if presented and (wait := self.guard.wait_s(address)) > 0:
            return await _slow_down(path, wait)(scope, receive, send)
        if given and hmac.compare_digest(given.encode(), self.key.encode()):
            self.guard.succeeded(address)
            rest = {k: v for k, v in query.items() if k != "key"}
            target = same_origin(path) + ("?" + urlencode(rest, doseq=True) if rest else "")
            response = RedirectResponse(target, status_code=303)
            response.set_cookie(SESSION_COOKIE, session_token(self.key), max_age=7 * 24 * 3600,
                                httponly=True, samesite="strict")
            return await response(scope, receive, send)
        kind = auth_kind(scope, self.key)
        if kind is None:
            if presented:
                self.guard.failed(address)
            return await _unauthorized(path)(scope, receive, send)
        self.guard.succeeded(address)
        scope["auth"] = kind
        return await self.app(scope, receive, send)


def _slow_down(path: str, wait: float) -> Response:
    seconds = max(1, math.ceil(wait))
    message = ko("key-wait", seconds=seconds)
    headers = {"Retry-After": str(seconds)}
    if path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=429, headers=headers)
    return PlainTextResponse(message, status_code=429, headers=headers)


def _unauthorized(path: str) -> Response:
    if path.startswith("/api/"):
        return JSONResponse({"error": ko("key-needed")},
                            status_code=401, headers={"WWW-Authenticate": "Bearer"})
    return HTMLResponse(
        "<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>"
        "<title>로그인 필요</title><body style='font:18px sans-serif;padding:1em'>"
        "<h1>로그인이 필요합니다</h1><p>서버를 시작할 때 나온 주소(<code>?key=…</code> 포함)를 "
        "이 기기에서 여세요. 헤드 저지에게 QR 코드나 주소를 받으세요.</p></body>",
        status_code=401)


class BodyLimit:
    """413 as soon as a request body passes `limit` bytes (checked while it streams in)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = _header(scope, b"content-length")
        if declared.isdigit() and int(declared) > self.limit:
            return await _too_large(self.limit)(scope, receive, send)
        seen = 0
        started = False

        async def limited_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge
            return message

        async def tracking_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await _too_large(self.limit)(scope, receive, send)


class BodyTooLarge(Exception):
    pass


def _too_large(limit: int) -> Response:
    return JSONResponse({"error": ko("file-too-large", mb=limit // 1024 // 1024)},
                        status_code=413)
