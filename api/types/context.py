"""Ranked context items and search hits."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import strawberry

from api.types.conversation import Turn
from api.types.pagination import Connection
from core.timeutil import from_ms
from graph.kinds import ItemKind
from recall.ranking import Ranked
from recall.search import SearchMode

if TYPE_CHECKING:
    from api.context import Context

ContextKind = strawberry.enum(ItemKind, name="ContextKind")
"""The GraphQL enum generated from `graph.kinds.ItemKind`. It is the same class, so resolvers take
and return `ItemKind` members and fields are annotated with `ItemKind`."""


SearchModeType = strawberry.enum(SearchMode, name="SearchMode")
"""The GraphQL enum generated from `recall.search.SearchMode` (the same class)."""


@strawberry.type
class Signal:
    """One ranking signal and its value for an item (see `recall/ranking.py`)."""

    name: str
    value: float


@strawberry.type
class Provenance:
    """Where an item came from."""

    project: str | None
    session_id: str | None
    turn_ids: list[str]
    timestamp: datetime | None
    speaker: str | None


@strawberry.type
class ContextItem:
    """One ranked item of context.

    `why` and `provenance` are built only when the query selects them: agents that ask for ids,
    kinds and scores (the common case) skip building ~12 objects per item.
    """

    id: strawberry.ID
    kind: ItemKind
    text: str
    score: float
    tokens: int
    ranked: strawberry.Private[Ranked]

    @strawberry.field
    def why(self) -> list[Signal]:
        """The ranking signals behind `score`."""
        return [Signal(name=k, value=v) for k, v in self.ranked.why.items()]

    @strawberry.field
    def provenance(self) -> Provenance:
        """Where the item came from."""
        c = self.ranked.candidate
        return Provenance(
            project=c.project,
            session_id=c.session_id,
            turn_ids=list(c.turn_ids),
            timestamp=None if c.time_ms is None else from_ms(c.time_ms),
            speaker=c.speaker or None,
        )

    @classmethod
    def from_ranked(cls, r: Ranked) -> ContextItem:
        c = r.candidate
        return cls(
            id=strawberry.ID(c.id),
            kind=c.kind,
            text=c.text,
            score=r.score,
            tokens=c.tokens,
            ranked=r,
        )


@strawberry.type(name="TimeRange")
class TimeRangeType:
    """A time range the query named."""

    label: str
    start: datetime
    end: datetime


@strawberry.type
class ContextPayload:
    """The answer to `context`: items best first, packed under the token budget."""

    items: list[ContextItem]
    total_tokens: int
    candidates: int
    terms: list[str]
    speakers: list[str]
    time_ranges: list[TimeRangeType]
    answerable: float = strawberry.field(
        description="How likely the items answer the query, 0-1: low means nothing is known "
        "(`recall.answerable`)."
    )
    answerable_why: list[Signal] = strawberry.field(
        description="What `answerable` rests on: coverage of the query's words by the best item, "
        "and by what the speakers it names said versus others."
    )


@strawberry.type
class SearchHit:
    """One search result."""

    id: strawberry.ID
    score: float
    kind: ItemKind

    @strawberry.field
    async def turn(self, info: strawberry.Info[Context, None]) -> Turn | None:
        """The matched turn."""
        t = await info.context.loaders.turn.load(str(self.id))
        return None if t is None else Turn.from_domain(t)


@strawberry.type
class SearchHitConnection(Connection[SearchHit]):
    """A page of search hits."""
