"""Domain models: frozen pydantic classes, pure data, no database code.

Every node carries two time axes (see `Temporal`): event time (`valid_from`/`valid_to`, when it was
true in the world) and record time (`recorded_at`/`expired_at`, when this graph learned it and when
that record was superseded). Datetimes are timezone-aware UTC truncated to the millisecond, the
precision the engines store (epoch ms), so a model survives a round trip through the graph
unchanged. Storage shapes (property names, epoch ms, JSON strings) live in `graph/records.py` only.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from core import timeutil

__all__ = [
    "CANDIDATE",
    "SOURCE_PATTERN",
    "ApiKey",
    "Community",
    "CommunityRun",
    "Correction",
    "CorrectionStatus",
    "CorrectionType",
    "Edge",
    "Embedding",
    "Entities",
    "Fact",
    "FactKind",
    "Finding",
    "FindingAction",
    "FindingStatus",
    "JobRun",
    "JobStatus",
    "Lesson",
    "LessonCategory",
    "LessonVersion",
    "Primer",
    "PrimerPeriod",
    "Project",
    "ProjectSnapshot",
    "ReferenceLayer",
    "RemState",
    "Role",
    "Session",
    "Temporal",
    "ToolStat",
    "Topic",
    "TopicBrief",
    "TopicPhase",
    "Turn",
    "UtcDatetime",
    "utc_now",
]


def _utc_ms(dt: datetime) -> datetime:
    """Refuse naive datetimes; convert to UTC and truncate to the millisecond."""
    if dt.tzinfo is None or dt.utcoffset() is None:
        raise ValueError("datetime must be timezone-aware (UTC)")
    dt = dt.astimezone(UTC)
    return dt.replace(microsecond=dt.microsecond - dt.microsecond % 1000)


UtcDatetime = Annotated[datetime, AfterValidator(_utc_ms)]
"""An aware datetime, normalised to UTC with millisecond precision."""

Embedding = tuple[float, ...]
"""A dense vector (384-d for all-MiniLM-L6-v2)."""

Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
"""A float in [0, 1] (quality, confidence)."""


def utc_now() -> datetime:
    """Current time as an aware UTC datetime with millisecond precision.

    It is `core.timeutil`'s clock, so `frozen_clock` applies to every default timestamp too.
    """
    return timeutil.utc_now()


_CONFIG = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

Role = Literal["user", "assistant", "system", "tool"]
SOURCE_PATTERN = r"^[a-z][a-z0-9_\-]{0,63}$"
"""What a session's `source` looks like: a format name (`claude-code`, `locomo`, `api`, ...).

Which names exist is ingest's business (its parser registry); storage only checks the shape."""
TopicPhase = Literal["active", "dormant", "completed"]
LessonCategory = Literal["pattern", "gotcha", "best-practice", "failure", "problem-solution"]
CorrectionType = Literal["preference", "factual", "style", "process", "tool_usage"]
CorrectionStatus = Literal["candidate", "correction", "pattern", "preference", "rule"]
CANDIDATE: CorrectionStatus = "candidate"
"""A correction stored but not served: said once without saying it holds. It graduates to
`pattern` when said again in another session (or a person confirms it)."""
FactKind = Literal[
    "decision", "preference", "tech_stack", "project", "todo", "event", "observation", "other"
]
PrimerPeriod = Literal["daily", "weekly", "monthly"]
JobStatus = Literal["running", "succeeded", "failed"]
FindingAction = Literal["merge", "link", "archive", "create_lesson", "keep"]
FindingStatus = Literal["open", "approved", "rejected", "skipped", "applied"]


class Temporal(BaseModel):
    """Bi-temporal bookkeeping shared by every node and relationship."""

    model_config = _CONFIG

    valid_from: UtcDatetime = Field(default_factory=utc_now)
    """Event time: when this became true in the world."""
    valid_to: UtcDatetime | None = None
    """Event time: when it stopped being true; None while it still holds."""
    recorded_at: UtcDatetime = Field(default_factory=utc_now)
    """Record time: when this graph learned it."""
    expired_at: UtcDatetime | None = None
    """Record time: when this record was superseded or closed; None while current."""

    @property
    def is_open(self) -> bool:
        """True while the node is both valid and the current record."""
        return self.valid_to is None and self.expired_at is None


class Edge(Temporal):
    """A relationship between two nodes, with its own bi-temporal interval."""

    type: str
    """Relationship type, e.g. `HAS_TURN`, `SUPERSEDES`, `RELATED_TO`."""
    source_id: str
    """Id of the start node."""
    target_id: str
    """Id of the end node."""
    weight: float | None = None
    """Optional strength (RELATED_TO, IN_COMMUNITY)."""


