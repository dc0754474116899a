"""duplicates: near-identical lessons and corrections merge; close calls become review findings.

Cosine similarity of stored embeddings within one project and one kind finds candidate pairs
(≥ `review_threshold`, 0.80). A pair merges in the job only when its cosine is at least
`merge_threshold` (0.90) **and** the two texts are near-identical (`consolidate.policy`): cosine
alone also joins opposite or narrower statements. The merge keeps history (`LessonVersion`
snapshots, `DUPLICATE_OF`, the duplicate retired in record time, never deleted) and is journalled
under the job's run id with both before-images, so `remgraph rem undo RUN_ID` reverts it. Every
other pair becomes a `merge` finding for a reviewer. Each item merges at most once per run, so
chains resolve over later runs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from consolidate.merge import merge_corrections, merge_lessons, order_pair
from consolidate.models import JobContext, JobResult
from consolidate.policy import near_identical
from consolidate.projection import similar_pairs
from consolidate.text import clip
from core.ids import make_id
from graph.models import Correction, Finding, Lesson
from graph.repositories.rem import CorrectionMerge, LessonMerge, RemRepository
from graph.repositories.rem_actions import RemActionRepository
from graph.rows import RemActionRecord

T = TypeVar("T", Lesson, Correction)


def candidate_pairs(items: Sequence[T], threshold: float) -> list[tuple[str, str, float]]:
    """Pairs within the same project with cosine ≥ `threshold`, most similar first."""
    by_project: dict[str, list[T]] = defaultdict(list)
    for it in items:
        if it.embedding is not None:
            by_project[it.project].append(it)
    pairs: list[tuple[str, str, float]] = []
    for group in by_project.values():
        if len(group) < 2:
            continue
        ids = [g.id for g in group]
        vecs = np.asarray([g.embedding for g in group], dtype=np.float32)
        pairs += similar_pairs(ids, vecs, threshold=threshold, k=10)
    return sorted(pairs, key=lambda p: (-p[2], p[0], p[1]))


def _text(x: Lesson | Correction) -> str:
    """What near-identity is judged on (as `consolidate.policy.item_text`)."""
    return x.rule_text if isinstance(x, Correction) else f"{x.title} {x.content or x.summary}"


def _label(x: Lesson | Correction) -> str:
    return clip(x.title or x.summary, 70) if isinstance(x, Lesson) else clip(x.rule_text, 70)


async def run(ctx: JobContext) -> JobResult:
    """Merge or propose merging duplicate lessons and corrections."""
    cfg = ctx.settings.consolidate
    repo = RemRepository(ctx.db)
    lessons = {r.lesson.id: r.lesson for r in await repo.lessons(ctx.project_filter, ctx.now_ms)}
    corrections = {
        r.correction.id: r.correction
        for r in await repo.corrections(ctx.project_filter, ctx.now_ms)
    }
    findings: list[Finding] = []
    lesson_merges: list[LessonMerge] = []
    correction_merges: list[CorrectionMerge] = []
    touched: set[str] = set()
    reviews = 0

    def consider(kind: str, items: dict[str, T]) -> list[tuple[str, str, float]]:
        nonlocal reviews
        merges = []
        for a, b, sim in candidate_pairs(list(items.values()), cfg.review_threshold):
            keep_id, dup_id = order_pair(items[a], items[b])
            same = near_identical(_text(items[keep_id]), _text(items[dup_id]))
            if sim >= cfg.merge_threshold and cfg.auto_merge and same:
                if keep_id in touched or dup_id in touched:
                    continue  # one merge per item per run; the rest resolves next run
                touched.update((keep_id, dup_id))
                merges.append((keep_id, dup_id, sim))
            else:
                reviews += 1
                findings.append(
                    ctx.finding(
                        f"duplicate_{kind}",
                        f"possible duplicate {kind}s ({sim:.2f})",
                        f"'{_label(items[dup_id])}' looks like '{_label(items[keep_id])}' "
                        f"(cosine {sim:.3f}); merging keeps both versions",
                        [keep_id, dup_id],
                        "merge",
                        evidence=f"{sim:.2f}|{_label(items[keep_id])}|{_label(items[dup_id])}",
                    )
                )
        return merges

    for keep_id, dup_id, sim in consider("lesson", lessons):
        merged, kv, dv = merge_lessons(lessons[keep_id], lessons[dup_id], ctx.now)
        lesson_merges.append(LessonMerge(merged, dup_id, kv, dv, sim))
    for keep_id, dup_id, sim in consider("correction", corrections):
        correction_merges.append(
            CorrectionMerge(
                merge_corrections(corrections[keep_id], corrections[dup_id]), dup_id, sim
            )
        )
    journal = RemActionRepository(ctx.db)
    pairs = [(m.keep.id, m.dup_id) for m in lesson_merges]
    pairs += [(m.keep.id, m.dup_id) for m in correction_merges]
    before = await journal.snapshot([i for pair in pairs for i in pair], ctx.now_ms)
    await repo.merge_lessons(lesson_merges, ctx.now_ms)
    await repo.merge_corrections(correction_merges, ctx.now_ms)
    await journal.record(
        [
            RemActionRecord(
                id=make_id("rem_action", ctx.run_id, keep, dup),
                run_id=ctx.run_id,
                project=ctx.project,
                finding_id="",
                action="merge",
                note=f"merged {dup} into {keep}",
                before={i: before[i] for i in (keep, dup) if i in before},
                edges=(("DUPLICATE_OF", dup, keep),),
                applied_at=ctx.now_ms,
                seq=n,
            )
            for n, (keep, dup) in enumerate(pairs)
        ]
    )
    return JobResult(
        summary={
            "lessons": len(lessons),
            "corrections": len(corrections),
            "merged_lessons": len(lesson_merges),
            "merged_corrections": len(correction_merges),
            "review": reviews,
        },
        findings=findings,
        report={
            "merges": [
                *(
                    {"keep": m.keep.id, "duplicate": m.dup_id, "similarity": round(m.similarity, 3)}
                    for m in lesson_merges
                ),
                *(
                    {"keep": c.keep.id, "duplicate": c.dup_id, "similarity": round(c.similarity, 3)}
                    for c in correction_merges
                ),
            ][:50]
        },
    )
