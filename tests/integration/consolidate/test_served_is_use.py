"""Serving is use: `rem run --auto` never archives what `context` or `rules` just served.

The failure this holds off, as a user measured it: three corrections recorded 42 days ago, two of
them served by `context` (2 and 6 times) minutes before `remgraph rem run --all --auto`, which
archived both as "never retrieved in 42 days" because staleness counted only explicit feedback.
Here the corrections are served through the real app (GraphQL, which the MCP tools and the hooks'
readers share), the recorder is flushed, then the staleness job and `--auto` run: the served ones
stay, the one never served is archived.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.config import ApiSettings
from api.services import ApiServices
from consolidate.actions import apply_recommended
from consolidate.config import ConsolidateSettings
from consolidate.runner import run_job
from core.timeutil import to_ms
from graph.config import GraphSettings
from graph.db import GraphDB
from graph.models import Correction, Finding, utc_now
from graph.repositories.api_keys import ApiKeyRepository
from graph.repositories.context_queries import ContextQueryRepository
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.findings import FindingRepository
from graph.repositories.rem_actions import RemActionRepository
from tests.shared_embedder import shared_local_embedder

PROJECT = "alpha"
CONTEXT = """query($q: String!, $p: String) {
  context(query: $q, project: $p, kinds: [CORRECTION], limit: 1, tokenBudget: 2000) {
    __typename ... on ContextPayload { items { id kind } } } }"""
RULES = """query($p: String) {
  rules(project: $p) { __typename ... on RulesPayload { items { id } } } }"""


@pytest.fixture
async def app(graph_settings: GraphSettings, graph_db: GraphDB) -> AsyncIterator[Any]:
    """The real app on the test's graph, its lifespan (and so the recorder) running."""
    settings = ApiSettings(
        env="test",
        engine=graph_settings.engine,
        graph_name=graph_settings.graph_name,
        falkordb=graph_settings.falkordb,
        neo4j=graph_settings.neo4j,
        embedded=graph_settings.embedded,
        api={"gc_freeze": False},
    )
    app = create_app(settings, ApiServices(db=graph_db, embedder=shared_local_embedder()))
    async with app.router.lifespan_context(app):
        yield app


@pytest.fixture
async def client(app: Any, graph_db: GraphDB) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """An HTTP client of the app and the secret of a key for `alpha`."""
    _, secret = await ApiKeyRepository(graph_db).create("served", [PROJECT])
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c, secret


