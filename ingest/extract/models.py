"""Extraction DTOs: what extractors read (`SessionInput`) and propose (`ExtractionResult`).

Extractors are pure with respect to the graph: they turn one session's turns into candidate items
with provenance (turn ids). `ingest.extract.apply` decides what each candidate does to the graph
(AUDN for corrections, refinement for lessons, scoped invalidation for facts, topic matching).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.ids import normalize_key
from graph.models import CorrectionType, FactKind, LessonCategory, Role

__all__ = [
    "CorrectionCandidate",
    "EntityMentions",
    "ExtractionReport",
    "ExtractionResult",
    "FactCandidate",
    "LessonCandidate",
    "SessionEnrichment",
    "SessionInput",
    "TopicCandidate",
    "TurnInput",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class TurnInput(BaseModel):
    """One stored turn as extraction sees it."""

    model_config = _FROZEN

    id: str
    """Turn id in the graph (provenance target)."""
    ordinal: int
    """Position in the session."""
    role: Role
    """Who produced it."""
    text: str
    """Text."""
    timestamp: datetime
    """Event time (aware UTC)."""
    speaker: str = ""
    """Display name."""
    tool_name: str | None = None
    """Tool called or answered."""
    tool_ok: bool | None = None
    """Whether the tool call succeeded."""


class SessionInput(BaseModel):
    """One session's turns, in order."""

    model_config = _FROZEN

    id: str
    """Session id in the graph."""
    project: str
    """Project slug."""
    turns: tuple[TurnInput, ...]
    """Turns in ordinal order."""
    title: str = ""
    """Session title."""
    source: str = "generic"
    """Transcript format."""


class EntityMentions(BaseModel):
    """Named things found in text."""

    model_config = _FROZEN

    people: tuple[str, ...] = ()
    """People (speakers, capitalised names)."""
    projects: tuple[str, ...] = ()
    """Projects and products."""
    technologies: tuple[str, ...] = ()
    """Languages, libraries, tools."""


class TopicCandidate(BaseModel):
    """A subject the session discusses."""

    model_config = _FROZEN

    title: str
    """Short title (a keyphrase)."""
    keywords: tuple[str, ...] = ()
    """Related keywords."""
    turn_ids: tuple[str, ...] = ()
    """Turns that mention it."""
    score: float = 0.0
    """Salience within the session."""
    entities: EntityMentions = Field(default_factory=EntityMentions)
    """Entities co-mentioned."""
    tokens: int = 0
    """Approximate tokens of the mentioning turns (depth signal)."""
    first_seen: datetime | None = None
    """Earliest mentioning turn."""
    last_seen: datetime | None = None
    """Latest mentioning turn."""


class CorrectionCandidate(BaseModel):
    """A user correcting the agent (or stating a rule it must follow)."""

    model_config = _FROZEN

    type: CorrectionType = "preference"
    """What kind of correction."""
    original_behaviour: str = ""
    """What the agent did or proposed."""
    corrected_behaviour: str = ""
    """What the user wants instead."""
    rule_text: str
    """Normalised instruction an agent can obey."""
    confidence: float = Field(default=0.6, ge=0.0, le=1.0)
    """Extractor confidence."""
    explicit_rule: bool = False
    """The user stated it as a standing rule ("always", "never", "from now on")."""
    turn_ids: tuple[str, ...] = ()
    """Source turns."""
    seen_at: datetime
    """When it was said."""
    action: Literal["ADD", "UPDATE", "INVALIDATE", "NOOP"] | None = None
    """Decision proposed by an LLM extractor; None lets the offline rules decide."""
    negates: str | None = None
    """For an explicit reversal, the behaviour it contradicts (e.g. "use tabs")."""
    withdraws: bool = False
    """It only lifts an earlier instruction ("X is fine now", "forget what I said about X"):
    it acts when it reverses a stored correction and is dropped otherwise."""


class FactCandidate(BaseModel):
    """A subject–predicate–object statement (decision, preference, tech stack, todo...)."""

    model_config = _FROZEN

    subject: str
    """Subject (normalised)."""
    predicate: str
    """Predicate (normalised)."""
    object: str
    """Object."""
    kind: FactKind = "other"
    """Kind."""
    statement: str = ""
    """The fact as a sentence."""
    confidence: float = Field(default=0.6, ge=0.0, le=1.0)
    """Extractor confidence."""
    turn_ids: tuple[str, ...] = ()
    """Source turns."""
    valid_from: datetime
    """Event time."""
    ends: str = ""
    """A habit the subject gave up ("coffee"): their current statements of doing it end."""
    replaces: str = ""
    """What a decision says it replaces ("Redis"): the project's current decisions for it end."""
    parted: str = ""
    """What the subject says they no longer have ("Honda Civic", after "I sold my Honda Civic"):
    their current statements of having, driving or owning it end."""
    corrects: bool = False
    """Said as a correction of a mistake ("I misspoke: ..."): the current value of the same key
    was wrong, not ended, so it is retracted and this one holds from when that one did."""

    @model_validator(mode="before")
    @classmethod
    def _observations_accumulate(cls, data: Any) -> Any:
        """An observation gets a predicate of its own, whoever extracted it (rules or a model).

        Facts close current ones of the same subject and predicate, and one thing a person
        said never ends another.
        """
        if isinstance(data, dict) and data.get("kind") == "observation":
            data = {**data, "predicate": observation_predicate(data)}
        return data


