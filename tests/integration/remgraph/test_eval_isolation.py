"""Eval isolation (`remgraph/eval_isolation.py`) for all three evals, on every available engine.

Each eval leaves no trace (the whole-graph fingerprint is equal before and after, also when the
eval fails midway), refuses a project that already has data, and does not read a decoy project
sitting in the same database. The shared-database strategy (Neo4j's) runs on both engines through
`EvalIsolation.sharing`; the engine's own strategy runs through `EvalIsolation.open` (scratch
graphs on FalkorDB, the one shared database on Neo4j). The inputs are made up here and tiny.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from falkordb.asyncio import FalkorDB

from ai.embed import Embedder, Vectors
from api.ports import TurnInput
from graph.config import Engine, GraphSettings
from graph.db import GraphDB
from graph.purge import graph_fingerprint, project_usage, purge_project
from graph.repositories.api_keys import ApiKeyRepository
from ingest.config import IngestSettings
from ingest.pipeline import ingest_paths
from ingest.service import IngestService
from remgraph.eval import EvalSettings, evaluate_locomo
from remgraph.eval_isolation import (
    DatabaseInUseError,
    EvalIsolation,
    IsolationError,
    ProjectInUseError,
)
from remgraph.eval_knowledge import evaluate_knowledge
from remgraph.eval_scenarios import run_scenarios
from remgraph.settings import Settings
from tests.shared_embedder import shared_local_embedder

TURNS = [
    ("Ann", "Hi Bob! I finally adopted a dog last weekend, a beagle called Pepper."),
    ("Bob", "That's lovely news. How is Pepper settling in at your flat?"),
    ("Ann", "Pretty well. She sleeps on the balcony and barks at the trams."),
    ("Bob", "I started learning the cello in March, my teacher is very strict."),
    ("Ann", "The cello! Do you practise every evening after work?"),
    ("Bob", "Every evening for an hour, and on Sundays I play with a small quartet."),
    ("Ann", "My sister moved to Porto for a job at a shipping company."),
    ("Bob", "Porto is beautiful; I went there for a wedding two years ago."),
]
QA = [
    {"question": "What is the name of Ann's dog?", "evidence": ["D1:1"], "category": 1},
    {"question": "Which instrument is Bob learning?", "evidence": ["D1:4"], "category": 1},
    {"question": "When does Bob practise the cello?", "evidence": ["D1:6"], "category": 2},
    {"question": "Where did Ann's sister move?", "evidence": ["D1:7"], "category": 4},
    {"question": "What did Bob say about his guitar teacher?", "evidence": [], "category": 5},
]


def tiny_locomo(path: Path, sample_id: str = "tiny-1") -> Path:
    """One made-up LoCoMo sample: one session of eight turns, five questions, annotations."""
    sample = {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": s, "dia_id": f"D1:{i}", "text": t}
                for i, (s, t) in enumerate(TURNS, start=1)
            ],
        },
        "qa": QA,
        "observation": {
            "session_1_observation": {
                "Ann": [["Ann adopted a beagle called Pepper.", "D1:1"]],
                "Bob": [["Bob is learning the cello.", "D1:4"]],
            }
        },
        "session_summary": {"session_1_summary": "Ann adopted a dog; Bob learns the cello."},
    }
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


class FailingEmbedder:
    """The shared embedder, except that it fails once a text contains `marker`: a midway crash."""

    def __init__(self, marker: str) -> None:
        self._inner: Embedder = shared_local_embedder()
        self._marker = marker

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    @property
    def name(self) -> str:
        return self._inner.name

    def _check(self, texts: Sequence[str]) -> None:
        if any(self._marker in t for t in texts):
            raise RuntimeError("embedder failed midway (test)")

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self._check(texts)
        return await self._inner.embed(texts)

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        self._check(texts)
        return self._inner.embed_sync(texts)


def _eval_settings(graph_settings: GraphSettings) -> EvalSettings:
    return EvalSettings.model_validate(graph_settings.model_dump() | {"_env_file": None})


def _settings(graph_settings: GraphSettings, tmp_path: Path) -> Settings:
    return Settings.model_validate(
        graph_settings.model_dump()
        | {"consolidate": {"report_dir": tmp_path / "reports"}, "_env_file": None}
    )


async def _decoy(db: GraphDB, settings: IngestSettings, file: Path, project: str) -> None:
    """Another project in the same database: the same conversation, ingested as `project`."""
    await ingest_paths(
        db, settings, [file], fmt="locomo", project=project, embedder=shared_local_embedder()
    )


async def _graphs(settings: GraphSettings) -> set[str]:
    """The FalkorDB server's graph keys (none on Neo4j)."""
    if settings.engine is Engine.NEO4J:
        return set()
    client = FalkorDB(unix_socket_path=str(settings.falkordb.unix_socket))
    try:
        return set(await client.list_graphs())
    finally:
        await client.aclose()


