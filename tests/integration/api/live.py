"""A real HTTP server for tests that need one (browsers, the sync client): uvicorn on a free
loopback port in a thread, serving the app wired to the test's embedded-engine graph."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import uvicorn

from api.app import create_app
from api.config import ApiSettings
from api.services import ApiServices
from ingest.config import IngestSettings
from ingest.service import IngestService
from tests.shared_embedder import shared_local_embedder


@dataclass
class Live:
    """A running server: `url` is `http://127.0.0.1:PORT`."""

    url: str
    settings: ApiSettings


def live_services() -> ApiServices:
    """The app opens its own graph connection (on its own event loop); the real ingest pipeline
    is built on it, as the composition root does for `remgraph mcp`."""
    return ApiServices(
        embedder=shared_local_embedder(),
        make_ingestor=lambda db, emb: IngestService(db, IngestSettings(), embedder=emb),
    )


@contextlib.contextmanager
def serve_in_thread(settings: ApiSettings, services: ApiServices) -> Iterator[Live]:
    """Run the app under uvicorn on 127.0.0.1:<free port> until the block ends."""
    app = create_app(settings, services)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(server.serve())
        except BaseException as e:  # reported to the test below
            failure.append(e)

    thread = threading.Thread(target=run, name="live-api", daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if failure or not thread.is_alive():
            raise RuntimeError(f"the API did not start: {failure!r}")
        if time.monotonic() > deadline:
            raise TimeoutError("the API did not start within 120 s")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Live(url=f"http://127.0.0.1:{port}", settings=settings)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture
def live_api(api_settings, seeded, keys) -> Iterator[Live]:
    """The seeded app on a real loopback port (GraphiQL on, as on loopback by default)."""
    settings = api_settings.model_copy(
        update={"api": api_settings.api.model_copy(update={"host": "127.0.0.1"})}
    )
    with serve_in_thread(settings, live_services()) as live:
        yield live
