"""`remgraph worker`: a loop that runs due REM jobs; no job logic lives here.

Every `worker_interval_s` (plus random jitter, so several workers do not align) it asks
`consolidate.runner.due_jobs` what is due for each configured scope and runs those jobs one at a
time through `run_job`, whose graph lock keeps two workers from running the same job. SIGTERM and
SIGINT set a stop event: the job in progress finishes, then the loop exits cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from consolidate.config import ConsolidateSettings
from consolidate.models import JobReport
from consolidate.runner import due_jobs, finish_cycle, run_job
from graph.db import GraphDB
from graph.models import utc_now

log = logging.getLogger("remgraph.consolidate.worker")


@dataclass
class WorkerStats:
    """What a worker did before it stopped."""

    cycles: int = 0
    runs: list[JobReport] = field(default_factory=list)


def install_signal_handlers(stop: asyncio.Event) -> None:
    """Set `stop` on SIGTERM and SIGINT (graceful shutdown)."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # non-main thread, Windows
            loop.add_signal_handler(sig, stop.set)


async def run_worker(
    db: GraphDB,
    settings: ConsolidateSettings,
    *,
    stop: asyncio.Event | None = None,
    max_cycles: int | None = None,
    rng: random.Random | None = None,
    before_cycle: Callable[[], Awaitable[None]] | None = None,
) -> WorkerStats:
    """Run due jobs every interval until `stop` is set or `max_cycles` cycles have run.

    Args:
        db: the graph.
        settings: settings (`consolidate.projects`, interval and jitter).
        stop: set it to stop after the current job (the CLI wires SIGTERM/SIGINT to it).
        max_cycles: stop after this many cycles (tests, `--once`).
        rng: jitter source (tests pass a seeded one).
        before_cycle: awaited at the start of every cycle (the composition root drains the
            embedding backlog here); its errors are logged and the cycle goes on.
    """
    cfg = settings.consolidate
    stop = stop or asyncio.Event()
    rng = rng or random.Random()
    stats = WorkerStats()
    log.info(
        "worker started: scopes %s, every %.0fs ± %.0fs",
        cfg.projects,
        cfg.worker_interval_s,
        cfg.worker_jitter_s,
    )
    while not stop.is_set():
        if before_cycle is not None:
            try:
                await before_cycle()
            except Exception:  # the engine may be briefly away: log, retry next cycle
                log.exception("the worker's cycle hook failed")
        for project in cfg.projects:
            started = utc_now()
            ran: list[JobReport] = []
            try:
                names = await due_jobs(db=db, settings=settings, project=project)
            except Exception:  # the engine may be briefly away: log, retry next cycle
                log.exception("could not read the schedule for %s", project)
                names = []
            for name in names:
                if stop.is_set():
                    break
                try:
                    report = await run_job(name, db=db, settings=settings, project=project)
                except Exception:  # bookkeeping failed (engine away): the next cycle retries
                    log.exception("could not run %s for %s", name, project)
                    continue
                stats.runs.append(report)
                ran.append(report)
                log.info("worker ran %s (%s): %s", name, project, report.status)
            if ran:
                try:
                    await finish_cycle(
                        db=db, settings=settings, project=project, started=started, reports=ran
                    )
                except Exception:  # a report that cannot be written never stops the worker
                    log.exception("could not write the cycle report for %s", project)
        stats.cycles += 1
        if max_cycles is not None and stats.cycles >= max_cycles:
            break
        delay = cfg.worker_interval_s + rng.uniform(0, cfg.worker_jitter_s)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=delay)
    log.info("worker stopped after %d cycles, %d runs", stats.cycles, len(stats.runs))
    return stats