# --- the rule itself --------------------------------------------------------------------------


async def test_a_shared_database_refuses_a_project_with_data_and_others_when_alone(
    graph_db: GraphDB, graph_settings: GraphSettings
) -> None:
    await ApiKeyRepository(graph_db).create("someone", ["other"])
    async with (
        await EvalIsolation.sharing(graph_db, graph_settings, alone=True, run="k")
    ).namespace("p"):
        pass  # an API key holds no knowledge: the database counts as empty
    svc = IngestService(graph_db, IngestSettings(_env_file=None), embedder=shared_local_embedder())
    await svc.ingest_turns(
        project="p--eval-r1", session_key="s", turns=[TurnInput(role="user", text="hello")]
    )
    before = await graph_fingerprint(graph_db)
    iso = await EvalIsolation.sharing(graph_db, graph_settings, run="r1")
    with pytest.raises(ProjectInUseError, match="p--eval-r1"):
        async with iso.namespace("p"):
            pytest.fail("the namespace opened on a project that holds data")
    alone = await EvalIsolation.sharing(graph_db, graph_settings, alone=True, run="r2")
    with pytest.raises(DatabaseInUseError, match="other projects: p--eval-r1"):
        async with alone.namespace("q"):
            pytest.fail("the namespace opened beside another project")
    assert await graph_fingerprint(graph_db) == before
    # Not alone, beside another project: a unique name, removed on exit, the rest unchanged.
    iso = await EvalIsolation.sharing(graph_db, graph_settings, run="r3")
    async with iso.namespace("p") as ns:
        assert ns.project("p") == "p--eval-r3"
        await svc.ingest_turns(
            project=ns.project("p"), session_key="s", turns=[TurnInput(role="user", text="hey")]
        )
        assert set(await project_usage(graph_db)) == {"p--eval-r1", ns.project("p")}
    assert await graph_fingerprint(graph_db) == before
    facts = iso.facts()
    assert facts["database_unchanged"] is True
    assert facts["other_projects"] == 1
    assert facts["nodes_purged"] > 0


# --- eval locomo --------------------------------------------------------------------------------


@pytest.mark.slow
async def test_locomo_beside_a_decoy_scores_as_alone_and_leaves_no_trace(
    graph_db: GraphDB, graph_settings: GraphSettings, tmp_path: Path
) -> None:
    settings = _eval_settings(graph_settings)
    file = tiny_locomo(tmp_path / "tiny.json")
    emb = shared_local_embedder()
    alone = await evaluate_locomo(
        await EvalIsolation.sharing(graph_db, settings, run="a"),
        file,
        embedder=emb,
        show_progress=False,
    )
    # The decoy is the same conversation under the eval's own base name.
    await _decoy(graph_db, settings, file, "locomo-tiny-1")
    before = await graph_fingerprint(graph_db)
    iso = await EvalIsolation.sharing(graph_db, settings, run="b")
    beside = await evaluate_locomo(iso, file, embedder=emb, show_progress=False)
    assert await graph_fingerprint(graph_db) == before
    assert beside.meta["isolation"]["projects"] == ["locomo-tiny-1--eval-b"]
    assert beside.meta["isolation"]["other_projects"] == 1
    assert beside.meta["isolation"]["database_unchanged"] is True
    assert beside.meta["turns_ingested"] == len(TURNS)
    for method in ("remgraph", "bm25", "vector"):
        hits = {k: v for k, v in beside.reports[method]["categories"]["all"].items() if "@" in k}
        ref = {k: v for k, v in alone.reports[method]["categories"]["all"].items() if "@" in k}
        assert hits == ref, method
    assert alone.reports["remgraph"]["categories"]["all"]["hit@5"] > 0


