"""`Mutation`: append turns, feedback, confirmations and closing facts."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from api.context import Context
from api.ports import TurnInput
from api.query import REFUSED, refused
from api.types.errors import Forbidden, InvalidInput, NotFound, Unavailable
from api.types.knowledge import Correction, Fact
from core.timeutil import parse_ms
from graph.errors import InvalidInputError
from graph.kinds import ItemKind

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


@strawberry.type
class JobPayload:
    """What a consolidation call reported (JSON)."""

    report: JSON


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


@strawberry.enum
class FeedbackSignal(Enum):
    """What happened when an agent used an item."""

    USED = "used"
    HELPFUL = "helpful"
    HARMFUL = "harmful"


@strawberry.enum
class FeedbackKind(Enum):
    """Items that take feedback (each value is its `ItemKind`)."""

    LESSON = ItemKind.LESSON
    CORRECTION = ItemKind.CORRECTION


@strawberry.input
class RecordFeedbackInput:
    """Feedback on one served item; `kind` defaults from the id prefix (`les_`, `cor_`)."""

    project: str
    item_id: str
    signal: FeedbackSignal
    kind: FeedbackKind | None = None


@strawberry.type
class FeedbackPayload:
    """The item's counters after the feedback."""

    id: str
    kind: FeedbackKind
    usage_count: int
    helpful_count: int
    harmful_count: int
    effectiveness: float


RecordFeedbackResult = Annotated[
    FeedbackPayload | NotFound | InvalidInput | Forbidden, strawberry.union("RecordFeedbackResult")
]
ConfirmCorrectionResult = Annotated[
    Correction | NotFound | InvalidInput | Forbidden, strawberry.union("ConfirmCorrectionResult")
]
CloseFactResult = Annotated[
    Fact | NotFound | InvalidInput | Forbidden, strawberry.union("CloseFactResult")
]
JobResult = Annotated[
    JobPayload | InvalidInput | Forbidden | Unavailable, strawberry.union("JobResult")
]


def _closing(ctx: Context, project: str, valid_to: datetime | None) -> tuple[str, int]:
    """The caller's scope and the end a close mutation sets (default: now).

    Raises what `REFUSED` names: a project out of the key's scope, a `validTo` without a zone.
    """
    scope = ctx.require_project(project)
    if valid_to is not None and valid_to.tzinfo is None:
        raise InvalidInputError("validTo", "needs a time zone")
    return scope, parse_ms(valid_to) or ctx.now_ms


