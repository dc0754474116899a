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
from typing import TypeVar

import numpy as np

from core.timeutil import DAY_MS
from graph.kinds import CORRECTION, LESSON, TOPIC, TURN
from recall.config import RankingSection
from recall.items import (
    FULLTEXT,
    VECTOR,
    Candidate,
    TurnColumns,
    group_codes,
    rrf_columns,
    rrf_fusion,
)
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
    return fuse_all(live, None, w)[0]


def fuse_all(
    live: Sequence[Candidate],
    turns: TurnColumns | None,
    w: RankingSection,
    turns_live: np.ndarray | None = None,
) -> tuple[dict[str, float], np.ndarray]:
    """`fuse` of `live` and of the rows of `turns` that `turns_live` marks, scaled together.

    Returns the fused score of each of `live` by id and of each row of `turns`, 0 for a row not
    live (the same operations in the same order as `fuse` on a candidate whose ranks hold the
    fulltext list first). `turns_live` None: every row.
    """
    weights = {FULLTEXT: w.fulltext_weight, VECTOR: w.vector_weight}
    of_ranks = rrf_fusion(weights, w.rrf_k)
    raw: dict[str, np.ndarray | None] = {FULLTEXT: None, VECTOR: None}
    if turns is not None:
        gone = None if turns_live is None else ~turns_live
        for src, col in ((FULLTEXT, turns.bm25), (VECTOR, turns.cosine)):
            raw[src] = col if gone is None or not gone.any() else np.where(gone, np.nan, col)
    scale = _score_scales(
        live, {FULLTEXT: w.fulltext_score_weight, VECTOR: w.vector_score_weight}, raw
    )
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
    if turns is None:
        return fused, np.zeros(0)
    rows = rrf_columns(
        ((FULLTEXT, turns.fulltext_rank), (VECTOR, turns.vector_rank)), weights, w.rrf_k
    )
    for src, (sw, low, sp) in scaled:
        values = raw[src]
        assert values is not None
        has = ~np.isnan(values)
        rows[has] += sw * (values[has] - low) / sp
    if turns_live is not None:
        rows[~turns_live] = 0.0
    return fused, rows


def _score_scales(
    live: Sequence[Candidate],
    score_weights: Mapping[str, float],
    columns: Mapping[str, np.ndarray | None],
) -> dict[str, tuple[float, float, float]]:
    """Per raw score with a weight and a spread: (weight, low end, span) over the candidates.

    `columns`: the same raw score of more candidates, NaN where they have none.
    """
    scale = {}
    for src, sw in score_weights.items():
        vals = [c.scores[src] for c in live if src in c.scores]
        more = columns.get(src)
        if more is not None and more.size:
            held = more[~np.isnan(more)]
            if held.size:
                vals += (float(held.min()), float(held.max()))
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
    turns: TurnColumns | None = None
    """The query's turns as columns, scored by the signals' column forms (`Signal.turns`);
    `live` then holds the other candidates (and `fused` every live one's score)."""
    turns_live: np.ndarray | None = None
    """bool per row of `turns`: valid at the read's time."""
    turns_fused: np.ndarray | None = None
    """Fused score per row of `turns`, 0 for a row not live."""

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

    @property
    def columns(self) -> tuple[TurnColumns, np.ndarray]:
        """`turns` and `turns_fused`, for the signals' column forms."""
        assert self.turns is not None
        assert self.turns_fused is not None
        return self.turns, self.turns_fused


F = TypeVar("F", float, np.ndarray)
"""A value or an array of them: the formulas both a signal and its column form use."""

ColumnValue = tuple[np.ndarray, np.ndarray | None]
"""A signal over `QueryState.turns`: its value per row, and per row whether it applies (None:
to every row). None instead of the pair: it applies to no row."""


# --- the signals ----------------------------------------------------------------------------


def neighbour(c: Candidate, q: QueryState) -> float | None:
    """A turn's share of its best `NEXT` neighbour's fused score (dialogue context)."""
    if c.kind is not TURN:
        return None
    return q.w.neighbour_weight * _best(q.fused, c.neighbours)


