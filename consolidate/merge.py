"""Pure merge rules for duplicate lessons and corrections.

The kept item is the older one (first recorded; ties by id), so ids that agents already hold
stay valid. It takes the union of keywords, sources and sessions (order kept, no repeats), the
sum of reinforcement and usage counters, and the larger confidence or weight. Both pre-merge
states of lessons are snapshotted as `LessonVersion`s.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TypeVar

from core.ids import make_id
from graph.models import Correction, Lesson, LessonVersion

T = TypeVar("T")


def union(*seqs: Iterable[T]) -> tuple[T, ...]:
    """Items of all sequences in first-seen order, without repeats."""
    seen: dict[T, None] = {}
    for s in seqs:
        for x in s:
            seen.setdefault(x, None)
    return tuple(seen)


def order_pair(a: Lesson | Correction, b: Lesson | Correction) -> tuple[str, str]:
    """(keep id, duplicate id): the older item is kept."""
    ka = (a.recorded_at, a.valid_from, a.id)
    kb = (b.recorded_at, b.valid_from, b.id)
    return (a.id, b.id) if ka <= kb else (b.id, a.id)


def snapshot(lesson: Lesson, reason: str, now: datetime) -> LessonVersion:
    """The lesson's current state as an immutable version."""
    return LessonVersion(
        id=make_id("lesson_version", lesson.id, lesson.version),
        project=lesson.project,
        lesson_id=lesson.id,
        version=lesson.version,
        title=lesson.title,
        content=lesson.content,
        summary=lesson.summary,
        reason=reason,
        created_at=now,
        valid_from=now,
        recorded_at=now,
    )


def merge_lessons(
    keep: Lesson, dup: Lesson, now: datetime
) -> tuple[Lesson, LessonVersion, LessonVersion]:
    """The merged `keep` plus snapshots of both lessons before the merge."""
    merged = keep.model_copy(
        update={
            "keywords": union(keep.keywords, dup.keywords),
            "source_turn_ids": union(keep.source_turn_ids, dup.source_turn_ids),
            "usage_count": keep.usage_count + dup.usage_count,
            "helpful_count": keep.helpful_count + dup.helpful_count,
            "harmful_count": keep.harmful_count + dup.harmful_count,
            "weight": max(keep.weight, dup.weight),
            "quality": max(keep.quality, dup.quality),
            "version": keep.version + 1,
        }
    )
    return (
        merged,
        snapshot(keep, f"before merging duplicate {dup.id}", now),
        snapshot(dup, f"merged into {keep.id}", now),
    )


def merge_corrections(keep: Correction, dup: Correction) -> Correction:
    """The merged `keep`: unions, summed reinforcement, widest first/last seen."""
    firsts = [t for t in (keep.first_seen, dup.first_seen) if t is not None]
    lasts = [t for t in (keep.last_seen, dup.last_seen) if t is not None]
    return keep.model_copy(
        update={
            "sessions": union(keep.sessions, dup.sessions),
            "source_turn_ids": union(keep.source_turn_ids, dup.source_turn_ids),
            "reinforcement": keep.reinforcement + dup.reinforcement,
            "confidence": max(keep.confidence, dup.confidence),
            "first_seen": min(firsts) if firsts else None,
            "last_seen": max(lasts) if lasts else None,
            "usage_count": keep.usage_count + dup.usage_count,
            "helpful_count": keep.helpful_count + dup.helpful_count,
            "harmful_count": keep.harmful_count + dup.harmful_count,
            "confirmed": keep.confirmed or dup.confirmed,
        }
    )
