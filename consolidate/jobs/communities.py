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
from typing import Any

import numpy as np

from consolidate.leiden import partition
from consolidate.models import JobContext, JobResult
from consolidate.projection import (
    Description,
    KnowledgeNode,
    build_edges,
    compare,
    describe,
    node_from_row,
    normalize_rows,
    similar_pairs,
)
from consolidate.text import clip
from core.ids import make_id
from graph.models import Community, CommunityRun
from graph.repositories.communities import CommunityRepository

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


async def run(ctx: JobContext) -> JobResult:
    """Detect communities for the context's project and make them current."""
    cfg = ctx.settings.consolidate
    repo = CommunityRepository(ctx.db)
    pf = ctx.project_filter
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    # four independent reads: the engine works on one while the client decodes another
    node_rows, provenance, links, emb_rows = await asyncio.gather(
        repo.project_nodes(pf, ctx.now_ms),
        repo.project_provenance(pf, ctx.now_ms),
        repo.project_links(ctx.now_ms),
        repo.project_embeddings(pf, ctx.now_ms),
    )
    nodes = [node_from_row(r) for r in node_rows]
    timings["projection_ms"] = (time.perf_counter() - t0) * 1000
    by_id = {n.id: n for n in nodes}
    emb_rows = [r for r in emb_rows if r["id"] in by_id and r["embedding"]]
    ids = [str(r["id"]) for r in emb_rows]
    vectors = (
        np.asarray([r["embedding"] for r in emb_rows], dtype=np.float32)
        if emb_rows
        else np.zeros((0, 1), dtype=np.float32)
    )
    t1 = time.perf_counter()
    similar: list[tuple[str, str, float]] = []
    if 2 <= len(ids) <= MAX_SIMILARITY_NODES:
        similar = await asyncio.to_thread(
            similar_pairs,
            ids,
            vectors,
            threshold=cfg.similarity_edge_threshold,
            k=cfg.similarity_neighbours,
        )
    edges = build_edges(nodes, provenance, links, similar)
    timings["edges_ms"] = (time.perf_counter() - t1) * 1000
    t2 = time.perf_counter()
    part = await asyncio.to_thread(
        partition,
        edges,
        nodes=list(by_id),
        seed=cfg.seed,
        resolution=cfg.resolution,
        backend=cfg.leiden_backend,
    )
    timings["leiden_ms"] = (time.perf_counter() - t2) * 1000

    groups_all = [[by_id[str(m)] for m in g] for g in part.communities]
    degree: dict[str, int] = {}
    for a, b, _ in edges:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    groups = [g for g in groups_all if len(g) >= cfg.min_community_size]
    orphans = sorted(n.id for g in groups_all if len(g) < cfg.min_community_size for n in g)

    descs = [describe(g) for g in groups]
    descs, llm_done = await _llm_summaries(ctx, groups, descs)

    previous = await repo.current_run(ctx.project)
    prev_members: dict[str, set[str]] = {}
    if previous is not None:
        prev_members = {c.id: set(c.member_ids) for c in await repo.list_communities(previous.id)}
    delta = compare(prev_members, [{n.id for n in g} for g in groups])

    t3 = time.perf_counter()
    run_id = ctx.run_id
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
    promoted = await repo.promote(ctx.project, run_id, ctx.now_ms)
    if not promoted:
        raise RuntimeError(f"community run {run_id} could not be promoted")
    timings["write_ms"] = (time.perf_counter() - t3) * 1000

    purged = 0
    runs = await repo.list_runs(ctx.project)
    for old in [r for r in runs if not r.current][max(0, cfg.keep_runs - 1) :]:
        await repo.purge_run(old.id)
        purged += 1

    findings = []
    unit = normalize_rows(vectors) if len(ids) else vectors
    row_of = {i: k for k, i in enumerate(ids)}
    for oid in orphans[:MAX_ORPHAN_FINDINGS]:
        o = by_id[oid]
        target: str | None = None
        if oid in row_of and len(ids) > 1:
            sims = unit @ unit[row_of[oid]]
            sims[row_of[oid]] = -1.0
            target = ids[int(np.argmax(sims))]
        detail = f"{o.kind} '{clip(o.title, 80)}' has {degree.get(oid, 0)} links and no community"
        if target:
            detail += f"; nearest item: {by_id[target].kind} '{clip(by_id[target].title, 80)}'"
        findings.append(
            ctx.finding(
                "orphan",
                f"orphan {o.kind}: {clip(o.title, 60)}",
                detail,
                [oid, target] if target else [oid],
                "link" if target else "keep",
            )
        )

    summary: dict[str, Any] = {
        "nodes": len(nodes),
        "edges": len(edges),
        "similarity_edges": len(similar),
        "embedded_nodes": len(ids),
        "communities": len(groups),
        "orphans": len(orphans),
        "quality": round(part.quality, 4),
        "run_id": run_id,
        "purged_runs": purged,
        "llm_summaries": llm_done,
        **delta.as_dict(),
        **{k: round(v, 1) for k, v in timings.items()},
    }
    if len(ids) > MAX_SIMILARITY_NODES:
        summary["similarity_skipped"] = True
    report = {
        "deltas": delta.as_dict(),
        "communities": [
            {"title": c.title, "size": c.size, "keywords": list(c.keywords)}
            for c in communities[:20]
        ],
    }
    return JobResult(summary=summary, findings=findings, report=report)
