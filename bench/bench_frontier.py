"""Speed against quality: `context` latency and LoCoMo hit@5 for ranking settings from the
defaults down to no ranking work at all.

    python bench/bench_frontier.py [--data-dir /tmp/ctxbench] [--locomo PATH] [--requests 400]

Per variant (ranking settings over the defaults):

- quality: LoCoMo dev hit@5 / hit@10 of the `context` ranking (`remgraph.eval.evaluate_locomo`;
  the file is ingested once, later variants find every turn unchanged);
- speed: `context` latency with 8 closed-loop clients on the graph of `bench/bench_context.py`
  (100K turns + 10K knowledge items, queries embedded ahead as in its `without_query_embedding`),
  with the CPU each request costs the API, the engine and the clients (all on the same 2 cores).

`no_ranking_work` sets every candidate count to its minimum: what remains is the fixed cost of a
`context` request (HTTP, GraphQL, key check, query parsing, the index searches' own set-up and
scans, recording the query). Writes `bench/results/context_frontier.json`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from ai.embed import make_embedder  # noqa: E402
from bench.bench_context import bench_arguments, bench_graph, serve_and_measure  # noqa: E402
from bench.common import write_result  # noqa: E402
from graph.embedded import EmbeddedServer  # noqa: E402
from graph.engines.falkordb import FalkorDBGraph  # noqa: E402
from graph.migrate import migrate  # noqa: E402
from remgraph.eval import EvalSettings, evaluate_locomo  # noqa: E402

VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "lean": {
        "vector_candidates": 40,
        "fulltext_candidates": 40,
        "knowledge_candidates": 5,
        "expand_top": 10,
        "fulltext_match_budget": 2000,
    },
    "no_ranking_work": {
        "vector_candidates": 1,
        "fulltext_candidates": 1,
        "fulltext_pool": 1,
        "knowledge_candidates": 0,
        "expand_top": 0,
        "neighbour_window": 0,
    },
}
LOCOMO = ROOT.parent / "shared" / "benchmarks" / "locomo" / "locomo-dev.json"


async def quality(server: EmbeddedServer, path: Path) -> dict[str, dict[str, float]]:
    """LoCoMo hit@k of every variant, on one graph (dropped afterwards)."""
    base = EvalSettings()
    emb = make_embedder(base.embedding)
    db = FalkorDBGraph(graph_name="frontier_locomo", unix_socket=str(server.socket_path))
    out = {}
    try:
        await migrate(db)
        for name, ranking in VARIANTS.items():
            cfg = base.model_copy(update={"ranking": base.ranking.model_copy(update=ranking)})
            got = await evaluate_locomo(db, cfg, path, embedder=emb, show_progress=False)
            overall = got.reports["remgraph"]["categories"]["all"]
            out[name] = {k: overall[k] for k in ("hit@1", "hit@5", "hit@10", "all@5")}
            print(name, out[name], file=sys.stderr)
    finally:
        await db.drop()
        await db.close()
    return out


async def main() -> None:
    ap = bench_arguments(__doc__, 18766)
    ap.add_argument("--locomo", type=Path, default=LOCOMO)
    args = ap.parse_args()
    async with bench_graph(args) as g:
        speeds = {}
        for variant, ranking in VARIANTS.items():
            speed = await serve_and_measure(
                g, g.queries, args.clients, args.port, cache=True, ranking=ranking
            )
            speeds[variant] = speed
            print(variant, speed, file=sys.stderr)
        # Quality last: the evaluation's ingest and model must not run into the timed load.
        assert g.server is not None  # bench_graph's default engine is the embedded one
        hits = await quality(g.server, args.locomo)
        variants = {
            v: {"ranking": r, "locomo_dev": hits[v], **speeds[v]} for v, r in VARIANTS.items()
        }
        out = {
            "graph": {
                "turns": args.turns,
                "knowledge_items": args.knowledge,
                "embeddings": "random unit vectors (384-d)",
            },
            "clients": args.clients,
            "requests": args.requests,
            "query": "context(limit 20, tokenBudget 2000) over HTTP on 127.0.0.1",
            "load": "closed loop, query vectors cached (as without_query_embedding)",
            "variants": variants,
            "target": {"p95_ms": 50, "locomo_hit@5": 0.75},
        }
        print(write_result("context_frontier", out))


if __name__ == "__main__":
    asyncio.run(main())