# --- conversation -------------------------------------------------------------------------------


class Project(Temporal):
    """A body of work whose sessions share memory; its id is a slug such as `remgraph`."""

    id: str
    """The project slug."""
    name: str = ""
    """Human-readable name."""
    description: str = ""
    """What the project is about."""


class ToolStat(BaseModel):
    """Per-tool counters for one session."""

    model_config = _CONFIG

    calls: int = 0
    """How often the tool was called."""
    failures: int = 0
    """How many of those calls failed."""


class Session(Temporal):
    """One agent conversation (a transcript file, a ChatGPT conversation, a LoCoMo session)."""

    id: str
    """Deterministic id (`make_id("session", source, source_key)`)."""
    project: str
    """Owning project slug."""
    source: str = Field(default="generic", pattern=SOURCE_PATTERN)
    """Which transcript format it came from (a parser name, or `api`)."""
    source_file: str = ""
    """Path of the transcript it was read from."""
    source_key: str = ""
    """The source's native session id."""
    title: str = ""
    """Title (from the source, or derived from the first user message)."""
    started_at: UtcDatetime | None = None
    """Timestamp of the first turn."""
    ended_at: UtcDatetime | None = None
    """Timestamp of the last turn."""
    duration_s: float = 0.0
    """`ended_at - started_at` in seconds."""
    user_messages: int = 0
    """Number of user turns."""
    assistant_messages: int = 0
    """Number of assistant turns."""
    tool_messages: int = 0
    """Number of tool-result turns."""
    system_messages: int = 0
    """Number of system turns."""
    tool_calls: int = 0
    """Number of tool calls the assistant made."""
    tool_failures: int = 0
    """Number of tool calls that failed."""
    tool_stats: dict[str, ToolStat] = Field(default_factory=dict)
    """Per-tool call and failure counts."""
    input_tokens: int = 0
    """Input tokens reported by the source (0 when unknown)."""
    output_tokens: int = 0
    """Output tokens reported by the source (0 when unknown)."""
    compactions: int = 0
    """How often the context was compacted."""
    models: tuple[str, ...] = ()
    """Model names seen in the session."""
    turn_count: int = 0
    """Number of turns stored."""
    content_hash: str = ""
    """Hash of the source content, to skip unchanged re-ingests."""
    summary: str | None = None
    """Short summary (extraction)."""
    intent: str | None = None
    """What the user set out to do (extraction)."""
    outcome: str | None = None
    """How it ended (extraction)."""
    quality: Fraction | None = None
    """Session quality score in [0, 1]."""
    complexity: Fraction | None = None
    """How much the session involved, in [0, 1] (extraction: its length and tool calls offline,
    the model's judgement with an LLM)."""
    meta: dict[str, str] = Field(default_factory=dict)
    """Free-form source metadata (cwd, git branch, version...)."""


class Turn(Temporal):
    """One message in a session; `valid_from` is its timestamp."""

    id: str
    """Deterministic id (`make_id("turn", session_id, ordinal)` or from the source key)."""
    project: str
    """Owning project slug."""
    session_id: str
    """Id of the session it belongs to."""
    ordinal: int
    """0-based position in the session."""
    role: Role
    """Who produced it."""
    speaker: str = ""
    """Display name of the speaker (LoCoMo names, model name...)."""
    text: str = ""
    """The (possibly truncated) text."""
    token_estimate: int = 0
    """Approximate token count of `text`."""
    content_hash: str = ""
    """Hash of the full, untruncated text."""
    full_size: int = 0
    """Characters before truncation."""
    truncated: bool = False
    """True when `text` was cut to the size limit."""
    tool_name: str | None = None
    """Tool called (assistant tool-use) or answered (tool result)."""
    tool_ok: bool | None = None
    """Whether the tool call succeeded; None when not a tool turn or unknown."""
    source_file: str = ""
    """Path of the transcript."""
    source_line: int | None = None
    """1-based line in the transcript."""
    source_key: str = ""
    """Native id: message uuid, LoCoMo `dia_id`..."""
    parent_key: str | None = None
    """Native id of the parent message, when the source has a tree."""
    is_sidechain: bool = False
    """True for sub-agent (sidechain) messages."""
    embedding: Embedding | None = Field(default=None, repr=False)
    """Text embedding; stored separately from the main properties."""

    @property
    def timestamp(self) -> datetime:
        """When the message was sent (the same as `valid_from`)."""
        return self.valid_from


# --- knowledge ----------------------------------------------------------------------------------


