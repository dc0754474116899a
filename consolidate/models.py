"""Value objects of the REM cycle: what a job gets (`JobContext`), returns and reports."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from consolidate.config import ConsolidateSettings
from core.ids import make_id
from core.timeutil import to_ms
from graph.db import GraphDB
from graph.models import Finding, FindingAction

ALL_PROJECTS = "*"
"""Scope key meaning "every project" (knowledge queries get `project=None`)."""

RunStatus = Literal["succeeded", "failed", "skipped"]


@dataclass(frozen=True)
class JobContext:
    """Everything a job needs; jobs never know whether the CLI, worker, API or a test called them.

    Attributes:
        db: the graph.
        settings: settings (the `consolidate` section holds the job parameters).
        project: project slug, or `*` for all projects.
        run_id: id of this run; everything the run writes carries it.
        now: the run's clock (aware UTC); jobs never read the wall clock themselves.
        log: logger named after the job.
        job: the job's name.
    """

    db: GraphDB
    settings: ConsolidateSettings
    project: str
    run_id: str
    now: datetime
    log: logging.Logger
    job: str

    @property
    def now_ms(self) -> int:
        """`now` in epoch milliseconds."""
        return to_ms(self.now)

    @property
    def project_filter(self) -> str | None:
        """The `$project` parameter of knowledge queries: None for all projects."""
        return None if self.project == ALL_PROJECTS else self.project

    def finding(
        self,
        kind: str,
        title: str,
        detail: str,
        target_ids: Sequence[str],
        action: FindingAction,
        *,
        evidence: str = "",
    ) -> Finding:
        """A finding with a deterministic id (job, kind, sorted targets), so reruns update it.

        `evidence` names what the finding rests on; a skipped finding reopens when it changes.
        """
        targets = tuple(target_ids)
        fid = make_id("finding", self.project, self.job, kind, *sorted(targets))
        return Finding(
            id=fid,
            project=self.project,
            job=self.job,
            run_id=self.run_id,
            kind=kind,
            title=title,
            detail=detail,
            target_ids=targets,
            proposed_action=action,
            evidence=evidence,
            created_at=self.now,
            valid_from=self.now,
            recorded_at=self.now,
        )


@dataclass
class JobResult:
    """What a job returns: JSON-able counters and the findings it proposes.

    Attributes:
        summary: counters and small lists for reports (`merged`, `stale`, ...).
        findings: proposals for review.
        report: extra sections for the admin report (deltas, weight changes, gaps).
    """

    summary: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)


JobFn = Callable[[JobContext], Awaitable[JobResult]]


@dataclass(frozen=True)
class Job:
    """A registered job: name, one-line description, and the coroutine that runs it."""

    name: str
    description: str
    run: JobFn


_CONFIG = ConfigDict(frozen=True, extra="forbid")


class JobReport(BaseModel):
    """The outcome of one `run_job` call."""

    model_config = _CONFIG

    job: str
    project: str
    run_id: str
    status: RunStatus
    attempt: int = 1
    started_at: datetime
    finished_at: datetime
    duration_ms: float = 0.0
    summary: dict[str, Any] = Field(default_factory=dict)
    report: dict[str, Any] = Field(default_factory=dict)
    findings: int = 0
    error: str | None = None
    flagged: bool = False
    reason: str = ""


class JobStatusView(BaseModel):
    """One line of `remgraph rem status`: a job's last run and when it is next due."""

    model_config = _CONFIG

    job: str
    project: str
    description: str
    schedule: str
    last_run_at: datetime | None = None
    last_status: str | None = None
    last_summary: dict[str, Any] = Field(default_factory=dict)
    last_duration_ms: float = 0.0
    last_report: dict[str, Any] = Field(default_factory=dict)
    attempts: int = 0
    due: bool = False
    reason: str = ""
    next_due_at: datetime | None = None
    next_due_sessions: int | None = None
    sessions: int = 0
    flagged: bool = False


class CycleReport(BaseModel):
    """One REM cycle (or a single job run from the CLI): every job report plus totals."""

    model_config = _CONFIG

    project: str
    started_at: datetime
    finished_at: datetime
    reports: tuple[JobReport, ...] = ()
    open_findings: tuple[dict[str, Any], ...] = ()

    @property
    def duration_ms(self) -> float:
        """Wall time of the whole cycle."""
        return (self.finished_at - self.started_at).total_seconds() * 1000