async def test_locomo_refuses_a_project_with_data(
    graph_db: GraphDB, graph_settings: GraphSettings, tmp_path: Path
) -> None:
    settings = _eval_settings(graph_settings)
    file = tiny_locomo(tmp_path / "tiny.json")
    await _decoy(graph_db, settings, file, "locomo-tiny-1--eval-dup")
    before = await graph_fingerprint(graph_db)
    with pytest.raises(ProjectInUseError, match="locomo-tiny-1--eval-dup"):
        await evaluate_locomo(
            await EvalIsolation.sharing(graph_db, settings, run="dup"),
            file,
            embedder=shared_local_embedder(),
            show_progress=False,
        )
    assert await graph_fingerprint(graph_db) == before


async def test_locomo_failing_midway_leaves_no_trace(
    graph_db: GraphDB, graph_settings: GraphSettings, tmp_path: Path
) -> None:
    settings = _eval_settings(graph_settings)
    file = tiny_locomo(tmp_path / "tiny.json")
    await _decoy(graph_db, settings, file, "bystander")
    before = await graph_fingerprint(graph_db)
    graphs = await _graphs(graph_settings)
    # The turns are ingested, then the questions' embedding fails.
    with pytest.raises(RuntimeError, match="midway"):
        async with EvalIsolation.open(settings, prefix="evaltest") as iso:
            await evaluate_locomo(
                iso, file, embedder=FailingEmbedder("guitar teacher"), show_progress=False
            )
    if iso.shared is not None:  # Neo4j: it had written the turns, and purged them
        assert iso.facts()["nodes_purged"] > len(TURNS)
    else:  # FalkorDB: it had a scratch graph, dropped
        assert iso.facts()["graphs"] == 1
    assert await graph_fingerprint(graph_db) == before
    assert await _graphs(graph_settings) == graphs


# --- eval knowledge -----------------------------------------------------------------------------


@pytest.mark.slow
async def test_knowledge_beside_a_decoy_reads_only_its_project_and_leaves_no_trace(
    graph_db: GraphDB, graph_settings: GraphSettings, tmp_path: Path
) -> None:
    settings = _settings(graph_settings, tmp_path)
    file = tiny_locomo(tmp_path / "tiny.json")
    await _decoy(graph_db, settings, file, "kneval-tiny-1")
    before = await graph_fingerprint(graph_db)
    out = await evaluate_knowledge(
        await EvalIsolation.sharing(graph_db, settings, run="k"),
        file,
        embedder=shared_local_embedder(),
        show_progress=False,
    )
    assert await graph_fingerprint(graph_db) == before
    assert out.meta["isolation"]["database_unchanged"] is True
    proj = out.projects["tiny-1"]
    assert proj["project"] == "kneval-tiny-1--eval-k"
    # Only its own eight turns were read, not the decoy's copy of them.
    assert proj["turns"] == proj["observations"]["turns"]["items"] == len(TURNS)


async def test_knowledge_refuses_a_project_with_data(
    graph_db: GraphDB, graph_settings: GraphSettings, tmp_path: Path
) -> None:
    settings = _settings(graph_settings, tmp_path)
    file = tiny_locomo(tmp_path / "tiny.json")
    await _decoy(graph_db, settings, file, "kneval-tiny-1--eval-dup")
    before = await graph_fingerprint(graph_db)
    with pytest.raises(ProjectInUseError, match="kneval-tiny-1--eval-dup"):
        await evaluate_knowledge(
            await EvalIsolation.sharing(graph_db, settings, run="dup"),
            file,
            embedder=shared_local_embedder(),
            show_progress=False,
        )
    assert await graph_fingerprint(graph_db) == before


