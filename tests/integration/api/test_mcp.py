"""MCP over stdio, end to end: a real `remgraph mcp` process, driven by the `mcp` client library."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from api.mcp import TOOLS
from core.text import estimate_tokens
from graph.models import Correction, Finding, utc_now
from graph.repositories.api_keys import ApiKeyRepository
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.findings import FindingRepository
from tests.support.mcp import mcp_env as _env
from tests.support.mcp import mcp_payload as _payload
from tests.support.mcp import mcp_session as _session


def _text(result) -> str:
    assert not result.is_error, result.content
    return result.content[0].text


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

        ask = {"query": "When did Caroline go to the support group?", "limit": 3}
        ctx = _payload(await session.call_tool("context", {**ask, "format": "json"}))
        assert ctx["__typename"] == "ContextPayload"
        assert next(i["id"] for i in ctx["items"] if i["kind"] == "TURN") == "trn_alpha_0"
        # by default one line per item: rank, kind, date, id (and session for a turn), text
        text = _text(await session.call_tool("context", ask))
        head, *lines = text.splitlines()
        assert head.startswith(f"{len(ctx['items'])} items, answerable ")
        assert len(lines) == len(ctx["items"])
        turn = next(ln for ln in lines if "trn_alpha_0" in ln)
        assert "TURN" in turn
        assert "session ses_alpha" in turn
        assert "2023-05-08" in turn
        assert "why:" not in text
        assert "why: fused" in _text(await session.call_tool("context", {**ask, "why": True}))

        hits = _payload(
            await session.call_tool("search", {"query": "launch code tangerine", "format": "json"})
        )
        assert all(n["turn"]["project"] == "alpha" for n in hits["nodes"])
        found_text = _text(await session.call_tool("search", {"query": "launch code tangerine"}))
        assert found_text.splitlines()[0] == f"{len(hits['nodes'])} turns"

        rules = _payload(await session.call_tool("rules", {"project": "alpha", "format": "json"}))
        assert rules["__typename"] == "RulesPayload"
        assert [(r["id"], r["status"], r["text"]) for r in rules["items"]] == [
            ("cor_alpha_rule", "rule", "Always run the linter before committing")
        ]
        assert _text(await session.call_tool("rules", {"project": "alpha"})) == (
            "1 rules in force\n1. rule (cor_alpha_rule): Always run the linter before committing"
        )

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
            "context": {"query": "x", "project": "beta", "format": "json"},
            "rules": {"project": "beta", "format": "json"},
            "rem_status": {"project": "beta"},
            "findings": {"project": "beta"},
        }.items():
            denied = _payload(await session.call_tool(tool, args))
            assert denied["__typename"] == "Forbidden", (tool, denied)
        # as text, an error is one line naming what and where
        for tool in ("context", "rules"):
            args = {"query": "x", "project": "beta"} if tool == "context" else {"project": "beta"}
            refused = await session.call_tool(tool, args)
            assert refused.is_error
            line = refused.content[0].text
            # the MCP library names the tool; the rest is ours
            assert line.startswith(f"Error executing tool {tool}: Forbidden (beta): "), line
            assert "\n" not in line
        missing = await session.call_tool("context", {"limit": "many"})
        assert missing.is_error
        assert missing.content[0].text == (
            "context: missing `query`; `limit`: Input should be a valid integer, unable to parse "
            "string as an integer"
        )
        bad = await session.call_tool("context", {"query": "x", "format": "yaml"})
        assert bad.is_error
        assert bad.content[0].text.endswith(": format: 'yaml' is not one of text, json")


async def test_mcp_context_text_stays_within_its_token_budget(
    graph_settings, graph_db, seeded, keys, tmp_path
):
    """What the agent reads is sized by `token_budget` (characters / 4), and a small fraction of
    the JSON form of the same answer."""
    async with _session(_env(graph_settings, keys["alpha"]), tmp_path) as session:
        for budget in (40, 120, 600):
            ask = {"query": "support group painting adoption", "token_budget": budget}
            text = _text(await session.call_tool("context", ask))
            assert estimate_tokens(text) <= budget, (budget, text)
            assert text.count("\n") >= 1  # at least one item fits
        as_json = await session.call_tool("context", {**ask, "format": "json"})
        assert len(text) * 3 < len(as_json.content[0].text)


async def test_mcp_stops_serving_a_revoked_key(graph_settings, graph_db, seeded, tmp_path):
    repo = ApiKeyRepository(graph_db)
    key, secret = await repo.create("agent", ["alpha"])
    env = _env(graph_settings, secret, REMGRAPH_API__KEY_CACHE_S="0.5")
    async with _session(env, tmp_path) as session:
        ok = _payload(await session.call_tool("rules", {"format": "json"}))
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
    assert proc.returncode == 2
    lines = [ln for ln in err.decode().splitlines() if ln.strip()]
    # one line, no traceback (model-loading chatter on stderr aside)
    assert [ln for ln in lines if ln.startswith("error:")] == [
        "error: REMGRAPH_API_KEY is unknown or revoked"
        if key
        else "error: set REMGRAPH_API_KEY (a key from `remgraph keys create`) or enable "
        "REMGRAPH_API__ANONYMOUS_DEV in dev"
    ]
    assert not any("Traceback" in ln for ln in lines)
