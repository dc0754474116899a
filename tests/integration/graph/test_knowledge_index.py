"""The in-process knowledge index answers as the engine's knowledge reads do, on both engines.

The bundled samples are ingested with offline extraction (lessons, corrections, facts superseded
and closed, topics), then, at many as-of and known-at instants (every start, end and record time
the items hold, on each side), the index's vector search, reads through turns and similarities
are compared with the engine's, item by item and with each item's end as known then. Its word
search finds every item the engine's finds that BM25 scores.
"""

from __future__ import annotations

import asyncio
import itertools
import time

import numpy as np

from core.timeutil import OPEN, now_ms
from graph.repositories.clocks import ClockRepository
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.recall import RecallRepository
from recall.config import RankingSection
from recall.knowledge_index import Bm25Stats, ProjectKnowledge
from recall.lexical import bm25
from recall.retrieval import RetrievalService
from tests.shared_embedder import shared_local_embedder
from tests.support.samples import ingest_samples

_ALL = 10_000


def _instants(held: ProjectKnowledge, times: dict) -> list[int]:
    """Every time the items hold, each one ms before and at it, plus now (a sample of them)."""
    raw: set[int] = set()
    for t in times.values():
        for v in (t.valid_from, t.valid_to, t.recorded_at, t.expired_at, *t.valid_to_until):
            if v is not None and v < OPEN:
                raw.update((v - 1, v))
    picked = sorted(raw)
    step = max(1, len(picked) // 12)
    return [*picked[::step], now_ms()]


async def test_the_index_answers_as_the_engine(graph_db, graph_settings) -> None:
    await ingest_samples(graph_db, graph_settings)
    repo = RecallRepository(graph_db)
    clock = (await ClockRepository(graph_db).read()).knowledge
    assert clock is not None
    emb = shared_local_embedder()
    query = "which database does the web app use and how do we deploy it"
    vector = [float(x) for x in (await emb.embed([query]))[0]]
    q = np.asarray(vector, dtype=np.float32)
    checked = 0
    for project in await ClockRepository(graph_db).projects():
        items, times = await repo.indexed_knowledge(project)
        held = ProjectKnowledge(project, clock, items, times)
        assert len(held) == len(items) > 0
        turn_ids = sorted({t for h in items for t in h.turn_ids})
        words = sorted({w for h in items for w in h.text.lower().split() if w.isalpha()})[:40]
        instants = _instants(held, times)
        for as_of, known_at in itertools.product(instants, instants[::3]):
            engine = await repo.knowledge_vector(
                vector, [project], k=_ALL, k_search=_ALL, as_of=as_of, known_at=known_at
            )
            mine = held.vector(q, k=_ALL, as_of=as_of, known_at=known_at)
            assert {h.id: h.valid_to for h in mine} == {h.id: h.valid_to for h in engine}
            for h in mine:
                e = next(x for x in engine if x.id == h.id)
                assert abs(h.score - e.score) < 1e-4
                assert (h.kind, h.text, h.status) == (e.kind, e.text, e.status)
            via_engine = await repo.knowledge_of_turns(
                turn_ids, [project], as_of=as_of, known_at=known_at
            )
            via_index = held.of_turns(turn_ids, as_of=as_of, known_at=known_at)
            assert sorted((h.id, h.turn_ids, h.valid_to) for h in via_index.live) == sorted(
                (h.id, h.turn_ids, h.valid_to) for h in via_engine.live
            )
            assert via_index.superseded == via_engine.superseded
            found = await repo.knowledge_fulltext(
                " ".join(words), [project], k=_ALL, cap=_ALL, as_of=as_of, known_at=known_at
            )
            scored = bm25(words, {h.id: h.text for h in found}, n_docs=1000, avgdl=12.0)
            stats = Bm25Stats(1000, 12.0, 1.2, 0.75)
            by_index = held.fulltext(words, k=_ALL, as_of=as_of, known_at=known_at, stats=stats)
            assert set(scored) <= {h.id for h in by_index}  # what the engine path keeps
            checked += 1
        ids = [h.id for h in items]
        sims = await repo.knowledge_similarity(ids, [project], vector)
        mine_sims = held.similarity(ids, q)
        assert mine_sims.keys() == sims.keys()
        assert all(abs(mine_sims[i] - sims[i]) < 1e-4 for i in sims)
    assert checked > 20


async def test_context_serves_from_the_index_under_the_clock_it_was_loaded_by(
    graph_db, graph_settings, monkeypatch
) -> None:
    await ingest_samples(graph_db, graph_settings)
    svc = RetrievalService(RecallRepository(graph_db), shared_local_embedder(), RankingSection())
    query = "Which database does the webapp use?"
    project = (await ClockRepository(graph_db).projects())[0]
    index = svc.knowledge_index
    monkeypatch.setattr("recall.knowledge_index._QUICK_LOAD_S", 60.0)  # whatever the machine
    first = await svc.context(query, (project,), limit=8, token_budget=None)
    assert index.status()["projects"] == 1  # a small project: loaded by the first call
    clock = (await ClockRepository(graph_db).read()).knowledge
    held = await index.current((project,), clock)
    assert held is not None
    assert held.clock == clock
    again = await svc.context(query, (project,), limit=8, token_budget=None)
    assert [r.candidate.id for r in again.items] == [r.candidate.id for r in first.items]
    # a knowledge write moves the clock: the index loaded under the old one is not served
    await CorrectionRepository(graph_db).close_many(
        [("no_such_correction", now_ms())], now=now_ms()
    )
    moved = (await ClockRepository(graph_db).read()).knowledge
    assert moved != clock
    fresh = await index.current((project,), moved)
    assert fresh is not None
    assert fresh is not held
    assert fresh.clock == moved
    # a project slow to load is loaded in the background: the engine answers meanwhile
    monkeypatch.setattr("recall.knowledge_index._QUICK_LOAD_S", 0.0)
    monkeypatch.setattr("recall.knowledge_index._MIN_LOAD_GAP_S", 0.0)
    await CorrectionRepository(graph_db).close_many(
        [("no_such_correction", now_ms())], now=now_ms()
    )
    later = (await ClockRepository(graph_db).read()).knowledge
    assert await index.current((project,), later) is None
    loaded = None
    # Background loads are paced by their own duration: the next may start 4x the last load's
    # time after it (seconds on a loaded machine), so wait by a deadline, not a count.
    deadline = time.monotonic() + 60
    while loaded is None and time.monotonic() < deadline:
        await index.wait()
        loaded = await index.current((project,), later)
        if loaded is None:
            await asyncio.sleep(0.05)
    assert loaded is not None
    assert loaded.clock == later
