"""Drive a real `remgraph mcp` process over stdio with the `mcp` client library (tests)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[2]


def mcp_payload(result: Any) -> Any:
    """The JSON a tool call returned (its `result` member when it has one)."""
    assert not result.is_error, result.content
    if getattr(result, "structured_content", None):
        data = result.structured_content
    else:
        data = json.loads(result.content[0].text)
    return data.get("result", data) if isinstance(data, dict) else data


def mcp_env(graph_settings: Any, key: str, **extra: str) -> dict[str, str]:
    """Environment of a `remgraph mcp` process on the test's embedded graph with `key`."""
    return {
        **{k: v for k, v in os.environ.items() if k.startswith(("PATH", "HOME", "HF_", "TRANS"))},
        "PYTHONPATH": str(ROOT),
        "TOKENIZERS_PARALLELISM": "false",
        "REMGRAPH_ENV": "test",
        "REMGRAPH_ENGINE": graph_settings.engine.value,
        "REMGRAPH_GRAPH_NAME": graph_settings.graph_name,
        "REMGRAPH_FALKORDB__UNIX_SOCKET": str(graph_settings.falkordb.unix_socket),
        # the Neo4j leg (tests/engines.py): ignored when the engine is falkordb
        "REMGRAPH_NEO4J__URI": graph_settings.neo4j.uri,
        "REMGRAPH_NEO4J__USER": graph_settings.neo4j.user,
        "REMGRAPH_NEO4J__PASSWORD": graph_settings.neo4j.password.get_secret_value(),
        "REMGRAPH_API_KEY": key,
        **extra,
    }


@contextlib.asynccontextmanager
async def mcp_session(env: dict[str, str], cwd: Path) -> AsyncIterator[ClientSession]:
    """An initialised MCP client session on a fresh `remgraph mcp` process."""
    params = StdioServerParameters(
        # `remgraph mcp`: the composition root wires the real ingest pipeline and REM cycle
        command=sys.executable,
        args=["-m", "remgraph", "mcp"],
        env=env,
        cwd=str(cwd),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session
