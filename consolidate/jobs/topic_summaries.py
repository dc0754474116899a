"""topic_summaries: a summary with key takeaways per topic, rebuilt only when its material changed.

For each topic of the project with at least `topic_summary_min_mentions` mentions, the job reads
its newest `TOPIC_TURNS` mentioning turns (through `MENTIONS`; for a topic mentioned fewer than
`CONTEXT_BELOW` times also the two turns either side of each mention) and the project's live
knowledge items, keeps the items linked to the topic (`consolidate.topic_brief.linked_items`), and
fingerprints that material. A topic whose open brief has the same fingerprint keeps it, untouched;
otherwise a new brief is built (`consolidate.topic_brief.build_brief`) and, when its text differs,
written as the next version, ending the previous one in valid time (`SUPERSEDES`). Nothing is
deleted: every version stays readable as of its time.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from consolidate.models import JobContext, JobResult
from consolidate.topic_brief import Brief, build_brief, linked_items, material_hash
from core.ids import make_id
from core.timeutil import to_ms
from graph.models import TopicBrief
from graph.repositories.communities import CommunityRepository
from graph.repositories.reference_layers import ReferenceLayerRepository
from graph.repositories.rem import RemRepository
from graph.repositories.topic_briefs import TopicBriefRepository
from graph.rows import ExampleTurn, KnowledgeNode, TopicSummary

TOPIC_TURNS = 200
"""Newest mentioning turns read per topic (its sentences are chosen among them)."""
CONTEXT_BELOW = 10
"""A topic with fewer mentioning turns also reads the two turns either side of each mention."""
SHORT_WORDS = 300
"""A brief under this many words is reported as short (its topic has little material)."""


@dataclass
class _Plan:
    """What one run writes and counts."""

    new: list[TopicBrief] = field(default_factory=list)
    ends: list[tuple[str, str, int]] = field(default_factory=list)
    kept: int = 0
    unchanged: int = 0
    empty: int = 0
    short: list[str] = field(default_factory=list)


def latest_briefs(
    open_briefs: Sequence[TopicBrief],
) -> tuple[dict[str, TopicBrief], list[tuple[str, str, int]]]:
    """The newest open brief per topic, and ends for any older one still open (a killed run)."""
    by_topic: dict[str, list[TopicBrief]] = defaultdict(list)
    for b in open_briefs:
        by_topic[b.topic_id].append(b)
    latest: dict[str, TopicBrief] = {}
    ends: list[tuple[str, str, int]] = []
    for tid, bs in by_topic.items():
        bs.sort(key=lambda b: b.version)
        latest[tid] = bs[-1]
        start = to_ms(bs[-1].valid_from)
        ends += [(b.id, bs[-1].id, start) for b in bs[:-1]]
    return latest, ends


def _version(
    ctx: JobContext, t: TopicSummary, brief: Brief, digest: str, prev: TopicBrief | None
) -> TopicBrief:
    version = prev.version + 1 if prev else 1
    return TopicBrief(
        id=make_id("topic_brief", ctx.project, t.id, version),
        project=ctx.project,
        topic_id=t.id,
        version=version,
        title=t.title,
        summary=brief.summary,
        takeaways=tuple(x.text for x in brief.takeaways),
        takeaway_sources=tuple(x.source_id for x in brief.takeaways),
        text=brief.text,
        word_count=brief.words,
        source_turn_ids=brief.turn_ids,
        source_item_ids=brief.item_ids,
        material_hash=digest,
        valid_from=ctx.now,
        recorded_at=ctx.now,
    )


def plan(
    ctx: JobContext,
    topics: Sequence[TopicSummary],
    turns: Mapping[str, Sequence[ExampleTurn]],
    items: Sequence[KnowledgeNode],
    latest: Mapping[str, TopicBrief],
    context: Mapping[str, Sequence[ExampleTurn]],
) -> _Plan:
    """Per topic: keep its brief (same material or same text) or write the next version."""
    out = _Plan()
    for t in topics:
        mine = turns.get(t.id, ())
        around = context.get(t.id, ())
        linked = linked_items(t, items, (x.id for x in mine))
        digest = material_hash(t, mine, linked, around)
        prev = latest.get(t.id)
        if prev is not None and prev.material_hash == digest:
            out.kept += 1
            continue
        brief = build_brief(t, mine, linked, project=ctx.project, context=around)
        if brief is None:
            out.empty += 1
            continue
        if prev is not None and prev.text == brief.text:
            out.unchanged += 1
            continue
        new = _version(ctx, t, brief, digest, prev)
        out.new.append(new)
        if prev is not None:
            out.ends.append((prev.id, new.id, ctx.now_ms))
        if brief.words < SHORT_WORDS:
            out.short.append(f"{t.title}: {brief.words} words from {len(mine)} turns")
    return out


async def _turns(ctx: JobContext, topics: Sequence[TopicSummary]) -> dict[str, list[ExampleTurn]]:
    out: dict[str, list[ExampleTurn]] = defaultdict(list)
    rows = await ReferenceLayerRepository(ctx.db).topic_turns(
        [t.id for t in topics], ctx.project, ctx.now_ms, TOPIC_TURNS
    )
    for x in rows:
        out[x.topic_id].append(x)
    return out


async def _context(
    ctx: JobContext, turns: Mapping[str, Sequence[ExampleTurn]]
) -> dict[str, list[ExampleTurn]]:
    """The turns around the mentions of topics mentioned fewer than `CONTEXT_BELOW` times."""
    pairs = [(tid, x.id) for tid, xs in turns.items() if len(xs) < CONTEXT_BELOW for x in xs]
    out: dict[str, list[ExampleTurn]] = defaultdict(list)
    if pairs:
        for x in await ReferenceLayerRepository(ctx.db).context_turns(
            pairs, ctx.project, ctx.now_ms
        ):
            out[x.topic_id].append(x)
    return out


async def run(ctx: JobContext) -> JobResult:
    """Build or refresh the summaries of the project's topics."""
    cfg = ctx.settings.consolidate
    stored = await RemRepository(ctx.db).topics(ctx.project_filter, ctx.now_ms)
    topics = [t for t in stored if t.message_count >= cfg.topic_summary_min_mentions]
    repo = TopicBriefRepository(ctx.db)
    latest, stray = latest_briefs(await repo.current(ctx.project, ctx.now_ms))
    turns = await _turns(ctx, topics) if topics else {}
    nodes = await CommunityRepository(ctx.db).project_nodes(ctx.project_filter, ctx.now_ms)
    context = await _context(ctx, turns)
    p = plan(ctx, topics, turns, [n for n in nodes if n.kind != "topic"], latest, context)
    await repo.upsert_many(p.new)
    await repo.supersede(stray + p.ends, ctx.now_ms)
    refreshed = len(p.ends)
    return JobResult(
        summary={
            "topics": len(topics),
            "built": len(p.new) - refreshed,
            "refreshed": refreshed,
            "kept": p.kept,
            "unchanged": p.unchanged,
            "empty": p.empty,
            "short": len(p.short),
        },
        report={"gaps": p.short[:50]},
    )
