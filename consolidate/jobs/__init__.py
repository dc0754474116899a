"""The REM cycle's jobs, registered by name in `JOBS`.

Each job is an `async def run(ctx: JobContext) -> JobResult`: it reads what it needs, writes its
results, and returns counters and findings. `consolidate.runner.run_job` adds locking, run ids,
timing, error capture and state; jobs never know whether the CLI, worker, API or a test runs them.
"""

from __future__ import annotations

from consolidate.jobs import communities, duplicates, graduation, rollups, staleness
from consolidate.models import Job

JOBS: dict[str, Job] = {
    "communities": Job(
        "communities",
        "Leiden communities over topics, lessons, corrections, facts",
        communities.run,
    ),
    "duplicates": Job("duplicates", "Merge near-duplicate lessons and corrections", duplicates.run),
    "staleness": Job(
        "staleness", "Find unused and unrefined items; decay correction confidence", staleness.run
    ),
    "graduation": Job(
        "graduation", "Promote corrections to patterns, preferences and rules", graduation.run
    ),
    "rollups": Job("rollups", "Daily, weekly and monthly primers within size budgets", rollups.run),
}
"""Every job by name, in the order a full cycle runs them."""

__all__ = ["JOBS", "Job"]
