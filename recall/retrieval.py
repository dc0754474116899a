"""Retrieval: the I/O half of `context` and `search` (candidate queries), ranking stays pure.

One `context` call makes, per candidate source, one query: fulltext and vector hits (concurrently),
then one query that expands the best hits along `NEXT` and fetches every candidate's fields. Every
query takes `$projects`, so a caller scoped to project A never sees a row of project B, whatever
the ranking does afterwards.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from ai.embed import Embedder
from core.timeutil import OPEN, from_ms, now_ms
from graph.cypher import Q, QueryRef
from graph.db import GraphDB
from graph.errors import GraphError
from graph.kinds import ItemKind
from knowledge.scoring import correction_effective_weight, days_between
from recall.config import RankingSection
from recall.lexical import bm25, prune_terms
from recall.ranking import (
    FULLTEXT,
    VECTOR,
    Candidate,
    Ranked,
    mmr_pack,
    mmr_pool_size,
    rrf,
    score_candidates,
)
from recall.understand import STOPWORDS, QueryIntent, understand

log = logging.getLogger("remgraph.recall.retrieval")
K = TypeVar("K")
V = TypeVar("V")

_TURN_FULLTEXT = Q("context.turn_fulltext")
_TURN_VECTOR = Q("context.turn_vector")
_TURNS_FETCH = Q("context.turns_fetch")
_TURN_TEXTS = Q("context.turn_texts")
_SPEAKERS = Q("context.speakers")
_TURN_KEYS = Q("context.turn_keys")
_TURN_STATS = Q("context.turn_stats")
_TURN_TERM_DF = Q("context.turn_term_df")
_KNOWLEDGE_FULLTEXT = Q("context.knowledge_fulltext")
_KNOWLEDGE_VECTOR = Q("context.knowledge_vector")
_KNOWLEDGE_SIMILARITY = Q("context.knowledge_similarity")
_KNOWLEDGE_OF_TURNS = Q("context.knowledge_of_turns")

_SPEAKER_TTL_S = 60.0
_DF_TTL_S = 300.0
_DF_CACHE_MAX = 200_000
_WORDS = re.compile(r"\w+")
_VECTOR_OVERSAMPLE = 4
_NO_CAP = 2**31 - 1


@dataclass(frozen=True)
class Scope:
    """Projects a caller may read: explicit slugs, or `("*",)` for every project."""

    projects: tuple[str, ...]

    def allows(self, project: str) -> bool:
        """Whether `project` is readable in this scope."""
        return "*" in self.projects or project in self.projects

    def narrow(self, project: str | None) -> tuple[str, ...]:
        """The `$projects` parameter for a query optionally restricted to one project."""
        if project is None:
            return self.projects
        return (project,) if self.allows(project) else ()


@dataclass(frozen=True)
class Hit:
    """One search result: an id and the engine's score for it."""

    id: str
    score: float
    text: str | None = None
    """The turn's text when the search already read it (fulltext), else None."""


@dataclass
class ContextResult:
    """Ranked items plus what the ranking saw."""

    items: list[Ranked]
    intent: QueryIntent
    candidates: int
    timings_ms: dict[str, float] = field(default_factory=dict)


