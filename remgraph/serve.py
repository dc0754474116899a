"""`remgraph serve` and `remgraph up`: the API wired to the real ingest pipeline and REM cycle."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import socket
from collections.abc import Iterator, Sequence
from pathlib import Path

import uvicorn
from rich.console import Console
from rich.table import Table
from starlette.types import ASGIApp, Receive, Scope, Send

from ai.embed import Embedder, make_embedder
from api.app import create_app
from api.graphiql import graphiql_enabled
from api.ready import wait_until_ready
from graph.connect import open_graph
from graph.db import GraphDB
from graph.migrate import migrate
from graph.repositories.projects import ProjectRepository
from ingest.backlog import backlog_status, drain_backlog
from ingest.models import IngestReport
from ingest.pipeline import ingest_paths
from remgraph.settings import Settings
from remgraph.up_key import up_key
from remgraph.wiring import api_services, extraction_hooks

console = Console()
log = logging.getLogger("remgraph.serve")


class _Server(uvicorn.Server):
    """uvicorn whose SIGINT/SIGTERM only ask it to exit.

    Its default re-raises the signal after shutdown, which would interrupt our cleanup (closing the
    graph, stopping the embedded engine).
    """

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        loop = asyncio.get_running_loop()
        sigs = (signal.SIGINT, signal.SIGTERM)
        for sig in sigs:
            loop.add_signal_handler(sig, self.handle_exit, sig, None)
        try:
            yield
        finally:
            for sig in sigs:
                loop.remove_signal_handler(sig)


class _InFlight:
    """ASGI wrapper counting HTTP requests in flight, so background embedding can give way."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.n = 0
        self.idle = asyncio.Event()
        self.idle.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.n += 1
        self.idle.clear()
        try:
            await self.app(scope, receive, send)
        finally:
            self.n -= 1
            if self.n == 0:
                self.idle.set()

    async def until_idle(self) -> None:
        """Wait until no request is in flight, at most `_YIELD_S` (so a busy API still drains)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.idle.wait(), timeout=_YIELD_S)


_YIELD_S = 2.0
"""Longest a backlog batch waits for the API to be idle."""
_IDLE_POLL_S = 5.0
"""How often `serve` looks for an embedding backlog."""


async def _drain_when_idle(
    db: GraphDB,
    settings: Settings,
    embedder: Embedder,
    app: _InFlight,
    serving: asyncio.Task[None],
) -> None:
    """Embed what `ingest --no-wait-embeddings` (or a killed run) left, in small yielding batches.

    Single-flight with `ingest` and `worker` through the backlog lock; a failure is logged and
    retried at the next poll.
    """
    small = settings.model_copy(
        update={"ingest": settings.ingest.model_copy(update={"backlog_batch": 32})}
    )
    while not serving.done():
        try:
            status = await backlog_status(db)
            if status["turns"] or status["extract"]:
                await drain_backlog(db, small, embedder, wait=False, until_idle=app.until_idle)
        except Exception:  # the engine may be away for a moment: the next poll retries
            log.exception("embedding backlog drain failed")
        await asyncio.sleep(_IDLE_POLL_S)


def _curl_example(host: str, port: int, secret: str, projects: Sequence[str]) -> str:
    """A ready-to-paste request for the first project's context."""
    project = projects[0] if projects else "PROJECT"
    query = (
        f'{{ context(query: "what should I know?", project: "{project}", tokenBudget: 800) '
        "{ ... on ContextPayload { items { kind score text } } } }"
    )
    body = json.dumps({"query": query})
    return (
        f"try:\n  curl -s http://{host}:{port}/graphql -H 'Authorization: Bearer {secret}' "
        f"-H 'Content-Type: application/json' -d '{body}'"
    )


def _ready_lines(settings: Settings, host: str, port: int, engine: str, curl: str) -> list[str]:
    """What `serve`/`up` print once the API is ready: the URL, GraphiQL, a ready-to-paste curl."""
    url = f"http://{host}:{port}/graphql"
    lines = [f"[green]remgraph API[/] on {url} (engine: {engine}; Ctrl-C stops)"]
    if graphiql_enabled(settings.api.graphiql, host):
        lines.append(f"GraphiQL: open {url} in a browser and paste the API key")
    else:
        lines.append("GraphiQL is off on this interface (REMGRAPH_API__GRAPHIQL=true turns it on)")
    if curl:
        lines.append(curl)
    return lines


