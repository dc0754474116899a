"""As-of reads of versioned knowledge on every engine: a refined or merged lesson reads as it was
known at `knownAt`, an archived one keeps its open end for earlier `knownAt`."""

from __future__ import annotations

from datetime import UTC, datetime

from consolidate.merge import snapshot
from core.timeutil import from_ms, to_ms
from graph.db import GraphDB
from graph.models import Lesson
from graph.repositories.lessons import LessonRepository
from graph.repositories.rem import RemRepository
from graph.repositories.scoped import ScopedRepository

T0 = datetime(2026, 1, 1, tzinfo=UTC)
R1, R2, R3 = (to_ms(T0) + k * 3_600_000 for k in (1, 2, 3))


async def _read(scoped: ScopedRepository, known_at: int, as_of: int | None = None) -> list[Lesson]:
    return await scoped.lessons.page(
        ["*"], project="p", as_of=as_of or R3 + 10, known_at=known_at, skip=0, limit=10
    )


async def test_refined_lesson_reads_as_known_then(any_db: GraphDB) -> None:
    repo = LessonRepository(any_db)
    v1 = Lesson(id="les_a", project="p", title="v1", content="first", valid_from=T0)
    v1 = v1.model_copy(update={"recorded_at": T0})
    await repo.upsert_many([v1])
    # Refined at R1 and again at R2: each refinement first snapshots the text it replaces.
    await repo.add_versions([snapshot(v1, "refined", from_ms(R1))])
    v2 = v1.model_copy(update={"title": "v2", "content": "second", "version": 2})
    await repo.upsert_many([v2])
    await repo.add_versions([snapshot(v2, "refined", from_ms(R2))])
    v3 = v2.model_copy(update={"title": "v3", "content": "third", "version": 3})
    await repo.upsert_many([v3])
    scoped = ScopedRepository(any_db)
    assert [(x.title, x.version) for x in await _read(scoped, R1 - 1)] == [("v1", 1)]
    assert [(x.title, x.version) for x in await _read(scoped, R1 + 1)] == [("v2", 2)]
    assert [(x.title, x.version) for x in await _read(scoped, R3)] == [("v3", 3)]
    # Archived at R3: gone for times after R3 at knownAt after R3, open before.
    assert await RemRepository(any_db).archive(["les_a"], R3) == ["les_a"]
    assert await _read(scoped, R3 + 1) == []
    (before,) = await _read(scoped, R3 - 1)
    assert before.valid_to is None
    (earlier,) = await _read(scoped, R3 + 1, as_of=R2)
    assert earlier.valid_to == from_ms(R3)
