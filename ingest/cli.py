"""The `remgraph ingest` command.

`remgraph ingest PATH... [--format F] [--project P] [--dry-run] [--json] [--no-extract] [--watch]`.

The command only parses arguments, builds settings, opens the graph and calls
`ingest.pipeline.ingest_paths`. The composition root mounts it with `register(app, hooks=...)`,
passing a factory for the post-session hooks (knowledge extraction); `--no-extract` skips them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from ai.embed import Embedder, make_embedder
from graph.connect import graph_session
from graph.db import GraphDB
from ingest.config import IngestSettings
from ingest.models import FileReport, IngestReport
from ingest.pipeline import PostSessionHook, WatchTail, ingest_paths
from ingest.sources.detect import formats

__all__ = ["HookFactory", "RichProgress", "app", "register", "run_ingest"]

HookFactory = Callable[[GraphDB, IngestSettings, Embedder | None], Sequence[PostSessionHook]]
"""Builds the post-session hooks for an open graph, sharing the ingest's embedder (the root
passes one that builds the extraction hook)."""


class RichProgress:
    """A Rich progress bar over files, with turns and turns/s, then one for the embedding backlog.

    The second bar counts turns given vectors after they were written (and text-searchable).
    """

    def __init__(self, console: Console) -> None:
        self.started = time.perf_counter()
        self.turns = 0
        self.bar = Progress(
            TextColumn("[bold]{task.description}[/]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "{task.fields[unit]} · {task.fields[turns]} turns · {task.fields[rate]} turns/s"
            ),
            TimeElapsedColumn(),
            TextColumn("{task.fields[current]}"),
            console=console,
            transient=False,
        )
        self.task = self.bar.add_task(
            "ingest", total=0, turns=0, rate="0", current="", unit="files"
        )
        self.embed_task: Any = None
        self.embed_started = 0.0
        self.embedded = 0

    def files_total(self, n: int) -> None:
        self.bar.update(self.task, total=n)

    def file_started(self, path: str, fmt: str) -> None:
        self.bar.update(self.task, current=f"{Path(path).name} ({fmt})")

    def turns_written(self, n: int) -> None:
        self.turns += n
        rate = self.turns / max(time.perf_counter() - self.started, 1e-6)
        self.bar.update(self.task, turns=self.turns, rate=f"{rate:.0f}")

    def file_done(self, report: FileReport) -> None:
        self.bar.advance(self.task)

    def backlog_total(self, n: int) -> None:
        self.embed_started = time.perf_counter()
        self.embed_task = self.bar.add_task(
            "embed ",
            total=n,
            turns=0,
            rate="0",
            current="(text search works already)",
            unit="turns",
        )

    def backlog_done(self, n: int) -> None:
        self.embedded += n
        rate = self.embedded / max(time.perf_counter() - self.embed_started, 1e-6)
        self.bar.update(self.embed_task, advance=n, turns=self.embedded, rate=f"{rate:.0f}")


def summary_table(rep: IngestReport) -> Table:
    """The end-of-run table: files, sessions, turns new/unchanged/skipped/failed, timings."""
    t = Table(title="ingest summary", show_header=True)
    for col in (
        "files",
        "sessions",
        "turns new",
        "unchanged",
        "skipped",
        "failed",
        "closed",
        "turns/s",
    ):
        t.add_column(col, justify="right")
    t.add_row(
        str(len(rep.files)),
        str(rep.sessions),
        str(rep.turns_new),
        str(rep.turns_unchanged),
        str(rep.turns_skipped),
        str(rep.turns_failed),
        str(rep.turns_closed),
        f"{rep.turns_per_s:.0f}",
    )
    return t


EXIT_FELL_BACK = 3
"""Exit code when everything was ingested but LLM extraction fell back to the offline rules for
at least one session (1 still wins: something failed)."""


def exit_code(failed: bool, fell_back: bool) -> int:
    """1 when anything failed, 3 when extraction fell back to the offline rules, else 0."""
    return 1 if failed else EXIT_FELL_BACK if fell_back else 0


def extraction_lines(x: dict[str, Any], *, max_lines: int = 10) -> list[str]:
    """The extraction part of the ingest summary: extractor, ledger, fallbacks, issues.

    The issues are the model's records that were left out or repaired (the first `max_lines`).
    """
    if not x:
        return []
    line = f"extraction: {x.get('extractor') or '?'}, {x.get('sessions', 0)} sessions"
    if x.get("queued", 0) > x.get("sessions", 0):  # --no-wait-embeddings: not extracted yet
        line += f" ({x['queued']} queued for the backlog drain)"
    u = x.get("llm_usage") or {}
    if u:
        line += (
            f"; LLM {u.get('calls', 0)} calls ({u.get('retries', 0)} retries, "
            f"{u.get('failures', 0)} failed), {u.get('prompt_tokens', 0):,} prompt + "
            f"{u.get('completion_tokens', 0):,} completion tokens, ${u.get('cost_usd', 0):.4f}"
        )
    out = [line]
    fb = x.get("fallbacks") or []
    if fb:
        out.append(
            f"[yellow]extraction fell back to the offline rules for {len(fb)} sessions "
            f"(exit code {EXIT_FELL_BACK}):[/]"
        )
        out += [f"  {escape(f)}" for f in fb[:max_lines]]
    issues = x.get("issues") or []
    if issues:
        out.append(f"[yellow]{len(issues)} extracted records left out or repaired:[/]")
        out += [f"  {escape(i)}" for i in issues[:max_lines]]
        if len(issues) > max_lines:
            out.append(f"  ... and {len(issues) - max_lines} more (use --json)")
    return out


def print_report(rep: IngestReport, console: Console, *, max_issues: int = 30) -> None:
    """Summary table, stage timings and the first issues (file:line reason)."""
    console.print(summary_table(rep))
    stages = ", ".join(f"{k} {v:.2f}s" for k, v in rep.timings.items() if v)
    console.print(f"[dim]stages: {stages}[/]")
    for i in rep.issues[:max_issues]:
        colour = {"error": "red", "warning": "yellow"}.get(i.severity, "dim")
        where = f"{i.file}:{i.line}" if i.line is not None else i.file
        console.print(f"[{colour}]{i.severity}[/] {where}: {i.reason}", highlight=False)
    if len(rep.issues) > max_issues:
        console.print(f"... and {len(rep.issues) - max_issues} more issues (use --json)")
    for e in rep.hook_errors:
        console.print(f"[red]hook error[/] {e}", highlight=False)
    for line in extraction_lines(rep.extraction):
        console.print(line, highlight=False)
    if rep.dry_run:
        console.print("[yellow]dry run: nothing was written[/]")
    elif not rep.files and not rep.failed:
        console.print("[yellow]no transcript found[/]: no file under the paths given is one")
    elif rep.turns_new == 0 and not rep.failed:
        console.print("nothing new: every file was already ingested")


async def run_ingest(
    settings: IngestSettings,
    paths: Sequence[Path],
    *,
    fmt: str,
    project: str | None,
    dry_run: bool,
    as_json: bool,
    extract: bool,
    watch: bool,
    hooks: HookFactory | None,
    console: Console,
    stop: asyncio.Event | None = None,
    wait_embeddings: bool = True,
) -> int:
    """Open the graph, ingest (once, or until interrupted with `--watch`) and report.

    `stop` ends a watch (SIGINT and SIGTERM set it too). Returns the exit code: 1 when anything
    failed, 3 when LLM extraction fell back to the offline rules for some session, else 0.
    """
    async with graph_session(settings) as db:
        embedder = (
            make_embedder(settings.embedding) if settings.ingest.embed and not dry_run else None
        )
        hook_list = list(hooks(db, settings, embedder)) if hooks is not None and extract else []
        if not watch:
            progress = None if as_json else RichProgress(console)
            if progress:
                progress.bar.start()
            try:
                rep = await ingest_paths(
                    db,
                    settings,
                    paths,
                    fmt=fmt,
                    project=project,
                    dry_run=dry_run,
                    hooks=hook_list,
                    run_hooks=extract,
                    embedder=embedder,
                    progress=progress,
                    wait_embeddings=wait_embeddings,
                    renice=True,
                )
            finally:
                if progress:
                    progress.bar.stop()
            if as_json:
                typer.echo(json.dumps(rep.to_json(), indent=1))
            else:
                print_report(rep, console)
            return exit_code(rep.failed, rep.extraction_fell_back)
        return await _watch(
            db,
            settings,
            paths,
            fmt=fmt,
            project=project,
            hooks=hook_list,
            extract=extract,
            as_json=as_json,
            console=console,
            stop=stop or asyncio.Event(),
            embedder=embedder,
        )


async def _watch(
    db: GraphDB,
    settings: IngestSettings,
    paths: Sequence[Path],
    *,
    fmt: str,
    project: str | None,
    hooks: list[PostSessionHook],
    extract: bool,
    as_json: bool,
    console: Console,
    stop: asyncio.Event,
    embedder: Embedder | None,
) -> int:
    """Poll the paths; appended lines are read from the saved offset. SIGINT/SIGTERM stop."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    failed = False
    fell_back = False
    tails: dict[str, WatchTail] = {}  # appended files are read from their offset only
    if not as_json:
        console.print(f"watching {', '.join(map(str, paths))} (Ctrl-C stops)")
    try:
        while not stop.is_set():
            rep = await ingest_paths(
                db,
                settings,
                paths,
                fmt=fmt,
                project=project,
                hooks=hooks,
                run_hooks=extract,
                embedder=embedder,
                tails=tails,
            )
            failed = failed or rep.failed
            fell_back = fell_back or rep.extraction_fell_back
            if rep.turns_new or rep.issues:
                if as_json:
                    typer.echo(json.dumps(rep.to_json()))
                else:
                    console.print(
                        f"{time.strftime('%H:%M:%S')} +{rep.turns_new} turns in "
                        f"{rep.sessions} sessions, {len(rep.issues)} issues"
                    )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=settings.ingest.watch_interval_s)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
    if not as_json:
        console.print("stopped")
    return exit_code(failed, fell_back)


