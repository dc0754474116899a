"""Context ranking: pure functions from candidates to a ranked, diverse, budget-packed list.

No I/O happens here; `recall/retrieval.py` fetches candidates from the engine and calls `rank`.

Pipeline:

1. **Validity**: items not valid at `as_of` are dropped (the Cypher already filters; this guards).
2. **Fusion**: reciprocal-rank fusion of the engine's lists (fulltext BM25-style, vector):
   `fused = Σ_list w_list / (k + rank)`, normalised by its maximum `Σ w_list / (k + 1)` so a
   candidate first in every list scores 1. `k` is `RankingSection.rrf_k` (10, tuned on the LoCoMo
   dev file; Cormack et al. 2009 use 60). Min-max scaled BM25 and cosine scores are added, so a
   large score margin counts, not only the order.
3. **Graph context**: a turn receives a share of its best `NEXT` neighbour's fused score (dialogue
   context: the question before an answer), of its session's aggregate (mean of the session's best
   fused scores), and of the knowledge items derived from it (provenance pointing back); knowledge
   items receive a share of their source turns' scores.
4. **Rerank**: multiplicative boosts for a speaker the query names, a time the query names, topic
   weight, lesson weight × effectiveness, a correction's effective weight, session quality, and an
   optional recency decay.
5. **Diversity and budget**: maximal marginal relevance (cosine on embeddings, else word overlap)
   picks items greedily while they fit in the token budget.

Steps 2-4 are `recall.signals`: the fusion (`fuse`) and one function per signal, registered in
`recall.signals.SIGNALS`. Every weight is a field of `RankingSection`; `why` on each result holds
each signal's value. Turns, hundreds per query, are scored as columns (`recall.items.TurnColumns`,
each signal's column form) with the same floats, and become `Ranked` only when read (`Scored`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np

from core.text import alnum_words
from graph.kinds import FACT, TURN, ItemKind
from recall.config import RankingSection
from recall.items import (
    FULLTEXT,
    VECTOR,
    Candidate,
    CandidateSet,
    Ranked,
    TurnColumns,
    rrf,
    valid_at,
)
from recall.signals import SIGNALS, ColumnValue, Effect, QueryState, Signal, fuse_all
from recall.understand import QueryIntent

__all__ = [
    "FULLTEXT",
    "VECTOR",
    "Candidate",
    "Ranked",
    "Scored",
    "concerns_query",
    "gate_floor",
    "mmr_pack",
    "mmr_pool_size",
    "rank",
    "rrf",
    "score_candidates",
    "similarity",
    "valid_at",
]

_WHY_KEYS = tuple((src, f"{src}_rank", f"{src}_score") for src in (FULLTEXT, VECTOR))


def _words(text: str) -> frozenset[str]:
    return frozenset(alnum_words(text))


def similarity(
    a: Candidate,
    b: Candidate,
    wa: frozenset[str] | None = None,
    wb: frozenset[str] | None = None,
) -> float:
    """Cosine similarity of embeddings when both have one, else Jaccard overlap of words.

    `wa`/`wb` are the items' word sets when the caller already has them.
    """
    if a.embedding and b.embedding and len(a.embedding) == len(b.embedding):
        dot = sum(x * y for x, y in zip(a.embedding, b.embedding, strict=True))
        na = math.sqrt(sum(x * x for x in a.embedding))
        nb = math.sqrt(sum(y * y for y in b.embedding))
        return dot / (na * nb) if na and nb else 0.0
    wa = _words(a.text) if wa is None else wa
    wb = _words(b.text) if wb is None else wb
    if not wa or not wb:
        return 0.0
    shared = len(wa & wb)  # |a ∪ b| = |a| + |b| − |a ∩ b|: one set built, not two
    return shared / (len(wa) + len(wb) - shared)


def mmr_pool_size(limit: int) -> int:
    """How many of the best-scored items `mmr_pack` considers for `limit` results."""
    return max(limit * 3, 60)


class _Greedy:
    """The state of one lazy greedy MMR selection over `pool` (sorted by score on entry)."""

    def __init__(self, pool: list[Ranked], lam: float) -> None:
        self.pool = pool
        self.lam = lam
        self.top = max(r.score for r in pool) or 1.0
        self.order = sorted(range(len(pool)), key=lambda i: -pool[i].score)
        self.picked: list[int] = []
        self.max_sim = [0.0] * len(pool)
        self.compared = [0] * len(pool)  # how many picked items each candidate was compared with
        self.alive = [True] * len(pool)
        self._words: list[frozenset[str] | None] = [None] * len(pool)
        """Each item's word set, made when it is first compared (most never are)."""

    def words(self, i: int) -> frozenset[str]:
        got = self._words[i]
        if got is None:
            got = self._words[i] = _words(self.pool[i].candidate.text)
        return got

    def _penalty(self, i: int) -> float:
        """Highest similarity of item `i` to the items picked so far (compared incrementally)."""
        if self.lam < 1.0 and self.compared[i] < len(self.picked):
            c, words = self.pool[i].candidate, self.words(i)
            for j in self.picked[self.compared[i] :]:
                sim = similarity(c, self.pool[j].candidate, words, self.words(j))
                if sim > self.max_sim[i]:
                    self.max_sim[i] = sim
            self.compared[i] = len(self.picked)
        return self.max_sim[i]

    def next_pick(self, left: int | None) -> int:
        """The index of the best item that fits in `left` tokens, or -1.

        Candidates go in score order; a penalty is never negative, so once `lam * rel` cannot
        beat the best value found no later candidate can, and similarities are only computed for
        candidates still in the running (the same picks as the eager loop).
        """
        best_i = -1
        best_v = -math.inf
        for i in self.order:
            if not self.alive[i]:
                continue
            if left is not None and self.pool[i].candidate.tokens > left:
                self.alive[i] = False
                continue
            rel = self.lam * (self.pool[i].score / self.top)
            if rel <= best_v:
                break
            v = rel - (1.0 - self.lam) * self._penalty(i)
            if v > best_v:
                best_v, best_i = v, i
        return best_i

    def take(self, i: int) -> None:
        self.alive[i] = False
        self.picked.append(i)


