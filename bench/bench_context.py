"""`context` latency over GraphQL on the embedded engine, on Neo4j, or on both in one run.

    python bench/bench_context.py [--engine embedded|neo4j|both] [--turns 100000]
        [--knowledge 10000] [--requests 400] [--clients 8] [--vectors random|clustered]
        [--neo4j-quantization migrated|on|off|both] [--data-dir /tmp/ctxbench]

Builds a graph of synthetic sessions (`tests/support/generate.py` texts) written through the
repositories, with synthetic turn embeddings (`bench/vectors.py`: uniform random unit vectors, or
clustered ones shaped like real all-MiniLM-L6-v2 embeddings; embedding 100K texts would dominate
the set-up), plus lessons, corrections and facts derived from random turns. Serves the real app
with uvicorn on 127.0.0.1 in its own process (as `remgraph serve` does; the clients run in this
one, so they do not share the server's interpreter) and sends `context` queries (words drawn from
stored turns) from concurrent clients that send their next request as soon as an answer arrives
(closed loop, no think time):

- `with_query_embedding`: each request embeds its query with the local model (no cache);
- `without_query_embedding`: the server's query-embedding cache holds the vectors (as for a repeated
  query), so the numbers are the service and the engine alone;
- `single_client_without_query_embedding`: the same with one client (per-request latency without
  queueing).

Each run also reports the CPU time the API process and the engine spent per request.

`--engine embedded` (default) writes `bench/results/context.json`. `--engine neo4j` builds the
same graph in the Neo4j database named by `REMGRAPH_NEO4J__URI/USER/PASSWORD` (Community has one
database: the bench wipes it when it holds anything but this bench graph); `--engine both` builds
it on both engines (same texts, same vectors) and measures them in turn in one invocation, writing
`bench/results/context_neo4j.json` with the Neo4j/embedded latency ratios. `--neo4j-quantization`
recreates Neo4j's vector indexes with scalar quantization on or off before measuring (`both`
measures each; `migrated`, the default, leaves them as the migrations made them).

`--baseline TREE` measures the code of another source tree against this one in one run (e.g.
`git worktree add --detach /tmp/base HEAD~3`): on each engine asked for (`--engine`), on the same
graph, the API is served from TREE and from this tree in alternating single-client rounds, then
with `--clients` clients each; `bench/results/context_speed.json` (or `--out NAME`) holds both,
with the current/baseline ratios of latency and of CPU per request. The machine's speed swings
by up to 2x between hours, so a figure is read beside its baseline from the same run:
`context_speed_vs_issue.json` measures this code against cb0a365, the code issue 18's
"~33 CPU-ms" was measured on (`--out context_speed_vs_issue --baseline <cb0a365 worktree>`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import subprocess
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
    in_turn,
    percentiles,
    pid_listening_on,
    process_cpu_s,
    process_rss_mib,
    self_cpu_s,
    write_result,
)
from bench.vectors import VECTOR_KINDS, describe, make_vectors  # noqa: E402
from graph.config import EmbeddedSettings, Engine  # noqa: E402
from graph.connect import make_db  # noqa: E402
from graph.cypher import Dialect, Q, registry  # noqa: E402
from graph.db import GraphDB  # noqa: E402
from graph.embedded import EmbeddedServer  # noqa: E402
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
ENGINES = ("embedded", "neo4j")
_STATS = Q("admin.stats")
_WIPE = Q("admin.wipe")
_VECTOR_INDEXES = Q("admin.vector_index_options")
_MEMORY = Q("admin.memory_settings")
_KNOWLEDGE_LABELS = ("Lesson", "Correction", "Fact")
_WARMING = ("turn_index", "knowledge_index")
"""`/readyz` parts that say whether their start-up load runs."""


def session_sizes(n_turns: int, seed: int) -> list[int]:
    """Turns per bench session, in writing order (its own seeded stream: the layout of the graph
    can be recomputed without generating its texts)."""
    rng = random.Random(seed)
    sizes: list[int] = []
    while (written := sum(sizes)) < n_turns:
        sizes.append(min(n_turns - written, max(20, int(rng.lognormvariate(4.3, 0.7)))))
    return sizes


def turn_layout(n_turns: int, seed: int) -> list[tuple[str, str]]:
    """(turn id, project) of every bench turn in writing order: row i of `turn_vectors`."""
    return [
        (f"trn_bench_{s}_{i}", PROJECTS[s % len(PROJECTS)])
        for s, n in enumerate(session_sizes(n_turns, seed))
        for i in range(n)
    ]


def turn_vectors(args: argparse.Namespace) -> np.ndarray:
    """The turn embeddings of the bench graph, row i for the i-th turn written (seeded)."""
    vectors, _ = make_vectors(args.vectors, args.turns, 0, args.seed)
    return vectors


async def build(
    db: GraphDB, n_turns: int, n_knowledge: int, seed: int, vectors: np.ndarray
) -> list[str]:
    """Write the synthetic graph; returns sample turn texts to draw queries from.

    Turn i (in writing order) gets `vectors[i]` as its embedding.
    """
    rng = random.Random(seed)
    sessions, turns_repo = SessionRepository(db), TurnRepository(db)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    written = 0
    samples: list[str] = []
    turn_ids: list[tuple[str, str]] = []
    for s_i, n in enumerate(session_sizes(n_turns, seed)):
        project = PROJECTS[s_i % len(PROJECTS)]
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
        vecs = vectors[written : written + len(turns)]
        await turns_repo.set_embeddings(zip([t.id for t in turns], vecs, strict=True))
        await sessions.link_turns(turns)
        turn_ids.extend((t.id, t.project) for t in turns)
        if rng.random() < 0.3:
            samples.append(turns[rng.randrange(len(turns))].text)
        written += n
        if (s_i + 1) % 50 == 0:
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
    engine: dict[str, Any],
    port: int,
    warm: list[str],
    cache: bool,
    ready: Any,
    ranking: dict[str, Any],
) -> None:
    """Child process: the API on `port` over the bench graph until terminated.

    `engine` holds the `ApiSettings` fields that point at the graph (engine, graph name, socket or
    Neo4j address).
    """

    async def run() -> None:
        settings = ApiSettings(env="test", ranking=ranking, **engine)
        db = make_db(settings)
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


_UNLIMITED = {"rate_per_s": 1e9, "rate_burst": 1_000_000}
"""The served API's per-key rate limit, out of the way: the bench's one key sends every client's
requests, and on a fast hour 8 clients pass the default 50/s (HTTP 429s would count as errors and
as cheap requests)."""


@dataclass(frozen=True)
class BenchGraph:
    """The running engine holding the bench graph, the queries to send, and a key for them."""

    engine: str
    """`embedded` or `neo4j`."""
    settings: dict[str, Any]
    """`ApiSettings` fields that point an API process at the graph."""
    server: EmbeddedServer | None
    """The embedded engine (None on Neo4j)."""
    name: str
    build_s: float
    queries: list[tuple[str, str]]
    warm_up: list[tuple[str, str]]
    key: str
    db: GraphDB
    """An open connection to the graph, for the bench's own reads and index changes."""

    @property
    def engine_pid(self) -> int | None:
        """The engine's process (its CPU time is measured), when this machine runs it."""
        if self.server is not None:
            return self.server.status().pid
        return pid_listening_on(self.db.address)


