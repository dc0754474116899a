"""REM benchmark: Leiden on a 100K-node / 1M-edge graph, the communities job end to end, and a
full REM cycle on the LoCoMo dev data.

Run: `python bench/bench_leiden.py [--nodes N] [--edges M] [--leidenalg] [--skip-job]
[--skip-locomo]`. Writes `bench/results/consolidate.json`.

1. algorithm: `consolidate.leiden.partition` on a planted partition (communities of 100 nodes,
   90% of edges inside) with igraph's built-in Leiden (and leidenalg with `--leidenalg`);
2. job: the same graph stored in a fresh embedded FalkorDB as topics and `RELATED_TO` edges, then
   the `communities` job: projection, edge building, Leiden, write and switch, timed separately;
3. locomo_cycle: LoCoMo dev ingested with offline extraction, then every REM job once.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import peak_rss_mib, write_result  # noqa: E402
from consolidate.config import ConsolidateSection, ConsolidateSettings  # noqa: E402
from consolidate.leiden import partition  # noqa: E402
from consolidate.runner import run_cycle, run_job  # noqa: E402
from graph.config import EmbeddedSettings, Engine  # noqa: E402
from graph.cypher import Q  # noqa: E402
from graph.embedded import EmbeddedServer  # noqa: E402
from graph.engines.falkordb import FalkorDBGraph  # noqa: E402
from graph.migrate import migrate  # noqa: E402
from graph.models import Topic, utc_now  # noqa: E402
from graph.records import topic_to_row  # noqa: E402
from graph.repositories.rem import RemRepository  # noqa: E402

DEFAULT_LOCOMO = ROOT.parent / "shared" / "benchmarks" / "locomo" / "locomo-dev.json"
COMMUNITY = 100


def planted(nodes: int, edges: int, seed: int = 7) -> list[tuple[str, str, float]]:
    """`edges` distinct undirected edges, 90% inside planted communities of `COMMUNITY` nodes."""
    rng = np.random.default_rng(seed)
    draw = int(edges * 1.3) + 1_000
    u = rng.integers(0, nodes, draw)
    inside = rng.random(draw) < 0.9
    base = (u // COMMUNITY) * COMMUNITY
    v_in = base + rng.integers(0, COMMUNITY, draw)
    v = np.where(inside, np.minimum(v_in, nodes - 1), rng.integers(0, nodes, draw))
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    keys = lo[lo != hi] * nodes + hi[lo != hi]
    _, first = np.unique(keys, return_index=True)
    keys = keys[np.sort(first)][:edges]  # distinct pairs, in drawing order
    ids = [f"top_{i:06d}" for i in range(nodes)]
    return [(ids[k // nodes], ids[k % nodes], 1.0) for k in keys.tolist()]


def recovered(membership: dict[Any, int], nodes: int) -> float:
    """Share of planted communities whose majority label covers ≥ 90% of the community."""
    good = 0
    groups = nodes // COMMUNITY
    for g in range(groups):
        labels = [membership.get(f"top_{i:06d}") for i in range(g * COMMUNITY, (g + 1) * COMMUNITY)]
        best = max(labels.count(x) for x in set(labels))
        good += best >= 0.9 * COMMUNITY
    return round(good / groups, 4) if groups else 0.0


def bench_algorithm(
    edges: list[tuple[str, str, float]], nodes: int, leidenalg: bool
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for backend in ("igraph", "leidenalg") if leidenalg else ("igraph",):
        t0 = time.perf_counter()
        p = partition(edges, seed=42, backend=backend)
        secs = time.perf_counter() - t0
        out[backend] = {
            "seconds": round(secs, 2),
            "communities": p.count,
            "modularity": round(p.quality, 4),
            "planted_recovered": recovered(p.membership, nodes),
        }
        print(
            f"algorithm {backend}: {secs:.2f}s, {p.count} communities, Q={p.quality:.4f}",
            flush=True,
        )
    return out


def settings_for(server: EmbeddedServer, graph: str, data: Path) -> ConsolidateSettings:
    return ConsolidateSettings(
        engine=Engine.FALKORDB,
        graph_name=graph,
        falkordb={"unix_socket": server.socket_path, "query_timeout_s": 600},
        embedded={"data_dir": data},
        consolidate=ConsolidateSection(report_dir=data / "reports"),
        _env_file=None,
    )


async def bench_job(edges: list[tuple[str, str, float]], nodes: int, data: Path) -> dict[str, Any]:
    server = EmbeddedServer(EmbeddedSettings(data_dir=data / "job"))
    server.start()
    try:
        db = FalkorDBGraph(
            graph_name="bench", unix_socket=str(server.socket_path), query_timeout_s=600
        )
        await migrate(db)
        now = utc_now()
        t0 = time.perf_counter()
        ids = sorted({a for a, _, _ in edges} | {b for _, b, _ in edges})
        for i in range(0, len(ids), 5_000):
            rows = [
                topic_to_row(
                    Topic(
                        id=x,
                        title=f"topic {x}",
                        projects=("bench",),
                        valid_from=now,
                        recorded_at=now,
                    )
                )
                for x in ids[i : i + 5_000]
            ]
            await db.write(Q("topic.upsert_many"), rows=rows)
        seed_nodes_s = time.perf_counter() - t0
        merged: dict[tuple[str, str], float] = {}
        for a, b, w in edges:
            k = (a, b) if a < b else (b, a)
            merged[k] = merged.get(k, 0.0) + w
        rows4 = [(a, b, w, 1) for (a, b), w in merged.items()]
        t1 = time.perf_counter()
        await RemRepository(db).set_cooccurrence(rows4, 0)
        seed_edges_s = time.perf_counter() - t1
        print(
            f"seeded {len(ids)} topics in {seed_nodes_s:.1f}s, {len(rows4)} edges in "
            f"{seed_edges_s:.1f}s",
            flush=True,
        )
        s = settings_for(server, "bench", data / "job")
        t2 = time.perf_counter()
        rep = await run_job("communities", db=db, settings=s, project="bench")
        total = time.perf_counter() - t2
        await db.close()
        print(f"communities job: {rep.status} in {total:.1f}s {rep.summary}", flush=True)
        sm = rep.summary
        return {
            "status": rep.status,
            "error": rep.error,
            "nodes": sm.get("nodes"),
            "edges": sm.get("edges"),
            "communities": sm.get("communities"),
            "modularity": sm.get("quality"),
            "seconds": {
                "seed_nodes": round(seed_nodes_s, 2),
                "seed_edges": round(seed_edges_s, 2),
                "projection": round(sm.get("projection_ms", 0) / 1000, 2),
                "edge_building": round(sm.get("edges_ms", 0) / 1000, 2),
                "leiden": round(sm.get("leiden_ms", 0) / 1000, 2),
                "write_and_switch": round(sm.get("write_ms", 0) / 1000, 2),
                "job_total": round(total, 2),
            },
        }
    finally:
        server.stop()


async def bench_locomo(path: Path, data: Path) -> dict[str, Any]:
    from ai.config import EmbeddingSettings
    from ai.embed import make_embedder
    from ingest.config import IngestSettings
    from ingest.extract.service import ExtractionHook
    from ingest.pipeline import ingest_paths

    server = EmbeddedServer(EmbeddedSettings(data_dir=data / "locomo"))
    server.start()
    try:
        db = FalkorDBGraph(
            graph_name="locomo", unix_socket=str(server.socket_path), query_timeout_s=600
        )
        await migrate(db)
        isettings = IngestSettings(_env_file=None)
        embedder = make_embedder(EmbeddingSettings())
        hook = ExtractionHook(isettings, embedder=embedder)
        t0 = time.perf_counter()
        rep = await ingest_paths(db, isettings, [path], embedder=embedder, hooks=[hook])
        await hook.finish()
        ingest_s = time.perf_counter() - t0
        print(
            f"ingested LoCoMo dev: {rep.sessions} sessions, {rep.turns_new} turns in "
            f"{ingest_s:.1f}s",
            flush=True,
        )
        s = settings_for(server, "locomo", data / "locomo")
        t1 = time.perf_counter()
        cycle = await run_cycle(db=db, settings=s, force=True, out=data / "locomo-reports")
        cycle_s = time.perf_counter() - t1
        await db.close()
        print(f"full REM cycle: {cycle_s:.1f}s", flush=True)
        return {
            "sessions": rep.sessions,
            "turns": rep.turns_new,
            "ingest_seconds": round(ingest_s, 1),
            "cycle_seconds": round(cycle_s, 2),
            "jobs": {
                r.job: {
                    "status": r.status,
                    "ms": r.duration_ms,
                    "summary": r.summary,
                    "error": r.error,
                }
                for r in cycle.reports
            },
            "open_findings": len(cycle.open_findings),
        }
    finally:
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--edges", type=int, default=1_000_000)
    ap.add_argument("--leidenalg", action="store_true", help="also time the leidenalg backend")
    ap.add_argument("--skip-job", action="store_true")
    ap.add_argument("--skip-locomo", action="store_true")
    ap.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    ap.add_argument("--name", default="consolidate")
    args = ap.parse_args()
    edges = planted(args.nodes, args.edges)
    result: dict[str, Any] = {
        "graph": {"nodes": args.nodes, "edges": len(edges), "planted_community_size": COMMUNITY},
        "targets": {"algorithm_s": 15, "locomo_cycle_s": 30},
    }
    result["algorithm"] = bench_algorithm(edges, args.nodes, args.leidenalg)
    with tempfile.TemporaryDirectory(prefix="remgraph-bench-") as tmp:
        if not args.skip_job:
            result["job"] = asyncio.run(bench_job(edges, args.nodes, Path(tmp)))
        if not args.skip_locomo:
            if args.locomo.is_file():
                result["locomo_cycle"] = asyncio.run(bench_locomo(args.locomo, Path(tmp)))
            else:
                result["locomo_cycle"] = {"skipped": f"{args.locomo} not found"}
    result["peak_rss_mib"] = peak_rss_mib()
    out = write_result(args.name, result)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
