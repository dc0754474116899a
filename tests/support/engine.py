"""Engine and process helpers for scenarios: a private embedded FalkorDB, subprocesses, ports.

Everything here starts real things (an embedded engine on a Unix socket in a folder it is given,
`python -m tests.support.worker` subprocesses, uvicorn) and stops or reaps them; nothing fakes the
engine. Shared by `tests/integration/reliability/` and the benchmarks in `bench/`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from ai.embed import CachedEmbedder, LocalEmbedder
from graph.config import EmbeddedSettings
from graph.cypher import Q
from graph.embedded import EmbeddedServer
from graph.engines.falkordb import FalkorDBGraph
from graph.migrate import migrate

ROOT = Path(__file__).resolve().parents[2]
"""The repository root (subprocesses run there)."""

GRAPH = "reliability"
"""Graph name the scenarios write to (on their own engine)."""

_STATS = Q("admin.stats")


def local_embedder() -> CachedEmbedder:
    """The real all-MiniLM-L6-v2 embedder behind a content cache."""
    return CachedEmbedder(LocalEmbedder(batch_size=64), size=100_000)


@contextlib.contextmanager
def engine(data_dir: Path) -> Iterator[EmbeddedServer]:
    """An embedded FalkorDB on a Unix socket in `data_dir`, stopped (or already dead) on exit."""
    server = EmbeddedServer(EmbeddedSettings(data_dir=data_dir, appendfsync="everysec"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def open_db(server: EmbeddedServer, graph: str = GRAPH) -> FalkorDBGraph:
    """A `GraphDB` on the server's socket (no I/O until first use)."""
    return FalkorDBGraph(graph_name=graph, unix_socket=str(server.socket_path))


@contextlib.asynccontextmanager
async def graph(server: EmbeddedServer, graph_name: str = GRAPH) -> AsyncIterator[FalkorDBGraph]:
    """A migrated graph on `server`, closed on exit."""
    db = open_db(server, graph_name)
    try:
        await migrate(db)
        yield db
    finally:
        await db.close()


async def label_counts(db: FalkorDBGraph) -> dict[str, int]:
    """Nodes per label."""
    return {str(r["label"]): int(r["count"]) for r in await db.read(_STATS)}


def subprocess_env() -> dict[str, str]:
    """This environment, with the repository on `PYTHONPATH` and the model hub offline."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    return env


def spawn(*args: str, log: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`python -m tests.support.worker ARGS` in its own process group, output to `log`."""
    with log.open("wb") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            [sys.executable, "-m", "tests.support.worker", *args],
            cwd=ROOT,
            env=env or subprocess_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def reap(proc: subprocess.Popen[bytes], timeout: float = 30.0) -> int:
    """Wait for `proc`; SIGKILL its process group if it does not end in time."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait(timeout=10)


def log_tail(path: Path, n: int = 3) -> str:
    """The last `n` lines of a log file, joined with ` | ` (empty if unreadable)."""
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(lines[-n:])


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def process_cpu_s(pid: int | None) -> float:
    """User + system CPU seconds another process has used so far (0 when unknown or gone)."""
    if not pid:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def rss_mib(pid: int) -> float:
    """Resident set size of a process in MiB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


@contextlib.contextmanager
def api_server(
    server: EmbeddedServer, workdir: Path, graph_name: str = GRAPH, timeout_s: float = 120.0
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`uvicorn` serving the API on 127.0.0.1 in a subprocess; yields its base URL and process."""
    import httpx

    port = free_port()
    env = subprocess_env() | {
        "REMGRAPH_ENV": "test",
        "REMGRAPH_ENGINE": "falkordb",
        "REMGRAPH_GRAPH_NAME": graph_name,
        "REMGRAPH_FALKORDB__UNIX_SOCKET": str(server.socket_path),
        # Load and fault scenarios measure capacity with one key: per-key fair use is tested
        # on its own (tests/integration/api/test_fair_use.py).
        "REMGRAPH_API__RATE_PER_S": "1000000",
        "REMGRAPH_API__RATE_BURST": "1000000",
    }
    out = (workdir / "uvicorn.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "tests.support.api:app_from_env",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        cwd=ROOT,
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"uvicorn exited: {log_tail(workdir / 'uvicorn.log', 5)}")
            try:
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not become ready")
            time.sleep(0.2)
        yield url, proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        reap(proc, timeout=15)
        out.close()
