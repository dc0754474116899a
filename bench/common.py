"""Helpers shared by the benchmarks: machine facts, percentiles, JSON results."""

from __future__ import annotations

import json
import os
import platform
import resource
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from tests.support.engine import process_cpu_s
from tests.support.load import percentiles

__all__ = [
    "RESULTS",
    "machine",
    "peak_rss_mib",
    "percentiles",
    "pid_listening_on",
    "process_cpu_s",
    "process_rss_mib",
    "self_cpu_s",
    "write_result",
]

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    mem_kb = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def peak_rss_mib() -> float:
    """Peak resident set size of this process."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def self_cpu_s() -> float:
    """User + system CPU seconds this process (all its threads) has used so far."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def process_rss_mib(pid: int) -> float:
    """Current RSS of another process (e.g. the engine)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


def write_result(name: str, data: dict[str, Any]) -> Path:
    """Write `bench/results/<name>.json` with the machine block added."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{name}.json"
    out.write_text(json.dumps({"benchmark": name, "machine": machine(), **data}, indent=2) + "\n")
    return out


def pid_listening_on(address: str) -> int | None:
    """The process of this machine listening on the TCP port of `address` (`scheme://host:port`),
    or None when there is none this user can see (another user's, or a remote server)."""
    try:
        port = int(address.rsplit(":", 1)[1].strip("/"))
    except (IndexError, ValueError):
        return None
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                inodes.add(f[9])
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                link = str(fd.readlink())
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    return int(proc.name)
        except OSError:
            continue
    return None


T = TypeVar("T")


def in_turn(items: list[T], round_no: int) -> list[T]:
    """`items` in order on even rounds and reversed on odd ones (A B, B A, A B, ...).

    The machine's speed drifts during a run (`bench/bench_context.py` measured the same code at
    15.9 then 20.4 CPU-ms a request within one run): in one fixed order, the configuration
    measured second would take the drift every round.
    """
    return list(items) if round_no % 2 == 0 else list(reversed(items))
