"""The `remgraph` command: one Typer app mounting one sub-app per package.

Errors a user can fix (bad settings, engine unreachable, schema mismatch, bad input) print one clear
line and exit non-zero; `--debug` (or `REMGRAPH_DEBUG=1`) shows the traceback.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from graph.cli import app as db_app
from graph.errors import GraphError
from graph.explore import instructions

app = typer.Typer(
    name="remgraph",
    help="remgraph: a bi-temporal graph memory for AI agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(db_app, name="db")

err = Console(stderr=True)


@app.callback()
def root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks and debug logs")] = False,
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
