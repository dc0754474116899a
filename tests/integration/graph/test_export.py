"""`remgraph export` and `remgraph rem report --plot` on a graph built by the real pipeline
(bundled samples, extraction, REM jobs): the exports read back with networkx in all three formats
(ids, kinds, properties, edges, one project only, bi-temporal), and the plot is a PNG."""

from __future__ import annotations

import asyncio
import json
import os
from datetime import timedelta
from pathlib import Path

import networkx as nx
import pytest
from typer.testing import CliRunner

from consolidate.runner import run_job
from graph.errors import InvalidInputError
from graph.export import ExportFormat, export_project
from graph.models import Correction, Fact, Topic, utc_now
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.exports import ExportRepository
from graph.repositories.facts import FactRepository
from graph.repositories.topics import TopicRepository
from remgraph.cli import app
from tests.engines import set_engine_env
from tests.support.samples import ingest_samples

ROOT = Path(__file__).resolve().parents[3]
PROJECT = "webapp"
KINDS = {"topic", "lesson", "correction", "fact", "community"}


async def _build(db, graph_settings) -> str:
    """Ingest two projects' samples with extraction, run the REM jobs; the other project's slug."""
    settings, _ = await ingest_samples(db, graph_settings)
    for job in ("topic_weights", "communities"):
        rep = await run_job(job, db=db, settings=settings, project="*")
        assert rep.status == "succeeded", rep
    other = {t.project for t in await TopicRepository(db).list_all()} - {PROJECT}
    assert other, "the samples hold a second project"
    return sorted(other)[0]


async def _history(db, other: str) -> None:
    """A closed fact and a retracted correction of the project, a legacy global topic listing it
    with another project, and another project's fact."""
    now = utc_now()
    day = timedelta(days=1)
    await FactRepository(db).upsert_many(
        [
            Fact(
                id="fact_export_closed",
                project=PROJECT,
                statement="the app used to deploy on Fridays",
                valid_from=now - 3 * day,
                valid_to=now - day,
                recorded_at=now - 3 * day,
            ),
            Fact(id="fact_export_other", project=other, statement="another project's fact"),
        ]
    )
    await CorrectionRepository(db).upsert_many(
        [
            Correction(
                id="cor_export_retracted",
                project=PROJECT,
                rule_text="a rule found wrong",
                valid_from=now - 3 * day,
                recorded_at=now - 3 * day,
                expired_at=now - day,
            )
        ]
    )
    await TopicRepository(db).upsert_many(
        [Topic(id="topic_export_global", title="shared", projects=(PROJECT, other))]
    )


def _read(fmt: ExportFormat, path: Path) -> nx.MultiDiGraph:
    if fmt is ExportFormat.GRAPHML:
        return nx.read_graphml(path, force_multigraph=True)
    if fmt is ExportFormat.GEXF:
        return nx.read_gexf(path)
    return nx.node_link_graph(json.loads(path.read_text()), edges="edges")


def _as_list(v):
    return json.loads(v) if isinstance(v, str) else v