_SERVE_FROM_TREE = """
import inspect, json, sys
a = json.loads(sys.argv[1])
sys.path.insert(0, a["root"])
from bench.bench_context import _serve

class Ready:
    def set(self):
        print("ready", flush=True)

if next(iter(inspect.signature(_serve).parameters)) == "socket_path":  # trees before 2026-11-27
    e = a["engine"]
    _serve(e["falkordb"]["unix_socket"], e["graph_name"], a["port"], a["warm"], a["cache"], Ready())
else:
    _serve(a["engine"], a["port"], a["warm"], a["cache"], Ready(), a["ranking"])
"""
"""A child interpreter serving the API from another source tree (`--baseline`) through that
tree's own `_serve`; it prints `ready` once the server listens. Trees older than the engine
choice took the embedded engine's socket and graph name instead (and had no ranking overrides
or rate limit), e.g. cb0a365, the code issue 18's figures were measured on."""


class _TreeServer:
    """The API served from the source tree `root` in a child interpreter (`--baseline`)."""

    def __init__(self, root: Path, args: dict[str, Any]) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _SERVE_FROM_TREE, json.dumps({"root": str(root), **args})],
            cwd=root,
            env={**os.environ, "PYTHONPATH": str(root)},
            stdout=subprocess.PIPE,
            text=True,
        )
        self.pid = self._proc.pid

    def wait_ready(self, timeout_s: float) -> bool:
        """Whether the server said it listens within `timeout_s` (False when it exited)."""
        assert self._proc.stdout is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            line = self._proc.stdout.readline()
            if line.strip() == "ready":
                return True
            if not line and self._proc.poll() is not None:
                return False
        return False

    def stop(self) -> None:
        self._proc.terminate()
        self._proc.wait(30)


