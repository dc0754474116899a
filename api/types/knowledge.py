"""Topics, lessons (with version history), corrections and facts."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import strawberry

from api.types.docs import AsOfArg, KnownAtArg, described_field
from api.types.pagination import Connection
from core.timeutil import parse_ms
from graph import models

if TYPE_CHECKING:
    from api.context import Context


@strawberry.type(description="A lesson's text at one version; versions never change.")
class LessonVersion:
    """A lesson's text at one version."""

    version: int = strawberry.field(description="The version number, from 1.")
    title: str = strawberry.field(description="The title at this version.")
    content: str = strawberry.field(description="The lesson's text at this version.")
    summary: str = strawberry.field(description="The one-line summary at this version.")
    reason: str = strawberry.field(description="Why the lesson changed to this version.")
    session_id: str | None = strawberry.field(
        description="The session that caused the change; null when none did."
    )
    created_at: datetime = strawberry.field(
        description="Record time: when this version was written (ISO 8601 UTC)."
    )

    @classmethod
    def from_domain(cls, m: models.LessonVersion) -> LessonVersion:
        return cls(
            version=m.version,
            title=m.title,
            content=m.content,
            summary=m.summary,
            reason=m.reason,
            session_id=m.session_id,
            created_at=m.created_at,
        )


@strawberry.type(description="Something learned that should change an agent's future behaviour.")
class Lesson:
    """Something learned that should change future behaviour."""

    id: strawberry.ID = strawberry.field(description="The lesson's id (`les_...`).")
    project: str = strawberry.field(description="The project the lesson belongs to.")
    category: str = strawberry.field(
        description="Kind of lesson: `pattern`, `gotcha`, `best-practice`, `failure` or "
        "`problem-solution`."
    )
    title: str = strawberry.field(description="A short title.")
    content: str = strawberry.field(description="The lesson itself.")
    summary: str = strawberry.field(description="A one-line summary.")
    applicable_when: str = strawberry.field(description="When the lesson applies.")
    keywords: list[str] = strawberry.field(description="Keywords the lesson is about.")
    weight: float = strawberry.field(description="Salience used for ranking (higher ranks higher).")
    quality: float = strawberry.field(description="Quality score from 0 to 1.")
    usage_count: int = strawberry.field(
        description="How often agents reported using it (each `recordFeedback` counts one)."
    )
    helpful_count: int = strawberry.field(description="How often it was reported helpful.")
    harmful_count: int = strawberry.field(description="How often it was reported harmful.")
    effectiveness: float = strawberry.field(
        description="(helpful - harmful) / (helpful + harmful + 2), between -1 and 1; ranking "
        "multiplies it into the weight."
    )
    version: int = strawberry.field(
        description="The version of the text shown (the one current at `knownAt`); see `versions`."
    )
    source_turn_ids: list[str] = strawberry.field(
        description="The turns the lesson was derived from."
    )
    valid_from: datetime = strawberry.field(
        description="Event time: when the lesson began to hold (ISO 8601 UTC)."
    )
    valid_to: datetime | None = strawberry.field(
        description="Event time: when it stopped holding (ISO 8601 UTC); null while it holds."
    )

    @classmethod
    def from_domain(cls, m: models.Lesson) -> Lesson:
        return cls(
            id=strawberry.ID(m.id),
            project=m.project,
            category=m.category,
            title=m.title,
            content=m.content,
            summary=m.summary,
            applicable_when=m.applicable_when,
            keywords=list(m.keywords),
            weight=m.weight,
            quality=m.quality,
            usage_count=m.usage_count,
            helpful_count=m.helpful_count,
            harmful_count=m.harmful_count,
            effectiveness=m.effectiveness,
            version=m.version,
            source_turn_ids=list(m.source_turn_ids),
            valid_from=m.valid_from,
            valid_to=m.valid_to,
        )

    @described_field("Every version of the lesson's text, oldest first.")
    async def versions(self, info: strawberry.Info[Context, None]) -> list[LessonVersion]:
        """Every version, oldest first."""
        vs = await info.context.loaders.lesson_versions.load(str(self.id))
        return [LessonVersion.from_domain(v) for v in vs]


