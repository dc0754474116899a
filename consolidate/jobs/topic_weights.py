"""topic_weights: recompute topic weights and phases, and co-occurrence strengths.

Weight and phase follow `knowledge.topics.topic_standings` with the shared `topics` rules, the
same function and thresholds extraction applies at the end of an ingest run. Co-occurrence: topics
sharing n sessions get `RELATED_TO` weight n / (n + 2); existing edges keep their direction.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from consolidate.models import JobContext, JobResult
from graph.repositories.rem import RemRepository
from knowledge.topics import TopicActivity, topic_standings

MAX_TOPICS_PER_SESSION = 60
"""Sessions touching more topics only relate their first (sorted) topics, bounding pair counts."""


async def run(ctx: JobContext) -> JobResult:
    """Recompute topic weights, phases and co-occurrence strengths."""
    repo = RemRepository(ctx.db)
    topics = await repo.topics(ctx.project_filter, ctx.now_ms)
    if not topics:
        return JobResult(summary={"topics": 0})
    activity = [
        TopicActivity(
            id=t["id"],
            message_count=int(t["message_count"] or 0),
            sessions=len(t["sessions"] or []),
            projects=len(t["projects"] or []),
            last_seen_ms=int(t["last_seen"]) if t["last_seen"] else None,
        )
        for t in topics
    ]
    standings = topic_standings(activity, ctx.now_ms, ctx.settings.topics)
    rows: list[tuple[str, float, str]] = []
    changes: list[dict[str, Any]] = []
    phases: dict[str, int] = defaultdict(int)
    for t, st in zip(topics, standings, strict=True):
        phases[st.phase] += 1
        rows.append((st.id, st.weight, st.phase))
        before = float(t["weight"] or 0.0)
        if abs(st.weight - before) >= 0.01:
            changes.append({"id": st.id, "title": t["title"], "before": before, "after": st.weight})
    await repo.set_topic_weights(rows, ctx.now_ms)

    by_session: dict[str, list[str]] = defaultdict(list)
    for t in topics:
        for s in set(t["sessions"] or []):
            by_session[s].append(t["id"])
    shared: dict[tuple[str, str], int] = defaultdict(int)
    for members in by_session.values():
        ids = sorted(members)[:MAX_TOPICS_PER_SESSION]
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                shared[(a, b)] += 1
    stored = {(r["source_id"], r["target_id"]) for r in await repo.topic_links(ctx.now_ms)}
    co: list[tuple[str, str, float, int]] = []
    for (a, b), n in sorted(shared.items()):
        src, dst = (b, a) if (b, a) in stored and (a, b) not in stored else (a, b)
        co.append((src, dst, round(n / (n + 2.0), 6), n))
    await repo.set_cooccurrence(co, ctx.now_ms)
    changes.sort(key=lambda c: -abs(c["after"] - c["before"]))
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
