"""Which words a fulltext query searches for, from document frequencies the engine counts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.timeutil import now_ms
from graph.models import Turn
from graph.repositories.recall import RecallRepository
from graph.repositories.turns import TurnRepository
from recall.config import RankingSection
from recall.retrieval import RetrievalService

T0 = datetime(2026, 3, 1, tzinfo=UTC)


async def _seed(db) -> None:
    texts = {
        "alpha": [f"deploy step {i} of the release" for i in range(30)]
        + ["deploy the falkordb cluster", "falkordb needs a restart after deploy"],
        "beta": [f"deploy step {i} elsewhere" for i in range(10)] + ["falkordb in beta too"],
    }
    turns = [
        Turn(
            id=f"trn_{p}_{i}",
            project=p,
            session_id=f"ses_{p}",
            ordinal=i,
            role="user",
            text=t,
            token_estimate=len(t) // 4 + 1,
            valid_from=T0 + timedelta(minutes=i),
        )
        for p, ts in texts.items()
        for i, t in enumerate(ts)
    ]
    await TurnRepository(db).upsert_many(turns)


async def test_document_frequencies_count_the_whole_index(graph_db) -> None:
    await _seed(graph_db)
    svc = RetrievalService(RecallRepository(graph_db), None, RankingSection())
    df = await svc.term_df(["deploy", "falkordb", "nowhere"])
    assert df == {"deploy": 42, "falkordb": 3, "nowhere": 0}


async def test_common_words_are_scored_but_not_searched(graph_db) -> None:
    await _seed(graph_db)
    svc = RetrievalService(
        RecallRepository(graph_db), None, RankingSection(fulltext_match_budget=10)
    )
    words, searched, df = await svc.search_words("deploy falkordb?", ("alpha",))
    assert words == ["deploy", "falkordb"]
    assert searched == ["falkordb"]  # 42 index-wide matches for "deploy" exceed the budget
    # Not searched, so estimated for alpha from its share of the index: 42 x 32/43 turns.
    assert df == {"deploy": 31}
    now = now_ms()
    hits = await svc.fulltext("deploy falkordb?", ("alpha",), k=0, as_of=now, known_at=now)
    # Only turns holding the rare word are fetched; "deploy" still orders them (BM25).
    assert [h.id for h in hits] == ["trn_alpha_30", "trn_alpha_31"]
    everything = RetrievalService(
        RecallRepository(graph_db), None, RankingSection(fulltext_match_budget=0)
    )
    all_hits = await everything.fulltext(
        "deploy falkordb", ("alpha",), k=0, as_of=now, known_at=now
    )
    assert len(all_hits) == 32
    assert {h.id for h in all_hits[:2]} == {"trn_alpha_30", "trn_alpha_31"}


async def test_a_word_in_most_turns_reads_at_most_the_match_budget(graph_db) -> None:
    await _seed(graph_db)
    now = now_ms()
    capped = RetrievalService(
        RecallRepository(graph_db), None, RankingSection(fulltext_match_budget=10)
    )
    # "deploy" is the only word, so it is searched although its 42 matches exceed the budget;
    # the engine then reads no more than 10 of them.
    hits = await capped.fulltext("deploy", ("alpha",), k=0, as_of=now, known_at=now)
    assert 0 < len(hits) <= 10
    unbounded = RetrievalService(
        RecallRepository(graph_db), None, RankingSection(fulltext_match_budget=0)
    )
    assert len(await unbounded.fulltext("deploy", ("alpha",), k=0, as_of=now, known_at=now)) == 32


def _spy_threads(monkeypatch) -> dict[str, set[int]]:
    """Record the threads BM25, scoring and packing run in (`recall.retrieval`'s names)."""
    import threading

    import recall.retrieval as retrieval

    threads: dict[str, set[int]] = {}

    def spy(name: str, real):  # records where the real function ran, then returns its answer
        def call(*args, **kwargs):
            threads.setdefault(name, set()).add(threading.get_ident())
            return real(*args, **kwargs)

        return call

    for name in ("bm25", "score_candidates", "mmr_pack"):
        monkeypatch.setattr(retrieval, name, spy(name, getattr(retrieval, name)))
    return threads


def _engine_service(db) -> RetrievalService:
    """Over the engine's matches (no turn index), so BM25 is computed here too."""
    return RetrievalService(RecallRepository(db), None, RankingSection(turn_index_max_turns=0))


async def test_a_lone_short_request_ranks_on_the_event_loop(graph_db, monkeypatch) -> None:
    """Alone in flight, a request's CPU steps run on the loop: a worker hop buys nothing then."""
    import threading

    await _seed(graph_db)
    threads = _spy_threads(monkeypatch)
    out = await _engine_service(graph_db).context(
        "falkordb restart after deploy", ("alpha",), limit=5, token_budget=500, use_vector=False
    )
    assert out.items  # the spied functions did the work
    assert threads == {name: {threading.get_ident()} for name in threads}
    assert set(threads) == {"bm25", "score_candidates", "mmr_pack"}


async def test_ranking_runs_off_the_loop_for_a_long_query_or_beside_other_requests(
    graph_db, monkeypatch
) -> None:
    """A long query's steps, and steps while other requests are in flight, run in workers."""
    import asyncio
    import threading

    from recall.offload import INLINE_MAX_QUERY_CHARS

    await _seed(graph_db)
    svc = _engine_service(graph_db)
    loop_thread = threading.get_ident()
    threads = _spy_threads(monkeypatch)
    long_query = ("falkordb restart after deploy " * 40)[: INLINE_MAX_QUERY_CHARS + 50]
    out = await svc.context(long_query, ("alpha",), limit=5, token_budget=500, use_vector=False)
    assert out.items
    assert set(threads) == {"bm25", "score_candidates", "mmr_pack"}
    assert all(loop_thread not in ran for ran in threads.values()), threads

    threads.clear()
    both = await asyncio.gather(
        *(
            svc.context(q, ("alpha",), limit=5, token_budget=500, use_vector=False)
            for q in ("falkordb restart after deploy", "deploy the falkordb cluster")
        )
    )
    assert all(r.items for r in both)
    ran = set().union(*threads.values())
    assert ran - {loop_thread}, threads  # overlapping requests: worker threads did some steps
