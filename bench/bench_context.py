"""`context` latency over GraphQL: 8 concurrent clients on loopback, embedded engine.

    python bench/bench_context.py [--turns 100000] [--knowledge 10000] [--requests 400]
        [--clients 8] [--data-dir /tmp/ctxbench] [--keep]

Builds a graph of synthetic sessions (`tests/support/generate.py` texts) written through the
repositories, with random unit vectors as turn embeddings (latency does not depend on what the
vectors mean, and embedding 100K texts would dominate the set-up), plus lessons, corrections and
facts derived from random turns. Serves the real app with uvicorn on 127.0.0.1 in its own process
(as `remgraph serve` does; the clients run in this one, so they do not share the server's
interpreter) and sends `context` queries (words drawn from stored turns) from concurrent clients
that send their next request as soon as an answer arrives (closed loop, no think time):

- `with_query_embedding`: each request embeds its query with the local model (no cache);
- `without_query_embedding`: the server's query-embedding cache holds the vectors (as for a repeated
  query), so the numbers are the service and the engine alone;
- `single_client_without_query_embedding`: the same with one client (per-request latency without
  queueing).

Each run also reports the CPU time the API process and the engine spent per request.
Writes `bench/results/context.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing as mp
import os
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import uvicorn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from ai.embed import CachedEmbedder, LocalEmbedder  # noqa: E402
from api.app import create_app  # noqa: E402 - the repo root is put on sys.path first
from api.config import ApiSettings  # noqa: E402
from api.services import ApiServices  # noqa: E402
from bench.common import (  # noqa: E402
    percentiles,
    process_cpu_s,
    process_rss_mib,
    self_cpu_s,
    write_result,
)
from graph.config import EmbeddedSettings, Engine  # noqa: E402
from graph.embedded import EmbeddedServer  # noqa: E402
from graph.engines.falkordb import FalkorDBGraph  # noqa: E402
from graph.migrate import migrate  # noqa: E402
from graph.models import Correction, Fact, Lesson, Session, Turn  # noqa: E402
from graph.repositories.api_keys import ApiKeyRepository  # noqa: E402
from graph.repositories.corrections import CorrectionRepository  # noqa: E402
from graph.repositories.facts import FactRepository  # noqa: E402
from graph.repositories.lessons import LessonRepository  # noqa: E402
from graph.repositories.projects import ProjectRepository  # noqa: E402
from graph.repositories.sessions import SessionRepository  # noqa: E402
from graph.repositories.turns import TurnRepository  # noqa: E402
from tests.support.generate import sentence, session_turns  # noqa: E402

QUERY = """query($q: String!, $p: String!) { context(query: $q, project: $p, tokenBudget: 2000,
  limit: 20) { __typename ... on ContextPayload { totalTokens items { id kind score } } } }"""
PROJECTS = ("alpha", "beta", "gamma", "delta")


async def build(db: FalkorDBGraph, n_turns: int, n_knowledge: int, seed: int) -> list[str]:
    """Write the synthetic graph; returns sample turn texts to draw queries from."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    sessions, turns_repo = SessionRepository(db), TurnRepository(db)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    written = 0
    samples: list[str] = []
    turn_ids: list[tuple[str, str]] = []
    s_i = 0
    while written < n_turns:
        project = PROJECTS[s_i % len(PROJECTS)]
        n = min(n_turns - written, max(20, int(rng.lognormvariate(4.3, 0.7))))
        start = t0 + timedelta(hours=6 * s_i)
        sid = f"ses_bench_{s_i}"
        s = Session(
            id=sid,
            project=project,
            source="generic",
            title=f"bench {s_i}",
            source_key=sid,
            started_at=start,
            valid_from=start,
            turn_count=n,
        )
        await sessions.upsert_many([s])
        await ProjectRepository(db).link_sessions([s])
        msgs = session_turns(rng, n)
        turns = [
            Turn(
                id=f"trn_bench_{s_i}_{i}",
                project=project,
                session_id=sid,
                ordinal=i,
                role=m["role"],
                text=m["content"][:2000],
                token_estimate=len(m["content"][:2000]) // 4 + 1,
                valid_from=start + timedelta(seconds=20 * i),
            )
            for i, m in enumerate(msgs)
        ]
        await turns_repo.upsert_many(turns)
        vecs = nrng.standard_normal((len(turns), 384)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        await turns_repo.set_embeddings(zip([t.id for t in turns], vecs, strict=True))
        await sessions.link_turns(turns)
        turn_ids.extend((t.id, t.project) for t in turns)
        if rng.random() < 0.3:
            samples.append(turns[rng.randrange(len(turns))].text)
        written += n
        s_i += 1
        if s_i % 50 == 0:
            print(f"  {written} turns", file=sys.stderr)
    lessons, corrections, facts = LessonRepository(db), CorrectionRepository(db), FactRepository(db)
    for start in range(0, n_knowledge, 500):
        batch = range(start, min(n_knowledge, start + 500))
        ls, cs, fs, links = [], [], [], []
        for i in batch:
            tid, project = turn_ids[rng.randrange(len(turn_ids))]
            kind = i % 3
            if kind == 0:
                ls.append(
                    Lesson(
                        id=f"les_bench_{i}",
                        project=project,
                        title=sentence(rng, 5),
                        content=sentence(rng, 25),
                        valid_from=t0,
                        source_turn_ids=(tid,),
                    )
                )
            elif kind == 1:
                cs.append(
                    Correction(
                        id=f"cor_bench_{i}",
                        project=project,
                        rule_text=sentence(rng, 12),
                        valid_from=t0,
                        last_seen=t0,
                        source_turn_ids=(tid,),
                    )
                )
            else:
                fs.append(
                    Fact(
                        id=f"fct_bench_{i}",
                        project=project,
                        statement=sentence(rng, 12),
                        valid_from=t0,
                        source_turn_ids=(tid,),
                    )
                )
            links.append((kind, f"{('les', 'cor', 'fct')[kind]}_bench_{i}", tid))
        await lessons.upsert_many(ls)
        await corrections.upsert_many(cs)
        await facts.upsert_many(fs)
        await lessons.link_sources([(a, t) for k, a, t in links if k == 0])
        await corrections.link_sources([(a, t) for k, a, t in links if k == 1])
        await facts.link_sources([(a, t) for k, a, t in links if k == 2])
    return samples


def make_queries(samples: list[str], n: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = [w.strip(".,") for w in rng.choice(samples).split()]
        k = min(len(words), rng.randint(3, 7))
        out.append((" ".join(rng.sample(words, k)), PROJECTS[i % len(PROJECTS)]))
    return out


async def run_load(
    url: str, key: str, queries: list[tuple[str, str]], clients: int
) -> tuple[list[float], int]:
    lat: list[float] = []
    errors = 0
    queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    for q in queries:
        queue.put_nowait(q)

    async def client() -> None:
        nonlocal errors
        async with httpx.AsyncClient(
            base_url=url, timeout=30, headers={"Authorization": f"Bearer {key}"}
        ) as c:
            while True:
                try:
                    q, p = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                t = time.perf_counter()
                r = await c.post("/graphql", json={"query": QUERY, "variables": {"q": q, "p": p}})
                lat.append((time.perf_counter() - t) * 1000)
                if (
                    r.status_code != 200
                    or r.json()["data"]["context"]["__typename"] != "ContextPayload"
                ):
                    errors += 1

    await asyncio.gather(*(client() for _ in range(clients)))
    return lat, errors


def _serve(
    socket_path: str,
    graph: str,
    port: int,
    warm: list[str],
    cache: bool,
    ready: Any,
    ranking: dict[str, Any],
) -> None:
    """Child process: the API on `port` over the running embedded engine until terminated."""

    async def run() -> None:
        db = FalkorDBGraph(graph_name=graph, unix_socket=socket_path)
        settings = ApiSettings(
            env="test",
            engine=Engine.FALKORDB,
            graph_name=graph,
            falkordb={"unix_socket": socket_path},
            ranking=ranking,
        )
        local = LocalEmbedder(batch_size=64)
        embedder: Any = CachedEmbedder(local, 100_000) if cache else local
        await embedder.embed(warm or ["warm the model up"])
        app = create_app(settings, ApiServices(db=db, embedder=embedder))
        server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
        )
        task = asyncio.create_task(server.serve())
        while not server.started:  # noqa: ASYNC110 - uvicorn exposes a flag, not an event
            await asyncio.sleep(0.05)
        ready.set()
        await task
        await db.close()

    asyncio.run(run())


async def serve_and_measure(
    server: EmbeddedServer,
    graph: str,
    key: str,
    queries: list[tuple[str, str]],
    clients: int,
    port: int,
    *,
    cache: bool,
    warm_up: list[tuple[str, str]],
    ranking: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Start the API in a child process, load it from `clients` clients, stop it.

    `ranking` overrides ranking settings (`RankingSection` fields) in the API process.

    `warm_up` queries (other than the measured ones) run first, as a service that has been up a
    while has served others: its word-frequency and statistics caches are warm, but the measured
    queries' own words may still be new to it.
    """
    ctx = mp.get_context("spawn")
    ready = ctx.Event()
    warm = [q for q, _ in queries] if cache else []
    proc = ctx.Process(
        target=_serve,
        args=(str(server.socket_path), graph, port, warm, cache, ready, ranking or {}),
        daemon=True,
    )
    proc.start()
    try:
        if not await asyncio.to_thread(ready.wait, 900):
            raise RuntimeError("the API process did not start")
        url = f"http://127.0.0.1:{port}"
        await run_load(url, key, warm_up, clients)
        engine_pid = server.status().pid
        api0, eng0 = process_cpu_s(proc.pid), process_cpu_s(engine_pid)
        clients0 = self_cpu_s()  # this process runs nothing but the clients meanwhile
        t = time.perf_counter()
        lat, errors = await run_load(url, key, queries, clients)
        wall = time.perf_counter() - t
        clients_cpu = self_cpu_s() - clients0
        api_cpu = process_cpu_s(proc.pid) - api0
        eng_cpu = process_cpu_s(engine_pid) - eng0
    finally:
        proc.terminate()
        await asyncio.to_thread(proc.join, 30)
    return {
        "latency_ms": percentiles(lat),
        "errors": errors,
        "throughput_rps": round(len(lat) / wall, 1),
        "cpu_ms_per_request": {
            "api": round(api_cpu * 1000 / max(1, len(lat)), 1),
            "engine": round(eng_cpu * 1000 / max(1, len(lat)), 1),
            "clients": round(clients_cpu * 1000 / max(1, len(lat)), 1),
        },
    }


def bench_arguments(doc: str, port: int) -> argparse.ArgumentParser:
    """Options of the `context` benchmarks: graph size, load, port, where the engine keeps data."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--turns", type=int, default=100_000)
    ap.add_argument("--knowledge", type=int, default=10_000)
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--port", type=int, default=port)
    ap.add_argument("--data-dir", type=Path, default=None)
    return ap


@dataclass(frozen=True)
class BenchGraph:
    """The running engine holding the bench graph, the queries to send, and a key for them."""

    server: EmbeddedServer
    name: str
    build_s: float
    queries: list[tuple[str, str]]
    warm_up: list[tuple[str, str]]
    key: str


@contextlib.asynccontextmanager
async def bench_graph(args: argparse.Namespace) -> AsyncIterator[BenchGraph]:
    """Start the engine and build the graph unless `--data-dir` kept it from an earlier run (one
    graph per size); stop the engine on the way out."""
    data = args.data_dir or Path(tempfile.mkdtemp(prefix="ctxbench"))
    server = EmbeddedServer(EmbeddedSettings(data_dir=data, threads=2, startup_timeout_s=600))
    server.start()
    name = f"ctx_{args.turns}_{args.knowledge}"
    db = FalkorDBGraph(graph_name=name, unix_socket=str(server.socket_path))
    try:
        await migrate(db)
        t = time.perf_counter()
        samples = (
            await build(db, args.turns, args.knowledge, args.seed)
            if not (await TurnRepository(db).get_many(["trn_bench_0_0"]))[0]
            else None
        )
        build_s = time.perf_counter() - t
        if samples is None:  # graph kept from an earlier run: draw samples from its turns
            got = await TurnRepository(db).get_many([f"trn_bench_{i}_0" for i in range(300)])
            samples = [x.text for x in got if x is not None]
        _, key = await ApiKeyRepository(db).create("bench", list(PROJECTS))
        yield BenchGraph(
            server,
            name,
            build_s,
            make_queries(samples, args.requests, args.seed),
            make_queries(samples, 200, args.seed + 1),
            key,
        )
    finally:
        await db.close()
        server.stop()


async def main() -> None:
    args = bench_arguments(__doc__, 18765).parse_args()
    async with bench_graph(args) as g:
        single = await serve_and_measure(
            g.server, g.name, g.key, g.queries[:100], 1, args.port, cache=True, warm_up=g.warm_up
        )
        without = await serve_and_measure(
            g.server,
            g.name,
            g.key,
            g.queries,
            args.clients,
            args.port,
            cache=True,
            warm_up=g.warm_up,
        )
        with_emb = await serve_and_measure(
            g.server,
            g.name,
            g.key,
            g.queries,
            args.clients,
            args.port,
            cache=False,
            warm_up=g.warm_up,
        )
        out = {
            "graph": {
                "turns": args.turns,
                "knowledge_items": args.knowledge,
                "projects": len(PROJECTS),
                "embeddings": "random unit vectors (384-d)",
                "build_s": round(g.build_s, 1),
            },
            "clients": args.clients,
            "requests": args.requests,
            "query": "context(limit 20, tokenBudget 2000) over HTTP on 127.0.0.1",
            "load": "closed loop: each client sends its next request when an answer arrives",
            "warm_up": "200 other queries before each measured run",
            "vocabulary": "generator words: function words, common words and a Zipfian tail",
            "single_client_without_query_embedding": single,
            "without_query_embedding": without,
            "with_query_embedding": with_emb,
            "target_p95_ms": 50,
            "engine_rss_mib": process_rss_mib(pid) if (pid := g.server.status().pid) else None,
        }
        path = write_result("context", out)
        print(path, out["without_query_embedding"], out["with_query_embedding"])


if __name__ == "__main__":
    asyncio.run(main())
