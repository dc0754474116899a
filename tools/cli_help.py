"""Write `remgraph/help.txt`, the root `--help` text the console script prints without the CLI.

`remgraph --help` is what a newcomer types first; rendering it imports every sub-command (the
engines, the models, the API), which takes seconds. So the entry point prints this file instead,
and `tests/unit/remgraph/test_entry.py` fails when it no longer matches what the CLI renders.

    python -m tools.cli_help
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

HELP_FILE = Path(__file__).resolve().parents[1] / "remgraph" / "help.txt"
WIDTH = "80"


def rendered() -> str:
    """The root help as the CLI renders it at 80 columns, without colour."""
    from remgraph.cli import app

    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": WIDTH, "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return result.output


def main() -> None:
    """Render and write the file."""
    HELP_FILE.write_text(rendered(), encoding="utf-8")
    print(f"wrote {HELP_FILE}")


if __name__ == "__main__":
    main()
