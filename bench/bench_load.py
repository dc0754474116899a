"""Load benchmark: 16 concurrent GraphQL clients query `context` while an ingest runs.

Run: `python bench/bench_load.py [--clients 16] [--seconds 60] [--variants a,b,...]
[--name load]`; the variants (the clients alone, an ingest whose backlog drain is niced 10 or
19 and paced, an ingest that embeds inline) run back to back into one result file.

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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write_result  # noqa: E402
from tests.support.load import load  # noqa: E402

_PACED = {"backlog_nice": 19, "backlog_pause_s": 0.5}
VARIANTS: dict[str, tuple[dict[str, Any] | None, bool]] = {
    "no_ingest": (None, False),
    "backlog_nice10": ({}, False),
    "backlog_nice19_paced": (_PACED, False),
    "inline_embedding": ({"defer_embeddings": False}, False),
    "written_no_embedding": ({"embed": False}, True),
    "written_drain_nice10": ({}, True),
    "written_drain_nice19_paced": (_PACED, True),
}
"""`--variants` names: the ingest's extra `IngestSection` settings (None: no ingest at all), and
whether the window starts only once every turn is written (`written_*`: the clients then share
the machine with the backlog drain alone, on the whole graph; `written_no_embedding` is their
floor on the same graph)."""


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument(
        "--variants",
        default="backlog_nice10",
        help=f"comma-separated, run back to back: {', '.join(VARIANTS)}",
    )
    p.add_argument("--name", default="load", help="result file bench/results/NAME.json")
    args = p.parse_args()
    runs: list[dict[str, Any]] = []
    for name in args.variants.split(","):
        if name not in VARIANTS:
            p.error(f"--variants: unknown {name!r} (known: {', '.join(VARIANTS)})")
        ingest, after_writes = VARIANTS[name]
        with tempfile.TemporaryDirectory(prefix="remgraph-load-") as tmp:
            load_before = [round(x, 2) for x in os.getloadavg()]
            result = asyncio.run(
                load(
                    Path(tmp),
                    clients=args.clients,
                    duration_s=args.seconds,
                    ingest=ingest,
                    with_ingest=ingest is not None,
                    after_writes=after_writes,
                )
            )
        result["variant"] = name
        result["load_average_before"] = load_before
        result["load_average_1m_at_end"] = round(os.getloadavg()[0], 2)
        print(json.dumps(result, indent=1), flush=True)
        runs.append(result)
    out = write_result(
        args.name, {"when": datetime.now(UTC).isoformat(timespec="seconds"), "runs": runs}
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
