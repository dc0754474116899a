"""Open the configured engine: Neo4j, an external FalkorDB, or the embedded one (auto-started)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from graph.config import Engine, GraphSettings
from graph.db import GraphDB
from graph.embedded import EmbeddedServer
from graph.engines.falkordb import FalkorDBGraph


@dataclass
class Connection:
    """An open `GraphDB` plus its lease on the embedded server, if any (released on close).

    Closing the last lease stops an embedded server that a command started (`EmbeddedServer.
    release`); other processes using the same data dir keep it running until they leave too.
    """

    db: GraphDB
    server: EmbeddedServer | None = None
    started_server: bool = False
    lease: Path | None = None
    stopped_server: bool = False
    """Set by `close` when this connection was the server's last user and stopped it."""

    async def close(self) -> None:
        await self.db.close()
        if self.server is not None and self.lease is not None:
            self.stopped_server = self.server.release(self.lease)
            self.lease = None


def make_db(settings: GraphSettings) -> GraphDB:
    """Build the adapter for the configured engine without touching the network."""
    if settings.engine is Engine.NEO4J:
        from graph.engines.neo4j import Neo4jGraph

        n = settings.neo4j
        return Neo4jGraph(
            uri=n.uri,
            user=n.user,
            password=n.password.get_secret_value(),
            database=n.database,
            max_pool_size=n.max_pool_size,
            query_timeout_s=n.query_timeout_s,
        )
    if settings.engine is Engine.FALKORDB:
        f = settings.falkordb
        return FalkorDBGraph(
            graph_name=settings.graph_name,
            unix_socket=str(f.unix_socket) if f.unix_socket else None,
            host=f.host,
            port=f.port,
            password=f.password.get_secret_value() if f.password else None,
            max_connections=f.max_connections,
            query_timeout_s=f.query_timeout_s,
        )
    server = EmbeddedServer(settings.embedded)
    return FalkorDBGraph(
        graph_name=settings.graph_name,
        unix_socket=str(server.socket_path),
        password=server.password(),  # set when the engine listens on TCP
        max_connections=settings.falkordb.max_connections,
        query_timeout_s=settings.falkordb.query_timeout_s,
    )


async def open_graph(settings: GraphSettings, *, autostart: bool = True) -> Connection:
    """Connect to the configured engine, starting the embedded server if needed and allowed.

    The caller closes the returned `Connection`, which releases its lease on the embedded server
    (the last user of a server a command started stops it).
    """
    server: EmbeddedServer | None = None
    started = False
    lease: Path | None = None
    if settings.engine is Engine.EMBEDDED:
        server = EmbeddedServer(settings.embedded)
        lease, started = server.acquire(autostart=autostart)
    db = make_db(settings)
    try:
        await db.ping()
    except Exception:
        await db.close()
        if server is not None and lease is not None:
            server.release(lease)
        raise
    return Connection(db=db, server=server, started_server=started, lease=lease)


@contextlib.asynccontextmanager
async def graph_session(
    settings: GraphSettings, *, autostart: bool = True, migrate: bool = True
) -> AsyncIterator[GraphDB]:
    """Connect, migrate, yield the graph and close it: the shape of every CLI command."""
    from graph.migrate import migrate as run_migrations

    conn = await open_graph(settings, autostart=autostart)
    try:
        if migrate:
            await run_migrations(conn.db)
        yield conn.db
    finally:
        await conn.close()
