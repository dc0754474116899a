"""A new REM job is one module plus one line in `consolidate.jobs.JOBS`: it runs and reports."""

from __future__ import annotations

import pytest

from consolidate import jobs
from consolidate.config import ConsolidateSettings
from consolidate.models import Job, JobContext, JobResult
from consolidate.runner import rem_status, run_job
from graph.db import GraphDB
from graph.repositories.findings import FindingRepository
from graph.repositories.rem import RemRepository
from tests.integration.consolidate.seed import NOW, put_topics
from tests.integration.consolidate.test_topic_rule import _topic


async def quiet_topics(ctx: JobContext) -> JobResult:
    """The made-up job: a finding per topic nobody mentioned for a month."""
    topics = await RemRepository(ctx.db).topics(ctx.project_filter, ctx.now_ms)
    month_ago = ctx.now_ms - 30 * 86_400_000
    quiet = [t for t in topics if t.last_seen_ms is not None and t.last_seen_ms < month_ago]
    findings = [
        ctx.finding("quiet_topic", f"quiet topic: {t.title}", "", [t.id], "keep") for t in quiet
    ]
    return JobResult(summary={"topics": len(topics), "quiet": len(quiet)}, findings=findings)


async def test_a_registered_job_runs_reports_and_has_a_default_schedule(
    graph_db: GraphDB, rem_settings: ConsolidateSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = Job("quiet_topics", "Topics nobody mentioned for a month", quiet_topics)
    monkeypatch.setitem(jobs.JOBS, job.name, job)  # the one registry line
    await put_topics(graph_db, [_topic("busy", 3, 9, 2), _topic("old", 1, 2, 45)])
    report = await run_job("quiet_topics", db=graph_db, settings=rem_settings, now=NOW)
    assert report.status == "succeeded", report.error
    assert report.summary == {"topics": 2, "quiet": 1}
    # run over every project: each project on its own, so the finding belongs to the topic's
    [f] = await FindingRepository(graph_db).list_findings("p", status="open")
    assert (f.kind, f.target_ids, f.job) == ("quiet_topic", ("old",), "quiet_topics")
    [view] = [
        v
        for v in await rem_status(db=graph_db, settings=rem_settings, now=NOW)
        if v.job == job.name
    ]
    assert (view.last_status, view.schedule) == ("succeeded", "cron 0 3,15 * * *")
