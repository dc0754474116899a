"""Run REM jobs: single-flight lock, run id, timing, logging, error capture and scheduler state.

`run_job` is the one entry point: the CLI, the worker, the GraphQL API (through
the API's `Consolidator` port) and the tests all call it. Jobs never know how they were triggered.
A failed job leaves what it had not yet switched over untouched (the communities job only flips its
"current" pointer as its last step), records the failure, and is retried with exponential backoff by
later cycles until `max_attempts`, after which it is flagged with a `job_failed` finding.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from consolidate.config import ConsolidateSettings, Schedule
from consolidate.jobs import JOBS
from consolidate.models import (
    ALL_PROJECTS,
    CycleReport,
    JobContext,
    JobFn,
    JobReport,
    JobResult,
    JobStatusView,
)
from consolidate.report import recommendation, write_report
from consolidate.schedule import Due, is_due, next_cron
from core.ids import make_id
from core.process import owner_is_gone, process_owner
from graph.db import GraphDB
from graph.errors import InvalidInputError
from graph.models import JobRun, RemState, utc_now
from graph.repositories.findings import FindingRepository
from graph.repositories.jobs import JobRepository

log = logging.getLogger("remgraph.consolidate")


def _job(name: str) -> None:
    if name not in JOBS:
        raise InvalidInputError("job", f"unknown job {name!r}; known: {', '.join(sorted(JOBS))}")


def lock_id(project: str, name: str) -> str:
    """Id of the single-flight lock of job `name` in scope `project`."""
    return f"rem:{project}:{name}"


def state_id(project: str, name: str) -> str:
    """Id of the `RemState` node of job `name` in scope `project`."""
    return f"remstate:{project}:{name}"


def _describe(s: Schedule) -> str:
    if s.kind == "cron":
        return f"cron {s.cron}"
    if s.kind == "linear":
        return f"every {s.every} sessions"
    if s.kind == "fibonacci":
        return f"fibonacci from {s.start} sessions"
    return f"logarithmic from {s.start} sessions (scale {s.scale})"


async def run_job(
    name: str,
    *,
    db: GraphDB,
    settings: ConsolidateSettings,
    now: datetime | None = None,
    project: str = ALL_PROJECTS,
    owner: str | None = None,
) -> JobReport:
    """Run job `name` once for `project`, whatever its schedule.

    Args:
        name: a key of `consolidate.jobs.JOBS`.
        db: the graph.
        settings: settings; `settings.consolidate` parameterises the job.
        now: the run's clock (default: the current time); tests pass a fixed one.
        project: project slug, or `*` for all projects.
        owner: lock owner (default: a fresh id per call, so two calls never share a lock).

    Returns:
        The `JobReport`; `status="skipped"` when another run holds the lock.

    Raises:
        InvalidInputError: `name` is not a registered job.
    """
    _job(name)
    job = JOBS[name]
    cfg = settings.consolidate
    now = now or utc_now()
    run_id = make_id("job_run", project, name, now.isoformat(), uuid.uuid4().hex)
    owner = owner or process_owner(run_id)
    jobs = JobRepository(db)
    ctx = JobContext(
        db=db,
        settings=settings,
        project=project,
        run_id=run_id,
        now=now,
        log=logging.getLogger(f"remgraph.consolidate.{name}"),
        job=name,
    )
    lid = lock_id(project, name)
    ttl_ms = int(cfg.lock_ttl_s * 1000)
    if not await _take_lock(jobs, lid, owner, now_ms=ctx.now_ms, ttl_ms=ttl_ms):
        log.info("job %s (%s) skipped: another run holds the lock", name, project)
        return JobReport(
            job=name,
            project=project,
            run_id=run_id,
            status="skipped",
            started_at=now,
            finished_at=now,
            reason="locked by another run",
        )
    try:
        await _fail_abandoned(jobs, project, name, now)
        states = {s.job: s for s in await jobs.states(project)}
        prev = states.get(name)
        attempt = (prev.attempts + 1) if prev and prev.last_status == "failed" else 1
        sessions = await jobs.session_count(ctx.project_filter)
        await jobs.save_run(
            JobRun(
                id=run_id,
                project=project,
                job=name,
                run_id=run_id,
                started_at=now,
                attempt=attempt,
                valid_from=now,
                recorded_at=now,
            )
        )
        started = time.perf_counter()
        log.info("job %s (%s) run %s attempt %d started", name, project, run_id, attempt)
        error: str | None = None
        try:
            result = await _run_per_project(job.run, ctx, jobs)
        except Exception as e:  # any job failure is recorded, never propagated
            log.exception("job %s (%s) run %s failed", name, project, run_id)
            error = f"{type(e).__name__}: {e}"
            result = None
        elapsed_ms = (time.perf_counter() - started) * 1000
        finished = now if elapsed_ms <= 0 else _after(now, elapsed_ms)
        if result is not None:
            # Findings land after the job's own writes: a failing job proposes nothing.
            await FindingRepository(db).upsert_many(result.findings)
            findings_n, flagged = len(result.findings), False
            summary, status = result.summary, "succeeded"
            state = _succeeded_state(ctx, settings, sessions, summary).model_copy(
                update={"last_duration_ms": round(elapsed_ms, 1), "last_report": result.report}
            )
        else:
            summary, status = {}, "failed"
            state = _failed_state(ctx, settings, prev, attempt, sessions, error or "")
            flagged = attempt >= cfg.max_attempts
            findings_n = 0
            if flagged:
                f = ctx.finding(
                    "job_failed",
                    f"job {name} failed {attempt} times",
                    error or "",
                    [state.id],
                    "keep",
                )
                await FindingRepository(db).upsert_many([f])
                findings_n = 1
        await jobs.save_run(
            JobRun(
                id=run_id,
                project=project,
                job=name,
                run_id=run_id,
                started_at=now,
                finished_at=finished,
                status=status,
                attempt=attempt,
                summary=summary,
                error=error,
                valid_from=now,
                recorded_at=now,
            )
        )
        await jobs.save_state(state)
        log.info("job %s (%s) run %s %s in %.0f ms", name, project, run_id, status, elapsed_ms)
        return JobReport(
            job=name,
            project=project,
            run_id=run_id,
            status=status,
            attempt=attempt,
            started_at=now,
            finished_at=finished,
            duration_ms=round(elapsed_ms, 1),
            summary=summary,
            report=result.report if result else {},
            findings=findings_n,
            error=error,
            flagged=flagged,
        )
    finally:
        await jobs.release_lock(lid, owner)


async def _run_per_project(run: JobFn, ctx: JobContext, jobs: JobRepository) -> JobResult:
    """Run the job on `ctx.project`; over all projects (`*`), once per project, results merged.

    Everything a job derives (topics, layers, primers, communities, findings) comes from one
    project's material: a run over every project never mixes them.
    """
    if ctx.project != ALL_PROJECTS:
        return await run(ctx)
    merged = JobResult()
    for project in await jobs.projects():
        part = await run(dataclasses.replace(ctx, project=project))
        merged.findings.extend(part.findings)
        for key, value in part.summary.items():
            _merge_value(merged.summary, key, value)
        for key, value in part.report.items():
            _merge_value(merged.report, key, value)
    return merged


def _merge_value(into: dict[str, Any], key: str, value: Any) -> None:
    """Counters add up, lists concatenate, mappings merge key by key; else the first value stays.

    A report's `deltas` is a mapping of counters: over every project it is their sum.
    """
    have = into.get(key)
    if have is None:
        if isinstance(value, dict):
            into[key] = {}
            for k, v in value.items():
                _merge_value(into[key], k, v)
        else:
            into[key] = list(value) if isinstance(value, list) else value
    elif isinstance(have, list) and isinstance(value, list):
        have.extend(value)
    elif isinstance(have, dict) and isinstance(value, dict):
        for k, v in value.items():
            _merge_value(have, k, v)
    elif _is_number(have) and _is_number(value):
        into[key] = have + value


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


ABANDONED = "abandoned: the run stopped before it finished (its process was killed)"


async def _take_lock(
    jobs: JobRepository, lid: str, owner: str, *, now_ms: int, ttl_ms: int
) -> bool:
    """Take the job's lock: free, expired, or held by a process of this host that is gone.

    A run killed with `kill -9` leaves its lock behind; waiting out the time-to-live (15 minutes
    by default) would skip every run until then. Its owner names its host and process
    (`core.process`), so a run on the same host takes such a lock over at once.
    """
    acquired, holder = await jobs.try_lock(lid, owner, now_ms=now_ms, ttl_ms=ttl_ms)
    if acquired or not owner_is_gone(holder):
        return acquired
    log.warning("lock %s: its holder %s is gone; taking it over", lid, holder)
    return await jobs.take_over_lock(lid, holder, owner, now_ms=now_ms, ttl_ms=ttl_ms)


async def _fail_abandoned(jobs: JobRepository, project: str, name: str, now: datetime) -> None:
    """Mark the job's runs still "running" as failed: their process is gone.

    Called while holding the job's lock. A live run holds that lock until it finishes, so a run of
    the same job and scope still "running" now lost its process (SIGKILL, OOM, power) and would
    otherwise show "running" for ever.
    """
    for run in await jobs.list_runs(project, name, limit=20):
        if run.status == "running":
            log.warning("job %s (%s) run %s marked failed: %s", name, project, run.id, ABANDONED)
            await jobs.save_run(
                run.model_copy(update={"status": "failed", "finished_at": now, "error": ABANDONED})
            )


def _last_run(st: RemState | None) -> dict[str, Any]:
    """The last run's duration and report sections, for `rem report`."""
    return {"last_duration_ms": st.last_duration_ms, "last_report": st.last_report} if st else {}