def _turn_candidate(
    r: dict[str, Any], ranks: dict[str, int], scores: dict[str, float], neighbours: Sequence[str]
) -> Candidate:
    text = r.get("text")
    speaker = r.get("speaker") or ""
    tokens = int(r.get("tokens") or 0) or (0 if text is None else max(1, len(text) // 4))
    vt = r.get("valid_to")
    return Candidate(
        id=r["id"],
        kind=ItemKind.TURN,
        text=text or "",
        text_pending=text is None,
        tokens=tokens,
        ranks=ranks,
        scores=scores,
        project=r.get("project"),
        session_id=r.get("session_id"),
        ordinal=r.get("ordinal"),
        speaker=speaker,
        time_ms=r.get("valid_from"),
        valid_from_ms=r.get("valid_from"),
        valid_to_ms=None if vt is None or vt >= OPEN else int(vt),
        turn_ids=(r["id"],),
        neighbours=tuple(neighbours),
        quality=r.get("quality"),
    )


def knowledge_weight(r: dict[str, Any], now: int) -> float:
    """Kind-specific salience of a knowledge row.

    Lessons: weight × (1 + effectiveness); corrections: the effective (reinforced, decayed) weight,
    doubled for rules; facts: confidence.
    """
    kind = r["kind"]
    if kind == "lesson":
        return max(0.0, float(r.get("weight") or 1.0) * (1.0 + float(r.get("effectiveness") or 0)))
    if kind == "topic":
        return max(0.0, float(r.get("weight") or 0.0))
    if kind in ("reference_layer", "primer"):
        return 1.0
    if kind == "correction":
        last = r.get("last_seen") or r.get("valid_from") or now
        w = correction_effective_weight(
            float(r.get("confidence") or 0.5),
            float(r.get("reinforcement") or 1.0),
            days_between(int(last), now),
            half_life_days=float(r.get("half_life_days") or 30.0),
        )
        return w * (2.0 if r.get("status") == "rule" else 1.0)
    return float(r.get("confidence") or 0.5)


def _knowledge_candidate(
    r: dict[str, Any],
    ranks: dict[str, int],
    scores: dict[str, float],
    turn_ids: Sequence[str],
    now: int,
) -> Candidate:
    text = r.get("text") or ""
    vt = r.get("valid_to")
    return Candidate(
        id=r["id"],
        kind=ItemKind(r["kind"]),
        text=text,
        tokens=max(1, len(text) // 4),
        ranks=ranks,
        scores=scores,
        project=r.get("project"),
        time_ms=r.get("valid_from"),
        valid_from_ms=r.get("valid_from"),
        valid_to_ms=None if vt is None or vt >= OPEN else int(vt),
        turn_ids=tuple(dict.fromkeys(turn_ids)),
        weight=knowledge_weight(r, now),
    )


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
    """Runs candidate queries for `context`/`search` and hands them to `recall.ranking`."""

    def __init__(self, db: GraphDB, embedder: Embedder | None, ranking: RankingSection) -> None:
        self._db = db
        self._embedder = embedder
        self.ranking = ranking
        self._speakers = _Refreshing(_SPEAKER_TTL_S, self._load_speakers)
        self._stats = _Refreshing(_SPEAKER_TTL_S, self._load_stats)
        self._df: dict[str, tuple[float, int]] = {}

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

    async def warm_up(self) -> None:
        """Load the query embedder now (a failure is logged: requests retry on their own)."""
        try:
            await self.embed_query("warm up")
        except Exception as e:
            log.warning("query embedder not warmed up: %s", type(e).__name__)

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
            # Engine syntax per word (escaping); a word the engine cannot search counts 0.
            engine_word = {w: self._db.fulltext_query(w) for w in missing}
            rows = await self._db.read(
                _TURN_TERM_DF,
                words=[q for q in dict.fromkeys(engine_word.values()) if q],
            )
            got = {r["word"]: int(r["df_all"] or 0) for r in rows}
            for w in missing:
                out[w] = got.get(engine_word[w], 0)
                self._df[w] = (now, out[w])
        return out

    async def search_words(
        self, text: str, projects: tuple[str, ...]
    ) -> tuple[list[str], list[str], dict[str, int]]:
        """(every query word, the words to search for, estimated frequency of the others).

        Stop words are dropped; with `ranking.fulltext_match_budget` set, words are searched
        rarest first within that many index-wide matches (`recall.lexical.prune_terms`). A word
        not searched still scores in BM25 for the turns found, with its document frequency in
        `projects` estimated from the index-wide count (searched words are counted in their
        matches).
        """
        # Words only: engine query syntaxes treat much punctuation (`?`, `-`, `@`) as operators.
        words = list(dict.fromkeys(w for w in _WORDS.findall(text.lower()) if w not in STOPWORDS))
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
        rows = await self._db.read(_TURN_STATS, projects=list(projects))
        n = int(rows[0]["turns"] or 0) if rows else 0
        # ~5.5 characters per word plus space; only the ratio to each turn's length matters.
        avg_words = float(rows[0]["avg_chars"] or 0.0) / 5.5 if rows else 0.0
        return n, avg_words

    async def speakers(self, projects: tuple[str, ...]) -> tuple[str, ...]:
        """Speaker names seen in `projects`, refreshed every minute."""
        return await self._speakers.get(projects)

    async def _load_speakers(self, projects: tuple[str, ...]) -> tuple[str, ...]:
        rows = await self._db.read(_SPEAKERS, projects=list(projects))
        return tuple(str(r["speaker"]) for r in rows if r["speaker"])

    async def turn_keys(self, projects: tuple[str, ...]) -> dict[str, str]:
        """Native source key → turn id for every turn of `projects` (evaluation)."""
        rows = await self._db.read(_TURN_KEYS, projects=list(projects))
        return {str(r["source_key"]): str(r["id"]) for r in rows if r["source_key"]}

    async def fulltext(
        self,
        text: str,
        projects: tuple[str, ...],
        *,
        k: int,
        as_of: int,
        known_at: int,
        pool: int | None = None,
        terms: tuple[list[str], list[str], dict[str, int]] | None = None,
    ) -> list[Hit]:
        """Fulltext hits on turns scored with BM25 (`recall.lexical`), best first (k ≤ 0: all).

        `pool` overrides how many engine matches are scored (default `ranking.fulltext_pool`);
        `terms` is `search_words(text, projects)` when the caller already has it.
        """
        words, searched, df = (
            terms if terms is not None else await self.search_words(text, projects)
        )
        q = self._db.fulltext_query(" ".join(searched))
        if not q or not projects:
            return []
        rows = await self._db.read(
            _TURN_FULLTEXT,
            q=q,
            k=max(k, pool or self.ranking.fulltext_pool),
            cap=self._match_cap,
            projects=list(projects),
            as_of=as_of,
            known_at=known_at,
        )
        if not rows:
            return []
        texts = {r["id"]: r["text"] or "" for r in rows}
        scores = await self._bm25(words, texts, projects, df)
        best = sorted(scores.items(), key=lambda x: (-x[1], x[0]))
        return [Hit(i, s, texts[i]) for i, s in (best if k <= 0 else best[:k])]

    async def _bm25(
        self,
        words: Sequence[str],
        texts: dict[str, str],
        projects: tuple[str, ...],
        df: dict[str, int],
    ) -> dict[str, float]:
        """BM25 of `texts` for `words` with the turn statistics of `projects`.

        Turns and knowledge items are scored with it, so both are on one scale; `df` holds the
        estimated frequencies of words not searched.
        """
        n_docs, avgdl = await self.turn_stats(projects)
        return bm25(
            words,
            texts,
            n_docs=n_docs,
            avgdl=avgdl,
            k1=self.ranking.bm25_k1,
            b=self.ranking.bm25_b,
            df=df,
        )

    async def vector(
        self,
        vector: list[float] | None,
        projects: tuple[str, ...],
        *,
        k: int,
        as_of: int,
        known_at: int,
    ) -> list[Hit]:
        """Nearest turns by embedding (cosine similarity), best first."""
        rows = await self._nearest(_TURN_VECTOR, vector, projects, k, as_of, known_at)
        return [Hit(r["id"], float(r["score"])) for r in rows]

    async def _nearest(
        self,
        query: QueryRef,
        vector: list[float] | None,
        projects: tuple[str, ...],
        k: int,
        as_of: int,
        known_at: int,
    ) -> list[dict[str, Any]]:
        """Rows of a vector-index query: `k` nearest in `projects`, from `k` x 4 over the index."""
        if vector is None or not projects:
            return []
        return await self._db.read(
            query,
            vector=vector,
            k=k,
            k_search=k * _VECTOR_OVERSAMPLE,
            projects=list(projects),
            as_of=as_of,
            known_at=known_at,
        )

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
    ) -> list[Candidate]:
        """Fulltext + vector hits, expanded along `NEXT`, with the fields ranking needs."""
        w = self.ranking
        t0 = time.perf_counter()
        terms = await self.search_words(intent.keyword_query, projects)
        with_knowledge = knowledge and w.knowledge_candidates > 0
        ft_all, vec, kn, kv = await asyncio.gather(
            self.fulltext(
                intent.keyword_query, projects, k=0, as_of=as_of, known_at=known_at, terms=terms
            ),
            self.vector(vector, projects, k=w.vector_candidates, as_of=as_of, known_at=known_at),
            self._knowledge_fulltext(terms[1], projects, as_of, known_at)
            if with_knowledge
            else _no_rows(),
            self._nearest(
                _KNOWLEDGE_VECTOR, vector, projects, w.knowledge_candidates, as_of, known_at
            )
            if with_knowledge
            else _no_rows(),
        )
        t1 = time.perf_counter()
        ft = ft_all[: w.fulltext_candidates]
        bm25_of = {h.id: h.score for h in ft_all}
        known_text = {h.id: h.text for h in ft_all if h.text is not None}
        ranks: dict[str, dict[str, int]] = {}
        for src, hits in ((FULLTEXT, ft), (VECTOR, vec)):
            for i, h in enumerate(hits, start=1):
                ranks.setdefault(h.id, {})[src] = i
        hit_ids = list(ranks)
        weights = {FULLTEXT: w.fulltext_weight, VECTOR: w.vector_weight}
        top_list = sorted(hit_ids, key=lambda i: -rrf(ranks[i], weights, w.rrf_k))[: w.expand_top]
        rows, derived = await asyncio.gather(
            self._db.read(
                _TURNS_FETCH,
                ids=hit_ids,
                top=top_list if w.neighbour_window > 0 else [],
                projects=list(projects),
                window=w.neighbour_window,
                vector=vector,
            )
            if hit_ids
            else _no_rows(),
            self._db.read(
                _KNOWLEDGE_OF_TURNS,
                ids=top_list,
                projects=list(projects),
                as_of=as_of,
                known_at=known_at,
            )
            if with_knowledge and top_list
            else _no_rows(),
        )
        # Knowledge found by fulltext or through its turns gets its cosine here (one query), so
        # every candidate carries a vector score as the vector search's finds do.
        by_vector = {r["id"] for r in kv}
        need_sim = list(dict.fromkeys(r["id"] for r in (*kn, *derived) if r["id"] not in by_vector))
        k_sims = (
            await self._db.read(
                _KNOWLEDGE_SIMILARITY, ids=need_sim, projects=list(projects), vector=vector
            )
            if need_sim and vector is not None
            else []
        )
        neighbours = session_neighbours(rows, w.neighbour_window)
        t2 = time.perf_counter()
        if timings is not None:
            timings.update(search=(t1 - t0) * 1000, expand_fetch=(t2 - t1) * 1000)
        out = []
        for r in rows:
            scores = {}
            if r["id"] in bm25_of:
                scores[FULLTEXT] = bm25_of[r["id"]]
            if r.get("similarity") is not None:
                scores[VECTOR] = float(r["similarity"])
            r["text"] = known_text.get(r["id"])  # None: read later, for the few that need it
            out.append(
                _turn_candidate(r, ranks.get(r["id"], {}), scores, neighbours.get(r["id"], ()))
            )
        sims = {r["id"]: float(r["similarity"]) for r in k_sims if r["similarity"] is not None}
        out.extend(await self._knowledge_candidates(terms, projects, kn, kv, derived, sims))
        return out

    async def _knowledge_candidates(
        self,
        terms: tuple[list[str], list[str], dict[str, int]],
        projects: tuple[str, ...],
        by_text: list[dict[str, Any]],
        by_vector: list[dict[str, Any]],
        derived: list[dict[str, Any]],
        similarity: dict[str, float],
    ) -> list[Candidate]:
        """Knowledge items found by fulltext, by embedding or from the best hits' turns.

        They are ranked per list like turns (RRF) and carry the same raw scores (BM25 of their
        text with the turns' statistics, cosine similarity: from the vector search, else
        `similarity`, read for the others), so they compete with turns on one scale instead of
        only through the turns they came from.
        """
        now = now_ms()
        k_turns: dict[str, list[str]] = {}
        k_rows: dict[str, dict[str, Any]] = {}
        for r in (*by_text, *by_vector):
            k_rows.setdefault(r["id"], r)
            k_turns.setdefault(r["id"], []).extend(r.get("turn_ids") or [])
        for r in derived:
            k_rows.setdefault(r["id"], r)
            k_turns.setdefault(r["id"], []).append(r["turn_id"])
        if not k_rows:
            return []
        ranks: dict[str, dict[str, int]] = {kid: {} for kid in k_rows}
        for i, r in enumerate(by_text, start=1):
            ranks[r["id"]].setdefault(FULLTEXT, i)
        sims = dict(similarity)
        for i, r in enumerate(sorted(by_vector, key=lambda x: -float(x["score"] or 0.0)), 1):
            ranks[r["id"]].setdefault(VECTOR, i)
            sims[r["id"]] = float(r["score"] or 0.0)
        words, _, df = terms
        lexical = await self._bm25(
            words, {kid: r.get("text") or "" for kid, r in k_rows.items()}, projects, df
        )
        out = []
        for kid, r in k_rows.items():
            scores = {}
            if kid in lexical:
                scores[FULLTEXT] = lexical[kid]
            if kid in sims:
                scores[VECTOR] = sims[kid]
            out.append(_knowledge_candidate(r, ranks[kid], scores, k_turns.get(kid, []), now))
        return out

    async def _with_texts(self, items: list[Ranked], projects: tuple[str, ...]) -> list[Ranked]:
        """`items` with the text of every turn whose text was not read yet (one query).

        Candidates are fetched without text (hundreds per request, most never shown); only the
        head that diversity and packing look at needs it.
        """
        pending = [r.candidate.id for r in items if r.candidate.text_pending]
        if not pending:
            return items
        rows = await self._db.read(_TURN_TEXTS, ids=pending, projects=list(projects))
        texts = {r["id"]: r["text"] or "" for r in rows}
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

    async def _knowledge_fulltext(
        self, words: Sequence[str], projects: tuple[str, ...], as_of: int, known_at: int
    ) -> list[dict[str, Any]]:
        q = self._db.fulltext_query(" ".join(words))
        if not q or not projects:
            return []
        rows = await self._db.read(
            _KNOWLEDGE_FULLTEXT,
            q=q,
            k=self.ranking.knowledge_candidates,
            cap=self._match_cap,
            projects=list(projects),
            as_of=as_of,
            known_at=known_at,
        )
        rows.sort(key=lambda r: -float(r["score"] or 0.0))
        return rows

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
        cands = await self.candidates(
            query,
            intent,
            projects,
            as_of=as_of_ms,
            known_at=known_ms,
            vector=vector,
            timings=timings,
        )
        if kinds is not None:
            cands = [c for c in cands if c.kind in kinds or c.kind is ItemKind.TURN]
        t2 = time.perf_counter()
        scored = score_candidates(cands, intent, self.ranking, as_of_ms=as_of_ms, now_ms=now)
        if pack:
            head = await self._with_texts(scored[: mmr_pool_size(limit)], projects)
            items = mmr_pack(
                head, lam=self.ranking.mmr_lambda, limit=limit, token_budget=token_budget
            )
        else:
            items = await self._with_texts(scored[:limit], projects)
        if kinds is not None:
            items = [r for r in items if r.candidate.kind in kinds]
        timings["rank"] = (time.perf_counter() - t2) * 1000
        return ContextResult(items=items, intent=intent, candidates=len(cands), timings_ms=timings)


def session_neighbours(rows: Sequence[dict[str, Any]], window: int) -> dict[str, tuple[str, ...]]:
    """Turn id → ids of the other `rows` in its session at most `window` ordinals away, sorted.

    Ordinals grow along `NEXT`, so this is the `NEXT` neighbourhood the fetch query expanded.
    """
    by_session: dict[str, list[tuple[int, str]]] = {}
    for r in rows:
        if r.get("session_id") is not None and r.get("ordinal") is not None:
            by_session.setdefault(r["session_id"], []).append((int(r["ordinal"]), r["id"]))
    out: dict[str, list[str]] = {}
    for turns in by_session.values():
        turns.sort()
        for i, (o, a) in enumerate(turns):
            for o2, b in turns[i + 1 :]:
                if o2 - o > window:
                    break
                out.setdefault(a, []).append(b)
                out.setdefault(b, []).append(a)
    return {k: tuple(sorted(v)) for k, v in out.items()}


async def _no_rows() -> list[dict[str, Any]]:
    return []


def parse_time(value: datetime | None) -> int | None:
    """Epoch ms of an optional aware datetime."""
    return None if value is None else int(value.timestamp() * 1000)
