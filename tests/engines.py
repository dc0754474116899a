"""Engine fixtures: every engine-facing integration test runs on the embedded FalkorDB and on Neo4j.

`graph_settings` (and so `graph_db` and everything built on them) is parametrised over the engines:
`[falkordb]` always, `[neo4j]` when a Neo4j server is configured (`REMGRAPH_NEO4J__URI` or
`NEO4J_URI`, e.g. from `../shared/neo4j/neo4j-test-server env`) or a Docker engine answers
(testcontainers, pinned `neo4j:5.26` image). Without either, the Neo4j leg is left out at collection
and the header of the run says why (`pytest_report_header`).

FalkorDB gives each test a graph key of its own. Neo4j Community has one database: it is migrated
once per test session and wiped (everything but the migration records) before and after each test.
A test that is about the embedded engine itself (its process, its files, `DUMP`) carries
`@pytest.mark.falkordb_only`, which leaves its Neo4j leg out.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from graph.config import Engine, GraphSettings
from graph.cypher import Dialect, Q, registry
from graph.db import GraphDB
from graph.engines.falkordb import FalkorDBGraph
from graph.migrate import migrate

NEO4J_IMAGE = "neo4j:5.26"
_WIPE = "admin.wipe"
ENGINES = ("falkordb", "neo4j")


def _docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _env_conn() -> tuple[str, str, str] | None:
    uri = os.environ.get("REMGRAPH_NEO4J__URI") or os.environ.get("NEO4J_URI")
    if not uri:
        return None
    user = os.environ.get("REMGRAPH_NEO4J__USER") or os.environ.get("NEO4J_USER", "neo4j")
    pw = os.environ.get("REMGRAPH_NEO4J__PASSWORD") or os.environ.get("NEO4J_PASSWORD", "")
    return uri, user, pw


@cache
def neo4j_leg() -> tuple[bool, str]:
    """(whether the Neo4j leg runs, why or where)."""
    if os.environ.get("REMGRAPH_TEST_ENGINES", "").strip() == "falkordb":
        return False, "REMGRAPH_TEST_ENGINES=falkordb"
    conn = _env_conn()
    if conn is not None:
        return True, conn[0]
    if _docker_answers():
        return True, f"testcontainers {NEO4J_IMAGE}"
    return False, "no REMGRAPH_NEO4J__URI (or NEO4J_URI) and no Docker engine"


@pytest.fixture(scope="session")
def neo4j_conn() -> Iterator[tuple[str, str, str]]:
    """(uri, user, password) of a Neo4j server, or skip naming why there is none."""
    conn = _env_conn()
    if conn is not None:
        yield conn
        return
    if not _docker_answers():
        pytest.skip("no Neo4j: set REMGRAPH_NEO4J__URI (or NEO4J_URI) or run a Docker engine")
    from testcontainers.neo4j import Neo4jContainer

    with Neo4jContainer(NEO4J_IMAGE, password="remgraph-test-pw") as c:
        yield c.get_connection_url(), "neo4j", "remgraph-test-pw"


def _neo4j_db(conn: tuple[str, str, str]) -> GraphDB:
    from graph.engines.neo4j import Neo4jGraph

    uri, user, pw = conn
    return Neo4jGraph(uri=uri, user=user, password=pw)


async def _migrate_and_wipe(conn: tuple[str, str, str], *, migrate_first: bool) -> None:
    db = _neo4j_db(conn)
    try:
        if migrate_first:
            await migrate(db)
        await db.autocommit(Q(_WIPE))
    finally:
        await db.close()


@pytest.fixture(scope="session")
def neo4j_migrated(neo4j_conn: tuple[str, str, str]) -> tuple[str, str, str]:
    """The Neo4j server, migrated once for the whole session and wiped."""
    asyncio.run(_migrate_and_wipe(neo4j_conn, migrate_first=True))
    return neo4j_conn


def wipe_neo4j(conn: tuple[str, str, str]) -> None:
    """Delete everything but the migration records (synchronous: usable from any fixture)."""
    asyncio.run(_migrate_and_wipe(conn, migrate_first=False))


def engine_of(request: pytest.FixtureRequest) -> str:
    return str(getattr(request, "param", "falkordb"))


def engine_env(settings: GraphSettings) -> dict[str, str]:
    """Environment variables that point a `remgraph` process at the test's graph on its engine."""
    env = {
        "REMGRAPH_ENGINE": settings.engine.value,
        "REMGRAPH_GRAPH_NAME": settings.graph_name,
    }
    if settings.engine is Engine.NEO4J:
        env |= {
            "REMGRAPH_NEO4J__URI": settings.neo4j.uri,
            "REMGRAPH_NEO4J__USER": settings.neo4j.user,
            "REMGRAPH_NEO4J__PASSWORD": settings.neo4j.password.get_secret_value(),
        }
    else:
        env["REMGRAPH_FALKORDB__UNIX_SOCKET"] = str(settings.falkordb.unix_socket)
    return env


