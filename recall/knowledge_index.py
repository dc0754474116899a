"""The in-process knowledge index: a project's knowledge items, searched without the engine.

`context` over a single project reads four things about knowledge besides the rules in force:
items matching the query's words, items nearest its embedding, the cosine of other items found,
and the items derived from the best turns. With a project's lessons, corrections, facts, topics,
reference layers and primers held here (a few thousand, each with its times and embedding),
those four are answered in process, and the engine's share of a call shrinks to the clock read.

Exact, never stale: the index is built under the knowledge clock read before its rows
(`cypher/knowledge_clock/bump.cypher`, which every write that may change knowledge moves), and it
is used only while the clock has not moved. A moved clock starts one load in the background; the
engine answers meanwhile. As-of and known-at reads filter by the same columns the engine queries
do (`recall.best_in_scope`: start, record interval, and the end as known then from
`valid_to_was`/`valid_to_until`), and each hit carries its end as known then, as
`recall.knowledge_columns` returns it.

What differs from the engine, by design: the words an item matches are remgraph's own stems
(`recall.lexical.tokenize`), which are also what BM25 scores it by, so an item the engine matched
only by its analyzer (and BM25 scored 0) is not found; each kind's best `k` are those BM25 ranks
first, not the engine's own score; the vector search is exact (no index oversampling).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any

import numpy as np

from core.timeutil import OPEN
from graph.errors import GraphError
from graph.kinds import ItemKind
from graph.repositories.clocks import KnowledgeClock
from graph.repositories.recall import (
    DerivedOfTurns,
    KnowledgeHit,
    KnowledgeTimes,
    RecallRepository,
    derived_of_turns,
)
from recall.blas import one_thread
from recall.lexical import add_bm25_term, bm25_idf, document_frequency, tokenize
from recall.turn_index import NEVER, end_bound, start_bound

log = logging.getLogger("remgraph.recall.knowledge_index")

_MIN_LOAD_GAP_S = 1.0
"""Least time between two background loads of one project."""
_QUICK_LOAD_S = 0.05
"""A project whose load takes less is loaded in the caller whenever the clock moved."""
_EMBEDDED = frozenset({ItemKind.LESSON, ItemKind.CORRECTION, ItemKind.FACT, ItemKind.TOPIC})
"""Kinds the vector search and the similarity read cover (as `recall.knowledge_vector`)."""
_DERIVED = frozenset({ItemKind.LESSON, ItemKind.CORRECTION, ItemKind.FACT})
"""Kinds read through the turns they were derived from (as `recall.knowledge_of_turns`)."""


def _postings(
    texts: Iterable[str],
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], np.ndarray]:
    """What BM25 needs of each text, by `recall.lexical.tokenize`.

    (term -> rows holding it, ascending; term -> its count in each of those rows; each row's
    length in terms.)
    """
    rows: dict[str, list[int]] = defaultdict(list)
    counts: dict[str, list[int]] = defaultdict(list)
    lengths = []
    for i, text in enumerate(texts):
        terms = tokenize(text)
        lengths.append(len(terms))
        for term, count in Counter(terms).items():
            rows[term].append(i)
            counts[term].append(count)
    return (
        {t: np.array(r, dtype=np.int64) for t, r in rows.items()},
        {t: np.array(c, dtype=np.float64) for t, c in counts.items()},
        np.array(lengths, dtype=np.int64),
    )


_FIELDS = [f.name for f in fields(KnowledgeHit)]
_VALUES = attrgetter(*_FIELDS)
_SCORE, _VALID_TO, _TURN_IDS = (_FIELDS.index(n) for n in ("score", "valid_to", "turn_ids"))
"""Where `_hit` puts what a search found among a held item's fields (`replace` costs twice as
much as building the hit from them)."""


def _unit(v: np.ndarray) -> np.ndarray:
    """`v` scaled to length 1 (a zero vector as it is): dot products with it are cosines."""
    return v / (float(np.linalg.norm(v)) or 1.0)


@dataclass(frozen=True)
class Bm25Stats:
    """The collection statistics knowledge BM25 uses: the turns' (one scale for both)."""

    n_docs: int
    avgdl: float
    k1: float
    b: float


