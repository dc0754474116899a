import asyncio
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.ports import Consolidator
from consolidate.cli import rem_app
from consolidate.runner import lock_id, run_job
from consolidate.service import RemService
from consolidate.worker import run_worker
from core.timeutil import now_ms, to_ms
from graph.config import GraphSettings
from graph.db import GraphDB
from graph.errors import NotFoundError
from graph.models import Lesson, Session
from graph.repositories.findings import FindingRepository
from graph.repositories.jobs import JobRepository
from graph.repositories.rem import RemRepository
from tests.engines import engine_env
from tests.integration.consolidate.seed import NOW, at, put_lessons, put_sessions, vec


async def _close_pair(db: GraphDB) -> None:
    mixed = [0.0] * 384
    mixed[4], mixed[9] = 0.85, math.sqrt(1 - 0.85**2)
    await put_lessons(
        db,
        [
            Lesson(
                id="les_a",
                project="p",
                title="prefer uv",
                embedding=vec(4, 1),
                valid_from=at(9),
                recorded_at=at(9),
                source_turn_ids=("t1",),
            ),
            Lesson(
                id="les_b",
                project="p",
                title="prefer uv for installs",
                embedding=tuple(mixed),
                valid_from=at(2),
                recorded_at=at(2),
                source_turn_ids=("t2",),
            ),
            Lesson(
                id="les_stale",
                project="p",
                title="unused",
                embedding=vec(8, 1),
                valid_from=at(90),
                recorded_at=at(90),
            ),
        ],
    )


async def test_approving_a_merge_finding_merges_and_rejecting_keeps(graph_db, rem_settings):
    await _close_pair(graph_db)
    await run_job("duplicates", db=graph_db, settings=rem_settings, now=NOW, project="p")
    await run_job("staleness", db=graph_db, settings=rem_settings, now=NOW, project="p")
    service = RemService(graph_db, rem_settings)
    assert isinstance(service, Consolidator)
    open_ = {f["kind"]: f for f in await service.findings(project="p", status="open")}
    assert set(open_) == {"duplicate_lesson", "stale"}

    with pytest.raises(NotFoundError):
        await service.review_finding(
            project="other", finding_id=open_["stale"]["id"], status="approved"
        )
    rejected = await service.review_finding(
        project="p", finding_id=open_["stale"]["id"], status="rejected"
    )
    assert rejected["status"] == "rejected"
    applied = await service.review_finding(
        project="p", finding_id=open_["duplicate_lesson"]["id"], status="approved"
    )
    assert applied["status"] == "applied"
    # The service applies a decision at the wall-clock time (later than the seed's fixed NOW).
    live = {r.lesson.id: r.lesson for r in await RemRepository(graph_db).lessons("p", now_ms())}
    assert "les_b" not in live
    assert live["les_a"].source_turn_ids == ("t1", "t2")
    assert "les_stale" in live  # rejected: nothing archived
    # a later run does not reopen decided findings
    await run_job("staleness", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert await service.findings(project="p", status="open") == []


async def test_the_worker_runs_one_cycle_of_due_jobs(graph_db, rem_settings, tmp_path):
    await put_sessions(
        graph_db,
        [
            Session(
                id=f"ses_{i}", project="p", started_at=at(i), valid_from=at(i), recorded_at=at(i)
            )
            for i in range(6)
        ],
    )
    s = rem_settings.model_copy(
        update={
            "consolidate": rem_settings.consolidate.model_copy(
                update={"projects": ("p",), "worker_interval_s": 0.01, "worker_jitter_s": 0.0}
            )
        }
    )
    stats = await asyncio.wait_for(run_worker(graph_db, s, max_cycles=1), timeout=60)
    ran = {r.job for r in stats.runs}
    # 6 sessions: staleness (every 5), communities (fibonacci 5), extraction (log from 5) and the
    # cron jobs (never ran) are due; duplicates (10) and rollups (20) are not
    assert {"staleness", "communities", "extraction", "topic_weights"} <= ran
    assert "duplicates" not in ran
    assert "rollups" not in ran
    assert all(r.status == "succeeded" for r in stats.runs), [r.error for r in stats.runs]
    assert len(list((tmp_path / "reports").glob("rem-p-*.md"))) == 1  # one report per cycle
    states = {x.job: x for x in await JobRepository(graph_db).states("p")}
    assert states["staleness"].sessions_at_last_run == 6
    # nothing is due right after a cycle
    again = await asyncio.wait_for(run_worker(graph_db, s, max_cycles=1), timeout=60)
    assert again.runs == []


async def test_the_worker_stops_when_asked(graph_db, rem_settings):
    s = rem_settings.model_copy(
        update={
            "consolidate": rem_settings.consolidate.model_copy(
                update={"projects": ("p",), "worker_interval_s": 3600}
            )
        }
    )
    stop = asyncio.Event()
    task = asyncio.create_task(run_worker(graph_db, s, stop=stop))
    await asyncio.sleep(0.5)
    stop.set()
    stats = await asyncio.wait_for(task, timeout=10)
    assert stats.cycles == 1


def _env(graph_settings: GraphSettings, tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            **engine_env(graph_settings),
            "REMGRAPH_EMBEDDED__DATA_DIR": str(tmp_path / "data"),
            "REMGRAPH_CONSOLIDATE__REPORT_DIR": str(tmp_path / "reports"),
        }
    )
    return env


