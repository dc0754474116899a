"""reference_layers: a 500–5,000-token reference per high-weight topic, refreshed as it grows.

For each topic with weight ≥ `reference_min_weight` and no layer yet, or with ≥
`reference_refresh_turns` new mentions since its layer was built, the job assembles the topic's
corrections (rules first), lessons, facts and a few example turns into Markdown. Items belong to
a topic when they share a source turn or session with it, or a keyword. Layers under
`reference_min_tokens` are still written, with their gaps listed (and reported).
"""

from __future__ import annotations

from typing import Any

from consolidate.models import JobContext, JobResult
from consolidate.projection import KnowledgeNode, node_from_row
from consolidate.text import clip, fit_bytes
from core.ids import make_id
from core.text import content_words
from graph.models import ReferenceLayer
from graph.repositories.communities import CommunityRepository
from graph.repositories.reference_layers import ReferenceLayerRepository
from graph.repositories.rem import RemRepository

EXAMPLE_TURNS = 6
"""Example turns quoted per layer."""


def estimate_tokens(text: str) -> int:
    """About four characters per token."""
    return (len(text) + 3) // 4


def related(topic: dict[str, Any], items: list[KnowledgeNode]) -> list[KnowledgeNode]:
    """Items sharing a turn, a session or a keyword with the topic, heaviest first."""
    turns = set(topic["message_ids"] or [])
    sessions = set(topic["sessions"] or [])
    words = {w for k in (topic["keywords"] or []) for w in content_words(k)} | set(
        content_words(topic["title"] or "")
    )
    out = []
    for it in items:
        iw = {w for k in it.keywords for w in content_words(k)} | set(content_words(it.title))
        if set(it.turn_ids) & turns or set(it.session_ids) & sessions or iw & words:
            out.append(it)
    return sorted(out, key=lambda x: (-x.weight, x.id))


def assemble(
    topic: dict[str, Any],
    items: list[KnowledgeNode],
    examples: list[dict[str, Any]],
    max_tokens: int,
) -> tuple[str, list[str]]:
    """Reference text and its gaps."""
    sections = [("correction", "Rules and corrections"), ("lesson", "Lessons"), ("fact", "Facts")]
    lines = [f"# {topic['title']}", ""]
    if topic["keywords"]:
        lines += [f"Keywords: {', '.join(topic['keywords'][:12])}", ""]
    lines += [
        f"Discussed in {len(topic['sessions'] or [])} sessions, "
        f"{int(topic['message_count'] or 0)} mentions.",
        "",
    ]
    gaps: list[str] = []
    for kind, title in sections:
        group = [i for i in items if i.kind == kind]
        if not group:
            gaps.append(f"no {title.lower()} about '{topic['title']}'")
            continue
        lines.append(f"## {title}")
        for it in group[:40]:
            extra = f" — {clip(it.text, 240)}" if it.text and it.text != it.title else ""
            lines.append(f"- {clip(it.title, 200)}{extra}")
        lines.append("")
    if examples:
        lines.append("## Examples")
        for ex in examples:
            lines.append(f"> **{ex['role']}**: {clip(ex['text'] or '', 400)}")
            lines.append("")
    else:
        gaps.append("no example turns")
    text = "\n".join(lines).rstrip() + "\n"
    return fit_bytes(text, max_tokens * 4), gaps


async def run(ctx: JobContext) -> JobResult:
    """Build or refresh reference layers for high-weight topics."""
    cfg = ctx.settings.consolidate
    rem = RemRepository(ctx.db)
    layers_repo = ReferenceLayerRepository(ctx.db)
    topics = [
        t
        for t in await rem.topics(ctx.project_filter, ctx.now_ms)
        if float(t["weight"] or 0) >= cfg.reference_min_weight
    ]
    existing = {x.topic_id: x for x in await layers_repo.list_layers(ctx.project, ctx.now_ms)}
    todo = []
    for t in topics:
        layer = existing.get(t["id"])
        grown = int(t["message_count"] or 0) - (layer.turns_at_build if layer else 0)
        if layer is None or grown >= cfg.reference_refresh_turns:
            todo.append(t)
    if not todo:
        return JobResult(summary={"topics": len(topics), "built": 0, "refreshed": 0})
    items = [
        node_from_row(r)
        for r in await CommunityRepository(ctx.db).project_nodes(ctx.project_filter, ctx.now_ms)
        if r["kind"] != "topic"
    ]
    turn_ids = [i for t in todo for i in (t["message_ids"] or [])[:EXAMPLE_TURNS]]
    turns = {r["id"]: r for r in await layers_repo.turns(turn_ids)}
    out: list[ReferenceLayer] = []
    gaps_report: list[str] = []
    short = 0
    for t in todo:
        rel = related(t, items)
        examples = [turns[i] for i in (t["message_ids"] or [])[:EXAMPLE_TURNS] if i in turns]
        text, gaps = assemble(t, rel, examples, cfg.reference_max_tokens)
        ntok = estimate_tokens(text)
        if ntok < cfg.reference_min_tokens:
            short += 1
            gaps.insert(0, f"only {ntok} tokens of material (target ≥ {cfg.reference_min_tokens})")
        gaps_report += [f"{t['title']}: {g}" for g in gaps]
        out.append(
            ReferenceLayer(
                id=make_id("reference_layer", ctx.project, t["id"]),
                project=ctx.project,
                topic_id=t["id"],
                title=t["title"],
                text=text,
                token_count=ntok,
                source_ids=tuple(i.id for i in rel[:100]),
                gaps=tuple(gaps),
                turns_at_build=int(t["message_count"] or 0),
                valid_from=ctx.now,
                recorded_at=ctx.now,
            )
        )
    await layers_repo.upsert_many(out)
    refreshed = sum(1 for t in todo if t["id"] in existing)
    return JobResult(
        summary={
            "topics": len(topics),
            "built": len(out) - refreshed,
            "refreshed": refreshed,
            "short": short,
        },
        report={"gaps": gaps_report[:50]},
    )
