"""Ranking signals: one small function each, all registered in `SIGNALS`.

A candidate's score is `(fused + Σ added) × Π factors`:

- `fused` (`fuse`): reciprocal-rank fusion of the candidate lists plus their min-max scaled raw
  scores (BM25, cosine): how well the item matches the query on its own;
- each `ADD` signal adds graph context (neighbours, session, provenance);
- each `BOOST` signal multiplies by `1 + value`, each `FACTOR` signal by `value` (speaker, time,
  kind weight, session quality, recency).

A signal returns its value for one candidate, or None when it does not apply to it; the value is
what `why` reports under the signal's name. `Signal.active` skips a signal for a whole query
(nothing to boost, or a weight of 0).

Adding a signal: write its function here, add one `Signal(...)` line to `SIGNALS` (the order is
the order of `why` and of the arithmetic), add its weight to `recall.config.RankingSection`, and
test it in `tests/unit/recall/test_signals.py`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from itertools import repeat

from core.timeutil import DAY_MS
from graph.kinds import CORRECTION, LESSON, TOPIC, TURN
from recall.config import RankingSection
from recall.items import FULLTEXT, VECTOR, Candidate, rrf_fusion
from recall.understand import QueryIntent


class Effect(StrEnum):
    """How a signal's value enters the score."""

    ADD = "add"
    """Added to the fused relevance (graph context)."""
    BOOST = "boost"
    """Multiplies the score by 1 + value."""
    FACTOR = "factor"
    """Multiplies the score by value."""


def fuse(live: Sequence[Candidate], w: RankingSection) -> dict[str, float]:
    """Candidate id → fused relevance: normalised RRF of its list ranks plus scaled raw scores.

    Raw scores are min-max scaled over the query's candidates so they share a scale with the
    fused ranks (cosine similarities crowd into a narrow band; BM25 is unbounded, and its floor
    is 0).
    """
    of_ranks = rrf_fusion({FULLTEXT: w.fulltext_weight, VECTOR: w.vector_weight}, w.rrf_k)
    scale = _score_scales(live, {FULLTEXT: w.fulltext_score_weight, VECTOR: w.vector_score_weight})
    scaled = tuple(scale.items())
    fused = {}
    for c in live:
        f = of_ranks(c.ranks)
        scores = c.scores
        if scores:
            for src, (sw, low, sp) in scaled:
                v = scores.get(src)
                if v is not None:
                    f += sw * (v - low) / sp
        fused[c.id] = f
    return fused


def _score_scales(
    live: Sequence[Candidate], score_weights: Mapping[str, float]
) -> dict[str, tuple[float, float, float]]:
    """Per raw score with a weight and a spread: (weight, low end, span) over the candidates."""
    scale = {}
    for src, sw in score_weights.items():
        vals = [c.scores[src] for c in live if src in c.scores]
        if not vals:
            continue
        low = min(0.0, min(vals)) if src == FULLTEXT else min(vals)
        span = max(vals) - low
        if sw and span > 0:
            scale[src] = (sw, low, span)
    return scale


@dataclass
class QueryState:
    """What the signals know about one query: its intent, the weights and every fused score.

    Aggregates over all candidates (session scores, provenance) are computed once, on first use.
    """

    live: Sequence[Candidate]
    intent: QueryIntent
    w: RankingSection
    fused: Mapping[str, float]
    now_ms: int | None = None

    @cached_property
    def session_score(self) -> dict[str, float]:
        """Session id → mean of its `session_top` best fused turn scores."""
        by_session: dict[str, list[float]] = defaultdict(list)
        for c in self.live:
            if c.kind is TURN and c.session_id:
                by_session[c.session_id].append(self.fused[c.id])
        top = self.w.session_top
        return {s: sum(sorted(v, reverse=True)[:top]) / top for s, v in by_session.items()}

    @cached_property
    def derived_to_turn(self) -> dict[str, float]:
        """Turn id → best fused score of the knowledge items pointing back to it."""
        out: dict[str, float] = defaultdict(float)
        for c in self.live:
            if c.kind is not TURN:
                for t in c.turn_ids:
                    out[t] = max(out[t], self.fused[c.id])
        return out

    @cached_property
    def speakers(self) -> frozenset[str]:
        """Speakers the query names, lower-cased."""
        return frozenset(s.lower() for s in self.intent.speakers)


# --- the signals ----------------------------------------------------------------------------


def neighbour(c: Candidate, q: QueryState) -> float | None:
    """A turn's share of its best `NEXT` neighbour's fused score (dialogue context)."""
    if c.kind is not TURN:
        return None
    return q.w.neighbour_weight * _best(q.fused, c.neighbours)


