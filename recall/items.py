"""What ranking works on: `Candidate` (one item that may enter the context) and `Ranked`.

Turns, hundreds per query, travel as `TurnColumns` (one array or list per field) and become
`Candidate`s only where ranking hands them out (`TurnColumns.candidate`); knowledge items, a few
dozen, are `Candidate`s throughout. `CandidateSet` holds both.

Also the two candidate lists (`FULLTEXT`, `VECTOR`) and their reciprocal-rank fusion (`rrf`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np

from graph.kinds import TURN, ItemKind

FULLTEXT = "fulltext"
VECTOR = "vector"


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
    """A turn's speaker; for a fact, whom it is about (its subject)."""
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
    status: str | None = None
    """A knowledge item's standing: a correction's stage, a fact's kind (`decision`, ...)."""
    predicate: str = ""
    """A fact's predicate: what relates its subject (`speaker`) to its object."""
    vector_pending: bool = False
    """A turn without its vector yet (embedding backlog): ranked by the other signals."""
    superseded: bool = False
    """A turn whose derived fact or correction has ended as of the read, with none live: what it
    said no longer holds (ranked lower by the `superseded` signal)."""
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
    return rrf_fusion(weights, k)(ranks)


def rrf_fusion(weights: Mapping[str, float], k: float) -> Callable[[Mapping[str, int]], float]:
    """`rrf` with the weights and constant bound once, for fusing every candidate of a query.

    `Σ_list weight / (k + rank)` over the lists that returned the item, times `(k + 1) / Σ weight`
    (applied as `× (k + 1) / Σ weight`, left to right), so an item first in every list scores 1.
    """
    total = sum(weights.values()) or 1.0
    scale = k + 1
    weight = weights.get

    def fused(ranks: Mapping[str, int]) -> float:
        raw = 0.0  # a plain loop: this runs for every candidate of every query
        for s, r in ranks.items():
            if r >= 1:
                raw += weight(s, 1.0) / (k + r)
        return raw * scale / total

    return fused


def rrf_columns(
    ranks: Sequence[tuple[str, np.ndarray]], weights: Mapping[str, float], k: float
) -> np.ndarray:
    """`rrf_fusion` over columns: each list's 1-based rank per row (0: not in it).

    The same operations in the same order as `rrf_fusion` on a ranks mapping that holds the
    lists in the order given, so the same floats.
    """
    total = sum(weights.values()) or 1.0
    scale = k + 1
    raw = np.zeros(len(ranks[0][1]) if ranks else 0, dtype=np.float64)
    for s, r in ranks:
        hit = r >= 1
        raw[hit] += weights.get(s, 1.0) / (k + r[hit])
    out: np.ndarray = raw * scale / total
    return out


def valid_at(c: Candidate, as_of_ms: int | None) -> bool:
    """Whether the item holds at event time `as_of_ms` (None: no restriction)."""
    return as_of_ms is None or holds_at(c.valid_from_ms, c.valid_to_ms, as_of_ms)


def holds_at(start: int | None, end: int | None, at: int) -> bool:
    """Whether the interval [start, end) holds at `at` (None: open on that side)."""
    return (start is None or start <= at) and (end is None or end > at)


def group_codes(keys: Sequence[str | None]) -> tuple[np.ndarray, int]:
    """A code per row for its key, 0, 1, ... in order of first sight, -1 for None; and how many.

    How the column forms group rows (by session) with numpy.
    """
    codes: dict[str, int] = {}
    out = np.fromiter(
        (-1 if k is None else codes.setdefault(k, len(codes)) for k in keys),
        dtype=np.int64,
        count=len(keys),
    )
    return out, len(codes)


