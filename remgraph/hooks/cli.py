"""`remgraph hooks install|uninstall CLIENT`: connect remgraph to an agent's session lifecycle."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from remgraph.hooks.files import FileChange, SettingsFileError, write_change
from remgraph.hooks.install import CLIENTS, HookClient, plan

hooks_app = typer.Typer(
    help="Agent hooks: rules and primers at session start, transcripts ingested as they grow.",
    no_args_is_help=True,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

ClientArg = Annotated[str, typer.Argument(help="claude-code | codex")]
SettingsOpt = Annotated[
    Path | None,
    typer.Option(
        "--settings",
        help="Claude Code: the settings.json to edit (default ~/.claude/settings.json); "
        "Codex: its home folder (default $CODEX_HOME or ~/.codex)",
    ),
]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Print the diff of every file; change nothing")
]


def _client(name: str) -> HookClient:
    if name not in CLIENTS:
        raise typer.BadParameter(f"choose one of {', '.join(CLIENTS)}", param_hint="CLIENT")
    return "claude-code" if name == "claude-code" else "codex"


def _apply(changes: list[FileChange], notes: list[str], dry_run: bool) -> None:
    for c in changes:
        if not c.changed:
            out.print(f"{c.path}: already up to date")
        elif dry_run:
            out.print(c.diff(), markup=False, end="")
        else:
            backup = write_change(c)
            suffix = f" (previous version: {backup})" if backup else " (new file)"
            out.print(f"updated {c.path}{suffix}", markup=False)
        for note in c.notes:
            err.print(f"note: {note}", markup=False)
    for note in notes:
        err.print(f"note: {note}", markup=False)
    if dry_run and any(c.changed for c in changes):
        out.print("dry run: nothing was written")


@hooks_app.command("install")
def install(
    client: ClientArg,
    project: Annotated[
        str | None,
        typer.Option(
            "--project",
            "-p",
            help="Always use this remgraph project (default: the session's folder name)",
        ),
    ] = None,
    settings: SettingsOpt = None,
    notify: Annotated[
        bool, typer.Option("--notify", help="Codex: also set `notify` (versions without hooks)")
    ] = False,
    dry_run: DryRunOpt = False,
) -> None:
    """Add remgraph's hooks (a backup of each changed file is kept next to it)."""
    try:
        changes, notes = plan(
            _client(client), project=project, settings_path=settings, notify=notify
        )
    except SettingsFileError as e:
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(1) from e
    _apply(changes, notes, dry_run)


@hooks_app.command("uninstall")
def uninstall(client: ClientArg, settings: SettingsOpt = None, dry_run: DryRunOpt = False) -> None:
    """Remove remgraph's hooks and nothing else."""
    try:
        changes, notes = plan(_client(client), settings_path=settings, remove=True)
    except SettingsFileError as e:
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(1) from e
    _apply(changes, notes, dry_run)