def register(
    parent: typer.Typer, *, hooks: HookFactory | None = None, name: str = "ingest"
) -> None:
    """Add the `ingest` command to `parent`, with the root's post-session hook factory."""

    @parent.command(name)
    def ingest(
        paths: Annotated[list[Path], typer.Argument(help="Transcript files or directories")],
        fmt: Annotated[
            str,
            typer.Option(
                "--format", "-f", help=("auto | claude-code | codex | chatgpt | generic | locomo")
            ),
        ] = "auto",
        project: Annotated[
            str | None, typer.Option("--project", "-p", help="Project slug for every session")
        ] = None,
        dry_run: Annotated[
            bool, typer.Option("--dry-run", help="Parse only; write nothing")
        ] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
        no_extract: Annotated[
            bool, typer.Option("--no-extract", help="Skip knowledge extraction")
        ] = False,
        watch: Annotated[
            bool, typer.Option("--watch", help=("Keep ingesting appended lines until stopped"))
        ] = False,
        batch_size: Annotated[int | None, typer.Option(help="Turns per batch")] = None,
        wait_embeddings: Annotated[
            bool,
            typer.Option(
                "--wait-embeddings/--no-wait-embeddings",
                help=(
                    "Fill the turns' vectors and run the queued knowledge extraction before "
                    "returning; with --no-wait-embeddings the command returns once the turns are "
                    "written and searchable by text, and `remgraph worker` or `serve` embeds and "
                    "extracts them"
                ),
            ),
        ] = True,
    ) -> None:
        """Ingest agent transcripts (Claude Code, Codex, ChatGPT, generic JSONL, LoCoMo)."""
        if fmt not in ("auto", *formats()):
            raise typer.BadParameter(
                f"choose one of {', '.join(('auto', *formats()))}", param_hint="--format"
            )
        settings = IngestSettings()
        if batch_size is not None:
            settings = settings.model_copy(
                update={"ingest": settings.ingest.model_copy(update={"batch_size": batch_size})}
            )
        console = Console(stderr=as_json)
        code = asyncio.run(
            run_ingest(
                settings,
                paths,
                fmt=fmt,
                project=project,
                dry_run=dry_run,
                as_json=as_json,
                extract=not no_extract,
                watch=watch,
                hooks=hooks,
                console=console,
                wait_embeddings=wait_embeddings,
            )
        )
        raise typer.Exit(code)


app = typer.Typer(help="Ingest agent transcripts.", pretty_exceptions_enable=False)
"""A stand-alone app (`python -m ingest.cli PATH...`) without extraction hooks."""
register(app)

if __name__ == "__main__":
    app()
