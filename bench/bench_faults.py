"""Reliability figures: the fault, fuzz and load scenarios of `tests/integration/reliability/`,
run with more trials and written to `bench/results/reliability.json`.

Run: `python bench/bench_faults.py [--fuzz-examples 2000] [--load-seconds 60] [--quick]`.

- engine SIGKILL during an ingest, at several points, then restart and re-ingest → compared with a
  clean run (node ids, property digests, embeddings, edge counts per type);
- engine down under the API → `/readyz` 503 and a clear GraphQL error, recovery without restart;
- worker SIGKILL mid-consolidation at several delays → previous run current, next run completes;
- hypothesis fuzzing of `/graphql` → no 5xx, every error with a message, no cross-project leak,
  oversize bodies 413;
- 16 GraphQL clients against uvicorn while an ingest runs → errors and latency.

Every figure comes from a run of the `tests/support/` scenarios; nothing is written by hand.
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

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write_result  # noqa: E402
from tests.support.api import engine_down_api  # noqa: E402
from tests.support.crash import (  # noqa: E402
    engine_kill_during_ingest,
    worker_kill_mid_consolidation,
)
from tests.support.engine import local_embedder  # noqa: E402
from tests.support.fuzz import fuzz_api  # noqa: E402
from tests.support.load import load  # noqa: E402


def _timed(name: str, fn: Any) -> Any:
    t = time.perf_counter()
    out = fn()
    print(f"{name}: {time.perf_counter() - t:.1f}s", file=sys.stderr)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run every scenario in its own temporary folder; return the raw results and the summary."""
    emb = local_embedder()
    raw: dict[str, Any] = {}
    kills = (0.2, 0.5) if args.quick else (0.1, 0.35, 0.6, 0.85)
    delays = (0.1,) if args.quick else (0.05, 0.5, 1.0)
    with tempfile.TemporaryDirectory(prefix="remgraph-faults-") as tmp:
        base = Path(tmp)
        raw["engine_kill_during_ingest"] = _timed(
            "engine kill",
            lambda: asyncio.run(
                engine_kill_during_ingest(
                    base / "ingest", sessions=12, turns_per_session=40, kill_at=kills, embedder=emb
                )
            ),
        )
        raw["engine_down_api"] = _timed(
            "engine down", lambda: asyncio.run(engine_down_api(base / "api", embedder=emb))
        )
        raw["worker_kill_mid_consolidation"] = _timed(
            "worker kill",
            lambda: asyncio.run(worker_kill_mid_consolidation(base / "rem", kill_delays_s=delays)),
        )
        raw["fuzz"] = _timed(
            "fuzz", lambda: fuzz_api(base / "fuzz", max_examples=args.fuzz_examples, embedder=emb)
        )
        raw["load"] = _timed(
            "load",
            lambda: asyncio.run(
                load(
                    base / "load", clients=args.clients, duration_s=args.load_seconds, embedder=emb
                )
            ),
        )
    ek, down, wk = (
        raw["engine_kill_during_ingest"],
        raw["engine_down_api"],
        raw["worker_kill_mid_consolidation"],
    )
    fz, ld = raw["fuzz"], raw["load"]
    down_ok = (
        down["ready_down"]["status"] == 503
        and down["graphql_down"]["code"] == "UNAVAILABLE"
        and down["graphql_down_new_key"]["status"] == 503
        and down["ready_after"] == 200
        and down["context_after"] == down["context_before"]
    )
    summary = {
        "load_held": {
            "clients": ld["clients"],
            "duration_s": ld["duration_s"],
            "requests": ld["requests"],
            "errors": ld["errors"],
            "p50_ms": ld["latency_ms"].get("p50"),
            "p95_ms": ld["latency_ms"].get("p95"),
            "p99_ms": ld["latency_ms"].get("p99"),
            "requests_per_s": ld["requests_per_s"],
            "turns_ingested_during_window": ld["turns_ingested_during_window"],
            "ingest_ran_whole_window": ld["ingest_ran_whole_window"],
            "api_rss_mib_max": ld["api_rss_mib_max"],
        },
        "faults": {
            "engine_sigkill_during_ingest": {
                "trials": len(ek["trials"]),
                "survived": sum(
                    t["comparison"]["equal"] and t["idempotent_rerun_equal"] for t in ek["trials"]
                ),
                "turns_when_killed": [t["turns_when_killed"] for t in ek["trials"]],
                "corpus_turns": ek["corpus_turns"],
            },
            "engine_down_under_api": {
                "trials": 1,
                "survived": int(down_ok),
                "readyz_while_down": down["ready_down"]["status"],
                "graphql_while_down": down["graphql_down"]["error"],
                "recovered_in_s": down["recovered_in_s"],
            },
            "worker_sigkill_mid_consolidation": {
                "trials": len(wk["trials"]),
                "survived": sum(
                    t["current_unchanged"]
                    and t["communities_unchanged"]
                    and t["next_run"]["status"] == "succeeded"
                    and t["next_run"]["is_current"]
                    for t in wk["trials"]
                ),
                "killed_at": [t["killed_at"] for t in wk["trials"]],
            },
        },
        "fuzz": {
            "inputs_tried": fz["inputs_tried"],
            "failures": fz["failure_count"],
            "answered_with_data": fz["answered_with_data"],
            "by_kind": fz["by_kind"],
            "status_codes": fz["status_codes"],
            "oversize_rejected_413": fz["oversize_rejected"],
        },
        "data_lost": ek["data_lost"],
    }
    faults = summary["faults"]
    summary["faults_survived"] = sum(f["survived"] for f in faults.values())
    summary["faults_tried"] = sum(f["trials"] for f in faults.values())
    return {"summary": summary, "scenarios": raw}


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--fuzz-examples", type=int, default=2000)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--load-seconds", type=float, default=60.0)
    p.add_argument("--quick", action="store_true", help="fewer fault trials")
    args = p.parse_args()
    result = run(args)
    result["load_average_1m_at_end"] = round(os.getloadavg()[0], 2)
    out = write_result("reliability", result)
    print(out.read_text(encoding="utf-8")[:4000])


if __name__ == "__main__":
    main()
