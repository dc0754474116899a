"""communities: one projection → Leiden (in a thread) → new run → atomic switch → purge old runs.

Readers only ever see the current run: the new run's communities are written first, then one
statement flips the `current` flag (`community.promote_run`). A failure anywhere before that leaves
the previous run current. The report compares the new partition with the previous one (new, kept,
merged, split, dissolved communities) and lists orphans: items with no edge, or in a group too
small to be a community, with the nearest item they could be linked to.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from consolidate.leiden import Partition, partition
from consolidate.models import JobContext, JobResult
from consolidate.projection import (
    Delta,
    Description,
    build_edges,
    compare,
    describe,
    normalize_rows,
    similar_pairs,
)
from consolidate.text import clip
from core.ids import make_id
from graph.models import Community, CommunityRun, Finding
from graph.repositories.communities import CommunityRepository
from graph.rows import KnowledgeLink, KnowledgeNode, Provenance

MAX_SIMILARITY_NODES = 30_000
"""Above this many embedded items the O(n²) similarity pass is skipped (edges from provenance and
links only); the count is reported."""

MAX_ORPHAN_FINDINGS = 20
"""Orphan findings proposed per run (the rest are counted)."""

LLM_SUMMARIES = 30
"""Largest communities summarised by the LLM when one is configured."""


async def _llm_summaries(
    ctx: JobContext, groups: list[list[KnowledgeNode]], descs: list[Description]
) -> tuple[list[Description], int]:
    if not ctx.settings.llm.enabled:
        return descs, 0
    from ai.llm import LLMClient, LLMError, Message

    client = LLMClient(ctx.settings.llm)
    out = list(descs)
    done = 0
    try:
        for i, members in enumerate(groups[:LLM_SUMMARIES]):
            listing = "\n".join(f"- {m.kind}: {clip(m.title, 160)}" for m in members[:40])
            try:
                text = await client.complete(
                    [
                        Message(
                            "system",
                            "Summarise what these knowledge items have in common in "
                            "two sentences. Plain text.",
                        ),
                        Message("user", listing),
                    ],
                    purpose="community_summary",
                    max_tokens=200,
                )
            except LLMError as e:
                ctx.log.warning("LLM summary failed, keeping the extractive one: %s", e)
                break
            if text.strip():
                out[i] = Description(descs[i].title, descs[i].keywords, clip(text, 1_000))
                done += 1
    finally:
        await client.aclose()
    return out, done


@dataclass(frozen=True)
class Projection:
    """What the job reads: the knowledge items, their edges and their embeddings."""

    nodes: list[KnowledgeNode]
    by_id: dict[str, KnowledgeNode]
    ids: list[str]
    """Ids of the embedded items, in the order of `vectors`' rows."""
    vectors: np.ndarray
    provenance: list[Provenance]
    links: list[KnowledgeLink]


async def read_projection(ctx: JobContext, repo: CommunityRepository) -> Projection:
    """Four independent reads: the engine works on one while the client decodes another."""
    pf = ctx.project_filter
    nodes, provenance, links, embeddings = await asyncio.gather(
        repo.project_nodes(pf, ctx.now_ms),
        repo.project_provenance(pf, ctx.now_ms),
        repo.project_links(ctx.now_ms),
        repo.project_embeddings(pf, ctx.now_ms),
    )
    by_id = {n.id: n for n in nodes}
    embedded = [e for e in embeddings if e.id in by_id]
    vectors = (
        np.asarray([e.embedding for e in embedded], dtype=np.float32)
        if embedded
        else np.zeros((0, 1), dtype=np.float32)
    )
    return Projection(nodes, by_id, [e.id for e in embedded], vectors, provenance, links)


async def similarity_edges(ctx: JobContext, p: Projection) -> list[tuple[str, str, float]]:
    """Embedding-similarity pairs, skipped (empty) above `MAX_SIMILARITY_NODES` items."""
    if not 2 <= len(p.ids) <= MAX_SIMILARITY_NODES:
        return []
    cfg = ctx.settings.consolidate
    return await asyncio.to_thread(
        similar_pairs,
        p.ids,
        p.vectors,
        threshold=cfg.similarity_edge_threshold,
        k=cfg.similarity_neighbours,
    )


def split_groups(
    p: Projection, part: Partition, min_size: int
) -> tuple[list[list[KnowledgeNode]], list[str]]:
    """Leiden's groups big enough to be communities, and the ids left over (orphans, sorted)."""
    groups_all = [[p.by_id[str(m)] for m in g] for g in part.communities]
    groups = [g for g in groups_all if len(g) >= min_size]
    orphans = sorted(n.id for g in groups_all if len(g) < min_size for n in g)
    return groups, orphans


def degrees(edges: Sequence[tuple[str, str, float]]) -> Counter[str]:
    """Number of edges per item."""
    degree: Counter[str] = Counter()
    for a, b, _ in edges:
        degree[a] += 1
        degree[b] += 1
    return degree


async def previous_members(repo: CommunityRepository, project: str) -> dict[str, set[str]]:
    """Members of each community of the current run (empty before the first run)."""
    previous = await repo.current_run(project)
    if previous is None:
        return {}
    return {c.id: set(c.member_ids) for c in await repo.list_communities(previous.id)}


def community_run_id(ctx: JobContext) -> str:
    """Id of the project's `CommunityRun` in this job run (and prefix of its communities' ids).

    One job run over every project (`*`) partitions each project apart, so the id names the
    project too: with the job run's id alone, every project's run and its communities would
    share ids and each project would overwrite the previous one's.
    """
    return make_id("community_run", ctx.run_id, ctx.project)