async def _gql(client: tuple[httpx.AsyncClient, str], query: str, **variables: Any) -> Any:
    http, secret = client
    r = await http.post(
        "/graphql",
        json={"query": query, "variables": variables},
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert r.status_code == 200, r.text
    return r.json()["data"]


async def _seed(db: GraphDB, at: datetime, **extra: Correction) -> None:
    """Three plain corrections recorded and last seen at `at`, never given feedback."""

    def c(id: str, rule: str, corrected: str) -> Correction:
        return Correction(
            id=id,
            project=PROJECT,
            rule_text=rule,
            corrected_behaviour=corrected,
            valid_from=at,
            recorded_at=at,
            last_seen=at,
        )

    await CorrectionRepository(db).upsert_many(
        [
            c("cor_pnpm", "Install packages with pnpm, never npm.", "install packages with pnpm"),
            c("cor_ruff", "Format Python code with ruff, not black.", "format with ruff"),
            c("cor_tabs", "Indent Makefile recipes with tabs.", "indent recipes with tabs"),
            *extra.values(),
        ]
    )


async def _serve(
    client: tuple[httpx.AsyncClient, str], query: str, expect: str, times: int
) -> None:
    for _ in range(times):
        data = await _gql(client, CONTEXT, q=query, p=PROJECT)
        assert data["context"]["__typename"] == "ContextPayload"
        assert [i["id"] for i in data["context"]["items"]] == [expect]


async def _current(db: GraphDB, ids: list[str], ms: int) -> set[str]:
    return set(await RemActionRepository(db).snapshot(ids, ms))


async def test_auto_never_archives_what_context_served(
    app: Any,
    client: tuple[httpx.AsyncClient, str],
    graph_db: GraphDB,
    rem_settings: ConsolidateSettings,
) -> None:
    now = utc_now()
    await _seed(graph_db, now - timedelta(days=42))
    await _serve(client, "how do I install packages with pnpm", "cor_pnpm", 2)
    await _serve(client, "format Python code with ruff", "cor_ruff", 6)
    await app.state.resources.recorder.flush()

    later = now + timedelta(minutes=5)
    ids = ["cor_pnpm", "cor_ruff", "cor_tabs"]
    served = await ContextQueryRepository(graph_db).served(PROJECT, ids, now_ms=to_ms(later))
    assert {i: s.served_count for i, s in served.items()} == {"cor_pnpm": 2, "cor_ruff": 6}
    assert all(s.last_served_at >= to_ms(now) for s in served.values())

    report = await run_job(
        "staleness", db=graph_db, settings=rem_settings, now=later, project=PROJECT
    )
    assert report.status == "succeeded", report.error
    stale = {
        t
        for f in await FindingRepository(graph_db).list_findings(PROJECT, status="open")
        if f.kind in {"stale", "faded"}
        for t in f.target_ids
    }
    assert stale == {"cor_tabs"}  # served is used: only the never-served one is stale

    auto = await apply_recommended(graph_db, PROJECT, now=later)
    assert [t for f in auto.applied for t in f.target_ids] == ["cor_tabs"]
    assert await _current(graph_db, ids, to_ms(later)) == {"cor_pnpm", "cor_ruff"}


async def test_auto_refuses_a_stale_finding_about_an_item_served_recently(
    app: Any,
    client: tuple[httpx.AsyncClient, str],
    graph_db: GraphDB,
) -> None:
    """A finding made before the serving (or by an older job) is still not applied by `--auto`."""
    now = utc_now()
    await _seed(graph_db, now - timedelta(days=42))
    await _serve(client, "format Python code with ruff", "cor_ruff", 1)
    await app.state.resources.recorder.flush()
    findings = [
        Finding(
            id=f"fnd_{i}",
            project=PROJECT,
            job="staleness",
            run_id="run_old",
            kind="stale",
            title=f"stale correction: {i}",
            target_ids=(i,),
            proposed_action="archive",
            valid_from=now,
            recorded_at=now,
        )
        for i in ("cor_ruff", "cor_tabs")
    ]
    await FindingRepository(graph_db).upsert_many(findings)

    later = now + timedelta(days=29)
    auto = await apply_recommended(graph_db, PROJECT, now=later)
    assert [f.id for f in auto.applied] == ["fnd_cor_tabs"]
    [(left, why)] = auto.left
    assert left.id == "fnd_cor_ruff"
    assert why.startswith("never archived automatically: it was served 29 days ago")
    assert await _current(graph_db, ["cor_ruff", "cor_tabs"], to_ms(later)) == {"cor_ruff"}

    # Past the window the same finding may go.
    again = await apply_recommended(graph_db, PROJECT, now=now + timedelta(days=31))
    assert [f.id for f in again.applied] == ["fnd_cor_ruff"]


async def test_rules_served_count_as_use_and_are_not_recorded_as_queries(
    app: Any,
    client: tuple[httpx.AsyncClient, str],
    graph_db: GraphDB,
) -> None:
    now = utc_now()
    old = now - timedelta(days=42)
    rule = Correction(
        id="cor_rule",
        project=PROJECT,
        rule_text="Run the linter before committing.",
        status="rule",
        valid_from=old,
        recorded_at=old,
        last_seen=old,
    )
    await _seed(graph_db, old, rule=rule)
    data = await _gql(client, RULES, p=PROJECT)
    assert [i["id"] for i in data["rules"]["items"]] == ["cor_rule"]
    await app.state.resources.recorder.flush()

    repo = ContextQueryRepository(graph_db)
    served = await repo.served(PROJECT, ["cor_rule", "cor_tabs"], now_ms=to_ms(utc_now()))
    assert {i: s.served_count for i, s in served.items()} == {"cor_rule": 1}
    assert await repo.recent(PROJECT) == []  # a rules read asks nothing: no recorded query
    assert await repo.served("beta", ["cor_rule"], now_ms=to_ms(utc_now())) == {}


async def test_the_session_start_hook_records_the_rules_it_printed(
    graph_settings: GraphSettings, graph_db: GraphDB
) -> None:
    from remgraph.hooks.runtime import session_start_text
    from remgraph.settings import Settings

    old = utc_now() - timedelta(days=42)
    rule = Correction(
        id="cor_rule",
        project=PROJECT,
        rule_text="Run the linter before committing.",
        status="rule",
        valid_from=old,
        recorded_at=old,
        last_seen=old,
    )
    await _seed(graph_db, old, rule=rule)
    text = await session_start_text(Settings(**graph_settings.model_dump()), PROJECT)
    assert "Run the linter before committing." in text

    repo = ContextQueryRepository(graph_db)
    ids = ["cor_rule", "cor_tabs"]
    served = await repo.served(PROJECT, ids, now_ms=to_ms(utc_now()))
    assert {i: s.served_count for i, s in served.items()} == {"cor_rule": 1}
    assert await repo.recent(PROJECT) == []