async def test_cli_runs_a_job_reports_and_applies_recommendations(
    graph_db, graph_settings, tmp_path, monkeypatch
):
    await _close_pair(graph_db)
    for k, v in _env(graph_settings, tmp_path).items():
        monkeypatch.setenv(k, v)
    runner = CliRunner()

    def invoke(*args):
        # the CLI runs its own event loop: call it from a worker thread
        return runner.invoke(rem_app, list(args), catch_exceptions=False)

    res = await asyncio.to_thread(
        invoke, "job", "duplicates", "--project", "p", "--out", str(tmp_path / "out")
    )
    assert res.exit_code == 0, res.output
    assert "duplicates" in res.output
    assert len(list((tmp_path / "out").glob("rem-p-*.json"))) == 1
    res = await asyncio.to_thread(invoke, "findings", "--project", "p", "--json")
    assert json.loads(res.output)[0]["kind"] == "duplicate_lesson"
    res = await asyncio.to_thread(invoke, "status", "--project", "p")
    assert "duplicates" in res.output
    res = await asyncio.to_thread(invoke, "run", "--project", "p", "--job", "staleness", "--auto")
    assert res.exit_code == 0, res.output
    # The stale lesson is archived; the reworded pair is not near-identical: left for review.
    assert "applied 1 safe actions, left 1 for review" in res.output
    left = await FindingRepository(graph_db).list_findings("p", status="open")
    assert [f.kind for f in left] == ["duplicate_lesson"]
    live = {r.lesson.id for r in await RemRepository(graph_db).lessons("p", now_ms())}
    assert "les_stale" not in live
    run_id = re.search(r"rem undo (rrn_[0-9a-f]+)", res.output.replace("\n", " "))
    res_report = await asyncio.to_thread(invoke, "report", "--project", "p")
    assert res_report.exit_code == 0, res_report.output
    assert "# REM cycle report: p" in res_report.output
    # the report of stored state keeps each job's time and compares with the cycle's own report
    assert "## Since the previous report" in res_report.output
    newest = sorted((tmp_path / "reports").glob("rem-p-*.json"))[-1]
    data = json.loads(newest.read_text())
    assert data["durations_ms"]["staleness"] > 0
    assert data["duration_ms"] > 0
    assert data["since_previous"]["findings_closed"]  # the applied findings
    assert run_id is not None, res.output
    res = await asyncio.to_thread(invoke, "undo", run_id.group(1))
    assert res.exit_code == 0, res.output
    assert "undid 1 actions" in res.output
    live = {r.lesson.id for r in await RemRepository(graph_db).lessons("p", now_ms())}
    assert "les_stale" in live
    assert len(await FindingRepository(graph_db).list_findings("p", status="open")) == 2
    # undone: the findings the run closed are open again, and the next report says none closed
    res = await asyncio.to_thread(invoke, "report", "--project", "p")
    assert res.exit_code == 0, res.output
    newest = sorted((tmp_path / "reports").glob("rem-p-*.json"))[-1]
    assert json.loads(newest.read_text())["since_previous"]["findings_closed"] == []


