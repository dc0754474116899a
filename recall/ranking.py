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

Every weight is a field of `RankingSection`; `why` on each result holds each signal's value.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from graph.kinds import ItemKind
from recall.config import RankingSection
from recall.understand import QueryIntent

_DAY_MS = 86_400_000
_WORDS = re.compile(r"[a-z0-9]+")


FULLTEXT = "fulltext"
VECTOR = "vector"
_WHY_KEYS = tuple((src, f"{src}_rank", f"{src}_score") for src in (FULLTEXT, VECTOR))


@dataclass(slots=True)  # not frozen: hundreds are built per query, 5x faster
class Candidate:
    """One item that may enter the context, with what the ranking needs to know about it."""

    id: str
    kind: ItemKind
    text: str
    tokens: int
    ranks: Mapping[str, int] = field(default_factory=dict)
    """1-based rank of the item in each candidate list that returned it (`fulltext`, `vector`)."""
    scores: Mapping[str, float] = field(default_factory=dict)
    """Raw relevance per signal: `fulltext` (BM25), `vector` (cosine similarity to the query)."""
    project: str | None = None
    session_id: str | None = None
    ordinal: int | None = None
    speaker: str = ""
    time_ms: int | None = None
    """Event time of the item (a turn's timestamp, a knowledge item's `valid_from`)."""
    valid_from_ms: int | None = None
    valid_to_ms: int | None = None
    turn_ids: tuple[str, ...] = ()
    """Provenance: the turns a knowledge item was derived from (a turn: itself)."""
    neighbours: tuple[str, ...] = ()
    """Turn ids within the neighbour window via `NEXT`."""
    weight: float = 0.0
    """Kind-specific salience: topic weight, lesson weight × effectiveness, correction effective
    weight; 0 for turns."""
    quality: float | None = None
    """Quality of the session the item came from, in [0, 1]."""
    embedding: tuple[float, ...] | None = None
    text_pending: bool = False
    """The text is not read yet (`text` is empty): retrieval reads it only for the items that
    diversity and packing look at (`mmr_pool_size`)."""


@dataclass(slots=True)
class Ranked:
    """A candidate with its final score and the value of every signal behind it."""

    candidate: Candidate
    score: float
    why: Mapping[str, float]


def rrf(ranks: Mapping[str, int], weights: Mapping[str, float], k: float) -> float:
    """Reciprocal-rank fusion of one item's ranks, normalised to [0, 1].

    Args:
        ranks: 1-based rank per list that returned the item.
        weights: weight per list; lists without a weight count 1.
        k: the RRF constant.
    """
    total = sum(weights.values()) or 1.0
    raw = 0.0  # a plain loop: this runs for every candidate of every query
    for s, r in ranks.items():
        if r >= 1:
            raw += weights.get(s, 1.0) / (k + r)
    return raw * (k + 1) / total


def valid_at(c: Candidate, as_of_ms: int | None) -> bool:
    """Whether the item holds at event time `as_of_ms` (None: no restriction)."""
    if as_of_ms is None:
        return True
    if c.valid_from_ms is not None and c.valid_from_ms > as_of_ms:
        return False
    return not (c.valid_to_ms is not None and c.valid_to_ms <= as_of_ms)


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORDS.findall(text.lower()))


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
    top = max(r.score for r in scored) or 1.0
    # Diversity only reorders the head; bound the work to a few times what is returned.
    pool = list(scored[: mmr_pool_size(limit)])
    order = sorted(range(len(pool)), key=lambda i: -pool[i].score)
    picked: list[int] = []
    max_sim = [0.0] * len(pool)
    compared = [0] * len(pool)  # how many picked items each candidate was compared with
    left = token_budget
    alive = [True] * len(pool)
    words = [_words(r.candidate.text) for r in pool] if lam < 1.0 else []
    while len(picked) < limit:
        best_i = -1
        best_v = -math.inf
        # Lazy greedy: candidates in score order; a penalty is never negative, so once
        # `lam * rel` cannot beat the best value found no later candidate can, and similarities
        # are only computed for candidates still in the running (same picks as the eager loop).
        for i in order:
            if not alive[i]:
                continue
            r = pool[i]
            if left is not None and r.candidate.tokens > left:
                alive[i] = False
                continue
            rel = lam * (r.score / top)
            if rel <= best_v:
                break
            if lam < 1.0 and compared[i] < len(picked):
                for j in picked[compared[i] :]:
                    sim = similarity(r.candidate, pool[j].candidate, words[i], words[j])
                    if sim > max_sim[i]:
                        max_sim[i] = sim
                compared[i] = len(picked)
            v = rel - (1.0 - lam) * max_sim[i]
            if v > best_v:
                best_v, best_i = v, i
        if best_i < 0:
            break
        alive[best_i] = False
        picked.append(best_i)
        if left is not None:
            left -= pool[best_i].candidate.tokens
    return [pool[i] for i in picked]