def project_sources(report: IngestReport) -> list[str]:
    """Which files became which project ("billing: 2 sessions from samples/claude-code/…").

    Only files read in this run say where their sessions went (an unchanged file is skipped).
    """
    by: dict[str, list[tuple[str, int]]] = {}
    for f in report.files:
        for project, sessions in f.projects.items():
            by.setdefault(project, []).append((f.path, sessions))
    lines = []
    for project in sorted(by):
        files = by[project]
        sessions = sum(n for _, n in files)
        where = ", ".join(_shown_path(path) for path, _ in files)
        lines.append(f"project {project}: {sessions} sessions from {where}")
    return lines


def _shown_path(path: str) -> str:
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path


class PortInUseError(RuntimeError):
    """The port `serve` was asked to listen on is taken."""


def check_port(host: str, port: int) -> None:
    """Raise `PortInUseError` when `host:port` cannot be listened on (as uvicorn binds it)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as e:
            raise PortInUseError(
                f"cannot listen on {host}:{port} ({e.strerror or e}); another server may be "
                "running there: stop it or pass --port"
            ) from e


async def serve(
    settings: Settings,
    *,
    host: str,
    port: int,
    ingest: Sequence[Path] = (),
    create_key: bool = False,
) -> None:
    """Open (or start) the engine, migrate, optionally ingest, then serve until interrupted.

    An embedded engine started here is stopped when the server exits.

    Raises:
        PortInUseError: something already listens on `host:port` (checked before any work).
    """
    check_port(host, port)
    conn = await open_graph(settings)
    try:
        await migrate(conn.db)
        embedder = make_embedder(settings.embedding)
        if ingest:
            console.print(f"ingesting {', '.join(map(str, ingest))} ...")
            report = await ingest_paths(
                conn.db,
                settings,
                list(ingest),
                hooks=extraction_hooks(conn.db, settings, embedder),
                embedder=embedder,
            )
            table = Table(title="ingest", show_header=True)
            for col in ("files", "sessions", "new turns", "unchanged", "failed", "issues", "s"):
                table.add_column(col)
            table.add_row(
                str(len(report.files)),
                str(report.sessions),
                str(report.turns_new),
                str(report.turns_unchanged),
                str(report.turns_failed),
                str(len(report.issues)),
                f"{report.timings.get('total', 0):.1f}",
            )
            console.print(table)
            for line in project_sources(report):
                console.print(line, highlight=False, soft_wrap=True)
        curl = ""
        if create_key:
            projects = [p.id for p in await ProjectRepository(conn.db).list(limit=1000)]
            key = await up_key(conn.db, settings.embedded.data_dir, projects)
            kept = "kept from the last run" if key.reused else "new"
            console.print(
                f"API key {key.id} for projects {', '.join(projects) or '(none yet)'} ({kept}; "
                f"stored in {key.file}):\n  [bold]{key.secret}[/]",
                soft_wrap=True,
            )
            curl = _curl_example(host, port, key.secret, projects)
        # The app must know where it listens: GraphiQL is on by default only on loopback.
        settings = settings.model_copy(
            update={"api": settings.api.model_copy(update={"host": host, "port": port})}
        )
        app = _InFlight(create_app(settings, api_services(conn.db, settings, embedder)))
        server = _Server(
            uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
        )
        serving = asyncio.create_task(server.serve())
        backlog = asyncio.create_task(_drain_when_idle(conn.db, settings, embedder, app, serving))
        # Announce only once the port answers and /readyz is ready, so a pasted curl works.
        if await wait_until_ready(serving, host, port):
            for line in _ready_lines(settings, host, port, conn.db.address, curl):
                console.print(line, highlight=False, soft_wrap=True)
        await serving
        backlog.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await backlog
    finally:
        await conn.close()
        if conn.stopped_server:
            console.print("embedded engine stopped")
        elif conn.started_server:
            console.print("embedded engine left running: another remgraph process still uses it")
