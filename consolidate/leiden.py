"""Leiden community detection over a weighted edge list: pure, seeded, reproducible.

No I/O and no engine imports: the communities job projects edges out of the graph, calls
`partition()` through `asyncio.to_thread`, and writes the result back. Node ids are sorted before
the igraph graph is built and communities are renumbered canonically (largest first, ties broken by
the smallest member id), so the same edges and seed always give the same labels.

Two backends: igraph's built-in `Graph.community_leiden` (default; about 1.6 s on 100K nodes and
930K edges here) and the `leidenalg` package (same quality, much slower on large graphs).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import igraph as ig
import numpy as np

Backend = Literal["igraph", "leidenalg"]

# igraph draws random numbers from one process-wide generator; seeding it is only reproducible if no
# other thread runs igraph at the same time.
_RNG_LOCK = threading.Lock()


@dataclass(frozen=True)
class Partition:
    """The result of one Leiden run.

    Attributes:
        membership: node id → community index (0 is the largest community).
        quality: modularity of the partition (with the resolution used), comparable across backends.
        resolution: the resolution parameter used.
        seed: the random seed used.
        backend: which implementation ran.
    """

    membership: dict[Hashable, int] = field(default_factory=dict)
    quality: float = 0.0
    resolution: float = 1.0
    seed: int = 0
    backend: Backend = "igraph"

    @property
    def communities(self) -> list[list[Hashable]]:
        """Members of each community, indexed by community number, members sorted."""
        groups: list[list[Hashable]] = [[] for _ in range(self.count)]
        for node, c in self.membership.items():
            groups[c].append(node)
        for g in groups:
            g.sort(key=_sort_key)
        return groups

    @property
    def count(self) -> int:
        """Number of communities."""
        return max(self.membership.values(), default=-1) + 1


def _sort_key(node: Hashable) -> tuple[str, str]:
    # Mixed id types sort by type name first, then by their string form: total and stable.
    return (type(node).__name__, str(node))


def _index(
    triples: Sequence[tuple[Hashable, Hashable, float]], extra: Sequence[Hashable]
) -> tuple[list[Hashable], np.ndarray, np.ndarray]:
    """Sorted node ids and the source/target index arrays of the edges.

    Ids get codes in order of appearance (one dict pass), then only the distinct ids are sorted
    and the codes remapped to ranks with numpy, so a million edges cost two dict passes.
    """
    m = len(triples)
    codes: dict[Hashable, int] = {}
    src = np.fromiter((codes.setdefault(a, len(codes)) for a, _, _ in triples), np.int64, m)
    dst = np.fromiter((codes.setdefault(b, len(codes)) for _, b, _ in triples), np.int64, m)
    for x in extra:
        codes.setdefault(x, len(codes))
    uniq = list(codes)
    perm = sorted(range(len(uniq)), key=lambda i: _sort_key(uniq[i]))
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[np.asarray(perm, dtype=np.int64)] = np.arange(len(uniq), dtype=np.int64)
    return [uniq[i] for i in perm], rank[src], rank[dst]


def partition(
    edges: Iterable[tuple[Hashable, Hashable, float]],
    *,
    nodes: Iterable[Hashable] = (),
    seed: int = 42,
    resolution: float = 1.0,
    backend: Backend = "igraph",
    n_iterations: int = 2,
) -> Partition:
    """Partition an undirected weighted graph into communities by maximising modularity.

    Args:
        edges: `(source, target, weight)` triples; duplicates are summed, self-loops and
            non-positive weights dropped.
        nodes: extra node ids to include even without edges (each becomes its own community).
        seed: random seed; the same edges and seed give the same partition.
        resolution: modularity resolution; higher values give more, smaller communities.
        backend: `igraph` (built-in, fast) or `leidenalg`.
        n_iterations: Leiden iterations (2, igraph's default); negative runs until an
            iteration brings no improvement.

    Returns:
        The partition; empty when there are no nodes.
    """
    triples = edges if isinstance(edges, list) else list(edges)
    extra = list(nodes)
    if not triples and not extra:
        return Partition(resolution=resolution, seed=seed, backend=backend)
    order, src, dst = _index(triples, extra)
    n = len(order)
    w = np.fromiter((float(x) for _, _, x in triples), dtype=np.float64, count=len(triples))
    keep = (src != dst) & (w > 0)
    lo = np.minimum(src, dst)[keep]
    hi = np.maximum(src, dst)[keep]
    # one undirected edge per pair, weights summed, in (lo, hi) order: reproducible input
    keys, inverse = np.unique(lo * n + hi, return_inverse=True)
    weights = np.bincount(inverse, weights=w[keep], minlength=len(keys)).tolist()
    pairs = np.column_stack((keys // n, keys % n))
    g = ig.Graph(n=n, edges=pairs, directed=False)
    raw = _run(
        g, weights, seed=seed, resolution=resolution, backend=backend, n_iterations=n_iterations
    )
    membership = _canonical(order, raw)
    labels = [membership[x] for x in order]
    quality = (
        g.modularity(labels, weights=weights or None, resolution=resolution) if weights else 0.0
    )
    return Partition(
        membership=membership,
        quality=float(quality),
        resolution=resolution,
        seed=seed,
        backend=backend,
    )


def _run(
    g: ig.Graph,
    weights: Sequence[float],
    *,
    seed: int,
    resolution: float,
    backend: Backend,
    n_iterations: int,
) -> list[int]:
    if g.ecount() == 0:
        return list(range(g.vcount()))
    if backend == "leidenalg":
        import leidenalg  # imported lazily: only this backend needs it

        part = leidenalg.find_partition(
            g,
            leidenalg.RBConfigurationVertexPartition,
            weights=list(weights),
            resolution_parameter=resolution,
            seed=seed,
            n_iterations=n_iterations,
        )
        return list(part.membership)
    with _RNG_LOCK:
        ig.set_random_number_generator(random.Random(seed))
        try:
            clustering = g.community_leiden(
                objective_function="modularity",
                weights=list(weights),
                resolution=resolution,
                n_iterations=n_iterations,
            )
        finally:
            ig.set_random_number_generator(random)
    return list(clustering.membership)


def _canonical(order: Sequence[Hashable], raw: Sequence[int]) -> dict[Hashable, int]:
    """Renumber communities: largest first, ties by smallest member (order is already sorted)."""
    size: dict[int, int] = {}
    first: dict[int, int] = {}
    for i, c in enumerate(raw):
        size[c] = size.get(c, 0) + 1
        first.setdefault(c, i)
    ranked = sorted(size, key=lambda c: (-size[c], first[c]))
    new = {c: k for k, c in enumerate(ranked)}
    return {n: new[c] for n, c in zip(order, raw, strict=True)}
