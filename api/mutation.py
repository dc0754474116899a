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
from api.types.docs import describe_values, described_mutation
from api.types.errors import Forbidden, InvalidInput, NotFound, Unavailable
from api.types.knowledge import Correction, Fact
from core.timeutil import parse_ms
from graph.errors import InvalidInputError
from graph.kinds import ItemKind

Info = strawberry.Info[Context, None]

_ROLES = frozenset({"user", "assistant", "system", "tool"})


@strawberry.input(name="TurnInput", description="One message to append to a session.")
class TurnInputType:
    """One message to append."""

    role: str = strawberry.field(
        description="Who produced it: `user`, `assistant`, `system` or `tool`."
    )
    text: str = strawberry.field(
        description="The message text; a turn with empty text is reported in `failures`."
    )
    speaker: str = strawberry.field(
        default="", description="Display name of the speaker; empty means the role."
    )
    timestamp: datetime | None = strawberry.field(
        default=None,
        description="When it was said (event time, ISO 8601 with a zone); null means now.",
    )
    tool_name: str | None = strawberry.field(
        default=None,
        description="The tool called (assistant turn) or answered (tool turn); null otherwise.",
    )


@strawberry.input(
    description="Turns to append to one session (created when new); repeating a call adds nothing."
)
class IngestTurnsInput:
    """Turns to append to one session (created when new); repeated calls are idempotent."""

    project: str = strawberry.field(
        description="The project to write to; the API key must grant it."
    )
    session_key: str = strawberry.field(
        description="Your own stable, non-empty id for the session: the same key in the same "
        "project appends to the same session."
    )
    turns: list[TurnInputType] = strawberry.field(
        description="The turns to append, in order: at least one, at most the server's limit "
        "(500 by default)."
    )
    title: str = strawberry.field(
        default="", description="The session's title; empty keeps the one it has."
    )


@strawberry.type(description="What `ingestTurns` stored.")
class IngestTurnsPayload:
    """What `ingestTurns` stored."""

    session_id: str = strawberry.field(description="The id of the session the turns landed in.")
    turn_ids: list[str] = strawberry.field(
        description="The ids of the turns, in input order (turns that failed are left out)."
    )
    added: int = strawberry.field(
        description="How many turns were new; repeating a call adds none."
    )
    failures: list[str] = strawberry.field(
        description="One reason per turn that could not be stored; empty when all were."
    )


@strawberry.type(description="What a REM-cycle call reported, as JSON.")
class JobPayload:
    """What a consolidation call reported (JSON)."""

    report: JSON = strawberry.field(
        description="The job's report (`runJob`) or the finding as reviewed (`reviewFinding`)."
    )


