"""Engine fixtures for the contract suite: the embedded FalkorDB always, Neo4j when available.

Neo4j is used when `REMGRAPH_NEO4J__URI` (or `NEO4J_URI`) is set, else when a Docker engine answers
(testcontainers, pinned `neo4j:5.26` image), else its leg skips with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator

import pytest

from graph.db import GraphDB
from graph.engines.falkordb import FalkorDBGraph
from graph.migrate import migrate

NEO4J_IMAGE = "neo4j:5.26"
_WIPE = "admin.wipe"


def _docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(scope="session")
def neo4j_conn() -> Iterator[tuple[str, str, str]]:
    """(uri, user, password) of a Neo4j server, or skip naming why there is none."""
    uri = os.environ.get("REMGRAPH_NEO4J__URI") or os.environ.get("NEO4J_URI")
    if uri:
        user = os.environ.get("REMGRAPH_NEO4J__USER") or os.environ.get("NEO4J_USER", "neo4j")
        pw = os.environ.get("REMGRAPH_NEO4J__PASSWORD") or os.environ.get("NEO4J_PASSWORD", "")
        yield uri, user, pw
        return
    if not _docker_answers():
        pytest.skip("no Neo4j: set REMGRAPH_NEO4J__URI (or NEO4J_URI) or run a Docker engine")
    from testcontainers.neo4j import Neo4jContainer

    with Neo4jContainer(NEO4J_IMAGE, password="remgraph-test-pw") as c:
        yield c.get_connection_url(), "neo4j", "remgraph-test-pw"


@pytest.fixture(params=["falkordb", "neo4j"])
async def any_db(request: pytest.FixtureRequest, graph_settings) -> AsyncIterator[GraphDB]:
    """A migrated empty graph on each available engine."""
    if request.param == "falkordb":
        db: GraphDB = FalkorDBGraph(
            graph_name=graph_settings.graph_name,
            unix_socket=str(graph_settings.falkordb.unix_socket),
        )
        await migrate(db)
        yield db
        await db.drop()  # type: ignore[attr-defined]  # FalkorDBGraph-only helper
        await db.close()
        return
    uri, user, pw = request.getfixturevalue("neo4j_conn")
    from graph.cypher import Q
    from graph.engines.neo4j import Neo4jGraph

    ndb = Neo4jGraph(uri=uri, user=user, password=pw)
    await migrate(ndb)
    await ndb.autocommit(Q(_WIPE))
    yield ndb
    await ndb.autocommit(Q(_WIPE))
    await ndb.close()
