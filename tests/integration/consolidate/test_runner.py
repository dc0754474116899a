import asyncio
import json
import socket
import subprocess
from datetime import timedelta

import pytest

from consolidate.models import ALL_PROJECTS
from consolidate.runner import ABANDONED, due_jobs, lock_id, rem_status, run_cycle, run_job
from core.timeutil import to_ms
from graph.db import GraphDB
from graph.errors import InvalidInputError
from graph.models import JobRun, Topic
from graph.repositories.communities import CommunityRepository
from graph.repositories.findings import FindingRepository
from graph.repositories.jobs import JobRepository
from tests.integration.consolidate.seed import NOW, at, put_topics, vec


async def _topics(db: GraphDB, n: int = 6) -> None:
    await put_topics(
        db,
        [
            Topic(
                id=f"top_{i}",
                title=f"topic {i // 3}",
                projects=("p",),
                sessions=(f"s{i // 3}",),
                embedding=vec(i // 3, i),
                valid_from=at(1),
                recorded_at=at(1),
            )
            for i in range(n)
        ],
    )


async def test_a_held_lock_makes_a_second_run_skip(graph_db, rem_settings):
    jobs = JobRepository(graph_db)
    assert await jobs.acquire_lock(
        lock_id("p", "communities"), "someone-else", now_ms=to_ms(NOW), ttl_ms=60_000
    )
    report = await run_job("communities", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "skipped"
    # once the lock has expired, a run goes through
    later = NOW + timedelta(minutes=2)
    report = await run_job(
        "communities", db=graph_db, settings=rem_settings, now=later, project="p"
    )
    assert report.status == "succeeded"


async def test_a_killed_runs_job_run_is_marked_failed_once_its_lock_lapses(graph_db, rem_settings):
    # What a run SIGKILLed mid-job leaves: its lock (never released) and a JobRun "running".
    jobs = JobRepository(graph_db)
    assert await jobs.acquire_lock(
        lock_id("p", "communities"), "killed-run", now_ms=to_ms(NOW), ttl_ms=60_000
    )
    dead = JobRun(
        id="run_killed", project="p", job="communities", run_id="run_killed", started_at=NOW
    )
    await jobs.save_run(dead)
    # while the lock is live the run may still be going: it is left alone
    report = await run_job("communities", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "skipped"
    [run] = [r for r in await jobs.list_runs("p", "communities") if r.id == "run_killed"]
    assert run.status == "running"
    # the next cycle after the lock lapsed marks it failed, then runs the job
    later = NOW + timedelta(minutes=2)
    report = await run_job(
        "communities", db=graph_db, settings=rem_settings, now=later, project="p"
    )
    assert report.status == "succeeded"
    runs = {r.id: r for r in await jobs.list_runs("p", "communities")}
    assert runs["run_killed"].status == "failed"
    assert runs["run_killed"].error == ABANDONED
    assert runs["run_killed"].finished_at == later
    assert [r.status for r in runs.values()].count("running") == 0


@pytest.fixture
def pids():
    """(a live process's pid, a killed and reaped process's pid) on this host."""
    alive = subprocess.Popen(["sleep", "60"])
    killed = subprocess.Popen(["sleep", "60"])
    killed.kill()
    killed.wait()
    yield alive.pid, killed.pid
    alive.kill()
    alive.wait()


async def test_a_lock_held_by_a_killed_process_of_this_host_is_taken_over_at_once(
    graph_db, rem_settings, pids
):
    jobs = JobRepository(graph_db)
    lid = lock_id("p", "communities")
    live, dead = pids
    host = socket.gethostname()
    # a live holder on this host, and a holder on another host, keep the lock
    for holder in (f"{host}/{live}/run_live", f"elsewhere/{dead}/run_far"):
        assert await jobs.acquire_lock(lid, holder, now_ms=to_ms(NOW), ttl_ms=60_000)
        report = await run_job(
            "communities", db=graph_db, settings=rem_settings, now=NOW, project="p"
        )
        assert report.status == "skipped", holder
        assert await jobs.release_lock(lid, holder)
    # the killed run's lock (ttl 15 minutes) and its JobRun "running" are taken over now
    gone = f"{host}/{dead}/run_killed"
    assert await jobs.acquire_lock(lid, gone, now_ms=to_ms(NOW), ttl_ms=900_000)
    await jobs.save_run(
        JobRun(id="run_killed", project="p", job="communities", run_id="run_killed", started_at=NOW)
    )
    report = await run_job("communities", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "succeeded"
    runs = {r.id: r for r in await jobs.list_runs("p", "communities")}
    assert runs["run_killed"].status == "failed"
    assert runs["run_killed"].error == ABANDONED


async def test_concurrent_runs_of_one_job_are_single_flight(graph_db, rem_settings):
    await _topics(graph_db)
    reports = await asyncio.gather(
        *[
            run_job("communities", db=graph_db, settings=rem_settings, now=NOW, project="p")
            for _ in range(3)
        ]
    )
    statuses = sorted(r.status for r in reports)
    assert statuses.count("succeeded") >= 1
    assert "skipped" in statuses
    runs = await JobRepository(graph_db).list_runs("p", "communities")
    assert len(runs) == statuses.count("succeeded")


async def test_a_failed_run_keeps_previous_results_backs_off_and_flags(
    graph_db, rem_settings, monkeypatch
):
    await _topics(graph_db)
    good = await run_job("communities", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert good.status == "succeeded"

    async def broken_promote(self, project, run_id, now_ms):
        raise RuntimeError("engine went away mid-switch")

    monkeypatch.setattr(CommunityRepository, "promote", broken_promote)
    t = NOW + timedelta(hours=1)
    bad = await run_job("communities", db=graph_db, settings=rem_settings, now=t, project="p")
    assert bad.status == "failed"
    assert "engine went away" in (bad.error or "")
    current = await CommunityRepository(graph_db).current_run("p")
    assert current is not None
    assert current.id == good.summary["run_id"]

    cfg = rem_settings.consolidate
    status = {
        s.job: s for s in await rem_status(db=graph_db, settings=rem_settings, now=t, project="p")
    }
    assert status["communities"].attempts == 1
    assert not status["communities"].due  # backoff: not before backoff_s
    retry_at = t + timedelta(seconds=cfg.backoff_s + 1)
    assert "communities" in await due_jobs(
        db=graph_db, settings=rem_settings, now=retry_at, project="p"
    )
    second = await run_job(
        "communities", db=graph_db, settings=rem_settings, now=retry_at, project="p"
    )
    assert second.attempt == 2
    third_at = retry_at + timedelta(seconds=2 * cfg.backoff_s + 1)
    third = await run_job(
        "communities", db=graph_db, settings=rem_settings, now=third_at, project="p"
    )
    assert third.attempt == 3
    assert third.flagged
    flagged = [
        f for f in await FindingRepository(graph_db).list_findings("p") if f.kind == "job_failed"
    ]
    assert len(flagged) == 1
    status = {
        s.job: s
        for s in await rem_status(
            db=graph_db, settings=rem_settings, now=third_at + timedelta(days=1), project="p"
        )
    }
    assert status["communities"].flagged
    assert not status["communities"].due

    monkeypatch.undo()
    fixed = await run_job(
        "communities",
        db=graph_db,
        settings=rem_settings,
        now=third_at + timedelta(days=1),
        project="p",
    )
    assert fixed.status == "succeeded"
    assert fixed.attempt == 4
    status = {
        s.job: s
        for s in await rem_status(
            db=graph_db, settings=rem_settings, now=third_at + timedelta(days=1), project="p"
        )
    }
    assert status["communities"].attempts == 0


async def test_unknown_job_is_refused(graph_db, rem_settings):
    with pytest.raises(InvalidInputError, match="unknown job"):
        await run_job("nope", db=graph_db, settings=rem_settings, now=NOW)


async def test_a_cycle_writes_markdown_and_json_reports(graph_db, rem_settings, tmp_path):
    await _topics(graph_db)
    report = await run_cycle(
        db=graph_db,
        settings=rem_settings,
        now=NOW,
        project=ALL_PROJECTS,
        jobs=["communities"],
        out=tmp_path / "out",
    )
    assert [r.job for r in report.reports] == ["communities"]
    files = sorted((tmp_path / "out").iterdir())
    assert [f.suffix for f in files] == [".json", ".md"]
    data = json.loads(files[0].read_text())
    assert data["statistics"]["communities"]["communities"] == 2
    assert "durations_ms" in data
    assert "# REM cycle report" in files[1].read_text()


async def _topics_in_two_projects(db) -> None:
    """`_topics`, plus project "a" (sorting first) with one topic that forms no community."""
    await put_topics(
        db,
        [
            Topic(
                id="top_a",
                project="a",
                projects=("a",),
                title="alone",
                valid_from=at(1),
                recorded_at=at(1),
            )
        ],
    )
    await _topics(db)


async def test_a_run_over_every_project_adds_up_each_projects_deltas(graph_db, rem_settings):
    # "a" sorts first and forms no community: its deltas must not stand for the whole run
    await _topics_in_two_projects(graph_db)
    report = await run_job(
        "communities", db=graph_db, settings=rem_settings, now=NOW, project=ALL_PROJECTS
    )
    assert report.status == "succeeded", report.error
    assert report.summary["communities"] == 2
    assert report.report["deltas"] == {"new": 2, "kept": 0, "merged": 0, "split": 0, "dissolved": 0}
    again = await run_job(
        "communities",
        db=graph_db,
        settings=rem_settings,
        now=NOW + timedelta(hours=1),
        project=ALL_PROJECTS,
    )
    assert again.report["deltas"] == {"new": 0, "kept": 2, "merged": 0, "split": 0, "dissolved": 0}


async def test_a_cycle_over_every_project_recommends_each_projects_findings(
    graph_db, rem_settings, tmp_path
):
    await _topics_in_two_projects(graph_db)
    report = await run_cycle(
        db=graph_db,
        settings=rem_settings,
        now=NOW,
        project=ALL_PROJECTS,
        jobs=["communities"],
        out=tmp_path,
    )
    repo = FindingRepository(graph_db)
    everywhere = await repo.list_findings(ALL_PROJECTS)
    assert {f.project for f in everywhere} == {"a"}  # stored under its project, never `*`
    assert everywhere == await repo.list_findings("a")
    assert await repo.list_findings("p") == []
    assert [r["id"] for r in report.open_findings] == [f.id for f in everywhere]
