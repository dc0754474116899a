"""Every `remgraph` command that takes a project takes it as `-p/--project`."""

from __future__ import annotations

from typing import Any

import typer

from remgraph.cli import app


def _commands(cmd: Any, path: tuple[str, ...] = ()):
    yield path, cmd
    for name, sub in getattr(cmd, "commands", {}).items():  # a group (typer's or click's)
        yield from _commands(sub, (*path, name))


def _options(cmd: Any) -> list[list[str]]:
    return [p.opts for p in cmd.params if p.param_type_name == "option"]


def test_every_project_option_has_the_short_form() -> None:
    root = typer.main.get_command(app)
    missing = [
        " ".join(path)
        for path, cmd in _commands(root)
        for opts in _options(cmd)
        if "--project" in opts and "-p" not in opts
    ]
    assert missing == []
    # and the commands people reach for first have it
    names = {
        " ".join(path) for path, cmd in _commands(root) for opts in _options(cmd) if "-p" in opts
    }
    assert {"ingest", "keys create", "extract", "hooks install"} <= names


def test_flags_show_no_value_type_in_help() -> None:
    from typer.testing import CliRunner

    out = CliRunner().invoke(app, ["ingest", "--help"], env={"COLUMNS": "120"}).output
    assert "--dry-run" in out
    assert "<bool>" not in out
    assert "<int>" in out  # an option that takes a value still says what it takes
