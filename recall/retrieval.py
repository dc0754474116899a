"""Retrieval: the I/O half of `context` and `search` (candidate queries), ranking stays pure.

One `context` call makes, per candidate source, one query: fulltext and vector hits (concurrently),
then one query that expands the best hits along `NEXT` and fetches every candidate's fields. Every
query takes `$projects`, so a caller scoped to project A never sees a row of project B, whatever
the ranking does afterwards.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

from ai.embed import Embedder
from core.text import QUERY_STOPWORDS, unicode_words
from core.timeutil import from_ms, now_ms
from graph.errors import GraphError, InvalidInputError
from graph.kinds import ItemKind
from graph.repositories.clocks import ClockRepository, Clocks
from graph.repositories.recall import KnowledgeHit, RecallRepository, TurnHit
from recall.answerable import Answerability, answerability
from recall.candidates import KnowledgePool, list_ranks, turn_columns
from recall.config import RankingSection
from recall.items import CandidateSet, TurnColumns, rrf_fusion
from recall.knowledge_cache import RulesCache
from recall.knowledge_index import Bm25Stats, KnowledgeIndexes, ProjectKnowledge
from recall.lexical import bm25, prune_terms
from recall.offload import INLINE_MAX_QUERY_CHARS, Offload
from recall.opening import Opening, open_with, rule_cosines, standing
from recall.ranking import (
    FULLTEXT,
    VECTOR,
    Candidate,
    Ranked,
    concerns_query,
    gate_floor,
    mmr_pack,
    mmr_pool_size,
    score_candidates,
)
from recall.search import SearchMode, fuse_hits
from recall.slots import SlotIndex
from recall.turn_index import Bm25Params, ProjectTurns, TurnIndexes
from recall.understand import QueryIntent, understand
from recall.vectors import MAX_OVERSAMPLE, vector_plan

log = logging.getLogger("remgraph.recall.retrieval")
K = TypeVar("K")
V = TypeVar("V")

_SPEAKER_TTL_S = 60.0
_DF_TTL_S = 300.0
_DF_CACHE_MAX = 200_000
_NO_CAP = 2**31 - 1

Terms = tuple[list[str], list[str], dict[str, int]]
"""`search_words`: (every query word, the words searched for, estimated frequency of the others)."""


@dataclass(slots=True)
class _Ranking:
    """A `context` call's ranking, made in one worker-thread call (`RetrievalService._rank`).

    The rules it opens with, the head diversity and packing look at, the room and tokens left
    after the rules, and the items once packed.
    """

    first: list[Ranked]
    head: list[Ranked]
    room: int
    budget: int | None
    items: list[Ranked] | None = None


def _turn_cosines(cands: CandidateSet) -> dict[str, float]:
    """Each turn candidate's cosine to the query, where known."""
    t = cands.turns
    return {i: float(c) for i, c in zip(t.ids, t.cosine, strict=True) if not np.isnan(c)}


@dataclass
class ContextResult:
    """Ranked items plus what the ranking saw."""

    items: list[Ranked]
    intent: QueryIntent
    candidates: int
    timings_ms: dict[str, float] = field(default_factory=dict)
    answerable: Answerability = field(default_factory=lambda: Answerability(0.0, {}))
    """How likely the items answer the query (`recall.answerable`)."""


@dataclass(slots=True)
class _TurnLists:
    """What the turn searches' lists give the rest of a `context` call."""

    ranks: dict[str, dict[str, int]]
    """Turn id -> its 1-based rank in each list that returned it."""
    top: list[str]
    """The best hits by fused rank (`expand_top`): their neighbourhood and knowledge are read."""
    cosine_of: dict[str, float]
    """The vector search's cosine of each turn it found."""


@dataclass(frozen=True)
class _Found:
    """What the four searches of one `context` call returned."""

    fulltext: list[TurnHit]
    """Every fulltext hit on turns, BM25-scored, best first (the list ranks only the head)."""
    vector: list[TurnHit]
    knowledge_text: list[KnowledgeHit]
    knowledge_vector: list[KnowledgeHit]
    lists: _TurnLists | None = None
    """What the turn lists give (`RetrievalService._turn_lists`), when made with the search."""
    turns: TurnColumns | None = None
    """The turn candidates, when the turn index made them in the search's own call."""


