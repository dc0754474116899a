"""topic_weights: recompute topic weights and phases, and co-occurrence strengths.

Weight and phase follow `knowledge.topics.topic_standings` with the shared `topics` rules, the
same function and thresholds extraction applies at the end of an ingest run. Co-occurrence: topics
sharing n sessions get `RELATED_TO` weight n / (n + 2); existing edges keep their direction.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from consolidate.models import JobContext, JobResult
from graph.repositories.rem import RemRepository
from graph.rows import TopicSummary
from knowledge.topics import TopicActivity, TopicStanding, topic_standings

MAX_TOPICS_PER_SESSION = 60
"""Sessions touching more topics only relate their first (sorted) topics, bounding pair counts."""

CoOccurrence = tuple[str, str, float, int]
"""(source id, target id, weight, shared sessions) of one `RELATED_TO` edge."""


def activity(t: TopicSummary) -> TopicActivity:
    """What the topic rule needs from a stored topic."""
    return TopicActivity(t.id, t.message_count, len(t.sessions), len(t.projects), t.last_seen_ms)


def weight_changes(
    topics: Sequence[TopicSummary], standings: Sequence[TopicStanding]
) -> list[dict[str, Any]]:
    """Topics whose weight moved by 0.01 or more, largest move first."""
    moved = [
        (t, s) for t, s in zip(topics, standings, strict=True) if abs(s.weight - t.weight) >= 0.01
    ]
    moved.sort(key=lambda ts: -abs(ts[1].weight - ts[0].weight))
    return [{"id": s.id, "title": t.title, "before": t.weight, "after": s.weight} for t, s in moved]


def shared_sessions(topics: Sequence[TopicSummary]) -> Counter[tuple[str, str]]:
    """Sessions each pair of topics (a < b) was discussed in together."""
    by_session: dict[str, list[str]] = defaultdict(list)
    for t in topics:
        for s in set(t.sessions):
            by_session[s].append(t.id)
    shared: Counter[tuple[str, str]] = Counter()
    for members in by_session.values():
        ids = sorted(members)[:MAX_TOPICS_PER_SESSION]
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                shared[(a, b)] += 1
    return shared


def cooccurrence(
    shared: Counter[tuple[str, str]], stored: set[tuple[str, str]]
) -> list[CoOccurrence]:
    """One edge per pair, weighted n / (n + 2); a stored edge keeps its direction."""
    out: list[CoOccurrence] = []
    for (a, b), n in sorted(shared.items()):
        src, dst = (b, a) if (b, a) in stored and (a, b) not in stored else (a, b)
        out.append((src, dst, round(n / (n + 2.0), 6), n))
    return out


async def run(ctx: JobContext) -> JobResult:
    """Recompute topic weights, phases and co-occurrence strengths."""
    repo = RemRepository(ctx.db)
    topics = await repo.topics(ctx.project_filter, ctx.now_ms)
    if not topics:
        return JobResult(summary={"topics": 0})
    standings = topic_standings([activity(t) for t in topics], ctx.now_ms, ctx.settings.topics)
    await repo.set_topic_weights([(s.id, s.weight, s.phase) for s in standings], ctx.now_ms)
    changes = weight_changes(topics, standings)

    stored = {(x.source_id, x.target_id) for x in await repo.topic_links(ctx.now_ms)}
    co = cooccurrence(shared_sessions(topics), stored)
    await repo.set_cooccurrence(co, ctx.now_ms)
    phases = Counter(s.phase for s in standings)
    return JobResult(
        summary={
            "topics": len(topics),
            "changed": len(changes),
            "cooccurrence_edges": len(co),
            "new_edges": sum(1 for a, b, _, _ in co if (a, b) not in stored),
            **{f"phase_{k}": v for k, v in sorted(phases.items())},
        },
        report={"weight_changes": changes[:30]},
    )
