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
each signal's value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import attrgetter

from core.text import alnum_words
from graph.kinds import FACT, TURN
from recall.config import RankingSection
from recall.items import FULLTEXT, VECTOR, Candidate, Ranked, rrf, valid_at
from recall.signals import SIGNALS, Effect, QueryState, fuse
from recall.understand import QueryIntent

__all__ = [
    "FULLTEXT",
    "VECTOR",
    "Candidate",
    "Ranked",
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
    return len(wa & wb) / len(wa | wb)


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


def _evidence(c: Candidate, fused: float) -> dict[str, float]:
    """The start of `why`: the fused relevance, then each list's rank and raw score."""
    why: dict[str, float] = {"fused": fused}
    for src, rank_key, score_key in _WHY_KEYS:
        if src in c.ranks:
            why[rank_key] = float(c.ranks[src])
        if src in c.scores:
            why[score_key] = float(c.scores[src])
    return why


def score_candidates(
    candidates: Sequence[Candidate],
    intent: QueryIntent,
    w: RankingSection,
    *,
    as_of_ms: int | None = None,
    now_ms: int | None = None,
) -> list[Ranked]:
    """Score every valid candidate (steps 1–4 of the module docstring), best first.

    Each score is `(fused + Σ ADD signals) × Π (1 + BOOST signals) × Π FACTOR signals` over the
    signals of `recall.signals.SIGNALS` that apply; `why` lists every value in that order.
    """
    live = [c for c in candidates if valid_at(c, as_of_ms)]
    q = QueryState(live, intent, w, fuse(live, w), now_ms)
    # (name, function, effect) of the signals this query can use; a plain loop: it runs for
    # every candidate of every query
    active = [(s.name, s.value, s.effect) for s in SIGNALS if s.active(q)]
    add, boost = Effect.ADD, Effect.BOOST
    out: list[Ranked] = []
    for c in live:
        f = q.fused[c.id]
        why = _evidence(c, f)
        added = 0.0
        mult = 1.0
        for name, value, effect in active:
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
    if w.fact_over_source:
        _facts_over_sources(out)
    # best first, equal scores by id: two stable sorts, no key tuple per item
    out.sort(key=_BY_ID)
    out.sort(key=_BY_SCORE, reverse=True)
    return out


_BY_ID = attrgetter("candidate.id")
_BY_SCORE = attrgetter("score")


def _facts_over_sources(scored: list[Ranked]) -> None:
    """Lift each fact in `scored` to at least the best of its source turns there (in place).

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
    turn_score = {r.candidate.id: r.score for r in scored if r.candidate.kind is TURN}
    for i in facts:
        r = scored[i]
        c = r.candidate
        best = max((turn_score.get(t, 0.0) for t in c.turn_ids), default=0.0)
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