def _query_words(text: str) -> list[str]:
    """The query's words, stop words dropped, each once.

    Words only: engine query syntaxes treat much punctuation (`?`, `-`, `@`) as operators.
    """
    return list(dict.fromkeys(w for w in unicode_words(text) if w not in QUERY_STOPWORDS))


async def _done(value: V) -> V:
    """`value` as an awaitable, to gather with reads that do go to the engine."""
    return value


def _held_searches(
    held: ProjectKnowledge,
    words: Sequence[str],
    vector: list[float] | None,
    k: int,
    as_of: int,
    known_at: int,
    stats: Bm25Stats,
) -> tuple[list[KnowledgeHit], list[KnowledgeHit]]:
    """`RetrievalService._knowledge_searches` in a project's knowledge index (a worker thread)."""
    text = held.fulltext(words, k=k, as_of=as_of, known_at=known_at, stats=stats)
    if vector is None:
        return text, []
    near = held.vector(np.asarray(vector, dtype=np.float32), k=k, as_of=as_of, known_at=known_at)
    return text, near


class _Refreshing(Generic[K, V]):
    """Per-key values kept for `ttl_s`, then served stale while one background load refreshes them.

    Only the first request for a key waits for the engine; later ones never do, so a collection
    statistic's periodic refresh does not land in some request's latency.
    """

    def __init__(self, ttl_s: float, load: Callable[[K], Awaitable[V]]) -> None:
        self._ttl = ttl_s
        self._load = load
        self._values: dict[K, tuple[float, V]] = {}
        self._pending: dict[K, asyncio.Task[None]] = {}

    async def get(self, key: K) -> V:
        hit = self._values.get(key)
        if hit is None:
            value = await self._load(key)
            self._values[key] = (time.monotonic(), value)
            return value
        if time.monotonic() - hit[0] >= self._ttl and key not in self._pending:
            self._pending[key] = asyncio.create_task(self._refresh(key))
        return hit[1]

    async def _refresh(self, key: K) -> None:
        try:
            self._values[key] = (time.monotonic(), await self._load(key))
        except GraphError as e:  # keep serving the stale value; the next `get` retries
            log.warning("could not refresh cached statistics: %s", e)
        finally:
            self._pending.pop(key, None)

    def clear(self) -> None:
        """Forget every value (the next `get` of each key loads it again)."""
        self._values.clear()