async def _round_trip(graph_db, other: str, tmp_path: Path) -> None:
    stored = await ExportRepository(graph_db).project_graph(PROJECT, sessions=True)
    ids = {n.id for n in stored.nodes}
    assert {n.project for n in stored.nodes} == {PROJECT}
    assert {"fact_export_closed", "cor_export_retracted", "topic_export_global"}.isdisjoint(ids)
    others = await ExportRepository(graph_db).project_graph(other, sessions=True)
    other_ids = {n.id for n in others.nodes} | {"fact_export_other"}
    assert len(other_ids) > 1
    assert ids.isdisjoint(other_ids)
    types = {e.type for e in stored.edges}
    assert {"IN_COMMUNITY", "MENTIONS", "DERIVED_FROM"} <= types

    for fmt in ExportFormat:
        path = tmp_path / f"{PROJECT}.{fmt.value}"
        summary = await export_project(graph_db, PROJECT, fmt, path, sessions=True)
        assert summary.path == path
        g = _read(fmt, path)
        assert set(g.nodes) == ids, fmt
        kinds = {n: d["kind"] for n, d in g.nodes(data=True)}
        assert KINDS | {"session"} == set(kinds.values()), fmt
        assert summary.nodes == {k: list(kinds.values()).count(k) for k in set(kinds.values())}
        for n in stored.nodes:
            d = g.nodes[n.id]
            assert d["project"] == PROJECT, fmt
            assert d["valid_from"] == n.valid_from.isoformat().replace("+00:00", "Z"), fmt
            assert "embedding" not in d
            assert "valid_to" not in d or d["valid_to"] is None  # current knowledge is open
            if isinstance(n, Topic):
                assert d["label"] == n.title
                assert _as_list(d["keywords"]) == list(n.keywords), fmt
                assert float(d["weight"]) == pytest.approx(n.weight)
            elif isinstance(n, Fact):
                assert d["label"] == n.statement
        edges = {(u, v, d["relationship"]) for u, v, d in g.edges(data=True)}
        assert edges == {(e.source_id, e.target_id, e.type) for e in stored.edges}, fmt
        related = [d for _, _, d in g.edges(data=True) if d["relationship"] == "RELATED_TO"]
        assert related, fmt
        assert all(0 < float(d["weight"]) < 1 for d in related), fmt
        text = path.read_text()
        assert not [i for i in other_ids if i in text], fmt  # not even as a property value


async def _cli_history(graph_db, tmp_path: Path, monkeypatch) -> None:
    runner = CliRunner()

    out = tmp_path / "all.graphml"
    args = ["export", PROJECT, "--format", "graphml", "--out", str(out), "--all-history"]
    result = await asyncio.to_thread(runner.invoke, app, args)  # the CLI runs its own loop
    assert result.exit_code == 0, result.output
    g = nx.read_graphml(out, force_multigraph=True)
    closed, retracted = g.nodes["fact_export_closed"], g.nodes["cor_export_retracted"]
    assert closed["kind"] == "fact"
    assert closed["valid_to"].startswith(str((utc_now() - timedelta(days=1)).date()))
    assert retracted["expired_at"].startswith(str((utc_now() - timedelta(days=1)).date()))
    assert "topic_export_global" not in g
    assert "fact_export_other" not in g
    assert {d["project"] for _, d in g.nodes(data=True)} == {PROJECT}
    assert not any(d["kind"] == "session" for _, d in g.nodes(data=True))

    default = tmp_path / "cwd"
    default.mkdir()
    monkeypatch.chdir(default)
    result = await asyncio.to_thread(runner.invoke, app, ["export", PROJECT, "-f", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads((default / f"{PROJECT}.json").read_text())
    assert data["graph"]["project"] == PROJECT
    assert "fact_export_closed" not in {n["id"] for n in data["nodes"]}

    with pytest.raises(InvalidInputError, match=f"no project 'no-such-project'.*{PROJECT}"):
        await export_project(graph_db, "no-such-project", ExportFormat.JSON, tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


async def _plot(tmp_path: Path) -> None:
    png = tmp_path / "plot" / "communities.png"
    args = ["rem", "report", "-p", PROJECT, "--plot", str(png), "--out", str(tmp_path / "md")]
    result = await asyncio.to_thread(CliRunner().invoke, app, args)
    assert result.exit_code == 0, result.output
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 10_000  # a drawn picture, not an empty canvas

    result = await asyncio.to_thread(CliRunner().invoke, app, ["rem", "report", "--plot", "x.png"])
    assert result.exit_code != 0
    assert "--project" in result.output


async def test_export_and_plot(graph_db, graph_settings, tmp_path, monkeypatch):
    """One build (ingest with extraction and the REM jobs take most of the time), three checks."""
    other = await _build(graph_db, graph_settings)
    await _history(graph_db, other)
    await _round_trip(graph_db, other, tmp_path)
    for k in [k for k in os.environ if k.startswith("REMGRAPH_")]:
        monkeypatch.delenv(k)
    set_engine_env(monkeypatch, graph_settings)
    await _cli_history(graph_db, tmp_path, monkeypatch)
    await _plot(tmp_path)
