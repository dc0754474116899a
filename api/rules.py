"""`rules(project)`: a project's current rules and preferences, for agents at session start.

What counts as current, and the order, is `knowledge.rules.current_rules` (read through
`recall.rules`); this module only checks arguments and scope and maps the result.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from api.context import Context, ForbiddenError
from api.types.docs import describe_type
from api.types.errors import Forbidden, InvalidInput
from core.timeutil import from_ms
from graph.errors import InvalidInputError
from graph.repositories.context_queries import ContextQueryRecord
from recall.rules import CurrentRule, InForce, read_current_rules, served_refs

Info = strawberry.Info[Context, None]


@strawberry.type
class Rule:
    """A rule or preference in force.

    A correction (a confirmed or graduated rule, or a preference), or a standing preference the
    user stated about themselves (`type` `standing_preference`: a diet, an allergy, the name to
    use; its `id` is the fact's).
    """

    id: strawberry.ID
    project: str
    status: str
    """`rule` (confirmed or graduated) or `preference`."""
    confirmed: bool
    text: str
    """The instruction to follow."""
    type: str
    original_behaviour: str
    corrected_behaviour: str
    confidence: float
    reinforcement: float
    effective_weight: float
    """Confidence × reinforcement^0.5 × exp(−days since last seen / half-life), as of now."""
    last_seen: datetime | None
    source_turn_ids: list[str]

    @classmethod
    def from_domain(cls, r: InForce) -> Rule:
        if not isinstance(r, CurrentRule):
            f = r.fact
            return cls(
                id=strawberry.ID(f.id),
                project=f.project,
                status=r.status,
                confirmed=False,
                text=r.text,
                type="standing_preference",
                original_behaviour="",
                corrected_behaviour=r.text,
                confidence=f.confidence,
                reinforcement=1.0,
                effective_weight=r.effective_weight,
                last_seen=f.valid_from,
                source_turn_ids=list(f.source_turn_ids),
            )
        c = r.correction
        return cls(
            id=strawberry.ID(c.id),
            project=c.project,
            status=r.status,
            confirmed=c.confirmed,
            text=r.text,
            type=c.type,
            original_behaviour=c.original_behaviour,
            corrected_behaviour=c.corrected_behaviour,
            confidence=c.confidence,
            reinforcement=c.reinforcement,
            effective_weight=r.effective_weight,
            last_seen=c.last_seen,
            source_turn_ids=list(c.source_turn_ids),
        )


@strawberry.type
class RulesPayload:
    """The rules in force at `asOf` (now), rules before preferences, heaviest first."""

    items: list[Rule]
    as_of: datetime


RulesResult = Annotated[
    RulesPayload | InvalidInput | Forbidden,
    strawberry.union(
        "RulesResult",
        description="The rules in force, or why the request was refused (a bad argument or a "
        "project the key lacks).",
    ),
]

describe_type(
    Rule,
    "A rule or preference in force: a confirmed or graduated correction, or a standing "
    "preference the user stated (a diet, an allergy, a name to use).",
    {
        "id": "The correction's id, or for a standing preference the fact's.",
        "project": "The project the rule belongs to.",
        "status": "`rule` (confirmed or graduated) or `preference`.",
        "confirmed": "True when a human confirmed the correction (`confirmCorrection`).",
        "text": "The instruction to follow.",
        "type": "What the correction is about (`preference`, `factual`, `style`, `process`, "
        "`tool_usage`), or `standing_preference`.",
        "original_behaviour": "What the agent did before it was corrected; empty for a standing "
        "preference.",
        "corrected_behaviour": "What the user wants instead.",
        "confidence": "Confidence in the rule, from 0 to 1.",
        "reinforcement": "How often it was seen (1 for a standing preference).",
        "effective_weight": "Confidence × reinforcement^0.5 × exp(−days since last seen / "
        "half-life), as of now; higher ranks first.",
        "last_seen": "When it last occurred, or a preference was stated (ISO 8601 UTC); null when "
        "unknown.",
        "source_turn_ids": "The turns the rule was derived from.",
    },
)
describe_type(
    RulesPayload,
    "The rules and preferences in force now: rules before preferences, heaviest first.",
    {
        "items": "The rules and preferences, in that order.",
        "as_of": "The time they were read at: the request time (ISO 8601 UTC).",
    },
)


async def resolve_rules(info: Info, project: str | None, limit: int) -> RulesResult:
    """The `rules` field: the caller's projects (or `project`), as of the request time."""
    ctx = info.context
    try:
        scope = ctx.scope(project)
        limit = ctx.check_first(limit, "limit")
    except InvalidInputError as e:
        return InvalidInput(field=e.field, message=str(e))
    except ForbiddenError as e:
        return Forbidden(project=e.project, message=str(e))
    rules = await read_current_rules(ctx.resources.db, scope, now_ms=ctx.now_ms, limit=limit)
    if rules:  # what was served counts as use (REM staleness, `rem run --auto`); no I/O here
        ctx.resources.recorder.submit(
            ContextQueryRecord(
                project=project or ",".join(scope),
                query="",
                items=served_refs(rules),
                at_ms=ctx.now_ms,
                principal=ctx.principal.key_id,
                request_id=ctx.request_id,
                source="rules",
            )
        )
    return RulesPayload(items=[Rule.from_domain(r) for r in rules], as_of=from_ms(ctx.now_ms))