IngestTurnsResult = Annotated[
    IngestTurnsPayload | InvalidInput | Forbidden | Unavailable,
    strawberry.union(
        "IngestTurnsResult",
        description="What was stored, or why not: a refused argument or project, or no ingest "
        "pipeline configured.",
    ),
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


@strawberry.enum(description="What happened when an agent used an item.")
class FeedbackSignal(Enum):
    """What happened when an agent used an item."""

    USED = strawberry.enum_value("used", description="It was used; counts one use only.")
    HELPFUL = strawberry.enum_value("helpful", description="It was used and it helped.")
    HARMFUL = strawberry.enum_value("harmful", description="It was used and it did harm.")


@strawberry.enum(description="The kinds of item that take feedback.")
class FeedbackKind(Enum):
    """Items that take feedback (each value is its `ItemKind`)."""

    LESSON = ItemKind.LESSON
    CORRECTION = ItemKind.CORRECTION


# Not `strawberry.enum_value`: resolvers pass `kind.value` on as an `ItemKind`, which mypy would
# then type as the `EnumValueDefinition` wrapper.
describe_values(
    FeedbackKind,
    {"LESSON": "A lesson (id `les_...`).", "CORRECTION": "A correction or rule (id `cor_...`)."},
)


@strawberry.input(
    description="Feedback on one served item; `kind` defaults from the id prefix (`les_`, `cor_`)."
)
class RecordFeedbackInput:
    """Feedback on one served item; `kind` defaults from the id prefix (`les_`, `cor_`)."""

    project: str = strawberry.field(
        description="The project the item belongs to; the API key must grant it."
    )
    item_id: str = strawberry.field(description="The id of the lesson or correction.")
    signal: FeedbackSignal = strawberry.field(description="What happened when it was used.")
    kind: FeedbackKind | None = strawberry.field(
        default=None, description="The item's kind; null: read from the id prefix."
    )


@strawberry.type(description="The item's feedback counters after the feedback.")
class FeedbackPayload:
    """The item's counters after the feedback."""

    id: str = strawberry.field(description="The item's id.")
    kind: FeedbackKind = strawberry.field(description="The item's kind.")
    usage_count: int = strawberry.field(description="Uses reported so far, this one included.")
    helpful_count: int = strawberry.field(description="How often it was reported helpful.")
    harmful_count: int = strawberry.field(description="How often it was reported harmful.")
    effectiveness: float = strawberry.field(
        description="(helpful - harmful) / (helpful + harmful + 2), between -1 and 1."
    )


RecordFeedbackResult = Annotated[
    FeedbackPayload | NotFound | InvalidInput | Forbidden,
    strawberry.union(
        "RecordFeedbackResult",
        description="The item's new counters, or why not: an unknown item, a refused argument or "
        "project.",
    ),
]
ConfirmCorrectionResult = Annotated[
    Correction | NotFound | InvalidInput | Forbidden,
    strawberry.union(
        "ConfirmCorrectionResult",
        description="The correction as changed, or why not: an unknown correction, a refused "
        "argument or project.",
    ),
]
CloseFactResult = Annotated[
    Fact | NotFound | InvalidInput | Forbidden,
    strawberry.union(
        "CloseFactResult",
        description="The fact as changed, or why not: an unknown fact, a refused argument or "
        "project.",
    ),
]
JobResult = Annotated[
    JobPayload | InvalidInput | Forbidden | Unavailable,
    strawberry.union(
        "JobResult",
        description="What the REM cycle reported, or why not: a refused argument or project, or "
        "no REM cycle configured.",
    ),
]

ProjectArg = Annotated[
    str,
    strawberry.argument(description="The project the item belongs to; the API key must grant it."),
]
CorrectionIdArg = Annotated[
    str, strawberry.argument(description="The correction's id (`cor_...`).")
]
FactIdArg = Annotated[str, strawberry.argument(description="The fact's id.")]
ValidToArg = Annotated[
    datetime | None,
    strawberry.argument(
        description="Event time the validity ends (ISO 8601 with a zone); null means now."
    ),
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


@strawberry.type(
    description="Write access for agents: only to projects the API key grants, named explicitly."
)
class Mutation:
    """Write access for agents."""

    @described_mutation("Append turns to a session through the same pipeline as `remgraph ingest`.")
    async def ingest_turns(
        self,
        info: Info,
        input: Annotated[
            IngestTurnsInput,
            strawberry.argument(description="The session and the turns to append."),
        ],
    ) -> IngestTurnsResult:
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

    @described_mutation(
        "Count a use of a lesson or correction, and whether it helped or harmed: this "
        "feeds its effectiveness in ranking."
    )
    async def record_feedback(
        self,
        info: Info,
        input: Annotated[
            RecordFeedbackInput,
            strawberry.argument(description="The item and what happened when it was used."),
        ],
    ) -> RecordFeedbackResult:
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

    @described_mutation("Confirm a correction explicitly: it becomes a rule.")
    async def confirm_correction(
        self, info: Info, project: ProjectArg, id: CorrectionIdArg
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

    @described_mutation(
        "End a fact's validity in event time (default now): reads at an `asOf` "
        "before the end still see it."
    )
    async def close_fact(
        self, info: Info, project: ProjectArg, id: FactIdArg, valid_to: ValidToArg = None
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

    @described_mutation(
        "End a correction's validity in event time (default now): reads at an `asOf` "
        "before the end still see it."
    )
    async def close_correction(
        self, info: Info, project: ProjectArg, id: CorrectionIdArg, valid_to: ValidToArg = None
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

    @described_mutation(
        "Retract a correction extracted wrong, in record time: gone from reads at a "
        "later `knownAt`, kept for reads at an earlier one."
    )
    async def retract_correction(
        self, info: Info, project: ProjectArg, id: CorrectionIdArg
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

    @described_mutation(
        "Retract a fact found wrong, in record time: gone from reads at a later "
        "`knownAt`, kept for reads at an earlier one."
    )
    async def retract_fact(self, info: Info, project: ProjectArg, id: FactIdArg) -> CloseFactResult:
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

    @described_mutation("Run one REM-cycle job for a project now, and report.")
    async def run_job(
        self,
        info: Info,
        project: Annotated[
            str,
            strawberry.argument(
                description="The project to run it for; the API key must grant it."
            ),
        ],
        name: Annotated[
            str,
            strawberry.argument(
                description="The job, such as `duplicates`, `graduation` or `topic_summaries`; "
                "an unknown name is refused."
            ),
        ],
    ) -> JobResult:
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

    @described_mutation("Approve, reject or skip a finding of the REM cycle.")
    async def review_finding(
        self,
        info: Info,
        project: Annotated[
            str,
            strawberry.argument(description="The finding's project; the API key must grant it."),
        ],
        id: Annotated[str, strawberry.argument(description="The finding's id.")],
        status: Annotated[
            str,
            strawberry.argument(description="The verdict: `approved`, `rejected` or `skipped`."),
        ],
    ) -> JobResult:
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
