"""`remgraph.client` against the real app on the embedded engine, over real HTTP (uvicorn)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from graph.models import Correction, utc_now
from graph.repositories.corrections import CorrectionRepository
from remgraph.client import (
    AsyncClient,
    AuthenticationError,
    Client,
    ContextResult,
    ForbiddenError,
    InvalidInputError,
    Message,
    NotFoundError,
    RulesResult,
)
from tests.integration.api.live import live_api  # noqa: F401  # fixture
from tests.shared_embedder import shared_local_embedder


@pytest.fixture
async def with_rule(graph_db) -> None:
    now = utc_now()
    text = "Mention the support group when planning weekends"
    (vec,) = await shared_local_embedder().embed([text])
    await CorrectionRepository(graph_db).upsert_many(
        [
            Correction(
                id="cor_alpha_rule",
                project="alpha",
                status="rule",
                rule_text=text,
                confidence=0.8,
                valid_from=now,
                recorded_at=now,
                last_seen=now,
                embedding=vec,
            )
        ]
    )


def test_sync_client_agent_loop(live_api, keys, with_rule):  # noqa: F811
    """The documented agent loop: rules, context, work, append the turns, report feedback."""
    with Client(live_api.url, key=keys["alpha"]) as memory:
        rules = memory.rules("alpha")
        assert isinstance(rules, RulesResult)
        assert [r.text for r in rules.items] == ["Mention the support group when planning weekends"]
        assert rules.items[0].status == "rule"
        assert rules.items[0].effective_weight == pytest.approx(0.8, rel=1e-3)

        ctx = memory.context(
            "Plan Caroline's weekend around the support group", project="alpha", limit=5
        )
        assert isinstance(ctx, ContextResult)
        # the project's rule on planning weekends stands out from its other rules by meaning and
        # opens the answer, then what is known (a fact other tests of this module distilled from the
        # evidence turn goes first), the turn
        turns = [i for i in ctx.items if i.kind == "TURN"]
        assert ctx.items[0].kind == "CORRECTION"
        assert turns[0].id == "trn_alpha_0"
        assert turns[0].provenance.session_id == "ses_alpha"
        assert {s.name for s in turns[0].why} >= {"fused"}
        assert 0 < ctx.answerable <= 1  # the named speaker said it: something is known
        assert {s.name for s in ctx.answerable_why} >= {"coverage"}
        assert ctx.total_tokens == sum(i.tokens for i in ctx.items)

        turns = [
            Message(role="user", text="Plan my weekend around the support group."),
            {"role": "assistant", "text": "Saturday: support group at 10, then painting."},
        ]
        out = memory.ingest_turns("alpha", "client-1", turns, title="weekend")
        assert out.added == 2
        assert len(out.turn_ids) == 2
        again = memory.ingest_turns("alpha", "client-1", turns, title="weekend")
        assert again.added == 0
        assert again.turn_ids == out.turn_ids

        page = memory.sessions("alpha", first=10)
        assert out.session_id in {s.id for s in page.items}
        assert {s.project for s in page.items} == {"alpha"}

        fb = memory.record_feedback("alpha", "les_alpha", "helpful")
        assert (fb.id, fb.usage_count, fb.helpful_count) == ("les_alpha", 1, 1)

        hits = memory.search("launch code tangerine", mode="fulltext")
        assert all(h.turn is not None and h.turn.project == "alpha" for h in hits)


def test_sync_client_raises_typed_errors(live_api, keys):  # noqa: F811
    with Client(live_api.url, key=keys["alpha"]) as memory:
        with pytest.raises(ForbiddenError) as forbidden:
            memory.context("launch code", project="beta")
        assert forbidden.value.project == "beta"
        with pytest.raises(InvalidInputError) as invalid:
            memory.rules(limit=0)
        assert invalid.value.field == "limit"
        with pytest.raises(NotFoundError):
            memory.record_feedback("alpha", "les_nothing", "used")
    with Client(live_api.url, key="rg_not_a_key") as stranger, pytest.raises(AuthenticationError):
        stranger.rules()


async def test_async_client_reads_and_writes(live_api, keys, with_rule):  # noqa: F811
    async with AsyncClient(live_api.url + "/graphql", key=keys["alpha"]) as memory:
        rules, ctx, sessions = await asyncio.gather(
            memory.rules(),
            memory.context("support group", project="alpha", token_budget=200),
            memory.sessions(first=1),
        )
        assert [r.id for r in rules.items] == ["cor_alpha_rule"]
        assert ctx.total_tokens <= 200
        assert len(sessions.items) == 1
        out = await memory.ingest_turns(
            "alpha", "client-async", [{"role": "user", "text": "Book the pottery class."}]
        )
        assert out.added == 1
        with pytest.raises(ForbiddenError):
            await memory.sessions("beta")
    async with AsyncClient(live_api.url, key=keys["beta"]) as other:
        assert (await other.rules()).items == []  # alpha's rule never reaches beta's key


def test_the_documented_agent_loop_runs_as_written(live_api, keys, with_rule):  # noqa: F811
    page = (Path(__file__).resolve().parents[3] / "docs" / "agents.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", page, re.S) if "def run_task" in b)
    code = block.replace('"http://127.0.0.1:8765", key="rg_..."', f'"{live_api.url}", key=KEY')
    assert code != block, "the docs/agents.md loop no longer names the URL and key this test swaps"
    code = code.replace('"myproj"', '"alpha"')  # the seeded project
    scope: dict = {"KEY": keys["alpha"]}
    exec(compile(code, "docs/agents.md", "exec"), scope)
    prompts: list[str] = []

    def llm(prompt: str) -> str:
        prompts.append(prompt)
        return "Saturday: the support group, then painting."

    answer = scope["run_task"]("Plan my weekend", llm)
    assert answer == "Saturday: the support group, then painting."
    [prompt] = prompts
    assert "- Mention the support group when planning weekends" in prompt
    with Client(live_api.url, key=keys["alpha"]) as memory:
        titles = [s.id for s in memory.sessions("alpha", first=50).items]
    assert len(titles) == 2  # the seeded session and the one the loop appended


def test_the_readme_example_runs_as_written(live_api, keys, with_rule, capsys):  # noqa: F811
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "Client(" in b)
    code = block.replace('"http://127.0.0.1:8765", key="rg_..."', f'"{live_api.url}", key=KEY')
    assert code != block, "the README example no longer names the URL and key this test swaps"
    code = code.replace('"myproj"', '"alpha"').replace("how do we deploy?", "support group")
    exec(compile(code, "README.md", "exec"), {"KEY": keys["alpha"]})
    printed = capsys.readouterr().out
    assert "Mention the support group when planning weekends" in printed  # the seeded rule
