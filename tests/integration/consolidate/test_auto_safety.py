"""`rem run --all --auto` never loses knowledge (issue 14, point 5).

On a graph built by the real ingest + extraction from `samples/` and the first LoCoMo
conversation (read from `shared/`, copied only into tmp), plus planted items that must stay (a
rule, a confirmed correction, a lesson with positive feedback, all old and never retrieved, so
the staleness job flags them), a full cycle with `--auto` may only archive unprotected stale
items and merge near-identical duplicates; it creates no project and no item; everything it
applied is undone by `undo_run`.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from consolidate.actions import apply_recommended, undo_run
from consolidate.config import ConsolidateSettings
from consolidate.policy import item_text, near_identical, protected
from consolidate.runner import run_cycle
from core.timeutil import to_ms
from graph.config import GraphSettings
from graph.db import GraphDB
from graph.models import Correction, Fact, Lesson, utc_now
from graph.repositories.communities import CommunityRepository
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from graph.repositories.findings import FindingRepository
from graph.repositories.lessons import LessonRepository
from graph.repositories.rem_actions import RemActionRepository
from graph.repositories.scoped import ScopedRepository
from ingest.config import IngestSettings
from ingest.extract.service import ExtractionHook
from ingest.pipeline import ingest_paths
from tests.shared_embedder import shared_local_embedder

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def locomo_first(shared_dir: Path, tmp_path: Path) -> Path:
    src = shared_dir / "benchmarks" / "locomo" / "locomo-dev.json"
    if not src.exists():
        pytest.skip(f"LoCoMo dev file not found at {src}")
    out = tmp_path / "locomo-first.json"
    out.write_text(json.dumps(json.loads(src.read_text())[:1]))
    return out


async def _plant(db: GraphDB, project: str) -> dict[str, str]:
    """Old, never-retrieved items a test says must stay, plus one that may go."""
    old = utc_now() - timedelta(days=120)
    common: dict[str, Any] = {"project": project, "valid_from": old, "recorded_at": old}
    rule = Correction(
        id="cor_rule",
        rule_text="Always run the linter before committing.",
        status="rule",
        last_seen=old,
        **common,
    )
    confirmed = Correction(
        id="cor_confirmed",
        rule_text="Never force-push to main.",
        confirmed=True,
        last_seen=old,
        **common,
    )
    liked = Lesson(
        id="les_liked",
        title="Pin the embedding model version",
        content="Re-embedding everything after a model bump took a day.",
        helpful_count=2,
        effectiveness=0.5,
        **common,
    )
    unused = Lesson(id="les_unused", title="an unused trick", content="never asked", **common)
    done = Fact(
        id="fct_done",
        subject="write the release notes",
        predicate="status",
        object="completed",
        kind="todo",
        statement="TODO (completed): write the release notes",
        **common,
    )
    await CorrectionRepository(db).upsert_many([rule, confirmed])
    await LessonRepository(db).upsert_many([liked, unused])
    await FactRepository(db).upsert_many([done])
    return {"rule": rule.id, "confirmed": confirmed.id, "liked": liked.id, "unused": unused.id}


async def _current(db: GraphDB, ids: list[str]) -> dict[str, dict[str, Any]]:
    return await RemActionRepository(db).snapshot(ids, to_ms(utc_now()))


async def _live_ids(db: GraphDB) -> list[str]:
    return [n.id for n in await CommunityRepository(db).project_nodes(None, to_ms(utc_now()))]


async def _projects(db: GraphDB) -> set[str]:
    return {p.id for p in await ScopedRepository(db).projects_page(["*"], 0, 1000)}


async def test_auto_cycle_loses_and_invents_nothing_and_undoes(
    graph_db: GraphDB,
    graph_settings: GraphSettings,
    tmp_path: Path,
    locomo_first: Path,
) -> None:
    embedder = shared_local_embedder()
    settings = IngestSettings(**graph_settings.model_dump())
    hook = ExtractionHook(settings, embedder=embedder)
    paths = [ROOT / "samples", locomo_first]
    report = await ingest_paths(graph_db, settings, paths, hooks=[hook], embedder=embedder)
    assert report.hook_errors == ()
    await hook.finish(graph_db)
    planted = await _plant(graph_db, "remgraph")
    projects_before = await _projects(graph_db)
    ids_before = await _live_ids(graph_db)
    before = await _current(graph_db, ids_before)
    assert set(planted.values()) <= set(before)

    rem = ConsolidateSettings(
        **graph_settings.model_dump(exclude={"consolidate"}),
        consolidate={"report_dir": tmp_path / "reports"},
        _env_file=None,
    )
    cycle = await run_cycle(db=graph_db, settings=rem, force=True)
    assert all(r.status == "succeeded" for r in cycle.reports), [
        (r.job, r.error) for r in cycle.reports if r.status != "succeeded"
    ]
    auto = await apply_recommended(graph_db, "*")

    # Nothing invented: no project, no lesson or correction that was not there.
    assert await _projects(graph_db) == projects_before
    new = {i for i in await _live_ids(graph_db) if i not in before}
    assert new == set(), "REM created knowledge items"
    # Nothing deleted: every item is still in the graph.
    stored = await RemActionRepository(graph_db).snapshot(ids_before, 0, current=False)
    assert set(stored) == set(ids_before)
    # What must stay, stays current.
    after = await _current(graph_db, ids_before)
    for key in ("rule", "confirmed", "liked"):
        assert planted[key] in after, f"the {key} item was archived"
    # Whatever stopped being current was unprotected and stale, or a near-identical duplicate.
    gone = set(before) - set(after)
    applied = {t: f for f in auto.applied for t in f.target_ids}
    for i in gone:
        assert protected(before[i]) is None, (i, before[i])
        f = applied.get(i)
        merged = next(
            (
                k
                for k in after
                if k != i and near_identical(item_text(before[i]), item_text(before[k]))
            ),
            None,
        )
        assert (f is not None and f.kind in {"stale", "faded"}) or merged is not None, i
    # No create_lesson, keep or contradicted finding was applied automatically.
    assert {f.proposed_action for f in auto.applied} <= {"archive", "merge", "link"}
    assert all(f.kind != "contradicted" for f in auto.applied)
    # A completed todo is not pending.
    findings = await FindingRepository(graph_db).list_findings("*", limit=1000)
    assert all("fct_done" not in f.target_ids for f in findings if f.kind == "pending_todo")

    # Undo: the auto run and every job run put everything back.
    for run_id in [auto.run_id, *(r.run_id for r in cycle.reports)]:
        await undo_run(graph_db, run_id)
    restored = await _current(graph_db, ids_before)
    assert set(restored) == set(before)
    # (graduation's status changes are the job's own computation, not an applied action)
    for i, props in before.items():
        for k in ("valid_to", "expired_at", "title", "rule_text", "content", "usage_count"):
            assert restored[i].get(k) == props.get(k), (i, k)
