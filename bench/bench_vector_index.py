"""Vector index recall@10 against brute force, on Neo4j (quantization on and off) and FalkorDB.

    python bench/bench_vector_index.py [--engine both|neo4j|embedded] [--turns 100000]
        [--queries 200] [--vectors clustered] [--data-dir /tmp/ctxbench]

Uses the graph of `bench/bench_context.py` (same options, same seed: a graph that run kept is
reused, else it is built). Its turn vectors are known here (`bench/vectors.py`, seeded), so exact
neighbours come from a brute-force cosine over the same float32 vectors in numpy. Query vectors
come from the same generator and are none of the turns. Two ways of asking the index:

- `index_k10`: the 10 nearest over every project (`k = k_search = 10`): the index alone;
- `as_context_asks`: one project's turns, `k = 100`, `k_search = 400` (`context`'s
  `vector_candidates` and its 4x oversampling before the project filter), the first 10 compared
  with the project's exact 10 nearest.

Per setting: mean recall@10, the share of queries with all 10 found, the mean absolute error of
the returned scores against the exact cosine of the same turns, and the search's latency from this
process (one query at a time, after 50 other queries of the same setting). On Neo4j the vector
indexes are recreated with quantization on, then off (`bench_context.set_neo4j_quantization`), so
the database ends as the migrations leave it.
Writes `bench/results/vector_index.json`.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_context import (  # noqa: E402 - the repo root is put on sys.path first
    ENGINES,
    PROJECTS,
    BenchGraph,
    bench_arguments,
    bench_graph,
    engine_facts,
    set_neo4j_quantization,
    turn_layout,
)
from bench.common import percentiles, write_result  # noqa: E402
from bench.vectors import describe, exact_top_k, make_vectors, neighbour_cosines  # noqa: E402
from core.timeutil import now_ms  # noqa: E402
from graph.repositories.recall import RecallRepository  # noqa: E402

K = 10
WARM_UP = 50


async def measure(
    g: BenchGraph,
    queries: np.ndarray,
    warm_up: np.ndarray,
    truth: dict[str, np.ndarray],
    scopes: list[str],
    vectors: np.ndarray,
    ids: list[str],
) -> dict[str, Any]:
    """Recall@10, score error and latency of the engine's vector search for `queries`."""
    recall = RecallRepository(g.db)
    now = now_ms()  # every bench turn is valid and known now
    row_of = {tid: i for i, tid in enumerate(ids)}
    out: dict[str, Any] = {}
    settings = {
        "index_k10": lambda _: (("*",), K, K),
        "as_context_asks": lambda i: ((scopes[i],), 100, 400),
    }
    for name, how in settings.items():
        for i, q in enumerate(warm_up):  # a JVM compiles the search first: not measured
            projects, k, k_search = how(i)
            await recall.turn_vector(
                q.tolist(), projects, k=k, k_search=k_search, as_of=now, known_at=now
            )
        recalls, errors, lat = [], [], []
        for i, q in enumerate(queries):
            projects, k, k_search = how(i)
            t = time.perf_counter()
            hits = await recall.turn_vector(
                q.tolist(), projects, k=k, k_search=k_search, as_of=now, known_at=now
            )
            lat.append((time.perf_counter() - t) * 1000)
            got = [row_of[h.id] for h in hits[:K]]
            exact = truth[name][i]
            recalls.append(len(set(got) & set(exact.tolist())) / K)
            errors.extend(abs(h.score - float(vectors[row_of[h.id]] @ q)) for h in hits[:K])
        out[name] = {
            "recall_at_10": round(float(np.mean(recalls)), 4),
            "all_10_found": round(float(np.mean([r == 1.0 for r in recalls])), 3),
            "recall_at_10_p5": round(float(np.percentile(recalls, 5)), 2),
            "score_abs_error": {
                "mean": round(float(np.mean(errors)), 5),
                "max": round(float(np.max(errors)), 5),
            },
            "latency_ms": percentiles(lat),
        }
        print(g.engine, name, out[name]["recall_at_10"], out[name]["latency_ms"], file=sys.stderr)
    return out


async def main() -> None:
    ap = bench_arguments(__doc__, 18767)
    ap.add_argument("--engine", choices=(*ENGINES, "both"), default="both")
    ap.add_argument("--queries", type=int, default=200)
    ap.set_defaults(vectors="clustered")
    args = ap.parse_args()
    engines = list(ENGINES) if args.engine == "both" else [args.engine]
    vectors, both = make_vectors(args.vectors, args.turns, args.queries + WARM_UP, args.seed)
    queries, warm_up = both[: args.queries], both[args.queries :]
    layout = turn_layout(args.turns, args.seed)
    ids = [tid for tid, _ in layout]
    projects = np.array([p for _, p in layout])
    scopes = [PROJECTS[i % len(PROJECTS)] for i in range(args.queries)]
    t = time.perf_counter()
    truth = {"index_k10": exact_top_k(vectors, queries, K)}
    scoped = np.empty((args.queries, K), dtype=np.int64)
    for p in set(scopes):
        rows = np.flatnonzero(projects == p)
        mine = [i for i, s in enumerate(scopes) if s == p]
        scoped[mine] = rows[exact_top_k(vectors[rows], queries[mine], K)]
    truth["as_context_asks"] = scoped
    brute_s = time.perf_counter() - t
    results: dict[str, Any] = {}
    for engine in engines:
        async with bench_graph(args, engine) as g:
            if engine == "neo4j":
                for quantized in (True, False):
                    label = f"neo4j_quantization_{'on' if quantized else 'off'}"
                    reindex_s = await set_neo4j_quantization(g.db, quantized)
                    results[label] = {
                        "engine": await engine_facts(g),
                        "reindex_s": reindex_s,
                        **await measure(g, queries, warm_up, truth, scopes, vectors, ids),
                    }
            else:
                results["embedded"] = {
                    "engine": await engine_facts(g),
                    **await measure(g, queries, warm_up, truth, scopes, vectors, ids),
                }
    out = {
        "graph": {
            "turns": args.turns,
            "projects": len(PROJECTS),
            "embeddings": describe(args.vectors),
        },
        "vectors": args.vectors,
        "neighbour_cosines": neighbour_cosines(vectors, queries, K),
        "queries": args.queries,
        "brute_force": f"exact cosine in numpy over the same float32 vectors ({brute_s:.1f} s)",
        "settings": {
            "index_k10": "k = k_search = 10 over every project",
            "as_context_asks": "one project, k = 100, k_search = 400, first 10 compared",
        },
        "results": results,
    }
    print(write_result("vector_index", out))


if __name__ == "__main__":
    asyncio.run(main())
