"""Shared fixtures: markers by directory, a network guard, and the embedded engine.

One embedded FalkorDB server runs per test session (in a temporary data directory, on a Unix
socket); each test gets its own freshly migrated graph (a separate FalkorDB key), so tests never see
each other's data and need no wipe.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from graph.config import EmbeddedSettings, Engine, GraphSettings
from graph.embedded import EmbeddedServer
from graph.engines.falkordb import FalkorDBGraph
from graph.migrate import migrate

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


@pytest.fixture
def graph_settings(embedded_server: EmbeddedServer, tmp_path: Path) -> GraphSettings:
    """Settings pointing at the session's server, with a graph name unique to this test."""
    return GraphSettings(
        engine=Engine.FALKORDB,
        graph_name=f"t{uuid.uuid4().hex[:12]}",
        falkordb={"unix_socket": embedded_server.socket_path},
        embedded={"data_dir": tmp_path / "unused"},
    )


@pytest.fixture
async def graph_db(graph_settings: GraphSettings) -> AsyncIterator[FalkorDBGraph]:
    """A migrated, empty graph on the embedded engine, dropped after the test."""
    db = FalkorDBGraph(
        graph_name=graph_settings.graph_name, unix_socket=str(graph_settings.falkordb.unix_socket)
    )
    await migrate(db)
    yield db
    await db.drop()
    await db.close()


@pytest.fixture(scope="session")
def engine_kind() -> Engine:
    return Engine.FALKORDB
