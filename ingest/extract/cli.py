"""The `remgraph extract` command: (re-)run knowledge extraction over stored sessions.

`remgraph extract [--project P]... [--session ID]... [--llm] [--json]`. Useful after
`remgraph ingest --no-extract`, or to run the LLM extractor over sessions first processed offline.
Sessions already counted are no-ops, so repeating it is safe. Like `remgraph ingest`, it prints
the LLM's token/cost ledger and the sessions that fell back to the offline rules, and exits 3
after a fallback (1 when something failed). The composition root mounts it with
`app.command("extract")(extract)`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from graph.connect import graph_session
from ingest.cli import exit_code, extraction_lines
from ingest.config import IngestSettings
from ingest.extract.models import ExtractionReport
from ingest.extract.service import extract_stored

__all__ = ["extract", "report_table"]


def report_table(rep: ExtractionReport) -> Table:
    """The end-of-run table of an extraction."""
    t = Table(title="extraction summary")
    t.add_column("item")
    t.add_column("count", justify="right")
    shown_apart = {"failures", "fallbacks", "issues", "extractor", "llm_usage"}
    for name, value in rep.model_dump(exclude=shown_apart).items():
        t.add_row(
            name.replace("_", " "), f"{value:.2f}" if isinstance(value, float) else str(value)
        )
    return t


def extract(
    project: Annotated[
        list[str] | None, typer.Option("--project", "-p", help="Only this project (repeatable)")
    ] = None,
    session: Annotated[
        list[str] | None, typer.Option("--session", "-s", help="Only this session id (repeatable)")
    ] = None,
    llm: Annotated[
        bool, typer.Option("--llm", help="Use the LLM extractor (needs REMGRAPH_LLM__BASE_URL)")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
) -> None:
    """Extract topics, lessons, corrections and facts from sessions already in the graph."""
    overrides = {"extract": {"use_llm": True}} if llm else {}
    settings = IngestSettings(**overrides)  # type: ignore[arg-type]  # pydantic-settings kwargs
    if llm and not settings.llm.enabled:
        raise typer.BadParameter("--llm needs REMGRAPH_LLM__BASE_URL", param_hint="--llm")

    async def run() -> ExtractionReport:
        async with graph_session(settings) as db:
            return await extract_stored(
                db, settings, projects=project or None, session_ids=session or ()
            )

    rep = asyncio.run(run())
    if as_json:
        typer.echo(json.dumps(rep.model_dump(mode="json"), indent=1))
    else:
        console = Console()
        console.print(report_table(rep))
        for f in rep.failures:
            console.print(f"[red]failed[/] {escape(f)}", highlight=False)
        for line in extraction_lines(rep.summary()):
            console.print(line, highlight=False)
    code = exit_code(bool(rep.failures), bool(rep.fallbacks))
    if code:
        raise typer.Exit(code)