def mmr_pack(
    scored: Sequence[Ranked],
    *,
    lam: float,
    limit: int,
    token_budget: int | None,
) -> list[Ranked]:
    """Pick up to `limit` items by maximal marginal relevance that fit in `token_budget`.

    At each step the item maximising `lam * rel - (1 - lam) * max_sim_to_picked` among those that
    still fit is taken (`rel` = score / best score). Items too large for what is left are skipped,
    so a smaller one further down can still fill the budget (greedy packing).
    """
    if not scored or limit <= 0:
        return []
    # Diversity only reorders the head; bound the work to a few times what is returned.
    greedy = _Greedy(list(scored[: mmr_pool_size(limit)]), lam)
    left = token_budget
    while len(greedy.picked) < limit:
        i = greedy.next_pick(left)
        if i < 0:
            break
        greedy.take(i)
        if left is not None:
            left -= greedy.pool[i].candidate.tokens
    return [greedy.pool[i] for i in greedy.picked]


def concerns_query(
    c: Candidate, w: RankingSection, *, related: bool = False, best_turn: float | None = None
) -> bool:
    """The relevance gate: whether a distilled item concerns the query at all (turns always do).

    Its meaning is close (cosine similarity to the query at least `knowledge_min_similarity`),
    it shares a query word and is not far off (`knowledge_lexical_min_similarity`), or the
    caller found it `related`: about a subject the query concerns (a slot of the declared
    vocabulary, `recall.slots`: "use yarn, not npm" for "how do I add a dependency?", whose
    words and cosine say little), or distilled from one of the turns closest to the query in
    meaning (the item is that evidence, restated). Without a cosine (no query vector, or the
    item's is still pending) a shared word is the only other evidence. Weight, stage and
    recency never open the gate: they order what passed it; nor does a source turn that only
    shares a word or two with the query (a long turn matches many queries so).

    Within one project everything is about the same things, so cosines run high for any pair:
    by meaning (with or without a shared word) an item must also come within
    `knowledge_turn_margin` of `best_turn`, the cosine of the turn closest to the query. A
    distilled item that means less to the query than the evidence it would be put above stays
    out.
    """
    if c.kind is TURN or related:
        return True
    lexical = c.scores.get(FULLTEXT, 0.0) > 0
    sim = c.scores.get(VECTOR)
    if sim is None:
        return lexical
    return sim >= gate_floor(w, best_turn, lexical=lexical)