async def serve_and_measure(
    g: BenchGraph,
    queries: list[tuple[str, str]],
    clients: int,
    port: int,
    *,
    cache: bool,
    ranking: dict[str, Any] | None = None,
    samples: list[float] | None = None,
    tree: Path | None = None,
) -> dict[str, Any]:
    """Start the API in a child process, load it from `clients` clients, stop it.

    `ranking` overrides ranking settings (`RankingSection` fields) in the API process; `samples`,
    when given, receives every latency measured (to pool several runs); `tree`, when given, is
    another source tree whose code serves the API (`--baseline`).

    `g.warm_up` queries (other than the measured ones) run first, as a service that has been up a
    while has served others: its word-frequency and statistics caches are warm, but the measured
    queries' own words may still be new to it.
    """
    warm = [q for q, _ in queries] if cache else []
    served = {**g.settings, "api": _UNLIMITED}
    proc: Any
    if tree is not None:
        settings = json.loads(json.dumps(served, default=str))
        proc = _TreeServer(
            tree,
            {"engine": settings, "port": port, "warm": warm, "cache": cache,
             "ranking": ranking or {}},
        )  # fmt: skip
        started = asyncio.to_thread(proc.wait_ready, 900)
    else:
        ctx = mp.get_context("spawn")
        ready = ctx.Event()
        proc = ctx.Process(
            target=_serve,
            args=(served, port, warm, cache, ready, ranking or {}),
            daemon=True,
        )
        proc.start()
        started = asyncio.to_thread(ready.wait, 900)
    try:
        if not await started:
            raise RuntimeError("the API process did not start")
        url = f"http://127.0.0.1:{port}"
        await _indexes_loaded(url)
        await run_load(url, g.key, g.warm_up, clients)
        engine_pid = g.engine_pid
        load0 = os.getloadavg()[0]
        api0, eng0 = process_cpu_s(proc.pid), process_cpu_s(engine_pid)
        clients0 = self_cpu_s()  # this process runs nothing but the clients meanwhile
        t = time.perf_counter()
        lat, errors = await run_load(url, g.key, queries, clients)
        wall = time.perf_counter() - t
        clients_cpu = self_cpu_s() - clients0
        api_cpu = process_cpu_s(proc.pid) - api0
        eng_cpu = process_cpu_s(engine_pid) - eng0
        load1 = os.getloadavg()[0]
        if samples is not None:
            samples.extend(lat)
    finally:
        if isinstance(proc, _TreeServer):
            await asyncio.to_thread(proc.stop)
        else:
            proc.terminate()
            await asyncio.to_thread(proc.join, 30)
    return {
        "latency_ms": percentiles(lat),
        "errors": errors,
        "throughput_rps": round(len(lat) / wall, 1),
        "cpu_ms_per_request": {
            "api": round(api_cpu * 1000 / max(1, len(lat)), 1),
            "engine": round(eng_cpu * 1000 / max(1, len(lat)), 1) if engine_pid else None,
            "clients": round(clients_cpu * 1000 / max(1, len(lat)), 1),
        },
        "load_average_1m": [round(load0, 2), round(load1, 2)],
    }


async def _indexes_loaded(url: str, timeout_s: float = 900.0) -> None:
    """Wait until the API has loaded its turn and knowledge indexes (`/readyz`; code without a
    start-up load of one: at once).

    A start-up load is not what a request costs: measuring while it runs would count it.
    """
    deadline = time.monotonic() + timeout_s
    async with httpx.AsyncClient(timeout=30) as http:
        while time.monotonic() < deadline:
            body = (await http.get(f"{url}/readyz")).json()
            if not any((body.get(k) or {}).get("warming") for k in _WARMING):
                return
            await asyncio.sleep(0.5)
    raise RuntimeError("the API did not load its indexes in time")


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
    ap.add_argument(
        "--vectors",
        choices=VECTOR_KINDS,
        default="random",
        help="turn embeddings: uniform random, or clustered like real ones (bench/vectors.py)",
    )
    return ap


