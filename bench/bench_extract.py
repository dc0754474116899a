"""Extraction benchmark: the cost of knowledge extraction per turn, on LoCoMo dev.

Two measurements:

1. `offline_pure`: the offline extractor alone (parse once, then extract every session; no graph,
   no embeddings): µs per turn.
2. `end_to_end`: `ingest_paths` into a fresh embedded FalkorDB with the extraction hook, then
   `hook.finish()`. The overhead per turn is (hook time + finish time) / turns; it includes
   embedding topic/correction/lesson texts, similarity searches and the writes. The writer's
   per-step timings are reported too.

Run: `python bench/bench_extract.py [--locomo PATH] [--conversations N] [--out FILE]`.
The machine is shared by several engineers: the JSON records the load average at start and end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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

from ai.config import EmbeddingSettings  # noqa: E402
from ai.embed import make_embedder  # noqa: E402
from bench.common import write_result  # noqa: E402
from graph.config import EmbeddedSettings  # noqa: E402
from graph.embedded import EmbeddedServer  # noqa: E402
from graph.engines.falkordb import FalkorDBGraph  # noqa: E402
from graph.migrate import migrate  # noqa: E402
from ingest.config import IngestSettings  # noqa: E402
from ingest.extract.offline import OfflineExtractor  # noqa: E402
from ingest.extract.service import ExtractionHook, session_input_from_parsed  # noqa: E402
from ingest.pipeline import ingest_paths  # noqa: E402
from ingest.sources.base import ParseOptions  # noqa: E402
from ingest.sources.locomo import LocomoParser  # noqa: E402

DEFAULT_LOCOMO = ROOT.parent / "shared" / "benchmarks" / "locomo" / "locomo-dev.json"


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def offline_pure(path: Path, repeat: int = 3) -> dict[str, Any]:
    res = LocomoParser().parse(path.read_bytes(), None, ParseOptions(file=str(path)))
    inputs = [session_input_from_parsed(s) for s in res.sessions]
    turns = sum(len(i.turns) for i in inputs)
    ex = OfflineExtractor()
    best = float("inf")
    counts: dict[str, int] = {}
    for _ in range(repeat):
        t0 = time.perf_counter()
        outs = [ex.extract_sync(i) for i in inputs]
        best = min(best, time.perf_counter() - t0)
    for o in outs:
        for k in ("topics", "corrections", "facts", "lessons"):
            counts[k] = counts.get(k, 0) + len(getattr(o, k))
    return {
        "sessions": len(inputs),
        "turns": turns,
        "seconds": round(best, 4),
        "us_per_turn": round(best / turns * 1e6, 1),
        "candidates": counts,
    }


async def end_to_end(path: Path, data_dir: Path) -> dict[str, Any]:
    server = EmbeddedServer(EmbeddedSettings(data_dir=data_dir))
    server.start()
    try:
        db = FalkorDBGraph(graph_name="bench_extract", unix_socket=str(server.socket_path))
        await migrate(db)
        settings = IngestSettings()
        embedder = make_embedder(EmbeddingSettings())
        await embedder.embed(["warm up the model"])
        hook = ExtractionHook(settings, embedder=embedder)
        rep = await ingest_paths(db, settings, [path], hooks=[hook], embedder=embedder)
        t0 = time.perf_counter()
        full = await hook.finish(db)
        finish_s = time.perf_counter() - t0
        writer = next(iter(hook._writers.values()))
        await db.close()
    finally:
        server.stop()
    turns = rep.turns_new
    hooks_s = rep.timings.get("hooks", 0.0)
    extract_s = hooks_s + finish_s
    ingest_only = rep.timings["total"] - hooks_s
    return {
        "turns": turns,
        "sessions": rep.sessions,
        "ingest_seconds_without_extraction": round(ingest_only, 3),
        "extraction_seconds": round(extract_s, 3),
        "extraction_ms_per_turn": round(extract_s / turns * 1000, 3) if turns else None,
        "extraction_share_of_ingest": round(extract_s / (ingest_only + extract_s), 3),
        "ingest_turns_per_s_with_extraction": round(turns / (ingest_only + extract_s), 1),
        "ingest_timings": rep.timings,
        "writer_timings": {k: round(v, 3) for k, v in writer.timings.items()},
        "report": full.model_dump(exclude={"failures", "llm_usage"}),
        "hook_errors": list(rep.hook_errors),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    ap.add_argument("--conversations", type=int, default=0, help="first N conversations (0: all)")
    ap.add_argument("--skip-e2e", action="store_true")
    args = ap.parse_args()
    load_start = _load()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.locomo
        if args.conversations:
            # The licence forbids copying LoCoMo into the repo; a temp file is fine.
            sub = json.loads(path.read_text())[: args.conversations]
            path = Path(tmp) / "locomo-subset.json"
            path.write_text(json.dumps(sub))
        pure = offline_pure(path)
        print(json.dumps({"offline_pure": pure}, indent=1))
        e2e = None if args.skip_e2e else asyncio.run(end_to_end(path, Path(tmp) / "db"))
        if e2e:
            print(json.dumps({"end_to_end": e2e}, indent=1))
    out = write_result(
        "extract",
        {
            "dataset": "locomo-dev"
            + (f" (first {args.conversations})" if args.conversations else ""),
            "load_average_start": load_start,
            "load_average_end": _load(),
            "offline_pure": pure,
            "end_to_end": e2e,
        },
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
