"""The engine contract: the same behaviour on every available engine (`any_db`).

Create, close (never deletes), as-of and known-at reads, uniqueness constraints, pagination,
relationship writers, idempotent migrations; plus an EXPLAIN of every non-schema query on the
embedded engine. The queries `context` and `search` run (fulltext, vector, expansion, knowledge)
have their contract in `test_contract_recall.py`, the API's scoped reads in
`test_contract_scoped.py`: the same queries production runs, on every engine.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph.cypher import Q, registry
from graph.db import GraphDB
from graph.errors import ConflictError, NotFoundError
from graph.migrate import migrate
from graph.models import Finding, Project, Session, ToolStat, Topic, Turn
from graph.repositories import ProjectRepository, SessionRepository, TurnRepository
from graph.repositories.findings import FindingRepository
from graph.repositories.topics import TopicRepository
from graph.verify import verify_queries

T0 = datetime(2020, 1, 1, tzinfo=UTC)
REC = datetime(2020, 2, 1, tzinfo=UTC)
"""When the test data was "recorded" (record time), after all its event times."""
DIM = 384
_STATS = Q("admin.stats")


def h(n: float) -> datetime:
    return T0 + timedelta(hours=n)


def vec(*head: float) -> list[float]:
    """A 384-d vector: the given leading components, then zeros."""
    return [*head, *([0.0] * (DIM - len(head)))]


def session(id: str = "s1", project: str = "p1", **kw: Any) -> Session:
    base: dict[str, Any] = {
        "id": id,
        "project": project,
        "source": "claude-code",
        "title": f"session {id}",
        "valid_from": h(0),
        "recorded_at": REC,
    }
    return Session(**(base | kw))


def turn(sid: str, ordinal: int, text: str, project: str = "p1", **kw: Any) -> Turn:
    base: dict[str, Any] = {
        "id": f"{sid}-t{ordinal}",
        "project": project,
        "session_id": sid,
        "ordinal": ordinal,
        "role": "user" if ordinal % 2 == 0 else "assistant",
        "text": text,
        "valid_from": h(ordinal),
        "recorded_at": REC,
    }
    return Turn(**(base | kw))


async def node_counts(db: GraphDB) -> dict[str, int]:
    rows = await db.read(_STATS)
    return {r["label"]: r["count"] for r in rows if r["label"] != "SchemaMigration"}


@pytest.fixture
def repos(any_db: GraphDB) -> tuple[ProjectRepository, SessionRepository, TurnRepository]:
    return ProjectRepository(any_db), SessionRepository(any_db), TurnRepository(any_db)


async def test_create_and_read_back_whole_models(any_db: GraphDB) -> None:
    sessions, turns = SessionRepository(any_db), TurnRepository(any_db)
    s = session(
        tool_stats={"Bash": ToolStat(calls=3, failures=1)},
        meta={"cwd": "/work", "branch": "main"},
        models=("claude-x",),
        quality=0.75,
        started_at=h(0),
        ended_at=h(2),
    )
    ts = [turn("s1", 0, "hello"), turn("s1", 1, "hi", tool_name="Bash", tool_ok=False)]
    assert await sessions.upsert_many([s]) == 1
    assert await turns.upsert_many(ts) == 2

    assert await sessions.get("s1") == s
    assert await turns.get_many(["s1-t1", "nope", "s1-t0"]) == [ts[1], None, ts[0]]
    with pytest.raises(NotFoundError) as exc:
        await turns.get("nope")
    assert (exc.value.kind, exc.value.id) == ("turn", "nope")


async def test_hostile_text_lands_with_the_rest_of_the_batch(any_db: GraphDB) -> None:
    turns = TurnRepository(any_db)
    batch = [
        turn("s1", 0, "nul\x00byte"),
        turn("s1", 1, "lone \ud800 surrogate"),
        turn("s1", 2, "ok"),
    ]
    assert await turns.upsert_many(batch) == 3
    got = await turns.get_many([t.id for t in batch])
    assert [t.text for t in got if t] == ["nulbyte", "lone \ufffd surrogate", "ok"]


async def test_upsert_is_idempotent_and_keeps_first_recorded_at(any_db: GraphDB) -> None:
    turns = TurnRepository(any_db)
    first = turn("s1", 0, "original")
    await turns.upsert_many([first])
    before = await node_counts(any_db)
    later = first.model_copy(update={"text": "edited", "recorded_at": REC + timedelta(days=1)})
    await turns.upsert_many([later])
    assert await node_counts(any_db) == before == {"Turn": 1}
    got = await turns.get(first.id)
    assert (got.text, got.recorded_at) == ("edited", REC)
    # an unchanged turn re-ingested later (new recorded_at) is skipped, not rewritten
    again = later.model_copy(update={"recorded_at": REC + timedelta(days=2)})
    assert await turns.upsert_many([again]) == 0
    assert await turns.get(first.id) == later.model_copy(update={"recorded_at": REC})


async def test_a_batch_naming_one_node_twice_keeps_the_last_on_every_engine(
    any_db: GraphDB,
) -> None:
    # `UNWIND $rows MERGE` applies rows for one new node in engine-specific order (Neo4j: the
    # first row creates, FalkorDB: the last), so repositories send one row per node.
    first = Finding(id="fnd_1", project="p1", job="j", run_id="r", kind="orphan", title="a")
    last = first.model_copy(update={"title": "b", "target_ids": ("x", "y")})
    await FindingRepository(any_db).upsert_many([first, last])
    [got] = await FindingRepository(any_db).get_many(["fnd_1"])
    assert (got.title, got.target_ids) == ("b", ("x", "y"))
    topic = Topic(id="top_1", project="p1", title="old", valid_from=h(0), recorded_at=REC)
    topics = TopicRepository(any_db)
    await topics.upsert_many([topic, topic.model_copy(update={"title": "new"})])
    assert [t.title for t in await topics.get_many(["top_1"]) if t] == ["new"]


async def test_a_project_starts_with_its_earliest_session_whatever_the_row_order(
    any_db: GraphDB,
) -> None:
    sessions = [session("s2", valid_from=h(5)), session("s1"), session("s3", valid_from=h(3))]
    await SessionRepository(any_db).upsert_many(sessions)
    await ProjectRepository(any_db).link_sessions(sessions)
    assert (await ProjectRepository(any_db).get("p1")).valid_from == h(0)
    later = session("s4", valid_from=h(9), recorded_at=REC + timedelta(days=1))
    await SessionRepository(any_db).upsert_many([later])
    await ProjectRepository(any_db).link_sessions([later])
    got = await ProjectRepository(any_db).get("p1")
    assert (got.valid_from, got.recorded_at) == (h(0), REC)


async def test_close_never_deletes(any_db: GraphDB) -> None:
    turns = TurnRepository(any_db)
    t = turn("s1", 0, "to be closed")
    await turns.upsert_many([t])
    closed_at = REC + timedelta(days=1)
    assert await turns.close(t.id, at=h(5), now=closed_at) == [t.id]
    assert await turns.close(t.id, at=h(6), now=closed_at + timedelta(days=1)) == []

    assert await node_counts(any_db) == {"Turn": 1}
    assert await turns.find(t.id) is None
    # Before the close was recorded, the graph knew the turn as open.
    seen = await turns.get(t.id, as_of=h(1), known_at=closed_at - timedelta(seconds=1))
    assert (seen.valid_to, seen.expired_at) == (h(5), closed_at)
    # A re-ingest of the same turn does not reopen it.
    await turns.upsert_many([t])
    assert await turns.find(t.id) is None


async def test_as_of_reads_follow_event_time(any_db: GraphDB) -> None:
    sessions = SessionRepository(any_db)
    s = session(valid_from=h(10), valid_to=h(20))
    await sessions.upsert_many([s])
    assert await sessions.find("s1", as_of=h(9)) is None
    assert await sessions.get("s1", as_of=h(10)) == s
    assert await sessions.get("s1", as_of=h(19)) == s
    assert await sessions.find("s1", as_of=h(20)) is None
    assert await sessions.find("s1") is None  # default as_of = now, long after h(20)


async def test_known_at_reads_follow_record_time(any_db: GraphDB) -> None:
    sessions = SessionRepository(any_db)
    s = session(recorded_at=REC)
    await sessions.upsert_many([s])
    assert await sessions.find("s1", as_of=h(1), known_at=REC - timedelta(milliseconds=1)) is None
    assert await sessions.get("s1", as_of=h(1), known_at=REC) == s
    assert await sessions.get("s1") == s


async def test_uniqueness_constraint_violation_is_a_conflict(any_db: GraphDB) -> None:
    projects = ProjectRepository(any_db)
    p = Project(id="remgraph", name="remgraph", valid_from=T0, recorded_at=REC)
    await projects.create(p)
    with pytest.raises(ConflictError):
        await projects.create(p.model_copy(update={"name": "other"}))
    assert await projects.get("remgraph") == p


async def test_pagination_by_cursor(any_db: GraphDB) -> None:
    sessions, turns = SessionRepository(any_db), TurnRepository(any_db)
    await sessions.upsert_many([session(f"s{i}", project=f"p{1 + i // 4}") for i in range(6)])
    page1 = await sessions.list(projects=["p1"], limit=3)
    page2 = await sessions.list(projects=["p1"], after=page1[-1].id, limit=3)
    assert [s.id for s in page1] == ["s0", "s1", "s2"]
    assert [s.id for s in page2] == ["s3"]
    assert len(await sessions.list()) == 6

    await turns.upsert_many([turn("s0", i, f"m{i}") for i in range(7)])
    got: list[int] = []
    after = -1
    while chunk := await turns.list("s0", after=after, limit=3):
        got += [t.ordinal for t in chunk]
        after = chunk[-1].ordinal
    assert got == list(range(7))


async def test_links_and_supersede(any_db: GraphDB) -> None:
    projects, sessions, turns = (
        ProjectRepository(any_db),
        SessionRepository(any_db),
        TurnRepository(any_db),
    )
    s = session()
    await sessions.upsert_many([s])
    assert await projects.link_sessions([s]) == 1
    assert [p.id for p in await projects.list(as_of=h(1))] == ["p1"]

    ts = [turn("s1", i, f"m{i}") for i in range(5)]
    await turns.upsert_many(ts)
    # two batches: the second finds its predecessor in the graph
    assert await sessions.link_turns(ts[:2]) == 1
    assert await sessions.link_turns(ts[2:]) == 3
    assert await sessions.link_turns(ts) == 4  # idempotent MERGE
    assert await sessions.turn_links("s1", as_of=h(10)) == [
        ("s1-t0", "s1-t1"),
        ("s1-t1", "s1-t2"),
        ("s1-t2", "s1-t3"),
        ("s1-t3", "s1-t4"),
        ("s1-t4", None),
    ]
    # closing a turn closes its edges too; the graph keeps them for earlier known_at reads
    await turns.close("s1-t4", at=h(10), now=REC + timedelta(days=1))
    assert [i for i, _ in await sessions.turn_links("s1", as_of=h(5))] == [
        "s1-t0",
        "s1-t1",
        "s1-t2",
        "s1-t3",
    ]
    assert len(await sessions.turn_links("s1", as_of=h(5), known_at=REC)) == 5
    await sessions.link_turns(ts)  # a re-ingest does not reopen the closed edges
    assert len(await sessions.turn_links("s1", as_of=h(5))) == 4
    before = await node_counts(any_db)
    await projects.link_sessions([s])
    assert await node_counts(any_db) == before

    s2 = session("s1b", valid_from=h(30))
    await sessions.upsert_many([s2])
    await sessions.supersede("s1", "s1b", at=h(30), now=REC + timedelta(days=1))
    assert await sessions.find("s1") is None
    old = await sessions.get("s1", as_of=h(1), known_at=REC)
    assert old.id == "s1"
    with pytest.raises(NotFoundError):
        await sessions.supersede("s1", "missing")


async def test_migrations_twice_change_nothing(any_db: GraphDB) -> None:
    turns = TurnRepository(any_db)
    await turns.upsert_many([turn("s1", 0, "kept")])
    before = await node_counts(any_db)
    report = await migrate(any_db)
    assert report.applied == ()
    expected = {"0001_constraints", "0002_indexes", "0003_fulltext", "0004_vector"}
    assert set(report.skipped) >= expected
    # every DDL statement is itself idempotent
    for q in registry().migrations(any_db.dialect):
        for stmt in q.statements():
            await any_db.run_schema(stmt)
    await any_db.wait_for_indexes()
    assert await node_counts(any_db) == before


async def test_explain_every_query(graph_db: GraphDB) -> None:
    """Every query of the engine's dialect plans on that engine, with the typed placeholders of
    `remgraph db verify-queries` (Neo4j's EXPLAIN type-checks parameters; FalkorDB's does not)."""
    results = await verify_queries(graph_db)
    assert len(results) > 100
    assert [f"{r.name}: {r.error}" for r in results if not r.ok] == []
