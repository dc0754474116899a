"""`remgraph eval knowledge` end to end on a small LoCoMo-layout file, on every available engine.

The fixture is built at test time from the dev file's first sample, cut to its first two sessions
(LoCoMo is CC BY-NC: nothing of it is committed). The embedded leg runs the real CLI; the Neo4j
leg runs when `REMGRAPH_NEO4J__URI` is set (see `tests/engines.py`). On a shared database the
evaluation must leave every other project exactly as it found it, topics included (the isolation
rule itself, for every eval, is tested in `test_eval_isolation.py`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from falkordb import FalkorDB
from typer.testing import CliRunner

from consolidate.jobs import JOBS
from consolidate.runner import run_job
from graph.config import GraphSettings
from graph.db import GraphDB
from graph.purge import graph_fingerprint
from graph.repositories.audit import AuditRepository
from ingest.pipeline import ingest_paths
from remgraph.cli import app
from remgraph.eval_isolation import EvalIsolation, ProjectInUseError
from remgraph.eval_knowledge import EvalError, evaluate_knowledge
from remgraph.settings import Settings
from remgraph.wiring import extraction_hooks
from tests.shared_embedder import shared_local_embedder

SESSIONS = 2


@pytest.fixture
def small_locomo(shared_dir: Path, tmp_path: Path) -> Path:
    """The dev file's first sample with its first two sessions and their annotations."""
    samples = json.loads((shared_dir / "benchmarks" / "locomo" / "locomo-dev.json").read_text())
    s = samples[0]
    keep = {f"session_{n}" for n in range(1, SESSIONS + 1)}
    conv = {
        k: v
        for k, v in s["conversation"].items()
        if k in {"speaker_a", "speaker_b"} or k in keep or k.removesuffix("_date_time") in keep
    }
    small = {
        "sample_id": s["sample_id"],
        "conversation": conv,
        "observation": {f"{k}_observation": s["observation"][f"{k}_observation"] for k in keep},
        "session_summary": {f"{k}_summary": s["session_summary"][f"{k}_summary"] for k in keep},
    }
    path = tmp_path / "small-locomo.json"
    path.write_text(json.dumps([small]), encoding="utf-8")
    return path


def _observation_count(path: Path) -> int:
    sample = json.loads(path.read_text())[0]
    return sum(len(rows) for by in sample["observation"].values() for rows in by.values())


def _unit(x: Any) -> None:
    assert x is None or 0.0 <= x <= 1.0, x


def check_result(doc: dict[str, Any], fixture: Path) -> None:
    """The JSON structure, every share within [0, 1], and the figures consistent."""
    assert set(doc) == {"meta", "overall", "projects", "targets"}
    meta = doc["meta"]
    assert meta["conversations"] == 1
    assert meta["sessions"] == SESSIONS
    assert meta["observations"] == _observation_count(fixture) > 0
    assert meta["turns"] > 20
    assert set(meta["timings_s"]) == {"ingest", "rem", "score"}
    assert meta["scorer"] == "all-MiniLM-L6-v2"
    assert meta["extractor"] == "offline"
    assert meta["issues_total"] == 0, meta["issues"]
    [(sample, proj)] = doc["projects"].items()
    assert sample == "conv-26"
    assert proj["project"].startswith("kneval-conv-26")  # `--eval-<run>` on a shared database
    assert set(proj["rem"]["jobs"]) == set(JOBS)
    assert all(v == "succeeded" for v in proj["rem"]["jobs"].values()), proj["rem"]
    for block in (proj, doc["overall"]):
        for side in ("remgraph", "turns"):
            o = block["observations"][side]
            for k in ("recall", "recall_with_provenance", "precision", "provenance_coverage"):
                _unit(o[k])
            assert o["observations"] == meta["observations"]
            assert 0 <= o["matched_with_provenance"] <= o["matched"] <= o["observations"]
            assert o["recall_with_provenance"] <= o["recall"]
            assert o["fact_like_matched"] <= o["fact_like_items"] <= o["items"]
            assert sum(o["matched_by_kind"].values()) >= o["matched"]
        turns = block["observations"]["turns"]
        assert turns["items"] == meta["turns"]
        assert turns["provenance_coverage"] == 1.0  # every evidence turn is ingested
        s = block["session_summaries"]
        assert s["sessions"] == SESSIONS
        for side in ("remgraph", "first_turns"):
            for m in ("rouge1", "rouge2", "rougeL"):
                _unit(s[side][m])
        t = block["topics"]
        _unit(t["generic_share"])
        assert t["generic"] <= t["judged"] <= 50
        assert sum(t["label_words"].values()) == t["judged"]
        for tier in ("daily", "weekly", "monthly"):
            p = block["primers"][tier]
            assert p["count"] >= 1
            assert p["min"] <= p["mean"] <= p["max"]
            _unit(p["in_range_share"])
    assert proj["observations"]["remgraph"]["items_by_label"]["Session"] == SESSIONS
    assert proj["observations"]["remgraph"]["items_by_label"]["Primer"] >= 3
    assert proj["pack"]["bytes"] > 0
    assert [t["name"] for t in doc["targets"]] == [
        "observation recall with provenance at precision",
        "session summary ROUGE-L vs first turns",
        "generic topic labels",
        "pack and primer sizes",
    ]
    assert all(isinstance(t["met"], bool) for t in doc["targets"])


def _run_cli(out: Path, fixture: Path) -> dict[str, Any]:
    res = CliRunner().invoke(
        app, ["eval", "knowledge", str(fixture), "--out", str(out), "--stem", "kn"]
    )
    assert res.exit_code == 0, res.output
    assert f"wrote {out / 'kn.json'}" in res.output
    md = (out / "kn.md").read_text()
    assert "## Targets" in md
    assert "| conv-26 |" in md
    doc: dict[str, Any] = json.loads((out / "kn.json").read_text())
    return doc


