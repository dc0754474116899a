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
from collections.abc import Sequence

import numpy as np

from ai.embed import Embedder, Vectors, WrappingEmbedder
from core.ids import make_id
from core.timeutil import now_ms
from graph.db import GraphDB
from graph.repositories.backlog import BacklogItem, BacklogRepository
from ingest.config import IngestSettings
from ingest.extract.apply import VECTOR_STEPS, KnowledgeWriter, vector_texts
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
    if result.topics or result.corrections or result.lessons or result.facts:
        # Facts stay in the payload for their statement vectors (`fact_vectors`).
        rest = result.model_copy(update={"enrichment": SessionEnrichment()})
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


class _Prefetched(WrappingEmbedder):
    """An embedder answering from vectors computed in one large pass per page of items.

    The writer embeds a few texts per session; embedding a page's texts together first keeps
    the model in large batches. Texts not prefetched go to the inner embedder.
    """

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.cache: dict[str, np.ndarray] = {}

    async def fill(self, texts: list[str]) -> None:
        self.cache = {}
        todo = list(dict.fromkeys(texts))
        if todo:
            self.cache = dict(zip(todo, await self.inner.embed(todo), strict=True))

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if all(t in self.cache for t in texts):
            return np.array([self.cache[t] for t in texts], dtype=np.float32).reshape(
                len(texts), self.dimensions
            )
        return await self.inner.embed(texts)


async def apply_deferred(
    db: GraphDB, settings: IngestSettings, embedder: Embedder, *, page: int = 64
) -> tuple[int, ExtractionReport]:
    """Apply every queued extraction in order, then due topic weights and snapshots.

    Returns how many queued extractions were applied and what they changed. Call it under the
    backlog lock (`ingest.backlog.drain_backlog` does).
    """
    repo = BacklogRepository(db)
    prefetched = _Prefetched(embedder)
    writer = KnowledgeWriter(
        db,
        prefetched,
        settings.extract,
        topic_rules=settings.topics,
        correction_rules=settings.corrections,
    )
    out = ExtractionReport()
    applied = 0
    while items := await repo.list(EXTRACT, limit=page):
        results = [ExtractionResult.model_validate_json(i.payload) for i in items]
        await prefetched.fill([t for r in results for t in vector_texts(r)])
        for item, result in zip(items, results, strict=True):
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
