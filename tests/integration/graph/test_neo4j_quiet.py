"""The Neo4j driver's server notifications are debug records, never warnings (issue 17.6)."""

from __future__ import annotations

import logging

import pytest

from graph.db import GraphDB
from tests.engines import run_text


async def test_server_notifications_are_debug_not_warnings(
    graph_db: GraphDB, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    # An unknown relationship type makes Neo4j send a notification; FalkorDB sends none.
    await run_text(graph_db, "MATCH (a)-[:NO_SUCH_TYPE_EVER]->(b) RETURN count(b) AS n", {})
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    if graph_db.dialect.value == "neo4j":
        assert any(r.name == "neo4j.notifications" for r in caplog.records)
