"""`remgraph db ...`: run the embedded engine, migrate, inspect, back up and restore."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from graph.backup import backup as run_backup
from graph.backup import restore as run_restore
from graph.config import Engine, GraphSettings
from graph.connect import graph_session, make_db, open_graph
from graph.cypher import Q
from graph.embedded import EmbeddedServer
from graph.errors import EngineStartError, GraphError, GraphUnavailableError
from graph.export import ExportFormat, export_project
from graph.migrate import migrate as run_migrate
from graph.repositories.backlog import BacklogRepository
from graph.verify import verify_queries

app = typer.Typer(
    help="Run and inspect the graph engine (embedded FalkorDB or Neo4j).", no_args_is_help=True
)
console = Console()

_STATS = Q("admin.stats")
_WIPE = Q("admin.wipe")
_APPLIED = Q("migration.applied")
_VECTOR_INDEXES = Q("admin.vector_index_options")
_MEMORY = Q("admin.memory_settings")


def settings() -> GraphSettings:
    """Settings from the environment and `.env` (the root CLI reports validation errors)."""
    return GraphSettings()


def _embedded(s: GraphSettings) -> EmbeddedServer:
    if s.engine is not Engine.EMBEDDED:
        raise EngineStartError(
            f"REMGRAPH_ENGINE is {s.engine.value!r}: remgraph only starts and stops the embedded "
            "engine; manage that server yourself"
        )
    return EmbeddedServer(s.embedded)


@app.command()
def start() -> None:
    """Start the embedded FalkorDB server in the background (data dir, Unix socket, AOF)."""
    s = settings()
    server = _embedded(s)
    server.progress = console.print  # a large AOF replays for a while: say how far it got
    started = server.start()
    server.keep_running()  # started here, or joined: it outlives the commands that use it
    st = server.status()
    verb = "started" if started else "already running"
    console.print(
        f"[green]embedded FalkorDB {verb}[/] pid={st.pid} socket={st.socket} data={st.data_dir}"
    )


@app.command()
def stop() -> None:
    """Stop the embedded server cleanly (flushes the append-only file)."""
    server = _embedded(settings())
    if server.stop():
        console.print("[green]embedded FalkorDB stopped[/]")
    else:
        console.print("embedded FalkorDB was not running")


async def _status(s: GraphSettings) -> int:
    table = Table(title="remgraph graph engine", show_header=False)
    table.add_row("engine", s.engine.value)
    running = True
    if s.engine is Engine.EMBEDDED:
        st = EmbeddedServer(s.embedded).status()
        running = st.running
        table.add_row("running", "yes" if st.running else "no")
        table.add_row("pid", str(st.pid or "-"))
        table.add_row("socket", str(st.socket))
        table.add_row("data dir", str(st.data_dir))
        table.add_row("AOF bytes", f"{st.aof_bytes:,}")
    if running:
        db = make_db(s)
        try:
            await db.ping()
            table.add_row("address", db.address)
            applied = await db.read(_APPLIED)
            table.add_row("migrations", ", ".join(r["id"] for r in applied) or "none (run migrate)")
            for row in await db.read(_STATS):
                table.add_row(f"  {row['label']}", f"{row['count']:,}")
            vectors = sorted(
                f"{r['name']} ({'quantized' if r['quantized'] else 'exact'})"
                for r in await db.read(_VECTOR_INDEXES)
            )
            table.add_row("vector indexes", ", ".join(vectors) or "none")
            for row in await db.read(_MEMORY):
                table.add_row(row["name"], str(row["value"]))
            backlog = await BacklogRepository(db).status()
            table.add_row(
                "backlog",
                f"{backlog['turns']:,} turns without vectors, "
                f"{backlog['extract']:,} sessions ({backlog['extract_turns']:,} turns) "
                "waiting for extraction",
            )
        except GraphUnavailableError as e:
            table.add_row("reachable", f"no: {e.reason}")
            running = False
        finally:
            await db.close()
    console.print(table)
    if not running and s.engine is Engine.EMBEDDED:
        console.print(
            "the embedded engine is not running: `remgraph up`, `serve`, `ingest` and the other "
            "commands that need it start it (`remgraph db start` keeps it running)"
        )
    return 0 if running else 1


@app.command()
def status() -> None:
    """Show whether the engine runs, where, its migrations and node counts (exit 1 if down)."""
    raise typer.Exit(asyncio.run(_status(settings())))


async def _migrate(s: GraphSettings) -> None:
    conn = await open_graph(s, autostart=True)
    try:
        rep = await run_migrate(conn.db)
    finally:
        await conn.close()
    console.print(
        f"[green]migrations applied:[/] {', '.join(rep.applied) or 'none'}; "
        f"already applied: {', '.join(rep.skipped) or 'none'}"
    )


@app.command()
def migrate() -> None:
    """Apply pending schema migrations (idempotent; recorded in the graph)."""
    asyncio.run(_migrate(settings()))


async def _verify(s: GraphSettings) -> int:
    conn = await open_graph(s, autostart=True)
    try:
        await run_migrate(conn.db)
        results = await verify_queries(conn.db)
    finally:
        await conn.close()
    bad = [r for r in results if not r.ok]
    for r in bad:
        console.print(f"[red]FAIL[/] {r.name}: {r.error}")
    console.print(f"{len(results) - len(bad)}/{len(results)} queries plan cleanly")
    return 1 if bad else 0


@app.command("verify-queries")
def verify() -> None:
    """EXPLAIN every named query against the engine; exit 1 if any fails to plan."""
    raise typer.Exit(asyncio.run(_verify(settings())))


def _falkor_address(s: GraphSettings) -> dict[str, object]:
    if s.engine is Engine.NEO4J:
        raise GraphError(
            "backup/restore here covers FalkorDB; for Neo4j use `neo4j-admin database dump` / "
            "`load` (see README)"
        )
    if s.engine is Engine.EMBEDDED:
        server = EmbeddedServer(s.embedded)
        return {"unix_socket": str(server.socket_path), "password": server.password()}
    f = s.falkordb
    return {
        "unix_socket": str(f.unix_socket) if f.unix_socket else None,
        "host": f.host,
        "port": f.port,
        "password": f.password.get_secret_value() if f.password else None,
    }


@app.command("backup")
def backup_cmd(out: Annotated[Path, typer.Argument(help="File to write (.rgbak)")]) -> None:
    """Write a consistent snapshot of every graph to a file while the engine keeps serving."""
    s = settings()

    async def go() -> None:
        conn = await open_graph(s, autostart=True)
        try:
            info = await run_backup(out, **_falkor_address(s))  # type: ignore[arg-type]
        finally:
            await conn.close()
        console.print(
            f"[green]backup written[/] {info.path} ({info.bytes_written:,} bytes, "
            f"graphs: {', '.join(info.graphs) or 'none'})"
        )

    asyncio.run(go())


@app.command("restore")
def restore_cmd(
    src: Annotated[Path, typer.Argument(help="Backup file written by `db backup`")],
    replace: Annotated[bool, typer.Option(help="Overwrite graphs that already exist")] = False,
) -> None:
    """Load a backup written by `remgraph db backup`."""
    s = settings()

    async def go() -> None:
        conn = await open_graph(s, autostart=True)
        try:
            info = await run_restore(src, replace=replace, **_falkor_address(s))  # type: ignore[arg-type]
        finally:
            await conn.close()
        console.print(f"[green]restored[/] graphs: {', '.join(info.graphs)}")

    asyncio.run(go())


@app.command()
def reset(
    yes: Annotated[bool, typer.Option("--yes", help="Really delete all data")] = False,
) -> None:
    """Delete every node and edge (schema and indexes stay)."""
    if not yes:
        raise typer.BadParameter("this deletes all data; pass --yes")
    s = settings()

    async def go() -> None:
        conn = await open_graph(s, autostart=True)
        try:
            await conn.db.autocommit(_WIPE)
        finally:
            await conn.close()
        console.print("[green]graph emptied[/]")

    asyncio.run(go())


def export_cmd(
    project: Annotated[str, typer.Argument(help="Project slug to export")],
    format_: Annotated[
        ExportFormat,
        typer.Option("--format", "-f", help="graphml (yEd, Cytoscape, Gephi), gexf (Gephi), json"),
    ] = ExportFormat.GRAPHML,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="File to write (default <project>.<format>)")
    ] = None,
    sessions: Annotated[
        bool, typer.Option("--sessions", help="Also the sessions, linked to what they discussed")
    ] = False,
    all_history: Annotated[
        bool,
        typer.Option(
            "--all-history", help="Every stored record (closed and expired too), not only current"
        ),
    ] = False,
) -> None:
    """Write a project's knowledge graph (topics, lessons, corrections, facts, communities)."""
    s = settings()

    async def go() -> None:
        async with graph_session(s) as db:
            summary = await export_project(
                db, project, format_, out, sessions=sessions, all_history=all_history
            )
        nodes = ", ".join(f"{k} {n}" for k, n in sorted(summary.nodes.items())) or "none"
        edges = ", ".join(f"{k} {n}" for k, n in sorted(summary.edges.items())) or "none"
        console.print(f"[green]wrote[/] {summary.path}\nnodes: {nodes}\nedges: {edges}")

    asyncio.run(go())