def set_engine_env(monkeypatch: pytest.MonkeyPatch, settings: GraphSettings) -> None:
    """`engine_env` applied to this process with `monkeypatch`."""
    for k, v in engine_env(settings).items():
        monkeypatch.setenv(k, v)


def make_test_db(settings: GraphSettings) -> GraphDB:
    """An adapter on the test's graph (FalkorDB key or the Neo4j database)."""
    if settings.engine is Engine.NEO4J:
        n = settings.neo4j
        return _neo4j_db((n.uri, n.user, n.password.get_secret_value()))
    return FalkorDBGraph(
        graph_name=settings.graph_name, unix_socket=str(settings.falkordb.unix_socket)
    )


async def drop_test_db(db: GraphDB) -> None:
    """Remove what a test wrote: drop the FalkorDB key, or wipe the Neo4j database."""
    if isinstance(db, FalkorDBGraph):
        await db.drop()
    else:
        await db.autocommit(Q(_WIPE))


def settings_for(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[GraphSettings]:
    """The body of `graph_settings` (see `tests/conftest.py`)."""
    name = f"t{uuid.uuid4().hex[:12]}"
    if engine == "falkordb":
        server = request.getfixturevalue("embedded_server")
        yield GraphSettings(
            engine=Engine.FALKORDB,
            graph_name=name,
            falkordb={"unix_socket": server.socket_path},
            embedded={"data_dir": tmp_path / "unused"},
            _env_file=None,  # type: ignore[call-arg]  # pydantic-settings init kwarg
        )
        return
    conn: tuple[str, str, str] = request.getfixturevalue("neo4j_migrated")
    uri, user, pw = conn
    wipe_neo4j(conn)
    yield GraphSettings(
        engine=Engine.NEO4J,
        graph_name=name,
        neo4j={"uri": uri, "user": user, "password": pw},
        embedded={"data_dir": tmp_path / "unused"},
        _env_file=None,  # type: ignore[call-arg]  # pydantic-settings init kwarg
    )
    wipe_neo4j(conn)


@pytest.fixture(scope="module")
def both_engines(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[GraphSettings, GraphSettings]]:
    """Settings of an empty graph on FalkorDB and on Neo4j at once, for tests that compare them.

    Skips, naming why, when the Neo4j leg does not run (`neo4j_leg`). The Neo4j database is wiped
    before and after the module; the FalkorDB graph key is the module's own.
    """
    runs, why = neo4j_leg()
    if not runs:
        pytest.skip(f"comparing engines needs Neo4j: {why}")
    tmp = tmp_path_factory.mktemp("engines")
    settings = []
    for engine in ENGINES:
        gen = settings_for(engine, request, tmp)
        settings.append((gen, next(gen)))
    try:
        yield settings[0][1], settings[1][1]
    finally:
        for gen, _ in settings:
            next(gen, None)  # runs the code after the yield (the Neo4j wipe)


@pytest.fixture
async def any_db(graph_settings: GraphSettings) -> AsyncIterator[GraphDB]:
    """A migrated empty graph on each engine (the contract suites' name for `graph_db`)."""
    db = make_test_db(graph_settings)
    await migrate(db)
    yield db
    await drop_test_db(db)
    await db.close()


def neo4j_text(name: str) -> str:
    """The Neo4j text of a named query (for tests that run guide text directly)."""
    return registry().get(name, Dialect.NEO4J).text


def deselect_neo4j(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out Neo4j legs when no Neo4j is available, and those of `falkordb_only` tests."""
    runs, _ = neo4j_leg()
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        callspec: Any = getattr(item, "callspec", None)
        on_neo4j = callspec is not None and "neo4j" in callspec.id.split("-")
        if on_neo4j and (not runs or item.get_closest_marker("falkordb_only")):
            dropped.append(item)
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


async def run_text(db: GraphDB, text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Run Cypher text as is, as Neo4j Browser would (guides are not registry queries).

    Nodes and relationships come back with `.properties` on both engines.
    """
    if isinstance(db, FalkorDBGraph):
        from graph.engines.falkordb import params_header

        res = await db._graph.ro_query(params_header(params) + text)
        cols = [h[1] for h in res.header]
        return [dict(zip(cols, row, strict=True)) for row in res.result_set]
    records, _, _ = await db._driver.execute_query(text, params)  # type: ignore[attr-defined]
    return [
        {k: _Props(dict(v.items())) if hasattr(v, "element_id") else v for k, v in r.items()}
        for r in records
    ]


class _Props:
    """A Neo4j node or relationship seen as FalkorDB's client shows one: `.properties`."""

    def __init__(self, properties: dict[str, Any]) -> None:
        self.properties = properties
