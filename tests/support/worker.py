"""Subprocess entry points the scenarios kill: `python -m tests.support.worker ingest|consolidate`.

Each runs an ingest or a REM job against an engine socket, so the caller can SIGKILL the process
(or the engine underneath it) mid-run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from graph.config import Engine
from graph.engines.falkordb import FalkorDBGraph
from tests.support.crash import run_ingest
from tests.support.engine import GRAPH, local_embedder


async def _ingest_main(args: argparse.Namespace) -> int:
    db = FalkorDBGraph(graph_name=args.graph, unix_socket=args.socket)
    try:
        rep = await run_ingest(
            db, [Path(p) for p in args.paths], local_embedder(), ingest=json.loads(args.settings)
        )
    finally:
        await db.close()
    print(json.dumps(rep))
    return 0


async def _consolidate_main(args: argparse.Namespace) -> int:
    from consolidate.config import ConsolidateSection, ConsolidateSettings
    from consolidate.runner import run_job

    settings = ConsolidateSettings(
        engine=Engine.FALKORDB,
        graph_name=args.graph,
        falkordb={"unix_socket": args.socket},
        consolidate=ConsolidateSection(report_dir=Path(args.report_dir), lock_ttl_s=args.lock_ttl),
        _env_file=None,
    )
    db = FalkorDBGraph(graph_name=args.graph, unix_socket=args.socket)
    try:
        rep = await run_job("communities", db=db, settings=settings)
    finally:
        await db.close()
    print(json.dumps({"status": rep.status, "ms": rep.duration_ms}))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m tests.support.worker ingest|consolidate ...` (driven by the scenarios)."""
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    i = sub.add_parser("ingest")
    i.add_argument("--socket", required=True)
    i.add_argument("--graph", default=GRAPH)
    i.add_argument("--settings", default="{}", help="JSON: more `ingest` settings")
    i.add_argument("paths", nargs="+")
    c = sub.add_parser("consolidate")
    c.add_argument("--socket", required=True)
    c.add_argument("--graph", default=GRAPH)
    c.add_argument("--lock-ttl", type=float, default=3.0)
    c.add_argument("--report-dir", default=".")
    args = p.parse_args(argv)
    if args.cmd == "ingest":
        return asyncio.run(_ingest_main(args))
    return asyncio.run(_consolidate_main(args))


if __name__ == "__main__":
    sys.exit(main())
