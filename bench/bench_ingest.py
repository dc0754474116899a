"""Ingest benchmark: LoCoMo dev (2,760 turns) and optionally synthetic transcripts.

Everything goes into a fresh embedded FalkorDB with the local embedding model.
Run: `python bench/bench_ingest.py [--locomo PATH] [--synthetic N] [--inline] [--out FILE]`.
By default (the backlog mode, `bench/results/ingest_backlog.json`) it reports the time until the
turns are searchable (written and in the fulltext index; their knowledge extraction queued) and
the time until they are fully embedded (the backlog drained: vectors, then the queued
extractions), beside the model's own time for the same texts measured in the same run.
`--inline` is the older mode (embed each batch before writing, `ingest.json`).
Reports turns/s end to end and per stage (parse, embed, write); the embedding model is loaded
before the clock starts (its one-off load is reported separately). Writes JSON results.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ai.config import EmbeddingSettings  # noqa: E402
from ai.embed import LocalEmbedder, make_embedder  # noqa: E402
from bench.common import process_cpu_s, self_cpu_s  # noqa: E402
from graph.config import EmbeddedSettings  # noqa: E402
from graph.embedded import EmbeddedServer  # noqa: E402
from graph.engines.falkordb import FalkorDBGraph  # noqa: E402
from graph.migrate import migrate  # noqa: E402
from ingest.config import IngestSettings  # noqa: E402
from ingest.normalize import embedding_text, normalize_session  # noqa: E402
from ingest.pipeline import ingest_paths  # noqa: E402
from ingest.sources.base import ParseOptions  # noqa: E402
from ingest.sources.detect import detect_format, parser_for  # noqa: E402

TORCH_THREADS = 0
"""torch intra-op threads for the local model (0: the embedder's default, one per core)."""
DEFAULT_LOCOMO = (
    next(
        (
            p
            for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared")
            if (p / "benchmarks" / "locomo" / "locomo-dev.json").exists()
        ),
        ROOT.parent / "shared",
    )
    / "benchmarks"
    / "locomo"
    / "locomo-dev.json"
)


def _machine() -> dict[str, Any]:
    mem = 0
    try:
        with Path("/proc/meminfo").open() as f:
            mem = int(f.readline().split()[1]) * 1024
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "memory_gib": round(mem / 2**30, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _server_peak_rss_mib(pid: int | None) -> float | None:
    """VmHWM (peak resident set) of the engine process, in MiB."""
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _sample_texts(path: Path, settings: IngestSettings, n: int) -> list[str]:
    """The first `n` texts the pipeline would embed for `path` (date-prefixed turns)."""
    fmt = detect_format(path) or "generic"
    res = parser_for(fmt).parse(path.read_bytes(), None, ParseOptions(file=str(path)))
    out: list[str] = []
    for s in res.sessions:
        s = normalize_session(s, max_chars=settings.ingest.max_turn_chars)
        out.extend(embedding_text(t, s.date, prefix=settings.ingest.date_prefix) for t in s.turns)
        if len(out) >= n:
            break
    return out[:n]


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


async def _run(path: Path, data_dir: Path, settings: IngestSettings, label: str) -> dict[str, Any]:
    server = EmbeddedServer(EmbeddedSettings(data_dir=data_dir))
    server.start()
    try:
        db = FalkorDBGraph(graph_name="bench", unix_socket=str(server.socket_path))
        await migrate(db)
        load_s = 0.0
        embedder = None
        if settings.ingest.embed:
            embedder = (
                LocalEmbedder(threads=TORCH_THREADS)
                if TORCH_THREADS
                else make_embedder(EmbeddingSettings(cache_size=0))
            )
            t0 = time.perf_counter()
            await embedder.embed(["warm up the model"])
            load_s = time.perf_counter() - t0
        model_only = None
        model_cost: dict[str, Any] = {}
        if embedder is not None and path.is_file():  # noqa: ASYNC240 - setup, off the clock
            texts = _sample_texts(path, settings, 768)
            c0, t0 = self_cpu_s(), time.perf_counter()
            await embedder.embed(texts)
            model_only = round(len(texts) / (time.perf_counter() - t0), 1)
            per_cpu = len(texts) / (self_cpu_s() - c0)
            short = [f"hello world {i}" for i in range(512)]
            c0 = self_cpu_s()
            await embedder.embed(short)
            model_cost = {
                "mean_chars_of_embedded_text": round(sum(map(len, texts)) / len(texts), 1),
                "these_texts_per_cpu_s": round(per_cpu, 1),
                "short_texts_per_cpu_s": round(len(short) / (self_cpu_s() - c0), 1),
                "note": "the model's cost grows with text length; on 2 idle cores the pipeline "
                "cannot embed faster than 2 x these_texts_per_cpu_s",
            }
        load_before = _load()
        spid = server.status().pid
        cpu0 = self_cpu_s(), process_cpu_s(spid)
        rep = await ingest_paths(db, settings, [path], embedder=embedder)
        cpu1 = self_cpu_s(), process_cpu_s(spid)
        load_after = _load()
        server_hwm = _server_peak_rss_mib(server.status().pid)
        again = await ingest_paths(db, settings, [path], embedder=embedder)
        await db.close()
    finally:
        server.stop()
    total = rep.timings["total"]
    n = rep.turns_new
    return {
        "dataset": label,
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "path": str(path),
        "turns": n,
        "sessions": rep.sessions,
        "failed": rep.turns_failed,
        "issues": len(rep.issues),
        "model_load_s": round(load_s, 2),
        "seconds": rep.timings,
        "turns_per_s": round(n / total, 1) if total else None,
        "stage_turns_per_s": {
            k: round(n / v, 1)
            for k, v in rep.timings.items()
            if k in ("parse", "embed", "write") and v > 0
        },
        "rerun": {
            "outcomes": sorted({f.outcome for f in again.files}),
            "turns_new": again.turns_new,
            "seconds": again.timings["total"],
        },
        "cpu_seconds": {
            "ingest_process": round(cpu1[0] - cpu0[0], 2),
            "engine": round(cpu1[1] - cpu0[1], 2),
        },
        # CPU work per turn is far less sensitive to other load than wall time: on an idle
        # 2-core machine the run cannot be faster than (ingest + engine CPU seconds) / 2.
        "projected_idle_2core_turns_per_s": round(
            n / ((cpu1[0] - cpu0[0] + cpu1[1] - cpu0[1]) / 2), 1
        )
        if n
        else None,
        "model_only_texts_per_s": model_only,
        "model_cost": model_cost,
        "end_to_end_vs_model_only": round(n / total / model_only, 3)
        if model_only and total
        else None,
        "torch_threads": TORCH_THREADS or os.cpu_count(),
        "batch_size": settings.ingest.batch_size,
        "overlap": settings.ingest.overlap,
        "embeddings": settings.ingest.embed,
        "engine_peak_rss_mib": server_hwm,
        "load_average_before_after": [load_before, load_after],
    }


def _all_texts(path: Path, settings: IngestSettings) -> list[str]:
    """Every text the pipeline embeds for `path` (a file, or the files below a directory)."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    out: list[str] = []
    for f in files:
        out.extend(_sample_texts(f, settings, 10**9))
    return out


class _TurnsSeen:
    """Progress sink noting when the last turn was written (text-searchable from then on)."""

    def __init__(self, t0: float) -> None:
        self.t0 = t0
        self.last = 0.0

    def files_total(self, n: int) -> None:
        pass

    def file_started(self, path: str, fmt: str) -> None:
        pass

    def turns_written(self, n: int) -> None:
        self.last = time.perf_counter() - self.t0

    def file_done(self, report: Any) -> None:
        pass


async def _run_backlog(
    path: Path, data_dir: Path, settings: IngestSettings, label: str, *, drain: bool = True
) -> dict[str, Any]:
    """Time to searchable (turns written and in the fulltext index, extraction queued) and time
    to fully embedded (the backlog drained: vectors, then the queued extractions), beside the
    model's own time for the same texts, measured in the same run with the same embedder."""
    from ingest.backlog import backlog_status, drain_backlog
    from ingest.extract.service import ExtractionHook

    server = EmbeddedServer(EmbeddedSettings(data_dir=data_dir))
    server.start()
    try:
        db = FalkorDBGraph(graph_name="bench", unix_socket=str(server.socket_path))
        await migrate(db)
        embedder = make_embedder(EmbeddingSettings(cache_size=0))
        await embedder.embed(["warm up the model"])
        texts = _all_texts(path, settings) if drain else []
        load_before = _load()
        t0 = time.perf_counter()
        for i in range(0, len(texts), settings.ingest.backlog_batch):
            await embedder.embed(texts[i : i + settings.ingest.backlog_batch])
        model_s = time.perf_counter() - t0 or float("nan")
        hook = ExtractionHook(settings, embedder=embedder)
        t0 = time.perf_counter()
        cpu0 = self_cpu_s()
        seen = _TurnsSeen(t0)
        rep = await ingest_paths(
            db,
            settings,
            [path],
            embedder=embedder,
            hooks=[hook],
            wait_embeddings=False,
            progress=seen,
        )
        searchable_s = time.perf_counter() - t0
        cpu_searchable = self_cpu_s() - cpu0
        t1 = time.perf_counter()
        pending = await backlog_status(db)
        drained = await drain_backlog(db, settings, embedder) if drain else None
        drain_s = time.perf_counter() - t1 if drain else float("nan")
        load_after = _load()
        await db.close()
    finally:
        server.stop()
    n = rep.turns_new
    return {
        "dataset": label,
        "mode": "backlog",
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "turns": n,
        "sessions": rep.sessions,
        "texts_embedded_by_model_only": len(texts),
        "model_only_s": round(model_s, 2),
        "model_only_turns_per_s": round(len(texts) / model_s, 1) if texts else None,
        "time_to_searchable_s": round(searchable_s, 2),
        "turns_written_s": round(seen.last, 2),
        "turns_written_per_s": round(n / seen.last, 1) if seen.last else None,
        "searchable_turns_per_s": round(n / searchable_s, 1),
        "ingest_cpu_s_until_searchable": round(cpu_searchable, 2),
        "searchable_timings": rep.timings,
        "backlog_when_searchable": pending,
        "drain_s": round(drain_s, 2),
        "drain_embed_s": round(drained.embed_seconds, 2) if drained else None,
        "drain_extract_s": round(drained.extract_seconds, 2) if drained else None,
        "drain_turns": drained.turns_embedded if drained else None,
        "drain_extractions": drained.extractions if drained else None,
        "time_to_fully_embedded_s": round(searchable_s + drain_s, 2),
        "drain_vs_model_only": round(drain_s / model_s, 3),
        "fully_embedded_vs_model_only": round((searchable_s + drain_s) / model_s, 3),
        "backlog_batch": settings.ingest.backlog_batch,
        "load_average_before_after": [load_before, load_after],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    ap.add_argument("--synthetic", type=int, default=0, help="also ingest N synthetic turns")
    ap.add_argument(
        "--synthetic-no-embed",
        action="store_true",
        help="ingest the synthetic turns without embeddings (write path only)",
    )
    ap.add_argument("--skip-locomo", action="store_true")
    ap.add_argument(
        "--synthetic-searchable-only",
        action="store_true",
        help="synthetic run: time to searchable only (no model-only pass, no drain)",
    )
    ap.add_argument(
        "--inline",
        action="store_true",
        help="the old mode: embed each batch before it is written (no backlog)",
    )
    ap.add_argument("--torch-threads", type=int, default=0, help="0: one per core")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--no-overlap", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if args.out is None:
        name = "ingest.json" if args.inline else "ingest_backlog.json"
        args.out = ROOT / "bench" / "results" / name
    global TORCH_THREADS  # a CLI switch of a script
    TORCH_THREADS = args.torch_threads
    variant = (f"/threads={TORCH_THREADS}" if TORCH_THREADS else "") + (
        "/no-overlap" if args.no_overlap else ""
    )
    settings = IngestSettings(
        ingest={
            "batch_size": args.batch_size,
            "overlap": not args.no_overlap,
            "defer_embeddings": not args.inline,
        }
    )
    run = _run if args.inline else _run_backlog
    results: list[dict[str, Any]] = []
    # SIGTERM → SystemExit, so the embedded server is stopped by the `finally` blocks
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_locomo:
            r = asyncio.run(
                run(args.locomo, Path(tmp) / "locomo", settings, "locomo-dev" + variant)
            )
            print(json.dumps(r, indent=1))
            results.append(r)
        if args.synthetic:
            syn_settings = settings
            if args.synthetic_no_embed:
                syn_settings = settings.model_copy(
                    update={"ingest": settings.ingest.model_copy(update={"embed": False})}
                )
            syn = Path(tmp) / "synthetic"
            subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "bench" / "generate.py"),
                    "--turns",
                    str(args.synthetic),
                    "--out",
                    str(syn),
                ],
                check=True,
            )
            label = f"synthetic-{args.synthetic}"
            if args.inline:
                r = asyncio.run(_run(syn, Path(tmp) / "syn-db", syn_settings, label))
            else:
                r = asyncio.run(
                    _run_backlog(
                        syn,
                        Path(tmp) / "syn-db",
                        syn_settings,
                        label,
                        drain=not args.synthetic_searchable_only,
                    )
                )
            r["ingest_process_peak_rss_mib"] = round(_peak_rss_mib(), 1)
            print(json.dumps(r, indent=1))
            results.append(r)
    if args.out.exists():  # keep earlier results of datasets not re-run this time
        done = {r["dataset"] for r in results}
        old = json.loads(args.out.read_text()).get("results", [])
        results = [r for r in old if r.get("dataset") not in done] + results
    out = {
        "benchmark": "ingest",
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": _machine(),
        "target_turns_per_s": 300,
        "targets_backlog": {"searchable_turns_per_s": 1000, "fully_embedded_vs_model_only": 1.1},
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
