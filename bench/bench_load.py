"""Load benchmark: 16 concurrent GraphQL clients query `context` while an ingest runs.

Run: `python bench/bench_load.py [--clients 16] [--seconds 60] [--no-ingest]
[--ingest-settings JSON] [--name load]`.

A fresh embedded FalkorDB is seeded with two small projects; the API runs under uvicorn on
127.0.0.1 in a subprocess; an ingest subprocess writes a synthetic corpus (with local embeddings)
into the same graph; the clients (httpx.AsyncClient, one connection each) query `context` in a loop
for the whole window, alternating a seeded project and the one being ingested. Any non-200, GraphQL
error or non-`ContextPayload` answer counts as an error. Writes `bench/results/load.json`.
The same scenario runs bounded (15 s) in `tests/integration/reliability/test_load.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write_result  # noqa: E402
from tests.support.load import load  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--no-ingest", action="store_true", help="the clients alone (the floor)")
    p.add_argument(
        "--ingest-settings",
        default="{}",
        help="JSON: the ingest's `IngestSection` settings, e.g. '{\"backlog_nice\": 19}'",
    )
    p.add_argument("--name", default="load", help="result file bench/results/NAME.json")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="remgraph-load-") as tmp:
        load_before = [round(x, 2) for x in os.getloadavg()]
        result = asyncio.run(
            load(
                Path(tmp),
                clients=args.clients,
                duration_s=args.seconds,
                ingest=json.loads(args.ingest_settings),
                with_ingest=not args.no_ingest,
            )
        )
    result["load_average_before"] = load_before
    result["load_average_1m_at_end"] = round(os.getloadavg()[0], 2)
    out = write_result(args.name, result)
    print(out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