def _succeeded_state(
    ctx: JobContext, settings: ConsolidateSettings, sessions: int, summary: dict[str, Any]
) -> RemState:
    """Scheduler state after a successful run: next cron time, session count, no attempts."""
    sched = settings.consolidate.schedule_for(ctx.job)
    return RemState(
        id=state_id(ctx.project, ctx.job),
        project=ctx.project,
        job=ctx.job,
        last_run_at=ctx.now,
        last_status="succeeded",
        last_summary=summary,
        next_due_at=next_cron(sched.cron, ctx.now) if sched.kind == "cron" else None,
        sessions_at_last_run=sessions,
        attempts=0,
        valid_from=ctx.now,
        recorded_at=ctx.now,
    )


def _failed_state(
    ctx: JobContext,
    settings: ConsolidateSettings,
    prev: RemState | None,
    attempts: int,
    sessions: int,
    error: str,
) -> RemState:
    """Scheduler state after a failed run: retry time with backoff, attempts so far."""
    cfg = settings.consolidate
    due = is_due(
        cfg.schedule_for(ctx.job),
        now=ctx.now,
        sessions=sessions,
        last_run_at=ctx.now,
        last_status="failed",
        sessions_at_last_run=None,
        attempts=attempts,
        max_attempts=cfg.max_attempts,
        backoff_s=cfg.backoff_s,
    )
    return RemState(
        id=state_id(ctx.project, ctx.job),
        project=ctx.project,
        job=ctx.job,
        last_run_at=ctx.now,
        last_status="failed",
        last_summary={"error": error},
        next_due_at=due.next_at,
        sessions_at_last_run=prev.sessions_at_last_run if prev else 0,
        attempts=attempts,
        valid_from=ctx.now,
        recorded_at=ctx.now,
    )


