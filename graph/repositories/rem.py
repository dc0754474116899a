"""`RemRepository`: the REM cycle's reads and writes on lessons, corrections and other knowledge.

These are consolidation-specific operations (merge duplicates with history, graduation and decay
fields, archiving, linking, drafting lessons from findings); ordinary CRUD stays in the
per-aggregate repositories.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graph.cypher import Q, QueryRef
from graph.db import GraphDB, Row
from graph.models import Correction, Lesson, LessonVersion
from graph.records import (
    correction_decay_to_props,
    correction_record_from_record,
    correction_status_to_props,
    correction_to_row,
    lesson_record_from_record,
    lesson_to_row,
    lesson_version_to_row,
    open_fact_from_record,
    topic_link_from_record,
    topic_summary_from_record,
)
from graph.rows import (
    CorrectionDecay,
    CorrectionRecord,
    CorrectionStatusChange,
    LessonRecord,
    OpenFact,
    TopicLink,
    TopicSummary,
)

_LESSONS = Q("rem.lessons_for_review")
_CORRECTIONS = Q("rem.corrections_for_review")
_MERGE_LESSONS = Q("rem.merge_lessons")
_MERGE_CORRECTIONS = Q("rem.merge_corrections")
_LINK_SOURCES = Q("rem.link_sources")
_SET_CORRECTION = Q("rem.set_correction_props")
_RECENT = Q("rem.recent_texts")
_ARCHIVE = Q("rem.archive")
_LINK_RELATED = Q("rem.link_related")
_CREATE_LESSONS = Q("rem.create_lessons")
_TOPICS = Q("rem.topics_for_weights")
_TOPIC_LINKS = Q("rem.topic_links")
_SET_WEIGHTS = Q("rem.set_topic_weights")
_SET_COOCCURRENCE = Q("rem.set_cooccurrence")
_OPEN_FACTS = Q("rem.open_facts")
_SESSION_STARTS = Q("rem.session_starts")

_LESSON_MERGE_FIELDS = (
    "keywords",
    "source_turn_ids",
    "usage_count",
    "helpful_count",
    "harmful_count",
    "weight",
    "version",
    "quality",
)
_CORRECTION_MERGE_FIELDS = (
    "sessions",
    "source_turn_ids",
    "reinforcement",
    "confidence",
    "first_seen",
    "last_seen",
    "usage_count",
    "helpful_count",
    "harmful_count",
    "status",
    "confirmed",
)


@dataclass(frozen=True)
class LessonMerge:
    """One lesson merge: the merged state of `keep`, and both pre-merge snapshots."""

    keep: Lesson
    dup_id: str
    keep_version: LessonVersion
    dup_version: LessonVersion
    similarity: float


@dataclass(frozen=True)
class CorrectionMerge:
    """One correction merge: the merged state of `keep` and the duplicate's id."""

    keep: Correction
    dup_id: str
    similarity: float


def _pick(row: dict[str, Any], fields: Sequence[str]) -> dict[str, Any]:
    return {f: row[f] for f in fields if f in row}