def gate_floor(w: RankingSection, best_turn: float | None, *, lexical: bool) -> float:
    """The cosine the gate asks of a distilled item, or of the turn it was distilled from.

    `knowledge_lexical_min_similarity` with a shared word, else `knowledge_min_similarity`;
    and within `knowledge_turn_margin` of `best_turn`, the closest turn's cosine, when known.
    """
    floor = w.knowledge_lexical_min_similarity if lexical else w.knowledge_min_similarity
    return floor if best_turn is None else max(floor, best_turn - w.knowledge_turn_margin)


def _evidence(c: Candidate, fused: float) -> dict[str, float]:
    """The start of `why`: the fused relevance, then each list's rank and raw score."""
    why: dict[str, float] = {"fused": fused}
    for src, rank_key, score_key in _WHY_KEYS:
        if src in c.ranks:
            why[rank_key] = float(c.ranks[src])
        if src in c.scores:
            why[score_key] = float(c.scores[src])
    return why


class Scored(Sequence[Ranked]):
    """What `score_candidates` returns: the scored candidates, best first (a sequence of `Ranked`).

    A turn becomes a `Ranked` (its `Candidate` and `why`) only when it is read: a query scores
    hundreds of turns and hands out a few dozen. Knowledge items are `Ranked` from the start.
    """

    __slots__ = ("_entries", "_turns")

    def __init__(self, entries: list[Ranked | int], turns: _TurnScores) -> None:
        self._entries = entries
        """In order: a knowledge item's `Ranked`, or a turn's row in `_turns`."""
        self._turns = turns

    def __len__(self) -> int:
        return len(self._entries)

    @overload
    def __getitem__(self, i: int) -> Ranked: ...
    @overload
    def __getitem__(self, i: slice) -> list[Ranked]: ...
    def __getitem__(self, i: int | slice) -> Ranked | list[Ranked]:
        if isinstance(i, slice):
            return [self._ranked(e) for e in self._entries[i]]
        return self._ranked(self._entries[i])

    def __iter__(self) -> Iterator[Ranked]:
        return map(self._ranked, self._entries)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def _ranked(self, e: Ranked | int) -> Ranked:
        return e if isinstance(e, Ranked) else self._turns.ranked(e)

    def knowledge(self) -> Iterator[Ranked]:
        """The knowledge items in order (every item but the turns), without reading a turn."""
        return (e for e in self._entries if isinstance(e, Ranked))

    def _kept(self, keep_turn: Callable[[int], bool], keep: Callable[[Ranked], bool]) -> Scored:
        return Scored(
            [e for e in self._entries if (keep(e) if isinstance(e, Ranked) else keep_turn(e))],
            self._turns,
        )

    def of_kinds(self, kinds: Collection[ItemKind]) -> Scored:
        """Only the items of `kinds`, in the same order."""
        turns = TURN in kinds
        return self._kept(lambda _: turns, lambda r: r.candidate.kind in kinds)

    def knowledge_where(self, keep: Callable[[Candidate], bool]) -> Scored:
        """Every turn, and the knowledge items `keep` accepts, in the same order."""
        return self._kept(lambda _: True, lambda r: keep(r.candidate))

    def without(self, ids: Collection[str]) -> Scored:
        """Every item but those of `ids`, in the same order."""
        if not ids:
            return self
        of = self._turns.columns.ids
        return self._kept(lambda i: of[i] not in ids, lambda r: r.candidate.id not in ids)


