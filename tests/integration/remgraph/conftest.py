"""Fixtures of the evaluation tests: settings for each available engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.config import Engine
from graph.cypher import Q
from graph.embedded import EmbeddedServer
from graph.migrate import migrate
from remgraph.settings import Settings


@pytest.fixture(params=["falkordb", "neo4j"])
async def engine_settings(
    request: pytest.FixtureRequest, embedded_server: EmbeddedServer, tmp_path: Path
):
    """Settings for each available engine; the Neo4j database is wiped first and last."""
    common = {
        "embedded": {"data_dir": tmp_path / "unused"},
        "consolidate": {"report_dir": tmp_path / "reports"},
        "_env_file": None,
    }
    if request.param == "falkordb":
        yield Settings(
            engine=Engine.FALKORDB, falkordb={"unix_socket": embedded_server.socket_path}, **common
        )
        return
    uri, user, pw = request.getfixturevalue("neo4j_conn")
    from graph.engines.neo4j import Neo4jGraph

    db = Neo4jGraph(uri=uri, user=user, password=pw)
    await migrate(db)
    await db.autocommit(Q("admin.wipe"))
    yield Settings(engine=Engine.NEO4J, neo4j={"uri": uri, "user": user, "password": pw}, **common)
    await db.autocommit(Q("admin.wipe"))
    await db.close()