def score_candidates(
    candidates: Sequence[Candidate],
    intent: QueryIntent,
    w: RankingSection,
    *,
    as_of_ms: int | None = None,
    now_ms: int | None = None,
) -> list[Ranked]:
    """Score every valid candidate (steps 1–4 of the module docstring), best first."""
    live = [c for c in candidates if valid_at(c, as_of_ms)]
    weights = {"fulltext": w.fulltext_weight, "vector": w.vector_weight}
    score_weights = {FULLTEXT: w.fulltext_score_weight, VECTOR: w.vector_score_weight}
    # Scores are min-max scaled over the query's candidates so they share a scale with the
    # fused ranks (cosine similarities crowd into a narrow band; BM25 is unbounded).
    lo: dict[str, float] = {}
    span: dict[str, float] = {}
    for src in score_weights:
        vals = [c.scores[src] for c in live if src in c.scores]
        if vals:
            lo[src] = min(0.0, min(vals)) if src == FULLTEXT else min(vals)
            span[src] = max(vals) - lo[src]

    scale = {
        src: (sw, lo[src], span[src])
        for src, sw in score_weights.items()
        if sw and span.get(src, 0.0) > 0
    }

    def relevance(c: Candidate) -> float:
        f = rrf(c.ranks, weights, w.rrf_k)
        if c.scores:
            for src, (sw, low, sp) in scale.items():
                v = c.scores.get(src)
                if v is not None:
                    f += sw * (v - low) / sp
        return f

    fused = {c.id: relevance(c) for c in live}

    by_session: dict[str, list[float]] = defaultdict(list)
    for c in live:
        if c.kind is ItemKind.TURN and c.session_id:
            by_session[c.session_id].append(fused[c.id])
    session_score = {
        s: sum(sorted(v, reverse=True)[: w.session_top]) / w.session_top
        for s, v in by_session.items()
    }
    # Knowledge items point back to the turns they came from; each such turn receives the best.
    derived_to_turn: dict[str, float] = defaultdict(float)
    for c in live:
        if c.kind is not ItemKind.TURN:
            for t in c.turn_ids:
                derived_to_turn[t] = max(derived_to_turn[t], fused[c.id])

    speakers = {s.lower() for s in intent.speakers}
    out: list[Ranked] = []
    for c in live:
        f = fused[c.id]
        why: dict[str, float] = {"fused": f}
        for src, rank_key, score_key in _WHY_KEYS:
            if src in c.ranks:
                why[rank_key] = float(c.ranks[src])
            if src in c.scores:
                why[score_key] = float(c.scores[src])
        base = f
        if c.kind is ItemKind.TURN:
            neigh = max((fused.get(n, 0.0) for n in c.neighbours), default=0.0)
            sess = session_score.get(c.session_id or "", 0.0)
            der = derived_to_turn.get(c.id, 0.0)
            why["neighbour"] = w.neighbour_weight * neigh
            why["session"] = w.session_weight * sess
            why["derived"] = w.derived_weight * der
        else:
            src_turns = max((fused.get(t, 0.0) for t in c.turn_ids), default=0.0)
            why["derived"] = w.derived_weight * src_turns
        base += why.get("neighbour", 0.0) + why.get("session", 0.0) + why["derived"]

        mult = 1.0
        if speakers and c.kind is ItemKind.TURN:
            hit = c.speaker.lower() in speakers or any(
                c.speaker.lower().split()[:1] == [s.split()[0]] for s in speakers if s
            )
            if hit:
                why["speaker"] = w.speaker_boost
                mult *= 1.0 + w.speaker_boost
        if (
            intent.times
            and c.time_ms is not None
            and any(r.contains(c.time_ms) for r in intent.times)
        ):
            why["time"] = w.time_boost
            mult *= 1.0 + w.time_boost
        if c.kind is not ItemKind.TURN:
            kw = w.knowledge_weight
            if c.kind is ItemKind.TOPIC:
                kw *= 1.0 + w.topic_weight * math.log1p(max(c.weight, 0.0))
            elif c.kind is ItemKind.LESSON:
                kw *= 1.0 + w.lesson_weight * max(c.weight, 0.0)
            elif c.kind is ItemKind.CORRECTION:
                kw *= 1.0 + w.correction_weight * max(c.weight, 0.0)
            why["kind_weight"] = kw
            mult *= kw
        if c.quality is not None and w.quality_weight:
            q = 1.0 + w.quality_weight * (c.quality - 0.5)
            why["quality"] = q
            mult *= q
        if w.recency_weight and c.time_ms is not None and now_ms is not None:
            age_days = max(0.0, (now_ms - c.time_ms) / _DAY_MS)
            decay = 0.5 ** (age_days / w.recency_half_life_days)
            rec = (1.0 - w.recency_weight) + w.recency_weight * decay
            why["recency"] = rec
            mult *= rec
        score = base * mult
        if score < w.min_score or score <= 0.0:
            continue
        out.append(Ranked(candidate=c, score=score, why=why))
    out.sort(key=lambda r: (-r.score, r.candidate.id))
    return out


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
