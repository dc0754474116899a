"""Ready means ready: announce the API only once its port answers and `/readyz` says ready.

uvicorn binds the port after the app's start-up (graph opened, query embedder warm), and
`/readyz` answers 200 only while the engine does, so a `curl` pasted from the announcement works.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import httpx

log = logging.getLogger("remgraph.api")


def probe_host(host: str) -> str:
    """Where to reach a server bound to `host` from this machine (wildcards → loopback)."""
    if host in ("", "0.0.0.0"):  # a wildcard bind is reached over loopback
        return "127.0.0.1"
    if host in ("::", "[::]"):
        return "[::1]"
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


async def readyz(host: str, port: int, timeout_s: float = 2.0) -> dict[str, Any] | None:
    """`/readyz`'s JSON when it answers 200, else None (not listening, or not ready)."""
    url = f"http://{probe_host(host)}:{port}/readyz"
    try:
        async with httpx.AsyncClient(timeout=timeout_s, trust_env=False) as client:
            r = await client.get(url)
    except httpx.HTTPError:
        return None
    if r.status_code != 200:
        return None
    body = r.json()
    return body if isinstance(body, dict) and body.get("status") == "ready" else None


async def wait_until_ready(
    serving: asyncio.Task[Any],
    host: str,
    port: int,
    *,
    interval_s: float = 0.05,
    notice_after_s: float = 15.0,
) -> bool:
    """Poll `/readyz` until it is ready (True) or the server task ends first (False)."""
    started = time.monotonic()
    noticed = False
    while not serving.done():
        if await readyz(host, port) is not None:
            return True
        if not noticed and time.monotonic() - started > notice_after_s:
            log.warning("still waiting for http://%s:%s/readyz to report ready", host, port)
            noticed = True
        await asyncio.sleep(interval_s)
    return False