def neighbour_turns(q: QueryState) -> ColumnValue:
    """`neighbour` of every row: neighbours' fused scores are never negative, so 0 is the floor."""
    t, fused = q.columns
    best = np.zeros(len(t))
    a, b = t.near
    np.maximum.at(best, a, fused[b])
    return q.w.neighbour_weight * best, None


def session(c: Candidate, q: QueryState) -> float | None:
    """A turn's share of its session's aggregate score (session context)."""
    if c.kind is not TURN:
        return None
    return q.w.session_weight * q.session_score.get(c.session_id or "", 0.0)


def session_turns(q: QueryState) -> ColumnValue:
    """`session` of every row: the same sums in the same order (best first, from 0)."""
    t, fused = q.columns
    n = len(t)
    sess, sessions = group_codes([s or None for s in t.session])  # as `session_score`: no ""
    live = q.turns_live if q.turns_live is not None else np.ones(n, dtype=bool)
    rows = np.flatnonzero(live & (sess >= 0))
    if not rows.size:
        return q.w.session_weight * np.zeros(n), None
    rows = rows[np.lexsort((-fused[rows], sess[rows]))]  # by session, best first
    g = sess[rows]
    first = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    place = np.arange(rows.size) - np.repeat(first, np.diff(np.r_[first, rows.size]))
    top = q.w.session_top
    total = np.zeros(sessions)
    for j in range(top):
        at = rows[place == j]
        total[sess[at]] += fused[at]
    mean = total / top
    return q.w.session_weight * np.where(sess >= 0, mean[np.maximum(sess, 0)], 0.0), None


def derived(c: Candidate, q: QueryState) -> float | None:
    """Provenance both ways: a share of the best item derived from a turn, or of a source turn.

    A turn receives a share of the best knowledge item pointing back to it; a knowledge item a
    share of its best source turn.
    """
    if c.kind is TURN:
        return q.w.derived_weight * q.derived_to_turn.get(c.id, 0.0)
    return q.w.derived_weight * _best(q.fused, c.turn_ids)


def derived_turns(q: QueryState) -> ColumnValue:
    """`derived` of every row (the turn side)."""
    t, _ = q.columns
    best = np.zeros(len(t))
    for turn, v in q.derived_to_turn.items():
        i = t.pos.get(turn)
        if i is not None:
            best[i] = v
    return q.w.derived_weight * best, None


def _best(fused: Mapping[str, float], ids: Sequence[str]) -> float:
    """The best fused score among `ids` (0 for one without a score or no ids)."""
    return max(map(fused.get, ids, repeat(0.0)), default=0.0)


def speaker(c: Candidate, q: QueryState) -> float | None:
    """A turn whose speaker the query names (full name or first name), or a fact about them."""
    return q.w.speaker_boost if c.speaker and _named(c.speaker, q) else None


def _named(speaker: str, q: QueryState) -> bool:
    """Whether the query names `speaker` (full name or first name)."""
    name = speaker.lower()
    return name in q.speakers or any(name.split()[:1] == [s.split()[0]] for s in q.speakers if s)


def speaker_turns(q: QueryState) -> ColumnValue:
    """`speaker` of every row (each distinct speaker checked once)."""
    t, _ = q.columns
    named: dict[str, bool] = {}
    hit = np.fromiter(
        (
            bool(s) and (named[s] if s in named else named.setdefault(s, _named(s, q)))
            for s in t.speaker
        ),
        dtype=bool,
        count=len(t),
    )
    return np.full(len(t), q.w.speaker_boost), hit


def time(c: Candidate, q: QueryState) -> float | None:
    """An item whose time falls in a range the query names."""
    if c.time_ms is None or not _in_times(c.time_ms, q):
        return None
    return q.w.time_boost


def _in_times(ms: int, q: QueryState) -> bool:
    return any(r.contains(ms) for r in q.intent.times)


def time_turns(q: QueryState) -> ColumnValue:
    """`time` of every row."""
    t, _ = q.columns
    hit = np.fromiter(
        (ms is not None and _in_times(ms, q) for ms in t.time), dtype=bool, count=len(t)
    )
    return np.full(len(t), q.w.time_boost), hit


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
    return _quality_factor(c.quality, q.w)