@dataclass(slots=True)
class _TurnScores:
    """The turns' scores and `why` columns, for the `Ranked` of a row when it is read."""

    columns: TurnColumns
    fused: np.ndarray
    score: np.ndarray
    why: list[tuple[str, np.ndarray, np.ndarray | None]]
    """(signal, value per row, where it applies or None: everywhere), in the registry's order."""
    made: dict[int, Ranked] = field(default_factory=dict)
    lists: (
        tuple[list[float], list[float], list[tuple[str, list[float], list[bool] | None]]] | None
    ) = None
    """The same as Python lists, made on the first read (a list item is cheaper to read)."""

    def ranked(self, i: int) -> Ranked:
        got = self.made.get(i)
        if got is None:
            if self.lists is None:
                self.lists = (
                    self.fused.tolist(),
                    self.score.tolist(),
                    [(n, v.tolist(), None if a is None else a.tolist()) for n, v, a in self.why],
                )
            fused, score, signals = self.lists
            c = self.columns.candidate(i)
            why = _evidence(c, fused[i])
            for name, value, applies in signals:
                if applies is None or applies[i]:
                    why[name] = value[i]
            got = self.made[i] = Ranked(candidate=c, score=score[i], why=why)
        return got


def score_candidates(
    candidates: Sequence[Candidate] | CandidateSet,
    intent: QueryIntent,
    w: RankingSection,
    *,
    as_of_ms: int | None = None,
    now_ms: int | None = None,
) -> Scored:
    """Score every valid candidate (steps 1–4 of the module docstring), best first.

    Each score is `(fused + Σ ADD signals) × Π (1 + BOOST signals) × Π FACTOR signals` over the
    signals of `recall.signals.SIGNALS` that apply; `why` lists every value in that order.
    Turns are scored as columns (`Signal.turns`), the other items one by one (`Signal.value`).
    """
    given = candidates if isinstance(candidates, CandidateSet) else CandidateSet.of(candidates)
    turns = given.turns
    live = [c for c in given.knowledge if valid_at(c, as_of_ms)]
    turns_live = turns.valid_at(as_of_ms)
    live_rows = np.flatnonzero(turns_live).tolist()
    fused, turns_fused = fuse_all(live, turns, w, turns_live)
    of_turns = turns_fused[live_rows].tolist()
    fused.update(zip([turns.ids[i] for i in live_rows], of_turns, strict=True))
    active = [s for s in SIGNALS if s.active(_probe(intent, w, now_ms))]
    # a signal without a column form is asked turn by turn
    made = (  # live row -> Candidate, when a signal has no column form
        {i: turns.candidate(i) for i in live_rows} if any(s.turns is None for s in active) else {}
    )
    q = QueryState(
        [*live, *made.values()], intent, w, fused, now_ms, turns, turns_live, turns_fused
    )
    scored = _score_items(live, q, active, w)
    table = _score_turns(q, active, made, w)
    keep = np.flatnonzero(turns_live & (table.score > 0.0) & ~(table.score < w.min_score))
    if w.fact_over_source:
        _facts_over_sources(scored, table, keep)
    # best first, equal scores by id: two stable sorts over the items' positions
    rows = keep.tolist()
    ids = [r.candidate.id for r in scored] + [turns.ids[i] for i in rows]
    scores = [r.score for r in scored] + table.score[keep].tolist()
    order = sorted(range(len(ids)), key=ids.__getitem__)
    order.sort(key=scores.__getitem__, reverse=True)
    n = len(scored)
    return Scored([scored[j] if j < n else rows[j - n] for j in order], table)


def _probe(intent: QueryIntent, w: RankingSection, now_ms: int | None) -> QueryState:
    """A state for `Signal.active`, which looks at the query alone."""
    return QueryState((), intent, w, {}, now_ms)


def _score_items(
    live: Sequence[Candidate], q: QueryState, active: Sequence[Signal], w: RankingSection
) -> list[Ranked]:
    """Score the non-turn candidates one by one, dropping those at or under `min_score`/0."""
    # (name, function, effect): a plain loop, it runs for every knowledge candidate
    signals = [(s.name, s.value, s.effect) for s in active]
    add, boost = Effect.ADD, Effect.BOOST
    out: list[Ranked] = []
    for c in live:
        f = q.fused[c.id]
        why = _evidence(c, f)
        added = 0.0
        mult = 1.0
        for name, value, effect in signals:
            v = value(c, q)
            if v is None:
                continue
            why[name] = v
            if effect is add:
                added += v
            elif effect is boost:
                mult *= 1.0 + v
            else:
                mult *= v
        score = (f + added) * mult
        if score < w.min_score or score <= 0.0:
            continue
        out.append(Ranked(candidate=c, score=score, why=why))
    return out


