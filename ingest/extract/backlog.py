"""Extraction's share of the embedding backlog: queue a session's extraction, run it in the drain.

At ingest, the extraction hook only queues a `Backlog` item per session (the ids of the turns
to extract), together with the project's due topic weights and snapshot, so `ingest` writes
turns at writer speed. `apply_deferred` (run by the backlog drain, after the turns' vectors)
extracts the queued sessions in the order they were queued, a page at a time (the page's topic,
correction, lesson and fact texts are embedded in one pass), applies each result, and removes
its item. Item ids are deterministic, an item is removed only after it is applied, and every
apply step is idempotent, so a crash at any point followed by a re-run ends where one clean run
ends.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence

import numpy as np

from ai.embed import Embedder, Vectors, WrappingEmbedder
from ai.llm import LLMError
from core.ids import make_id
from core.timeutil import OPEN, from_ms, now_ms
from graph.db import GraphDB
from graph.errors import GraphUnavailableError, NotFoundError
from graph.models import Turn
from graph.repositories.backlog import BacklogItem, BacklogRepository
from graph.repositories.sessions import SessionRepository
from graph.repositories.turns import TurnRepository
from ingest.config import IngestSettings
from ingest.extract.apply import KnowledgeWriter, vector_texts
from ingest.extract.base import Extractor
from ingest.extract.models import ExtractionReport, ExtractionResult, SessionInput, TurnInput
from ingest.extract.offline import OfflineExtractor

__all__ = [
    "EXTRACT",
    "apply_deferred",
    "extract_or_fall_back",
    "queue_extraction",
    "stored_session_input",
]

log = logging.getLogger(__name__)

EXTRACT = "extract"
TOPIC_WEIGHTS = "topic_weights"
SNAPSHOT = "snapshot"

_seq = itertools.count()


def _order_key() -> str:
    """Queue order: wall-clock milliseconds, then a counter within this process.

    A re-run after a crash queues after everything the killed run queued, and ingest visits
    sessions in the same order in both, so the queue order equals one clean run's.
    """
    return f"{now_ms():015d}|{next(_seq):09d}"


async def queue_extraction(
    db: GraphDB, project: str, session_id: str, turn_ids: Sequence[str]
) -> None:
    """Queue the extraction of `turn_ids` of a session, and the project's weights and snapshot.

    The item's id comes from the session and its turn ids, so a re-run that queues the same
    turns again (killed before the session's watermark was written) rewrites the same item.
    """
    ids = sorted(turn_ids)
    await BacklogRepository(db).put(
        [
            BacklogItem(
                id=make_id("backlog", EXTRACT, session_id, ",".join(ids)),
                kind=EXTRACT,
                order_key=_order_key(),
                project=project,
                session_id=session_id,
                payload=json.dumps({"turn_ids": ids}),
                turns=len(ids),
            ),
            BacklogItem(id=make_id("backlog", TOPIC_WEIGHTS), kind=TOPIC_WEIGHTS, order_key=""),
            BacklogItem(
                id=make_id("backlog", SNAPSHOT, project),
                kind=SNAPSHOT,
                order_key=project,
                project=project,
            ),
        ]
    )


_OPEN_VIEW = from_ms(OPEN - 1)
"""An `as_of` that sees every open node whatever its `valid_from` (a transcript dated ahead of
this machine's clock is extracted like any other)."""


async def stored_session_input(
    db: GraphDB, session_id: str, turn_ids: Sequence[str] | None = None
) -> SessionInput:
    """The extractor's input for a stored session: its open turns (only `turn_ids` if given).

    Raises:
        NotFoundError: no such open session.
    """
    session = await SessionRepository(db).get(session_id, as_of=_OPEN_VIEW)
    repo = TurnRepository(db)
    turns: list[Turn] = []
    if turn_ids is not None:
        found = await repo.get_many(list(turn_ids), as_of=_OPEN_VIEW)
        turns = sorted((t for t in found if t is not None), key=lambda t: t.ordinal)
    else:
        after = -1
        while page := await repo.list(session_id, after=after, limit=500, as_of=_OPEN_VIEW):
            turns.extend(page)
            after = page[-1].ordinal
    return SessionInput(
        id=session.id,
        project=session.project,
        title=session.title,
        source=session.source,
        turns=tuple(
            TurnInput(
                id=t.id,
                ordinal=t.ordinal,
                role=t.role,
                text=t.text,
                timestamp=t.valid_from,
                speaker=t.speaker,
                tool_name=t.tool_name,
                tool_ok=t.tool_ok,
            )
            for t in turns
        ),
    )


async def extract_or_fall_back(
    extractor: Extractor, session: SessionInput, *, max_topics: int
) -> tuple[ExtractionResult, str]:
    """Extract `session`; an LLM that fails falls back to the offline rules (with a note).

    The offline rules run in a worker thread, so a drain inside `serve` does not hold the event
    loop for the length of a long session.
    """
    try:
        if isinstance(extractor, OfflineExtractor):
            return await asyncio.to_thread(extractor.extract_sync, session), ""
        return await extractor.extract(session), ""
    except LLMError as e:
        # An unreachable or unusable LLM must not lose the session's knowledge: fall back to
        # the offline extractor and say so in the report.
        log.warning("LLM extraction failed for %s, using offline rules: %s", session.id, e)
        offline = OfflineExtractor(max_topics=max_topics)
        note = f"{session.project}/{session.id}: LLM failed ({e}); used offline rules"
        return await asyncio.to_thread(offline.extract_sync, session), note


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


async def _extract_item(
    db: GraphDB, item: BacklogItem, extractor: Extractor, max_topics: int, out: ExtractionReport
) -> tuple[ExtractionResult, ExtractionReport] | None:
    """Extract one queued session; None (with a failure line) when it cannot be extracted."""
    t0 = time.perf_counter()
    try:
        turn_ids = json.loads(item.payload)["turn_ids"]
        session = await stored_session_input(db, item.session_id, turn_ids)
    except NotFoundError:
        return None  # the session was closed since (its file edited): nothing left to extract
    except (ValueError, KeyError, TypeError) as e:
        out.failures.append(f"backlog item {item.id}: unreadable payload: {e}")
        return None
    if not session.turns:
        return None
    try:
        result, note = await extract_or_fall_back(extractor, session, max_topics=max_topics)
    except GraphUnavailableError:
        raise
    except Exception as e:  # one session's extractor bug must not stop the drain for ever
        log.exception("extraction failed for %s", item.session_id)
        out.failures.append(f"{item.project}/{item.session_id}: {type(e).__name__}: {e}")
        return None
    rep = ExtractionReport(turns=len(session.turns), seconds=time.perf_counter() - t0)
    if note:
        rep.fallbacks.append(note)
    return result, rep


async def apply_deferred(
    db: GraphDB,
    settings: IngestSettings,
    embedder: Embedder,
    extractor: Extractor,
    *,
    page: int = 64,
    until_idle: Callable[[], Awaitable[None]] | None = None,
    heartbeat: Callable[[], Awaitable[None]] | None = None,
) -> tuple[int, ExtractionReport]:
    """Extract and apply every queued session in order, then due topic weights and snapshots.

    Returns how many queued extractions were processed and what they changed (a session that
    cannot be extracted is reported in `failures` and dropped from the queue; `remgraph
    extract --session` re-runs it). Call it under the backlog lock (`ingest.backlog.drain_backlog`
    does). `until_idle` is awaited before each session's extraction (`serve`: no request in
    flight); `heartbeat` after each (the drain renews its lock).
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
    max_topics = settings.extract.max_topics_per_session
    applied = 0
    while items := await repo.list(EXTRACT, limit=page):
        done = []
        for i in items:
            if until_idle is not None:
                await until_idle()
            done.append(await _extract_item(db, i, extractor, max_topics, out))
            if heartbeat is not None:
                await heartbeat()
        await prefetched.fill([t for d in done if d is not None for t in vector_texts(d[0])])
        for item, d in zip(items, done, strict=True):
            if d is not None:
                result, rep = d
                t0 = time.perf_counter()
                rep.merge(await writer.apply(result))
                rep.seconds += time.perf_counter() - t0
                rep.issues += [f"{item.project}/{item.session_id}: {i}" for i in result.issues]
                out.merge(rep)
            await repo.delete([item.id])
            applied += 1
            if heartbeat is not None:
                await heartbeat()
    if applied:
        out.extractor = extractor.name
    if due := await repo.list(TOPIC_WEIGHTS, limit=10):
        await writer.recompute_topic_weights()
        await repo.delete([i.id for i in due])
    while due := await repo.list(SNAPSHOT, limit=page):
        for item in due:
            if await writer.snapshot(item.project) is not None:
                out.snapshots += 1
            await repo.delete([item.id])
    return applied, out
