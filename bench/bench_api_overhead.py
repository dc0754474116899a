"""Per-request cost of the HTTP + GraphQL layer around `context`, outside retrieval.

Seeds the reliability scenarios' two small projects (`tests.support.api.seed_projects`) on a private
embedded FalkorDB, serves the app in process (`httpx.ASGITransport`, so no socket or uvicorn cost is
counted), sends `--requests` sequential `context` requests and times each one end to end and inside
`RetrievalService.context`. The difference is the overhead this file measures: ASGI, auth, GraphQL
parse/validation, the resolver's bookkeeping (recording the request), result construction and
serialisation. `typename_ms` is the fixed cost of any request (`{ __typename }`: HTTP, auth,
context, GraphQL, no resolver I/O). Last, the same requests run from `--clients` concurrent clients
(end-to-end latency and throughput). `--profile` prints a cProfile of the sequential run.

    python bench/bench_api_overhead.py --requests 300
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import json
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/bench_api_overhead.py` from anywhere
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from ai.embed import CachedEmbedder, LocalEmbedder  # noqa: E402
from api.app import create_app  # noqa: E402
from api.config import ApiSettings  # noqa: E402
from api.services import ApiServices  # noqa: E402
from bench.common import RESULTS, percentiles, write_result  # noqa: E402
from graph.config import EmbeddedSettings, Engine  # noqa: E402
from graph.embedded import EmbeddedServer  # noqa: E402
from graph.engines.falkordb import FalkorDBGraph  # noqa: E402
from graph.migrate import migrate  # noqa: E402
from graph.repositories.api_keys import ApiKeyRepository  # noqa: E402
from tests.support.api import CONTEXT_FULL_QUERY, seed_projects  # noqa: E402

QUESTIONS = (
    "support group",
    "what did Caroline say about the adoption agency",
    "when did Melanie go camping",
    "painting class",
)


async def measure(
    db: FalkorDBGraph,
    settings: ApiSettings,
    embedder: Any,
    key: str,
    n: int,
    clients: int,
    profile: bool,
) -> dict[str, Any]:
    """Time `n` sequential requests end to end and inside retrieval, then `n` from `clients`."""
    app = create_app(settings, ApiServices(db=db, embedder=embedder))
    inside: list[float] = []
    total: list[float] = []
    typename: list[float] = []
    prof = cProfile.Profile() if profile else None
    async with app.router.lifespan_context(app):
        retrieval = app.state.resources.retrieval
        original = retrieval.context

        @functools.wraps(original)
        async def timed(*args: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return await original(*args, **kw)
            finally:
                inside.append((time.perf_counter() - t) * 1000)

        retrieval.context = timed
        transport = httpx.ASGITransport(app=app)
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as c:

            async def one(i: int) -> None:
                body = {
                    "query": CONTEXT_FULL_QUERY,
                    "variables": {
                        "q": QUESTIONS[i % len(QUESTIONS)],
                        "p": "alpha",
                        "budget": 2000,
                        "limit": 20,
                    },
                }
                r = await c.post("/graphql", json=body, headers=headers)
                payload = r.json()["data"]["context"]
                assert payload["__typename"] == "ContextPayload", payload

            for i in range(20):  # warm-up: caches, model, first-call imports
                await one(i)
            for _ in range(n):  # the fixed cost: HTTP, auth, context, GraphQL, no resolver I/O
                t = time.perf_counter()
                r = await c.post("/graphql", json={"query": "{ __typename }"}, headers=headers)
                typename.append((time.perf_counter() - t) * 1000)
                assert r.json()["data"] == {"__typename": "Query"}
            inside.clear()
            if prof is not None:
                prof.enable()
            for i in range(n):
                t = time.perf_counter()
                await one(i)
                total.append((time.perf_counter() - t) * 1000)
            if prof is not None:
                prof.disable()
            retrieval = list(inside)
            outside = [t - i for t, i in zip(total, retrieval, strict=True)]

            concurrent: list[float] = []
            todo = iter(range(n))

            async def client() -> None:
                for i in todo:
                    t = time.perf_counter()
                    await one(i)
                    concurrent.append((time.perf_counter() - t) * 1000)

            t = time.perf_counter()
            await asyncio.gather(*(client() for _ in range(clients)))
            wall = time.perf_counter() - t
        await app.state.resources.recorder.flush()
    if prof is not None:
        path = Path(tempfile.gettempdir()) / "api_overhead.prof"
        prof.dump_stats(path)
        pstats.Stats(str(path)).sort_stats("cumulative").print_stats(30)
    return {
        "typename_ms": percentiles(typename),
        "total_ms": percentiles(total),
        "retrieval_ms": percentiles(retrieval),
        "outside_retrieval_ms": percentiles(outside),
        "outside_retrieval_mean_ms": round(sum(outside) / len(outside), 3),
        f"concurrent_{clients}_clients": {
            "total_ms": percentiles(concurrent),
            "throughput_rps": round(len(concurrent) / wall, 1),
        },
    }


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--label", default="current", help="name of this run in the results file")
    args = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="apioverhead"))
    server = EmbeddedServer(EmbeddedSettings(data_dir=data))
    server.start()
    db = FalkorDBGraph(graph_name="api_overhead", unix_socket=str(server.socket_path))
    try:
        await migrate(db)
        embedder = CachedEmbedder(LocalEmbedder(batch_size=64), 1000)
        await seed_projects(db, embedder)
        await embedder.embed(list(QUESTIONS))  # query vectors precomputed: not what we measure
        _, key = await ApiKeyRepository(db).create("bench", ["alpha", "beta"])
        settings = ApiSettings(
            env="test",
            engine=Engine.FALKORDB,
            graph_name="api_overhead",
            falkordb={"unix_socket": server.socket_path},
        )
        result = await measure(
            db, settings, embedder, key, args.requests, args.clients, args.profile
        )
        run = {
            "requests": args.requests,
            "transport": "httpx.ASGITransport (in process)",
            "graph": "tests.support.api.seed_projects (two small projects)",
            **result,
        }
        previous = RESULTS / "api_overhead.json"
        runs = json.loads(previous.read_text()).get("runs", {}) if previous.exists() else {}
        out = {"runs": runs | {args.label: run}}
        path = write_result("api_overhead", out)
        print(path, json.dumps({args.label: run}))
    finally:
        await db.drop()
        await db.close()
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