def neo4j_settings() -> dict[str, Any]:
    """`ApiSettings` fields for the Neo4j named by `REMGRAPH_NEO4J__*` (or `NEO4J_*`)."""
    uri = os.environ.get("REMGRAPH_NEO4J__URI") or os.environ.get("NEO4J_URI")
    if not uri:
        raise SystemExit(
            "--engine neo4j: set REMGRAPH_NEO4J__URI, REMGRAPH_NEO4J__USER and "
            'REMGRAPH_NEO4J__PASSWORD (e.g. eval "$(../shared/neo4j/neo4j-test-server env)")'
        )
    user = os.environ.get("REMGRAPH_NEO4J__USER") or os.environ.get("NEO4J_USER", "neo4j")
    pw = os.environ.get("REMGRAPH_NEO4J__PASSWORD") or os.environ.get("NEO4J_PASSWORD", "")
    return {"engine": Engine.NEO4J, "neo4j": {"uri": uri, "user": user, "password": pw}}


async def _holds_bench_graph(db: GraphDB, turns: int, knowledge: int) -> bool:
    """Whether the graph holds exactly this bench graph (and nothing written by others)."""
    counts = {r["label"]: r["count"] for r in await db.read(_STATS)}
    if counts.get("Turn", 0) != turns:
        return False
    if sum(counts.get(label, 0) for label in _KNOWLEDGE_LABELS) != knowledge:
        return False
    return (await TurnRepository(db).get_many(["trn_bench_0_0"]))[0] is not None


@contextlib.asynccontextmanager
async def bench_graph(
    args: argparse.Namespace, engine: str = "embedded"
) -> AsyncIterator[BenchGraph]:
    """Start (embedded) or reach (Neo4j) the engine and build the graph unless it holds it from an
    earlier run (embedded: `--data-dir`, one graph per size; Neo4j: the database holds this bench
    graph and nothing else, else it is wiped first); stop an engine it started on the way out."""
    server: EmbeddedServer | None = None
    name = f"ctx_{args.turns}_{args.knowledge}"
    if engine == "embedded":
        data = args.data_dir or Path(tempfile.mkdtemp(prefix="ctxbench"))
        server = EmbeddedServer(EmbeddedSettings(data_dir=data, threads=2, startup_timeout_s=600))
        server.start()
        settings: dict[str, Any] = {
            "engine": Engine.FALKORDB,
            "graph_name": name,
            "falkordb": {"unix_socket": str(server.socket_path)},
        }
    elif engine == "neo4j":
        settings = neo4j_settings()
    else:
        raise ValueError(f"bench_graph: engine must be one of {ENGINES}, got {engine!r}")
    db = make_db(ApiSettings(env="test", **settings))
    try:
        await migrate(db)
        t = time.perf_counter()
        samples = None
        if not await _holds_bench_graph(db, args.turns, args.knowledge):
            if engine == "neo4j":
                await db.autocommit(_WIPE)
            samples = await build(db, args.turns, args.knowledge, args.seed, turn_vectors(args))
        build_s = time.perf_counter() - t
        if samples is None:  # graph kept from an earlier run: draw samples from its turns
            got = await TurnRepository(db).get_many([f"trn_bench_{i}_0" for i in range(300)])
            samples = [x.text for x in got if x is not None]
        _, key = await ApiKeyRepository(db).create("bench", list(PROJECTS))
        yield BenchGraph(
            engine,
            settings,
            server,
            name,
            build_s,
            make_queries(samples, args.requests, args.seed),
            make_queries(samples, 200, args.seed + 1),
            key,
            db,
        )
    finally:
        await db.close()
        if server is not None:
            server.stop()


# --- Neo4j vector index quantization -----------------------------------------------------------


