"""The engine contract for the API's scoped reads and feedback (`ScopedRepository`).

On every available engine (`any_db`): pages as of a time, optionally of one project; lookups by
id in request order; session turn pages; lesson versions; feedback counters; confirming a
correction; closing a fact. Nothing outside the caller's projects is read or changed.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.timeutil import to_ms
from graph.db import GraphDB
from graph.errors import InvalidInputError
from graph.kinds import ItemKind
from graph.models import (
    Correction,
    Fact,
    Lesson,
    LessonVersion,
    Project,
    Session,
    Topic,
    Turn,
)
from graph.repositories import ProjectRepository, SessionRepository, TurnRepository
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from graph.repositories.lessons import LessonRepository
from graph.repositories.scoped import ScopedRepository
from graph.repositories.topics import TopicRepository

T0 = datetime(2020, 1, 1, tzinfo=UTC)
REC = datetime(2020, 2, 1, tzinfo=UTC)
NOW = to_ms(datetime(2021, 1, 1, tzinfo=UTC))


def h(n: float) -> datetime:
    return T0 + timedelta(hours=n)


@pytest.fixture
async def scoped(any_db: GraphDB) -> ScopedRepository:
    """Projects p1 and p2: sessions, turns, a lesson with two versions, corrections, facts and
    topics."""
    db = any_db
    await ProjectRepository(db).upsert_many(
        [Project(id=p, name=p.upper(), valid_from=T0, recorded_at=REC) for p in ("p1", "p2")]
    )
    sessions = [
        Session(id="s1", project="p1", source="generic", title="one", valid_from=h(1)),
        Session(id="s2", project="p1", source="generic", title="two", valid_from=h(2)),
        Session(id="s3", project="p2", source="generic", title="three", valid_from=h(3)),
        Session(id="s4", project="p1", source="generic", title="later", valid_from=h(9000)),
    ]
    await SessionRepository(db).upsert_many(
        [s.model_copy(update={"recorded_at": REC}) for s in sessions]
    )
    await TurnRepository(db).upsert_many(
        [
            Turn(
                id=f"{sid}-t{i}",
                project=p,
                session_id=sid,
                ordinal=i,
                role="user",
                text=f"{sid} turn {i}",
                valid_from=h(i),
                recorded_at=REC,
            )
            for sid, p, n in (("s1", "p1", 5), ("s3", "p2", 2))
            for i in range(n)
        ]
    )
    lessons = LessonRepository(db)
    await lessons.upsert_many(
        [Lesson(id="les_1", project="p1", title="L", valid_from=h(1), recorded_at=REC)]
    )
    await lessons.add_versions(
        [
            LessonVersion(id=f"lv_{v}", project="p1", lesson_id="les_1", version=v, title=f"v{v}")
            for v in (2, 1)
        ]
    )
    await CorrectionRepository(db).upsert_many(
        [
            Correction(id="cor_1", project="p1", rule_text="r1", valid_from=h(1), recorded_at=REC),
            Correction(id="cor_2", project="p2", rule_text="r2", valid_from=h(1), recorded_at=REC),
        ]
    )
    await FactRepository(db).upsert_many(
        [
            Fact(id="fct_1", project="p1", statement="a", valid_from=h(1), recorded_at=REC),
            Fact(id="fct_2", project="p2", statement="b", valid_from=h(1), recorded_at=REC),
        ]
    )
    await TopicRepository(db).upsert_many(
        [
            Topic(
                id="top_a",
                projects=("p1",),
                title="a",
                weight=1.0,
                valid_from=h(0),
                recorded_at=REC,
            ),
            Topic(
                id="top_b",
                projects=("p1",),
                title="b",
                weight=5.0,
                valid_from=h(0),
                recorded_at=REC,
            ),
            Topic(  # a legacy global topic (before topics had one owner): nobody reads it
                id="top_legacy",
                projects=("p1", "p2"),
                title="legacy",
                weight=9.0,
                valid_from=h(0),
                recorded_at=REC,
            ),
            Topic(
                id="top_c",
                projects=("p2",),
                title="c",
                weight=9.0,
                valid_from=h(0),
                recorded_at=REC,
            ),
        ]
    )
    return ScopedRepository(db)


async def test_pages_are_scoped_timed_and_ordered(scoped: ScopedRepository) -> None:
    args = {"project": None, "as_of": NOW, "known_at": NOW, "skip": 0, "limit": 10}
    page = await scoped.sessions.page(("p1",), **args)
    assert [s.id for s in page] == ["s2", "s1"]  # newest first; s4 starts after NOW
    assert [s.id for s in await scoped.sessions.page(("*",), **args)] == ["s3", "s2", "s1"]
    assert [s.id for s in await scoped.sessions.page(("*",), **args | {"project": "p2"})] == ["s3"]
    # a project outside the scope stays invisible even when named
    assert await scoped.sessions.page(("p1",), **args | {"project": "p2"}) == []
    assert [s.id for s in await scoped.sessions.page(("p1",), **args | {"skip": 1})] == ["s1"]
    assert await scoped.sessions.page(("p1",), **args | {"as_of": to_ms(h(0))}) == []
    assert await scoped.sessions.page(("p1",), **args | {"known_at": to_ms(T0)}) == []
    later = to_ms(h(9001))
    assert [s.id for s in await scoped.sessions.page(("p1",), **args | {"as_of": later})] == [
        "s4",
        "s2",
        "s1",
    ]
    assert [x.id for x in await scoped.lessons.page(("p1",), **args)] == ["les_1"]
    assert [x.id for x in await scoped.corrections.page(("p2",), **args)] == ["cor_2"]
    assert [x.id for x in await scoped.facts.page(("*",), **args)] == ["fct_1", "fct_2"]
    # topics: heaviest first, each read in its one owner project only
    assert [x.id for x in await scoped.topics.page(("p1",), **args)] == ["top_b", "top_a"]
    assert [x.id for x in await scoped.topics.page(("*",), **args | {"project": "p2"})] == ["top_c"]


async def test_lookups_keep_the_order_of_ids_and_hide_other_projects(
    scoped: ScopedRepository,
) -> None:
    got = await scoped.sessions.get_many(["s3", "nope", "s1"], ("p1",))
    assert [None if s is None else s.id for s in got] == [None, None, "s1"]
    assert [f and f.statement for f in await scoped.facts.get_many(["fct_2", "fct_1"], ("*",))] == [
        "b",
        "a",
    ]
    got_topics = await scoped.topics.get_many(["top_c", "top_b", "top_legacy"], ("p1",))
    assert [t and t.id for t in got_topics] == [None, "top_b", None]
    [lesson] = await scoped.lessons.get_many(["les_1"], ("p1",))
    assert lesson is not None
    assert lesson.title == "L"
    assert await scoped.corrections.get_many(["cor_2"], ("p1",)) == [None]
    projects = await scoped.projects_get(["p2", "p1"], ("p1",))
    assert [p and p.name for p in projects] == [None, "P1"]
    assert [p.id for p in await scoped.projects_page(("*",), 0, 10)] == ["p1", "p2"]
    assert [p.id for p in await scoped.projects_page(("*",), 1, 10)] == ["p2"]
    turns = await scoped.turns_get(["s3-t0", "s1-t1"], ("p1",))
    assert [t and t.text for t in turns] == [None, "s1 turn 1"]


async def test_session_turn_pages_and_lesson_versions(scoped: ScopedRepository) -> None:
    pages = await scoped.session_turns([("s1", 0, 2), ("s1", 3, 5), ("s3", 0, 5)], ("p1",))
    assert [[t.id for t in p] for p in pages] == [["s1-t0", "s1-t1"], ["s1-t3", "s1-t4"], []]
    assert await scoped.session_turns([], ("p1",)) == []
    [versions] = await scoped.lesson_versions(["les_1"], ("p1",))
    assert [v.version for v in versions] == [1, 2]
    assert await scoped.lesson_versions(["les_1", "nope"], ("p2",)) == [[], []]


async def test_feedback_counts_uses_and_verdicts(scoped: ScopedRepository) -> None:
    first = await scoped.record_feedback(ItemKind.LESSON, "les_1", ("p1",), now=NOW, helpful=True)
    assert first is not None
    assert (first.id, first.usage_count, first.helpful_count, first.harmful_count) == (
        "les_1",
        1,
        1,
        0,
    )
    assert first.effectiveness == pytest.approx(1 / 3)
    second = await scoped.record_feedback(ItemKind.LESSON, "les_1", ("p1",), now=NOW, harmful=True)
    assert second is not None
    assert (second.usage_count, second.helpful_count, second.harmful_count) == (2, 1, 1)
    assert second.effectiveness == pytest.approx(0.0)
    used = await scoped.record_feedback(ItemKind.CORRECTION, "cor_1", ("p1",), now=NOW)
    assert used is not None
    assert (used.usage_count, used.helpful_count) == (1, 0)
    # another project's item is not found, and a fact takes no feedback
    assert await scoped.record_feedback(ItemKind.CORRECTION, "cor_2", ("p1",), now=NOW) is None
    with pytest.raises(InvalidInputError, match="no feedback"):
        await scoped.record_feedback(ItemKind.FACT, "fct_1", ("p1",), now=NOW)
    [lesson] = await scoped.lessons.get_many(["les_1"], ("p1",))
    assert lesson is not None
    assert (lesson.usage_count, lesson.effectiveness) == (2, 0.0)


async def test_confirming_a_correction_and_closing_a_fact(scoped: ScopedRepository) -> None:
    rule = await scoped.confirm_correction("cor_1", ("p1",), NOW)
    assert rule is not None
    assert (rule.status, rule.confirmed) == ("rule", True)
    assert await scoped.confirm_correction("cor_2", ("p1",), NOW) is None
    end = to_ms(h(100))
    closed = await scoped.close_fact("fct_1", ("p1",), NOW, end)
    assert closed is not None
    assert closed.valid_to == h(100)
    assert await scoped.close_fact("fct_1", ("p1",), NOW, end) is None  # already closed then
    assert await scoped.close_fact("fct_2", ("p1",), NOW, end) is None  # out of scope
    args = {"project": None, "known_at": NOW, "skip": 0, "limit": 10}
    assert await scoped.facts.page(("p1",), as_of=NOW, **args) == []
    before = await scoped.facts.page(("p1",), as_of=to_ms(h(50)), **args)
    assert [f.id for f in before] == ["fct_1"]
