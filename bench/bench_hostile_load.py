"""Memory and CPU under hostile load: aliased, long `context` queries for a couple of minutes.

Run: `python -m bench.bench_hostile_load [--clients 6] [--seconds 120]`.

A fresh embedded FalkorDB is seeded with the two test projects; the API runs under uvicorn in a
subprocess with its default limits. Each client loops over three documents: 20 aliased `context`
calls with 4,000-character queries (cost 20 × 10 × 17 = 3,400: inside the 5,000 budget), the same
with 30 aliases and `limit: 20` (over budget: refused with `COST_LIMIT` before work starts), and
a short ordinary query. The API's RSS is sampled every second. First, one request at the cost
budget is timed on an idle API for its CPU seconds (the per-request CPU budget). Extends
`bench/results/reliability.json` under `summary.hostile_load`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import httpx

from bench.common import RESULTS, machine, process_cpu_s
from tests.support.api import make_keys, seed_projects
from tests.support.engine import (
    api_server,
    engine,
    graph,
    local_embedder,
    rss_mib,
)

LONG = ("what did we decide about the support group meetings and the deploy plan " * 60)[:4000]


def _aliased(n: int, limit: int) -> str:
    fields = " ".join(
        f'c{i}: context(query: $q, project: "alpha", limit: {limit}) {{ __typename }}'
        for i in range(n)
    )
    return "query($q: String!) { " + fields + " }"


DOCS = [
    (_aliased(20, 10), {"q": LONG}),
    (_aliased(30, 20), {"q": LONG}),
    ('{ context(query: "support group", project: "alpha") { __typename } }', {}),
]


async def run(workdir: Path, clients: int, seconds: float) -> dict[str, Any]:
    emb = local_embedder()
    with engine(workdir / "engine") as server:
        async with graph(server) as db:
            await seed_projects(db, emb)
            keys = await make_keys(db, {f"k{i}": ["*"] for i in range(clients)})
        with api_server(server, workdir) as (url, proc):
            async with httpx.AsyncClient(base_url=url, timeout=120) as c:
                h = {"Authorization": f"Bearer {keys['k0']}"}
                await c.post("/graphql", json={"query": DOCS[2][0]}, headers=h)  # warm up
                cpu0, t0 = process_cpu_s(proc.pid), time.perf_counter()
                r = await c.post(
                    "/graphql", json={"query": DOCS[0][0], "variables": DOCS[0][1]}, headers=h
                )
                one = {
                    "cost_units": 20 * 10 * (1 + len(LONG) // 250),
                    "cpu_s": round(process_cpu_s(proc.pid) - cpu0, 2),
                    "wall_s": round(time.perf_counter() - t0, 2),
                    "ok": r.status_code == 200 and not r.json().get("errors"),
                }
            codes: dict[str, int] = {}
            rss: list[float] = []
            stop = time.monotonic() + seconds
            cpu_start = process_cpu_s(proc.pid)

            async def client(i: int) -> None:
                h = {"Authorization": f"Bearer {keys[f'k{i}']}"}
                async with httpx.AsyncClient(base_url=url, timeout=120) as c:
                    n = 0
                    while time.monotonic() < stop:
                        q, v = DOCS[(i + n) % len(DOCS)]
                        n += 1
                        try:
                            r = await c.post(
                                "/graphql", json={"query": q, "variables": v}, headers=h
                            )
                        except httpx.HTTPError as e:
                            codes[type(e).__name__] = codes.get(type(e).__name__, 0) + 1
                            continue
                        errs = r.json().get("errors") if r.status_code == 200 else None
                        code = str(r.status_code)
                        if errs:
                            code += ":" + str(errs[0].get("extensions", {}).get("code"))
                        codes[code] = codes.get(code, 0) + 1

            async def sample() -> None:
                while time.monotonic() < stop:
                    rss.append(rss_mib(proc.pid))
                    await asyncio.sleep(1.0)

            await asyncio.gather(*(client(i) for i in range(clients)), sample())
            cpu = process_cpu_s(proc.pid) - cpu_start
    return {
        "clients": clients,
        "duration_s": seconds,
        "responses": codes,
        "internal_errors": sum(v for k, v in codes.items() if "INTERNAL" in k or k[:1] == "5"),
        "api_cpu_s": round(cpu, 1),
        "api_rss_mib_max": max(rss) if rss else 0.0,
        "api_rss_mib_last": rss[-1] if rss else 0.0,
        "request_at_cost_budget": one,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=120.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rg-hostile-") as tmp:
        out = asyncio.run(run(Path(tmp), args.clients, args.seconds))
    out["machine"] = machine()
    path = RESULTS / "reliability.json"
    doc = json.loads(path.read_text())
    doc.setdefault("summary", {})["hostile_load"] = out
    path.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