class ProjectKnowledge:
    """Every knowledge item of one project: hits, times, postings and embeddings."""

    def __init__(
        self,
        project: str,
        clock: KnowledgeClock,
        items: Iterable[KnowledgeHit],
        times: dict[str, KnowledgeTimes],
    ) -> None:
        self.project = project
        self.clock = clock
        held = [h for h in items if h.id in times]  # written between the two reads: next load
        self.hits = held
        self._fields: list[tuple[Any, ...]] = [_VALUES(h) for h in held]
        """Each hit's field values in order, for `_hit` to copy."""
        self.pos = {h.id: i for i, h in enumerate(held)}
        self.kinds = [h.kind for h in held]
        t = [times[h.id] for h in held]
        self.valid_from = np.array([start_bound(x.valid_from) for x in t], dtype=np.int64)
        self.valid_to = np.array([end_bound(x.valid_to) for x in t], dtype=np.int64)
        self.recorded_at = np.array([start_bound(x.recorded_at) for x in t], dtype=np.int64)
        self.expired_at = np.array([end_bound(x.expired_at) for x in t], dtype=np.int64)
        self.history = {
            i: (x.valid_to_was, x.valid_to_until) for i, x in enumerate(t) if x.valid_to_until
        }
        """Row -> (ends it had, until when each was the end), for the few items ever closed."""
        self.postings, self.freqs, self.lengths = _postings(h.text for h in held)
        self.by_turn: dict[str, list[int]] = defaultdict(list)
        for i, h in enumerate(held):
            if h.kind in _DERIVED:
                for tid in dict.fromkeys(h.turn_ids):
                    self.by_turn[tid].append(i)
        dims = {len(x.embedding) for x in t if x.embedding}
        self.dimensions = dims.pop() if len(dims) == 1 else None
        self.vectors = np.zeros((len(held), self.dimensions or 0), dtype=np.float32)
        self.has_vector = np.zeros(len(held), dtype=bool)
        if self.dimensions is not None:
            for i, (h, x) in enumerate(zip(held, t, strict=True)):
                if h.kind in _EMBEDDED and x.embedding:
                    v = np.asarray(x.embedding, dtype=np.float32)
                    norm = float(np.linalg.norm(v))
                    if norm > 0:
                        self.vectors[i] = v / norm
                        self.has_vector[i] = True

    def __len__(self) -> int:
        return len(self.hits)

    # -- time ------------------------------------------------------------------------------------

    def _known_end(self, known_at: int) -> np.ndarray:
        """Each item's end as known at `known_at` (`recall.best_in_scope`).

        The first of its earlier ends that was still the end then, else the current one.
        """
        if not self.history:
            return self.valid_to
        out = self.valid_to.copy()
        for i, (was, until) in self.history.items():
            for end, stop in zip(was, until, strict=False):
                if stop > known_at:
                    out[i] = end
                    break
        return out

    def _recorded(self, as_of: int, known_at: int) -> np.ndarray:
        """Items started by `as_of` and recorded as known at `known_at` (end not looked at)."""
        return (
            (self.valid_from <= as_of)
            & (self.recorded_at <= known_at)
            & (self.expired_at > known_at)
        )

    def _hit(
        self, i: int, score: float, end: np.ndarray, turn_ids: Sequence[str] | None = None
    ) -> KnowledgeHit:
        known = int(end[i])
        values: list[Any] = list(self._fields[i])
        values[_SCORE] = score
        values[_VALID_TO] = None if known >= OPEN or known == -NEVER else known
        if turn_ids is not None:
            values[_TURN_IDS] = tuple(turn_ids)
        return KnowledgeHit(*values)

    def _in_force(self, as_of: int, known_at: int) -> tuple[np.ndarray, np.ndarray]:
        """(which items hold at `as_of` as known at `known_at`, each one's end as known then)."""
        end = self._known_end(known_at)
        return self._recorded(as_of, known_at) & (end > as_of), end

    def _best_per_kind(
        self, scored: Iterable[tuple[int, float]], k: int, end: np.ndarray
    ) -> list[KnowledgeHit]:
        """The `k` best-scored rows of each kind, best first, equal scores by id."""
        per_kind: dict[ItemKind, list[tuple[float, str, int]]] = defaultdict(list)
        for r, score in scored:
            per_kind[self.kinds[r]].append((-score, self.hits[r].id, r))
        out: list[KnowledgeHit] = []
        for found in per_kind.values():
            out.extend(self._hit(r, -neg, end) for neg, _, r in sorted(found)[:k])
        return out

    # -- searches --------------------------------------------------------------------------------

    def fulltext(
        self, words: Sequence[str], *, k: int, as_of: int, known_at: int, stats: Bm25Stats
    ) -> list[KnowledgeHit]:
        """Up to `k` items per kind holding any of `words` (stems), BM25 best first, then by id."""
        q = list(dict.fromkeys(t for w in words for t in tokenize(w)))
        if k <= 0 or not any(t in self.postings for t in q):
            return []
        live, end = self._in_force(as_of, known_at)
        scores = self._bm25(q, live, stats)
        rows = np.flatnonzero(scores > 0)
        return self._best_per_kind(zip(rows.tolist(), scores[rows].tolist(), strict=True), k, end)

    def _bm25(self, q: Sequence[str], live: np.ndarray, stats: Bm25Stats) -> np.ndarray:
        """Every row's BM25 for the query terms `q` over the live rows holding any of them.

        `recall.lexical.bm25` over those rows' texts, from the stored postings: the same document
        frequencies (live rows holding each term), the same float operations in the same order,
        so the same scores, without tokenising a text per query (rows not matched score 0).
        """
        held = self._terms(q, live)
        if not held:
            return np.zeros(len(self.hits), dtype=np.float64)
        docs = np.unique(np.concatenate([rows for rows, _ in held.values()]))
        return self._scores(held, {t: rows.size for t, (rows, _) in held.items()}, docs, stats)

    def bm25_of(
        self,
        texts: Mapping[str, str],
        words: Sequence[str],
        *,
        df: Mapping[str, int],
        stats: Bm25Stats,
    ) -> dict[str, float] | None:
        """`recall.lexical.bm25(words, texts, df=df, ...)` from the stored postings.

        The same frequencies, lengths and float operations, so the same scores, without
        tokenising the texts; None when one of `texts` is not held here with that text (the
        caller scores the texts themselves).
        """
        rows = []
        for kid, text in texts.items():
            r = self.pos.get(kid)
            if r is None or self.hits[r].text != text:
                return None
            rows.append(r)
        q = list(dict.fromkeys(t for w in words for t in tokenize(w)))
        if not q or not rows:
            return {}
        pool = np.zeros(len(self.hits), dtype=bool)
        pool[rows] = True
        held = self._terms(q, pool)
        freq = document_frequency(q, {t: at.size for t, (at, _) in held.items()}, df)
        scores = self._scores(held, freq, np.asarray(rows, dtype=np.int64), stats)
        got = scores[rows].tolist()
        return {self.hits[r].id: s for r, s in zip(rows, got, strict=True) if s > 0}

    def _terms(
        self, q: Sequence[str], among: np.ndarray
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Query term -> (rows `among` marks that hold it, its count in each), in query order."""
        held = {}
        for t in q:
            rows = self.postings.get(t)
            if rows is not None and (keep := among[rows]).any():
                held[t] = (rows[keep], self.freqs[t][keep])
        return held

    def _scores(
        self,
        held: Mapping[str, tuple[np.ndarray, np.ndarray]],
        freq: Mapping[str, int],
        docs: np.ndarray,
        stats: Bm25Stats,
    ) -> np.ndarray:
        """BM25 per row from `_terms`, the terms added in query order.

        `freq`: each term's document frequency; `docs`: the rows scored (the collection when
        `stats` has no mean length).
        """
        n = max(stats.n_docs, docs.size, *freq.values())
        avg = stats.avgdl if stats.avgdl > 0 else (int(self.lengths[docs].sum()) / docs.size or 1.0)
        scores = np.zeros(len(self.hits), dtype=np.float64)
        for t, (rows, tf) in held.items():  # query order: the float sums of `recall.lexical.bm25`
            add_bm25_term(
                scores,
                rows,
                tf,
                self.lengths[rows],
                bm25_idf(n, freq[t]),
                k1=stats.k1,
                b=stats.b,
                avgdl=avg,
            )
        return scores

    def vector(self, query: np.ndarray, *, k: int, as_of: int, known_at: int) -> list[KnowledgeHit]:
        """The `k` items per kind nearest `query` (exact cosine), of those in force."""
        if k <= 0 or self.dimensions is None or query.shape[-1] != self.dimensions:
            return []
        live, end = self._in_force(as_of, known_at)
        rows = np.flatnonzero(live & self.has_vector)
        if rows.size == 0:
            return []
        return self._best_per_kind(
            zip(rows.tolist(), self._cosines(rows, query), strict=True), k, end
        )

    def similarity(self, ids: Sequence[str], query: np.ndarray) -> dict[str, float]:
        """Item id -> cosine similarity to `query` for the embedded items among `ids`."""
        if self.dimensions is None or query.shape[-1] != self.dimensions:
            return {}
        rows = [r for r in (self.pos.get(i) for i in ids) if r is not None and self.has_vector[r]]
        if not rows:
            return {}
        return {self.hits[r].id: s for r, s in zip(rows, self._cosines(rows, query), strict=True)}

    def _cosines(self, rows: np.ndarray | list[int], query: np.ndarray) -> list[float]:
        """Cosine similarity of each of `rows` (embedded items) to `query`, on one BLAS thread."""
        with one_thread():
            sims = self.vectors[rows] @ _unit(query)
        out: list[float] = sims.tolist()
        return out

    def of_turns(self, turn_ids: Sequence[str], *, as_of: int, known_at: int) -> DerivedOfTurns:
        """Lessons, corrections and facts derived from `turn_ids` (`knowledge_of_turns`)."""
        if not turn_ids:
            return DerivedOfTurns([], frozenset())
        end = self._known_end(known_at)
        recorded = self._recorded(as_of, known_at)
        hits = [
            self._hit(r, 0.0, end, (tid,))
            for tid in dict.fromkeys(turn_ids)
            for r in self.by_turn.get(tid, ())
            if recorded[r]
        ]
        return derived_of_turns(hits, as_of)


class KnowledgeIndexes:
    """The per-project knowledge indexes of one process, each valid under one knowledge clock.

    A project is loaded the first time it is asked for, and again whenever the clock has moved
    since its load: in the caller when loading it is quick, else in the background (at most one
    load a second, less often for a big one), the engine answering until it is done.
    `max_items` bounds the items held per project (0 turns the index off).
    """

    def __init__(self, repo: RecallRepository, *, max_items: int) -> None:
        self._repo = repo
        self._max = max_items
        self._held: dict[str, ProjectKnowledge] = {}
        self._loading: dict[str, asyncio.Task[None]] = {}
        self._too_big: dict[str, KnowledgeClock] = {}
        self._next_load: dict[str, float] = {}
        self._took: dict[str, float] = {}
        """Project -> how long its last load took (seconds)."""
        self._locks: dict[str, asyncio.Lock] = {}
        """Project -> when its next load may start (`_MIN_LOAD_GAP_S`, paced by load time)."""
        self._warm_task: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        return self._max > 0

    async def current(
        self, projects: Sequence[str], clock: KnowledgeClock | None
    ) -> ProjectKnowledge | None:
        """The index of the one project `projects` names, loaded under `clock`, else None.

        `clock` is the knowledge clock read at the start of the call. A project not loaded under
        it is loaded in the caller (others wait for that one load) when its last load took under
        `_QUICK_LOAD_S`, or was never done: a small project's answers always come from the index.
        A bigger one is loaded in the background, paced, and the engine answers meanwhile.
        """
        if not self.enabled or clock is None or len(projects) != 1 or projects[0] == "*":
            return None
        project = projects[0]
        held = self._held.get(project)
        if held is not None and held.clock == clock:
            return held
        if self._too_big.get(project) == clock:
            return None
        if self._took.get(project, 0.0) < _QUICK_LOAD_S:
            async with self._locks.setdefault(project, asyncio.Lock()):
                held = self._held.get(project)
                if held is None or held.clock != clock:
                    await self._load(project, clock)
                    held = self._held.get(project)
            return held if held is not None and held.clock == clock else None
        task = self._loading.get(project)
        if (task is None or task.done()) and time.monotonic() >= self._next_load.get(project, 0.0):
            self._loading[project] = asyncio.create_task(self._load(project, clock))
        return None

    def warm(
        self,
        projects: Callable[[], Awaitable[Sequence[str]]],
        clock: Callable[[], Awaitable[KnowledgeClock | None]],
        *,
        freeze: bool = False,
    ) -> None:
        """Load every project's index in the background (`serve` at start), one at a time.

        Else a project's first call loads it: ~0.3-0.8 s for 2,500 items, in that call. A call
        meanwhile waits for its own project's load, as it would have loaded it itself. The clock
        is read before each project's load (`current`'s rule: the rows are at least as new).
        `freeze`: then move what was loaded to the collector's permanent generation (`gc.freeze`).
        """
        if self.enabled and self._warm_task is None:
            self._warm_task = asyncio.create_task(self._warm(projects, clock, freeze))

    async def _warm(
        self,
        projects: Callable[[], Awaitable[Sequence[str]]],
        clock: Callable[[], Awaitable[KnowledgeClock | None]],
        freeze: bool,
    ) -> None:
        try:
            for project in await projects():
                async with self._locks.setdefault(project, asyncio.Lock()):
                    now = await clock()
                    held = self._held.get(project)
                    if now is not None and (held is None or held.clock != now):
                        await self._load(project, now)
            if freeze:
                gc.collect()
                gc.freeze()
        except GraphError as e:  # calls load what they need themselves
            log.warning("knowledge indexes not warmed up: %s", e)

    async def _load(self, project: str, clock: KnowledgeClock) -> None:
        started = time.monotonic()
        try:
            items, times = await self._repo.indexed_knowledge(project)
            if len(items) > self._max:
                self._held.pop(project, None)
                self._too_big[project] = clock
                log.info("project %s: too many knowledge items for the in-process index", project)
                return
            # Rows read after `clock`: at least as new. A write since then moved the clock, and
            # this index is never used under the newer one.
            self._held[project] = await asyncio.to_thread(
                ProjectKnowledge, project, clock, items, times
            )
        except GraphError as e:
            log.warning("project %s: knowledge index not loaded: %s", project, e)
        finally:
            # While knowledge is written (an ingest) the clock moves on: loads are paced so they
            # take at most a fifth of the time, and the engine answers in between.
            took = self._took[project] = time.monotonic() - started
            self._next_load[project] = time.monotonic() + max(_MIN_LOAD_GAP_S, 4 * took)

    async def wait(self) -> None:
        """Wait for the loads running now, the start-up load's included (tests, benchmarks)."""
        running = (*self._loading.values(), self._warm_task)
        tasks = [t for t in running if t is not None and not t.done()]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def stop(self) -> None:
        """Cancel the loads running now (shutdown)."""
        for t in (*self._loading.values(), self._warm_task):
            if t is not None:
                t.cancel()
        await self.wait()

    def status(self) -> dict[str, object]:
        """What `/readyz` reports: whether the start-up load runs, projects and items held."""
        return {
            "warming": self._warm_task is not None and not self._warm_task.done(),
            "projects": len(self._held),
            "items": sum(len(p) for p in self._held.values()),
        }
