"""The `remgraph` console script: `--version` and `--help` answer before the CLI's imports load.

`--help` prints `remgraph/help.txt`, the CLI's own root help rendered by `tools/cli_help.py`
(a test fails when the two differ). Everything else is `remgraph.cli.main` (its sub-commands
import the engines, the models and the API).
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

HELP_FILE = Path(__file__).with_name("help.txt")


def package_version() -> str:
    """The installed package's version, or `unknown` when it is run from a bare checkout."""
    try:
        return version("remgraph")
    except PackageNotFoundError:
        return "unknown"


def main() -> None:
    """Console-script entry point."""
    args = sys.argv[1:]
    if args in (["--version"], ["-V"]):
        print(f"remgraph {package_version()}")  # noqa: T201 - the command's whole output
        return
    if args in ([], ["--help"]) and HELP_FILE.is_file():
        sys.stdout.write(HELP_FILE.read_text(encoding="utf-8"))
        if not args:  # as the CLI does when given nothing: the help, and a usage error's code
            sys.exit(2)
        return
    from remgraph.cli import main as cli_main

    cli_main()
