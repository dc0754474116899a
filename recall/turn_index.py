"""The in-process turn index: a project's turns held by the API, searched without the engine.

`context` over a single project finds its turn candidates here: BM25 over postings built once per
turn (the stems `recall.lexical` uses), exact cosine similarity over the embeddings (in two
passes, `recall.scan`), and each candidate's columns, neighbours and text. The engine answers
only the knowledge reads.

It is exact, never stale: every write to a turn or a session moves the graph's turn clock inside
the same transaction and logs the ids it changed under the new sequence number
(`cypher/turn_index/bump.cypher`). Each `context` call reads the clock (one small query); when it
moved, the turns and sessions logged after the index's number are read and applied before the
search runs (one caller refreshes, the others wait for it). Deleting turns (purging a project)
starts a new clock epoch, and a new epoch loads the project again in full. As-of reads filter by
the same four interval columns the engine queries do.

Updates run in worker threads; searches too while other requests are in flight (numpy releases
the interpreter lock, and the event loop keeps serving), on the loop for a lone request
(`recall.offload`). Either way one at a time per project (`ProjectTurns.lock`), so a search never
sees half an update. A full load builds a new index that nobody reads until it is done.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import threading
from array import array
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.timeutil import OPEN
from graph.errors import GraphError
from graph.repositories.clocks import ClockRepository, TurnClock
from graph.repositories.recall import IndexedTurn, RecallRepository, TurnFacts, TurnHit
from recall.candidates import TurnFields, columns_of
from recall.items import TurnColumns
from recall.lexical import add_bm25_term, tokenize
from recall.scan import Cosines, quantize, shelf
from recall.scan import warm as warm_scan

log = logging.getLogger("remgraph.recall.turn_index")

_PAGE = 2000
_BLOCK = 4096
"""Rows per vector block: an embedding written updates one block in place, appends fill the last."""
NEVER = np.iinfo(np.int64).max
"""An interval bound no time reaches: a missing start (`start_bound`) or, negated, end."""
_CHARS_PER_WORD = 5.5
"""As `RetrievalService` turns mean characters into mean words for BM25 (`turn_stats`)."""


def start_bound(v: int | None) -> int:
    """An interval start; a missing one is never reached (a null compares false in Cypher)."""
    return NEVER if v is None else v


def end_bound(v: int | None) -> int:
    """An interval end; a missing one is already past."""
    return -NEVER if v is None else v


@dataclass(frozen=True)
class Bm25Params:
    """BM25 constants (`RankingSection.bm25_k1`, `bm25_b`)."""

    k1: float
    b: float


class ProjectTurns:
    """Every turn of one project: columns, postings and embeddings, with the clock they match."""

    def __init__(self, project: str, dimensions: int | None = None, block: int = _BLOCK) -> None:
        self.project = project
        self.block = block
        self.lock = threading.Lock()
        """Held by every search and update (they run in worker threads)."""
        self.clock: TurnClock | None = None
        self.ids: list[str] = []
        self.pos: dict[str, int] = {}
        self.session: list[str | None] = []
        self.ordinal = array("q")
        self.speaker: list[str] = []
        self.tokens = array("q")
        self.valid_from = array("q")
        self.valid_to = array("q")
        self.recorded_at = array("q")
        self.expired_at = array("q")
        self.pending = array("b")
        self.alive = array("b")
        """0 for a row a later write replaced (its text changed: the turn was appended again)."""
        self.texts: list[str] = []
        self.length = array("q")
        self.chars = 0
        self.live_rows = 0
        self.docs: dict[str, array[int]] = {}
        """Postings: term -> the rows holding it (arrays: untracked by the garbage collector)."""
        self.freqs: dict[str, array[int]] = {}
        """term -> how often each of those rows holds it."""
        self.df: dict[str, int] = {}
        """Live turns per term: read without the lock (a dict read is atomic)."""
        self.has_vector = array("b")
        self.blocks: list[np.ndarray] = []
        """Unit embeddings, float32, `block` rows each (zeros for a row without one)."""
        self.codes: list[np.ndarray] = []
        self.scales: list[np.ndarray] = []
        self.errors: list[np.ndarray] = []
        """The same rows as int8 codes, with a scale and an error each, for `recall.scan`."""
        self.unquantized: list[int] = []
        """Rows whose vector was written since the codes were last made (empty after `apply`)."""
        self.shelf: Any = None
        """`blocks` as the kernels read them (`recall.scan.shelf`), made at the first search."""
        self.dimensions = dimensions
        self.quality: dict[str, float | None] = {}
        self.by_session: dict[str, dict[int, int]] = {}

    def __len__(self) -> int:
        return self.live_rows

    # -- updates ---------------------------------------------------------------------------------

    def apply(
        self, turns: Iterable[IndexedTurn], quality: dict[str, float | None], clock: TurnClock
    ) -> None:
        """Take in turns written (new or changed) and session qualities, then stamp `clock`.

        The int8 codes of the vectors written are made here, in the loader's worker thread, not
        in the next search: a project's first `context` call after `serve` loaded it paid for the
        whole project's codes (25K turns: ~130 ms in that call).
        """
        with self.lock:
            for t in turns:
                self._put(t)
            self.quality.update(quality)
            self._quantize()
            self.clock = clock

    def _put(self, t: IndexedTurn) -> None:
        row = self.pos.get(t.id)
        if row is not None and self.texts[row] == t.text and self.session[row] == t.session_id:
            self._set_columns(row, t)
            self._set_vector(row, t.embedding)
            return
        if row is not None:  # new text: a new row, the old one dead
            self.alive[row] = 0
            self.chars -= len(self.texts[row])
            self.live_rows -= 1
            self._unlink(row)
            for term in set(tokenize(self.texts[row])):
                self.df[term] -= 1
        row = len(self.ids)
        self.ids.append(t.id)
        self.pos[t.id] = row
        self.session.append(t.session_id)
        self.speaker.append("")
        self.texts.append(t.text)
        for col in (self.ordinal, self.tokens, self.valid_from, self.valid_to):
            col.append(0)
        for col in (self.recorded_at, self.expired_at):
            col.append(0)
        self.pending.append(0)
        self.alive.append(1)
        self.has_vector.append(0)
        self._set_columns(row, t)
        terms = tokenize(t.text)
        self.length.append(len(terms))
        self.chars += len(t.text)
        self.live_rows += 1
        for term, tf in Counter(terms).items():
            docs = self.docs.get(term)
            if docs is None:
                docs = self.docs[term] = array("q")
                self.freqs[term] = array("q")
            docs.append(row)
            self.freqs[term].append(tf)
            self.df[term] = self.df.get(term, 0) + 1
        self._grow_blocks()
        self._set_vector(row, t.embedding)
        if t.session_id is not None and t.ordinal is not None:
            self.by_session.setdefault(t.session_id, {})[t.ordinal] = row

    def _grow_blocks(self) -> None:
        """Vector blocks for every row, once the dimension is known.

        A row without a vector holds zeros, so the blocks line up with the rows whichever rows
        get vectors first.
        """
        if self.dimensions is None:
            return
        while len(self.blocks) * self.block < len(self.ids):
            self.blocks.append(np.zeros((self.block, self.dimensions), dtype=np.float32))
            self.codes.append(np.zeros((self.block, self.dimensions), dtype=np.int8))
            self.scales.append(np.zeros(self.block, dtype=np.float32))
            self.errors.append(np.zeros(self.block, dtype=np.float32))

    def _unlink(self, row: int) -> None:
        sid = self.session[row]
        ordinal = self.ordinal[row]
        if sid is not None and self.by_session.get(sid, {}).get(ordinal) == row:
            del self.by_session[sid][ordinal]

    def _set_columns(self, row: int, t: IndexedTurn) -> None:
        self.ordinal[row] = -1 if t.ordinal is None else t.ordinal
        self.speaker[row] = t.speaker
        self.tokens[row] = t.tokens
        self.valid_from[row] = start_bound(t.valid_from)
        self.valid_to[row] = end_bound(t.valid_to)
        self.recorded_at[row] = start_bound(t.recorded_at)
        self.expired_at[row] = end_bound(t.expired_at)
        self.pending[row] = 1 if t.vector_pending else 0

    def _set_vector(self, row: int, embedding: Sequence[float] | None) -> None:
        if embedding is None or len(embedding) == 0:
            self.has_vector[row] = 0
            return
        v = np.asarray(embedding, dtype=np.float32)
        if self.dimensions is None:
            self.dimensions = int(v.shape[0])
            self._grow_blocks()
        if v.shape[0] != self.dimensions:
            self.has_vector[row] = 0
            return
        norm = float(np.linalg.norm(v))
        self.blocks[row // self.block][row % self.block] = v / norm if norm > 0 else v
        self.has_vector[row] = 1 if norm > 0 else 0
        self.unquantized.append(row)

    def _quantize(self) -> None:
        """Codes for the rows written since the last search, a block at a time."""
        if not self.unquantized:
            return
        rows = np.unique(np.asarray(self.unquantized, dtype=np.int64))
        self.unquantized.clear()
        which = rows // self.block
        for b in np.unique(which).tolist():
            local = rows[which == b] - b * self.block
            codes, scale, error = quantize(self.blocks[b][local])
            self.codes[b][local] = codes
            self.scales[b][local] = scale
            self.errors[b][local] = error

    # -- reads -----------------------------------------------------------------------------------

    def stats(self) -> tuple[int, float]:
        """(turn count, mean length in words) as `RetrievalService.turn_stats` computes them."""
        n = self.live_rows
        return n, (self.chars / n / _CHARS_PER_WORD) if n else 0.0

    def live(self, as_of: int, known_at: int) -> np.ndarray:
        """Rows readable at event time `as_of` as recorded at `known_at` (bool per row)."""
        n = len(self.ids)

        def col(a: array[int]) -> np.ndarray:
            return np.frombuffer(a, dtype=np.int64, count=n)

        return (
            (np.frombuffer(self.alive, dtype=np.int8, count=n) > 0)
            & (col(self.valid_from) <= as_of)
            & (col(self.valid_to) > as_of)
            & (col(self.recorded_at) <= known_at)
            & (col(self.expired_at) > known_at)
        )

    def document_frequency(self, words: Iterable[str]) -> dict[str, int]:
        """Word -> how many turns of the project hold its stem (0 for a word with none).

        Lock-free: it reads `df` only.
        """
        return {w: max((self.df.get(t, 0) for t in tokenize(w)), default=0) for w in words}

    def search(
        self,
        words: Sequence[str],
        query: np.ndarray | None,
        *,
        as_of: int,
        known_at: int,
        k_text: int,
        k_vector: int,
        params: Bm25Params,
    ) -> tuple[list[TurnHit], list[TurnHit], Cosines | None, np.ndarray]:
        """(BM25 hits, nearest by cosine, every row's cosine, the live mask) for one query.

        Under the lock. The mask is `live(as_of, known_at)`, for `candidates` to reuse.
        """
        with self.lock:
            live = self.live(as_of, known_at)  # one mask for both searches
            sims = None if query is None else self.similarities(query)
            text = self.fulltext(
                words, as_of=as_of, known_at=known_at, k=k_text, params=params, live=live
            )
            near = self.vector(sims, as_of=as_of, known_at=known_at, k=k_vector, live=live)
        return text, near, sims, live

    def fulltext(
        self,
        words: Sequence[str],
        *,
        as_of: int,
        known_at: int,
        k: int,
        params: Bm25Params,
        live: np.ndarray | None = None,
    ) -> list[TurnHit]:
        """The `k` best live turns by BM25 for `words`, with their text.

        The same formula as `recall.lexical.bm25` with exact document frequencies: every turn of
        the project holding a word is in the postings. `live`: `live(as_of, known_at)` when the
        caller has it.
        """
        q = list(dict.fromkeys(t for w in words for t in tokenize(w)))
        n_docs, avgdl = self.stats()
        if not q or n_docs == 0:
            return []
        n = len(self.ids)
        length = np.frombuffer(self.length, dtype=np.int64, count=n)
        scores = np.zeros(n, dtype=np.float64)
        touched = np.zeros(n, dtype=bool)
        avg = avgdl if avgdl > 0 else 1.0
        for term in q:
            held = self.docs.get(term)
            if held is None:
                continue
            docs = np.frombuffer(held, dtype=np.int64)
            tf = np.frombuffer(self.freqs[term], dtype=np.int64).astype(np.float64)
            df = self.df.get(term, 0)
            if df == 0:
                continue
            # numpy's log: it differs from `bm25_idf`'s in the last bit for a few (n, df)
            idf = float(np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5)))
            add_bm25_term(scores, docs, tf, length[docs], idf, k1=params.k1, b=params.b, avgdl=avg)
            touched[docs] = True
        if live is None:
            live = self.live(as_of, known_at)
        hit = np.flatnonzero(touched & live & (scores > 0))
        return [TurnHit(self.ids[i], s, self.texts[i]) for s, i in self._top(hit, scores[hit], k)]

    def vector(
        self,
        sims: Cosines | None,
        *,
        as_of: int,
        known_at: int,
        k: int,
        live: np.ndarray | None = None,
    ) -> list[TurnHit]:
        """The `k` live turns nearest the query by cosine similarity, every embedded turn scored.

        `sims` is `similarities(query)`; `live` as for `fulltext`.
        """
        if sims is None:
            return []
        n = len(self.ids)
        has = np.frombuffer(self.has_vector, dtype=np.int8, count=n) > 0
        if live is None:
            live = self.live(as_of, known_at)
        hit = np.flatnonzero(has & live)
        rows, cosine = sims.contenders(hit, k)
        return [TurnHit(self.ids[i], s) for s, i in self._top(rows, cosine, k)]

    def similarities(self, query: np.ndarray) -> Cosines | None:
        """Cosine similarity of every row to `query` (rows without a vector score 0)."""
        if self.dimensions is None or query.shape[0] != self.dimensions or not self.ids:
            return None
        norm = float(np.linalg.norm(query))
        qn = (query / norm if norm > 0 else query).astype(np.float32)
        self.shelf = shelf(self.blocks, self.shelf)
        return Cosines(
            self.shelf, self.codes, self.scales, self.errors, self.block, len(self.ids), qn
        )

    def _top(self, rows: np.ndarray, part: np.ndarray, k: int) -> list[tuple[float, int]]:
        """(score, row) of `rows` scored `part`, by score (ties by id).

        The best `k`, all when k <= 0.
        """
        if k > 0 and rows.size > k:
            # keep every row tied with the k-th, so ties break by id as the engine queries do
            kth = np.partition(part, part.size - k)[part.size - k]
            keep = part >= kth
            rows, part = rows[keep], part[keep]
        ids = self.ids
        ordered = sorted(
            zip(part.tolist(), rows.tolist(), strict=True), key=lambda p: (-p[0], ids[p[1]])
        )
        return ordered if k <= 0 else ordered[:k]

    def facts(
        self,
        ids: Sequence[str],
        top: Collection[str],
        window: int,
        *,
        as_of: int,
        known_at: int,
        sims: Cosines | None,
        scored: Collection[str],
        live: np.ndarray | None = None,
    ) -> list[TurnFacts]:
        """What `RecallRepository.turns_fetch` returns, from the index.

        The turns `ids` plus the live turns of their sessions within `window` ordinals of the
        turns `top`, with their columns; `sims` is `similarities(query)` (None: no query vector).
        `live` is the mask `search` used for the same times: rows added since count as not live
        (the search did not see them either).
        """
        rows = self._rows(ids, top, window, as_of=as_of, known_at=known_at, live=live)
        return self._fields(rows, sims, scored).facts()

    def columns(
        self,
        ids: Sequence[str],
        top: Collection[str],
        window: int,
        *,
        as_of: int,
        known_at: int,
        sims: Cosines | None,
        live: np.ndarray | None,
        ranks: Mapping[str, dict[str, int]],
        bm25_of: Mapping[str, float],
        cosine_of: Mapping[str, float],
    ) -> TurnColumns:
        """The turns `facts` returns, with their texts, as ranking's columns, under the lock.

        `ranks`, `bm25_of` and `cosine_of` as `recall.candidates.turn_columns` takes them (the
        vector search's scores `cosine_of` stand for `sims` of the turns it found).
        """
        with self.lock:
            rows = self._rows(ids, top, window, as_of=as_of, known_at=known_at, live=live)
            f = self._fields(rows, sims, cosine_of)
            text: list[str | None] = [self.texts[r] for r in rows]
            return columns_of(
                f, text, ranks=ranks, bm25_of=bm25_of, cosine_of=cosine_of, window=window
            )

    def _rows(
        self,
        ids: Sequence[str],
        top: Collection[str],
        window: int,
        *,
        as_of: int,
        known_at: int,
        live: np.ndarray | None,
    ) -> list[int]:
        """The rows `facts` returns, in its order."""
        n = len(self.ids)
        if live is None:
            live = self.live(as_of, known_at)
        elif live.shape[0] < n:
            live = np.concatenate([live, np.zeros(n - live.shape[0], dtype=bool)])
        rows: dict[int, None] = {}
        for i in ids:
            r = self.pos.get(i)
            if r is not None and self.alive[r]:
                rows[r] = None
        if window > 0:
            for i in top:
                r = self.pos.get(i)
                sid = None if r is None else self.session[r]
                if r is None or sid is None or self.ordinal[r] < 0:
                    continue
                here = self.by_session.get(sid, {})
                o = self.ordinal[r]
                for d in range(-window, window + 1):
                    near = here.get(o + d)
                    if near is not None and live[near]:
                        rows[near] = None
        return list(rows)

    def _fields(self, rows: list[int], sims: Cosines | None, scored: Collection[str]) -> TurnFields:
        """The columns of `rows`, as `TurnFacts` holds them (None for a missing value)."""
        n = len(self.ids)
        at = np.fromiter(rows, dtype=np.int64, count=len(rows))

        def column(a: array[int], dtype: type = np.int64) -> list[int]:
            got: list[int] = np.frombuffer(a, dtype=dtype, count=n)[at].tolist()
            return got

        ids = [self.ids[r] for r in rows]
        similarity: list[float | None] = [None] * len(rows)
        if sims is not None:
            with_vector = column(self.has_vector, np.int8)
            need = [j for j, (i, v) in enumerate(zip(ids, with_vector, strict=True)) if v]
            need = [j for j in need if ids[j] not in scored]  # `scored`: known already
            for j, c in zip(need, sims.exact(at[need]).tolist(), strict=True):
                similarity[j] = c
        session = [self.session[r] for r in rows]
        quality = self.quality
        return TurnFields(
            ids=ids,
            project=[self.project] * len(rows),
            session=session,
            ordinal=[None if o < 0 else o for o in column(self.ordinal)],
            speaker=[self.speaker[r] for r in rows],
            tokens=column(self.tokens),
            valid_from=[None if v == NEVER else v for v in column(self.valid_from)],
            valid_to=[None if v >= OPEN else v for v in column(self.valid_to)],
            quality=[None if sid is None else quality.get(sid) for sid in session],
            similarity=similarity,
            pending=np.frombuffer(self.pending, dtype=np.int8, count=n)[at] != 0,
        )

    def texts_of(self, ids: Iterable[str]) -> dict[str, str]:
        """Turn id -> text for the turns of `ids` this project holds."""
        out = {}
        for i in ids:
            r = self.pos.get(i)
            if r is not None:
                out[i] = self.texts[r]
        return out


class TurnIndexes:
    """The per-project turn indexes of one process, each refreshed to the graph's turn clock.

    `max_turns` bounds the turns held over all projects (about 1.7 KB each with a 384-d
    embedding); a project that would pass it is searched by the engine instead. 0 turns the
    index off.
    """

    def __init__(self, repo: RecallRepository, *, max_turns: int) -> None:
        self._repo = repo
        self._clock = ClockRepository(repo.db)
        self._max = max_turns
        self._projects: dict[str, ProjectTurns] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._too_big: dict[str, int] = {}
        """Project -> the clock epoch in which it did not fit: tried again in a new epoch only
        (turns are deleted, so room is freed, only then), not on every write."""
        self._warming: set[str] = set()
        self._warm_task: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        return self._max > 0

    def held(self) -> int:
        """Turns held over every project."""
        return sum(len(p) for p in self._projects.values())

    async def current(self, projects: Sequence[str]) -> ProjectTurns | None:
        """`current_at` with the turn clock read now."""
        if not self.enabled or len(projects) != 1 or projects[0] == "*":
            return None
        return await self.current_at(projects, await self._clock.turn_clock())

    async def current_at(
        self, projects: Sequence[str], clock: TurnClock | None
    ) -> ProjectTurns | None:
        """The index of the one project `projects` names, as of `clock`, the turn clock now.

        None when the scope is not one project, the index is off, no turn was written through
        the clock yet, or the project is too big to hold: the caller searches the engine.
        """
        if not self.enabled or len(projects) != 1 or projects[0] == "*" or clock is None:
            return None
        project = projects[0]
        held = self._projects.get(project)
        if held is not None and held.clock == clock:
            return held
        if held is None and project in self._warming:
            return None  # being loaded in the background: the engine answers meanwhile
        lock = self._locks.setdefault(project, asyncio.Lock())
        async with lock:
            held = self._projects.get(project)
            now = held.clock if held is not None else None
            if now is not None and now.epoch == clock.epoch and now.seq >= clock.seq:
                return held
            return await self._refresh(project, held)

    async def _refresh(self, project: str, held: ProjectTurns | None) -> ProjectTurns | None:
        clock = await self._clock.turn_clock()  # read before the rows: they are at least as new
        if clock is None:
            return None
        if (
            held is not None
            and held.clock is not None
            and (held.clock.epoch != clock.epoch or held.clock.seq + 1 < clock.kept_from)
        ):
            held = None  # turns deleted, or changes no longer logged: load in full
        if held is None and self._too_big.get(project) == clock.epoch:
            return None
        if held is None or held.clock is None:
            turns = await self._read_all(project)
            quality = await self._repo.session_quality(project)
        else:
            turn_ids, session_ids = await self._repo.turn_changes(project, held.clock.seq)
            turns = []
            for i in range(0, len(turn_ids), _PAGE):
                turns.extend(await self._repo.indexed_turns_by_id(project, turn_ids[i : i + _PAGE]))
            quality = await self._repo.session_quality(project, session_ids) if session_ids else {}
        room = self._max - self.held() + (0 if held is None else len(held))
        if (0 if held is None else len(held)) + len(turns) > room:
            self._projects.pop(project, None)
            self._too_big[project] = clock.epoch
            log.info("project %s: too many turns for the in-process index", project)
            return None
        fresh = held if held is not None else ProjectTurns(project)
        await asyncio.to_thread(fresh.apply, turns, quality, clock)
        self._projects[project] = fresh
        return fresh

    def status(self) -> dict[str, object]:
        """What `/readyz` reports: whether the start-up load runs, projects and turns held."""
        return {
            "warming": self._warm_task is not None and not self._warm_task.done(),
            "projects": len(self._projects),
            "turns": self.held(),
        }

    def warm(self, *, freeze: bool = False) -> None:
        """Load every project's index in the background, most turns first (`serve` at start).

        Until its project is loaded, a call is answered by the engine instead of waiting.
        `freeze`: then move everything alive to the collector's permanent generation
        (`gc.freeze`, as `serve` does at start), so full collections do not walk the indexes.
        """
        if self.enabled and self._warm_task is None:
            self._warm_task = asyncio.create_task(self._warm(freeze))

    async def warmed(self) -> None:
        """Wait for the start-up load, if one runs (benchmarks measure after it)."""
        if self._warm_task is not None:
            await asyncio.shield(self._warm_task)

    async def stop(self) -> None:
        """Stop a start-up load still running (the engine is about to close)."""
        task, self._warm_task = self._warm_task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _warm(self, freeze: bool) -> None:
        try:
            await asyncio.to_thread(warm_scan)  # compile it now, not in the first request
            projects = await self._clock.projects()
            self._warming.update(projects)
            for project in projects:
                try:
                    async with self._locks.setdefault(project, asyncio.Lock()):
                        if project not in self._projects:
                            await self._refresh(project, None)
                finally:
                    self._warming.discard(project)
            if freeze:
                gc.collect()
                gc.freeze()
        except GraphError as e:  # requests load what they need themselves
            log.warning("turn indexes not warmed up: %s", e)
        finally:
            self._warming.clear()

    async def _read_all(self, project: str) -> list[IndexedTurn]:
        out: list[IndexedTurn] = []
        after = ""
        while True:
            page = await self._repo.indexed_turns(project, after=after, limit=_PAGE)
            out.extend(page)
            if len(page) < _PAGE or len(out) > self._max:
                return out
            after = page[-1].id
