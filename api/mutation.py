"""`Mutation`: append turns, feedback, confirmations and closing facts."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from api.context import Context
from api.query import EXPECTED, error_type
from api.types.errors import Forbidden, InvalidInput, NotFound, Unavailable
from graph.errors import InvalidInputError
from graph.ports import TurnInput

Info = strawberry.Info[Context, None]

_ROLES = frozenset({"user", "assistant", "system", "tool"})


@strawberry.input(name="TurnInput")
class TurnInputType:
    """One message to append."""

    role: str
    text: str
    speaker: str = ""
    timestamp: datetime | None = None
    tool_name: str | None = None


@strawberry.input
class IngestTurnsInput:
    """Turns to append to one session (created when new); repeated calls are idempotent."""

    project: str
    session_key: str
    turns: list[TurnInputType]
    title: str = ""


@strawberry.type
class IngestTurnsPayload:
    """What `ingestTurns` stored."""

    session_id: str
    turn_ids: list[str]
    added: int
    failures: list[str]


IngestTurnsResult = Annotated[
    IngestTurnsPayload | InvalidInput | Forbidden | Unavailable,
    strawberry.union("IngestTurnsResult"),
]


def _validate_turns(turns: list[TurnInputType], cap: int) -> list[TurnInput]:
    if not turns:
        raise InvalidInputError("turns", "must hold at least one turn")
    if len(turns) > cap:
        raise InvalidInputError("turns", f"{len(turns)} turns; the limit per call is {cap}")
    out = []
    for i, t in enumerate(turns):
        if t.role not in _ROLES:
            raise InvalidInputError(
                f"turns[{i}].role", f"{t.role!r} is not one of {sorted(_ROLES)}"
            )
        if t.timestamp is not None and t.timestamp.tzinfo is None:
            raise InvalidInputError(f"turns[{i}].timestamp", "needs a time zone")
        out.append(
            TurnInput(
                role=t.role,
                text=t.text,
                speaker=t.speaker,
                timestamp=t.timestamp,
                tool_name=t.tool_name,
            )
        )
    return out


@strawberry.type
class Mutation:
    """Write access for agents."""

    @strawberry.mutation
    async def ingest_turns(self, info: Info, input: IngestTurnsInput) -> IngestTurnsResult:
        """Append turns to a session through the same pipeline as `remgraph ingest`."""
        ctx = info.context
        ingestor = ctx.resources.services.ingestor
        try:
            project = ctx.require_project(input.project)
            if not input.session_key.strip():
                raise InvalidInputError("sessionKey", "must not be empty")
            turns = _validate_turns(input.turns, ctx.settings.api.max_ingest_turns)
        except EXPECTED as e:
            return error_type(e)  # type: ignore[return-value]  # NotFound cannot occur here
        if ingestor is None:
            return Unavailable(capability="ingest", message="no ingest pipeline is configured")
        try:
            out = await ingestor.ingest_turns(
                project=project, session_key=input.session_key, turns=turns, title=input.title
            )
        except InvalidInputError as e:
            return InvalidInput(field=e.field, message=str(e))
        ctx.resources.retrieval.forget_speakers()
        return IngestTurnsPayload(
            session_id=out.session_id,
            turn_ids=list(out.turn_ids),
            added=out.added,
            failures=list(out.failures),
        )


__all__ = ["Mutation", "NotFound"]
