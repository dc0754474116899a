"""The first `context` calls of each project after a server's start-up load (issue 18).

A server that has just started loads its indexes in the background; what a caller then sees is
the cost of whatever is still left to its first calls (loading a project's knowledge, quantising
its vectors, compiling a kernel). On the bench graph of `bench/bench_context.py` (100K turns + 10K
knowledge items over 4 projects, kept under `--data-dir` between runs), each run is a fresh
interpreter that builds `RetrievalService`, calls `warm_up` as `serve` does, waits for the
start-up loads, then sends `--calls` queries to each project in turn (query vectors cached, so
no model time is counted) and records each call's wall and CPU time. With `--baseline TREE` the
same runs alternate with runs of TREE's code (its modules first on `sys.path`).

    .venv/bin/python -m bench.bench_first_call --data-dir /tmp/ctxbench --baseline /tmp/base

Writes `bench/results/first_call.json`.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


async def _measure(sock: str, graph: str, calls: int, seed: int) -> dict[str, Any]:
    """One fresh process's first calls per project (run with the tree's modules imported)."""
    from ai.embed import CachedEmbedder, LocalEmbedder
    from api.config import ApiSettings
    from bench.bench_context import PROJECTS, make_queries
    from graph.config import Engine
    from graph.connect import make_db
    from graph.repositories.recall import RecallRepository
    from graph.repositories.turns import TurnRepository
    from recall.config import RankingSection
    from recall.retrieval import RetrievalService

    settings = ApiSettings(
        env="test", engine=Engine.FALKORDB, graph_name=graph, falkordb={"unix_socket": sock}
    )
    db = make_db(settings)
    try:
        got = await TurnRepository(db).get_many([f"trn_bench_{i}_0" for i in range(300)])
        samples = [t.text for t in got if t is not None]
        projects = sorted(PROJECTS)
        queries = make_queries(samples, calls * len(projects), seed)
        embedder = CachedEmbedder(LocalEmbedder(batch_size=64), 10_000)
        await embedder.embed([q for q, _ in queries])
        svc = RetrievalService(RecallRepository(db), embedder, RankingSection())
        started = time.perf_counter()
        await svc.warm_up()
        await svc.turn_index.warmed()
        await svc.knowledge_index.wait()
        load_s = time.perf_counter() - started
        wall: dict[str, list[float]] = {p: [] for p in projects}
        cpu: dict[str, list[float]] = {p: [] for p in projects}
        for q, p in queries:  # the projects in turn: call 1 of each, then call 2 of each, ...
            c0, w0 = time.process_time(), time.perf_counter()
            await svc.context(q, (p,), limit=20, token_budget=2000)
            wall[p].append(round((time.perf_counter() - w0) * 1000, 1))
            cpu[p].append(round((time.process_time() - c0) * 1000, 1))
        await svc.turn_index.stop()
        await svc.knowledge_index.stop()
        return {"start_up_load_s": round(load_s, 1), "wall_ms": wall, "cpu_ms": cpu}
    finally:
        await db.close()


def _run_tree(tree: Path, sock: str, graph: str, calls: int, seed: int) -> dict[str, Any]:
    """`_measure` in a child interpreter whose imports come from `tree` first.

    This file is loaded by path: `tree` (an older commit) may not have it.
    """
    code = (
        "import asyncio, importlib.util, json, sys\n"
        f"sys.path[:0] = [{str(tree)!r}, {str(ROOT)!r}]\n"
        f"spec = importlib.util.spec_from_file_location('first_call', {str(Path(__file__))!r})\n"
        "mod = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(mod)\n"
        f"print(json.dumps(asyncio.run(mod._measure({sock!r}, {graph!r}, {calls}, {seed}))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"the run of {tree} failed:\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per call number (1st, 2nd, ...): the median over projects and runs, and the worst."""
    per_call: dict[str, Any] = {}
    for key in ("wall_ms", "cpu_ms"):
        columns = list(zip(*(calls for r in runs for calls in r[key].values()), strict=True))
        per_call[key] = [
            {"call": i + 1, "median": sorted(c)[len(c) // 2], "max": max(c)}
            for i, c in enumerate(columns)
        ]
    return per_call


async def main() -> None:
    from bench.bench_context import PROJECTS, bench_arguments, bench_graph
    from bench.common import write_result

    ap = bench_arguments(__doc__ or "", 8796)
    ap.add_argument("--calls", type=int, default=3, help="calls measured per project")
    ap.add_argument("--runs", type=int, default=2, help="fresh processes per tree")
    ap.add_argument("--baseline", type=Path, default=None, help="another source tree to compare")
    args = ap.parse_args()
    trees = {"current": ROOT, **({"baseline": args.baseline} if args.baseline else {})}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    async with bench_graph(args) as g:  # builds the graph unless `--data-dir` holds it
        sock = str(g.settings["falkordb"]["unix_socket"])
        for _ in range(args.runs):
            for name, tree in trees.items():  # alternating: the machine's drift hits both
                got = await asyncio.to_thread(_run_tree, tree, sock, g.name, args.calls, args.seed)
                runs[name].append(got)
                print(name, json.dumps(got["wall_ms"]), flush=True)
    out = write_result(
        "first_call",
        {
            "graph": {
                "turns": args.turns,
                "knowledge_items": args.knowledge,
                "projects": len(PROJECTS),
            },
            "what": "wall and CPU ms of each project's first calls after the start-up load, in "
            "process, query vectors cached; per call number: median and max over projects and "
            "runs",
            "runs_per_tree": args.runs,
            "baseline": str(args.baseline) if args.baseline else None,
            "trees": {name: {"per_call": _summary(r), "runs": r} for name, r in runs.items()},
        },
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    asyncio.run(main())
