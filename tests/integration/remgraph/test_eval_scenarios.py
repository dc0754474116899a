"""`remgraph eval scenarios` end to end: real ingest + extraction, a REM cycle, GraphQL `context`.

Two small scenarios run on the embedded engine (and on Neo4j when `REMGRAPH_NEO4J__URI` is set or
Docker answers): one whose checks today's product passes (plain recall from turns, as-of and
known-at windows that only hold if record time is the scenario's time), one whose checks must fail;
plus an invalid file, reported while the others run. Isolation is checked on each engine: no
graph or node is left behind, and a Neo4j database holding other projects is refused.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from falkordb.asyncio import FalkorDB
from typer.testing import CliRunner

from api.ports import TurnInput
from graph.config import Engine
from graph.db import GraphDB
from graph.embedded import EmbeddedServer
from graph.purge import graph_fingerprint
from ingest.service import IngestService
from remgraph.eval import eval_app
from remgraph.eval_isolation import IsolationError
from remgraph.eval_scenarios import run_scenarios, write_results
from remgraph.settings import Settings
from tests.shared_embedder import shared_local_embedder

RECALL: dict[str, Any] = {
    "name": "residence recall",
    "project": "assistant",
    "sessions": [
        {
            "id": "s1",
            "start": "2026-01-12T09:00:00Z",
            "turns": [
                {"role": "user", "content": "Morning! Can you help me plan my week?"},
                {"role": "assistant", "content": "Of course. Where are you based, for travel?"},
                {"role": "user", "content": "I live in Berlin, in Kreuzberg near the canal."},
                {"role": "assistant", "content": "Great, Berlin it is. Let's start with Monday."},
            ],
        },
        {
            "id": "s2",
            "start": "2026-07-03T18:00:00Z",
            "rem": True,
            "turns": [
                {"role": "user", "content": "Big news: last week I moved to Lisbon for good."},
                {"role": "assistant", "content": "Congratulations on the move to Lisbon!"},
            ],
        },
    ],
    "checks": [
        {"after_session": "s1", "query": "Where does the user live?", "expect_any": ["Berlin"]},
        {
            "query": "Where does the user live?",
            "known_at": "2026-02-01T00:00:00Z",
            "expect_any": ["berlin"],
            "forbid_any": ["Lisbon"],
        },
        {
            "query": "Where does the user live?",
            "as_of": "2026-03-01T00:00:00Z",
            "expect_any": ["Kreuzberg"],
            "forbid_any": ["lisbon"],
        },
        {"query": "Where did the user move to?", "expect_any": ["Lisbon"], "top": 3},
        # The residence fact itself, as known in February: Berlin, still open then (its end
        # was recorded in July), and now Lisbon, found by meaning and words.
        {
            "query": "Where does the user live?",
            "known_at": "2026-02-01T00:00:00Z",
            "expect_any": ["Berlin"],
            "expect_kind": "FACT",
            "forbid_any": ["Lisbon"],
        },
        {
            "query": "Where does the user live now?",
            "expect_any": ["Lisbon"],
            "expect_kind": "FACT",
            "forbid_any": ["Berlin"],
        },
    ],
}

FAILING: dict[str, Any] = {
    "name": "must fail",
    "project": "assistant",
    "sessions": [
        {
            "id": "a",
            "start": "2026-02-01T10:00:00Z",
            "turns": [
                {"role": "user", "content": "My sister Maria lives in Madrid."},
                {"role": "assistant", "content": "Nice, Madrid is lovely in spring."},
            ],
        }
    ],
    "checks": [
        {"query": "Where does Maria live?", "expect_any": ["Tokyo"]},
        {"query": "Where does Maria live?", "forbid_any": ["Madrid"]},
        {"query": "Where does Maria live?", "expect_any": ["Madrid"], "expect_kind": "PRIMER"},
    ],
}

BROKEN: dict[str, Any] = {**FAILING, "checks": [{"query": "x", "top": 0}]}


def write_set(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in (("recall", RECALL), ("failing", FAILING), ("broken", BROKEN)):
        (folder / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


async def _graph_names(server: EmbeddedServer) -> set[str]:
    client = FalkorDB(unix_socket_path=str(server.socket_path))
    try:
        return set(await client.list_graphs())
    finally:
        await client.aclose()


def _open(settings: Settings) -> GraphDB:
    from graph.connect import make_db

    return make_db(settings)


@pytest.mark.slow
async def test_two_scenarios_end_to_end(
    engine_settings: Settings, embedded_server: EmbeddedServer, tmp_path: Path
) -> None:
    folder = write_set(tmp_path / "set")
    graphs_before = await _graph_names(embedded_server)
    neo4j = engine_settings.engine is Engine.NEO4J
    db = _open(engine_settings) if neo4j else None
    before = await graph_fingerprint(db) if db else None

    outcome = await run_scenarios(
        folder, settings=engine_settings, embedder=shared_local_embedder()
    )
    jp, mp = write_results(outcome, tmp_path / "out", "mine")
    data = json.loads(jp.read_text())

    assert data["meta"]["engine"] == engine_settings.engine.value
    assert data["meta"]["extractor"] == "offline"
    assert data["meta"]["files"] == 3
    assert [f["file"].rsplit("/", 1)[-1] for f in data["invalid_files"]] == ["broken.json"]
    assert data["invalid_files"][0]["errors"] == [
        {"field": "checks[0].top", "message": "Input should be greater than or equal to 1"}
    ]
    by_name = {s["name"]: s for s in data["scenarios"]}
    assert sorted(by_name) == ["must fail", "residence recall"]

    recall = by_name["residence recall"]
    assert recall["errors"] == []
    assert recall["rem_cycles"] == 1
    assert (recall["sessions"], recall["turns"]) == (2, 6)
    assert recall["namespace"] == "assistant"
    assert len(recall["sha256"]) == 64
    assert [c["passed"] for c in recall["checks"]] == [True] * 6, [
        (c["query"], c["reasons"], [i["text"] for i in c["items"]]) for c in recall["checks"]
    ]
    first, known, as_of, moved, *_ = recall["checks"]
    assert as_of["as_of"] == "2026-03-01T00:00:00Z"
    assert first["scenario_now"] == "2026-01-12T09:03:00Z"
    assert known["scenario_now"] == moved["scenario_now"] == "2026-07-03T18:01:00Z"
    assert known["known_at"] == "2026-02-01T00:00:00Z"
    # Record time is the scenario's: known before July, nothing of July is in the answer.
    assert not any("Lisbon" in i["text"] for i in known["items"])
    assert known["items"], "the January turns were recorded in January"
    assert len(moved["items"]) == 3

    failing = by_name["must fail"]
    assert failing["errors"] == []
    assert [c["passed"] for c in failing["checks"]] == [False, False, False]
    assert failing["checks"][0]["reasons"] == [
        "no item of any kind in the top 5 contains any of ['Tokyo']"
    ]
    assert failing["checks"][1]["reasons"][0].endswith("contains forbidden 'Madrid'")
    assert data["totals"] == {
        "scenarios": 2,
        "scenarios_passed": 1,
        "scenario_pass_rate": 0.5,
        "checks": 9,
        "checks_passed": 6,
        "check_pass_rate": round(6 / 9, 4),
        "scenarios_with_errors": 0,
        "invalid_files": 1,
    }
    assert "**Checks passed: 6/9 (66.7%)**" in mp.read_text()

    # Isolation: nothing left behind: no graph on FalkorDB, no node or property on Neo4j.
    assert await _graph_names(embedded_server) == graphs_before
    if db is not None:
        assert await graph_fingerprint(db) == before
        await db.close()


@pytest.mark.slow
async def test_neo4j_database_with_other_projects_is_refused(
    engine_settings: Settings, tmp_path: Path
) -> None:
    if engine_settings.engine is not Engine.NEO4J:
        pytest.skip("FalkorDB runs each scenario in a fresh graph: nothing to share")
    db = _open(engine_settings)
    svc = IngestService(db, engine_settings, embedder=shared_local_embedder())
    await svc.ingest_turns(
        project="production", session_key="s", turns=[TurnInput(role="user", text="keep me")]
    )
    before = await graph_fingerprint(db)
    with pytest.raises(IsolationError, match="production"):
        await run_scenarios(
            write_set(tmp_path / "set"), settings=engine_settings, embedder=shared_local_embedder()
        )
    assert await graph_fingerprint(db) == before
    await db.close()


@pytest.mark.slow
async def test_cli_writes_results_and_exits_non_zero_on_an_invalid_file(
    embedded_server: EmbeddedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_set(tmp_path / "set")
    monkeypatch.setenv("REMGRAPH_ENGINE", "falkordb")
    monkeypatch.setenv("REMGRAPH_FALKORDB__UNIX_SOCKET", str(embedded_server.socket_path))
    monkeypatch.setenv("REMGRAPH_EMBEDDED__DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("REMGRAPH_CONSOLIDATE__REPORT_DIR", str(tmp_path / "reports"))
    out = tmp_path / "results"

    def invoke(*args: str):  # the CLI runs its own event loop: call it from a worker thread
        return CliRunner().invoke(eval_app, ["scenarios", *args], catch_exceptions=False)

    res = await asyncio.to_thread(invoke, str(folder), "--out", str(out), "--stem", "run1")
    assert res.exit_code == 1, res.output
    assert "invalid" in res.output
    assert "checks[0].top" in res.output
    assert "FAIL must fail · check 1" in res.output
    assert sorted(p.name for p in out.iterdir()) == ["run1.json", "run1.md"]
    (folder / "broken.json").unlink()
    res = await asyncio.to_thread(invoke, str(folder / "recall.json"), "--fail-under", "1.0")
    assert res.exit_code == 0, res.output
    res = await asyncio.to_thread(invoke, str(folder), "--fail-under", "0.9")
    assert res.exit_code == 3, res.output
    empty = tmp_path / "empty"
    empty.mkdir()
    res = await asyncio.to_thread(invoke, str(empty))
    assert res.exit_code == 1
    assert "no scenario files" in res.output


async def test_a_scenario_that_cannot_go_on_reports_the_error_and_the_checks_not_run(
    embedded_server: EmbeddedServer, tmp_path: Path
) -> None:
    settings = Settings(
        engine=Engine.FALKORDB,
        falkordb={"unix_socket": embedded_server.socket_path},
        embedded={"data_dir": tmp_path / "unused"},
        api={"max_ingest_turns": 4},
        _env_file=None,
    )
    long_second = json.loads(json.dumps(RECALL))
    long_second["sessions"][1]["turns"] *= 3  # 6 turns: more than one ingestTurns call takes
    (tmp_path / "long.json").write_text(json.dumps(long_second))
    outcome = await run_scenarios(
        tmp_path / "long.json", settings=settings, embedder=shared_local_embedder()
    )
    [r] = outcome.results
    assert r.errors == [
        "session 's2' has 6 turns; one ingestTurns call takes at most 4 "
        "(REMGRAPH_API__MAX_INGEST_TURNS)"
    ]
    # the first check runs after s1; every later one would have needed s2
    assert [(c.index, c.passed, c.error) for c in r.checks] == [
        (1, True, None),
        *[
            (i, False, "not run: the scenario stopped before it")
            for i in range(2, len(RECALL["checks"]) + 1)
        ],
    ]
    assert outcome.has_errors
