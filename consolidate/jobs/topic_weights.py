"""topic_weights: recompute topic weights and phases, and co-occurrence strengths.

Weight = 0.3·frequency + 0.3·recency + 0.2·depth + 0.2·engagement (`knowledge.scoring`), with
depth = mentions per session / 8 (capped at 1), the same signals extraction uses on ingest.
Recency and phase are measured against the latest activity when that lies in the past, so a
historic import does not all look dormant. Co-occurrence: topics sharing n sessions get
`RELATED_TO` weight n / (n + 2); existing edges keep their direction.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from consolidate.models import JobContext, JobResult
from graph.repositories.rem import RemRepository
from knowledge.scoring import (
    TopicSignals,
    days_between,
    engagement_score,
    frequency_score,
    recency_score,
    topic_phase,
    topic_weight,
)

MAX_TOPICS_PER_SESSION = 60
"""Sessions touching more topics only relate their first (sorted) topics, bounding pair counts."""


def topic_signals(
    message_count: int, sessions: int, projects: int, days: float, recency_half_life_days: float
) -> TopicSignals:
    """A topic's weight signals from its mentions, sessions, projects and days since last seen.

    The job and the HTML report's weights-over-time plot (`consolidate/report_html.py`) both
    compute weights through it.
    """
    return TopicSignals(
        frequency=frequency_score(message_count),
        recency=recency_score(days, recency_half_life_days),
        depth=min(1.0, message_count / max(1, sessions) / 8.0),
        engagement=engagement_score(sessions, projects),
    )


async def run(ctx: JobContext) -> JobResult:
    """Recompute topic weights, phases and co-occurrence strengths."""
    cfg = ctx.settings.consolidate
    repo = RemRepository(ctx.db)
    topics = await repo.topics(ctx.project_filter, ctx.now_ms)
    if not topics:
        return JobResult(summary={"topics": 0})
    latest = max((int(t["last_seen"]) for t in topics if t["last_seen"]), default=ctx.now_ms)
    ref = min(ctx.now_ms, latest)
    rows: list[tuple[str, float, str]] = []
    changes: list[dict[str, Any]] = []
    phases: dict[str, int] = defaultdict(int)
    for t in topics:
        sessions = list(t["sessions"] or [])
        count = int(t["message_count"] or 0)
        days = days_between(int(t["last_seen"]), ref) if t["last_seen"] else 365.0
        sig = topic_signals(
            count, len(sessions), len(t["projects"] or []), days, cfg.recency_half_life_days
        )
        weight = round(topic_weight(sig), 6)
        phase = topic_phase(
            days, dormant_after_days=cfg.dormant_days, completed_after_days=cfg.completed_days
        )
        phases[phase] += 1
        rows.append((t["id"], weight, phase))
        before = float(t["weight"] or 0.0)
        if abs(weight - before) >= 0.01:
            changes.append({"id": t["id"], "title": t["title"], "before": before, "after": weight})
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
