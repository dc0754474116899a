"""Map parsed sessions and turns to domain models and write them through the repositories.

Every write is an idempotent `UNWIND ... MERGE` on deterministic ids, so writing the same batch
twice (a re-run after a crash) leaves the graph exactly as one write would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ai.embed import Vectors
from core.ids import content_hash, make_id
from graph.db import GraphDB
from graph.models import Session, ToolStat, Turn
from graph.repositories import ProjectRepository, SessionRepository, TurnRepository
from ingest.models import ParsedSession, ParsedTurn
from ingest.sources.base import EPOCH

__all__ = ["TurnWriter", "session_id", "session_model", "turn_id", "turn_model"]


def session_id(project: str, session_key: str) -> str:
    """Deterministic id of a session."""
    return make_id("session", project, session_key)


def turn_id(project: str, session_key: str, turn_key: str) -> str:
    """Deterministic id of a turn (`make_id("turn", project, session_key, turn_key)`)."""
    return make_id("turn", project, session_key, turn_key)


def session_model(s: ParsedSession) -> Session:
    """The `Session` node for a parsed session (statistics cover the whole session so far)."""
    st = s.stats
    start = st.started_at or s.date
    valid_from = s.date or start or EPOCH
    digest = content_hash(st.model_dump_json() + "|" + "|".join(t.content_hash for t in s.turns))
    return Session(
        id=session_id(s.project, s.key),
        project=s.project,
        source=s.source,
        source_file=s.source_file,
        source_key=s.key,
        title=s.title,
        started_at=start,
        ended_at=st.ended_at,
        duration_s=st.duration_s,
        user_messages=st.messages.get("user", 0),
        assistant_messages=st.messages.get("assistant", 0),
        tool_messages=st.messages.get("tool", 0),
        system_messages=st.messages.get("system", 0),
        tool_calls=st.tool_calls,
        tool_failures=st.tool_failures,
        tool_stats={k: ToolStat(calls=v.calls, failures=v.failures) for k, v in st.tools.items()},
        input_tokens=st.input_tokens,
        output_tokens=st.output_tokens,
        compactions=st.compactions,
        models=st.models,
        turn_count=st.turns,
        content_hash=digest,
        meta=dict(s.meta),
        valid_from=valid_from,
    )


def turn_model(s: ParsedSession, t: ParsedTurn) -> Turn:
    """The `Turn` node for a parsed turn (no embedding: that is written apart)."""
    return Turn(
        id=turn_id(s.project, s.key, t.key),
        project=s.project,
        session_id=session_id(s.project, s.key),
        ordinal=t.ordinal,
        role=t.role,
        speaker=t.speaker,
        text=t.text,
        token_estimate=t.token_estimate,
        content_hash=t.content_hash,
        full_size=t.full_size,
        truncated=t.truncated,
        tool_name=t.tool_name,
        tool_ok=t.tool_ok,
        source_file=s.source_file,
        source_line=t.line,
        source_key=t.key,
        parent_key=t.parent_key,
        is_sidechain=t.is_sidechain,
        valid_from=t.timestamp,
    )


class TurnWriter:
    """Batched, idempotent writes of sessions, turns, their edges and embeddings."""

    def __init__(self, db: GraphDB) -> None:
        self.db = db
        self.projects = ProjectRepository(db)
        self.sessions = SessionRepository(db)
        self.turns = TurnRepository(db)

    async def write_sessions(self, sessions: Sequence[Session]) -> None:
        """Upsert sessions and link them to their projects (projects created on first sight)."""
        if not sessions:
            return
        await self.sessions.upsert_many(sessions)
        await self.projects.link_sessions(sessions)

    async def write_turns(
        self,
        turns: Sequence[Turn],
        embed_ids: Sequence[str],
        vectors: Vectors | None,
        pending: Mapping[str, str] | None = None,
    ) -> None:
        """Upsert turns with `HAS_TURN` and `NEXT` edges (sessions must exist) and vectors.

        `vectors` belong to `embed_ids`, in order: turns whose stored vector is still valid are
        left out of them. `pending` (turn id → text to embed) puts turns in the embedding
        backlog instead.
        """
        if not turns:
            return
        if pending:
            await self.turns.upsert_pending(turns, pending)
        else:
            await self.turns.upsert_many(turns)
        if vectors is not None and len(vectors):
            await self.turns.set_embeddings(zip(embed_ids, vectors, strict=True))
        await self.sessions.link_turns(turns)

    async def close_turns(self, ids: Sequence[str]) -> int:
        """Close (never delete) turns that vanished from an edited file."""
        if not ids:
            return 0
        return len(await self.turns.close(list(ids)))

    async def close_sessions(self, ids: Sequence[str]) -> int:
        """Close sessions that vanished from an edited file (their turns are closed apart)."""
        if not ids:
            return 0
        return len(await self.sessions.close(list(ids)))
