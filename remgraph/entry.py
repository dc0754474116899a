"""The `remgraph` console script: `--version` answers before the CLI's imports load.

Everything else is `remgraph.cli.main` (its sub-commands import the engines, models and API).
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version


def package_version() -> str:
    """The installed package's version, or `unknown` when it is run from a bare checkout."""
    try:
        return version("remgraph")
    except PackageNotFoundError:
        return "unknown"


def main() -> None:
    """Console-script entry point."""
    if sys.argv[1:] in (["--version"], ["-V"]):
        print(f"remgraph {package_version()}")  # noqa: T201 - the command's whole output
        return
    from remgraph.cli import main as cli_main

    cli_main()