class RetrievalService:
    """Runs the candidate queries for `context`/`search` and hands them to `recall.ranking`."""

    def __init__(
        self, repo: RecallRepository, embedder: Embedder | None, ranking: RankingSection
    ) -> None:
        self._repo = repo
        self._embedder = embedder
        self.ranking = ranking
        self._speakers = _Refreshing(_SPEAKER_TTL_S, self._load_speakers)
        self._stats = _Refreshing(_SPEAKER_TTL_S, self._load_stats)
        self._df: dict[str, tuple[float, int]] = {}
        self.turn_index = TurnIndexes(repo, max_turns=ranking.turn_index_max_turns)
        self.rules = RulesCache(repo)
        self.knowledge_index = KnowledgeIndexes(repo, max_items=ranking.knowledge_index_max_items)
        self.slots = SlotIndex(embedder)
        """Which subjects of the declared vocabulary a query and an item concern (the gate)."""
        self._clocks = ClockRepository(repo.db)
        self._offload = Offload()
        """Where the CPU-bound steps of `context` run (the loop, or a worker thread)."""

    @property
    def _match_cap(self) -> int:
        """Most index matches one fulltext query reads: the match budget, else unbounded.

        Words are pruned to fit the budget, but the rarest one always stays, however common.
        """
        return self.ranking.fulltext_match_budget or _NO_CAP

    @property
    def has_vectors(self) -> bool:
        """Whether a query embedder is configured."""
        return self._embedder is not None

    async def embed_query(self, text: str) -> list[float] | None:
        """The query's embedding, or None without an embedder."""
        if self._embedder is None or not text.strip():
            return None
        vec = await self._embedder.embed([text])
        return [float(x) for x in vec[0]]

    async def warm_up(self, *, freeze: bool = False) -> None:
        """Load the query embedder and slot tasks, make the knowledge clock, load the indexes.

        The vocabulary's task vectors are embedded here, not in the first request. The turn
        indexes load in the background, then the knowledge indexes. A failure is logged:
        requests retry on their own. `freeze`: `TurnIndexes.warm`, `KnowledgeIndexes.warm`.
        """
        try:
            await self.embed_query("warm up")
            await self.slots.warm()  # the vocabulary's tasks, embedded before the first call
        except Exception as e:
            log.warning("query embedder not warmed up: %s", type(e).__name__)
        try:
            await self._clocks.start_knowledge_clock()
        except GraphError as e:
            log.warning("knowledge clock not started: %s", e)
        self.turn_index.warm(freeze=freeze)
        self.knowledge_index.warm(
            self._projects_after_turns, self._clocks.knowledge_clock, freeze=freeze
        )

    async def _projects_after_turns(self) -> list[str]:
        """The projects holding turns, once the turn indexes' start-up load is done.

        One start-up load at a time: the knowledge indexes wait for the turn indexes.
        """
        await self.turn_index.warmed()
        return await self._clocks.projects()

    def forget_speakers(self) -> None:
        """Drop the speaker and statistics caches (after new turns arrive)."""
        self._speakers.clear()
        self._stats.clear()
        self._df.clear()

    async def term_df(self, words: Sequence[str]) -> dict[str, int]:
        """How many turns of the whole index hold each word, cached for five minutes.

        Words not cached are counted in one query; a common word's count enumerates its matches
        once per five minutes instead of on every query holding it.
        """
        now = time.monotonic()
        out: dict[str, int] = {}
        missing = []
        for w in dict.fromkeys(words):
            hit = self._df.get(w)
            if hit is not None and now - hit[0] < _DF_TTL_S:
                out[w] = hit[1]
            else:
                missing.append(w)
        if missing:
            if len(self._df) > _DF_CACHE_MAX:
                self._df.clear()
            # A word the engine cannot search (all punctuation) counts 0.
            counted = await self._repo.turn_term_df(missing)
            for w in missing:
                out[w] = counted[w]
                self._df[w] = (now, out[w])
        return out

    async def search_words(self, text: str, projects: tuple[str, ...]) -> Terms:
        """(every query word, the words to search for, estimated frequency of the others).

        Stop words are dropped; with `ranking.fulltext_match_budget` set, words are searched
        rarest first within that many index-wide matches (`recall.lexical.prune_terms`). A word
        not searched still scores in BM25 for the turns found, with its document frequency in
        `projects` estimated from the index-wide count (searched words are counted in their
        matches).
        """
        words = _query_words(text)
        budget = self.ranking.fulltext_match_budget
        if not words or not projects or budget <= 0:
            return words, words, {}
        dfs = await self.term_df(words)
        searched = prune_terms({w: dfs[w] for w in words}, budget)
        pruned = [w for w in words if w not in searched]
        if not pruned:
            return words, searched, {}
        (n_all, _), (n_here, _) = await asyncio.gather(
            self.turn_stats(("*",)), self.turn_stats(projects)
        )
        share = n_here / n_all if n_all else 1.0
        return words, searched, {w: round(dfs[w] * share) for w in pruned}

    async def turn_stats(self, projects: tuple[str, ...]) -> tuple[int, float]:
        """(turn count, mean turn length in words) of `projects`, refreshed every minute."""
        return await self._stats.get(projects)

    async def _load_stats(self, projects: tuple[str, ...]) -> tuple[int, float]:
        stats = await self._repo.turn_stats(projects)
        # ~5.5 characters per word plus space; only the ratio to each turn's length matters.
        return stats.turns, stats.avg_chars / 5.5

    async def speakers(self, projects: tuple[str, ...]) -> tuple[str, ...]:
        """Speaker names seen in `projects`, refreshed every minute."""
        return await self._speakers.get(projects)

    async def _load_speakers(self, projects: tuple[str, ...]) -> tuple[str, ...]:
        return await self._repo.speakers(projects)

    async def turn_keys(self, projects: tuple[str, ...]) -> dict[str, str]:
        """Native source key → turn id for every turn of `projects` (evaluation)."""
        return await self._repo.turn_keys(projects)

    async def fulltext(
        self,
        text: str,
        projects: tuple[str, ...],
        *,
        k: int,
        as_of: int,
        known_at: int,
        pool: int | None = None,
        terms: Terms | None = None,
    ) -> list[TurnHit]:
        """Fulltext hits on turns scored with BM25 (`recall.lexical`), best first (k ≤ 0: all).

        `pool` overrides how many engine matches are scored (default `ranking.fulltext_pool`);
        `terms` is `search_words(text, projects)` when the caller already has it.
        """
        words, searched, df = (
            terms if terms is not None else await self.search_words(text, projects)
        )
        found = await self._repo.turn_fulltext(
            " ".join(searched),
            projects,
            k=max(k, pool or self.ranking.fulltext_pool),
            cap=self._match_cap,
            as_of=as_of,
            known_at=known_at,
        )
        if not found:
            return []
        texts = {h.id: h.text or "" for h in found}
        scores = await self._bm25(words, texts, projects, df)
        best = sorted(scores.items(), key=lambda x: (-x[1], x[0]))
        return [TurnHit(i, s, texts[i]) for i, s in (best if k <= 0 else best[:k])]

    async def _bm25(
        self,
        words: Sequence[str],
        texts: dict[str, str],
        projects: tuple[str, ...],
        df: dict[str, int],
        index: ProjectTurns | None = None,
        held: ProjectKnowledge | None = None,
    ) -> dict[str, float]:
        """BM25 of `texts` for `words` with the turn statistics of `projects`.

        Turns and knowledge items are scored with it, so both are on one scale; `df` holds the
        estimated frequencies of words not searched. The statistics are the turn index's when
        the project is held there; knowledge items the knowledge index `held` holds are scored
        from its postings (the same scores).
        """
        n_docs, avgdl = index.stats() if index is not None else await self.turn_stats(projects)
        k1, b = self.ranking.bm25_k1, self.ranking.bm25_b
        if held is not None:
            got = held.bm25_of(texts, words, df=df, stats=Bm25Stats(n_docs, avgdl, k1, b))
            if got is not None:
                return got
        return await self._offload.run(  # CPU-bound: `Offload` picks the thread
            functools.partial(bm25, n_docs=n_docs, avgdl=avgdl, k1=k1, b=b, df=df), words, texts
        )

    async def vector(
        self,
        vector: list[float] | None,
        projects: tuple[str, ...],
        *,
        k: int,
        as_of: int,
        known_at: int,
    ) -> list[TurnHit]:
        """Nearest turns by embedding (cosine similarity), best first.

        The vector index oversampled by how little of the graph `projects` hold, or each turn of a
        small scope scored (`recall.vectors.vector_plan`).
        """
        if vector is None or k <= 0:
            return []
        (n_all, _), (n_here, _) = await asyncio.gather(
            self.turn_stats(("*",)), self.turn_stats(projects)
        )
        plan = vector_plan(k, n_here, n_all, exact_max=self.ranking.vector_exact_max_turns)
        if plan.exact:
            return await self._repo.turn_vector_exact(
                vector, projects, k=k, as_of=as_of, known_at=known_at
            )
        return await self._repo.turn_vector(
            vector, projects, k=k, k_search=plan.k_search, as_of=as_of, known_at=known_at
        )

    async def search(
        self,
        query: str,
        projects: tuple[str, ...],
        *,
        mode: SearchMode,
        k: int,
        as_of: int,
        known_at: int,
    ) -> list[TurnHit]:
        """The `k` best turns for `query` by fulltext (BM25), embedding, or both fused (RRF).

        Raises `InvalidInputError` for `VECTOR` without an embedder; `HYBRID` then uses fulltext
        alone.
        """
        ft: list[TurnHit] = []
        vec: list[TurnHit] = []
        if mode in (SearchMode.FULLTEXT, SearchMode.HYBRID):
            ft = await self.fulltext(query, projects, k=k, as_of=as_of, known_at=known_at)
        if mode in (SearchMode.VECTOR, SearchMode.HYBRID):
            if not self.has_vectors and mode is SearchMode.VECTOR:
                raise InvalidInputError("mode", "no embedder is configured for VECTOR search")
            v = await self.embed_query(query)
            vec = await self.vector(v, projects, k=k, as_of=as_of, known_at=known_at)
        if mode is SearchMode.HYBRID:
            return fuse_hits(((FULLTEXT, ft), (VECTOR, vec)), self.ranking.rrf_k)
        return ft if mode is SearchMode.FULLTEXT else vec

    async def _search(
        self,
        intent: QueryIntent,
        terms: Terms,
        projects: tuple[str, ...],
        vector: list[float] | None,
        *,
        as_of: int,
        known_at: int,
        knowledge: bool,
        held: ProjectKnowledge | None = None,
    ) -> _Found:
        """The four searches of a `context` call, concurrently (knowledge ones when asked)."""
        w = self.ranking
        kw = w.knowledge_candidates if knowledge else 0
        ft, vec, (kn, kv) = await asyncio.gather(
            self.fulltext(
                intent.keyword_query, projects, k=0, as_of=as_of, known_at=known_at, terms=terms
            ),
            self.vector(vector, projects, k=w.vector_candidates, as_of=as_of, known_at=known_at),
            self._knowledge_searches(
                terms[1], projects, vector, k=kw, as_of=as_of, known_at=known_at, held=held
            ),
        )
        return _Found(ft, vec, kn, kv)

    async def _knowledge_searches(
        self,
        words: Sequence[str],
        projects: tuple[str, ...],
        vector: list[float] | None,
        *,
        k: int,
        as_of: int,
        known_at: int,
        held: ProjectKnowledge | None = None,
        stats: tuple[int, float] | None = None,
    ) -> tuple[list[KnowledgeHit], list[KnowledgeHit]]:
        """Knowledge items by fulltext for `words` and by embedding, concurrently (k = 0: none).

        In the project's knowledge index when `held` (`recall.knowledge_index`), with the turn
        statistics `stats` (else read) for BM25; else in the engine.
        """
        if held is not None:
            n_docs, avgdl = stats if stats is not None else await self.turn_stats(projects)
            bm = Bm25Stats(n_docs, avgdl, self.ranking.bm25_k1, self.ranking.bm25_b)
            return await self._offload.run(
                _held_searches, held, words, vector, k, as_of, known_at, bm
            )
        text, near = await asyncio.gather(
            self._repo.knowledge_fulltext(
                " ".join(words) if k else "",
                projects,
                k=k,
                cap=self._match_cap,
                as_of=as_of,
                known_at=known_at,
            ),
            self._repo.knowledge_vector(
                vector if k else None,
                projects,
                k=k,
                k_search=k * MAX_OVERSAMPLE,
                as_of=as_of,
                known_at=known_at,
            ),
        )
        return text, near

    async def _search_indexed(
        self,
        index: ProjectTurns,
        intent: QueryIntent,
        projects: tuple[str, ...],
        vector: list[float] | None,
        *,
        as_of: int,
        known_at: int,
        knowledge: bool,
        held: ProjectKnowledge | None = None,
    ) -> tuple[Terms, _Found]:
        """`_search` with the turns searched in the project's turn index (`recall.turn_index`).

        Document frequencies are exact there, so every query word is searched and none is
        estimated; the knowledge searches still go to the engine, their words pruned by those
        frequencies as `search_words` prunes them.
        """
        w = self.ranking
        words = _query_words(intent.keyword_query)
        df = index.document_frequency(words)
        budget = w.fulltext_match_budget
        searched = prune_terms(df, budget) if words and budget > 0 else words
        kw = w.knowledge_candidates if knowledge else 0
        params = Bm25Params(w.bm25_k1, w.bm25_b)
        query = None if vector is None else np.asarray(vector, dtype=np.float32)

        def turn_side() -> tuple[list[TurnHit], list[TurnHit], _TurnLists, TurnColumns]:
            """Search the turns, then make the candidates of what was found: one thread hop."""
            ft, vec, sims, live = index.search(
                words,
                query,
                as_of=as_of,
                known_at=known_at,
                k_text=w.fulltext_pool,
                k_vector=w.vector_candidates,
                params=params,
            )
            lists = self._turn_lists(ft, vec)
            turns = index.columns(
                list(lists.ranks),
                lists.top,
                w.neighbour_window,
                as_of=as_of,
                known_at=known_at,
                sims=sims,
                live=live,
                ranks=lists.ranks,
                bm25_of={h.id: h.score for h in ft},
                cosine_of=lists.cosine_of,
            )
            return ft, vec, lists, turns

        (ft, vec, lists, turns), (kn, kv) = await asyncio.gather(
            self._offload.run(turn_side, lock=index.lock),
            self._knowledge_searches(
                searched,
                projects,
                vector,
                k=kw,
                as_of=as_of,
                known_at=known_at,
                held=held,
                stats=index.stats(),
            ),
        )
        return (words, searched, df), _Found(ft, vec, kn, kv, lists, turns)

    def _turn_lists(self, fulltext: Sequence[TurnHit], vector: Sequence[TurnHit]) -> _TurnLists:
        """The turn searches' list ranks, the heads whose neighbourhood is read, the cosines."""
        ranks = list_ranks(
            ((FULLTEXT, fulltext[: self.ranking.fulltext_candidates]), (VECTOR, vector))
        )
        return _TurnLists(ranks, self._expansion_heads(ranks), {h.id: h.score for h in vector})

    async def candidates(
        self,
        query: str,
        intent: QueryIntent,
        projects: tuple[str, ...],
        *,
        as_of: int,
        known_at: int,
        vector: list[float] | None,
        timings: dict[str, float] | None = None,
        knowledge: bool = True,
        extra: Sequence[KnowledgeHit] = (),
        clocks: Clocks | None = None,
    ) -> CandidateSet:
        """Fulltext + vector hits, expanded along `NEXT`, with the fields ranking needs.

        `extra` are knowledge items to consider whatever the searches found (the rules in force);
        `clocks` the graph's clocks read just before, else the turn clock is read here.
        """
        w = self.ranking
        t0 = time.perf_counter()
        with_knowledge = knowledge and w.knowledge_candidates > 0
        index = (
            await self.turn_index.current(projects)
            if clocks is None
            else await self.turn_index.current_at(projects, clocks.turns)
        )
        held = (
            await self.knowledge_index.current(projects, clocks.knowledge)
            if clocks is not None and with_knowledge
            else None
        )
        if index is not None:
            terms, found = await self._search_indexed(
                index,
                intent,
                projects,
                vector,
                as_of=as_of,
                known_at=known_at,
                knowledge=with_knowledge,
                held=held,
            )
        else:
            terms = await self.search_words(intent.keyword_query, projects)
            found = await self._search(
                intent,
                terms,
                projects,
                vector,
                as_of=as_of,
                known_at=known_at,
                knowledge=with_knowledge,
                held=held,
            )
        t1 = time.perf_counter()
        lists = found.lists or self._turn_lists(found.fulltext, found.vector)
        top = lists.top
        of_turns_read = (
            _done(held.of_turns(top, as_of=as_of, known_at=known_at))
            if held is not None
            else self._repo.knowledge_of_turns(
                top if with_knowledge else [], projects, as_of=as_of, known_at=known_at
            )
        )
        if found.turns is not None:
            turns, of_turns = found.turns, await of_turns_read
        else:
            rows, of_turns = await asyncio.gather(
                self._repo.turns_fetch(
                    list(lists.ranks),
                    projects,
                    top=top if w.neighbour_window > 0 else [],
                    window=w.neighbour_window,
                    vector=vector,
                    scored=lists.cosine_of,
                ),
                of_turns_read,
            )
            turns = turn_columns(
                rows,
                lists.ranks,
                bm25_of={h.id: h.score for h in found.fulltext},
                # None for the rest: read later, for the few that need it
                known_text={h.id: h.text for h in found.fulltext if h.text is not None},
                window=w.neighbour_window,
                cosine_of=lists.cosine_of,
            )
        derived = of_turns.live
        pool = await self._knowledge_pool(found, [*derived, *extra], projects, vector, held)
        t2 = time.perf_counter()
        if timings is not None:
            timings.update(search=(t1 - t0) * 1000, expand_fetch=(t2 - t1) * 1000)
        # A turn whose derived fact or correction ended, and none derived from it is live.
        turns.mark_superseded(
            of_turns.superseded.difference(t for h in derived for t in h.turn_ids)
        )
        return CandidateSet(
            turns, await self._knowledge_candidates(terms, projects, pool, index, held)
        )

    def _expansion_heads(self, ranks: dict[str, dict[str, int]]) -> list[str]:
        """The `expand_top` best hits by fused rank: their neighbourhood and knowledge are read."""
        w = self.ranking
        fused = rrf_fusion({FULLTEXT: w.fulltext_weight, VECTOR: w.vector_weight}, w.rrf_k)
        return sorted(ranks, key=lambda i: -fused(ranks[i]))[: w.expand_top]

    async def _knowledge_pool(
        self,
        found: _Found,
        derived: list[KnowledgeHit],
        projects: tuple[str, ...],
        vector: list[float] | None,
        held: ProjectKnowledge | None = None,
    ) -> KnowledgePool:
        """Knowledge found by any route; those not found by embedding get their cosine read here.

        One query (or the knowledge index, `held`), so every knowledge candidate carries a vector
        score as the vector search's finds do.
        """
        by_vector = {h.id for h in found.knowledge_vector}
        need_sim = list(
            dict.fromkeys(h.id for h in (*found.knowledge_text, *derived) if h.id not in by_vector)
        )
        if held is not None:
            sims = (
                held.similarity(need_sim, np.asarray(vector, dtype=np.float32))
                if vector is not None and need_sim
                else {}
            )
        else:
            sims = await self._repo.knowledge_similarity(need_sim, projects, vector)
        return KnowledgePool.gather(found.knowledge_text, found.knowledge_vector, derived, sims)

    async def _knowledge_candidates(
        self,
        terms: Terms,
        projects: tuple[str, ...],
        pool: KnowledgePool,
        index: ProjectTurns | None = None,
        held: ProjectKnowledge | None = None,
    ) -> list[Candidate]:
        """Knowledge items found by fulltext, by embedding or from the best hits' turns.

        They are ranked per list like turns (RRF) and carry the same raw scores (BM25 of their
        text with the turns' statistics, cosine similarity), so they compete with turns on one
        scale instead of only through the turns they came from.
        """
        now = now_ms()
        if not pool.hits:
            return []
        words, _, df = terms
        lexical = await self._bm25(
            words, {kid: h.text for kid, h in pool.hits.items()}, projects, df, index, held
        )
        return pool.candidates(lexical, now)

    async def _with_texts(self, items: list[Ranked], projects: tuple[str, ...]) -> list[Ranked]:
        """`items` with the text of every turn whose text was not read yet (one query).

        Candidates are fetched without text (hundreds per request, most never shown); only the
        head that diversity and packing look at needs it.
        """
        pending = [r.candidate.id for r in items if r.candidate.text_pending]
        if not pending:
            return items
        texts = await self._repo.turn_texts(pending, projects)
        out = []
        for r in items:
            c = r.candidate
            if c.text_pending:
                text = texts.get(c.id, "")
                c = dataclasses.replace(
                    c, text=text, text_pending=False, tokens=c.tokens or max(1, len(text) // 4)
                )
                r = dataclasses.replace(r, candidate=c)
            out.append(r)
        return out

    async def _rules_in_force(
        self,
        projects: tuple[str, ...],
        clocks: Clocks,
        *,
        as_of: int,
        known_at: int,
        now: int,
    ) -> list[KnowledgeHit]:
        """The rules in force for a `context` call.

        Kept in process for the default as-of (now, as known now: `recall.knowledge_cache`),
        read from the engine for any other time.
        """
        if as_of == known_at == now:
            return await self.rules.in_force_now(projects, clocks.knowledge, now)
        return await self._repo.rules_in_force(projects, as_of=as_of, known_at=known_at)

    def _rank(
        self,
        cands: CandidateSet,
        intent: QueryIntent,
        rules: Sequence[KnowledgeHit],
        kinds: frozenset[ItemKind] | None,
        limit: int,
        token_budget: int | None,
        as_of_ms: int,
        now: int,
        pack: bool,
        subjects: frozenset[str] = frozenset(),
        tasks: frozenset[str] = frozenset(),
    ) -> _Ranking:
        """Score, open with the rules and take the head; pack it too when its texts are read.

        `subjects`: the vocabulary's slots the query concerns (`recall.slots`); `tasks`: those of
        them it asks to do something about (close to one of the slot's tasks).
        """
        scored = score_candidates(cands, intent, self.ranking, as_of_ms=as_of_ms, now_ms=now)
        if kinds is not None:  # before the limit: `limit` items of the kinds asked for
            scored = scored.of_kinds(kinds)
        asked = {h.id for h in rules} if intent.asks_rules else set()
        turn_cos = _turn_cosines(cands)
        best = max(turn_cos.values(), default=None)
        close = gate_floor(self.ranking, best, lexical=True)  # a source turn close to the query

        def about(c: Candidate, of: frozenset[str] = subjects) -> bool:  # a slot of the query
            return bool(of) and not of.isdisjoint(self.slots.of_item(c.text))

        def near(c: Candidate) -> bool:  # distilled from one of the turns closest to the query
            return any(turn_cos.get(t, -1.0) >= close for t in c.turn_ids)

        def concerns(c: Candidate) -> bool:  # the rules asked for as such, and what concerns it
            related = near(c) or about(c)
            return c.id in asked or concerns_query(c, self.ranking, related=related, best_turn=best)

        in_force = frozenset(h.id for h in rules)
        stand = standing(rule_cosines(scored, in_force), self.ranking)
        scored = scored.knowledge_where(concerns)
        opening = Opening(in_force, stand, intent, functools.partial(about, of=tasks))
        first = open_with(scored, opening, self.ranking, limit, token_budget)
        rest = scored.without({r.candidate.id for r in first})
        room = limit - len(first)
        budget = (
            None if token_budget is None else token_budget - sum(r.candidate.tokens for r in first)
        )
        out = _Ranking(first, rest[: mmr_pool_size(room) if pack else room], room, budget)
        if not any(r.candidate.text_pending for r in out.head):
            out.items = self._packed(out, pack)
        return out

    def _packed(self, r: _Ranking, pack: bool) -> list[Ranked]:
        """The rules first, then the head diversified and packed (`pack`) or as it is."""
        if not pack:
            return r.first + r.head
        lam = self.ranking.mmr_lambda
        return r.first + mmr_pack(r.head, lam=lam, limit=r.room, token_budget=r.budget)

    async def context(
        self,
        query: str,
        projects: tuple[str, ...],
        *,
        limit: int,
        token_budget: int | None,
        as_of: int | None = None,
        known_at: int | None = None,
        kinds: frozenset[ItemKind] | None = None,
        use_vector: bool = True,
        pack: bool = True,
    ) -> ContextResult:
        """Rank context for `query` in `projects`: the whole `context` query minus formatting."""
        with self._offload.request(inline=len(query) <= INLINE_MAX_QUERY_CHARS):
            return await self._context(
                query,
                projects,
                limit=limit,
                token_budget=token_budget,
                as_of=as_of,
                known_at=known_at,
                kinds=kinds,
                use_vector=use_vector,
                pack=pack,
            )

    async def _context(
        self,
        query: str,
        projects: tuple[str, ...],
        *,
        limit: int,
        token_budget: int | None,
        as_of: int | None,
        known_at: int | None,
        kinds: frozenset[ItemKind] | None,
        use_vector: bool,
        pack: bool,
    ) -> ContextResult:
        now = now_ms()
        as_of_ms = now if as_of is None else as_of
        known_ms = now if known_at is None else known_at
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        speakers = await self.speakers(projects) if projects else ()
        # Relative times ("last year") are relative to the as-of time when one is given.
        intent = understand(query, speakers=speakers, now=from_ms(as_of_ms))
        vector = await self.embed_query(query) if use_vector else None
        t1 = time.perf_counter()
        timings["understand_embed"] = (t1 - t0) * 1000
        with_rules = self.ranking.rules_first > 0 and (
            kinds is None or ItemKind.CORRECTION in kinds
        )
        clocks = await self._clocks.read()  # before any read it stands for
        rules = (
            await self._rules_in_force(projects, clocks, as_of=as_of_ms, known_at=known_ms, now=now)
            if with_rules and projects
            else []
        )
        cands = await self.candidates(
            query,
            intent,
            projects,
            as_of=as_of_ms,
            known_at=known_ms,
            vector=vector,
            timings=timings,
            extra=rules,
            clocks=clocks,
        )
        t2 = time.perf_counter()
        # Ranking is pure CPU (tens of ms for a long query): in a worker thread while other
        # callers' requests are in flight, so the event loop keeps serving them (`Offload`).
        # One step for all of it when the texts packing needs are read (the turn index's are).
        tasks = await self.slots.by_task(vector, self.ranking.slot_task_similarity)
        subjects = self.slots.subjects(query, tasks)
        ranking = await self._offload.run(
            self._rank,
            cands,
            intent,
            rules,
            kinds,
            limit,
            token_budget,
            as_of_ms,
            now,
            pack,
            subjects,
            tasks,
        )
        items = ranking.items
        if items is None:  # the head's texts are read first (engine matches are read without)
            ranking.head = await self._with_texts(ranking.head, projects)
            items = await self._offload.run(self._packed, ranking, pack)
        timings["rank"] = (time.perf_counter() - t2) * 1000
        return ContextResult(
            items=items,
            intent=intent,
            answerable=answerability(intent, items),
            candidates=len(cands),
            timings_ms=timings,
        )