def _score_turns(
    q: QueryState, active: Sequence[Signal], made: Mapping[int, Candidate], w: RankingSection
) -> _TurnScores:
    """Score every row of `q.turns` at once.

    The same operations, in the same order, as `_score_items` on each turn, so the same floats.
    `made`: the live rows as `Candidate`s when a signal has no column form.
    """
    t, fused = q.columns
    n = len(t)
    added = np.zeros(n)
    mult = np.ones(n)
    why: list[tuple[str, np.ndarray, np.ndarray | None]] = []
    for s in active:
        got = s.turns(q) if s.turns is not None else _per_row(s, q, made, n)
        if got is None:
            continue
        value, applies = got
        why.append((s.name, value, applies))
        if s.effect is Effect.ADD:
            added = added + (value if applies is None else np.where(applies, value, 0.0))
        else:
            factor = 1.0 + value if s.effect is Effect.BOOST else value
            mult = mult * (factor if applies is None else np.where(applies, factor, 1.0))
    return _TurnScores(t, fused, (fused + added) * mult, why)


def _per_row(s: Signal, q: QueryState, made: Mapping[int, Candidate], n: int) -> ColumnValue:
    """A signal without a column form, asked for each live turn (`made`: row -> Candidate)."""
    value = np.zeros(n)
    applies = np.zeros(n, dtype=bool)
    for i, c in made.items():
        v = s.value(c, q)
        if v is not None:
            value[i] = v
            applies[i] = True
    return value, applies


def _facts_over_sources(scored: list[Ranked], turns: _TurnScores, kept: np.ndarray) -> None:
    """Lift each fact in `scored` to at least the best of its source turns kept (in place).

    A keyed fact (a decision, a preference, one current value) is what the turn it came from
    means now (an ended one is not a candidate), so it goes first and the turn, its provenance,
    after; `why["over_source"]` holds the turn's score. An observation records what was said,
    which no later statement ends ("is 34"), so it keeps its own score.
    """
    facts = [
        i
        for i, r in enumerate(scored)
        if r.candidate.kind is FACT and r.candidate.status not in _SAID
    ]
    if not facts:
        return
    held = np.zeros(len(turns.columns), dtype=bool)
    held[kept] = True
    pos = turns.columns.pos

    def turn_score(t: str) -> float:
        i = pos.get(t)
        return float(turns.score[i]) if i is not None and held[i] else 0.0

    for i in facts:
        r = scored[i]
        c = r.candidate
        best = max(map(turn_score, c.turn_ids), default=0.0)
        if best > r.score:
            scored[i] = Ranked(candidate=c, score=best * _OVER, why={**r.why, "over_source": best})


_SAID = frozenset({"observation"})
"""Fact kinds that record what was said, which nothing later ends: not lifted."""
_OVER = 1.05
"""A fact lifted to its source turn's score goes clearly past it (diversity then keeps the
fact and may drop the turn that says the same)."""


def rank(
    candidates: Sequence[Candidate],
    intent: QueryIntent,
    w: RankingSection,
    *,
    limit: int,
    token_budget: int | None = None,
    as_of_ms: int | None = None,
    now_ms: int | None = None,
) -> list[Ranked]:
    """Score, diversify and pack candidates: the full ranking behind `context`.

    Args:
        candidates: everything retrieval found (lists and graph expansion).
        intent: the parsed query (`recall.understand.understand`).
        w: ranking weights.
        limit: most items to return.
        token_budget: most tokens the returned items may hold together (None: unbounded).
        as_of_ms: event time the answer must hold at.
        now_ms: reference time for recency.
    """
    scored = score_candidates(candidates, intent, w, as_of_ms=as_of_ms, now_ms=now_ms)
    return mmr_pack(scored, lam=w.mmr_lambda, limit=limit, token_budget=token_budget)
