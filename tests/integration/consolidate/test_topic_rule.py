"""Extraction (end of an ingest run) and the REM cycle's `topic_weights` job weigh topics alike."""

from __future__ import annotations

from typing import Any

from consolidate.config import ConsolidateSettings
from consolidate.runner import run_job
from core.timeutil import to_ms
from graph.db import GraphDB
from graph.models import Topic
from graph.repositories.topics import TopicRepository
from ingest.extract.apply import KnowledgeWriter
from ingest.extract.config import ExtractSettings
from tests.integration.consolidate.seed import NOW, at, put_topics
from tests.shared_embedder import shared_local_embedder


def _topic(id: str, sessions: int, count: int, last_days: float, **kw: Any) -> Topic:
    return Topic(
        id=id,
        title=id.replace("_", " "),
        projects=kw.pop("projects", ("p",)),
        sessions=tuple(f"s{i}" for i in range(sessions)),
        message_count=count,
        last_seen=at(last_days),
        first_seen=at(400),
        valid_from=at(400),
        recorded_at=at(400),
        **kw,
    )


async def _standings(db: GraphDB) -> dict[str, tuple[float, str]]:
    return {t.id: (t.weight, t.phase) for t in await TopicRepository(db).list_all(now=to_ms(NOW))}


async def test_ingest_and_the_rem_job_give_the_same_weight_and_phase(
    graph_db: GraphDB, rem_settings: ConsolidateSettings
) -> None:
    # The most recent activity is 5 days old: both measure recency and phase from it.
    topics = [
        _topic("recent_topic", 6, 40, 5),
        _topic("quiet_topic", 2, 6, 25),
        _topic("seventy_five_days", 3, 12, 80),
        _topic("long_gone", 1, 2, 300),
    ]
    await put_topics(graph_db, topics)
    writer = KnowledgeWriter(
        graph_db, shared_local_embedder(), ExtractSettings(), topic_rules=rem_settings.topics
    )
    assert await writer.recompute_topic_weights(now=to_ms(NOW)) == 4
    after_ingest = await _standings(graph_db)

    await put_topics(graph_db, topics)  # back to the stored defaults (weight 0, active)
    assert {p for _, p in (await _standings(graph_db)).values()} == {"active"}
    report = await run_job(
        "topic_weights", db=graph_db, settings=rem_settings, now=NOW, project="*"
    )
    assert report.status == "succeeded", report.error
    after_rem = await _standings(graph_db)

    assert after_rem == after_ingest
    assert {k: p for k, (_, p) in after_ingest.items()} == {
        "recent_topic": "active",
        "quiet_topic": "dormant",
        "seventy_five_days": "completed",  # 75 days after the latest activity: past 60
        "long_gone": "completed",
    }
    assert after_ingest["recent_topic"][0] > after_ingest["quiet_topic"][0] > 0