def _after(start: datetime, ms: float) -> datetime:
    return start + timedelta(milliseconds=ms)


async def rem_status(
    *,
    db: GraphDB,
    settings: ConsolidateSettings,
    now: datetime | None = None,
    project: str = ALL_PROJECTS,
) -> list[JobStatusView]:
    """Every registered job's state for `project`: last run, result, and whether it is due."""
    now = now or utc_now()
    cfg = settings.consolidate
    jobs = JobRepository(db)
    states = {s.job: s for s in await jobs.states(project)}
    sessions = await jobs.session_count(None if project == ALL_PROJECTS else project)
    out: list[JobStatusView] = []
    for name, job in JOBS.items():
        st = states.get(name)
        sched = cfg.schedule_for(name)
        due: Due = is_due(
            sched,
            now=now,
            sessions=sessions,
            last_run_at=st.last_run_at if st else None,
            last_status=st.last_status if st else None,
            sessions_at_last_run=(st.sessions_at_last_run if st and st.last_run_at else None),
            attempts=st.attempts if st else 0,
            max_attempts=cfg.max_attempts,
            backoff_s=cfg.backoff_s,
        )
        out.append(
            JobStatusView(
                job=name,
                project=project,
                description=job.description,
                schedule=_describe(sched),
                last_run_at=st.last_run_at if st else None,
                last_status=st.last_status if st else None,
                last_summary=st.last_summary if st else {},
                **_last_run(st),
                attempts=st.attempts if st else 0,
                due=due.due,
                reason=due.reason,
                next_due_at=due.next_at,
                next_due_sessions=due.next_sessions,
                sessions=sessions,
                flagged=due.flagged,
            )
        )
    return out


