"""Every response measured: one log line for a slow request, and a cap on a response's size.

A request that ran at least `slow_request_s` is logged at WARNING, on one line, with its request
id, the API key's id (never the secret), method, path, status, wall time, the process CPU time
spent while it ran (other requests may share it) and the bytes returned. A response body past
`max_response_bytes` is not sent: the client gets a one-line 400 (`RESPONSE_TOO_LARGE`) saying
the limit and how to ask for less, and the log line says what was refused.

The request id is the client's `X-Request-Id` or one made here, so the log line, the GraphQL
error's `requestId` and the usage record name the same request.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ResponseWatch"]

log = logging.getLogger(__name__)

KEY_STATE = "remgraph_key_id"
"""Where the context getter leaves the resolved key's id in the ASGI scope's `state`."""


class ResponseWatch:
    """ASGI middleware: the slow-request log line and the response byte cap (see the module)."""

    def __init__(self, app: ASGIApp, *, slow_request_s: float, max_response_bytes: int) -> None:
        self.app = app
        self.slow_request_s = slow_request_s
        self.max_response_bytes = max_response_bytes

    def _too_large(self, size: int) -> bytes:
        text = (
            f"response too large: {size} bytes; the limit is {self.max_response_bytes} bytes "
            "(REMGRAPH_API__MAX_RESPONSE_BYTES): ask for fewer items (`first`, `limit`) or "
            "fewer fields"
        )
        return json.dumps(
            {"errors": [{"message": text, "extensions": {"code": "RESPONSE_TOO_LARGE"}}]}
        ).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = _request_id(scope)
        t0, cpu0 = time.perf_counter(), time.process_time()
        start: dict[str, Any] = {}
        sent = {"bytes": 0, "status": 0, "refused": 0}

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)  # held until the body says whether it is sent
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            body = message.get("body", b"")
            if start and sent["bytes"] == 0 and len(body) > self.max_response_bytes:
                sent["refused"] = len(body)
                await self._refuse(send, len(body))
                start.clear()
                return
            if sent["refused"]:
                return  # the rest of a refused body
            if start:
                sent["status"] = int(start["status"])
                await send(dict(start))
                start.clear()
            sent["bytes"] += len(body)
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            wall = time.perf_counter() - t0
            if wall >= self.slow_request_s or sent["refused"]:
                self._log(scope, rid, wall, time.process_time() - cpu0, sent)

    async def _refuse(self, send: Send, size: int) -> None:
        body = self._too_large(size)
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _log(self, scope: Scope, rid: str, wall: float, cpu: float, sent: dict[str, int]) -> None:
        key = (scope.get("state") or {}).get(KEY_STATE, "-")
        what = (
            f"refused {sent['refused']} bytes (over {self.max_response_bytes})"
            if sent["refused"]
            else f"{sent['status']} {sent['bytes']} bytes"
        )
        log.warning(
            "slow request %s key %s %s %s: %s in %.2f s (process CPU %.2f s)",
            rid,
            key,
            scope.get("method", "-"),
            scope.get("path", "-"),
            what,
            wall,
            cpu,
        )


def _request_id(scope: Scope) -> str:
    """The client's `X-Request-Id`, else a new one written into the request's headers."""
    headers: list[tuple[bytes, bytes]] = list(scope.get("headers") or [])
    for name, value in headers:
        if name == b"x-request-id" and value:
            return value.decode("latin-1")[:64]
    rid = uuid.uuid4().hex[:16]
    scope["headers"] = [*headers, (b"x-request-id", rid.encode())]
    return rid
