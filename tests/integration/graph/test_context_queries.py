"""Recorded `context` requests: the node, its GOT edges to the returned items, the recent list."""

from __future__ import annotations

from datetime import UTC, datetime

from graph.models import Turn
from graph.repositories.context_queries import ContextItemRef, ContextQueryRepository
from graph.repositories.turns import TurnRepository


async def test_record_links_returned_items_and_lists_recent(graph_db) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    turns = [
        Turn(
            id=f"trn_{i}",
            project="p",
            session_id="ses_1",
            ordinal=i,
            role="user",
            text=f"t{i}",
            valid_from=t0,
        )
        for i in range(3)
    ]
    await TurnRepository(graph_db).upsert_many(turns)
    repo = ContextQueryRepository(graph_db)
    items = [
        ContextItemRef("trn_2", "turn", 1, 0.9),
        ContextItemRef("trn_0", "turn", 2, 0.5),
        ContextItemRef("les_missing", "lesson", 3, 0.1),
    ]
    qid = await repo.record(
        project="p",
        query="what about t2?",
        items=items,
        at=datetime(2026, 2, 1, tzinfo=UTC),
        request_id="r1",
    )
    await repo.record(
        project="other", query="not mine", items=[], at=datetime(2026, 2, 2, tzinfo=UTC)
    )
    recent = await repo.recent("p")
    assert [(r.id, r.query, r.item_ids) for r in recent] == [
        (qid, "what about t2?", ("trn_2", "trn_0", "les_missing"))
    ]
    assert recent[0].at == datetime(2026, 2, 1, tzinfo=UTC)
    later = await repo.recent("p", since=datetime(2026, 3, 1, tzinfo=UTC))
    assert later == []


async def _guide(db, query_text: str) -> list[dict]:
    """Run the Browser guide `context_for_query` as Neo4j Browser would (text as is)."""
    from graph.explore import browser_queries
    from tests.engines import run_text

    [guide] = [q for q in browser_queries() if q.name == "context_for_query"]
    return await run_text(db, guide.text, {"query_text": query_text})


async def test_record_many_writes_the_nodes_and_edges_record_writes(graph_db) -> None:
    from core.timeutil import to_ms
    from graph.repositories.context_queries import ContextQueryRecord
    from graph.repositories.rem import RemRepository

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    await TurnRepository(graph_db).upsert_many(
        [
            Turn(
                id=f"trn_{i}",
                project="p",
                session_id="s",
                ordinal=i,
                role="user",
                text="x",
                valid_from=t0,
            )
            for i in range(3)
        ]
    )
    repo = ContextQueryRepository(graph_db)
    items = (
        ContextItemRef("trn_2", "turn", 1, 0.9),
        ContextItemRef("trn_0", "turn", 2, 0.5),
        ContextItemRef("les_missing", "lesson", 3, 0.1),
    )
    at = datetime(2026, 2, 1, tzinfo=UTC)
    await repo.record(project="p", query="single write", items=items, at=at, principal="k1")
    batch = [
        ContextQueryRecord("p", "batched write", items, to_ms(at), principal="k1", request_id="r"),
        ContextQueryRecord("p", "batched empty", (), to_ms(at) + 1, request_id="r2"),
    ]
    ids = await repo.record_many(batch)
    assert ids == [r.id for r in batch]
    assert await repo.record_many([]) == []

    single, batched = (
        await _guide(graph_db, "single write"),
        await _guide(graph_db, "batched write"),
    )
    assert len(single) == len(batched) == 2  # two GOT edges: the missing lesson is not linked

    def shape(rows: list[dict]) -> list[tuple]:
        out = []
        for r in rows:
            q = {k: v for k, v in r["q"].properties.items() if k not in {"id", "query"}}
            out.append(
                (sorted(q.items()), sorted(r["g"].properties.items()), r["item"].properties["id"])
            )
        return sorted(out)

    assert shape(single) == shape(batched)
    assert batched[0]["q"].properties["id"] == ids[0]
    recent = await repo.recent("p")
    assert recent[0].query == "batched empty"  # newest first
    assert sorted((r.query, r.item_ids) for r in recent) == [
        ("batched empty", ()),
        ("batched write", ("trn_2", "trn_0", "les_missing")),
        ("single write", ("trn_2", "trn_0", "les_missing")),
    ]
    texts = await RemRepository(graph_db).recent_texts("p", to_ms(at))
    assert {t for t, src in texts if src == "query"} == {
        "single write",
        "batched write",
        "batched empty",
    }


async def test_record_many_links_each_kind_past_kinds_with_nothing_to_link(graph_db) -> None:
    """Links go per kind in turn; kinds with no item in the batch must not stop the later ones."""
    from core.timeutil import to_ms
    from graph.models import Topic
    from graph.repositories.context_queries import ContextQueryRecord
    from graph.repositories.topics import TopicRepository

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    await TurnRepository(graph_db).upsert_many(
        [Turn(id="trn_0", project="p", session_id="s", ordinal=0, role="user", text="x",
              valid_from=t0)]
    )  # fmt: skip
    await TopicRepository(graph_db).upsert_many(
        [Topic(id="top_1", project="p", title="deploys", valid_from=t0)]
    )
    at = to_ms(datetime(2026, 2, 1, tzinfo=UTC))
    items = (
        ContextItemRef("trn_0", "turn", 1, 0.9),
        ContextItemRef("top_1", "topic", 2, 0.7),
        ContextItemRef("top_1", "lesson", 3, 0.5),  # not a lesson: not linked
        ContextItemRef("x_1", "no_such_kind", 4, 0.1),  # names no node
    )
    await ContextQueryRepository(graph_db).record_many(
        [
            ContextQueryRecord("p", "first", items, at, request_id="a"),
            ContextQueryRecord("p", "second", items[1:2], at + 1, request_id="b"),
        ]
    )
    first, second = await _guide(graph_db, "first"), await _guide(graph_db, "second")
    assert sorted((r["item"].properties["id"], r["g"].properties["rank"]) for r in first) == [
        ("top_1", 2),
        ("trn_0", 1),
    ]
    assert [(r["item"].properties["id"], r["g"].properties["rank"]) for r in second] == [
        ("top_1", 2)
    ]
