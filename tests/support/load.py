"""Load scenario: concurrent GraphQL clients against a real uvicorn while an ingest runs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from ai.embed import Embedder
from graph.repositories.backlog import BacklogRepository
from tests.support.api import CONTEXT_QUERY, make_keys, seed_projects
from tests.support.corpus import write_corpus
from tests.support.engine import (
    GRAPH,
    api_server,
    engine,
    graph,
    label_counts,
    local_embedder,
    open_db,
    process_cpu_s,
    reap,
    rss_mib,
    spawn,
)


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    """p50/p95/p99/max of latencies in milliseconds."""
    s = sorted(samples_ms)
    if not s:
        return {}

    def pct(p: float) -> float:
        return round(s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))], 3)

    return {"p50": pct(50), "p95": pct(95), "p99": pct(99), "max": round(s[-1], 3), "n": len(s)}


QUERIES = (
    "When did Caroline go to the support group?",
    "adoption agencies",
    "lake sunrise painting",
    "graph index latency",
    "deploy the migration schema",
    "retry timeout budget",
    "weekly rollup of the worker queue",
    "which embedding model do we use",
)


async def load(
    workdir: Path,
    *,
    clients: int = 16,
    duration_s: float = 60.0,
    embedder: Embedder | None = None,
    ingest_turns: int = 0,
    ingest: dict[str, Any] | None = None,
    with_ingest: bool = True,
    after_writes: bool = False,
) -> dict[str, Any]:
    """`clients` concurrent GraphQL clients query `context` against uvicorn for `duration_s`
    while an ingest subprocess writes a corpus into the same graph.

    `ingest`: more `IngestSection` settings for that ingest (e.g. `backlog_nice`,
    `backlog_pause_s`, `defer_embeddings`); `with_ingest=False` measures the clients alone.
    `after_writes`: the window starts once every turn is written (or the ingest has exited), so
    only the ingest's backlog drain (if any) runs beside the clients, on the whole graph.
    """
    import httpx

    emb = embedder or local_embedder()
    sessions = 40
    per = max(10, (ingest_turns or int(duration_s * 250)) // sessions)
    corpus = workdir / "corpus"
    total = write_corpus(corpus, sessions=sessions, turns_per_session=per, project="loadtest")
    out: dict[str, Any] = {
        "clients": clients,
        "duration_s": duration_s,
        "corpus_turns": total if with_ingest else 0,
        "ingest_settings": (ingest or {}) if with_ingest else None,
        "window_after_writes": after_writes,
    }
    with engine(workdir / "load") as server:
        async with graph(server) as db:
            await seed_projects(db, emb)
            keys = await make_keys(db, {"all": ["*"]})
        with api_server(server, workdir) as (url, api_proc):
            ingest_proc = (
                spawn(
                    "ingest",
                    "--socket",
                    str(server.socket_path),
                    "--graph",
                    GRAPH,
                    "--settings",
                    json.dumps(ingest or {}),
                    str(corpus),
                    log=workdir / "ingest-subprocess.log",
                )
                if with_ingest
                else None
            )
            probe = open_db(server)
            backlog = BacklogRepository(probe)
            # wait until the ingest writes (its model load is not part of the window)
            start_wait = time.monotonic()
            while (
                ingest_proc is not None
                and time.monotonic() - start_wait < 180
                and ingest_proc.poll() is None
            ):
                if (await label_counts(probe)).get("Turn", 0) > (total - 1 if after_writes else 8):
                    break
                await asyncio.sleep(0.1)
            async with httpx.AsyncClient(base_url=url, timeout=120) as c:
                # warm-up: the API process loads its query embedder on the first `context` call
                await c.post(
                    "/graphql",
                    headers={"Authorization": f"Bearer {keys['all']}"},
                    json={
                        "query": CONTEXT_QUERY,
                        "variables": {"q": "warm up", "p": "alpha", "limit": 1},
                    },
                )
            turns_start = (await label_counts(probe)).get("Turn", 0)
            pending_start = await backlog.pending_turn_count()
            latencies: list[float] = []
            attempts = [0]
            errors: list[str] = []
            statuses: dict[str, int] = {}
            rss: list[float] = []
            stop = time.monotonic() + duration_s

            async def client(i: int) -> None:
                headers = {"Authorization": f"Bearer {keys['all']}"}
                async with httpx.AsyncClient(base_url=url, timeout=30) as c:
                    n = 0
                    while time.monotonic() < stop:
                        q = QUERIES[(i + n) % len(QUERIES)]
                        project = "alpha" if n % 2 == 0 else "loadtest"
                        body = {
                            "query": CONTEXT_QUERY,
                            "variables": {"q": q, "p": project, "budget": 1000, "limit": 10},
                        }
                        t = time.perf_counter()
                        n += 1
                        attempts[0] += 1
                        try:
                            r = await c.post("/graphql", json=body, headers=headers)
                        except httpx.HTTPError as e:
                            errors.append(f"{type(e).__name__}: {e}")
                            continue
                        latencies.append((time.perf_counter() - t) * 1000)
                        statuses[str(r.status_code)] = statuses.get(str(r.status_code), 0) + 1
                        payload = r.json() if r.status_code == 200 else {}
                        ctx = (payload.get("data") or {}).get("context") or {}
                        if (
                            r.status_code != 200
                            or payload.get("errors")
                            or (ctx.get("__typename") != "ContextPayload")
                        ):
                            errors.append(f"{r.status_code}: {r.text[:200]}")

            async def sample_rss() -> None:
                while time.monotonic() < stop:
                    rss.append(rss_mib(api_proc.pid))
                    await asyncio.sleep(1.0)

            engine_pid = server.status().pid
            ingest_pid = ingest_proc.pid if ingest_proc is not None else None
            cpu0 = [process_cpu_s(p) for p in (api_proc.pid, engine_pid, ingest_pid)]
            t0 = time.perf_counter()
            await asyncio.gather(*(client(i) for i in range(clients)), sample_rss())
            elapsed = time.perf_counter() - t0
            api_cpu, engine_cpu, ingest_cpu = (
                process_cpu_s(p) - c
                for p, c in zip((api_proc.pid, engine_pid, ingest_pid), cpu0, strict=True)
            )
            turns_end = (await label_counts(probe)).get("Turn", 0)
            pending_end = await backlog.pending_turn_count()
            ingest_running = ingest_proc is not None and ingest_proc.poll() is None
            if ingest_proc is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(ingest_proc.pid, signal.SIGTERM)
                reap(ingest_proc, timeout=15)
            await probe.close()
            st = server.status()
            out.update(
                {
                    "requests": attempts[0],
                    "errors": len(errors),
                    "error_examples": errors[:3],
                    "status_codes": statuses,
                    "elapsed_s": round(elapsed, 2),
                    "requests_per_s": round(len(latencies) / elapsed, 1) if elapsed else 0.0,
                    "latency_ms": percentiles(latencies),
                    "turns_ingested_during_window": turns_end - turns_start,
                    "turns_embedded_during_window": pending_start
                    + (turns_end - turns_start)
                    - pending_end,
                    "turns_pending_at_end": pending_end,
                    "ingest_ran_whole_window": ingest_running,
                    "api_rss_mib_max": max(rss) if rss else 0.0,
                    # CPU seconds in the window, and per answered request (API + engine)
                    "cpu_s_in_window": {
                        "api": round(api_cpu, 2),
                        "engine": round(engine_cpu, 2),
                        "ingest": round(ingest_cpu, 2),
                    },
                    "cpu_ms_per_request": round(
                        (api_cpu + engine_cpu) * 1000 / max(1, len(latencies)), 1
                    ),
                    "engine_rss_mib": rss_mib(st.pid) if st.pid else 0.0,
                }
            )
    return out
