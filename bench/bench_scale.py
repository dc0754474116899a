"""Scale benchmark: synthetic transcripts at 10K, 50K, 100K and 268K turns on the embedded engine.

Run: `python bench/bench_scale.py [--sizes 10000 50000] [--queries 200]`.

Per size, on a fresh embedded FalkorDB in a temporary folder:
1. generate `turns` turns in `turns / 335` sessions (268K turns → 800 sessions) with
   `tests/support/generate.py`'s session and line builders (seeded);
2. ingest them with offline knowledge extraction and local MiniLM embeddings, timed end to end
   (the model load is timed apart);
3. run one full consolidation cycle (`run_cycle(force=True)`: every REM job), timed per job;
4. serve the API with uvicorn on 127.0.0.1 and time `context` queries over HTTP (sequential, after
   a warm-up), reporting p50/p95/p99 and the API process's RSS;
5. report the engine's RSS and the data directory's size on disk.

Results are merged by size into `bench/results/scale.json` (sizes measured earlier are kept), so
the big sizes can be run later on their own. `bench/plot_scale.py` draws the PNG.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import (  # noqa: E402
    RESULTS,
    machine,
    percentiles,
    process_cpu_s,
    process_rss_mib,
    self_cpu_s,
)
from tests.support.api import make_keys  # noqa: E402
from tests.support.engine import (  # noqa: E402
    api_server,
    engine,
    graph,
    label_counts,
    local_embedder,
)
from tests.support.generate import TECH, generic_lines, session_turns  # noqa: E402

TURNS_PER_SESSION = 335  # 268K turns in 800 sessions
TARGETS = {"ingest_minutes_at_268k": 30, "context_p95_ms": 100, "api_rss_mib": 1536}


def generate_sized(out: Path, turns: int, *, projects: int = 8, seed: int = 7) -> dict[str, int]:
    """About `turns` turns in `turns / 335` sessions (lengths ±40%), one file per session."""
    rng = random.Random(seed)
    sessions = max(1, round(turns / TURNS_PER_SESSION))
    names = [f"proj-{i:02d}" for i in range(projects)]
    day = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
    written = 0
    for s in range(sessions):
        left = turns - written
        n = left if s == sessions - 1 else int(TURNS_PER_SESSION * rng.uniform(0.6, 1.4))
        n = max(1, min(n, left - (sessions - s - 1)))
        project = rng.choice(names)
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        start = day + timedelta(hours=rng.randint(0, 9), minutes=rng.randint(0, 59))
        lines = generic_lines(project, sid, start, session_turns(rng, n)[:n])
        (out / project).mkdir(parents=True, exist_ok=True)
        (out / project / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")
        written += len(lines)
        day += timedelta(days=1)
    return {"turns": written, "sessions": sessions, "projects": projects}


def queries(n: int, seed: int = 3) -> list[tuple[str, str | None]]:
    """Realistic `context` questions about the synthetic corpus, half of them project-scoped."""
    rng = random.Random(seed)
    forms = (
        "what did we decide about {a}",
        "why did we switch from {b} to {a}",
        "{a} timeout error in the worker",
        "how do we run {a} in ci",
        "which package manager do we use",
        "last time the {a} migration failed",
        "correction about {a} and {b}",
        "how is the graph index configured",
    )
    out = []
    for i in range(n):
        a, b = rng.sample(TECH, 2)
        project = f"proj-{rng.randrange(8):02d}" if i % 2 else None
        out.append((rng.choice(forms).format(a=a, b=b), project))
    return out


async def _random_turn_vectors(db: Any) -> float:
    """Give every turn a random unit 384-d vector (loads the vector index to size); seconds."""
    import numpy as np

    from graph.repositories import SessionRepository, TurnRepository

    rng = np.random.default_rng(5)
    sessions, turns_repo = SessionRepository(db), TurnRepository(db)
    t = time.perf_counter()
    after = ""
    while True:
        page = await sessions.list(after=after, limit=200)
        if not page:
            break
        after = page[-1].id
        for s in page:
            ordinal = -1
            while True:
                turns = await turns_repo.list(s.id, after=ordinal, limit=1000)
                if not turns:
                    break
                ordinal = turns[-1].ordinal
                v = rng.standard_normal((len(turns), 384)).astype(np.float32)
                v /= np.linalg.norm(v, axis=1, keepdims=True)
                await turns_repo.set_embeddings(zip([x.id for x in turns], v, strict=True))
    return round(time.perf_counter() - t, 1)


def _code_version() -> str:
    """`git describe` of the work tree the run used (`-dirty` when it had uncommitted changes)."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip()