class RemRepository:
    """Consolidation reads and writes over the knowledge graph."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def lessons(self, project: str | None, now_ms: int) -> list[LessonRecord]:
        """Live lessons (with embeddings) of `project` (None: all), by id."""
        rows = await self._db.read(_LESSONS, project=project, now=now_ms)
        return sorted(map(lesson_record_from_record, rows), key=lambda x: x.lesson.id)

    async def corrections(self, project: str | None, now_ms: int) -> list[CorrectionRecord]:
        """Live corrections (with embeddings) and their live contradictions, by id."""
        rows = await self._db.read(_CORRECTIONS, project=project, now=now_ms)
        return sorted(map(correction_record_from_record, rows), key=lambda x: x.correction.id)

    async def merge_lessons(self, merges: Sequence[LessonMerge], now_ms: int) -> int:
        """Apply lesson merges (snapshots, union, DUPLICATE_OF, close the duplicate)."""
        if not merges:
            return 0
        rows = [
            {
                "keep_id": m.keep.id,
                "dup_id": m.dup_id,
                "similarity": m.similarity,
                "keep_props": _pick(lesson_to_row(m.keep), _LESSON_MERGE_FIELDS),
                "keep_version": lesson_version_to_row(m.keep_version),
                "dup_version": lesson_version_to_row(m.dup_version),
            }
            for m in merges
        ]
        return await self._apply_merges(_MERGE_LESSONS, rows, [m.keep for m in merges], now_ms)

    async def merge_corrections(self, merges: Sequence[CorrectionMerge], now_ms: int) -> int:
        """Apply correction merges (union, summed reinforcement, DUPLICATE_OF, close)."""
        if not merges:
            return 0
        rows = [
            {
                "keep_id": m.keep.id,
                "dup_id": m.dup_id,
                "similarity": m.similarity,
                "keep_props": _pick(correction_to_row(m.keep), _CORRECTION_MERGE_FIELDS),
            }
            for m in merges
        ]
        keeps = [m.keep for m in merges]
        return await self._apply_merges(_MERGE_CORRECTIONS, rows, keeps, now_ms)

    async def _apply_merges(
        self,
        query: QueryRef,
        rows: list[Row],
        keeps: Sequence[Lesson | Correction],
        now_ms: int,
    ) -> int:
        """Write merge `rows`, link each kept node to its (unioned) source turns; count merges."""
        res = await self._db.write(query, rows=rows, now=now_ms)
        pairs = [(k.id, t) for k in keeps for t in k.source_turn_ids]
        if pairs:
            await self._db.write(
                _LINK_SOURCES, rows=[{"id": i, "turn_id": t} for i, t in pairs], now=now_ms
            )
        return int(res[0]["n"]) if res else 0

    async def set_correction_decay(self, updates: Sequence[CorrectionDecay]) -> int:
        """Store each correction's recomputed effective weight and decayed confidence."""
        rows = [{"id": u.id, "props": correction_decay_to_props(u)} for u in updates]
        return await self._set_correction_props(rows)

    async def set_correction_status(self, changes: Sequence[CorrectionStatusChange]) -> int:
        """Store graduations and demotions."""
        rows = [{"id": u.id, "props": correction_status_to_props(u)} for u in changes]
        return await self._set_correction_props(rows)

    async def _set_correction_props(self, rows: list[Row]) -> int:
        if not rows:
            return 0
        res = await self._db.write(_SET_CORRECTION, rows=rows)
        return int(res[0]["n"]) if res else 0

    async def recent_texts(self, project: str | None, since_ms: int) -> list[tuple[str, str]]:
        """(text, source) of queries logged since `since_ms`, plus recent user turns."""
        rows = await self._db.read(_RECENT, project=project, since=since_ms)
        return sorted((str(r["text"] or ""), str(r["source"])) for r in rows)

    async def archive(self, ids: Sequence[str], now_ms: int) -> list[str]:
        """Close knowledge items (valid_to = now); returns the ids that were open."""
        if not ids:
            return []
        rows = await self._db.write(_ARCHIVE, ids=list(ids), now=now_ms)
        return [r["id"] for r in rows]

    async def link_related(self, pairs: Sequence[tuple[str, str, float]], now_ms: int) -> int:
        """Create `RELATED_TO` links between knowledge items of any kind."""
        if not pairs:
            return 0
        rows = [{"source_id": a, "target_id": b, "weight": w} for a, b, w in pairs]
        res = await self._db.write(_LINK_RELATED, rows=rows, now=now_ms)
        return int(res[0]["n"]) if res else 0

    async def create_lessons(self, lessons: Sequence[Lesson]) -> list[str]:
        """Create lessons (no-op for ids that exist); returns the ids."""
        if not lessons:
            return []
        rows = await self._db.write(_CREATE_LESSONS, rows=[lesson_to_row(x) for x in lessons])
        return [r["id"] for r in rows]

    async def topics(self, project: str | None, now_ms: int) -> list[TopicSummary]:
        """Live topics of `project` (None: all), without embeddings."""
        rows = await self._db.read(_TOPICS, project=project, now=now_ms)
        return sorted(map(topic_summary_from_record, rows), key=lambda x: x.id)

    async def topic_links(self, now_ms: int) -> list[TopicLink]:
        """Stored `RELATED_TO` edges between live topics."""
        rows = await self._db.read(_TOPIC_LINKS, now=now_ms)
        return sorted(map(topic_link_from_record, rows), key=lambda x: (x.source_id, x.target_id))

    async def set_topic_weights(self, rows: Sequence[tuple[str, float, str]], now_ms: int) -> int:
        """Write `(id, weight, phase)` per topic."""
        if not rows:
            return 0
        res = await self._db.write(
            _SET_WEIGHTS, rows=[{"id": i, "weight": w, "phase": p} for i, w, p in rows], now=now_ms
        )
        return int(res[0]["n"]) if res else 0

    async def set_cooccurrence(
        self, rows: Sequence[tuple[str, str, float, int]], now_ms: int
    ) -> int:
        """Write `(source, target, weight, shared sessions)` `RELATED_TO` strengths."""
        total = 0
        for i in range(0, len(rows), 5_000):
            chunk = [
                {"source_id": a, "target_id": b, "weight": w, "shared": n}
                for a, b, w, n in rows[i : i + 5_000]
            ]
            res = await self._db.write(_SET_COOCCURRENCE, rows=chunk, now=now_ms)
            total += int(res[0]["n"]) if res else 0
        return total

    async def open_facts(self, project: str | None, now_ms: int) -> list[OpenFact]:
        """Live facts of `project` (None: all), by id."""
        rows = await self._db.read(_OPEN_FACTS, project=project, now=now_ms)
        return sorted(map(open_fact_from_record, rows), key=lambda x: x.id)

    async def session_starts(self, project: str | None, now_ms: int) -> list[int]:
        """Start times (epoch ms) of the live sessions, sorted."""
        rows = await self._db.read(_SESSION_STARTS, project=project, now=now_ms)
        return sorted(int(r["started_at"] or 0) for r in rows)
