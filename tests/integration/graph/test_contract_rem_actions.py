"""The engine contract for the REM action journal: before-images, restore and unlink."""

from __future__ import annotations

from graph.db import GraphDB
from graph.models import Lesson
from graph.repositories.lessons import LessonRepository
from graph.repositories.rem import RemRepository
from graph.repositories.rem_actions import RemActionRepository
from graph.rows import RemActionRecord


async def test_archive_then_restore_and_unlink(any_db: GraphDB) -> None:
    lessons = LessonRepository(any_db)
    await lessons.upsert_many(
        [
            Lesson(id="les_a", project="p", title="a", content="x"),
            Lesson(id="les_b", project="p", title="b", content="y"),
        ]
    )
    journal = RemActionRepository(any_db)
    rem = RemRepository(any_db)
    now = 4_000_000_000_000
    before = await journal.snapshot(["les_a", "les_b", "les_missing"], now)
    assert set(before) == {"les_a", "les_b"}
    assert "embedding" not in before["les_a"]
    assert await rem.archive(["les_a"], now) == ["les_a"]
    assert await rem.link_related([("les_a", "les_b", 0.5)], now) == 1
    assert set(await journal.snapshot(["les_a", "les_b"], now + 1)) == {"les_b"}  # archived
    await journal.record(
        [
            RemActionRecord(
                id="rma_1",
                run_id="rrn_1",
                project="p",
                finding_id="",
                action="archive",
                note="archived les_a",
                before={"les_a": before["les_a"]},
                edges=(("RELATED_TO", "les_a", "les_b"),),
                applied_at=now,
            )
        ]
    )
    (act,) = await journal.of_run("rrn_1")
    assert act.before == {"les_a": before["les_a"]}
    after = await journal.snapshot(["les_a"], now + 1, current=False)
    assert "valid_to_was" in after["les_a"]
    assert await journal.restore(act.before, after) == 1
    assert await journal.unlink(act.edges, act.applied_at) == 1
    await journal.mark_undone([act.id], now + 2)
    assert await journal.of_run("rrn_1") == []
    restored = await journal.snapshot(["les_a"], now + 3)
    assert restored == {"les_a": before["les_a"]}  # the archive's history lists are gone too
    assert await journal.unlink(act.edges, act.applied_at) == 0
