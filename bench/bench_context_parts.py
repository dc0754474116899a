"""Where the CPU of one `context` call goes: the same calls with parts of the work switched off.

    python bench/bench_context_parts.py [--turns 100000] [--data-dir DIR] [--rounds 3]

Runs `RetrievalService.context` in this process (no HTTP or GraphQL) on the graph of
`bench/bench_context.py` (100K turns + 10K knowledge items over 4 projects, kept in `--data-dir`
between runs), one caller at a time, query vectors cached (the model's cost is measured
elsewhere), with the turn index loaded. Each variant runs the same queries; the variants take
turns over `--rounds` rounds, in reverse order every other round (`bench.common.in_turn`), so a
change in the machine's speed falls on all of them. Per variant:
CPU-ms per request of this process and of the engine, and latency.

- `defaults`: every source, as served (the rules in force kept in process, the knowledge index
  loaded: `recall.knowledge_cache`, `recall.knowledge_index`);
- `knowledge_from_engine`: the same with the knowledge index off (the engine's knowledge reads);
- `no_rules`: without the rules in force (`rules_first` 0);
- `no_knowledge_search`: without the two knowledge searches (`knowledge_candidates` 0);
- `turns_only`: neither: what the turn index, candidates and ranking cost alone.

The differences say what each part of the knowledge reads costs, engine and API together,
so the next design change can be sized before it is built. Writes
`bench/results/context_parts.json`.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.embed import CachedEmbedder, LocalEmbedder
from bench.bench_context import bench_arguments, bench_graph
from bench.common import in_turn, process_cpu_s, write_result
from graph.repositories.recall import RecallRepository
from recall.config import RankingSection
from recall.retrieval import RetrievalService

VARIANTS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "knowledge_from_engine": {"knowledge_index_max_items": 0},
    "no_rules": {"rules_first": 0},
    "no_knowledge_search": {"knowledge_candidates": 0},
    "turns_only": {"rules_first": 0, "knowledge_candidates": 0},
}


async def _measure(
    svc: RetrievalService, queries: list[tuple[str, str]], engine_pid: int | None
) -> dict[str, Any]:
    lat: list[float] = []
    e0 = process_cpu_s(engine_pid) if engine_pid else 0.0
    c0 = time.process_time()
    for q, project in queries:
        t = time.perf_counter()
        await svc.context(q, (project,), limit=20, token_budget=2000)
        lat.append((time.perf_counter() - t) * 1000)
    api = (time.process_time() - c0) * 1000 / len(queries)
    engine = ((process_cpu_s(engine_pid) - e0) * 1000 / len(queries)) if engine_pid else None
    return {"latency_ms": lat, "api_cpu_ms": api, "engine_cpu_ms": engine}


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    lat = sorted(x for r in runs for x in r["latency_ms"])
    api = statistics.fmean(r["api_cpu_ms"] for r in runs)
    engines = [r["engine_cpu_ms"] for r in runs if r["engine_cpu_ms"] is not None]
    engine = statistics.fmean(engines) if engines else None
    return {
        "p50_ms": round(lat[len(lat) // 2], 1),
        "p95_ms": round(lat[int(len(lat) * 0.95)], 1),
        "cpu_ms_per_request": {
            "api": round(api, 1),
            "engine": None if engine is None else round(engine, 1),
            "total": None if engine is None else round(api + engine, 1),
        },
        "rounds_total_cpu_ms": [
            round(r["api_cpu_ms"] + (r["engine_cpu_ms"] or 0.0), 1) for r in runs
        ],
    }


async def main() -> None:
    ap = bench_arguments(__doc__ or "", 8790)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    args.requests = min(args.requests, 200)
    async with bench_graph(args) as g:
        embedder = CachedEmbedder(LocalEmbedder(batch_size=64), 100_000)
        await embedder.embed([q for q, _ in g.queries + g.warm_up])
        services = {
            name: RetrievalService(RecallRepository(g.db), embedder, RankingSection(**over))
            for name, over in VARIANTS.items()
        }
        for svc in services.values():  # load the turn and knowledge indexes, warm the caches
            await svc.warm_up()
            await svc.turn_index.warmed()  # every project's turn index loaded first
            for q, project in g.warm_up[:60]:
                await svc.context(q, (project,), limit=20, token_budget=2000)
            await svc.knowledge_index.wait()
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in VARIANTS}
        for rnd in range(args.rounds):
            for name, svc in in_turn(list(services.items()), rnd):
                runs[name].append(await _measure(svc, g.queries, g.engine_pid))
        results = {name: _summary(r) for name, r in runs.items()}
        base = results["defaults"]["cpu_ms_per_request"]["total"]
        for r in results.values():
            total = r["cpu_ms_per_request"]["total"]
            r["share_of_defaults"] = round(total / base, 2) if base and total else None
        out = {
            "graph": {"turns": args.turns, "knowledge_items": args.knowledge, "projects": 4},
            "call": "RetrievalService.context(limit 20, token budget 2000) in process, 1 caller",
            "query_vectors": "cached (the model's cost is not in these figures)",
            "requests_per_round": len(g.queries),
            "rounds": args.rounds,
            "variants": {name: VARIANTS[name] for name in VARIANTS},
            "results": results,
        }
        path = write_result("context_parts", out)
        print(path)
        for name, r in results.items():
            print(f"{name:22s} {r['cpu_ms_per_request']} p50 {r['p50_ms']} p95 {r['p95_ms']}")


if __name__ == "__main__":
    asyncio.run(main())
