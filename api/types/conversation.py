"""Projects, sessions and turns."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry

from api.types.docs import described_field
from api.types.pagination import AfterArg, Connection, FirstArg, decode_cursor, make_connection
from graph import models

if TYPE_CHECKING:
    from api.context import Context


@strawberry.type(description="One message of a session, as it was said.")
class Turn:
    """One message of a session."""

    id: strawberry.ID = strawberry.field(description="The turn's id.")
    project: str = strawberry.field(description="The project the turn belongs to.")
    session_id: str = strawberry.field(description="The id of the session the turn belongs to.")
    ordinal: int = strawberry.field(description="0-based position of the turn in its session.")
    role: str = strawberry.field(
        description="Who produced the turn: `user`, `assistant`, `system` or `tool`."
    )
    speaker: str = strawberry.field(
        description="Display name of the speaker (a person's name, a model name, or the role)."
    )
    text: str = strawberry.field(description="The message text (cut at the size limit if long).")
    token_estimate: int = strawberry.field(description="Approximate token count of `text`.")
    timestamp: datetime = strawberry.field(
        description="When the message was sent (ISO 8601 UTC); the same as `validFrom`."
    )
    tool_name: str | None = strawberry.field(
        description="The tool called (assistant tool use) or answered (tool result); null "
        "otherwise."
    )
    valid_from: datetime = strawberry.field(
        description="Event time: when the message was sent (ISO 8601 UTC)."
    )
    valid_to: datetime | None = strawberry.field(
        description="Event time: when it stopped holding (ISO 8601 UTC); null while it holds."
    )
    recorded_at: datetime = strawberry.field(
        description="Record time: when remgraph stored the turn (ISO 8601 UTC)."
    )
    expired_at: datetime | None = strawberry.field(
        description="Record time: when this record stopped being current (ISO 8601 UTC); null "
        "while it is."
    )

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

    @described_field("The session the turn belongs to; null if it cannot be read.")
    async def session(
        self, info: strawberry.Info[Context, None]
    ) -> Annotated[Session, strawberry.lazy("api.types.conversation")] | None:
        """The session the turn belongs to."""
        s = await info.context.loaders.session.load(self.session_id)
        return None if s is None else Session.from_domain(s)


@strawberry.type(
    description="One agent conversation: a transcript, a chat, or the turns sent to `ingestTurns` "
    "under one session key."
)
class Session:
    """One agent conversation."""

    id: strawberry.ID = strawberry.field(description="The session's id.")
    project: str = strawberry.field(description="The project the session belongs to.")
    source: str = strawberry.field(
        description="The transcript format it came from (such as `claude-code`), or `api` for "
        "`ingestTurns`."
    )
    title: str = strawberry.field(
        description="Title, from the source or derived from the first user message; may be empty."
    )
    started_at: datetime | None = strawberry.field(
        description="Timestamp of the first turn (ISO 8601 UTC); null when unknown."
    )
    ended_at: datetime | None = strawberry.field(
        description="Timestamp of the last turn (ISO 8601 UTC); null when unknown."
    )
    turn_count: int = strawberry.field(description="Number of turns stored for the session.")
    summary: str | None = strawberry.field(
        description="A short summary, once extraction has written one; else null."
    )
    intent: str | None = strawberry.field(
        description="What the user set out to do, once extraction has found it; else null."
    )
    outcome: str | None = strawberry.field(
        description="How the session ended, once extraction has found it; else null."
    )
    quality: float | None = strawberry.field(
        description="Session quality score from 0 to 1 (higher is better); null when unscored."
    )
    complexity: float | None = strawberry.field(
        description="How much the session involved, from 0 to 1; null when unscored."
    )
    valid_from: datetime = strawberry.field(
        description="Event time: when the session began (ISO 8601 UTC); `asOf` reads see it from "
        "then."
    )
    valid_to: datetime | None = strawberry.field(
        description="Event time: when it stopped holding (ISO 8601 UTC); null while it holds."
    )
    recorded_at: datetime = strawberry.field(
        description="Record time: when remgraph stored the session (ISO 8601 UTC)."
    )

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

    @described_field("The session's turns in order (by `ordinal`), paged.")
    async def turns(
        self, info: strawberry.Info[Context, None], first: FirstArg = 50, after: AfterArg = None
    ) -> TurnConnection:
        """The session's turns in order."""
        first = info.context.check_first(first)
        offset = decode_cursor(after)
        turns = await info.context.loaders.session_turns.load((str(self.id), offset, first + 1))
        return make_connection(TurnConnection, [Turn.from_domain(t) for t in turns], offset, first)


@strawberry.type(
    description="A body of work whose sessions share memory; API keys grant access per project."
)
class Project:
    """A body of work whose sessions share memory."""

    id: strawberry.ID = strawberry.field(
        description="The project's slug, such as `remgraph`: the value `project` arguments take."
    )
    name: str = strawberry.field(description="Human-readable name; may be empty.")
    description: str = strawberry.field(description="What the project is about; may be empty.")

    @classmethod
    def from_domain(cls, m: models.Project) -> Project:
        return cls(id=strawberry.ID(m.id), name=m.name, description=m.description)

    @described_field("The project's sessions valid now, newest first, paged.")
    async def sessions(
        self, info: strawberry.Info[Context, None], first: FirstArg = 20, after: AfterArg = None
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


@strawberry.type(description="A page of turns.")
class TurnConnection(Connection[Turn]):
    """A page of turns."""


@strawberry.type(description="A page of sessions.")
class SessionConnection(Connection[Session]):
    """A page of sessions."""


@strawberry.type(description="A page of projects.")
class ProjectConnection(Connection[Project]):
    """A page of projects."""