@dataclass(slots=True, eq=False)
class TurnColumns:
    """Turn candidates as columns: row `i` of every field is one turn.

    What `Candidate` holds for a turn, without an object per turn: ranking computes fusion and
    the turn signals over the arrays (`recall.signals`) and builds a `Candidate` only for the
    rows it hands out. Absent list ranks are 0, absent raw scores NaN.
    """

    ids: list[str]
    project: list[str | None]
    session: list[str | None]
    ordinal: list[int | None]
    speaker: list[str]
    tokens: list[int]
    text: list[str | None]
    """None: not read yet (`Candidate.text_pending`)."""
    time: list[int | None]
    """`Candidate.time_ms` (a turn's `valid_from`)."""
    valid_from: list[int | None]
    valid_to: list[int | None]
    quality: list[float | None]
    fulltext_rank: np.ndarray
    vector_rank: np.ndarray
    bm25: np.ndarray
    cosine: np.ndarray
    pending: np.ndarray
    """bool: the turn waits in the embedding backlog (`Candidate.vector_pending`)."""
    superseded: np.ndarray
    """bool: see `Candidate.superseded`."""
    near: tuple[np.ndarray, np.ndarray] = field(
        default_factory=lambda: (np.zeros(0, np.int64), np.zeros(0, np.int64))
    )
    """Neighbour pairs (row, neighbour row), both ways: `Candidate.neighbours` by row."""
    pos: dict[str, int] = field(default_factory=dict)
    """Turn id -> row."""

    def __post_init__(self) -> None:
        if not self.pos:
            self.pos = {t: i for i, t in enumerate(self.ids)}

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def of(cls, rows: Sequence[Candidate]) -> TurnColumns:
        """Columns of turn `Candidate`s, each with its own ranks, scores and neighbours.

        A neighbour that is not among `rows` has no score, so it adds nothing either way.
        """
        n = len(rows)

        def ranks_of(src: str) -> np.ndarray:
            return np.fromiter((c.ranks.get(src, 0) for c in rows), dtype=np.int64, count=n)

        def scores_of(src: str) -> np.ndarray:
            return np.fromiter((c.scores.get(src, np.nan) for c in rows), dtype=np.float64, count=n)

        cols = cls(
            ids=[c.id for c in rows],
            project=[c.project for c in rows],
            session=[c.session_id for c in rows],
            ordinal=[c.ordinal for c in rows],
            speaker=[c.speaker for c in rows],
            tokens=[c.tokens for c in rows],
            text=[None if c.text_pending else c.text for c in rows],
            time=[c.time_ms for c in rows],
            valid_from=[c.valid_from_ms for c in rows],
            valid_to=[c.valid_to_ms for c in rows],
            quality=[c.quality for c in rows],
            fulltext_rank=ranks_of(FULLTEXT),
            vector_rank=ranks_of(VECTOR),
            bm25=scores_of(FULLTEXT),
            cosine=scores_of(VECTOR),
            pending=np.fromiter((c.vector_pending for c in rows), dtype=bool, count=n),
            superseded=np.fromiter((c.superseded for c in rows), dtype=bool, count=n),
        )
        pairs = [
            (i, j)
            for i, c in enumerate(rows)
            for j in (cols.pos.get(t) for t in c.neighbours)
            if j is not None
        ]
        cols.near = (
            np.fromiter((a for a, _ in pairs), dtype=np.int64, count=len(pairs)),
            np.fromiter((b for _, b in pairs), dtype=np.int64, count=len(pairs)),
        )
        return cols

    def mark_superseded(self, ids: Iterable[str]) -> None:
        """Mark the rows of `ids` superseded (ids not among the rows are ignored)."""
        for t in ids:
            i = self.pos.get(t)
            if i is not None:
                self.superseded[i] = True

    def valid_at(self, as_of_ms: int | None) -> np.ndarray:
        """Per row, whether its candidate is `valid_at` the time."""
        if as_of_ms is None:
            return np.ones(len(self.ids), dtype=bool)
        return np.fromiter(
            map(holds_at, self.valid_from, self.valid_to, repeat(as_of_ms)),
            dtype=bool,
            count=len(self.ids),
        )

    def neighbours(self, i: int) -> tuple[str, ...]:
        """The ids of row `i`'s neighbours, sorted."""
        a, b = self.near
        return tuple(sorted(self.ids[j] for j in b[a == i].tolist()))

    def candidate(self, i: int) -> Candidate:
        """Row `i` as a `Candidate`."""
        ranks: dict[str, int] = {}
        scores: dict[str, float] = {}
        rf, rv, bm25, cosine = (
            int(self.fulltext_rank[i]),
            int(self.vector_rank[i]),
            float(self.bm25[i]),
            float(self.cosine[i]),
        )
        if rf >= 1:
            ranks[FULLTEXT] = rf
        if rv >= 1:
            ranks[VECTOR] = rv
        if not math.isnan(bm25):
            scores[FULLTEXT] = bm25
        if not math.isnan(cosine):
            scores[VECTOR] = cosine
        text = self.text[i]
        return Candidate(
            id=self.ids[i],
            kind=TURN,
            text=text or "",
            text_pending=text is None,
            tokens=self.tokens[i],
            ranks=ranks,
            scores=scores,
            project=self.project[i],
            session_id=self.session[i],
            ordinal=self.ordinal[i],
            speaker=self.speaker[i],
            time_ms=self.time[i],
            valid_from_ms=self.valid_from[i],
            valid_to_ms=self.valid_to[i],
            turn_ids=(self.ids[i],),
            neighbours=self.neighbours(i),
            quality=self.quality[i],
            vector_pending=bool(self.pending[i]),
            superseded=bool(self.superseded[i]),
        )


@dataclass(slots=True)
class CandidateSet:
    """Everything one query may rank: its turns as columns and its knowledge items."""

    turns: TurnColumns
    knowledge: list[Candidate]

    def __len__(self) -> int:
        return len(self.turns) + len(self.knowledge)

    @classmethod
    def of(cls, candidates: Sequence[Candidate]) -> CandidateSet:
        """Split a list of candidates: its turns into columns, the rest kept as they are."""
        return cls(
            TurnColumns.of([c for c in candidates if c.kind is TURN]),
            [c for c in candidates if c.kind is not TURN],
        )