def test_worker_process_shuts_down_gracefully_on_sigterm(graph_settings, tmp_path):
    env = _env(graph_settings, tmp_path)
    env["REMGRAPH_CONSOLIDATE__WORKER_INTERVAL_S"] = "3600"
    code = (
        "import typer; from consolidate.cli import worker; "
        "app = typer.Typer(); app.command()(worker); app()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # blocks until the worker is up (bounded by the timeout)
        assert "worker started" in first
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert "worker stopped after 1 cycles" in out


async def test_cli_walks_findings_interactively(graph_db, graph_settings, tmp_path, monkeypatch):
    await _close_pair(graph_db)
    for k, v in _env(graph_settings, tmp_path).items():
        monkeypatch.setenv(k, v)
    runner = CliRunner()

    def invoke():
        # duplicates proposes a merge, staleness an archive: approve the first, reject the next
        return runner.invoke(
            rem_app,
            ["run", "--project", "p", "--job", "duplicates", "--job", "staleness", "--review"],
            input="approve\nr\n",
            catch_exceptions=False,
        )

    res = await asyncio.to_thread(invoke)
    assert res.exit_code == 0, res.output
    assert "[1/2]" in res.output
    assert "→ applied" in res.output
    assert "→ rejected" in res.output
    statuses = sorted(
        f.status for f in await FindingRepository(graph_db).list_findings("p", status=None)
    )
    assert statuses == ["applied", "rejected"]


async def test_link_and_create_lesson_actions(graph_db, rem_settings):
    from graph.cypher import Q
    from graph.models import Topic

    await put_lessons(
        graph_db,
        [
            Lesson(
                id="les_x",
                project="p",
                title="pin the falkordb version",
                embedding=vec(2, 1),
                valid_from=at(3),
                recorded_at=at(3),
            ),
            Lesson(
                id="les_y",
                project="p",
                title="pin the redis client",
                embedding=vec(2, 2),
                valid_from=at(3),
                recorded_at=at(3),
            ),
            Lesson(
                id="les_lonely",
                project="p",
                title="lonely",
                embedding=vec(2, 3, noise=0.6),
                valid_from=at(3),
                recorded_at=at(3),
            ),
        ],
    )
    from tests.integration.consolidate.seed import put_topics

    await put_topics(
        graph_db,
        [
            Topic(
                id="top_t",
                title="release pinning",
                projects=("p",),
                sessions=("a", "b", "c"),
                message_count=6,
                valid_from=at(3),
                recorded_at=at(3),
            )
        ],
    )
    await run_job("communities", db=graph_db, settings=rem_settings, now=NOW, project="p")
    await run_job("extraction", db=graph_db, settings=rem_settings, now=NOW, project="p")
    service = RemService(graph_db, rem_settings)
    found = {
        f["kind"]: f
        for f in await service.findings(project="p", status="open")
        if f["kind"] != "orphan" or f["target_ids"][0] == "les_lonely"
    }
    assert found["orphan"]["proposed_action"] == "link"
    assert found["theme_without_lesson"]["proposed_action"] == "create_lesson"
    for kind in ("orphan", "theme_without_lesson"):
        done = await service.review_finding(
            project="p", finding_id=found[kind]["id"], status="approve"
        )
        assert done["status"] == "applied"
    links = await graph_db.read(Q("community.project_links"), now=to_ms(NOW))
    pairs = {(r["source_id"], r["target_id"]) for r in links}
    assert ("les_lonely", found["orphan"]["target_ids"][1]) in pairs
    lessons = {r.lesson.title for r in await RemRepository(graph_db).lessons("p", to_ms(NOW))}
    assert "release pinning" in lessons


async def test_a_job_locked_by_a_live_run_is_said_and_exits_non_zero(
    graph_db, graph_settings, tmp_path, monkeypatch
):
    for k, v in _env(graph_settings, tmp_path).items():
        monkeypatch.setenv(k, v)
    holder = f"elsewhere/{os.getpid()}/run_live"  # another host's run: never judged gone
    assert await JobRepository(graph_db).acquire_lock(
        lock_id("p", "staleness"), holder, now_ms=now_ms(), ttl_ms=600_000
    )
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(rem_app, list(args), catch_exceptions=False)

    for args in (("job", "staleness", "-p", "p"), ("run", "-p", "p", "--job", "staleness")):
        res = await asyncio.to_thread(invoke, *args, "--out", str(tmp_path / "out"))
        assert res.exit_code == 1, res.output
        assert "not run: staleness (locked by another run" in res.output
