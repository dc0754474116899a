"""`search`: turns by fulltext, by embedding, or both fused by reciprocal rank; no reranking.

`RetrievalService.search` runs the lists; `fuse_hits` is the fusion, pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from graph.repositories.recall import TurnHit
from recall.candidates import list_ranks
from recall.items import rrf_fusion


class SearchMode(StrEnum):
    """How `search` finds turns (the GraphQL `SearchMode` enum is generated from this one)."""

    FULLTEXT = "fulltext"
    VECTOR = "vector"
    HYBRID = "hybrid"


def fuse_hits(lists: Sequence[tuple[str, Sequence[TurnHit]]], rrf_k: float) -> list[TurnHit]:
    """One list from several by reciprocal-rank fusion, lists weighted equally.

    Each hit's score becomes its normalised RRF score (`recall.ranking.rrf`); ties go by id.
    """
    ranks = list_ranks(lists)
    of_ranks = rrf_fusion({src: 1.0 for src, _ in lists}, rrf_k)
    fused = sorted(((of_ranks(r), i) for i, r in ranks.items()), key=lambda x: (-x[0], x[1]))
    return [TurnHit(i, s) for s, i in fused]
