"""Lessons and their immutable version history."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.timeutil import now_ms
from graph.cypher import Q
from graph.models import Lesson, LessonVersion
from graph.records import (
    Row,
    lesson_from_record,
    lesson_to_row,
    lesson_version_from_record,
    lesson_version_to_row,
)
from graph.repositories.knowledge import DerivedRepository

_UPSERT = Q("lesson.upsert_many")
_SET_EMB = Q("lesson.set_embeddings")
_GET_MANY = Q("lesson.get_many")
_LINK_SOURCES = Q("lesson.link_sources")
_SEARCH = Q("lesson.search_similar")
_ADD_VERSIONS = Q("lesson.add_versions")
_VERSIONS = Q("lesson.versions")
_LIST = Q("lesson.list_by_project")
_SOURCES = Q("lesson.sources")


class LessonRepository(DerivedRepository[Lesson]):
    """Reads and writes `Lesson` nodes, `LessonVersion` snapshots and provenance."""

    upsert_query = _UPSERT
    embeddings_query = _SET_EMB
    get_many_query = _GET_MANY
    link_sources_query = _LINK_SOURCES
    sources_query = _SOURCES

    def _row(self, m: Lesson) -> Row:
        return lesson_to_row(m)

    def _model(self, props: Mapping[str, Any]) -> Lesson:
        return lesson_from_record(props)

    async def search_similar(
        self, project: str, vector: Sequence[float], *, k: int = 5, now: int | None = None
    ) -> list[tuple[Lesson, float]]:
        """Current lessons of `project` nearest to `vector`, with cosine similarity."""
        return await self._similar(_SEARCH, vector, k=k, project=project, now=now)

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
