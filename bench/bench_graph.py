"""Graph benchmark: bulk upsert of turn nodes, 384-d embeddings, idempotent re-upsert, as-of reads.

Run: `python bench/bench_graph.py [--turns 100000] [--embeddings 10000] [--sessions N]`.
Writes `bench/results/graph.json` (see `bench/common.py`) on a fresh embedded FalkorDB:
rows/s of `TurnRepository.upsert_many` (+ `SessionRepository.link_turns`), rows/s of
`set_embeddings` with random unit 384-d vectors on the first `--embeddings` turns (HNSW
maintenance included; random vectors are its worst case, and inserts slow as it grows), the cost
of re-upserting unchanged rows, and p50/p95/p99 of the as-of reads the API uses.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import percentiles, process_rss_mib, write_result  # noqa: E402
from graph.config import EmbeddedSettings  # noqa: E402
from graph.embedded import EmbeddedServer  # noqa: E402
from graph.engines.falkordb import FalkorDBGraph  # noqa: E402
from graph.migrate import migrate  # noqa: E402
from graph.models import Session, Turn  # noqa: E402
from graph.repositories import SessionRepository, TurnRepository  # noqa: E402

T0 = datetime(2026, 1, 1, tzinfo=UTC)
RECORDED = T0 + timedelta(days=30)
WORDS = [
    "graph",
    "database",
    "memory",
    "agent",
    "turn",
    "session",
    "lesson",
    "vector",
    "index",
    "fulltext",
    "python",
    "cypher",
    "neo4j",
    "falkordb",
    "embedding",
    "ranking",
    "context",
    "primer",
    "community",
    "leiden",
    "topic",
    "fact",
    "correction",
    "decision",
]


def make_turns(n: int, sessions: int, rng: np.random.Generator) -> list[Turn]:
    per = max(1, n // sessions)
    return [
        Turn(
            id=f"s{i // per}-t{i % per}", project=f"p{(i // per) % 3}", session_id=f"s{i // per}",
            ordinal=i % per, role="user" if i % 2 == 0 else "assistant",
            text=" ".join(rng.choice(WORDS, size=40)), valid_from=T0 + timedelta(seconds=i),
            recorded_at=RECORDED,
        )
        for i in range(n)
    ]  # fmt: skip


async def timed_ms(n: int, fn: Any) -> dict[str, float]:
    lat = []
    for i in range(n):
        t = time.perf_counter()
        await fn(i)
        lat.append((time.perf_counter() - t) * 1000)
    return percentiles(lat)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(7)
    turns = make_turns(args.turns, args.sessions, rng)
    session_ids = sorted({t.session_id for t in turns})
    with tempfile.TemporaryDirectory(prefix="remgraph-bench-") as tmp:
        server = EmbeddedServer(EmbeddedSettings(data_dir=Path(tmp)))
        server.start()
        db = FalkorDBGraph(graph_name="bench", unix_socket=str(server.socket_path))
        try:
            await migrate(db)
            turns_repo, sessions_repo = TurnRepository(db), SessionRepository(db)
            await sessions_repo.upsert_many(
                [Session(id=s, project="p0", valid_from=T0, recorded_at=T0) for s in session_ids]
            )
            b = args.batch_size

            t = time.perf_counter()
            for i in range(0, len(turns), b):
                await turns_repo.upsert_many(turns[i : i + b])
                await sessions_repo.link_turns(turns[i : i + b])
            upsert_s = time.perf_counter() - t

            n_emb = min(args.embeddings, len(turns))
            vectors = rng.standard_normal((n_emb, 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            t = time.perf_counter()
            for i in range(0, n_emb, b):
                await turns_repo.set_embeddings(
                    (turns[j].id, vectors[j]) for j in range(i, min(i + b, n_emb))
                )
            emb_s = time.perf_counter() - t

            t = time.perf_counter()
            rewritten = 0
            for i in range(0, len(turns), b):
                rewritten += await turns_repo.upsert_many(turns[i : i + b])
            reupsert_s = time.perf_counter() - t

            as_of = T0 + timedelta(seconds=len(turns))
            ids = [x.id for x in turns]
            list_ms = await timed_ms(
                100,
                lambda i: turns_repo.list(
                    session_ids[i % len(session_ids)], limit=50, as_of=as_of, known_at=RECORDED
                ),
            )
            get_ms = await timed_ms(
                100,
                lambda i: turns_repo.get_many(
                    ids[(i * 97) % len(ids) :][:50], as_of=as_of, known_at=RECORDED
                ),
            )
            st = server.status()
            rss = process_rss_mib(st.pid) if st.pid else 0.0
            aof = st.aof_bytes
        finally:
            await db.drop()
            await db.close()
            server.stop()
    return {
        "turns": len(turns),
        "sessions": len(session_ids),
        "batch_size": args.batch_size,
        "upsert": {"seconds": round(upsert_s, 2), "rows_per_s": round(len(turns) / upsert_s)},
        "set_embeddings_384d": {
            "rows": n_emb,
            "seconds": round(emb_s, 2),
            "rows_per_s": round(n_emb / emb_s) if emb_s else None,
        },
        "reupsert_idempotent": {"seconds": round(reupsert_s, 2), "rows": rewritten},
        "as_of_list_50_turns_ms": list_ms,
        "as_of_get_many_50_ids_ms": get_ms,
        "engine_rss_mib": rss,
        "aof_bytes": aof,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--turns", type=int, default=100_000)
    p.add_argument("--embeddings", type=int, default=10_000)
    p.add_argument("--sessions", type=int, default=500)
    p.add_argument("--batch-size", type=int, default=1000)
    args = p.parse_args()
    out = write_result("graph", asyncio.run(run(args)))
    print(out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