def _kind_of(item_id: str, kind: FeedbackKind | None) -> FeedbackKind:
    if kind is not None:
        return kind
    if item_id.startswith("les_"):
        return FeedbackKind.LESSON
    if item_id.startswith("cor_"):
        return FeedbackKind.CORRECTION
    raise InvalidInputError("kind", f"cannot tell the kind of {item_id!r}; pass `kind`")


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
        except REFUSED as e:
            return refused(e)
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

    @strawberry.mutation
    async def record_feedback(self, info: Info, input: RecordFeedbackInput) -> RecordFeedbackResult:
        """Count a use of a lesson or correction, and whether it helped or harmed."""
        ctx = info.context
        try:
            project = ctx.require_project(input.project)
            kind = _kind_of(input.item_id, input.kind)
        except REFUSED as e:
            return refused(e)
        row = await ctx.resources.scoped.record_feedback(
            kind.value,
            input.item_id,
            (project,),
            now=ctx.now_ms,
            helpful=input.signal is FeedbackSignal.HELPFUL,
            harmful=input.signal is FeedbackSignal.HARMFUL,
        )
        if row is None:
            return NotFound(
                kind=str(kind.value),
                id=input.item_id,
                message=f"{kind.value} {input.item_id!r} not found in {project!r}",
            )
        return FeedbackPayload(
            id=row.id,
            kind=kind,
            usage_count=row.usage_count,
            helpful_count=row.helpful_count,
            harmful_count=row.harmful_count,
            effectiveness=row.effectiveness,
        )

    @strawberry.mutation
    async def confirm_correction(
        self, info: Info, project: str, id: str
    ) -> ConfirmCorrectionResult:
        """Confirm a correction explicitly: it becomes a rule."""
        ctx = info.context
        try:
            scope = ctx.require_project(project)
        except REFUSED as e:
            return refused(e)
        c = await ctx.resources.scoped.confirm_correction(id, (scope,), ctx.now_ms)
        if c is None:
            return NotFound(kind="correction", id=id, message=f"correction {id!r} not found")
        return Correction.from_domain(c)

    @strawberry.mutation
    async def close_fact(
        self, info: Info, project: str, id: str, valid_to: datetime | None = None
    ) -> CloseFactResult:
        """End a fact's validity (default: now); as-of reads before then still see it."""
        ctx = info.context
        try:
            scope, end = _closing(ctx, project, valid_to)
        except REFUSED as e:
            return refused(e)
        f = await ctx.resources.scoped.close_fact(id, (scope,), ctx.now_ms, end)
        if f is None:
            return NotFound(
                kind="fact", id=id, message=f"no open fact {id!r} valid at {valid_to or 'now'}"
            )
        return Fact.from_domain(f)

    @strawberry.mutation
    async def close_correction(
        self, info: Info, project: str, id: str, valid_to: datetime | None = None
    ) -> ConfirmCorrectionResult:
        """End a correction's validity (default: now); as-of reads before then still see it."""
        ctx = info.context
        try:
            scope, end = _closing(ctx, project, valid_to)
        except REFUSED as e:
            return refused(e)
        c = await ctx.resources.scoped.close_correction(id, (scope,), ctx.now_ms, end)
        if c is None:
            return NotFound(
                kind="correction",
                id=id,
                message=f"no open correction {id!r} valid at {valid_to or 'now'}",
            )
        return Correction.from_domain(c)

    @strawberry.mutation
    async def retract_correction(
        self, info: Info, project: str, id: str
    ) -> ConfirmCorrectionResult:
        """Retract a correction extracted wrong: reads at a `knownAt` before now still show it."""
        ctx = info.context
        try:
            scope = ctx.require_project(project)
        except REFUSED as e:
            return refused(e)
        c = await ctx.resources.scoped.retract_correction(id, (scope,), ctx.now_ms)
        if c is None:
            return NotFound(kind="correction", id=id, message=f"no current correction {id!r}")
        return Correction.from_domain(c)

    @strawberry.mutation
    async def retract_fact(self, info: Info, project: str, id: str) -> CloseFactResult:
        """Retract a fact found wrong: reads at a `knownAt` before now still show it."""
        ctx = info.context
        try:
            scope = ctx.require_project(project)
        except REFUSED as e:
            return refused(e)
        f = await ctx.resources.scoped.retract_fact(id, (scope,), ctx.now_ms)
        if f is None:
            return NotFound(kind="fact", id=id, message=f"no current fact {id!r}")
        return Fact.from_domain(f)

    @strawberry.mutation
    async def run_job(self, info: Info, project: str, name: str) -> JobResult:
        """Run one REM-cycle job for a project now."""
        ctx = info.context
        try:
            scope = ctx.require_project(project)
        except REFUSED as e:
            return refused(e)
        cons = ctx.resources.services.consolidator
        if cons is None:
            return Unavailable(capability="consolidate", message="no consolidation is configured")
        try:
            report = await cons.run_job(name=name, project=scope)
        except InvalidInputError as e:
            return InvalidInput(field=e.field, message=str(e))
        return JobPayload(report=JSON(dict(report)))

    @strawberry.mutation
    async def review_finding(self, info: Info, project: str, id: str, status: str) -> JobResult:
        """Approve, reject or skip a REM finding."""
        ctx = info.context
        try:
            scope = ctx.require_project(project)
            if status not in {"approved", "rejected", "skipped"}:
                raise InvalidInputError("status", "must be approved, rejected or skipped")
        except REFUSED as e:
            return refused(e)
        cons = ctx.resources.services.consolidator
        if cons is None:
            return Unavailable(capability="consolidate", message="no consolidation is configured")
        try:
            out = await cons.review_finding(project=scope, finding_id=id, status=status)
        except InvalidInputError as e:
            return InvalidInput(field=e.field, message=str(e))
        return JobPayload(report=JSON(dict(out)))


__all__ = ["Mutation", "NotFound"]
