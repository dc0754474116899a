"""Settings of the REM cycle: Leiden parameters, thresholds, budgets and per-job schedules.

Nested into `ConsolidateSettings`, so the environment reads
`REMGRAPH_CONSOLIDATE__SEED`, `REMGRAPH_CONSOLIDATE__SCHEDULES__DUPLICATES__EVERY`, and so on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_settings import SettingsConfigDict

from ai.config import AISettings
from knowledge.config import KnowledgeSettings

ScheduleKind = Literal["cron", "linear", "fibonacci", "logarithmic"]

_CONFIG = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class Schedule(BaseModel):
    """When one job is due: a wall-clock cron expression or a session-count trigger."""

    model_config = _CONFIG

    kind: ScheduleKind = "cron"
    """`cron` (wall clock), `linear` (every N sessions), `fibonacci` (at 5, 8, 13, 21… sessions)
    or `logarithmic` (the gap grows with the log of the session count)."""
    cron: str = "0 3,15 * * *"
    """Cron expression (UTC) for `kind=cron`; the default runs twice a day."""
    every: int = Field(default=10, ge=1)
    """Sessions between runs for `kind=linear`."""
    start: int = Field(default=5, ge=1)
    """First session count that triggers `fibonacci` and `logarithmic` schedules."""
    scale: float = Field(default=4.0, gt=0)
    """`logarithmic`: a run after n sessions waits ceil(scale × ln n) more sessions."""


def _default_schedules() -> dict[str, Schedule]:
    return {
        "communities": Schedule(kind="fibonacci"),
        "duplicates": Schedule(kind="linear", every=10),
        "staleness": Schedule(kind="linear", every=5),
        "graduation": Schedule(kind="linear", every=5),
        "extraction": Schedule(kind="logarithmic"),
        "topic_weights": Schedule(kind="cron"),
        "rollups": Schedule(kind="linear", every=20),
        "reference_layers": Schedule(kind="cron"),
    }


class ConsolidateSection(BaseModel):
    """Parameters of the REM cycle's jobs."""

    model_config = _CONFIG

    # communities
    seed: int = 42
    """Leiden random seed (same seed + same graph = same partition)."""
    resolution: float = Field(default=1.0, gt=0)
    """Leiden modularity resolution; higher gives more, smaller communities."""
    leiden_backend: Literal["igraph", "leidenalg"] = "igraph"
    """`igraph` (built-in, fast) or `leidenalg`."""
    similarity_edge_threshold: float = Field(default=0.75, ge=0, le=1)
    """Embedding cosine above which two knowledge items get a similarity edge."""
    similarity_neighbours: int = Field(default=10, ge=1, le=200)
    """At most this many similarity edges per item."""
    keep_runs: int = Field(default=3, ge=1)
    """Community runs kept (current included); older runs are purged."""
    min_community_size: int = Field(default=2, ge=1)
    """Smaller groups are reported as orphans rather than written as communities."""
    # duplicates
    merge_threshold: float = Field(default=0.90, ge=0, le=1)
    """Cosine at or above which two lessons or corrections merge."""
    review_threshold: float = Field(default=0.80, ge=0, le=1)
    """Cosine at or above which (below `merge_threshold`) a pair becomes a review finding."""
    auto_merge: bool = True
    """Merge pairs above `merge_threshold` whose texts are near-identical in the job (journalled,
    undoable); false turns them into findings instead."""
    # staleness
    stale_days: float = Field(default=30.0, gt=0)
    """Items never retrieved and older than this are stale."""
    refine_days: float = Field(default=182.0, gt=0)
    """High-use items not refined for this long are flagged."""
    high_use: int = Field(default=10, ge=1)
    """Usage count from which an item counts as high-use."""
    query_window_days: float = Field(default=30.0, gt=0)
    """Recent `context` requests (ContextQuery nodes) looked at for keyword matches."""
    served_days: float = Field(default=30.0, gt=0)
    """An item served within this many days (returned by `context`, by the `rules` query or MCP
    tool, or printed by the session-start hook: its `GOT` edges) is in use: `rem run --auto` never
    archives it, whatever its finding says (a reviewer still may). Default 30 days, the same
    span as `stale_days`, so an item served once a month is never archived unattended."""
    # extraction
    theme_sessions: int = Field(default=3, ge=1)
    """A topic in this many sessions with no lesson becomes a finding."""
    todo_sessions: int = Field(default=5, ge=1)
    """A todo open across this many later sessions becomes a finding."""
    # rollups
    daily_budget: int = Field(default=8_000, ge=500)
    """Bytes per daily primer."""
    weekly_budget: int = Field(default=12_000, ge=500)
    """Bytes per weekly primer."""
    monthly_budget: int = Field(default=15_000, ge=500)
    """Bytes per monthly primer."""
    daily_target: int = Field(default=5_000, ge=200)
    """Bytes a daily primer's narrative fills up to when the material is there (seed: 2–5 KB)."""
    weekly_target: int = Field(default=8_000, ge=200)
    """Bytes a weekly primer fills up to (seed: 4–8 KB)."""
    monthly_target: int = Field(default=10_000, ge=200)
    """Bytes a monthly primer fills up to (seed: 6–10 KB)."""
    pack_budget: int = Field(default=35_000, ge=1_000)
    """Bytes of the context pack (monthly + weekly + today's dailies)."""
    pack_target: int = Field(default=25_000, ge=1_000)
    """Bytes the pack fills up to with the most recent daily primers (seed: 20–25 KB)."""
    # reference layers
    topic_summary_min_mentions: int = Field(default=2, ge=1)
    """Topics mentioned in at least this many turns get a summary (`topic_summaries`); one
    mention is a passing word, not a subject."""
    reference_min_weight: float = Field(default=0.5, ge=0)
    """Topics at or above this weight get a reference layer."""
    reference_min_tokens: int = Field(default=500, ge=1)
    """Smallest reference worth writing; below it the layer is flagged as a gap."""
    reference_max_tokens: int = Field(default=5_000, ge=100)
    """Largest reference."""
    reference_refresh_turns: int = Field(default=10, ge=1)
    """New relevant turns that trigger a rebuild."""
    # runner
    lock_ttl_s: float = Field(default=900.0, gt=0)
    """A job lock expires after this long (a crashed worker never blocks forever)."""
    max_attempts: int = Field(default=3, ge=1)
    """Failed runs retried with backoff up to this many times, then flagged."""
    backoff_s: float = Field(default=300.0, gt=0)
    """First retry delay; doubles per attempt."""
    worker_interval_s: float = Field(default=60.0, gt=0)
    """How often the worker checks for due jobs."""
    worker_jitter_s: float = Field(default=10.0, ge=0)
    """Random extra delay per check so workers do not align."""
    projects: tuple[str, ...] = ("*",)
    """Scopes the worker consolidates: project slugs, or `*` for all projects together."""
    report_dir: Path | None = None
    """Where admin reports go; default `<data dir>/reports`."""
    schedules: dict[str, Schedule] = Field(default_factory=_default_schedules)
    """Schedule per job name."""

    @field_validator("schedules", mode="before")
    @classmethod
    def _merge_default_schedules(cls, value: Any) -> Any:
        # `REMGRAPH_CONSOLIDATE__SCHEDULES__DUPLICATES__EVERY=5` should change one field of one job,
        # not replace the whole table with a half-filled entry.
        if not isinstance(value, dict):
            return value
        merged: dict[str, Any] = {k: v.model_dump() for k, v in _default_schedules().items()}
        for job, spec in value.items():
            if isinstance(spec, dict):
                merged[job] = {**merged.get(job, {}), **spec}
            else:
                merged[job] = spec
        return merged

    def schedule_for(self, job: str) -> Schedule:
        """The schedule of `job` (default: cron twice a day)."""
        return self.schedules.get(job) or _default_schedules().get(job) or Schedule()


class ConsolidateSettings(AISettings, KnowledgeSettings):
    """Graph, model and knowledge-rule settings plus the `consolidate` section.

    Correction graduation and topic weights follow the shared `corrections` and `topics` rules
    (`knowledge.config`), the same ones extraction applies.
    """

    model_config = SettingsConfigDict(
        env_prefix="REMGRAPH_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
        use_attribute_docstrings=True,
    )

    consolidate: ConsolidateSection = Field(default_factory=ConsolidateSection)
