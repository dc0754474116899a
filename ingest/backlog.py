"""The backlog: turns written without vectors get them here, then their queued extraction.

One implementation, run inside `remgraph ingest` after the writes (unless
`--no-wait-embeddings`), by `remgraph worker`, and by `serve` when idle. It is single-flight
across processes through the graph's job lock (`JobLock` id `embed_backlog`, with expiry, renewed
per batch). Each pass reads a page of pending turns, embeds it in large batches (the next batch is
embedded while the previous one's vectors are written), and stops when none is left; then it
runs the queued session extractions in queue order (`ingest.extract.backlog`). Every write is
idempotent, so a crash anywhere is repaired by the next drain.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ai.embed import Embedder, Vectors
from core.process import owner_is_gone, process_owner
from core.timeutil import now_ms
from graph.db import GraphDB
from graph.repositories import TurnRepository
from graph.repositories.backlog import BacklogRepository
from graph.repositories.jobs import JobRepository
from ingest.config import IngestSettings
from ingest.extract.backlog import apply_deferred
from ingest.extract.base import Extractor
from ingest.extract.models import ExtractionReport
from ingest.extract.service import make_extractor

__all__ = ["LOCK_ID", "BacklogReport", "backlog_status", "drain_backlog"]

log = logging.getLogger("remgraph.ingest.backlog")

LOCK_ID = "embed_backlog"
_TTL_MS = 60_000
"""The lock expires this long after its last renewal (a killed drain frees it by then)."""


class _Bar(Protocol):
    def backlog_total(self, n: int) -> None: ...
    def backlog_done(self, n: int) -> None: ...


@dataclass
class BacklogReport:
    """What one drain did."""

    turns_embedded: int = 0
    extractions: int = 0
    """Queued session extractions run and applied."""
    knowledge: ExtractionReport = field(default_factory=ExtractionReport)
    """What they (and the due topic weights and snapshots) changed."""
    extract_seconds: float = 0.0
    """Wall time of the extraction part (after the vectors)."""
    embed_seconds: float = 0.0
    seconds: float = 0.0
    ran: bool = True
    """False when another process held the lock and `wait` was False."""
    failures: list[str] = field(default_factory=list)


def lower_priority(nice: int) -> None:
    """Raise every thread of this process to at least niceness `nice` (idempotent).

    Linux keeps niceness per thread and the model's worker threads may exist already, so each
    is reniced; background embedding then gives way to a server on the same machine.
    """
    if nice <= 0:
        return
    try:
        tids = [int(t.name) for t in Path("/proc/self/task").iterdir()]
    except OSError:
        tids = [0]
    for tid in tids:
        try:
            cur = os.getpriority(os.PRIO_PROCESS, tid)
            if cur < nice:
                os.setpriority(os.PRIO_PROCESS, tid, min(19, nice))
        except OSError:
            continue
    # With autogroup scheduling (Linux's default on desktops and these VMs) niceness only weighs
    # threads within their session's group, and each session's group gets an equal share: a
    # niced drain in a session of its own took as much CPU as before (measured by
    # `bench/bench_load.py`). The group's own niceness is what counts; it is this process's to
    # lower only when it leads its session (a service, a `setsid` child), never a shell's.
    if os.getsid(0) == os.getpid():
        with contextlib.suppress(OSError):
            Path("/proc/self/autogroup").write_text(f"{min(19, nice)}\n")


async def backlog_status(db: GraphDB) -> dict[str, int]:
    """`{"turns": pending turns, "extract": queued extractions, ...}` (zeros included)."""
    return await BacklogRepository(db).status()


async def drain_backlog(
    db: GraphDB,
    settings: IngestSettings,
    embedder: Embedder,
    *,
    progress: _Bar | None = None,
    wait: bool = True,
    pause_s: float | None = None,
    until_idle: Callable[[], Awaitable[None]] | None = None,
    renice: bool = False,
    extractor: Extractor | None = None,
) -> BacklogReport:
    """Embed every pending turn, then run the queued extractions.

    Args:
        db: the graph.
        settings: `ingest.backlog_batch`, `ingest.backlog_pause_s`, extraction rules.
        embedder: the turn embedder (the same model as queries use).
        progress: optional bar (`backlog_total`, `backlog_done`).
        wait: when another process holds the lock, wait for it to finish and then drain what is
            left; False returns at once (the holder drains what this caller wrote).
        pause_s: sleep between batches (default `ingest.backlog_pause_s`).
        until_idle: awaited before each batch and each session's extraction (serve passes "no
            request in flight", so the drain gives way to `context`).
        renice: lower this whole process's priority by `ingest.backlog_nice` first (the CLI's
            `ingest` and `worker`, whose remaining work is background work; never `serve`).
        extractor: runs the queued extractions (default: `make_extractor(settings)`, offline
            or the configured LLM).
    """
    t0 = time.perf_counter()
    rep = BacklogReport()
    if not any((await backlog_status(db)).values()):
        return rep  # nothing pending: no lock write (a `--watch` poll comes here every second)
    jobs = JobRepository(db)
    owner = process_owner(f"backlog-{uuid.uuid4().hex[:8]}")
    while True:
        got, holder = await jobs.try_lock(LOCK_ID, owner, now_ms=now_ms(), ttl_ms=_TTL_MS)
        if got:
            break
        if owner_is_gone(holder):  # a killed drain on this machine: no need to wait for expiry
            await jobs.drop_lock(LOCK_ID, holder)
            continue
        if not wait:
            rep.ran = False
            return rep
        await asyncio.sleep(0.5)
    if renice:
        lower_priority(settings.ingest.backlog_nice)
    try:
        pause = settings.ingest.backlog_pause_s if pause_s is None else pause_s
        await _embed_turns(db, settings, embedder, rep, progress, pause, until_idle, jobs, owner)
        renewed = [time.monotonic()]

        async def heartbeat() -> None:  # extraction can outlast the lock's expiry: renew it
            if time.monotonic() - renewed[0] > _TTL_MS / 4000:
                await jobs.acquire_lock(LOCK_ID, owner, now_ms=now_ms(), ttl_ms=_TTL_MS)
                renewed[0] = time.monotonic()

        x0 = time.perf_counter()
        rep.extractions, rep.knowledge = await apply_deferred(
            db,
            settings,
            embedder,
            extractor or make_extractor(settings, embedder=embedder),
            until_idle=until_idle,
            heartbeat=heartbeat,
        )
        rep.extract_seconds = time.perf_counter() - x0
        rep.failures.extend(rep.knowledge.failures)
    finally:
        await jobs.drop_lock(LOCK_ID, owner)
    rep.seconds = time.perf_counter() - t0
    return rep


async def _embed_turns(
    db: GraphDB,
    settings: IngestSettings,
    embedder: Embedder,
    rep: BacklogReport,
    progress: _Bar | None,
    pause: float,
    until_idle: Callable[[], Awaitable[None]] | None,
    jobs: JobRepository,
    owner: str,
) -> None:
    """Pages of pending turns; within a page, batch i+1 is embedded while batch i is written."""
    repo = BacklogRepository(db)
    turns = TurnRepository(db)
    size = settings.ingest.backlog_batch
    if progress is not None:
        progress.backlog_total(await repo.pending_turn_count())
    while page := await repo.pending_turns(limit=4 * size):
        writing: asyncio.Task[None] | None = None
        for i in range(0, len(page), size):
            batch = page[i : i + size]
            if until_idle is not None:
                await until_idle()
            e0 = time.perf_counter()
            vecs = await embedder.embed([text for _, text in batch])
            rep.embed_seconds += time.perf_counter() - e0
            if writing is not None:
                await writing
            writing = asyncio.create_task(_write(turns, batch, vecs, rep, progress))
            if pause:
                await asyncio.sleep(pause)
        if writing is not None:
            await writing
        await jobs.acquire_lock(LOCK_ID, owner, now_ms=now_ms(), ttl_ms=_TTL_MS)  # renew


async def _write(
    turns: TurnRepository,
    batch: list[tuple[str, str]],
    vecs: Vectors,
    rep: BacklogReport,
    progress: _Bar | None,
) -> None:
    await turns.set_embeddings(zip((i for i, _ in batch), vecs, strict=True))
    rep.turns_embedded += len(batch)
    if progress is not None:
        progress.backlog_done(len(batch))