def _vector_index_statements(quantized: bool) -> list[str]:
    """DDL that recreates Neo4j's vector indexes with quantization on or off, from the migrations.

    Off is migration 0017 as it stands (drop, then create with quantization disabled). On drops the
    same indexes and creates them as migration 0004 does: Neo4j 5.26's default is quantized.
    """
    files = {q.name.removeprefix("schema."): q for q in registry().migrations(Dialect.NEO4J)}
    unquantized = files["0017_vector_unquantized"].statements()
    if not quantized:
        return list(unquantized)
    drops = [
        s
        for s in unquantized
        if any(line.strip().upper().startswith("DROP ") for line in s.splitlines())
    ]
    return drops + list(files["0004_vector"].statements())


async def vector_indexes(db: GraphDB) -> dict[str, Any]:
    """Each vector index's name -> whether it is quantized and its options, as the engine says."""
    return {
        r["name"]: {"quantized": r["quantized"], "options": r["options"]}
        for r in await db.read(_VECTOR_INDEXES)
    }


async def set_neo4j_quantization(db: GraphDB, quantized: bool) -> float:
    """Recreate Neo4j's vector indexes with quantization as asked (unless they already are) and
    wait until they are online again; returns the seconds it took."""
    now = await vector_indexes(db)
    if now and all(v["quantized"] is quantized for v in now.values()):
        return 0.0
    t = time.perf_counter()
    for stmt in _vector_index_statements(quantized):
        await db.run_schema(stmt)
    await db.wait_for_indexes(3600)
    return round(time.perf_counter() - t, 1)


async def engine_facts(g: BenchGraph) -> dict[str, Any]:
    """What the numbers were measured on, engine side: memory settings, vector indexes, RSS."""
    pid = g.engine_pid
    return {
        "engine": g.engine,
        "address": g.db.address if g.engine == "neo4j" else "unix socket",
        "memory": {r["name"]: r["value"] for r in await g.db.read(_MEMORY)},
        "vector_indexes": await vector_indexes(g.db),
        "engine_rss_mib": process_rss_mib(pid) if pid else None,
    }