async def write_run(
    ctx: JobContext,
    repo: CommunityRepository,
    part: Partition,
    groups: Sequence[Sequence[KnowledgeNode]],
    descs: Sequence[Description],
) -> list[Community]:
    """Write the new run and its communities, then make it current in one statement."""
    run_id = community_run_id(ctx)
    run_node = CommunityRun(
        id=run_id,
        project=ctx.project,
        started_at=ctx.now,
        status="running",
        current=False,
        resolution=part.resolution,
        seed=part.seed,
        quality=part.quality,
        community_count=len(groups),
        valid_from=ctx.now,
        recorded_at=ctx.now,
    )
    await repo.save_run(run_node)
    communities = [
        Community(
            id=make_id("community", run_id, i),
            project=ctx.project,
            run_id=run_id,
            title=d.title,
            keywords=d.keywords,
            size=len(g),
            member_ids=tuple(n.id for n in g),
            summary=d.summary,
            valid_from=ctx.now,
            recorded_at=ctx.now,
        )
        for i, (g, d) in enumerate(zip(groups, descs, strict=True))
    ]
    await repo.write_communities(communities)
    if not await repo.promote(ctx.project, run_id, ctx.now_ms):
        raise RuntimeError(f"community run {run_id} could not be promoted")
    return communities


async def purge_old_runs(ctx: JobContext, repo: CommunityRepository) -> int:
    """Delete the runs beyond `keep_runs` (the current one always stays)."""
    runs = await repo.list_runs(ctx.project)
    old = [r for r in runs if not r.current][max(0, ctx.settings.consolidate.keep_runs - 1) :]
    for r in old:
        await repo.purge_run(r.id)
    return len(old)


class Nearest:
    """Finds the embedded item most similar to a given one (cosine over unit rows)."""

    def __init__(self, p: Projection) -> None:
        self.ids = p.ids
        self.rows = {i: k for k, i in enumerate(p.ids)}
        self.unit = normalize_rows(p.vectors) if p.ids else p.vectors

    def __call__(self, item_id: str) -> str | None:
        """The nearest other item, or None without an embedding or a peer."""
        row = self.rows.get(item_id)
        if row is None or len(self.ids) < 2:
            return None
        sims = self.unit @ self.unit[row]
        sims[row] = -1.0
        return self.ids[int(np.argmax(sims))]


def orphan_findings(
    ctx: JobContext, p: Projection, orphans: Sequence[str], degree: Counter[str]
) -> list[Finding]:
    """One finding per orphan (up to `MAX_ORPHAN_FINDINGS`), proposing its nearest item."""
    findings = []
    nearest = Nearest(p)
    for oid in orphans[:MAX_ORPHAN_FINDINGS]:
        o = p.by_id[oid]
        target = nearest(oid)
        detail = f"{o.kind} '{clip(o.title, 80)}' has {degree.get(oid, 0)} links and no community"
        if target:
            t = p.by_id[target]
            detail += f"; nearest item: {t.kind} '{clip(t.title, 80)}'"
        findings.append(
            ctx.finding(
                "orphan",
                f"orphan {o.kind}: {clip(o.title, 60)}",
                detail,
                [oid, target] if target else [oid],
                "link" if target else "keep",
            )
        )
    return findings


class _Timer:
    """Milliseconds per named step, for the run's summary."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.ms[name] = (now - self._t) * 1000
        self._t = now


async def run(ctx: JobContext) -> JobResult:
    """Detect communities for the context's project and make them current."""
    cfg = ctx.settings.consolidate
    repo = CommunityRepository(ctx.db)
    timer = _Timer()
    p = await read_projection(ctx, repo)
    timer.lap("projection_ms")
    similar = await similarity_edges(ctx, p)
    edges = build_edges(p.nodes, p.provenance, p.links, similar)
    timer.lap("edges_ms")
    part = await asyncio.to_thread(
        partition,
        edges,
        nodes=list(p.by_id),
        seed=cfg.seed,
        resolution=cfg.resolution,
        backend=cfg.leiden_backend,
    )
    timer.lap("leiden_ms")

    groups, orphans = split_groups(p, part, cfg.min_community_size)
    descs, llm_done = await _llm_summaries(ctx, groups, [describe(g) for g in groups])
    delta = compare(await previous_members(repo, ctx.project), [{n.id for n in g} for g in groups])
    timer.lap("describe_ms")
    communities = await write_run(ctx, repo, part, groups, descs)
    timer.lap("write_ms")
    purged = await purge_old_runs(ctx, repo)
    findings = orphan_findings(ctx, p, orphans, degrees(edges))

    summary: dict[str, Any] = {
        "nodes": len(p.nodes),
        "edges": len(edges),
        "similarity_edges": len(similar),
        "embedded_nodes": len(p.ids),
        "communities": len(groups),
        "orphans": len(orphans),
        "quality": round(part.quality, 4),
        "run_id": community_run_id(ctx),
        "purged_runs": purged,
        "llm_summaries": llm_done,
        **delta.as_dict(),
        **{k: round(v, 1) for k, v in timer.ms.items() if k != "describe_ms"},
    }
    if len(p.ids) > MAX_SIMILARITY_NODES:
        summary["similarity_skipped"] = True
    return JobResult(summary=summary, findings=findings, report=_report(delta, communities))


def _report(delta: Delta, communities: Sequence[Community]) -> dict[str, Any]:
    return {
        "deltas": delta.as_dict(),
        "communities": [
            {"title": c.title, "size": c.size, "keywords": list(c.keywords)}
            for c in communities[:20]
        ],
    }