async def due_jobs(
    *,
    db: GraphDB,
    settings: ConsolidateSettings,
    now: datetime | None = None,
    project: str = ALL_PROJECTS,
) -> list[str]:
    """Names of the jobs due now for `project`, in registry order."""
    return [
        s.job for s in await rem_status(db=db, settings=settings, now=now, project=project) if s.due
    ]


async def run_cycle(
    *,
    db: GraphDB,
    settings: ConsolidateSettings,
    now: datetime | None = None,
    project: str = ALL_PROJECTS,
    jobs: Sequence[str] | None = None,
    force: bool = False,
    out: Path | None = None,
) -> CycleReport:
    """Run the due jobs (or `jobs`, or all with `force`) one after another and write the report.

    A failing job does not stop the cycle: later jobs still run and earlier results stay.

    Args:
        db: the graph.
        settings: settings.
        now: the cycle's clock.
        project: project slug or `*`.
        jobs: run exactly these jobs (their schedules ignored).
        force: run every registered job.
        out: folder for the Markdown and JSON admin report (default `report_dir` or
            `<data dir>/reports`); pass a folder to write elsewhere.
    """
    started = now or utc_now()
    if jobs is not None:
        for n in jobs:
            _job(n)
        names = list(jobs)
    elif force:
        names = list(JOBS)
    else:
        names = await due_jobs(db=db, settings=settings, now=started, project=project)
    reports = []
    for n in names:
        reports.append(await run_job(n, db=db, settings=settings, now=started, project=project))
    return await finish_cycle(
        db=db, settings=settings, project=project, started=started, reports=reports, out=out
    )


async def finish_cycle(
    *,
    db: GraphDB,
    settings: ConsolidateSettings,
    project: str,
    started: datetime,
    reports: Sequence[JobReport],
    out: Path | None = None,
) -> CycleReport:
    """Assemble the cycle report (with open findings) and write it when any job ran."""
    open_findings = await FindingRepository(db).list_findings(project, status="open", limit=200)
    report = CycleReport(
        project=project,
        started_at=started,
        finished_at=_after(started, sum(r.duration_ms for r in reports)),
        reports=tuple(reports),
        open_findings=tuple(recommendation(f) for f in open_findings),
    )
    folder = out or settings.consolidate.report_dir or (settings.embedded.data_dir / "reports")
    if reports:
        write_report(report, folder)
    return report
