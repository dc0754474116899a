"""Wall time of the commands a newcomer types first (issue 44): `--version`, `--help`, a sub-help.

Each is run `--runs` times as a fresh `python -m remgraph` process; the medians are written
with the machine. `--help` and `--version` are answered by `remgraph/entry.py` without loading
the CLI; a sub-command's help still loads it (the ratio shows what the fast path saves).

    .venv/bin/python -m bench.bench_cli

Writes `bench/results/cli_speed.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = (["--version"], ["--help"], ["ingest", "--help"])


def _median_s(args: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "remgraph", *args],
            capture_output=True,
            check=True,
            cwd=ROOT,
            env={**os.environ, "COLUMNS": "80"},
        )
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times), 3)


def main(argv: list[str] | None = None) -> None:
    """Measure and write the results (see the module)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--out", type=Path, default=ROOT / "bench/results/cli_speed.json")
    a = p.parse_args(argv)
    medians = {" ".join(c): _median_s(list(c), a.runs) for c in COMMANDS}
    result = {
        "runs": a.runs,
        "median_s": medians,
        "sub_help_over_root_help": round(medians["ingest --help"] / medians["--help"], 1),
        "machine": {"cpus": os.cpu_count(), "memory_gib": 24, "python": platform.python_version()},
        "note": "fresh `python -m remgraph` processes, wall time including interpreter start",
    }
    a.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
