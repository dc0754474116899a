"""`remgraph --version` answers from the package metadata, without loading the CLI."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from remgraph.cli import app
from remgraph.entry import package_version


def test_version_prints_one_line_without_importing_the_cli() -> None:
    code = (
        "import sys; sys.argv = ['remgraph', '--version']; import remgraph.entry as e; e.main(); "
        "print('remgraph.cli' in sys.modules, 'torch' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == [f"remgraph {package_version()}", "False False"]
    assert package_version() != "unknown"  # the test environment installs the package


def test_the_cli_takes_version_too() -> None:
    for flag in ("--version", "-V"):
        r = CliRunner().invoke(app, [flag])
        assert r.exit_code == 0
        assert r.output == f"remgraph {package_version()}\n"


def test_help_prints_the_clis_own_root_help_without_importing_it() -> None:
    from tools.cli_help import HELP_FILE, rendered

    assert HELP_FILE.read_text(encoding="utf-8") == rendered(), (
        "remgraph/help.txt is out of date: run python -m tools.cli_help"
    )
    code = (
        "import sys; sys.argv = ['remgraph', '--help']; import remgraph.entry as e; e.main(); "
        "print('remgraph.cli' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == HELP_FILE.read_text(encoding="utf-8") + "False\n"
