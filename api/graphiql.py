"""GraphiQL in a browser: the IDE page loads without a key, every query still needs one.

A browser cannot send a header when it navigates, so an IDE behind the key check could never be
opened. The page and its assets hold no data, so they are served without a key; the page asks for
one (kept in the tab's sessionStorage, like GraphiQL's own state) and pre-fills GraphiQL's header
editor with `Authorization: Bearer <key>`, and every query goes through the normal authenticated
`POST /graphql`.

On by default when the API listens on loopback, off when it is bound elsewhere unless
`REMGRAPH_API__GRAPHIQL=true` asks for it.

The GraphiQL 2.4.7 and React 17.0.2 builds come from the `graphene-django-graphiql-static` wheel
(only its static files are read; nothing of Django is imported). They are the npm packages' own
files; `ASSET_SHA256` pins them and a test checks the pins, so a changed upstream file is noticed.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import ipaddress
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

VENDOR_PACKAGE = "graphene_django_graphiql_static"
"""The wheel shipping the GraphiQL and React builds."""

ASSET_SHA256 = {
    "graphiql.min.js": "c564de05b95d184e2c5ba5ceaf2635821f6bf92f2d5777b74d91004ff6b591d1",
    "graphiql.min.css": "c6cd4b83f01c5e1ff4975d77bc957184dce6dec0155fbf9cc4d9190eba8a7b9d",
    "react.production.min.js": "229bbf4d0e7488209564152c6723497f1ac3934136ca1684233d2fa88fa4146f",
    "react-dom.production.min.js": (
        "9db33292007ab6c38527b39d5663e976a305564e19b2a5a8713ea2b2c00f505d"
    ),
}
"""SHA-256 of each vendored file served (graphiql 2.4.7 and react 17.0.2 as published on npm;
the GraphiQL files differ from npm's only by a final newline)."""

_OWN = {"remgraph-ide.js", "remgraph-ide.css"}
_TYPES = {".js": b"text/javascript; charset=utf-8", ".css": b"text/css; charset=utf-8"}

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The page runs only its own scripts, talks only to this API and cannot be framed."""


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def graphiql_enabled(setting: bool | None, host: str) -> bool:
    """Whether to serve the IDE: as set, or by default only when bound to loopback."""
    return is_loopback(host) if setting is None else setting


def _vendor_dir() -> Path:
    return Path(str(importlib.resources.files(VENDOR_PACKAGE) / "static" / VENDOR_PACKAGE))


def _own_dir() -> Path:
    return Path(__file__).resolve().parent / "ide"


def asset_path(name: str) -> Path | None:
    """The file behind `<path>/ide/<name>`, or None when `name` is not an asset."""
    if name in ASSET_SHA256:
        return _vendor_dir() / name
    if name in _OWN:
        return _own_dir() / name
    return None


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@cache
def _asset(name: str) -> bytes | None:
    path = asset_path(name)
    return None if path is None else path.read_bytes()


@cache
def _page(base: str) -> bytes:
    html = (_own_dir() / "index.html").read_text(encoding="utf-8")
    return html.replace("__BASE__", base).encode()


@dataclass(frozen=True)
class _Response:
    status: int
    body: bytes
    headers: list[tuple[bytes, bytes]]


def _wants_html(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"accept":
            return b"text/html" in value
    return False


class GraphiQLPage:
    """ASGI middleware serving the IDE page at `GET <path>` (browsers) and its assets.

    Everything else, including `GET <path>?query=...` from clients that do not ask for HTML,
    passes through to the app (and its key check).
    """

    def __init__(self, app: ASGIApp, path: str = "/graphql") -> None:
        self.app = app
        self.path = path.rstrip("/")
        self.assets = f"{self.path}/ide/"

    def _respond(self, scope: Scope) -> _Response | None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            return None
        path: str = scope["path"]
        common = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]
        if path in (self.path, self.path + "/") and _wants_html(scope):
            return _Response(
                200,
                _page(self.path),
                [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"cache-control", b"no-store"),
                    (b"content-security-policy", CSP.encode()),
                    (b"x-frame-options", b"DENY"),
                    *common,
                ],
            )
        if path.startswith(self.assets):
            name = path[len(self.assets) :]
            body = _asset(name)
            if body is None:
                return _Response(404, b"not found", [(b"content-type", b"text/plain"), *common])
            return _Response(
                200,
                body,
                [
                    (b"content-type", _TYPES[Path(name).suffix]),
                    (b"cache-control", b"public, max-age=86400"),
                    *common,
                ],
            )
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        resp = self._respond(scope)
        if resp is None:
            await self.app(scope, receive, send)
            return
        headers = [*resp.headers, (b"content-length", str(len(resp.body)).encode())]
        await send({"type": "http.response.start", "status": resp.status, "headers": headers})
        body = b"" if scope["method"] == "HEAD" else resp.body
        await send({"type": "http.response.body", "body": body})