@pytest.mark.slow
@pytest.mark.falkordb_only
def test_cli_on_the_embedded_engine_drops_its_graphs(
    small_locomo: Path,
    graph_settings: GraphSettings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sock = str(graph_settings.falkordb.unix_socket)
    monkeypatch.setenv("REMGRAPH_ENGINE", "falkordb")
    monkeypatch.setenv("REMGRAPH_FALKORDB__UNIX_SOCKET", sock)
    monkeypatch.setenv("REMGRAPH_EMBEDDED__DATA_DIR", str(tmp_path / "data"))
    client = FalkorDB(unix_socket_path=sock)
    before = set(client.list_graphs())
    doc = _run_cli(tmp_path / "out", small_locomo)
    check_result(doc, small_locomo)
    assert doc["meta"]["engine"] == "falkordb"
    iso = doc["meta"]["isolation"]
    assert (iso["mode"], iso["graphs"], iso["projects"]) == ("scratch graph", 1, ["kneval-conv-26"])
    assert set(client.list_graphs()) == before  # every graph it made is gone


@pytest.mark.slow
def test_cli_on_neo4j_leaves_the_database_as_it_was(
    small_locomo: Path,
    neo4j_conn: tuple[str, str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    uri, user, pw = neo4j_conn
    monkeypatch.setenv("REMGRAPH_ENGINE", "neo4j")
    monkeypatch.setenv("REMGRAPH_NEO4J__URI", uri)
    monkeypatch.setenv("REMGRAPH_NEO4J__USER", user)
    monkeypatch.setenv("REMGRAPH_NEO4J__PASSWORD", pw)
    monkeypatch.setenv("REMGRAPH_EMBEDDED__DATA_DIR", str(tmp_path / "data"))
    doc = _run_cli(tmp_path / "out", small_locomo)
    check_result(doc, small_locomo)
    iso = doc["meta"]["isolation"]
    assert iso["mode"] == "project purge on a shared database"
    assert iso["database_unchanged"] is True
    assert iso["nodes_purged"] > doc["meta"]["turns"]
    assert iso["projects"] == [f"kneval-conv-26--eval-{iso['run']}"]


# --- a shared database: other projects untouched --------------------------------------------------


async def _seed_bystander(db: GraphDB, settings: Settings, fixture: Path, project: str) -> None:
    """Another project holding the same conversation (so its topics are the ones the evaluation
    merges into), with its knowledge and a REM cycle."""
    emb = shared_local_embedder()
    await ingest_paths(
        db,
        settings,
        [fixture],
        fmt="locomo",
        project=project,
        hooks=extraction_hooks(db, settings, emb),
        embedder=emb,
    )
    for name in JOBS:
        assert (await run_job(name, db=db, settings=settings, project=project)).status == (
            "succeeded"
        )


def _settings(db: GraphDB, graph_settings: GraphSettings) -> Settings:
    engine = "neo4j" if type(db).__name__ == "Neo4jGraph" else "falkordb"
    return Settings.model_validate(graph_settings.model_dump() | {"engine": engine})


@pytest.mark.slow
async def test_shared_database_leaves_other_projects_exactly_as_they_were(
    any_db: GraphDB, graph_settings: GraphSettings, small_locomo: Path, tmp_path: Path
) -> None:
    settings = _settings(any_db, graph_settings)
    await _seed_bystander(any_db, settings, small_locomo, "bystander")
    before = await graph_fingerprint(any_db)
    assert before.nodes.get("Topic")  # the bystander has topics

    out = await evaluate_knowledge(
        await EvalIsolation.sharing(any_db, settings, run="iso"),
        small_locomo,
        embedder=shared_local_embedder(),
        show_progress=False,
    )
    iso = out.meta["isolation"]
    assert iso["database_unchanged"] is True
    assert iso["other_projects"] == 1
    # the same conversation, but topics have one owner: the bystander's were never touched
    assert await graph_fingerprint(any_db) == before
    name = "kneval-conv-26--eval-iso"
    present = await AuditRepository(any_db).projects_present([name, "bystander"])
    assert present[name] == 0
    assert present["bystander"] > 0
    # it scored the evaluated project, not the bystander's copy of the same conversation
    proj = out.projects["conv-26"]
    assert proj["project"] == name
    assert proj["turns"] == proj["observations"]["turns"]["items"]


async def test_a_project_name_in_use_is_refused_and_left_alone(
    graph_db: GraphDB, graph_settings: GraphSettings, small_locomo: Path
) -> None:
    settings = _settings(graph_db, graph_settings)
    await ingest_paths(
        graph_db, settings, [small_locomo], fmt="locomo", project="kneval-conv-26--eval-dup"
    )
    before = await graph_fingerprint(graph_db)
    with pytest.raises(ProjectInUseError, match="kneval-conv-26--eval-dup"):
        await evaluate_knowledge(
            await EvalIsolation.sharing(graph_db, settings, run="dup"),
            small_locomo,
            embedder=shared_local_embedder(),
            show_progress=False,
        )
    assert await graph_fingerprint(graph_db) == before


async def test_a_file_that_is_not_json_is_refused(
    graph_db: GraphDB, graph_settings: GraphSettings, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(EvalError, match="not a LoCoMo JSON file"):
        await evaluate_knowledge(
            await EvalIsolation.sharing(graph_db, _settings(graph_db, graph_settings), run="x"),
            bad,
            show_progress=False,
        )
