"""`/readyz` follows the engine: 503 while it is down, 200 again once it is back, no restart."""

from __future__ import annotations

import httpx

from api.app import create_app
from api.config import ApiSettings
from api.services import ApiServices
from graph.config import EmbeddedSettings
from graph.embedded import EmbeddedServer
from graph.engines.falkordb import FalkorDBGraph
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
