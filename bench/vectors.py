"""Synthetic turn embeddings for the benchmarks: uniform random, or clustered like real ones.

Uniform random unit vectors in 384 dimensions are nearly orthogonal (every cosine near 0), so an
index's nearest neighbours are barely nearer than the rest and quantization error hides in the
noise. `clustered` builds vectors with the structure of real sentence embeddings instead: a
direction every vector shares (all-MiniLM-L6-v2 embeddings are anisotropic: the mean cosine of two
unrelated texts is about 0.2), 64 broad topics, clusters of ~40 vectors within a topic, and noise
whose level varies per vector (some turns are generic, some specific).

The weights were calibrated against all-MiniLM-L6-v2 embeddings of 2,000 LoCoMo turns (LoCoMo dev,
`../shared/benchmarks/locomo/`), comparing 2,000 vectors drawn from a 100K set with them:

| 2,000 vectors            | nearest (p5/p50/p95) | 10th nearest (p5/p50/p95) | mean cosine |
| ------------------------ | -------------------- | ------------------------- | ----------- |
| LoCoMo, all-MiniLM-L6-v2 | 0.52 / 0.66 / 0.80   | 0.40 / 0.54 / 0.66        | 0.21        |
| `clustered`              | 0.55 / 0.65 / 0.78   | 0.48 / 0.56 / 0.64        | 0.22        |

(cosines of each vector to its nearest and 10th nearest other vector)

Among all 100K `clustered` vectors the 10th nearest neighbour lies at cosine 0.63 / 0.72 / 0.80.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

DIM = 384
VectorKind = Literal["random", "clustered"]
VECTOR_KINDS: tuple[VectorKind, ...] = ("random", "clustered")

_SHARED, _TOPIC, _CLUSTER, _NOISE = 0.7, 0.9, 0.6, 0.85
_TOPICS, _PER_CLUSTER = 64, 40


def _unit(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = x / np.linalg.norm(x, axis=-1, keepdims=True)
    return out


def describe(kind: VectorKind) -> str:
    """One line for a result file: which vectors the numbers were measured with."""
    if kind == "random":
        return "uniform random unit vectors (384-d; near-orthogonal)"
    return (
        "synthetic clustered unit vectors (384-d): shared direction + 64 topics + clusters of ~40 "
        "+ per-vector noise, calibrated to all-MiniLM-L6-v2 embeddings of LoCoMo turns "
        "(bench/vectors.py)"
    )


def make_vectors(
    kind: VectorKind, n: int, n_queries: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """(`n` turn vectors, `n_queries` query vectors), float32 unit rows, deterministic in `seed`.

    Queries come from the same process as the turns (for `clustered`: new members of the turns'
    clusters) and are none of the turns.
    """
    if n < 1 or n_queries < 0:
        raise ValueError(f"make_vectors: n must be >= 1 and n_queries >= 0, got {n}, {n_queries}")
    rng = np.random.default_rng(seed)
    # turns first, then queries, from one stream: the turns do not depend on `n_queries`
    if kind == "random":
        turns = _unit(rng.standard_normal((n, DIM)))
        queries = _unit(rng.standard_normal((n_queries, DIM)))
    elif kind == "clustered":
        shared = _unit(rng.standard_normal(DIM))
        topics = _unit(rng.standard_normal((_TOPICS, DIM)))
        n_clusters = max(1, n // _PER_CLUSTER)
        of_topic = rng.integers(0, _TOPICS, n_clusters)
        clusters = _unit(
            _TOPIC * topics[of_topic] + _CLUSTER * _unit(rng.standard_normal((n_clusters, DIM)))
        )

        def members(m: int) -> np.ndarray:
            which = rng.integers(0, n_clusters, m)
            noise = _NOISE * rng.uniform(0.6, 1.4, (m, 1))
            return _unit(
                _SHARED * shared + clusters[which] + noise * _unit(rng.standard_normal((m, DIM)))
            )

        turns, queries = members(n), members(n_queries)
    else:
        raise ValueError(f"make_vectors: kind must be one of {VECTOR_KINDS}, got {kind!r}")
    return turns.astype(np.float32), queries.astype(np.float32)


def exact_top_k(vectors: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    """Row indexes of each query's `k` nearest `vectors` (cosine: rows are unit), best first."""
    out = np.empty((len(queries), k), dtype=np.int64)
    for start in range(0, len(queries), 256):
        sims = queries[start : start + 256] @ vectors.T
        part = np.argpartition(-sims, k, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(sims, part, axis=1), axis=1)
        out[start : start + 256] = np.take_along_axis(part, order, axis=1)
    return out


def neighbour_cosines(vectors: np.ndarray, queries: np.ndarray, k: int = 10) -> dict[str, float]:
    """Percentiles of the cosine of each query's nearest and `k`-th nearest vector."""
    top = exact_top_k(vectors, queries, k)
    first = np.einsum("ij,ij->i", queries, vectors[top[:, 0]])
    kth = np.einsum("ij,ij->i", queries, vectors[top[:, -1]])
    return {
        **{f"nearest_p{p}": round(float(np.percentile(first, p)), 3) for p in (5, 50, 95)},
        **{f"nearest_{k}th_p{p}": round(float(np.percentile(kth, p)), 3) for p in (5, 50, 95)},
    }
