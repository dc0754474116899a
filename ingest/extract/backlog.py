"""Extraction's share of the embedding backlog: queue the vector-dependent steps, apply them later.

At ingest, an extraction applies what needs no similarity search (facts, session enrichment) and
queues the rest of its result (topics, corrections, lessons) as a `Backlog` item, together with the
project's due snapshot and topic weights. `apply_deferred` (run by the backlog drain, after the
turns' vectors) applies the items in the order they were queued. Item ids are deterministic and
an item is removed only after it is applied, and every apply step is idempotent, so a crash at any
point followed by a re-run ends where one clean run ends.
"""

from __future__ import annotations

import itertools

from ai.embed import Embedder
from core.ids import make_id
from core.timeutil import now_ms
from graph.db import GraphDB
from graph.repositories.backlog import BacklogItem, BacklogRepository
from ingest.config import IngestSettings
from ingest.extract.apply import VECTOR_STEPS, KnowledgeWriter
from ingest.extract.models import (
    ExtractionReport,
    ExtractionResult,
    SessionEnrichment,
    SessionInput,
)

__all__ = ["apply_deferred", "queue_deferred"]

EXTRACT = "extract"
TOPIC_WEIGHTS = "topic_weights"
SNAPSHOT = "snapshot"

_seq = itertools.count()


def _order_key() -> str:
    """Queue order: wall-clock milliseconds, then a counter within this process.

    A re-run after a crash queues after everything the killed run queued, and extraction runs
    sessions in the same order in both, so the queue order equals one clean run's.
    """
    return f"{now_ms():015d}|{next(_seq):09d}"


async def queue_deferred(db: GraphDB, result: ExtractionResult, session: SessionInput) -> None:
    """Queue `result`'s vector-dependent part, and the project's topic weights and snapshot."""
    first = min((t.ordinal for t in session.turns), default=0)
    items = [
        BacklogItem(id=make_id("backlog", TOPIC_WEIGHTS), kind=TOPIC_WEIGHTS, order_key=""),
        BacklogItem(
            id=make_id("backlog", SNAPSHOT, result.project),
            kind=SNAPSHOT,
            order_key=result.project,
            project=result.project,
        ),
    ]
    if result.topics or result.corrections or result.lessons:
        rest = result.model_copy(update={"facts": (), "enrichment": SessionEnrichment()})
        items.insert(
            0,
            BacklogItem(
                id=make_id("backlog", EXTRACT, result.session_id, first),
                kind=EXTRACT,
                order_key=_order_key(),
                project=result.project,
                session_id=result.session_id,
                payload=rest.model_dump_json(),
            ),
        )
    await BacklogRepository(db).put(items)


async def apply_deferred(
    db: GraphDB, settings: IngestSettings, embedder: Embedder, *, page: int = 64
) -> tuple[int, ExtractionReport]:
    """Apply every queued extraction in order, then due topic weights and snapshots.

    Returns how many queued extractions were applied and what they changed. Call it under the
    backlog lock (`ingest.backlog.drain_backlog` does).
    """
    repo = BacklogRepository(db)
    writer = KnowledgeWriter(
        db,
        embedder,
        settings.extract,
        topic_rules=settings.topics,
        correction_rules=settings.corrections,
    )
    out = ExtractionReport()
    applied = 0
    while items := await repo.list(EXTRACT, limit=page):
        for item in items:
            result = ExtractionResult.model_validate_json(item.payload)
            out.merge(await writer.apply(result, steps=VECTOR_STEPS))
            await repo.delete([item.id])
            applied += 1
    if due := await repo.list(TOPIC_WEIGHTS, limit=10):
        await writer.recompute_topic_weights()
        await repo.delete([i.id for i in due])
    while due := await repo.list(SNAPSHOT, limit=page):
        for item in due:
            if await writer.snapshot(item.project) is not None:
                out.snapshots += 1
            await repo.delete([item.id])
    return applied, out
