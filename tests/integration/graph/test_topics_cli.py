"""`remgraph topics list | show`: a project's topics and their summaries, as a person reads them."""

from __future__ import annotations

import asyncio
import json

import pytest
from typer.testing import CliRunner

from consolidate.runner import run_job
from graph.errors import InvalidInputError
from remgraph.cli import app
from tests.engines import set_engine_env
from tests.support.samples import ingest_samples


async def test_topics_list_and_show_print_the_stored_summary(
    graph_db, graph_settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, _ = await ingest_samples(graph_db, graph_settings)
    report = await run_job("topic_summaries", db=graph_db, settings=settings, project="webapp")
    assert report.summary["built"] > 0, report
    set_engine_env(monkeypatch, graph_settings)
    monkeypatch.setenv("COLUMNS", "200")
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, list(args))

    listed = await asyncio.to_thread(invoke, "topics", "list", "-p", "webapp")
    assert listed.exit_code == 0, listed.output
    assert "pnpm" in listed.output
    assert "(v1)" in listed.output

    shown = await asyncio.to_thread(invoke, "topics", "show", "pnpm", "-p", "webapp")
    assert shown.exit_code == 0, shown.output
    assert "discussed pnpm in 3 sessions" in shown.output
    assert "Key takeaways" in shown.output
    assert "Use pnpm instead of npm" in shown.output

    raw = await asyncio.to_thread(invoke, "topics", "show", "PNPM", "-p", "webapp", "--json")
    stored = json.loads(raw.output)
    assert stored["project"] == "webapp"
    assert stored["takeaways"][0].startswith("Use pnpm instead of npm")
    assert stored["text"].endswith("\n")

    missing = await asyncio.to_thread(invoke, "topics", "show", "pnpm", "-p", "nowhere")
    assert isinstance(missing.exception, InvalidInputError)  # `remgraph` prints it on one line
    assert "no topic 'pnpm' in project 'nowhere'" in str(missing.exception)
