"""Ranked context items and search hits."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import strawberry

from api.types.conversation import Turn
from api.types.docs import describe_values, described_field
from api.types.pagination import Connection
from core.timeutil import from_ms
from graph.kinds import ItemKind
from recall.ranking import Ranked
from recall.search import SearchMode

if TYPE_CHECKING:
    from api.context import Context


ContextKind = strawberry.enum(
    ItemKind,
    name="ContextKind",
    description="The kind of an item of memory: what `context` returns and `kinds` selects.",
)
"""The GraphQL enum generated from `graph.kinds.ItemKind`. It is the same class, so resolvers take
and return `ItemKind` members and fields are annotated with `ItemKind`."""
describe_values(
    ContextKind,
    {
        "TURN": "A message of a session, as it was said.",
        "LESSON": "Something learned that should change future behaviour.",
        "CORRECTION": "A user correcting the agent; confirmed or reinforced ones are rules.",
        "FACT": "A subject-predicate-object statement (a decision, preference, todo...).",
        "TOPIC": "A subject discussed across the sessions of a project.",
        "REFERENCE_LAYER": "A compact reference document about one topic (built by the REM cycle).",
        "PRIMER": "A briefing rolled up for a day, ISO week or month (built by the REM cycle).",
    },
)


SearchModeType = strawberry.enum(
    SearchMode, name="SearchMode", description="How `search` finds turns."
)
"""The GraphQL enum generated from `recall.search.SearchMode` (the same class)."""
describe_values(
    SearchModeType,
    {
        "FULLTEXT": "Keyword search, scored with BM25.",
        "VECTOR": "Embedding similarity (cosine); refused when no embedder is configured.",
        "HYBRID": "Fulltext and vector lists fused by reciprocal rank (RRF); fulltext alone when "
        "no embedder is configured.",
    },
)


@strawberry.type(description="One named signal and its value, behind a score.")
class Signal:
    """One ranking signal and its value for an item (see `recall/ranking.py`)."""

    name: str = strawberry.field(
        description="The signal's name, such as `fulltext`, `vector` or `rule_first`."
    )
    value: float = strawberry.field(description="The signal's value for this item.")


@strawberry.type(description="Where an item of context came from.")
class Provenance:
    """Where an item came from."""

    project: str | None = strawberry.field(description="The project the item belongs to.")
    session_id: str | None = strawberry.field(
        description="The session a turn belongs to; null for items not tied to one session."
    )
    turn_ids: list[str] = strawberry.field(
        description="The turns the item was derived from (for a turn: itself)."
    )
    timestamp: datetime | None = strawberry.field(
        description="Event time of the item (ISO 8601 UTC): a turn's timestamp, else its "
        "`validFrom`; null when unknown."
    )
    speaker: str | None = strawberry.field(
        description="Who said it (a turn's speaker) or whom it is about (a fact's subject); null "
        "when unknown."
    )


@strawberry.type(description="One ranked item of context, with its score and where it came from.")
class ContextItem:
    """One ranked item of context.

    `why` and `provenance` are built only when the query selects them: agents that ask for ids,
    kinds and scores (the common case) skip building ~12 objects per item.
    """

    id: strawberry.ID = strawberry.field(
        description="The item's id (a turn, lesson, correction, fact... id)."
    )
    kind: ItemKind = strawberry.field(description="What kind of item it is.")
    text: str = strawberry.field(description="The item's text.")
    score: float = strawberry.field(
        description="Final ranking score; higher is better, comparable within one answer only."
    )
    tokens: int = strawberry.field(description="Approximate token count of `text`.")
    ranked: strawberry.Private[Ranked]

    @described_field("The ranking signals behind `score`, by name.")
    def why(self) -> list[Signal]:
        """The ranking signals behind `score`."""
        return [Signal(name=k, value=v) for k, v in self.ranked.why.items()]

    @described_field("Where the item came from: project, session, turns, time.")
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


@strawberry.type(
    name="TimeRange", description='A time range the query named, such as "in May 2023".'
)
class TimeRangeType:
    """A time range the query named."""

    label: str = strawberry.field(description="The expression as the query put it.")
    start: datetime = strawberry.field(description="Start of the range, included (ISO 8601 UTC).")
    end: datetime = strawberry.field(description="End of the range, excluded (ISO 8601 UTC).")


@strawberry.type(
    description="The answer to `context`: items best first, packed under the token budget, and "
    "what was read from the query."
)
class ContextPayload:
    """The answer to `context`: items best first, packed under the token budget."""

    items: list[ContextItem] = strawberry.field(
        description="The items, best first; rules in force that concern the query come first."
    )
    total_tokens: int = strawberry.field(
        description="The sum of the items' `tokens`, at most `tokenBudget`."
    )
    candidates: int = strawberry.field(
        description="How many candidate items were ranked to choose `items`."
    )
    terms: list[str] = strawberry.field(
        description="The query's content words used for keyword matching (stop words and "
        "speaker names removed)."
    )
    speakers: list[str] = strawberry.field(description="Known speakers the query names, as stored.")
    time_ranges: list[TimeRangeType] = strawberry.field(
        description="Time ranges the query names (relative ones count back from `asOf`)."
    )
    answerable: float = strawberry.field(
        description="How likely the items answer the query, 0-1: low means nothing is known "
        "(`recall.answerable`)."
    )
    answerable_why: list[Signal] = strawberry.field(
        description="What `answerable` rests on: coverage of the query's words by the best item, "
        "and by what the speakers it names said versus others."
    )


@strawberry.type(description="One turn that `search` found.")
class SearchHit:
    """One search result."""

    id: strawberry.ID = strawberry.field(description="The id of the matched turn.")
    score: float = strawberry.field(
        description="Relevance, higher is better: BM25 for FULLTEXT, cosine similarity for "
        "VECTOR, normalised RRF (0-1) for HYBRID."
    )
    kind: ItemKind = strawberry.field(description="Always TURN: `search` finds turns only.")

    @described_field("The matched turn; null if it can no longer be read.")
    async def turn(self, info: strawberry.Info[Context, None]) -> Turn | None:
        """The matched turn."""
        t = await info.context.loaders.turn.load(str(self.id))
        return None if t is None else Turn.from_domain(t)


@strawberry.type(description="A page of search hits, best first.")
class SearchHitConnection(Connection[SearchHit]):
    """A page of search hits."""
