"""MCP over stdio, end to end: a real server process, driven by the `mcp` client."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[3]


def _payload(result) -> dict:
    if getattr(result, "structured_content", None):
        data = result.structured_content
    elif getattr(result, "structuredContent", None):
        data = result.structuredContent
    else:
        data = json.loads(result.content[0].text)
    return data.get("result", data) if isinstance(data, dict) else data


async def test_mcp_tools_over_stdio(graph_settings, seeded, keys, tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if k.startswith(("PATH", "HOME", "HF_", "TRANS"))},
        "PYTHONPATH": str(ROOT),
        "TOKENIZERS_PARALLELISM": "false",
        "REMGRAPH_ENV": "test",
        "REMGRAPH_ENGINE": "falkordb",
        "REMGRAPH_GRAPH_NAME": graph_settings.graph_name,
        "REMGRAPH_FALKORDB__UNIX_SOCKET": str(graph_settings.falkordb.unix_socket),
        "REMGRAPH_API_KEY": keys["alpha"],
    }
    params = StdioServerParameters(
        # `remgraph mcp`: the composition root wires the real ingest pipeline and REM cycle
        command=sys.executable,
        args=["-m", "remgraph", "mcp"],
        env=env,
        cwd=str(tmp_path),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        assert tools >= {"context", "search", "ingest_turns", "record_feedback"}

        ctx = _payload(
            await session.call_tool(
                "context", {"query": "When did Caroline go to the support group?", "limit": 3}
            )
        )
        assert ctx["__typename"] == "ContextPayload"
        assert ctx["items"][0]["id"] == "trn_alpha_0"

        hits = _payload(await session.call_tool("search", {"query": "launch code tangerine"}))
        assert all(n["turn"]["project"] == "alpha" for n in hits["nodes"])

        out = _payload(
            await session.call_tool(
                "ingest_turns",
                {
                    "project": "alpha",
                    "session_key": "mcp-1",
                    "turns": [
                        {"role": "user", "text": "The staging database lives on host walrus."}
                    ],
                },
            )
        )
        assert out["__typename"] == "IngestTurnsPayload"
        assert out["added"] == 1

        fb = _payload(
            await session.call_tool(
                "record_feedback", {"project": "alpha", "item_id": "les_alpha", "signal": "helpful"}
            )
        )
        assert fb.get("helpfulCount") == 1, fb

        denied = _payload(await session.call_tool("context", {"query": "x", "project": "beta"}))
        assert denied["__typename"] == "Forbidden"