class Entities(BaseModel):
    """Named things a topic mentions."""

    model_config = _CONFIG

    people: tuple[str, ...] = ()
    """People."""
    projects: tuple[str, ...] = ()
    """Projects and products."""
    technologies: tuple[str, ...] = ()
    """Languages, libraries, tools."""


class Topic(Temporal):
    """A subject discussed across the sessions of one project.

    Owned by one project like every derived item: its keywords, counts, mentions and weight come
    from that project's turns only (the same subject in two projects is two topics).
    """

    id: str
    """Deterministic id from the project and the normalised title."""
    project: str = ""
    """Owning project slug (empty only on legacy global topics, which no read serves)."""
    projects: tuple[str, ...] = ()
    """`(project,)`: kept for the GraphQL field and older readers."""
    sessions: tuple[str, ...] = ()
    """Session ids in which it was discussed."""
    title: str
    """Short title."""
    keywords: tuple[str, ...] = ()
    """Keywords."""
    entities: Entities = Field(default_factory=Entities)
    """People, projects and technologies mentioned."""
    message_ids: tuple[str, ...] = ()
    """Turn ids that mention it."""
    first_seen: UtcDatetime | None = None
    """First mention."""
    last_seen: UtcDatetime | None = None
    """Latest mention."""
    message_count: int = 0
    """Number of mentioning turns."""
    weight: float = 0.0
    """Salience used for ranking."""
    phase: TopicPhase = "active"
    """Lifecycle phase."""
    embedding: Embedding | None = Field(default=None, repr=False)
    """Title/keyword embedding."""

    @model_validator(mode="after")
    def _one_owner(self) -> Topic:
        """`project` and `projects` name the same single owner (either may be given)."""
        if not self.project and len(self.projects) == 1:
            object.__setattr__(self, "project", self.projects[0])
        elif self.project and not self.projects:
            object.__setattr__(self, "projects", (self.project,))
        return self


class Lesson(Temporal):
    """Something learned that should change future behaviour."""

    id: str
    """Deterministic id."""
    project: str
    """Owning project slug."""
    category: LessonCategory = "pattern"
    """Kind of lesson."""
    title: str = ""
    """Short title."""
    content: str = ""
    """The lesson itself."""
    summary: str = ""
    """One-line summary."""
    applicable_when: str = ""
    """When it applies."""
    keywords: tuple[str, ...] = ()
    """Keywords."""
    weight: float = 1.0
    """Salience used for ranking."""
    quality: Fraction = 0.5
    """Quality score in [0, 1]."""
    usage_count: int = 0
    """How often it was served."""
    helpful_count: int = 0
    """How often it was reported helpful."""
    harmful_count: int = 0
    """How often it was reported harmful."""
    effectiveness: float = 0.0
    """Derived effectiveness score."""
    version: int = 1
    """Current version number (see `LessonVersion`)."""
    source_turn_ids: tuple[str, ...] = ()
    """Turns it was derived from."""
    embedding: Embedding | None = Field(default=None, repr=False)
    """Content embedding."""


class LessonVersion(Temporal):
    """An immutable snapshot of a lesson's text at one version."""

    id: str
    """Deterministic id (`make_id("lesson_version", lesson_id, version)`)."""
    project: str
    """Owning project slug."""
    lesson_id: str
    """The lesson."""
    version: int
    """Version number, from 1."""
    title: str = ""
    """Title at this version."""
    content: str = ""
    """Content at this version."""
    summary: str = ""
    """Summary at this version."""
    reason: str = ""
    """Why it changed."""
    session_id: str | None = None
    """Session that caused the change."""
    created_at: UtcDatetime = Field(default_factory=utc_now)
    """When the version was written."""


class Correction(Temporal):
    """A user correcting the agent; reinforced corrections graduate to rules."""

    id: str
    """Deterministic id."""
    project: str
    """Owning project slug."""
    type: CorrectionType = "preference"
    """What was corrected."""
    original_behaviour: str = ""
    """What the agent did."""
    corrected_behaviour: str = ""
    """What the user wanted instead."""
    rule_text: str = ""
    """The rule as an instruction."""
    confidence: Fraction = 0.5
    """Confidence in [0, 1]."""
    reinforcement: float = 1.0
    """Reinforcement strength (decays with `half_life_days`)."""
    half_life_days: float = 30.0
    """Decay half-life of `reinforcement`."""
    first_seen: UtcDatetime | None = None
    """First occurrence."""
    last_seen: UtcDatetime | None = None
    """Latest occurrence."""
    status: CorrectionStatus = "correction"
    """Graduation stage."""
    sessions: tuple[str, ...] = ()
    """Sessions in which it occurred."""
    confirmed: bool = False
    """Confirmed by a human."""
    source_turn_ids: tuple[str, ...] = ()
    """Turns it was derived from."""
    embedding: Embedding | None = Field(default=None, repr=False)
    """Rule embedding."""
    usage_count: int = 0
    """How often it was served."""
    helpful_count: int = 0
    """How often it was reported helpful."""
    harmful_count: int = 0
    """How often it was reported harmful."""