@strawberry.type(
    description="A user correcting the agent; confirmed or reinforced corrections become rules."
)
class Correction:
    """A user correcting the agent; confirmed or reinforced corrections are rules."""

    id: strawberry.ID = strawberry.field(description="The correction's id (`cor_...`).")
    project: str = strawberry.field(description="The project the correction belongs to.")
    type: str = strawberry.field(
        description="What was corrected: `preference`, `factual`, `style`, `process` or "
        "`tool_usage`."
    )
    original_behaviour: str = strawberry.field(description="What the agent did.")
    corrected_behaviour: str = strawberry.field(description="What the user wanted instead.")
    rule_text: str = strawberry.field(description="The correction as an instruction to follow.")
    confidence: float = strawberry.field(description="Confidence in the correction, from 0 to 1.")
    reinforcement: float = strawberry.field(
        description="How often it was seen: 1 when first found, plus 1 per recurrence."
    )
    status: str = strawberry.field(
        description="Graduation stage: `correction`, `pattern`, `preference` or `rule`."
    )
    confirmed: bool = strawberry.field(
        description="True once a human confirmed it (`confirmCorrection`): it is then a rule."
    )
    usage_count: int = strawberry.field(
        description="How often agents reported using it (each `recordFeedback` counts one)."
    )
    helpful_count: int = strawberry.field(description="How often it was reported helpful.")
    harmful_count: int = strawberry.field(description="How often it was reported harmful.")
    first_seen: datetime | None = strawberry.field(
        description="When it first occurred (ISO 8601 UTC); null when unknown."
    )
    last_seen: datetime | None = strawberry.field(
        description="When it last occurred (ISO 8601 UTC); null when unknown."
    )
    source_turn_ids: list[str] = strawberry.field(
        description="The turns the correction was derived from."
    )
    valid_from: datetime = strawberry.field(
        description="Event time: when the correction began to hold (ISO 8601 UTC)."
    )
    valid_to: datetime | None = strawberry.field(
        description="Event time: when it stopped holding (ISO 8601 UTC); null while it holds."
    )

    @classmethod
    def from_domain(cls, m: models.Correction) -> Correction:
        return cls(
            id=strawberry.ID(m.id),
            project=m.project,
            type=m.type,
            original_behaviour=m.original_behaviour,
            corrected_behaviour=m.corrected_behaviour,
            rule_text=m.rule_text,
            confidence=m.confidence,
            reinforcement=m.reinforcement,
            status=m.status,
            confirmed=m.confirmed,
            usage_count=m.usage_count,
            helpful_count=m.helpful_count,
            harmful_count=m.harmful_count,
            first_seen=m.first_seen,
            last_seen=m.last_seen,
            source_turn_ids=list(m.source_turn_ids),
            valid_from=m.valid_from,
            valid_to=m.valid_to,
        )


@strawberry.type(
    description="A subject-predicate-object statement, true over an interval of event time."
)
class Fact:
    """A subject–predicate–object statement, valid over an interval."""

    id: strawberry.ID = strawberry.field(description="The fact's id.")
    project: str = strawberry.field(description="The project the fact belongs to.")
    subject: str = strawberry.field(description="What or whom the fact is about.")
    predicate: str = strawberry.field(description="How the subject relates to the object.")
    object: str = strawberry.field(description="The value the subject is related to.")
    kind: str = strawberry.field(
        description="Kind of fact: `decision`, `preference`, `tech_stack`, `project`, `todo`, "
        "`event`, `observation` or `other`."
    )
    statement: str = strawberry.field(description="The fact as a sentence.")
    confidence: float = strawberry.field(description="Confidence in the fact, from 0 to 1.")
    source_turn_ids: list[str] = strawberry.field(
        description="The turns the fact was derived from."
    )
    valid_from: datetime = strawberry.field(
        description="Event time: when the fact became true (ISO 8601 UTC)."
    )
    valid_to: datetime | None = strawberry.field(
        description="Event time: when it stopped being true, as known at `knownAt` (ISO 8601 "
        "UTC); null while it holds."
    )
    recorded_at: datetime = strawberry.field(
        description="Record time: when remgraph learned the fact (ISO 8601 UTC)."
    )
    expired_at: datetime | None = strawberry.field(
        description="Record time: when the fact was retracted as wrong (ISO 8601 UTC); null "
        "while current."
    )

    @classmethod
    def from_domain(cls, m: models.Fact) -> Fact:
        return cls(
            id=strawberry.ID(m.id),
            project=m.project,
            subject=m.subject,
            predicate=m.predicate,
            object=m.object,
            kind=m.kind,
            statement=m.statement,
            confidence=m.confidence,
            source_turn_ids=list(m.source_turn_ids),
            valid_from=m.valid_from,
            valid_to=m.valid_to,
            recorded_at=m.recorded_at,
            expired_at=m.expired_at,
        )