async def test_knowledge_failing_midway_leaves_no_trace(
    graph_db: GraphDB, graph_settings: GraphSettings, tmp_path: Path
) -> None:
    settings = _settings(graph_settings, tmp_path)
    file = tiny_locomo(tmp_path / "tiny.json")
    await _decoy(graph_db, settings, file, "bystander")
    before = await graph_fingerprint(graph_db)
    iso = await EvalIsolation.sharing(graph_db, settings, run="f")
    # Ingest, extraction and the REM cycle run; scoring the observations fails.
    with pytest.raises(RuntimeError, match="midway"):
        await evaluate_knowledge(
            iso,
            file,
            embedder=shared_local_embedder(),
            scorer=FailingEmbedder("beagle called Pepper."),
            show_progress=False,
        )
    assert iso.facts()["nodes_purged"] > len(TURNS)  # it had written turns and knowledge
    assert await graph_fingerprint(graph_db) == before


# --- eval scenarios -----------------------------------------------------------------------------


def _scenario(folder: Path, *, second_session_turns: int = 2) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    doc: dict[str, Any] = {
        "name": "tiny",
        "project": "assistant",
        "sessions": [
            {
                "id": "s1",
                "start": "2026-01-12T09:00:00Z",
                "turns": [
                    {"role": "user", "content": "I live in Berlin, in Kreuzberg near the canal."},
                    {"role": "assistant", "content": "Noted: Berlin."},
                ],
            },
            {
                "id": "s2",
                "start": "2026-02-12T09:00:00Z",
                "turns": [
                    {"role": "user", "content": f"filler {i}"} for i in range(second_session_turns)
                ],
            },
        ],
        "checks": [
            {"after_session": "s1", "query": "Where do I live?", "expect_any": ["Berlin"]},
        ],
    }
    (folder / "tiny.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


async def test_scenarios_leave_no_trace_even_failing_midway_and_never_read_the_graph(
    graph_db: GraphDB, graph_settings: GraphSettings, tmp_path: Path
) -> None:
    settings = _settings(graph_settings, tmp_path)
    folder = _scenario(tmp_path / "set", second_session_turns=10_000)  # s2 is refused: too long
    if graph_settings.engine is not Engine.NEO4J:
        # FalkorDB: a decoy under the scenario's own project name in the configured graph.
        await _decoy(graph_db, settings, tiny_locomo(tmp_path / "tiny.json"), "assistant")
    before = await graph_fingerprint(graph_db)
    graphs = await _graphs(graph_settings)
    out = await run_scenarios(folder, settings=settings, embedder=shared_local_embedder())
    [result] = out.results
    assert any("one ingestTurns call takes" in e for e in result.errors), result.errors
    assert result.checks[0].passed, result.checks[0].reasons  # s1 landed before the failure
    assert await graph_fingerprint(graph_db) == before
    assert await _graphs(graph_settings) == graphs
    iso = out.meta["isolation"]
    if graph_settings.engine is Engine.NEO4J:
        assert iso["database_unchanged"] is True
    else:
        assert iso["graphs"] == 1


async def test_scenarios_on_a_shared_database_refuse_a_decoy_and_a_project_with_data(
    graph_db: GraphDB, graph_settings: GraphSettings, tmp_path: Path
) -> None:
    if graph_settings.engine is not Engine.NEO4J:
        pytest.skip("FalkorDB runs each scenario in a scratch graph: nothing is shared")
    settings = _settings(graph_settings, tmp_path)
    folder = _scenario(tmp_path / "set")
    svc = IngestService(graph_db, settings, embedder=shared_local_embedder())
    await svc.ingest_turns(
        project="assistant", session_key="s", turns=[TurnInput(role="user", text="keep me")]
    )
    before = await graph_fingerprint(graph_db)
    out = await run_scenarios(folder, settings=settings, embedder=shared_local_embedder())
    assert any("already holds data" in e for e in out.results[0].errors)
    assert await graph_fingerprint(graph_db) == before
    await purge_project(graph_db, "assistant")
    await svc.ingest_turns(
        project="production", session_key="s", turns=[TurnInput(role="user", text="keep me")]
    )
    before = await graph_fingerprint(graph_db)
    with pytest.raises(DatabaseInUseError, match="production") as e:
        await run_scenarios(folder, settings=settings, embedder=shared_local_embedder())
    assert isinstance(e.value, IsolationError)
    assert await graph_fingerprint(graph_db) == before
