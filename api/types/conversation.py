"""Projects, sessions and turns."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry

from api.types.pagination import Connection, decode_cursor, make_connection
from graph import models

if TYPE_CHECKING:
    from api.context import Context


@strawberry.type
class Turn:
    """One message of a session."""

    id: strawberry.ID
    project: str
    session_id: str
    ordinal: int
    role: str
    speaker: str
    text: str
    token_estimate: int
    timestamp: datetime
    tool_name: str | None
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    expired_at: datetime | None

    @classmethod
    def from_domain(cls, m: models.Turn) -> Turn:
        return cls(
            id=strawberry.ID(m.id),
            project=m.project,
            session_id=m.session_id,
            ordinal=m.ordinal,
            role=m.role,
            speaker=m.speaker,
            text=m.text,
            token_estimate=m.token_estimate,
            timestamp=m.valid_from,
            tool_name=m.tool_name,
            valid_from=m.valid_from,
            valid_to=m.valid_to,
            recorded_at=m.recorded_at,
            expired_at=m.expired_at,
        )

    @strawberry.field
    async def session(
        self, info: strawberry.Info[Context, None]
    ) -> Annotated[Session, strawberry.lazy("api.types.conversation")] | None:
        """The session the turn belongs to."""
        s = await info.context.loaders.session.load(self.session_id)
        return None if s is None else Session.from_domain(s)


@strawberry.type
class Session:
    """One agent conversation."""

    id: strawberry.ID
    project: str
    source: str
    title: str
    started_at: datetime | None
    ended_at: datetime | None
    turn_count: int
    summary: str | None
    intent: str | None
    outcome: str | None
    quality: float | None
    complexity: float | None
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime

    @classmethod
    def from_domain(cls, m: models.Session) -> Session:
        return cls(
            id=strawberry.ID(m.id),
            project=m.project,
            source=m.source,
            title=m.title,
            started_at=m.started_at,
            ended_at=m.ended_at,
            turn_count=m.turn_count,
            summary=m.summary,
            intent=m.intent,
            outcome=m.outcome,
            quality=m.quality,
            complexity=m.complexity,
            valid_from=m.valid_from,
            valid_to=m.valid_to,
            recorded_at=m.recorded_at,
        )

    @strawberry.field
    async def turns(
        self, info: strawberry.Info[Context, None], first: int = 50, after: str | None = None
    ) -> TurnConnection:
        """The session's turns in order."""
        first = info.context.check_first(first)
        offset = decode_cursor(after)
        turns = await info.context.loaders.session_turns.load((str(self.id), offset, first + 1))
        return make_connection(TurnConnection, [Turn.from_domain(t) for t in turns], offset, first)


@strawberry.type
class Project:
    """A body of work whose sessions share memory."""

    id: strawberry.ID
    name: str
    description: str

    @classmethod
    def from_domain(cls, m: models.Project) -> Project:
        return cls(id=strawberry.ID(m.id), name=m.name, description=m.description)

    @strawberry.field
    async def sessions(
        self, info: strawberry.Info[Context, None], first: int = 20, after: str | None = None
    ) -> SessionConnection:
        """The project's sessions, newest first."""
        ctx = info.context
        first = ctx.check_first(first)
        offset = decode_cursor(after)
        now = ctx.now_ms
        items = await ctx.resources.scoped.sessions.page(
            ctx.principal.projects,
            project=str(self.id),
            as_of=now,
            known_at=now,
            skip=offset,
            limit=first + 1,
        )
        return make_connection(
            SessionConnection, [Session.from_domain(s) for s in items], offset, first
        )


@strawberry.type
class TurnConnection(Connection[Turn]):
    """A page of turns."""


@strawberry.type
class SessionConnection(Connection[Session]):
    """A page of sessions."""


@strawberry.type
class ProjectConnection(Connection[Project]):
    """A page of projects."""
