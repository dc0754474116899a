"""Topics, lessons (with version history), corrections and facts."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import strawberry

from api.types.pagination import Connection
from core.timeutil import parse_ms
from graph import models

if TYPE_CHECKING:
    from api.context import Context


@strawberry.type
class LessonVersion:
    """A lesson's text at one version."""

    version: int
    title: str
    content: str
    summary: str
    reason: str
    session_id: str | None
    created_at: datetime

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


@strawberry.type
class Lesson:
    """Something learned that should change future behaviour."""

    id: strawberry.ID
    project: str
    category: str
    title: str
    content: str
    summary: str
    applicable_when: str
    keywords: list[str]
    weight: float
    quality: float
    usage_count: int
    helpful_count: int
    harmful_count: int
    effectiveness: float
    version: int
    source_turn_ids: list[str]
    valid_from: datetime
    valid_to: datetime | None

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

    @strawberry.field
    async def versions(self, info: strawberry.Info[Context, None]) -> list[LessonVersion]:
        """Every version, oldest first."""
        vs = await info.context.loaders.lesson_versions.load(str(self.id))
        return [LessonVersion.from_domain(v) for v in vs]


@strawberry.type
class Correction:
    """A user correcting the agent; confirmed or reinforced corrections are rules."""

    id: strawberry.ID
    project: str
    type: str
    original_behaviour: str
    corrected_behaviour: str
    rule_text: str
    confidence: float
    reinforcement: float
    status: str
    confirmed: bool
    usage_count: int
    helpful_count: int
    harmful_count: int
    first_seen: datetime | None
    last_seen: datetime | None
    source_turn_ids: list[str]
    valid_from: datetime
    valid_to: datetime | None

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


@strawberry.type
class Fact:
    """A subject–predicate–object statement, valid over an interval."""

    id: strawberry.ID
    project: str
    subject: str
    predicate: str
    object: str
    kind: str
    statement: str
    confidence: float
    source_turn_ids: list[str]
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    expired_at: datetime | None

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


@strawberry.type
class TopicBrief:
    """One version of a topic's summary with its key takeaways (built by the REM cycle)."""

    version: int
    title: str
    summary: str
    takeaways: list[str]
    takeaway_sources: list[str]
    text: str
    word_count: int
    source_turn_ids: list[str]
    source_item_ids: list[str]
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime

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


@strawberry.type
class Topic:
    """A subject discussed across sessions."""

    id: strawberry.ID
    title: str
    projects: list[str]
    keywords: list[str]
    message_count: int
    weight: float
    phase: str
    first_seen: datetime | None
    last_seen: datetime | None

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

    @strawberry.field
    async def summary(
        self,
        info: strawberry.Info[Context, None],
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> TopicBrief | None:
        """Its summary with key takeaways as it held at `asOf` (default now), known at `knownAt`.

        Null until the `topic_summaries` REM job has summarised the topic.
        """
        now = info.context.now_ms
        key = (str(self.id), parse_ms(as_of) or now, parse_ms(known_at) or now)
        brief = await info.context.loaders.topic_brief.load(key)
        return TopicBrief.from_domain(brief) if brief is not None else None


@strawberry.type
class LessonConnection(Connection[Lesson]):
    """A page of lessons."""


@strawberry.type
class CorrectionConnection(Connection[Correction]):
    """A page of corrections."""


@strawberry.type
class FactConnection(Connection[Fact]):
    """A page of facts."""


@strawberry.type
class TopicConnection(Connection[Topic]):
    """A page of topics."""
