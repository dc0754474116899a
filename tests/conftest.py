"""Shared fixtures: markers by directory, a network guard, and the engines.

One embedded FalkorDB server runs per test session (in a temporary data directory, on a Unix
socket); each test gets its own freshly migrated graph (a separate FalkorDB key). Every test that
uses `graph_settings` or `graph_db` also runs on Neo4j when one is available: one database,
migrated once per session and wiped around each test (`tests/engines.py`).
"""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from graph.config import EmbeddedSettings, GraphSettings
from graph.db import GraphDB
from graph.embedded import EmbeddedServer
from graph.migrate import migrate
from tests.engines import (
    ENGINES,
    deselect_neo4j,
    drop_test_db,
    make_test_db,
    neo4j_conn,
    neo4j_leg,
    neo4j_migrated,
    settings_for,
)

__all__ = ["neo4j_conn", "neo4j_migrated"]

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
if not SHARED.is_dir():  # CI clones main next to shared/, like the work tree
    SHARED = Path(os.environ.get("REMGRAPH_SHARED_DIR", "/work/shared"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "/tests/integration/" in str(item.path):
            item.add_marker(pytest.mark.integration)
    deselect_neo4j(config, items)


def pytest_report_header(config: pytest.Config) -> str:
    runs, where = neo4j_leg()
    return (
        f"engines: falkordb, neo4j ({where})" if runs else f"engines: falkordb (no neo4j: {where})"
    )


_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: object) -> None:
    """Refuse connections to anything but loopback and Unix sockets: no test reaches the network."""
    if self.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple):
        host = str(address[0])
        if not (host.startswith("127.") or host in {"::1", "localhost"}):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
    _real_connect(self, address)  # type: ignore[arg-type]  # address is what socket accepts


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only `shared/` folder with benchmark data."""
    return SHARED


@pytest.fixture(scope="session")
def embedded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    """One embedded FalkorDB server for the whole test session."""
    data = tmp_path_factory.mktemp("falkordb")
    server = EmbeddedServer(EmbeddedSettings(data_dir=data))
    server.start()
    yield server
    server.stop()


@pytest.fixture(params=list(ENGINES))
def graph_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphSettings]:
    """Settings of an empty graph for this test, on each engine (see `tests/engines.py`).

    FalkorDB: a graph key unique to the test on the session's embedded server. Neo4j: the one
    database, migrated once per session and wiped before and after the test.
    """
    yield from settings_for(request.param, request, tmp_path)


@pytest.fixture
async def graph_db(graph_settings: GraphSettings) -> AsyncIterator[GraphDB]:
    """A migrated, empty graph on the test's engine, removed after the test."""
    db = make_test_db(graph_settings)
    await migrate(db)
    yield db
    await drop_test_db(db)
    await db.close()