class Fact(Temporal):
    """A subject–predicate–object statement: a decision, preference, tech-stack fact, todo..."""

    id: str
    """Deterministic id."""
    project: str
    """Owning project slug."""
    subject: str = ""
    """Subject."""
    predicate: str = ""
    """Predicate."""
    object: str = ""
    """Object."""
    kind: FactKind = "other"
    """Kind of fact."""
    statement: str = ""
    """The fact as a sentence."""
    confidence: Fraction = 0.5
    """Confidence in [0, 1]."""
    source_turn_ids: tuple[str, ...] = ()
    """Turns it was derived from."""
    embedding: Embedding | None = Field(default=None, repr=False)
    """Statement embedding."""


# --- consolidation ------------------------------------------------------------------------------


class CommunityRun(Temporal):
    """One Leiden run; exactly one run per project is `current`."""

    id: str
    """Run id."""
    project: str
    """Project slug."""
    started_at: UtcDatetime = Field(default_factory=utc_now)
    """Start time."""
    finished_at: UtcDatetime | None = None
    """End time; None while running."""
    status: JobStatus = "running"
    """Run status."""
    current: bool = False
    """True for the run readers should use."""
    resolution: float = 1.0
    """Leiden resolution parameter."""
    seed: int = 0
    """Random seed."""
    quality: float | None = None
    """Partition quality (modularity / CPM)."""
    community_count: int = 0
    """Number of communities found."""


class Community(Temporal):
    """A cluster of related nodes found by one community run."""

    id: str
    """Deterministic id (run id + index)."""
    project: str
    """Project slug."""
    run_id: str
    """The community run."""
    title: str = ""
    """Short title."""
    keywords: tuple[str, ...] = ()
    """Keywords."""
    size: int = 0
    """Number of members."""
    member_ids: tuple[str, ...] = ()
    """Member node ids."""
    summary: str = ""
    """Summary of the members."""
    level: int = 0
    """Hierarchy level (0 = finest)."""


class Primer(Temporal):
    """A rolled-up briefing for one period (day, ISO week, month)."""

    id: str
    """Deterministic id (project + period + key)."""
    project: str
    """Project slug."""
    period: PrimerPeriod
    """Period length."""
    period_key: str
    """`2026-11-22`, `2026-W47` or `2026-11`."""
    text: str = ""
    """The primer text."""
    size_bytes: int = 0
    """UTF-8 size of `text`."""
    source_ids: tuple[str, ...] = ()
    """Nodes it was built from."""
    turn_ids: tuple[str, ...] = ()
    """Turns it quotes (a daily primer's narrative; provenance)."""
    flagged: bool = False
    """Flagged for review (too large, contradictory...)."""


class ReferenceLayer(Temporal):
    """A compact reference document about one topic."""

    id: str
    """Deterministic id."""
    project: str
    """Project slug."""
    topic_id: str
    """The topic described."""
    title: str = ""
    """Title."""
    text: str = ""
    """The reference text."""
    token_count: int = 0
    """Approximate tokens in `text`."""
    source_ids: tuple[str, ...] = ()
    """Nodes it was built from."""
    gaps: tuple[str, ...] = ()
    """Open questions the sources do not answer."""
    turns_at_build: int = 0
    """Topic message count when built (to detect staleness)."""


class TopicBrief(Temporal):
    """One version of a topic's summary with its key takeaways (extractive, from the REM cycle).

    A topic has at most one open brief; a new version ends the previous one in valid time
    (`valid_to` = its `valid_from`, `SUPERSEDES`), so reads as of a time see the brief then.
    """

    id: str
    """Deterministic id (`make_id("topic_brief", project, topic_id, version)`)."""
    project: str
    """Owning project slug (the topic's)."""
    topic_id: str
    """The topic summarised (`SUMMARISES`)."""
    version: int = 1
    """Version number, from 1."""
    title: str = ""
    """The topic's title when written."""
    summary: str = ""
    """The summary's prose: its lead and salient sentences, in the third person."""
    takeaways: tuple[str, ...] = ()
    """Key takeaways, most important first."""
    takeaway_sources: tuple[str, ...] = ()
    """Per takeaway, the id of the knowledge item (or turn) it states."""
    text: str = ""
    """The whole brief as Markdown: the summary, then "Key takeaways" as a list."""
    word_count: int = 0
    """Words in `text`."""
    source_turn_ids: tuple[str, ...] = ()
    """Turns its sentences come from."""
    source_item_ids: tuple[str, ...] = ()
    """Knowledge items (facts, decisions, corrections, lessons) it states."""
    material_hash: str = ""
    """Fingerprint of the material it was built from; the job rebuilds it when this changes."""


