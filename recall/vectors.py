"""How a scope's nearest turns are asked for: the vector index, or every turn of a small scope.

The engines' vector indexes return the nearest turns over the whole graph; the scope (the key's
projects) and the as-of filters are applied after, so the index is asked for more than `k`, in
proportion to how little of the graph the scope holds. A scope that is a small share of a large
graph would need more than `MAX_OVERSAMPLE` times `k` (and got nothing at all when its turns were
not among the nearest overall); when it is small itself, scoring each of its turns is exact and
cheap (measured at 100K turns: ~1 µs a turn on FalkorDB, ~16 µs on Neo4j, against 4 and 24 ms
for the index's 400 nearest).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MIN_OVERSAMPLE = 2
"""The index is asked for at least this many times `k`: its nearest are approximate, and a wider
search finds more of the true ones."""
MAX_OVERSAMPLE = 4
"""...and at most this many times `k`: the search's cost grows with what it is asked for."""
MARGIN = 1.25
"""Expected hits in scope over `k` the oversampling aims at (filters drop some)."""


@dataclass(frozen=True, slots=True)
class VectorPlan:
    """`exact`: score every turn of the scope; else ask the index for `k_search` nearest."""

    exact: bool
    k_search: int


def vector_plan(k: int, in_scope: int, total: int, *, exact_max: int) -> VectorPlan:
    """The plan for the `k` nearest of a scope holding `in_scope` of the graph's `total` turns.

    The index is asked for `k × MARGIN / share` (between `MIN_OVERSAMPLE` and `MAX_OVERSAMPLE`
    times `k`); when even `MAX_OVERSAMPLE` falls short and the scope holds at most `exact_max`
    turns, each of them is scored instead.
    """
    share = min(1.0, in_scope / total) if total > 0 else 1.0
    if share * MAX_OVERSAMPLE < MARGIN and in_scope <= exact_max:
        return VectorPlan(exact=True, k_search=0)
    wanted = math.ceil(k * MARGIN / share) if share > 0 else k * MAX_OVERSAMPLE
    return VectorPlan(
        exact=False, k_search=max(k * MIN_OVERSAMPLE, min(k * MAX_OVERSAMPLE, wanted))
    )
