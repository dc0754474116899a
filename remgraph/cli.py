"""The `remgraph` command: one Typer app mounting one sub-app per package.

Errors a user can fix (bad settings, engine unreachable, schema mismatch, bad input) print one clear
line and exit non-zero; `--debug` (or `REMGRAPH_DEBUG=1`) shows the traceback.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console

from api.cli import export_schema, keys_app
from consolidate.cli import CYCLE_HOOKS, rem_app
from consolidate.cli import worker as worker_cmd
from graph.cli import app as db_app
from graph.cli import export_cmd
from graph.errors import GraphError
from graph.explore import instructions
from graph.topics_cli import topics_app
from ingest.cli import register as register_ingest
from ingest.extract.cli import extract as extract_cmd
from remgraph.eval import eval_app
from remgraph.hooks.cli import hooks_app
from remgraph.wiring import drain_embedding_backlog, extraction_hooks


def _flags_without_types() -> None:
    """Show no value type for a flag in `--help` (`--json` takes no `<bool>`).

    Typer 0.2x prints every option's type; a flag has no value to type. Older Typer versions
    have no such column, and nothing is changed there.
    """
    option = getattr(typer.core, "TyperOption", None)
    shown = getattr(option, "display_type_rich", None)
    if option is None or shown is None or getattr(shown, "remgraph", False):
        return

    def display_type_rich(self: Any, ctx: Any) -> str | None:
        return None if getattr(self, "is_flag", False) else shown(self, ctx)

    display_type_rich.remgraph = True  # type: ignore[attr-defined]
    option.display_type_rich = display_type_rich


_flags_without_types()

app = typer.Typer(
    name="remgraph",
    help="remgraph: a bi-temporal graph memory for AI agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(db_app, name="db")
app.add_typer(rem_app, name="rem")
app.command("worker")(worker_cmd)
CYCLE_HOOKS.append(drain_embedding_backlog)  # the worker also fills the embedding backlog
register_ingest(app, hooks=extraction_hooks)
app.command("extract")(extract_cmd)
app.command("export")(export_cmd)
app.add_typer(keys_app, name="keys")
app.add_typer(topics_app, name="topics")
api_app = typer.Typer(help="GraphQL schema tools.", no_args_is_help=True)
api_app.command("export-schema")(export_schema)
app.add_typer(api_app, name="api")
app.add_typer(eval_app, name="eval")
app.add_typer(hooks_app, name="hooks")

err = Console(stderr=True)


def _version(shown: bool) -> None:
    if shown:
        from remgraph.entry import package_version

        typer.echo(f"remgraph {package_version()}")
        raise typer.Exit


@app.callback()
def root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks and debug logs")] = False,
    _shown: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit"
        ),
    ] = False,
    log_level: Annotated[str, typer.Option(help="Log level (DEBUG, INFO, WARNING)")] = "WARNING",
) -> None:
    """remgraph: ingest agent transcripts, consolidate them, serve ranked context."""
    if debug:
        os.environ["REMGRAPH_DEBUG"] = "1"
    logging.basicConfig(
        level=logging.DEBUG if debug else getattr(logging, log_level.upper(), logging.WARNING),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


@app.command()
def explore(
    browser_url: Annotated[str, typer.Option(help="Neo4j Browser URL")] = "http://127.0.0.1:7474",
) -> None:
    """Print how to explore the graph in Neo4j Browser with the bundled guides and style sheet."""
    Console().print(instructions(browser_url), highlight=False, soft_wrap=True)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface (default 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default REMGRAPH_API__PORT)")] = None,
) -> None:
    """Serve the GraphQL API (starts the embedded engine when no external one is configured)."""
    from remgraph.serve import serve as run_serve
    from remgraph.settings import Settings

    s = Settings()
    _serving(run_serve(s, host=host or s.api.host, port=port or s.api.port))


@app.command()
def up(
    paths: Annotated[list[Path] | None, typer.Argument(help="Transcripts to ingest first")] = None,
    host: Annotated[str | None, typer.Option(help="Interface (default 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default REMGRAPH_API__PORT)")] = None,
) -> None:
    """The main job: start the engine, migrate, ingest PATHS, create an API key, serve the API."""
    from remgraph.serve import serve as run_serve
    from remgraph.settings import Settings

    s = Settings()
    _serving(
        run_serve(
            s, host=host or s.api.host, port=port or s.api.port, ingest=paths or [], create_key=True
        )
    )


def _serving(run: Coroutine[Any, Any, None]) -> None:
    """Run `serve`/`up`; a taken port is one line and exit code 2, before any work is done."""
    import asyncio

    from remgraph.serve import PortInUseError

    try:
        asyncio.run(run)
    except PortInUseError as e:
        err.print(f"[red]error:[/] {e}", soft_wrap=True)
        raise typer.Exit(2) from e


mcp_app = typer.Typer(
    help="MCP over stdio for agents (no subcommand: serve); `config CLIENT` prints the setup.",
)
app.add_typer(mcp_app, name="mcp")


@mcp_app.callback(invoke_without_command=True)
def mcp(
    ctx: typer.Context,
    key: Annotated[str | None, typer.Option(help="API key (default: $REMGRAPH_API_KEY)")] = None,
) -> None:
    """Serve context, search, rules, ingest_turns, record_feedback, rem_status and findings."""
    if ctx.invoked_subcommand is not None:
        return
    from api.mcp import McpAccessError, run_stdio
    from remgraph.settings import Settings
    from remgraph.wiring import lazy_api_services

    s = Settings()
    try:
        run_stdio(s, lazy_api_services(s), key=key)
    except McpAccessError as e:
        err.print(f"[red]error:[/] {e}", soft_wrap=True)
        raise typer.Exit(2) from e


@mcp_app.command("config")
def mcp_config(
    client: Annotated[str, typer.Argument(help="claude-code | codex | generic")],
    key: Annotated[
        str | None, typer.Option(help="API key to put in the snippet (default: $REMGRAPH_API_KEY)")
    ] = None,
    project: Annotated[
        list[str] | None,
        typer.Option("--project", "-p", help="Create a new key for these projects instead"),
    ] = None,
) -> None:
    """Print the exact snippet that registers `remgraph mcp` with an agent (key included)."""
    import asyncio

    from graph.connect import graph_session
    from graph.repositories.api_keys import ApiKeyRepository
    from remgraph.mcp_config import CLIENTS, KEY_VAR, WHERE, remgraph_command, settings_env, snippet
    from remgraph.settings import Settings

    if client not in CLIENTS:
        raise typer.BadParameter(f"choose one of {', '.join(CLIENTS)}", param_hint="CLIENT")
    secret = key
    if secret is None and project:

        async def create() -> str:
            async with graph_session(Settings()) as db:
                _, new = await ApiKeyRepository(db).create(f"mcp {client}", project)
                return new

        secret = asyncio.run(create())
        err.print(f"created a key for {', '.join(project)} (shown once, in the snippet)")
    secret = secret or os.environ.get(KEY_VAR)
    if not secret:
        err.print(
            f"[red]error:[/] no key: pass --key rg_..., set {KEY_VAR}, or --project P to create one"
        )
        raise typer.Exit(2)
    text = snippet(client, secret, remgraph_command(), settings_env())  # type: ignore[arg-type]  # checked against CLIENTS
    err.print(f"# {WHERE[client]}:", soft_wrap=True, highlight=False)
    typer.echo(text, nl=False)


def _describe_validation(e: ValidationError) -> str:
    parts = []
    for error in e.errors():
        loc = "__".join(str(x) for x in error["loc"]).upper()
        parts.append(f"REMGRAPH_{loc}: {error['msg']}" if loc else error["msg"])
    return "invalid setting " + "; ".join(parts)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except ValidationError as e:
        if os.environ.get("REMGRAPH_DEBUG"):
            raise
        err.print(f"[red]error:[/] {_describe_validation(e)}")
        sys.exit(2)
    except GraphError as e:
        if os.environ.get("REMGRAPH_DEBUG"):
            raise
        err.print(f"[red]error:[/] {e}")
        sys.exit(1)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
