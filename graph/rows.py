"""Typed read rows and computed updates of the REM cycle's queries: frozen, slotted, null-free.

Repositories return these (and the domain models) instead of raw records, so no job reads a
property name or handles a null: `graph/records.py` maps each query's columns to one of these
classes (missing lists become empty tuples, missing counts 0, missing times None). Times are
epoch milliseconds (`*_ms`), as the engines store them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from graph.models import (
    Community,
    Correction,
    CorrectionStatus,
    Fact,
    Lesson,
    Session,
    Topic,
)

__all__ = [
    "CorrectionDecay",
    "CorrectionRecord",
    "CorrectionStatusChange",
    "ExampleTurn",
    "ExportEdge",
    "ExportNode",
    "ItemEmbedding",
    "KnowledgeLink",
    "KnowledgeNode",
    "LessonRecord",
    "OpenFact",
    "Provenance",
    "RollupSource",
    "SessionTurn",
    "TopicLink",
    "TopicSummary",
]


@dataclass(frozen=True, slots=True)
class LessonRecord:
    """A live lesson and when it was last refined (epoch ms, None if never)."""

    lesson: Lesson
    last_refined_at: int | None = None


@dataclass(frozen=True, slots=True)
class CorrectionRecord:
    """A live correction and the live corrections it contradicts (id, last_seen epoch ms)."""

    correction: Correction
    contradictions: tuple[tuple[str, int | None], ...] = ()
    demoted_for: tuple[str, ...] = ()
    """Contradicting correction ids that already caused a demotion (not a model field)."""


@dataclass(frozen=True, slots=True)
class TopicSummary:
    """A live topic without its embedding (`rem.topics_for_weights`)."""

    id: str
    title: str = ""
    keywords: tuple[str, ...] = ()
    message_count: int = 0
    message_ids: tuple[str, ...] = ()
    """The turn ids kept on the node (capped; `MENTIONS` edges keep them all)."""
    sessions: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    last_seen_ms: int | None = None
    weight: float = 0.0
    phase: str = "active"


@dataclass(frozen=True, slots=True)
class TopicLink:
    """A stored `RELATED_TO` edge between two live topics (`rem.topic_links`)."""

    source_id: str
    target_id: str
    weight: float = 0.0


@dataclass(frozen=True, slots=True)
class OpenFact:
    """A live fact (`rem.open_facts`)."""

    id: str
    kind: str
    statement: str = ""
    subject: str = ""
    object: str = ""
    """A todo's status for agent todo lists (`pending`, `in_progress`, `completed`)."""
    valid_from_ms: int = 0
    turn_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class KnowledgeNode:
    """One live topic, lesson, correction or fact as the communities projection sees it."""

    id: str
    kind: str
    title: str = ""
    text: str = ""
    keywords: tuple[str, ...] = ()
    weight: float = 0.0
    turn_ids: tuple[str, ...] = ()
    session_ids: tuple[str, ...] = ()
    subkind: str = ""
    """A fact's kind (`decision`, `todo`...), a correction's status, a lesson's category."""


@dataclass(frozen=True, slots=True)
class Provenance:
    """An item derived from (or a topic mentioned in) a turn of a session."""

    item_id: str
    turn_id: str | None = None
    session_id: str | None = None


@dataclass(frozen=True, slots=True)
class KnowledgeLink:
    """An explicit link between two live knowledge items (`RELATED_TO`, `DUPLICATE_OF`, ...)."""

    source_id: str
    target_id: str
    type: str = "RELATED_TO"
    weight: float | None = None
    """The stored weight, if the edge has one."""


@dataclass(frozen=True, slots=True)
class ItemEmbedding:
    """A knowledge item's embedding, as the engine returned it (not copied: thousands per run)."""

    id: str
    embedding: Sequence[float]


@dataclass(frozen=True, slots=True)
class ExampleTurn:
    """A turn quoted in a reference layer (`reference_layer.turns`)."""

    id: str
    text: str = ""
    role: str = ""
    session_id: str = ""
    at_ms: int = 0
    speaker: str = ""
    topic_id: str = ""
    """The topic it was read for (`reference_layer.topic_turns`)."""


@dataclass(frozen=True, slots=True)
class RollupSource:
    """A session, lesson, correction or fact of a rollup window (`primer.sources`)."""

    kind: str
    id: str
    title: str = ""
    text: str = ""
    at: int = 0
    """Event time, epoch ms."""
    sub: str = ""
    """Sub-kind: a fact's kind (`decision`, `todo`, ...) or a correction's status."""

    @property
    def day(self) -> date:
        """The UTC calendar day of `at`."""
        return datetime.fromtimestamp(self.at / 1000, tz=UTC).date()


@dataclass(frozen=True, slots=True)
class SessionTurn:
    """A user or assistant turn of a session a primer narrates (`primer.turns`)."""

    session_id: str
    id: str = ""
    ordinal: int = 0
    role: str = ""
    speaker: str = ""
    text: str = ""
    at: int = 0
    """Event time, epoch ms."""


@dataclass(frozen=True, slots=True)
class CorrectionDecay:
    """What the `staleness` job computes for one correction."""

    id: str
    effective_weight: float
    decayed_confidence: float
    decayed_at_ms: int


@dataclass(frozen=True, slots=True)
class CorrectionStatusChange:
    """A graduation or demotion of one correction."""

    id: str
    status: CorrectionStatus
    changed_at_ms: int
    demoted_for: tuple[str, ...] | None = None
    """On a demotion: every contradicting correction that has caused one so far."""


@dataclass(frozen=True, slots=True)
class RemActionRecord:
    """One applied REM action and what undoing it needs (`rem_action.*`)."""

    id: str
    run_id: str
    project: str
    finding_id: str
    action: str
    note: str
    before: dict[str, dict[str, Any]]
    """Before-image: id → stored properties (no embedding) of every item the action changed."""
    edges: tuple[tuple[str, str, str], ...]
    """`(type, source_id, target_id)` of the edges the action created."""
    applied_at: int
    seq: int = 0
    """Order within the run."""
    undone_at: int | None = None


ExportNode = Topic | Lesson | Correction | Fact | Community | Session
"""A node `remgraph export` writes (`export.nodes`): knowledge, communities, sessions."""


@dataclass(frozen=True, slots=True)
class ExportEdge:
    """A relationship `remgraph export` writes (`export.links`, `export.session_links`)."""

    source_id: str
    type: str
    target_id: str
    weight: float | None = None
    """`RELATED_TO`'s co-occurrence strength; None on the types without one."""
    turns: int | None = None
    """On the edges folded onto sessions: how many turns are behind it."""
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    recorded_at: datetime | None = None
    expired_at: datetime | None = None
    """The relationship's own times, where it stores them (None: absent, or an open end)."""
