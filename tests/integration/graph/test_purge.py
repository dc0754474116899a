"""`graph.purge`: removing one project leaves every other project exactly as it was.

Two projects are built through the real pipeline (ingest with knowledge extraction, a full REM
cycle, API keys, recorded context queries), sharing a topic; then one is purged. On both engines.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from api.ports import TurnInput
from consolidate.jobs import JOBS
from consolidate.runner import lock_id, run_job
from core.timeutil import frozen_clock
from graph.cypher import Q
from graph.db import GraphDB
from graph.errors import InvalidInputError
from graph.purge import graph_fingerprint, project_usage, purge_project
from graph.repositories.api_keys import ApiKeyRepository
from graph.repositories.context_queries import ContextItemRef, ContextQueryRepository
from ingest.service import IngestService
from remgraph.settings import Settings
from remgraph.wiring import extraction_hooks
from tests.shared_embedder import shared_local_embedder

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
_NODES = Q("admin.dump_nodes")
_RELS = Q("admin.dump_relationships")

DIALOGUE = {
    "alpha": [
        [
            ("user", "The billing service deploys with Terraform; run terraform plan first."),
            ("assistant", "Noted: terraform plan before every apply of the billing service."),
            ("user", "The billing service also needs its Terraform state in S3."),
        ],
        [
            ("user", "No, use pnpm not npm in this repo."),
            ("assistant", "Understood, pnpm from now on."),
            ("user", "I moved to Lisbon last month."),
        ],
    ],
    "beta": [
        [
            ("user", "The billing service in this team deploys with Terraform as well."),
            ("assistant", "Then terraform plan comes first for the billing service here too."),
            ("user", "Always run terraform plan on the billing service before apply."),
        ],
        [
            ("user", "Don't use yarn here, use npm."),
            ("assistant", "OK, npm it is."),
        ],
    ],
}


def _settings(tmp_path: Path) -> Settings:
    return Settings(
        consolidate={"report_dir": tmp_path / "reports"},
        embedded={"data_dir": tmp_path / "unused"},
        _env_file=None,
    )


async def _build(db: GraphDB, settings: Settings, project: str) -> None:
    emb = shared_local_embedder()
    svc = IngestService(
        db, settings, embedder=emb, hooks=extraction_hooks(db, settings, embedder=emb)
    )
    for day, session in enumerate(DIALOGUE[project]):
        start = T0 + timedelta(days=day)
        turns = [
            TurnInput(role=role, text=text, timestamp=start + timedelta(minutes=i))
            for i, (role, text) in enumerate(session)
        ]
        with frozen_clock(start + timedelta(minutes=len(turns))):
            out = await svc.ingest_turns(project=project, session_key=f"s{day}", turns=turns)
            assert out.failures == ()
    end = T0 + timedelta(days=len(DIALOGUE[project]))
    with frozen_clock(end):
        for name in JOBS:
            await run_job(name, db=db, settings=settings, now=end, project=project)
        await ApiKeyRepository(db).create(f"{project}-only", [project])
        await ContextQueryRepository(db).record(
            project=project, query="how do we deploy?", items=[ContextItemRef("x", "turn", 1, 1.0)]
        )


def _project_of(labels: list[str], props: dict[str, Any]) -> set[str]:
    if "Topic" in labels:
        return set(props.get("projects") or [])
    if "ApiKey" in labels:
        return set(props.get("projects") or [])
    return {props["project"]} if props.get("project") is not None else set()


async def _dump(db: GraphDB) -> tuple[dict[str, tuple[Any, ...]], set[tuple[Any, ...]]]:
    """Nodes by id (labels, props) and relationships (source, type, target, props) as tuples."""
    nodes = {
        str(r["props"]["id"]): (tuple(sorted(r["labels"])), _freeze(r["props"]))
        for r in await db.read(_NODES)
    }
    rels = {
        (r["source"], r["type"], r["target"], _freeze(r["props"])) for r in await db.read(_RELS)
    }
    return nodes, rels


def _freeze(v: Any) -> Any:
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items() if x is not None))
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    return v


@pytest.mark.slow
async def test_purge_removes_one_project_and_leaves_the_other_untouched(
    any_db: GraphDB, tmp_path: Path
) -> None:
    settings = _settings(tmp_path)
    await _build(any_db, settings, "beta")
    await _build(any_db, settings, "alpha")
    both, _ = await ApiKeyRepository(any_db).create("both", ["alpha", "beta"])
    usage = await project_usage(any_db)
    assert usage["alpha"] > 20, usage
    assert usage["beta"] > 20, usage
    nodes_before, rels_before = await _dump(any_db)
    shared = [
        nid
        for nid, (labels, props) in nodes_before.items()
        if "Topic" in labels and {"alpha", "beta"} <= set(dict(props)["projects"])
    ]
    # Topics belong to one project: none is shared (legacy global topics were).
    assert not shared, shared

    report = await purge_project(
        any_db, "alpha", lock_ids=[lock_id("alpha", name) for name in JOBS]
    )

    assert report.nodes == usage["alpha"] - report.topics - len(shared)
    assert report.keys == 1  # "alpha-only"; "both" stays
    assert report.locks == len(JOBS)
    assert "alpha" not in await project_usage(any_db)
    nodes_after, rels_after = await _dump(any_db)
    # Nothing of alpha is left: no node, no topic listing it, no key scoped to it alone.
    for nid, (labels, props) in nodes_after.items():
        owners = _project_of(list(labels), dict(props))
        assert "alpha" not in owners or nid == both.id, (nid, labels)
        assert "JobLock" not in labels or ":alpha:" not in nid
    # Everything else is exactly as it was, but for the shared topics' project lists.
    expected_nodes = {}
    for nid, (labels, props) in nodes_before.items():
        owners = _project_of(list(labels), dict(props))
        if "JobLock" in labels:
            if nid.startswith("rem:alpha:"):
                continue
        elif nid == both.id:
            pass
        elif "alpha" in owners and owners <= {"alpha"}:
            continue
        if nid in shared:
            fixed = dict(props) | {
                "projects": tuple(p for p in dict(props)["projects"] if p != "alpha")
            }
            props = _freeze(fixed)
        expected_nodes[nid] = (labels, props)
    assert nodes_after == expected_nodes
    assert rels_after == {r for r in rels_before if r[0] in nodes_after and r[2] in nodes_after}

    # Purging the other project too leaves only the migrations and the two-project key.
    await purge_project(any_db, "beta", lock_ids=[lock_id("beta", name) for name in JOBS])
    fp = await graph_fingerprint(any_db)
    assert fp.nodes == {"ApiKey": 1, "SchemaMigration": fp.nodes["SchemaMigration"]}
    assert fp.relationships == {}
    assert await project_usage(any_db) == {}


async def test_fingerprint_changes_with_any_property_and_not_without(graph_db: GraphDB) -> None:
    empty = await graph_fingerprint(graph_db)
    key, _ = await ApiKeyRepository(graph_db).create("k", ["p"])
    one = await graph_fingerprint(graph_db)
    assert one.digest != empty.digest
    assert one.nodes["ApiKey"] == 1
    assert (await graph_fingerprint(graph_db)).digest == one.digest
    await ApiKeyRepository(graph_db).revoke(key.id)
    assert (await graph_fingerprint(graph_db)).digest != one.digest


@pytest.mark.parametrize("project", ["", "  ", "*"])
async def test_purge_refuses_an_empty_or_wildcard_project(graph_db: GraphDB, project: str) -> None:
    with pytest.raises(InvalidInputError):
        await purge_project(graph_db, project)