@strawberry.type(
    description="One version of a topic's summary with its key takeaways (built by the REM cycle)."
)
class TopicBrief:
    """One version of a topic's summary with its key takeaways (built by the REM cycle)."""

    version: int = strawberry.field(description="The version number, from 1.")
    title: str = strawberry.field(description="The topic's title when this version was written.")
    summary: str = strawberry.field(
        description="The summary's prose: its lead and salient sentences, in the third person."
    )
    takeaways: list[str] = strawberry.field(description="Key takeaways, most important first.")
    takeaway_sources: list[str] = strawberry.field(
        description="Per takeaway, in the same order, the id of the item (or turn) it states."
    )
    text: str = strawberry.field(
        description="The whole brief as Markdown: the summary, then the key takeaways as a list."
    )
    word_count: int = strawberry.field(description="Number of words in `text`.")
    source_turn_ids: list[str] = strawberry.field(
        description="The turns the brief's sentences come from."
    )
    source_item_ids: list[str] = strawberry.field(
        description="The knowledge items (facts, corrections, lessons) the brief states."
    )
    valid_from: datetime = strawberry.field(
        description="Event time: when this version took over (ISO 8601 UTC)."
    )
    valid_to: datetime | None = strawberry.field(
        description="Event time: when a newer version replaced it (ISO 8601 UTC); null while "
        "current."
    )
    recorded_at: datetime = strawberry.field(
        description="Record time: when remgraph wrote this version (ISO 8601 UTC)."
    )

    @classmethod
    def from_domain(cls, m: models.TopicBrief) -> TopicBrief:
        return cls(
            version=m.version,
            title=m.title,
            summary=m.summary,
            takeaways=list(m.takeaways),
            takeaway_sources=list(m.takeaway_sources),
            text=m.text,
            word_count=m.word_count,
            source_turn_ids=list(m.source_turn_ids),
            source_item_ids=list(m.source_item_ids),
            valid_from=m.valid_from,
            valid_to=m.valid_to,
            recorded_at=m.recorded_at,
        )


@strawberry.type(description="A subject discussed across the sessions of one project.")
class Topic:
    """A subject discussed across sessions."""

    id: strawberry.ID = strawberry.field(description="The topic's id.")
    title: str = strawberry.field(description="A short title.")
    projects: list[str] = strawberry.field(
        description="The one project that owns the topic, as a list (kept for older clients)."
    )
    keywords: list[str] = strawberry.field(description="Keywords of the topic.")
    message_count: int = strawberry.field(description="Number of turns that mention the topic.")
    weight: float = strawberry.field(
        description="Salience used for ranking; `topics` lists the heaviest first."
    )
    phase: str = strawberry.field(
        description="Lifecycle phase: `active`, `dormant` or `completed`."
    )
    first_seen: datetime | None = strawberry.field(
        description="When the topic was first mentioned (ISO 8601 UTC); null when unknown."
    )
    last_seen: datetime | None = strawberry.field(
        description="When the topic was last mentioned (ISO 8601 UTC); null when unknown."
    )

    @classmethod
    def from_domain(cls, m: models.Topic) -> Topic:
        return cls(
            id=strawberry.ID(m.id),
            title=m.title,
            projects=list(m.projects),
            keywords=list(m.keywords),
            message_count=m.message_count,
            weight=m.weight,
            phase=m.phase,
            first_seen=m.first_seen,
            last_seen=m.last_seen,
        )

    @described_field(
        "The topic's summary with key takeaways as it held at `asOf`, as known at "
        "`knownAt`; null until the `topic_summaries` REM job has summarised the topic."
    )
    async def summary(
        self,
        info: strawberry.Info[Context, None],
        as_of: AsOfArg = None,
        known_at: KnownAtArg = None,
    ) -> TopicBrief | None:
        """Its summary with key takeaways as it held at `asOf` (default now), known at `knownAt`.

        Null until the `topic_summaries` REM job has summarised the topic.
        """
        now = info.context.now_ms
        key = (str(self.id), parse_ms(as_of) or now, parse_ms(known_at) or now)
        brief = await info.context.loaders.topic_brief.load(key)
        return TopicBrief.from_domain(brief) if brief is not None else None


@strawberry.type(description="A page of lessons.")
class LessonConnection(Connection[Lesson]):
    """A page of lessons."""


@strawberry.type(description="A page of corrections.")
class CorrectionConnection(Connection[Correction]):
    """A page of corrections."""


@strawberry.type(description="A page of facts.")
class FactConnection(Connection[Fact]):
    """A page of facts."""


@strawberry.type(description="A page of topics.")
class TopicConnection(Connection[Topic]):
    """A page of topics."""
