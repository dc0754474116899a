"""Every Neo4j Browser guide in `cypher/browser/` runs on each engine against a graph built
by the real pipeline (ingest + extraction + a REM cycle) and finds what it is meant to show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from consolidate.runner import run_job
from core.timeutil import OPEN
from graph.db import GraphDB
from graph.explore import browser_queries, instructions
from graph.repositories.context_queries import ContextItemRef, ContextQueryRepository
from ingest.pipeline import ingest_paths
from remgraph.settings import Settings
from remgraph.wiring import extraction_hooks
from tests.engines import run_text
from tests.shared_embedder import shared_local_embedder

ROOT = Path(__file__).resolve().parents[3]


async def _run(db: GraphDB, text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    # Guides are documentation for Neo4j Browser, not registry queries: run their text as is.
    return await run_text(db, text, params)


@pytest.fixture
async def built(graph_db: GraphDB, graph_settings) -> GraphDB:
    settings = Settings(**graph_settings.model_dump())
    emb = shared_local_embedder()
    report = await ingest_paths(
        graph_db,
        settings,
        [ROOT / "samples" / "generic" / "webapp.jsonl"],
        hooks=extraction_hooks(graph_db, settings, emb),
        embedder=emb,
    )
    assert report.turns_new == 35
    for job in ("graduation", "communities"):
        rep = await run_job(job, db=graph_db, settings=settings, project="webapp")
        assert rep.status == "succeeded", rep
    return graph_db


async def _one(db: GraphDB, label: str, prop: str = "id") -> str:
    rows = await _run(db, f"MATCH (n:{label}) RETURN n.{prop} AS v ORDER BY v LIMIT 1", {})
    assert rows, f"the pipeline wrote no {label}"
    return str(rows[0]["v"])


async def test_every_guide_runs_and_shows_its_subject(built: GraphDB) -> None:
    db = built
    session_id = await _one(db, "Session")
    topic_rows = await _run(
        db,
        "MATCH (t:Topic)<-[:MENTIONS]-(:Turn)<-[:DERIVED_FROM]-(k) WHERE k:Lesson OR k:Correction "
        "RETURN t.id AS v LIMIT 1",
        {},
    )
    correction_id = await _one(db, "Correction")
    turn_ids = [
        r["v"]
        for r in await _run(
            db,
            "MATCH (t:Turn) WHERE t.text CONTAINS 'pnpm' RETURN t.id AS v ORDER BY v LIMIT 2",
            {},
        )
    ]
    await ContextQueryRepository(db).record(
        project="webapp",
        query="which package manager do we use?",
        items=[ContextItemRef(t, "turn", n, 1.0 / n) for n, t in enumerate(turn_ids, start=1)],
    )
    params = {
        "session_id": session_id,
        "topic_id": topic_rows[0]["v"] if topic_rows else await _one(db, "Topic"),
        "correction_id": correction_id,
        "project": "webapp",
        "as_of": OPEN - 1,
        "known_at": OPEN - 1,
        "query_text": "package manager",
    }
    guides = {q.name: q for q in browser_queries()}
    assert set(guides) >= {
        "session_timeline",
        "topic_knowledge",
        "correction_history",
        "facts_as_of",
        "communities",
        "context_for_query",
    }
    results = {}
    for name, q in guides.items():
        assert set(q.params) <= set(params), f"{name} needs {q.params}"
        results[name] = await _run(db, q.text, {p: params[p] for p in q.params})
    assert len(results["session_timeline_table"]) >= 6
    ordinals = [r["ordinal"] for r in results["session_timeline_table"]]
    assert ordinals == sorted(ordinals)
    assert results["session_timeline"]
    assert results["correction_history"]
    rules = results["correction_status_table"]
    assert any("pnpm" in (r["rule"] or "").lower() for r in rules)
    assert results["facts_as_of"]
    assert results["communities"]
    got = results["context_for_query"]
    assert {r["g"].properties["rank"] for r in got} == {1, 2}


async def test_explore_instructions_name_every_guide_and_the_style_sheet() -> None:
    text = instructions("http://127.0.0.1:7474")
    assert "remgraph.grass" in text
    for q in browser_queries():
        assert q.name in text
    grass = (ROOT / "cypher" / "browser" / "remgraph.grass").read_text()
    for label in ("Session", "Turn", "Topic", "Lesson", "Correction", "Fact", "Community"):
        assert f"node.{label} " in grass
