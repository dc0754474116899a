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
