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
