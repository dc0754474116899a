"""`extract_stored` and the `remgraph extract` command over sessions ingested without extraction."""

from __future__ import annotations

import asyncio
import json

import pytest
import typer
from typer.testing import CliRunner

from ai.embed import Embedder
from graph.config import GraphSettings
from graph.db import GraphDB
from graph.migrate import migrate
from graph.repositories.corrections import CorrectionRepository
from ingest.config import IngestSettings
from ingest.extract.cli import extract
from ingest.extract.service import extract_stored
from tests.engines import make_test_db, set_engine_env
from tests.integration.extract.transcripts import pytest_session, store


async def test_extract_stored_runs_sessions_oldest_first(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    for k in (2, 0, 1):  # stored out of order; extraction must follow event time
        await store(graph_db, pytest_session("demo", k))
    rep = await extract_stored(graph_db, IngestSettings(), projects=["demo"], embedder=embedder)
    assert rep.sessions == 3
    [c] = await CorrectionRepository(graph_db).list_by_project("demo")
    assert c.status == "pattern"
    assert c.first_seen == pytest_session("demo", 0).turns[2].timestamp
    again = await extract_stored(graph_db, IngestSettings(), projects=["demo"], embedder=embedder)
    assert again.corrections_noop == 3
    assert again.corrections_reinforced == 0


def test_cli_extract_json(graph_settings: GraphSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    async def seed() -> None:
        db = make_test_db(graph_settings)
        await migrate(db)
        for k in range(2):
            await store(db, pytest_session("cli", k))
        await db.close()

    asyncio.run(seed())
    set_engine_env(monkeypatch, graph_settings)
    app = typer.Typer()
    app.command("extract")(extract)
    app.command("noop")(lambda: None)  # two commands keep `extract` a named subcommand
    result = CliRunner().invoke(app, ["extract", "--project", "cli", "--json"])
    assert result.exit_code == 0, result.output
    rep = json.loads(result.output[result.output.index("{") :])
    assert rep["sessions"] == 2
    assert rep["corrections_added"] == 1
    assert rep["corrections_reinforced"] == 1
    bad = CliRunner().invoke(app, ["extract", "--llm"])
    assert bad.exit_code != 0
    assert "REMGRAPH_LLM__BASE_URL" in bad.output


def test_cli_extract_llm_prints_the_ledger_and_exits_3_on_a_fallback(
    graph_settings: GraphSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.openai_stub import run_stub

    async def seed() -> None:
        db = make_test_db(graph_settings)
        await migrate(db)
        await store(db, pytest_session("llm", 0))
        await db.close()

    asyncio.run(seed())
    set_engine_env(monkeypatch, graph_settings)
    app = typer.Typer()
    app.command("extract")(extract)
    app.command("noop")(lambda: None)
    with run_stub(lambda path, body: (503, {"error": {"message": "model is loading"}})) as stub:
        monkeypatch.setenv("REMGRAPH_LLM__BASE_URL", stub.base_url)
        monkeypatch.setenv("REMGRAPH_LLM__MAX_RETRIES", "1")
        monkeypatch.setenv("COLUMNS", "400")
        result = CliRunner().invoke(app, ["extract", "--project", "llm", "--llm"])
    assert result.exit_code == 3, result.output
    assert "extraction: llm, 1 sessions; LLM 0 calls (1 retries, 1 failed)" in result.output
    assert (
        "extraction fell back to the offline rules for 1 sessions (exit code 3):" in result.output
    )
    assert "model is loading); used offline rules" in result.output
    assert "fallbacks" not in result.output  # not a row of the counts table
