"""The background recorder of `context` requests: batches, shutdown flush, failures, overflow."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import httpx

from api.app import create_app
from api.recorder import ContextQueryRecorder
from core.timeutil import now_ms
from graph.db import GraphDB
from graph.engines.falkordb import FalkorDBGraph
from graph.explore import browser_queries
from graph.repositories.context_queries import (
    ContextItemRef,
    ContextQueryRecord,
    ContextQueryRepository,
)
from tests.engines import run_text
from tests.integration.api.conftest import gql
from tests.integration.api.test_graphql import CONTEXT


async def _guide(db: GraphDB, query_text: str) -> list[dict[str, Any]]:
    """The Browser guide `context_for_query`, run as Neo4j Browser would run it (text as is)."""
    [guide] = [q for q in browser_queries() if q.name == "context_for_query"]
    return await run_text(db, guide.text, {"query_text": query_text})


def _records(n: int, project: str = "alpha", prefix: str = "q") -> list[ContextQueryRecord]:
    at = now_ms()
    return [
        ContextQueryRecord(
            project=project,
            query=f"{prefix} {i}",
            items=(ContextItemRef(f"trn_{project}_0", "turn", 1, 0.5),),
            at_ms=at + i,
            request_id=f"r{i}",
        )
        for i in range(n)
    ]


def _dead_graph(tmp_path) -> FalkorDBGraph:
    """A real adapter whose engine is not there: every write fails like an outage does."""
    return FalkorDBGraph(graph_name="gone", unix_socket=str(tmp_path / "no-engine.sock"))


async def test_a_context_request_is_recorded_with_got_edges_after_flush(
    app, client, keys, graph_db
):
    r = await gql(client, CONTEXT, keys["alpha"], q="support group", p="alpha", budget=500, limit=3)
    returned = [i["id"] for i in r.json()["data"]["context"]["items"]]
    assert returned
    recorder: ContextQueryRecorder = app.state.resources.recorder
    await recorder.flush()
    assert recorder.stats.written == 1
    assert recorder.stats.pending == 0
    rows = await _guide(graph_db, "support group")
    got = sorted((r["g"].properties["rank"], r["item"].properties["id"]) for r in rows)
    assert [item for _, item in got] == returned  # one GOT edge per returned item, in rank order
    assert {r["q"].properties["project"] for r in rows} == {"alpha"}


async def test_requests_never_wait_for_the_write(app, client, keys):
    """The request only queues its record; the write happens in the flusher."""
    recorder: ContextQueryRecorder = app.state.resources.recorder
    for q in ("support group", "adoption agency"):
        r = await gql(client, CONTEXT, keys["alpha"], q=q, p="alpha", budget=500, limit=3)
        assert r.json()["data"]["context"]["__typename"] == "ContextPayload"
    stats = recorder.stats
    assert stats.pending + stats.written == 2
    await recorder.flush()
    assert recorder.stats.written == 2


async def test_shutdown_writes_pending_records(graph_db):
    repo = ContextQueryRepository(graph_db)
    recorder = ContextQueryRecorder(repo, interval_s=3600)  # only a full batch or stop() flushes
    recorder.start()
    for rec in _records(3, prefix="pending"):
        assert recorder.submit(rec)
    assert recorder.stats.pending == 3
    await recorder.stop()
    assert recorder.stats.pending == 0
    assert sorted(q.query for q in await repo.recent("alpha")) == [
        "pending 0",
        "pending 1",
        "pending 2",
    ]


async def test_app_shutdown_writes_what_requests_queued(
    api_settings, make_services, seeded, keys, graph_db
):
    app = create_app(api_settings, make_services())
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            r = await gql(c, CONTEXT, keys["beta"], q="support group", p="beta", limit=3)
            assert r.json()["data"]["context"]["__typename"] == "ContextPayload"
    recent = await ContextQueryRepository(graph_db).recent("beta")
    assert [q.query for q in recent] == ["support group"]


async def test_a_failed_flush_is_logged_and_counted_and_requests_keep_working(
    app, client, keys, graph_db, tmp_path, caplog
):
    resources = app.state.resources
    dead = _dead_graph(tmp_path)
    broken = ContextQueryRecorder(ContextQueryRepository(dead), interval_s=3600)
    resources.recorder, healthy = broken, resources.recorder
    broken.start()
    try:
        with caplog.at_level(logging.WARNING, logger="remgraph.api"):
            for _ in range(2):
                r = await gql(client, CONTEXT, keys["alpha"], q="support group", p="alpha", limit=3)
                assert r.status_code == 200
                assert r.json()["data"]["context"]["__typename"] == "ContextPayload"
            assert await broken.flush() == 0
        assert broken.stats.failed == 2
        assert broken.stats.pending == 0
        assert broken.running  # the flusher lives on
        warnings = [r.getMessage() for r in caplog.records if "could not record" in r.getMessage()]
        assert len(warnings) == 1
        assert "support group" not in warnings[0]  # no query text in the log
        assert keys["alpha"] not in warnings[0]
        # Still serving; once the engine answers again, records land.
        resources.recorder = healthy
        r = await gql(client, CONTEXT, keys["alpha"], q="support group", p="alpha", limit=3)
        assert r.json()["data"]["context"]["__typename"] == "ContextPayload"
        await healthy.flush()
        assert len(await ContextQueryRepository(graph_db).recent("alpha")) == 1
    finally:
        await broken.stop()
        await dead.close()


async def test_a_full_queue_drops_and_counts_without_blocking(graph_db, caplog):
    repo = ContextQueryRepository(graph_db)
    recorder = ContextQueryRecorder(repo, capacity=2)
    with caplog.at_level(logging.WARNING, logger="remgraph.api"):
        accepted = [recorder.submit(rec) for rec in _records(5, prefix="burst")]
    assert accepted == [True, True, False, False, False]
    assert recorder.stats.dropped == 3
    full = [r for r in caplog.records if "recorder is full" in r.getMessage()]
    assert len(full) == 1  # one warning, not one per dropped record
    assert "dropped 1 record" in full[0].getMessage()
    assert await recorder.flush() == 2
    assert sorted(q.query for q in await repo.recent("alpha")) == ["burst 0", "burst 1"]
    assert recorder.submit(_records(1, prefix="after")[0])  # room again after the flush


async def test_a_flush_writes_large_backlogs_in_batches(graph_db):
    repo = ContextQueryRepository(graph_db)
    recorder = ContextQueryRecorder(repo, batch_size=200)
    for rec in _records(450, prefix="bulk"):
        recorder.submit(rec)
    assert await recorder.flush() == 450
    assert recorder.stats.written == 450
    assert len(await repo.recent("alpha", limit=1000)) == 450


async def test_the_recorder_takes_its_limits_from_the_api_settings(api_settings, make_services):
    tuned = api_settings.model_copy(
        update={
            "api": api_settings.api.model_copy(
                update={"record_interval_s": 0.05, "record_batch_size": 7, "record_queue": 9}
            )
        }
    )
    app = create_app(tuned, make_services())
    async with app.router.lifespan_context(app):
        recorder = app.state.resources.recorder
        assert (recorder.interval_s, recorder.batch_size, recorder.capacity) == (0.05, 7, 9)


class _GatedRepo(ContextQueryRepository):
    """The real repository, whose writes wait at a gate: a write held in flight on purpose."""

    def __init__(self, db: GraphDB) -> None:
        super().__init__(db)
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()

    async def record_many(self, records: Sequence[ContextQueryRecord]) -> list[str]:
        self.entered.set()
        await self.gate.wait()
        return await super().record_many(records)


async def test_a_batch_being_written_still_counts_as_pending(graph_db):
    """A record is pending from `submit` until its write returns; it never drops out of sight."""
    repo = _GatedRepo(graph_db)
    recorder = ContextQueryRecorder(repo, interval_s=3600)
    for rec in _records(2, prefix="inflight"):
        recorder.submit(rec)
    flushing = asyncio.create_task(recorder.flush())
    await asyncio.wait_for(repo.entered.wait(), 5)
    recorder.submit(_records(1, prefix="later")[0])
    assert recorder.stats.pending == 3  # two being written, one still queued
    assert recorder.stats.written == 0
    repo.gate.set()
    assert await flushing == 3
    assert (recorder.stats.pending, recorder.stats.written) == (0, 3)


async def test_one_bad_record_loses_only_itself_and_a_nul_byte_is_kept_out(graph_db, caplog):
    # one tenant's request with a NUL byte shares a batch with another tenant's five
    repo = ContextQueryRepository(graph_db)
    recorder = ContextQueryRecorder(repo, interval_s=3600)
    good = _records(5, project="alpha", prefix="fine")
    bad = _records(1, project="beta", prefix="nul\x00byte")
    for rec in [*good[:2], *bad, *good[2:]]:
        assert recorder.submit(rec)
    assert await recorder.flush() == 6
    assert sorted(q.query for q in await repo.recent("alpha")) == [f"fine {i}" for i in range(5)]
    [stored] = await repo.recent("beta")
    assert "\x00" not in stored.query
    assert stored.query.startswith("nul")


async def test_a_batch_that_fails_is_written_record_by_record(graph_db, caplog):
    # a principal that cannot be encoded (a lone surrogate) fails its write on either engine
    repo = ContextQueryRepository(graph_db)
    recorder = ContextQueryRecorder(repo, interval_s=3600)
    records = _records(4, prefix="each")
    unencodable = ContextQueryRecord(
        project="alpha",
        query="unencodable",
        items=(ContextItemRef("trn_alpha_0", "turn", 1, 0.5),),
        at_ms=now_ms(),
        principal="key-\ud800",
        request_id="bad",
    )
    for rec in [*records[:2], unencodable, *records[2:]]:
        recorder.submit(rec)
    with caplog.at_level(logging.WARNING, logger="remgraph.api"):
        assert await recorder.flush() == 4
    assert recorder.stats.failed == 1
    assert sorted(q.query for q in await repo.recent("alpha", limit=10)) == [
        f"each {i}" for i in range(4)
    ]
    assert any("requests bad" in r.getMessage() for r in caplog.records)