def observation_predicate(data: dict[str, Any]) -> str:
    """`observed <the statement, normalised>` (80 characters at most)."""
    text = str(data.get("statement") or data.get("object") or "")
    return f"observed {normalize_key(text)[:80]}"


class LessonCandidate(BaseModel):
    """Something learned (problem → attempt → outcome, a gotcha, a best practice)."""

    model_config = _FROZEN

    category: LessonCategory = "problem-solution"
    """Kind of lesson."""
    title: str
    """Short title."""
    content: str
    """The lesson, with the fix and an example where available."""
    summary: str = ""
    """One line."""
    applicable_when: str = ""
    """When it applies."""
    keywords: tuple[str, ...] = ()
    """Keywords."""
    has_examples: bool = False
    """Carries a concrete example (error text, command)."""
    has_steps: bool = False
    """Carries steps."""
    turn_ids: tuple[str, ...] = ()
    """Source turns."""
    seen_at: datetime
    """When it was learned."""


class SessionEnrichment(BaseModel):
    """Session-level annotations (LLM pass 1 and 3; offline heuristics)."""

    model_config = _FROZEN

    summary: str | None = None
    """Short summary."""
    intent: str | None = None
    """What the user set out to do."""
    outcome: str | None = None
    """How it ended."""
    complexity: float | None = None
    """0–1."""
    quality: float | None = None
    """0–1."""
    frustration_signals: int = 0
    """Count of frustration cues."""
    tool_stats: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Per tool: calls and failures."""
    meta: dict[str, str] = Field(default_factory=dict)
    """Further annotations kept on the session's `meta` (e.g. the LLM's quality sub-scores,
    rationale, frustration quotes and repeated instructions)."""


class ExtractionResult(BaseModel):
    """Everything one extractor proposes for one session."""

    model_config = _FROZEN

    session_id: str
    """The session."""
    project: str
    """Its project."""
    topics: tuple[TopicCandidate, ...] = ()
    """Topic candidates."""
    corrections: tuple[CorrectionCandidate, ...] = ()
    """Correction candidates."""
    facts: tuple[FactCandidate, ...] = ()
    """Fact candidates."""
    lessons: tuple[LessonCandidate, ...] = ()
    """Lesson candidates."""
    entities: EntityMentions = Field(default_factory=EntityMentions)
    """Entities in the whole session."""
    enrichment: SessionEnrichment = Field(default_factory=SessionEnrichment)
    """Session annotations."""
    extractor: str = "offline"
    """Which extractor produced it."""
    llm_usage: dict[str, Any] = Field(default_factory=dict)
    """LLM ledger (LLM extractor only)."""
    issues: tuple[str, ...] = ()
    """What the extractor left out or repaired, one line each naming the pass, the record and
    the field (LLM extractor only: records that did not validate, ordinals not in the session)."""


class ExtractionReport(BaseModel):
    """What applying one or more extraction results did to the graph."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    sessions: int = 0
    """Sessions processed."""
    turns: int = 0
    """Turns read."""
    topics_created: int = 0
    """New topics."""
    topics_updated: int = 0
    """Existing topics that absorbed new material."""
    mentions: int = 0
    """MENTIONS edges written."""
    corrections_added: int = 0
    """AUDN ADD."""
    corrections_reinforced: int = 0
    """AUDN UPDATE."""
    corrections_invalidated: int = 0
    """AUDN INVALIDATE (old corrections closed)."""
    corrections_noop: int = 0
    """AUDN NOOP."""
    lessons_created: int = 0
    """New lessons."""
    lessons_refined: int = 0
    """Lessons refined (a version snapshot written first)."""
    facts_added: int = 0
    """New facts."""
    facts_reinforced: int = 0
    """Facts restated (provenance added)."""
    facts_invalidated: int = 0
    """Old facts closed by newer ones."""
    snapshots: int = 0
    """Project snapshots written."""
    failures: list[str] = Field(default_factory=list)
    """One line per session that could not be processed."""
    fallbacks: list[str] = Field(default_factory=list)
    """One line per session the LLM could not extract, extracted by the offline rules instead."""
    issues: list[str] = Field(default_factory=list)
    """One line per record the extractor left out or repaired, prefixed `project/session:`."""
    extractor: str = ""
    """The extractor of the run (`offline` or `llm`)."""
    seconds: float = 0.0
    """Wall time."""
    llm_usage: dict[str, Any] = Field(default_factory=dict)
    """LLM ledger of the run."""

    def summary(self) -> dict[str, Any]:
        """What a command's summary shows of extraction: extractor, ledger, fallbacks, issues."""
        return {
            "extractor": self.extractor,
            "sessions": self.sessions,
            "llm_usage": self.llm_usage,
            "fallbacks": list(self.fallbacks),
            "issues": list(self.issues),
        }

    def merge(self, other: ExtractionReport) -> None:
        """Add another report's counters into this one."""
        for name in type(self).model_fields:
            a, b = getattr(self, name), getattr(other, name)
            if isinstance(a, bool):
                continue
            if isinstance(a, int | float) and isinstance(b, int | float):
                setattr(self, name, a + b)
            elif isinstance(a, list):
                a.extend(b)
            elif isinstance(a, dict) and b:
                setattr(self, name, b)
