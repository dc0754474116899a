"""`IngestService` (the API's `ingestTurns` port): appends, continues the chain, dedupes."""

from __future__ import annotations

from datetime import UTC, datetime

from api.ports import TurnIngestor, TurnInput
from graph.repositories import SessionRepository, TurnRepository
from ingest.service import IngestService


async def test_ingest_turns_appends_and_dedupes(graph_db, ingest_settings, embedder) -> None:
    svc = IngestService(graph_db, ingest_settings, embedder=embedder)
    assert isinstance(svc, TurnIngestor)
    t0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
    first = [
        TurnInput(role="user", text="Deploy with podman, not docker", timestamp=t0),
        TurnInput(role="assistant", text="Noted: podman.", timestamp=t0, tool_name="Bash"),
        TurnInput(role="robot", text="??"),
    ]
    out = await svc.ingest_turns(project="ops", session_key="chat-1", turns=first, title="Ops")
    assert out.added == 2
    assert len(out.turn_ids) == 2
    assert out.failures == (
        "turn 2: role 'robot' is not one of ['assistant', 'system', 'tool', 'user']",
    )
    again = await svc.ingest_turns(project="ops", session_key="chat-1", turns=first[:2])
    assert again.added == 0
    assert again.turn_ids == out.turn_ids
    more = await svc.ingest_turns(
        project="ops", session_key="chat-1", turns=[TurnInput(role="user", text="thanks")]
    )
    assert more.added == 1
    [s] = await SessionRepository(graph_db).get_many([out.session_id])
    assert s is not None
    assert (s.source, s.title, s.turn_count, s.user_messages, s.tool_calls) == (
        "api",
        "Ops",
        3,
        2,
        1,
    )
    turns = await TurnRepository(graph_db).list(out.session_id)
    assert [t.ordinal for t in turns] == [0, 1, 2]
    links = dict(await SessionRepository(graph_db).turn_links(out.session_id))
    assert links[out.turn_ids[1]] == more.turn_ids[0]