def _ratio(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
    """Latency percentiles of `a` divided by those of `b`."""
    la, lb = a["latency_ms"], b["latency_ms"]
    return {p: round(la[p] / lb[p], 2) for p in ("p50", "p95", "p99") if lb.get(p)}


def _graph_facts(args: argparse.Namespace, build_s: dict[str, float]) -> dict[str, Any]:
    return {
        "turns": args.turns,
        "knowledge_items": args.knowledge,
        "projects": len(PROJECTS),
        "embeddings": describe(args.vectors),
        "build_s": build_s,
    }


_COMMON = {
    "query": "context(limit 20, tokenBudget 2000) over HTTP on 127.0.0.1",
    "load": "closed loop: each client sends its next request when an answer arrives",
    "warm_up": "200 other queries before each measured run",
    "vocabulary": "generator words: function words, common words and a Zipfian tail",
}


async def main_embedded(args: argparse.Namespace) -> None:
    """The embedded engine alone: `bench/results/context.json`."""
    async with bench_graph(args) as g:
        single = await serve_and_measure(g, g.queries[:100], 1, args.port, cache=True)
        without = await serve_and_measure(g, g.queries, args.clients, args.port, cache=True)
        with_emb = await serve_and_measure(g, g.queries, args.clients, args.port, cache=False)
        out = {
            "graph": _graph_facts(args, {"embedded": round(g.build_s, 1)}),
            "clients": args.clients,
            "requests": args.requests,
            **_COMMON,
            "single_client_without_query_embedding": single,
            "without_query_embedding": without,
            "with_query_embedding": with_emb,
            "target_p95_ms": 50,
            "engine_rss_mib": process_rss_mib(pid) if (pid := g.engine_pid) else None,
        }
        path = write_result("context", out)
        print(path, out["without_query_embedding"], out["with_query_embedding"])


def _pooled(runs: list[dict[str, Any]], samples: list[float]) -> dict[str, Any]:
    """Runs of one configuration as one: percentiles over every sample, means of the rest."""
    return {
        "latency_ms": percentiles(samples),
        "errors": sum(r["errors"] for r in runs),
        "throughput_rps": round(float(np.mean([r["throughput_rps"] for r in runs])), 1),
        "cpu_ms_per_request": {
            k: round(float(np.mean([r["cpu_ms_per_request"][k] for r in runs])), 1)
            if all(r["cpu_ms_per_request"][k] is not None for r in runs)
            else None
            for k in runs[0]["cpu_ms_per_request"]
        },
        "cpu_ms_per_request_by_round": [r["cpu_ms_per_request"] for r in runs],
        "load_average_1m": [x for r in runs for x in r["load_average_1m"]],
        "runs": len(runs),
    }


async def main_neo4j(args: argparse.Namespace) -> None:
    """Neo4j, alone or next to the embedded engine: `bench/results/context_neo4j.json`.

    Single-client runs alternate between the engines (`--rounds` times; each configuration's
    samples pooled), so a neighbour's load on a shared machine falls on both alike; then one run
    with `--clients` clients each.
    """
    engines = list(ENGINES) if args.engine == "both" else ["neo4j"]
    quant = {"on": [True], "off": [False], "both": [True, False], "migrated": [None]}[
        args.neo4j_quantization
    ]
    async with contextlib.AsyncExitStack() as stack:
        graphs = {e: await stack.enter_async_context(bench_graph(args, e)) for e in engines}
        neo = graphs["neo4j"]
        queries = neo.queries[: args.single_requests]
        variants: dict[str, dict[str, Any]] = {}
        reindex_s: dict[str, float] = {}
        for q in quant:
            label = "neo4j" if q is None else f"neo4j_quantization_{'on' if q else 'off'}"
            if q is not None:
                reindex_s[label] = await set_neo4j_quantization(neo.db, q)
            todo = {label: neo}
            if "embedded" in graphs and "embedded" not in variants:
                todo["embedded"] = graphs["embedded"]
            runs: dict[str, list[dict[str, Any]]] = {k: [] for k in todo}
            samples: dict[str, list[float]] = {k: [] for k in todo}
            for rnd in range(args.rounds):
                for key, g in in_turn(list(todo.items()), rnd):
                    r = await serve_and_measure(
                        g, queries, 1, args.port, cache=True, samples=samples[key]
                    )
                    runs[key].append(r)
                    print(key, r["latency_ms"], file=sys.stderr)
            for key, g in todo.items():
                variants[key] = {
                    "engine": await engine_facts(g),
                    "single_client_without_query_embedding": _pooled(runs[key], samples[key]),
                    "clients_without_query_embedding": await serve_and_measure(
                        g, g.queries, args.clients, args.port, cache=True
                    ),
                }
        ratios: dict[str, Any] = {}
        if "embedded" in variants:
            base = variants["embedded"]
            for label, v in variants.items():
                if label != "embedded":
                    ratios[label] = {
                        "single_client": _ratio(
                            v["single_client_without_query_embedding"],
                            base["single_client_without_query_embedding"],
                        ),
                        f"{args.clients}_clients": _ratio(
                            v["clients_without_query_embedding"],
                            base["clients_without_query_embedding"],
                        ),
                    }
        out = {
            "graph": _graph_facts(args, {e: round(g.build_s, 1) for e, g in graphs.items()}),
            "clients": args.clients,
            "requests": {
                "single_client": args.single_requests * args.rounds,
                "clients": args.requests,
            },
            **_COMMON,
            "single_client_rounds": args.rounds,
            "neo4j_reindex_s": reindex_s,
            "variants": variants,
            "ratio_to_embedded": ratios,
            "target": "Neo4j single-client p95 within 2x the embedded engine's (issue 17.7)",
        }
        path = write_result(args.out or "context_neo4j", out)
        print(path, ratios)


def _cpu_ratio(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float | None]:
    """CPU per request of `a` divided by that of `b`: API, engine, and the two together."""
    ca, cb = a["cpu_ms_per_request"], b["cpu_ms_per_request"]
    out: dict[str, float | None] = {
        k: round(ca[k] / cb[k], 2) if ca[k] and cb[k] else None for k in ("api", "engine")
    }
    if ca["engine"] is not None and cb["engine"] is not None:
        out["api_plus_engine"] = round((ca["api"] + ca["engine"]) / (cb["api"] + cb["engine"]), 2)
    return out


_RUNS = ("single_client_without_query_embedding", "clients_without_query_embedding")


async def main_compare(args: argparse.Namespace) -> None:
    """This tree against `--baseline` on each engine asked for: `bench/results/context_speed.json`.

    Single-client rounds alternate between the two codes and the engines, `--rounds` times, each
    configuration's samples pooled, so a neighbour's load falls on all alike; then one run with
    `--clients` clients each.
    """
    engines = list(ENGINES) if args.engine == "both" else [args.engine]
    codes: dict[str, Path | None] = {"baseline": args.baseline.resolve(), "current": None}
    async with contextlib.AsyncExitStack() as stack:
        graphs = {e: await stack.enter_async_context(bench_graph(args, e)) for e in engines}
        runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
        samples: dict[tuple[str, str], list[float]] = {}
        for rnd in range(args.rounds):
            for e, g in graphs.items():
                for code, tree in in_turn(list(codes.items()), rnd):
                    r = await serve_and_measure(
                        g,
                        g.queries[: args.single_requests],
                        1,
                        args.port,
                        cache=True,
                        samples=samples.setdefault((e, code), []),
                        tree=tree,
                    )
                    runs.setdefault((e, code), []).append(r)
                    print(e, code, r["latency_ms"], r["cpu_ms_per_request"], file=sys.stderr)
        results: dict[str, Any] = {}
        for e, g in graphs.items():
            per: dict[str, Any] = {"engine": await engine_facts(g)}
            for code, tree in codes.items():
                per[code] = {
                    _RUNS[0]: _pooled(runs[(e, code)], samples[(e, code)]),
                    _RUNS[1]: await serve_and_measure(
                        g, g.queries, args.clients, args.port, cache=True, tree=tree
                    ),
                }
                print(e, code, "clients", per[code][_RUNS[1]]["latency_ms"], file=sys.stderr)
            cur, base = per["current"], per["baseline"]
            per["ratio_current_to_baseline"] = {
                run: {
                    "latency": _ratio(cur[run], base[run]),
                    "cpu": _cpu_ratio(cur[run], base[run]),
                }
                for run in _RUNS
            }
            results[e] = per
        neo4j_to_embedded = (
            {
                code: {run: _ratio(results["neo4j"][code][run], results["embedded"][code][run])
                       for run in _RUNS}
                for code in codes
            }
            if len(results) == 2
            else {}
        )  # fmt: skip
        out = {
            "graph": _graph_facts(args, {e: round(g.build_s, 1) for e, g in graphs.items()}),
            "baseline": str(codes["baseline"]),
            "clients": args.clients,
            "requests": {
                "single_client": args.single_requests * args.rounds,
                "clients": args.requests,
            },
            **_COMMON,
            "single_client_rounds": args.rounds,
            "engines": results,
            "neo4j_to_embedded": neo4j_to_embedded,
            "targets": {
                "cpu_ms_per_request": "API + engine <= 15 (issue 18.3)",
                "single_client_p95_ms": 30,
                "neo4j_single_client_p95": "within 2x the embedded engine's (issue 17.7)",
            },
        }
        path = write_result(args.out or "context_speed", out)
        print(path, {e: r["ratio_current_to_baseline"] for e, r in results.items()})
        print(neo4j_to_embedded)


async def main() -> None:
    ap = bench_arguments(__doc__, 18765)
    ap.add_argument("--engine", choices=(*ENGINES, "both"), default="embedded")
    ap.add_argument(
        "--neo4j-quantization", choices=("migrated", "on", "off", "both"), default="migrated"
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="alternating single-client rounds, the order reversed every other round",
    )
    ap.add_argument("--single-requests", type=int, default=100, help="per single-client round")
    ap.add_argument(
        "--out",
        default=None,
        help="result name (default: context_speed with --baseline, else context_neo4j for "
        "neo4j/both)",
    )
    ap.add_argument("--build-only", action="store_true", help="build (or keep) the graphs, exit")
    ap.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="another source tree to measure against in the same run (context_speed.json)",
    )
    args = ap.parse_args()
    if args.build_only:
        for engine in ENGINES if args.engine == "both" else (args.engine,):
            async with bench_graph(args, engine) as g:
                print(engine, "graph ready; built in", round(g.build_s, 1), "s", file=sys.stderr)
        return
    if args.baseline is not None:
        await main_compare(args)
    elif args.engine == "embedded":
        await main_embedded(args)
    else:
        await main_neo4j(args)


if __name__ == "__main__":
    asyncio.run(main())
