"""MCP over stdio, end to end: a real `remgraph mcp` process, driven by the `mcp` client library."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from api.mcp import TOOLS
from graph.models import Correction, Finding, utc_now
from graph.repositories.api_keys import ApiKeyRepository
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.findings import FindingRepository
from tests.support.mcp import mcp_env as _env
from tests.support.mcp import mcp_payload as _payload
from tests.support.mcp import mcp_session as _session


async def _seed_rule_and_finding(db) -> None:
    now = utc_now()
    await CorrectionRepository(db).upsert_many(
        [
            Correction(
                id="cor_alpha_rule",
                project="alpha",
                status="rule",
                rule_text="Always run the linter before committing",
                confidence=0.9,
                valid_from=now,
                recorded_at=now,
                last_seen=now,
            )
        ]
    )
    await FindingRepository(db).upsert_many(
        [
            Finding(
                id="fnd_alpha_1",
                project="alpha",
                job="duplicates",
                run_id="run_1",
                kind="near_duplicate",
                title="Two lessons say the same",
                target_ids=("les_alpha",),
                proposed_action="merge",
            )
        ]
    )


async def test_mcp_tools_over_stdio(graph_settings, graph_db, seeded, keys, tmp_path):
    await _seed_rule_and_finding(graph_db)
    async with _session(_env(graph_settings, keys["alpha"]), tmp_path) as session:
        tools = {t.name for t in (await session.list_tools()).tools}
        assert tools == set(TOOLS)

        ctx = _payload(
            await session.call_tool(
                "context", {"query": "When did Caroline go to the support group?", "limit": 3}
            )
        )
        assert ctx["__typename"] == "ContextPayload"
        # rules first: the project's rules on it, then the evidence turn
        assert ctx["items"][0]["kind"] == "CORRECTION"
        assert next(i["id"] for i in ctx["items"] if i["kind"] == "TURN") == "trn_alpha_0"

        hits = _payload(await session.call_tool("search", {"query": "launch code tangerine"}))
        assert all(n["turn"]["project"] == "alpha" for n in hits["nodes"])

        rules = _payload(await session.call_tool("rules", {"project": "alpha"}))
        assert rules["__typename"] == "RulesPayload"
        assert [(r["id"], r["status"], r["text"]) for r in rules["items"]] == [
            ("cor_alpha_rule", "rule", "Always run the linter before committing")
        ]

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

        status = _payload(await session.call_tool("rem_status", {"project": "alpha"}))
        assert status["__typename"] == "RemPayload"
        assert {i["job"] for i in status["items"]} >= {"graduation", "communities", "rollups"}

        found = _payload(await session.call_tool("findings", {"project": "alpha"}))
        assert [f["id"] for f in found["items"]] == ["fnd_alpha_1"]

        for tool, args in {
            "context": {"query": "x", "project": "beta"},
            "rules": {"project": "beta"},
            "rem_status": {"project": "beta"},
            "findings": {"project": "beta"},
        }.items():
            denied = _payload(await session.call_tool(tool, args))
            assert denied["__typename"] == "Forbidden", (tool, denied)


async def test_mcp_stops_serving_a_revoked_key(graph_settings, graph_db, seeded, tmp_path):
    repo = ApiKeyRepository(graph_db)
    key, secret = await repo.create("agent", ["alpha"])
    env = _env(graph_settings, secret, REMGRAPH_API__KEY_CACHE_S="0.5")
    async with _session(env, tmp_path) as session:
        ok = _payload(await session.call_tool("rules", {}))
        assert ok["__typename"] == "RulesPayload"
        await repo.revoke(key.id)
        revoked_at = time.monotonic()
        await asyncio.sleep(0.6)  # past the key cache, as HTTP requests would be
        refused = await session.call_tool("context", {"query": "support group"})
        assert refused.is_error
        assert "revoked" in refused.content[0].text
        assert time.monotonic() - revoked_at < 30


@pytest.mark.parametrize("key", ["rg_unknown", ""])
async def test_mcp_refuses_to_start_without_a_valid_key(graph_settings, tmp_path, key):
    env = _env(graph_settings, key)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "remgraph",
        "mcp",
        env=env,
        cwd=str(tmp_path),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(b""), timeout=120)
    assert proc.returncode != 0
    assert ("unknown or revoked" if key else "set REMGRAPH_API_KEY") in err.decode()
