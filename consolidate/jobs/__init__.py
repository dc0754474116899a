"""The REM cycle's jobs, registered by name in `JOBS`.

Each job is an `async def run(ctx: JobContext) -> JobResult`: it reads what it needs, writes its
results, and returns counters and findings. `consolidate.runner.run_job` adds locking, run ids,
timing, error capture and state; jobs never know whether the CLI, worker, API or a test runs them.
The registry order is the order a full cycle runs them: clean up first (duplicates, staleness,
graduation), then recompute (weights, extraction, communities), then summarise (rollups,
topic summaries, reference layers).
"""

from __future__ import annotations

from consolidate.jobs import (
    communities,
    duplicates,
    extraction,
    graduation,
    reference_layers,
    rollups,
    staleness,
    topic_summaries,
    topic_weights,
)
from consolidate.models import Job

JOBS: dict[str, Job] = {
    j.name: j
    for j in (
        Job("duplicates", "Merge near-duplicate lessons and corrections", duplicates.run),
        Job("staleness", "Find unused and unrefined items; decay corrections", staleness.run),
        Job("graduation", "Promote corrections to patterns, preferences, rules", graduation.run),
        Job("topic_weights", "Recompute topic weights, phases, co-occurrence", topic_weights.run),
        Job("extraction", "Themes, pending todos and decisions that need lessons", extraction.run),
        Job("communities", "Leiden communities over the knowledge graph", communities.run),
        Job("rollups", "Daily, weekly and monthly primers within budgets", rollups.run),
        Job("topic_summaries", "Topic summaries with key takeaways", topic_summaries.run),
        Job("reference_layers", "Reference documents for high-weight topics", reference_layers.run),
    )
}
"""Every job by name, in the order a full cycle runs them."""

__all__ = ["JOBS", "Job"]