def _quality_factor(quality: F, w: RankingSection) -> F:
    """`quality`'s factor for a session quality, or for an array of them."""
    out: F = 1.0 + w.quality_weight * (quality - 0.5)
    return out


def quality_turns(q: QueryState) -> ColumnValue:
    """`quality` of every row."""
    t, _ = q.columns
    nan = float("nan")
    of = np.fromiter((nan if v is None else v for v in t.quality), np.float64, count=len(t))
    has = ~np.isnan(of)
    return _quality_factor(np.where(has, of, 0.5), q.w), has


def recency(c: Candidate, q: QueryState) -> float | None:
    """A share `recency_weight` of the score halves every `recency_half_life_days` of age."""
    if c.time_ms is None or q.now_ms is None:
        return None
    return _recency_factor(max(0.0, (q.now_ms - c.time_ms) / DAY_MS), q.w)


def _recency_factor(age_days: F, w: RankingSection) -> F:
    """`recency`'s factor for an age in days, or for an array of them."""
    decay = 0.5 ** (age_days / w.recency_half_life_days)
    out: F = (1.0 - w.recency_weight) + w.recency_weight * decay
    return out


def recency_turns(q: QueryState) -> ColumnValue | None:
    """`recency` of every row with a time."""
    if q.now_ms is None:
        return None
    t, _ = q.columns
    now = q.now_ms
    at = np.fromiter((now if ms is None else ms for ms in t.time), np.int64, count=len(t))
    has = np.fromiter((ms is not None for ms in t.time), dtype=bool, count=len(t))
    return _recency_factor(np.maximum(0.0, (now - at) / DAY_MS), q.w), has


def vector_pending(c: Candidate, q: QueryState) -> float | None:
    """A turn still in the embedding backlog: no vector score yet, ranked by the other signals.

    A factor of 1 (the score is unchanged); it is listed so `why` says the vector is missing.
    """
    return 1.0 if c.vector_pending else None


def vector_pending_turns(q: QueryState) -> ColumnValue:
    """`vector_pending` of every row."""
    t, _ = q.columns
    return np.ones(len(t)), t.pending


def superseded(c: Candidate, q: QueryState) -> float | None:
    """A turn that said what has since ended (`Candidate.superseded`): `superseded_factor`."""
    return q.w.superseded_factor if c.superseded else None


def superseded_turns(q: QueryState) -> ColumnValue:
    """`superseded` of every row."""
    t, _ = q.columns
    return np.full(len(t), q.w.superseded_factor), t.superseded


def _no_turn(q: QueryState) -> None:
    """The column form of a signal that never applies to a turn."""
    return None


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
    turns: Callable[[QueryState], ColumnValue | None] | None = None
    """The same values for every row of `QueryState.turns` at once; None: `value` is asked per
    turn (each row made a `Candidate`). Tests hold the two forms equal."""


SIGNALS: tuple[Signal, ...] = (
    Signal("neighbour", Effect.ADD, neighbour, turns=neighbour_turns),
    Signal("session", Effect.ADD, session, turns=session_turns),
    Signal("derived", Effect.ADD, derived, turns=derived_turns),
    Signal("speaker", Effect.BOOST, speaker, lambda q: bool(q.speakers), speaker_turns),
    Signal("time", Effect.BOOST, time, lambda q: bool(q.intent.times), time_turns),
    Signal("kind_weight", Effect.FACTOR, kind_weight, turns=_no_turn),
    Signal("quality", Effect.FACTOR, quality, lambda q: bool(q.w.quality_weight), quality_turns),
    Signal("recency", Effect.FACTOR, recency, lambda q: bool(q.w.recency_weight), recency_turns),
    Signal("vector_pending", Effect.FACTOR, vector_pending, turns=vector_pending_turns),
    Signal(
        "superseded",
        Effect.FACTOR,
        superseded,
        lambda q: q.w.superseded_factor != 1.0,
        superseded_turns,
    ),
)
"""Every ranking signal, in the order `why` lists them and the score applies them."""
