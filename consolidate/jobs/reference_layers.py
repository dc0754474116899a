"""reference_layers: a 500–5,000-token reference per high-weight topic, refreshed as it grows.

For each topic with weight ≥ `reference_min_weight` and no layer yet, with ≥
`reference_refresh_turns` new mentions since its layer was built, or with a newer summary than
the one its layer opens with, the job assembles the topic's summary (`topic_summaries`, when it
has one) as an overview, its corrections (rules first), lessons, facts, then quotes the newest
turns that mention it (read through `MENTIONS`, so a refresh takes in the new turns) until the
layer holds twice the minimum tokens when the material is there. Items belong to a topic when
they share a source turn or session with it, or a keyword. Layers under `reference_min_tokens`
are still written, with their gaps listed (and reported).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from consolidate.config import ConsolidateSection
from consolidate.models import JobContext, JobResult
from consolidate.text import clip, fit_bytes
from core.ids import make_id
from core.text import content_words, estimate_tokens
from graph.models import ReferenceLayer, TopicBrief
from graph.repositories.communities import CommunityRepository
from graph.repositories.reference_layers import ReferenceLayerRepository
from graph.repositories.rem import RemRepository
from graph.repositories.topic_briefs import TopicBriefRepository
from graph.rows import ExampleTurn, KnowledgeNode, TopicSummary

EXAMPLE_TURNS = 80
"""Newest turns mentioning a topic read per layer (its quotes are chosen among them)."""
FILL_FACTOR = 2
"""A layer quotes turns until it holds this many times the minimum tokens (within the maximum)."""

_SECTIONS = (("correction", "Rules and corrections"), ("lesson", "Lessons"), ("fact", "Facts"))


def _words(title: str, keywords: Sequence[str]) -> set[str]:
    return {w for k in keywords for w in content_words(k)} | set(content_words(title))


def related(topic: TopicSummary, items: Sequence[KnowledgeNode]) -> list[KnowledgeNode]:
    """Items sharing a turn, a session or two keywords with the topic, heaviest first.

    One shared word ("running") is chance; two name the same subject.
    """
    turns = set(topic.message_ids)
    sessions = set(topic.sessions)
    words = _words(topic.title, topic.keywords)
    out = [
        it
        for it in items
        if set(it.turn_ids) & turns
        or set(it.session_ids) & sessions
        or len(_words(it.title, it.keywords) & words) >= 2
    ]
    return sorted(out, key=lambda x: (-x.weight, x.id))


def _header(topic: TopicSummary) -> list[str]:
    lines = [f"# {topic.title}", ""]
    if topic.keywords:
        lines += [f"Keywords: {', '.join(topic.keywords[:12])}", ""]
    lines += [
        f"Discussed in {len(topic.sessions)} sessions, {topic.message_count} mentions.",
        "",
    ]
    return lines


def _section(title: str, group: Sequence[KnowledgeNode]) -> list[str]:
    lines = [f"## {title}"]
    for it in group[:40]:
        extra = f" — {clip(it.text, 240)}" if it.text and it.text != it.title else ""
        lines.append(f"- {clip(it.title, 200)}{extra}")
    lines.append("")
    return lines


def _quote(ex: ExampleTurn) -> str:
    who = ex.speaker or ex.role
    day = datetime.fromtimestamp(ex.at_ms / 1000, tz=UTC).strftime("%d %b %Y")
    return f"> **{who}** ({day}): {clip(ex.text, 400)}"


def quotes(
    examples: Sequence[ExampleTurn], room_chars: int, context: Sequence[ExampleTurn] = ()
) -> list[ExampleTurn]:
    """The newest turns whose quotes fit in `room_chars`, returned oldest first.

    Newest first, so a refreshed layer always takes in what was said since it was built; at least
    the newest turn when there is one. Room left is filled with `context` turns (the turns around
    the mentions), newest first.
    """
    out: list[ExampleTurn] = []
    used = 0
    for ex in sorted(examples, key=lambda x: (-x.at_ms, x.id)):
        cost = len(_quote(ex)) + 2
        if out and used + cost > room_chars:
            break
        out.append(ex)
        used += cost
    taken = {x.id for x in out}
    for ex in sorted(context, key=lambda x: (-x.at_ms, x.id)):
        cost = len(_quote(ex)) + 2
        if ex.id in taken or used + cost > room_chars:
            continue
        out.append(ex)
        taken.add(ex.id)
        used += cost
    return sorted(out, key=lambda x: (x.at_ms, x.id))


def _examples(examples: Sequence[ExampleTurn]) -> list[str]:
    lines = ["## From the conversations", ""]
    for ex in examples:
        lines += [_quote(ex), ""]
    return lines


def assemble(
    topic: TopicSummary,
    items: Sequence[KnowledgeNode],
    examples: Sequence[ExampleTurn],
    max_tokens: int,
    fill_tokens: int = 0,
    context: Sequence[ExampleTurn] = (),
    overview: str = "",
) -> tuple[str, list[str], list[str]]:
    """Reference text, its gaps and the quoted turns' ids; quotes fill it to `fill_tokens`.

    `overview` (the topic's summary prose, `topic_summaries`) opens the layer when there is one.
    """
    lines = _header(topic)
    if overview:
        lines += ["## Overview", "", overview, ""]
    gaps: list[str] = []
    for kind, title in _SECTIONS:
        group = [i for i in items if i.kind == kind]
        if group:
            lines += _section(title, group)
        else:
            gaps.append(f"no {title.lower()} about '{topic.title}'")
    room = min(fill_tokens, max_tokens) * 4 - len("\n".join(lines))
    if examples := quotes(examples, room, context) if examples else []:
        lines += _examples(examples)
    else:
        gaps.append("no example turns")
    text = "\n".join(lines).rstrip() + "\n"
    return fit_bytes(text, max_tokens * 4), gaps, [x.id for x in examples]


def due(
    topics: Sequence[TopicSummary],
    existing: Mapping[str, ReferenceLayer],
    cfg: ConsolidateSection,
    briefs: Mapping[str, TopicBrief] | None = None,
) -> list[TopicSummary]:
    """Topics due a layer: none yet, enough new mentions, or a newer summary than the layer's."""
    briefs = briefs or {}
    todo = []
    for t in topics:
        layer = existing.get(t.id)
        grown = t.message_count - (layer.turns_at_build if layer else 0)
        brief = briefs.get(t.id)
        newer = brief is not None and layer is not None and brief.id not in layer.source_ids
        if layer is None or grown >= cfg.reference_refresh_turns or newer:
            todo.append(t)
    return todo


def build_layer(
    ctx: JobContext,
    t: TopicSummary,
    items: Sequence[KnowledgeNode],
    turns: Sequence[ExampleTurn],
    context: Sequence[ExampleTurn] = (),
    brief: TopicBrief | None = None,
) -> ReferenceLayer:
    """The layer of one topic; short ones say so first among their gaps."""
    cfg = ctx.settings.consolidate
    rel = related(t, items)
    fill = cfg.reference_min_tokens * FILL_FACTOR
    overview = brief.summary if brief else ""
    text, gaps, quoted = assemble(t, rel, turns, cfg.reference_max_tokens, fill, context, overview)
    ntok = estimate_tokens(text)
    if ntok < cfg.reference_min_tokens:
        gaps.insert(0, f"only {ntok} tokens of material (target ≥ {cfg.reference_min_tokens})")
    return ReferenceLayer(
        id=make_id("reference_layer", ctx.project, t.id),
        project=ctx.project,
        topic_id=t.id,
        title=t.title,
        text=text,
        token_count=ntok,
        source_ids=tuple(i.id for i in rel[:100])
        + tuple(quoted)
        + ((brief.id,) if brief is not None else ()),
        gaps=tuple(gaps),
        turns_at_build=t.message_count,
        valid_from=ctx.now,
        recorded_at=ctx.now,
    )


async def run(ctx: JobContext) -> JobResult:
    """Build or refresh reference layers for high-weight topics."""
    cfg = ctx.settings.consolidate
    layers_repo = ReferenceLayerRepository(ctx.db)
    stored = await RemRepository(ctx.db).topics(ctx.project_filter, ctx.now_ms)
    topics = [t for t in stored if t.weight >= cfg.reference_min_weight]
    existing = {x.topic_id: x for x in await layers_repo.list_layers(ctx.project, ctx.now_ms)}
    current = await TopicBriefRepository(ctx.db).current(ctx.project, ctx.now_ms)
    briefs = {b.topic_id: b for b in current}  # by version: the newest open one wins
    todo = due(topics, existing, cfg, briefs)
    if not todo:
        return JobResult(summary={"topics": len(topics), "built": 0, "refreshed": 0})
    nodes = await CommunityRepository(ctx.db).project_nodes(ctx.project_filter, ctx.now_ms)
    items = [n for n in nodes if n.kind != "topic"]
    turns: dict[str, list[ExampleTurn]] = defaultdict(list)
    for x in await layers_repo.topic_turns(
        [t.id for t in todo], ctx.project, ctx.now_ms, EXAMPLE_TURNS
    ):
        turns[x.topic_id].append(x)
    context = await _context(layers_repo, turns, cfg.reference_min_tokens * FILL_FACTOR, ctx)
    briefs = {
        b.topic_id: b for b in await TopicBriefRepository(ctx.db).current(ctx.project, ctx.now_ms)
    }
    out = [
        build_layer(ctx, t, items, turns.get(t.id, []), context.get(t.id, []), briefs.get(t.id))
        for t in todo
    ]
    await layers_repo.upsert_many(out)
    return _result(len(topics), out, existing, cfg.reference_min_tokens)


async def _context(
    repo: ReferenceLayerRepository,
    turns: Mapping[str, Sequence[ExampleTurn]],
    fill_tokens: int,
    ctx: JobContext,
) -> dict[str, list[ExampleTurn]]:
    """The two turns either side of each mention, for topics whose mentions are too few."""
    short = [
        (tid, x.id)
        for tid, xs in turns.items()
        if sum(len(_quote(x)) + 2 for x in xs) < fill_tokens * 4
        for x in xs
    ]
    out: dict[str, list[ExampleTurn]] = defaultdict(list)
    for x in await repo.context_turns(short, ctx.project, ctx.now_ms) if short else []:
        out[x.topic_id].append(x)
    return out


def _result(
    topics: int, out: Sequence[ReferenceLayer], existing: Mapping[str, object], min_tokens: int
) -> JobResult:
    refreshed = sum(1 for x in out if x.topic_id in existing)
    return JobResult(
        summary={
            "topics": topics,
            "built": len(out) - refreshed,
            "refreshed": refreshed,
            "short": sum(1 for x in out if x.token_count < min_tokens),
        },
        report={"gaps": [f"{x.title}: {g}" for x in out for g in x.gaps][:50]},
    )