class JobRun(Temporal):
    """One execution of a consolidation job."""

    id: str
    """Node id."""
    project: str
    """Project slug."""
    job: str
    """Job name."""
    run_id: str
    """Run id (shared with what the run wrote)."""
    started_at: UtcDatetime = Field(default_factory=utc_now)
    """Start time."""
    finished_at: UtcDatetime | None = None
    """End time; None while running."""
    status: JobStatus = "running"
    """Run status."""
    attempt: int = 1
    """Attempt number, from 1."""
    summary: dict[str, Any] = Field(default_factory=dict)
    """JSON-able result counters."""
    error: str | None = None
    """Error message when failed."""


class Finding(Temporal):
    """Something a job noticed and proposes to act on (dedupe, staleness...)."""

    id: str
    """Deterministic id."""
    project: str
    """Project slug."""
    job: str
    """Job that produced it."""
    run_id: str
    """Run that produced it."""
    kind: str
    """Kind of finding, e.g. `duplicate`, `stale`."""
    title: str = ""
    """Short title."""
    detail: str = ""
    """Explanation."""
    target_ids: tuple[str, ...] = ()
    """Nodes concerned."""
    proposed_action: FindingAction = "keep"
    """What the job proposes."""
    evidence: str = ""
    """What the finding rests on (texts, counts); a skipped finding reopens when it changes."""
    status: FindingStatus = "open"
    """Review status."""
    created_at: UtcDatetime = Field(default_factory=utc_now)
    """When it was found."""


class RemState(Temporal):
    """Scheduler state of one job for one project."""

    id: str
    """Deterministic id (project + job)."""
    project: str
    """Project slug."""
    job: str
    """Job name."""
    last_run_at: UtcDatetime | None = None
    """When it last ran."""
    last_status: JobStatus | None = None
    """How it last ended."""
    last_summary: dict[str, Any] = Field(default_factory=dict)
    """JSON-able counters of the last run."""
    last_duration_ms: float = 0.0
    """Wall time of the last run."""
    last_report: dict[str, Any] = Field(default_factory=dict)
    """The last run's report sections (gaps, weight changes, deltas), for `rem report`."""
    next_due_at: UtcDatetime | None = None
    """When it should run next."""
    sessions_at_last_run: int = 0
    """Session count when it last ran (to trigger on new data)."""
    attempts: int = 0
    """Consecutive attempts (for backoff)."""


class ProjectSnapshot(Temporal):
    """The active facts, todos and decisions of a project at one moment, plus the delta."""

    id: str
    """Deterministic id (project + taken_at)."""
    project: str
    """Project slug."""
    taken_at: UtcDatetime = Field(default_factory=utc_now)
    """When it was taken."""
    hash: str = ""
    """Hash of the sorted active ids (to skip unchanged snapshots)."""
    active_fact_ids: tuple[str, ...] = ()
    """Active fact ids."""
    todo_ids: tuple[str, ...] = ()
    """Open todo fact ids."""
    decision_ids: tuple[str, ...] = ()
    """Decision fact ids."""
    delta_added: tuple[str, ...] = ()
    """Ids added since the previous snapshot."""
    delta_removed: tuple[str, ...] = ()
    """Ids removed since the previous snapshot."""


# --- access -------------------------------------------------------------------------------------


class ApiKey(Temporal):
    """An API key (only its hash is stored) and the projects it may read and write."""

    id: str
    """Key id (public part)."""
    name: str = ""
    """Human-readable label."""
    projects: tuple[str, ...] = ()
    """Projects it grants access to; `*` means all."""
    key_hash: str
    """Hash of the secret."""
    created_at: UtcDatetime = Field(default_factory=utc_now)
    """Creation time."""
    revoked_at: UtcDatetime | None = None
    """Revocation time; None while valid."""
    expires_at: UtcDatetime | None = None
    """When the key stops working by itself; None: it does not expire."""

    def live(self, at: datetime) -> bool:
        """Whether the key works at `at`: not revoked and not expired."""
        return self.revoked_at is None and (self.expires_at is None or at < self.expires_at)