def session(c: Candidate, q: QueryState) -> float | None:
    """A turn's share of its session's aggregate score (session context)."""
    if c.kind is not TURN:
        return None
    return q.w.session_weight * q.session_score.get(c.session_id or "", 0.0)


def derived(c: Candidate, q: QueryState) -> float | None:
    """Provenance both ways: a share of the best item derived from a turn, or of a source turn.

    A turn receives a share of the best knowledge item pointing back to it; a knowledge item a
    share of its best source turn.
    """
    if c.kind is TURN:
        return q.w.derived_weight * q.derived_to_turn.get(c.id, 0.0)
    return q.w.derived_weight * _best(q.fused, c.turn_ids)


def _best(fused: Mapping[str, float], ids: Sequence[str]) -> float:
    """The best fused score among `ids` (0 for one without a score or no ids)."""
    return max(map(fused.get, ids, repeat(0.0)), default=0.0)


def speaker(c: Candidate, q: QueryState) -> float | None:
    """A turn whose speaker the query names (full name or first name), or a fact about them."""
    if not c.speaker:
        return None
    name = c.speaker.lower()
    hit = name in q.speakers or any(name.split()[:1] == [s.split()[0]] for s in q.speakers if s)
    return q.w.speaker_boost if hit else None


def time(c: Candidate, q: QueryState) -> float | None:
    """An item whose time falls in a range the query names."""
    if c.time_ms is None or not any(r.contains(c.time_ms) for r in q.intent.times):
        return None
    return q.w.time_boost


def kind_weight(c: Candidate, q: QueryState) -> float | None:
    """A knowledge item's multiplier: `knowledge_weight`, raised by its kind-specific salience.

    Salience: log-scaled topic weight, lesson weight × effectiveness, a correction's effective
    weight; other kinds get `knowledge_weight` alone.
    """
    if c.kind is TURN:
        return None
    w = q.w
    kw = w.knowledge_weight
    if c.kind is TOPIC:
        kw *= 1.0 + w.topic_weight * math.log1p(max(c.weight, 0.0))
    elif c.kind is LESSON:
        kw *= 1.0 + w.lesson_weight * max(c.weight, 0.0)
    elif c.kind is CORRECTION:
        kw *= 1.0 + w.correction_weight * max(c.weight, 0.0)
    return kw


def quality(c: Candidate, q: QueryState) -> float | None:
    """Items from better sessions: 1 + `quality_weight` × (quality − 0.5)."""
    if c.quality is None:
        return None
    return 1.0 + q.w.quality_weight * (c.quality - 0.5)


def recency(c: Candidate, q: QueryState) -> float | None:
    """A share `recency_weight` of the score halves every `recency_half_life_days` of age."""
    if c.time_ms is None or q.now_ms is None:
        return None
    w = q.w
    age_days = max(0.0, (q.now_ms - c.time_ms) / DAY_MS)
    decay: float = 0.5 ** (age_days / w.recency_half_life_days)
    return (1.0 - w.recency_weight) + w.recency_weight * decay


def vector_pending(c: Candidate, q: QueryState) -> float | None:
    """A turn still in the embedding backlog: no vector score yet, ranked by the other signals.

    A factor of 1 (the score is unchanged); it is listed so `why` says the vector is missing.
    """
    return 1.0 if c.vector_pending else None


def superseded(c: Candidate, q: QueryState) -> float | None:
    """A turn that said what has since ended (`Candidate.superseded`): `superseded_factor`."""
    return q.w.superseded_factor if c.superseded else None


def _always(q: QueryState) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Signal:
    """A registered signal: its `why` name, how it enters the score and its function."""

    name: str
    effect: Effect
    value: Callable[[Candidate, QueryState], float | None]
    active: Callable[[QueryState], bool] = _always
    """Whether the signal can apply at all for this query (checked once per query)."""


SIGNALS: tuple[Signal, ...] = (
    Signal("neighbour", Effect.ADD, neighbour),
    Signal("session", Effect.ADD, session),
    Signal("derived", Effect.ADD, derived),
    Signal("speaker", Effect.BOOST, speaker, lambda q: bool(q.speakers)),
    Signal("time", Effect.BOOST, time, lambda q: bool(q.intent.times)),
    Signal("kind_weight", Effect.FACTOR, kind_weight),
    Signal("quality", Effect.FACTOR, quality, lambda q: bool(q.w.quality_weight)),
    Signal("recency", Effect.FACTOR, recency, lambda q: bool(q.w.recency_weight)),
    Signal("vector_pending", Effect.FACTOR, vector_pending),
    Signal("superseded", Effect.FACTOR, superseded, lambda q: q.w.superseded_factor != 1.0),
)
"""Every ranking signal, in the order `why` lists them and the score applies them."""
