"""Extraction on real data: the first LoCoMo conversation and the Claude Code sample transcripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ai.embed import Embedder
from graph.config import GraphSettings
from graph.db import GraphDB
from graph.repositories.facts import FactRepository
from graph.repositories.lessons import LessonRepository
from graph.repositories.topics import TopicRepository
from ingest.config import IngestSettings
from ingest.extract.service import ExtractionHook
from ingest.pipeline import ingest_paths


@pytest.fixture
def locomo_first(shared_dir: Path, tmp_path: Path) -> Path:
    src = shared_dir / "benchmarks" / "locomo" / "locomo-dev.json"
    if not src.exists():
        pytest.skip(f"LoCoMo dev file not found at {src}")
    first = json.loads(src.read_text())[:1]  # licence: read from shared/, copy only into tmp
    out = tmp_path / "locomo-first.json"
    out.write_text(json.dumps(first))
    return out


async def test_locomo_first_conversation(
    graph_db: GraphDB,
    graph_settings: GraphSettings,
    embedder: Embedder,
    locomo_first: Path,
) -> None:
    settings = IngestSettings(**graph_settings.model_dump())
    hook = ExtractionHook(settings, embedder=embedder)
    report = await ingest_paths(graph_db, settings, [locomo_first], hooks=[hook], embedder=embedder)
    assert report.hook_errors == ()
    assert report.turns_new > 300
    rep = await hook.finish(graph_db)
    assert rep.sessions == report.sessions
    assert rep.turns == report.turns_new
    topics = await TopicRepository(graph_db).list_all()
    assert len(topics) >= 10
    assert all(t.message_ids for t in topics)
    busiest = max(topics, key=lambda t: t.message_count)
    assert len(busiest.sessions) >= 2  # topics are matched across sessions
    assert await TopicRepository(graph_db).mentioned_by(busiest.id)
    # LoCoMo's speakers are the people; the conversation's facts are personal ones.
    people = {p for t in topics for p in t.entities.people}
    assert {"Caroline", "Melanie"} & people
    [project] = {t.projects[0] for t in topics}
    facts = await FactRepository(graph_db).list_by_project(project)
    assert facts, "personal facts (moved to, works at, started ...) with provenance"
    for f in facts:
        assert await FactRepository(graph_db).sources(f.id) == list(f.source_turn_ids)
    lessons = await LessonRepository(graph_db).list_by_project(project)
    assert lessons, 'lessons stated in conversation ("I learned that ...")'
    for lesson in lessons:
        assert await LessonRepository(graph_db).sources(lesson.id)
    assert rep.snapshots == 1
    # Ingesting the same file again writes nothing new, so extraction has nothing to do.
    hook2 = ExtractionHook(settings, embedder=embedder)
    await ingest_paths(graph_db, settings, [locomo_first], hooks=[hook2], embedder=embedder)
    assert hook2.report.sessions == 0


async def test_claude_code_samples(
    graph_db: GraphDB, graph_settings: GraphSettings, embedder: Embedder, shared_dir: Path
) -> None:
    src = shared_dir / "benchmarks" / "transcripts" / "claude-code"
    if not src.is_dir():
        pytest.skip(f"Claude Code samples not found at {src}")
    settings = IngestSettings(**graph_settings.model_dump())
    hook = ExtractionHook(settings, embedder=embedder)
    report = await ingest_paths(graph_db, settings, [src], hooks=[hook], embedder=embedder)
    assert report.hook_errors == ()
    rep = await hook.finish(graph_db)
    assert rep.sessions >= 1
    topics = await TopicRepository(graph_db).list_all()
    assert topics
    # TodoWrite calls become todo facts; each item's newer status supersedes the older one.
    projects = {p for t in topics for p in t.projects}
    facts = [f for p in sorted(projects) for f in await FactRepository(graph_db).list_by_project(p)]
    todo = {f.subject: f for f in facts if f.kind == "todo" and f.is_open}
    assert todo["implement core functionality"].object == "completed"
    assert todo["write user documentation"].object == "pending"
    closed = [f for f in facts if f.subject == "implement core functionality" and not f.is_open]
    assert sorted(f.object for f in closed) == ["in_progress", "pending"]
    for f in facts:
        assert await FactRepository(graph_db).sources(f.id)
    for t in topics:
        turns = await TopicRepository(graph_db).mentioned_by(t.id)
        assert set(turns) >= set(t.message_ids)
