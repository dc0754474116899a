"""What ranking works on: `Candidate` (one item that may enter the context) and `Ranked`.

Also the two candidate lists (`FULLTEXT`, `VECTOR`) and their reciprocal-rank fusion (`rrf`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from graph.kinds import ItemKind

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


def valid_at(c: Candidate, as_of_ms: int | None) -> bool:
    """Whether the item holds at event time `as_of_ms` (None: no restriction)."""
    if as_of_ms is None:
        return True
    if c.valid_from_ms is not None and c.valid_from_ms > as_of_ms:
        return False
    return not (c.valid_to_ms is not None and c.valid_to_ms <= as_of_ms)
