"""`/readyz` follows the engine: 503 while it is down, 200 again once it is back, no restart."""

from __future__ import annotations

import asyncio

import httpx
import redis

from api.app import create_app
from api.config import ApiSettings
from api.services import ApiServices
from graph.config import EmbeddedSettings
from graph.embedded import EmbeddedServer
from graph.engines.falkordb import FalkorDBGraph
from graph.repositories.api_keys import ApiKeyRepository
from tests.shared_embedder import shared_local_embedder


async def test_readyz_reports_engine_outage_and_recovers(tmp_path):
    server = EmbeddedServer(EmbeddedSettings(data_dir=tmp_path / "engine"))
    server.start()
    db = FalkorDBGraph(graph_name="ready", unix_socket=str(server.socket_path))
    app = create_app(ApiSettings(env="test"), ApiServices(db=db, embedder=shared_local_embedder()))
    try:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
                assert (await c.get("/readyz")).status_code == 200
                server.stop()
                down = await c.get("/readyz")
                assert down.status_code == 503
                assert down.json()["status"] == "unavailable"
                assert (await c.get("/healthz")).status_code == 200  # the process is still up
                server.start()
                assert (await c.get("/readyz")).status_code == 200
    finally:
        await db.close()
        server.stop()


async def test_readyz_is_503_while_an_index_is_being_built(tmp_path):
    """A restarted engine answers PING before its indexes are rebuilt: not ready until they are.

    A fulltext index over 400K nodes takes the engine about a second to build in the background
    (1.3 s for 300K measured on 2 cores), far longer than one `/readyz` round trip.
    """
    server = EmbeddedServer(EmbeddedSettings(data_dir=tmp_path / "engine"))
    server.start()
    db = FalkorDBGraph(graph_name="ready", unix_socket=str(server.socket_path))
    app = create_app(ApiSettings(env="test"), ApiServices(db=db, embedder=shared_local_embedder()))
    raw = redis.Redis(unix_socket_path=str(server.socket_path))
    try:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
                assert (await c.get("/readyz")).status_code == 200
                _, secret = await ApiKeyRepository(db).create("ops", ["*"])
                keyed = {"Authorization": f"Bearer {secret}"}
                raw.execute_command(
                    "GRAPH.QUERY",
                    "ready",
                    "UNWIND range(1, 400000) AS i CREATE (:Bulk {text: 'w ' + toString(i)})",
                )
                raw.execute_command(
                    "GRAPH.QUERY", "ready", "CALL db.idx.fulltext.createNodeIndex('Bulk', 'text')"
                )
                building = await c.get("/readyz", headers=keyed)
                assert building.status_code == 503, building.text
                assert "Bulk" in building.json()["reason"]
                # without a key: only whether it is ready, nothing about the engine
                bare = await c.get("/readyz")
                assert (bare.status_code, bare.json()) == (503, {"status": "unavailable"})
                for _ in range(600):  # the build ends; ready again without a restart
                    if (await c.get("/readyz")).status_code == 200:
                        break
                    await asyncio.sleep(0.05)
                else:
                    raise AssertionError("the index never came online")
    finally:
        raw.close()
        await db.close()
        server.stop()