def dir_bytes(path: Path) -> int:
    """Bytes of all files under `path`."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


CONTEXT = """query($q: String!, $p: String, $limit: Int!, $budget: Int) {
  context(query: $q, project: $p, limit: $limit, tokenBudget: $budget) {
    __typename ... on ContextPayload { totalTokens candidates items { id kind score } }
    ... on InvalidInput { field message } } }"""


async def measure_context(url: str, key: str, n: int, api_pid: int) -> dict[str, Any]:
    """Sequential `context` requests over HTTP after 5 warm-up requests."""
    import httpx

    lat: list[float] = []
    cpu0 = 0.0
    errors = 0
    kinds: dict[str, int] = {}
    qs = queries(n + 5)
    async with httpx.AsyncClient(
        base_url=url, timeout=60, headers={"Authorization": f"Bearer {key}"}
    ) as c:
        for i, (q, p) in enumerate(qs):
            if i == 5:  # after the warm-up (the first request loads the query embedder)
                cpu0 = process_cpu_s(api_pid)
            body = {"query": CONTEXT, "variables": {"q": q, "p": p, "limit": 20, "budget": 2000}}
            t = time.perf_counter()
            r = await c.post("/graphql", json=body)
            ms = (time.perf_counter() - t) * 1000
            data = r.json().get("data") if r.status_code == 200 else None
            ctx = (data or {}).get("context") or {}
            if r.status_code != 200 or ctx.get("__typename") != "ContextPayload":
                errors += 1
                continue
            if i >= 5:
                lat.append(ms)
                for item in ctx["items"]:
                    kinds[item["kind"]] = kinds.get(item["kind"], 0) + 1
    cpu = process_cpu_s(api_pid) - cpu0
    return {
        "latency_ms": percentiles(lat),
        "errors": errors,
        "item_kinds": kinds,
        # what contention does not change: the API process's CPU per request (query embedding,
        # ranking, JSON), next to the engine's share measured by the caller
        "api_cpu_ms_per_request": round(cpu * 1000 / n, 1),
    }


async def run_size(
    turns: int, n_queries: int, workdir: Path, *, vectors: str = "model"
) -> dict[str, Any]:
    """One size end to end; returns its result row."""
    from consolidate.config import ConsolidateSection, ConsolidateSettings
    from consolidate.runner import run_cycle
    from graph.config import Engine
    from ingest.config import IngestSettings
    from ingest.extract.service import ExtractionHook
    from ingest.pipeline import ingest_paths

    corpus = workdir / "corpus"
    t = time.perf_counter()
    gen = generate_sized(corpus, turns)
    row: dict[str, Any] = {
        "turns": gen["turns"],
        "sessions": gen["sessions"],
        "turn_embeddings": vectors,
        "generate_s": round(time.perf_counter() - t, 1),
        "corpus_bytes": dir_bytes(corpus),
    }
    emb = local_embedder()
    t = time.perf_counter()
    await emb.embed(["load the model before the clock starts"])
    row["model_load_s"] = round(time.perf_counter() - t, 1)
    with engine(workdir / "data") as server:
        async with graph(server, "scale") as db:
            settings = IngestSettings(
                engine=Engine.FALKORDB,
                graph_name="scale",
                ingest={"batch_size": 256, "embed": vectors == "model"},
                _env_file=None,
            )
            hook = ExtractionHook(settings, embedder=emb)
            t = time.perf_counter()
            cpu0, eng0 = self_cpu_s(), process_cpu_s(server.status().pid)
            rep = await ingest_paths(db, settings, [corpus], embedder=emb, hooks=[hook])
            ex = await hook.finish(db)
            ingest_s = time.perf_counter() - t
            cpu1, eng1 = self_cpu_s(), process_cpu_s(server.status().pid)
            row["ingest"] = {
                "seconds": round(ingest_s, 1),
                "turns_per_s": round(rep.turns_new / ingest_s, 1),
                "turns_new": rep.turns_new,
                "failed": rep.turns_failed,
                "stages_s": {k: round(v, 1) for k, v in rep.timings.items()},
                "extraction_s": round(ex.seconds, 1),
                # CPU time is what contention does not change: the ingest process's and the
                # engine's CPU seconds spent on this ingest
                "ingest_process_cpu_s": round(cpu1 - cpu0, 1),
                "engine_cpu_s": round(eng1 - eng0, 1),
            }
            if vectors == "random":
                row["random_turn_vectors_s"] = await _random_turn_vectors(db)
            row["knowledge"] = {
                k: v for k, v in ex.model_dump().items() if isinstance(v, int) and v
            }
            cs = ConsolidateSettings(
                engine=Engine.FALKORDB,
                graph_name="scale",
                falkordb={"unix_socket": server.socket_path},
                consolidate=ConsolidateSection(report_dir=workdir / "reports"),
                _env_file=None,
            )
            t = time.perf_counter()
            cycle = await run_cycle(db=db, settings=cs, force=True)
            row["consolidation"] = {
                "seconds": round(time.perf_counter() - t, 1),
                "jobs": {
                    r.job: {"status": r.status, "s": round(r.duration_ms / 1000, 1)}
                    for r in cycle.reports
                },
            }
            keys = await make_keys(db, {"bench": ["*"]})
            row["nodes"] = await label_counts(db)
        with api_server(server, workdir, graph_name="scale") as (url, api_proc):
            eng0 = process_cpu_s(server.status().pid)
            row["context"] = await measure_context(url, keys["bench"], n_queries, api_proc.pid)
            row["context"]["engine_cpu_ms_per_request"] = round(
                (process_cpu_s(server.status().pid) - eng0) * 1000 / (n_queries + 5), 1
            )
            row["api_rss_mib"] = process_rss_mib(api_proc.pid)
        st = server.status()
        row["engine_rss_mib"] = process_rss_mib(st.pid) if st.pid else 0.0
        row["aof_bytes"] = st.aof_bytes
        row["data_dir_bytes"] = dir_bytes(workdir / "data")
    return row


def merge(rows: list[dict[str, Any]], notes: str) -> Path:
    """Merge `rows` into `bench/results/scale.json` by turn count."""
    out = RESULTS / "scale.json"
    old: dict[str, Any] = {}
    if out.exists():
        old = json.loads(out.read_text())
    for r in [*old.get("sizes", []), *rows]:  # rows of the first version stored a bool
        if isinstance(r.get("turn_embeddings"), bool):
            r["turn_embeddings"] = "model" if r["turn_embeddings"] else "none"
    by_size = {(r["requested_turns"], r["turn_embeddings"]): r for r in old.get("sizes", [])}
    for r in rows:
        by_size[(r["requested_turns"], r["turn_embeddings"])] = r
    data = {
        "benchmark": "scale",
        "machine": machine(),
        "targets": TARGETS,
        "notes": notes or old.get("notes", ""),
        "sizes": [by_size[k] for k in sorted(by_size)],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2) + "\n")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--notes", default="")
    p.add_argument(
        "--turn-vectors",
        choices=("model", "random", "none"),
        default="model",
        help="model: embed turns with MiniLM during ingest (the real path); random: ingest "
        "without, then give turns random unit vectors so the vector index has full size for "
        "the context measurement; none: no turn vectors",
    )
    p.add_argument(
        "--no-embed",
        action="store_true",
        help="ingest turns without embeddings (knowledge items still get theirs)",
    )
    args = p.parse_args()
    for size in args.sizes:
        with tempfile.TemporaryDirectory(prefix="remgraph-scale-") as tmp:
            t = time.perf_counter()
            row = asyncio.run(
                run_size(
                    size,
                    args.queries,
                    Path(tmp),
                    vectors="none" if args.no_embed else args.turn_vectors,
                )
            )
            row["requested_turns"] = size
            row["code"] = _code_version()
            row["wall_s"] = round(time.perf_counter() - t, 1)
            row["load_average_1m_at_end"] = round(os.getloadavg()[0], 2)
            row["measured_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        (
            Path(tempfile.gettempdir()) / f"scale-{size}-{row['turn_embeddings']}.partial.json"
        ).write_text(json.dumps(row, indent=1))  # kept if the merge below fails
        out = merge([row], args.notes)  # after each size: a crash later keeps what was measured
        print(json.dumps(row, indent=1))
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
