"""Lessons and their immutable version history."""

from __future__ import annotations

from collections.abc import Sequence

from graph.cypher import Q
from graph.db import GraphDB
from graph.models import Lesson, LessonVersion
from graph.records import (
    embedding_rows,
    lesson_from_record,
    lesson_to_row,
    lesson_version_from_record,
    lesson_version_to_row,
)
from graph.timeutil import now_ms

_UPSERT = Q("lesson.upsert_many")
_SET_EMB = Q("lesson.set_embeddings")
_GET_MANY = Q("lesson.get_many")
_LINK_SOURCES = Q("lesson.link_sources")
_SEARCH = Q("lesson.search_similar")
_ADD_VERSIONS = Q("lesson.add_versions")
_VERSIONS = Q("lesson.versions")
_LIST = Q("lesson.list_by_project")
_SOURCES = Q("lesson.sources")


class LessonRepository:
    """Reads and writes `Lesson` nodes, `LessonVersion` snapshots and provenance."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def upsert_many(self, items: Sequence[Lesson]) -> None:
        """MERGE lessons by id (properties replaced), then write their embeddings."""
        if not items:
            return
        await self._db.write(_UPSERT, rows=[lesson_to_row(x) for x in items])
        emb = embedding_rows(items)
        if emb:
            await self._db.write(_SET_EMB, rows=emb)

    async def get_many(self, ids: Sequence[str]) -> list[Lesson | None]:
        """Lessons in the order of `ids` (None for unknown ids)."""
        rows = await self._db.read(_GET_MANY, ids=list(ids))
        by_id = {r["props"]["id"]: lesson_from_record(r["props"]) for r in rows}
        return [by_id.get(i) for i in ids]

    async def link_sources(self, pairs: Sequence[tuple[str, str]]) -> None:
        """`(Lesson)-[:DERIVED_FROM]->(Turn)` for each `(lesson_id, turn_id)`."""
        if pairs:
            rows = [{"id": x, "turn_id": t} for x, t in pairs]
            await self._db.write(_LINK_SOURCES, rows=rows, now=now_ms())

    async def search_similar(
        self, project: str, vector: Sequence[float], *, k: int = 5, now: int | None = None
    ) -> list[tuple[Lesson, float]]:
        """Current lessons of `project` nearest to `vector`, with cosine similarity."""
        rows = await self._db.read(
            _SEARCH,
            vector=[float(x) for x in vector],
            k=k,
            project=project,
            now=now if now is not None else now_ms(),
        )
        return [(lesson_from_record(r["props"]), float(r["similarity"])) for r in rows]

    async def add_versions(self, versions: Sequence[LessonVersion]) -> None:
        """Store snapshots and link `(Lesson)-[:HAS_VERSION]->(LessonVersion)`."""
        if versions:
            await self._db.write(_ADD_VERSIONS, rows=[lesson_version_to_row(v) for v in versions])

    async def versions(self, lesson_id: str) -> list[LessonVersion]:
        """A lesson's stored versions, oldest first."""
        rows = await self._db.read(_VERSIONS, lesson_id=lesson_id)
        return [lesson_version_from_record(r["props"]) for r in rows]

    async def list_by_project(self, project: str, *, now: int | None = None) -> list[Lesson]:
        """Current lessons of `project`."""
        rows = await self._db.read(_LIST, project=project, now=now if now is not None else now_ms())
        return [lesson_from_record(r["props"]) for r in rows]

    async def sources(self, lesson_id: str) -> list[str]:
        """Ids of the turns a lesson was derived from, in conversation order."""
        rows = await self._db.read(_SOURCES, id=lesson_id)
        return [r["turn_id"] for r in rows]
