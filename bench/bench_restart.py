"""Restart time of the embedded engine per GB of AOF (issue 15, honest start-up).

Writes turn-like nodes (text + a 384-d vector, with a vector and a fulltext index, as remgraph
stores turns) until the AOF reaches `--mb`, then restarts the engine twice:

- `aof_replay`: the AOF as it grew (every write replayed: the worst case, no rewrite ran);
- `after_rewrite`: after `BGREWRITEAOF` (an RDB preamble: what `auto-aof-rewrite-*` keeps it at).

Each restart is timed until the server answers PING and until every index is online. The result
extends `bench/results/reliability.json` under `restart`.

    .venv/bin/python -m bench.bench_restart --mb 300
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from redis import Redis

from bench.common import RESULTS, machine
from graph.config import EmbeddedSettings
from graph.embedded import EmbeddedServer
from graph.engines.falkordb import FalkorDBGraph, params_header

GRAPH = "restart"


def _aof_mb(data: Path) -> float:
    return sum(f.stat().st_size for f in (data / "appendonlydir").glob("*")) / 2**20


def _fill(server: EmbeddedServer, target_mb: float, batch: int = 200) -> int:
    r = Redis(unix_socket_path=str(server.socket_path))
    r.config_set("auto-aof-rewrite-percentage", "0")  # grow the AOF as a no-rewrite engine would
    r.config_set("aof-use-rdb-preamble", "no")
    r.execute_command("GRAPH.QUERY", GRAPH, "CREATE INDEX FOR (t:Turn) ON (t.id)")
    r.execute_command(
        "GRAPH.QUERY",
        GRAPH,
        "CREATE VECTOR INDEX FOR (t:Turn) ON (t.embedding) "
        "OPTIONS {dimension: 384, similarityFunction: 'cosine'}",
    )
    r.execute_command("GRAPH.QUERY", GRAPH, "CALL db.idx.fulltext.createNodeIndex('Turn', 'text')")
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(5000)]
    n = 0
    while _aof_mb(server.data_dir) < target_mb:
        rows = []
        for _ in range(batch):
            v = rng.standard_normal(384)
            rows.append(
                {
                    "id": f"t{n}",
                    "text": " ".join(rng.choice(words, 80)),
                    "embedding": (v / np.linalg.norm(v)).tolist(),
                }
            )
            n += 1
        q = (
            "UNWIND $rows AS row CREATE (t:Turn {id: row.id, text: row.text, "
            "embedding: vecf32(row.embedding)})"
        )
        r.execute_command("GRAPH.QUERY", GRAPH, params_header({"rows": rows}) + q)
    r.close()
    return n


def _restart(data: Path) -> dict[str, float]:
    server = EmbeddedServer(EmbeddedSettings(data_dir=data, startup_timeout_s=30))
    lines: list[str] = []
    server.progress = lines.append
    t0 = time.perf_counter()
    server.start()
    answered = time.perf_counter() - t0

    async def indexes() -> None:
        db = FalkorDBGraph(graph_name=GRAPH, unix_socket=str(server.socket_path))
        try:
            await db.wait_for_indexes(timeout_s=3600)
        finally:
            await db.close()

    asyncio.run(indexes())
    ready = time.perf_counter() - t0
    server.stop()
    return {
        "answered_s": round(answered, 2),
        "indexes_online_s": round(ready, 2),
        "progress_lines": len(lines),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=300)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    data = (args.dir or Path(tempfile.mkdtemp(prefix="rg-restart-"))) / "data"
    server = EmbeddedServer(EmbeddedSettings(data_dir=data))
    server.start()
    t0 = time.perf_counter()
    nodes = _fill(server, args.mb)
    fill_s = time.perf_counter() - t0
    server.stop()
    aof_mb = _aof_mb(data)
    replay = _restart(data)
    # compact the AOF as auto-aof-rewrite does, then restart again
    server = EmbeddedServer(EmbeddedSettings(data_dir=data, startup_timeout_s=30))
    server.start()
    r = Redis(unix_socket_path=str(server.socket_path))
    r.config_set("aof-use-rdb-preamble", "yes")
    r.bgrewriteaof()
    while r.info("persistence")["aof_rewrite_in_progress"]:
        time.sleep(0.2)
    r.close()
    server.stop()
    rewritten_mb = _aof_mb(data)
    compact = _restart(data)
    gb = aof_mb / 1024
    out: dict[str, Any] = {
        "nodes": nodes,
        "fill_s": round(fill_s, 1),
        "aof_mb": round(aof_mb, 1),
        "aof_replay": replay,
        "aof_replay_s_per_gb": round(replay["indexes_online_s"] / gb, 1),
        "after_rewrite": {"aof_mb": round(rewritten_mb, 1), **compact},
        "after_rewrite_s_per_gb_of_original_aof": round(compact["indexes_online_s"] / gb, 1),
        "machine": machine(),
    }
    path = RESULTS / "reliability.json"
    doc = json.loads(path.read_text())
    doc.setdefault("summary", {})["restart"] = out
    path.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
